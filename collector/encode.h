/* collector/encode.h: the hook's inline event encoder, byte for byte what memprof_writer_event writes. */
#ifndef LJLEAK_COLLECTOR_ENCODE_H
#define LJLEAK_COLLECTOR_ENCODE_H

#include <stdint.h>

#include "format/memprof.h"

/* Room an event needs at most: header + 6 ULEB128s. */
#define ENCODE_EVENT_MAX (1 + 6 * MEMPROF_ULEB128_MAX)

/* ULEB128 of v at p; returns the end. (A branch-free variant that spreads
 * the 7-bit groups with shifts measured more instructions than this loop,
 * whose branches are well predicted for the fixed-length addresses.) */
static inline uint8_t *encode_uleb(uint8_t *p, uint64_t v)
{
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
