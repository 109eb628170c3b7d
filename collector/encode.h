/* collector/encode.h: the hook's inline event encoder, byte for byte what memprof_writer_event writes. */
#ifndef LJLEAK_COLLECTOR_ENCODE_H
#define LJLEAK_COLLECTOR_ENCODE_H

#include <stdint.h>
#include <string.h>

#include "format/memprof.h"

/* Room an event needs at most: header + 6 ULEB128s, and the 8 bytes the
 * last one may store past its end. */
#define ENCODE_EVENT_MAX (1 + 6 * MEMPROF_ULEB128_MAX + 8)

/* ULEB128 of v at p; returns the end. A value of exactly 7 bytes (a heap
 * address of x86-64 or arm64 userland, in nearly every event) has its 7-bit
 * groups spread into one word with shifts and stored at once, writing 8
 * bytes: the caller keeps 8 bytes of room past the value (encode_event's
 * ENCODE_EVENT_MAX does). Other values, mostly sizes and lines, take the
 * byte loop, whose branches are well predicted for them. */
static inline uint8_t *encode_uleb(uint8_t *p, uint64_t v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  if ((v >> 42) != 0 && (v >> 49) == 0) {
    uint64_t x = (v & 0x7full) | (v << 1 & 0x7f00ull) | (v << 2 & 0x7f0000ull) |
                 (v << 3 & 0x7f000000ull) | (v << 4 & 0x7f00000000ull) |
                 (v << 5 & 0x7f0000000000ull) | (v << 6 & 0x7f000000000000ull) |
                 0x0000808080808080ull;
    memcpy(p, &x, sizeof x);
    return p + 7;
  }
#endif
  while (v >= 0x80) {
    *p++ = (uint8_t)(v | 0x80);
    v >>= 7;
  }
  *p++ = (uint8_t)v;
  return p;
}

/* Appends e to w's buffer, flushing it first when short of room. The event
 * must be valid (kind ALLOC..REALLOC, source INTERNAL..TRACE). 0 or -1. */
static inline int encode_event(struct memprof_writer *w, const struct memprof_event *e)
{
  if (w->failed)
    return -1;
  if (w->capacity - w->used < ENCODE_EVENT_MAX && memprof_writer_flush(w) != 0)
    return -1;
  uint8_t *start = w->buffer + w->used, *p = start;
  *p++ = (uint8_t)((unsigned)e->source << 2 | (unsigned)e->kind);
  if (e->source == MEMPROF_SOURCE_LUA) {
    p = encode_uleb(p, e->location);
    p = encode_uleb(p, e->line);
  } else if (e->source != MEMPROF_SOURCE_INTERNAL) {
    p = encode_uleb(p, e->location);
  }
  if (e->kind != MEMPROF_EVENT_ALLOC) {
    p = encode_uleb(p, e->old_address);
    p = encode_uleb(p, e->old_size);
  }
  if (e->kind != MEMPROF_EVENT_FREE) {
    p = encode_uleb(p, e->new_address);
    p = encode_uleb(p, e->new_size);
  }
  w->used += (size_t)(p - start);
  w->bytes_written += (uint64_t)(p - start);
  return 0;
}

#endif
