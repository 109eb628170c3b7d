/* tests/bytes.h: a growing byte buffer and the writers' sink that fills it, for tests and fuzzers that write streams to memory. */
#ifndef LJLEAK_TESTS_BYTES_H
#define LJLEAK_TESTS_BYTES_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct bytes {
  uint8_t *data;
  size_t size, capacity;
};

/* A sink of memprof_writer and stacks_writer: appends to the struct bytes
 * it is given; -1 when it cannot grow. */
static inline int bytes_sink(void *context, const uint8_t *data, size_t size)
{
  struct bytes *b = context;
  if (b->size + size > b->capacity) {
    size_t capacity = b->capacity ? b->capacity : 1024;
    while (capacity < b->size + size)
      capacity *= 2;
    uint8_t *grown = realloc(b->data, capacity);
    if (!grown)
      return -1;
    b->data = grown;
    b->capacity = capacity;
  }
  memcpy(b->data + b->size, data, size);
  b->size += size;
  return 0;
}

#endif
