/* collector/seg_out.h: writes one segment file, plain or gzip, straight to its descriptor. */
#ifndef LJLEAK_COLLECTOR_SEG_OUT_H
#define LJLEAK_COLLECTOR_SEG_OUT_H

#include <stddef.h>
#include <stdint.h>
#include <zlib.h>

struct seg_out {
  int fd;
  int gzip;
  int z_ready;
  z_stream z;
  uint8_t *zbuf;          /* deflate output, caller-owned */
  size_t zcap;
  uint64_t disk_bytes;    /* bytes written to the file */
  int error;              /* errno of the first failure, 0 if none */
};

/* Creates path (truncating). zbuf/zcap are used for gzip output. Returns 0 or -1 (errno in out->error). */
int seg_out_open(struct seg_out *out, const char *path, int gzip, uint8_t *zbuf, size_t zcap);

/* Writes data; with gzip, compresses it and ends with a sync flush so the
 * file decompresses up to here even if the process dies next. 0 or -1. */
int seg_out_write(struct seg_out *out, const uint8_t *data, size_t size);

/* Ends the gzip member, syncs and closes. 0 or -1. */
int seg_out_finish(struct seg_out *out);

/* Closes without finishing (after an error). */
void seg_out_abandon(struct seg_out *out);

#endif
