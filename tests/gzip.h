/* tests/gzip.h: data gzipped whole in memory, with a full flush at a chosen byte, so that a test can damage the deflate block after it (a block that starts at a known decoded offset). */
#ifndef LJLEAK_TESTS_GZIP_H
#define LJLEAK_TESTS_GZIP_H

#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "tests/bytes.h"

/* size bytes of data as one gzip member; when split > 0, a full flush after its first split
 * bytes, and *block is where the compressed block after that flush starts. */
static inline struct bytes gzip_split(const uint8_t *data, size_t size, size_t split, size_t *block)
{
  struct bytes out = {NULL, 0, 0};
  z_stream z;
  memset(&z, 0, sizeof z);
  ck_assert_int_eq(deflateInit2(&z, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
  out.capacity = deflateBound(&z, size) + 1024;
  out.data = malloc(out.capacity);
  z.next_in = (Bytef *)(uintptr_t)data;
  z.next_out = out.data;
  z.avail_out = (uInt)out.capacity;
  if (split > 0) {
    z.avail_in = (uInt)split;
    ck_assert_int_eq(deflate(&z, Z_FULL_FLUSH), Z_OK);
    *block = out.capacity - z.avail_out;
  }
  z.avail_in = (uInt)(size - split);
  ck_assert_int_eq(deflate(&z, Z_FINISH), Z_STREAM_END);
  out.size = out.capacity - z.avail_out;
  deflateEnd(&z);
  return out;
}

#endif
