/* format/encode.h: the memprof event encoder inlined into the allocator hook, byte for byte what memprof_writer_event writes. */
#ifndef LJLEAK_FORMAT_ENCODE_H
#define LJLEAK_FORMAT_ENCODE_H

#include <stdint.h>
#include <string.h>

#include "format/memprof.h"

/* Room an event needs at most: header + 6 ULEB128s, and the 8 bytes the
 * last one may store past its end. */
#define MEMPROF_ENCODE_EVENT_MAX (1 + 6 * MEMPROF_ULEB128_MAX + 8)

/* ULEB128 of v at p, a byte at a time; returns the end. */
static inline uint8_t *memprof_encode_uleb(uint8_t *p, uint64_t v)
{
  while (v >= 0x80) {
    *p++ = (uint8_t)(v | 0x80);
    v >>= 7;
  }
  *p++ = (uint8_t)v;
  return p;
}

/* By the leading zeros of a value below 2^56 (8 to 63; v | 1 is never 0):
 * its ULEB128 length, and the continuation bits of that many bytes. */
struct memprof_encode_shape {
  uint64_t continuation;
  uint64_t length;
};

#define MEMPROF_ENCODE_SHAPE(len) {0x0080808080808080ull >> (64 - 8 * (len)), (len)}
#define MEMPROF_ENCODE_SHAPE7(len)                                                                      \
  MEMPROF_ENCODE_SHAPE(len), MEMPROF_ENCODE_SHAPE(len), MEMPROF_ENCODE_SHAPE(len), MEMPROF_ENCODE_SHAPE(len),                 \
      MEMPROF_ENCODE_SHAPE(len), MEMPROF_ENCODE_SHAPE(len), MEMPROF_ENCODE_SHAPE(len)
static const struct memprof_encode_shape memprof_encode_shapes[64] = {
  MEMPROF_ENCODE_SHAPE7(8), MEMPROF_ENCODE_SHAPE(8), /* 0..7: not used */
  MEMPROF_ENCODE_SHAPE7(8),                  /* 8..14: 56 to 50 bits */
  MEMPROF_ENCODE_SHAPE7(7), MEMPROF_ENCODE_SHAPE7(6), MEMPROF_ENCODE_SHAPE7(5), MEMPROF_ENCODE_SHAPE7(4),
  MEMPROF_ENCODE_SHAPE7(3), MEMPROF_ENCODE_SHAPE7(2),
  MEMPROF_ENCODE_SHAPE7(1),                  /* 57..63: 7 bits to 1 */
};
#undef MEMPROF_ENCODE_SHAPE7
#undef MEMPROF_ENCODE_SHAPE

/* The same for any v below 2^56 (every address, nearly every value), with
 * no branch on its length: the 7-bit groups are spread into one word (with
 * the pdep instruction where the CPU has a fast one, as pdep says, else in
 * three halving steps), the continuation bits put in by length, and 8 bytes
 * stored at once (the caller keeps 8 bytes of room past the value;
 * MEMPROF_ENCODE_EVENT_MAX does). Heap addresses take 4 to 7 bytes as the OS
 * places them, so a branch on their length would be mispredicted. */
static inline __attribute__((always_inline)) uint8_t *memprof_encode_uleb_word(uint8_t *p, uint64_t v,
                                                                       int pdep)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  if (__builtin_expect((v >> 56) == 0, 1)) {
    const struct memprof_encode_shape *shape = &memprof_encode_shapes[__builtin_clzll(v | 1)];
    uint64_t x;
#if defined(__x86_64__) && defined(__GNUC__)
    if (pdep) {
      __asm__("pdep %2, %1, %0" : "=r"(x) : "r"(v), "r"(UINT64_C(0x7f7f7f7f7f7f7f7f)));
    } else
#endif
    {
      x = (v & 0x0fffffffull) | (v << 4 & 0x0fffffff00000000ull);
      x = (x & 0x00003fff00003fffull) | (x << 2 & 0x3fff00003fff0000ull);
      x = (x & 0x007f007f007f007full) | (x << 1 & 0x7f007f007f007f00ull);
    }
    x |= shape->continuation;
    memcpy(p, &x, sizeof x);
    return p + shape->length;
  }
#endif
  (void)pdep;
  return memprof_encode_uleb(p, v);
}

/* The same for a value that is nearly always below 2^14 (a size, a line, a
 * trace number): one or two bytes without a branch on which, storing two. */
static inline uint8_t *memprof_encode_uleb_small(uint8_t *p, uint64_t v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  if (__builtin_expect(v < 0x4000, 1)) {
    unsigned two = v >= 0x80;
    /* v + (its bits 7..13) moves those bits up by one into the second byte. */
    uint16_t x = (uint16_t)((v + (v & 0x3f80)) | two << 7);
    memcpy(p, &x, sizeof x);
    return p + 1 + two;
  }
#endif
  return memprof_encode_uleb(p, v);
}

/* Writes one event at p (the header and the fields its kind and source
 * have, as memprof_writer_event does); returns the end. kind is
 * ALLOC..REALLOC, source INTERNAL..TRACE; pdep as for memprof_encode_uleb_word.
 * Needs MEMPROF_ENCODE_EVENT_MAX bytes. */
static inline __attribute__((always_inline)) uint8_t *
memprof_encode_event_at(uint8_t *p, unsigned kind, unsigned source, uint64_t location, uint64_t line,
                uint64_t old_address, uint64_t old_size, uint64_t new_address, uint64_t new_size,
                int pdep)
{
  *p++ = (uint8_t)(source << 2 | kind);
  if (source == MEMPROF_SOURCE_LUA) {
    p = memprof_encode_uleb_word(p, location, pdep);
    p = memprof_encode_uleb_small(p, line);
  } else if (source != MEMPROF_SOURCE_INTERNAL) {
    /* A C function's address or a trace number. */
    p = source == MEMPROF_SOURCE_C ? memprof_encode_uleb_word(p, location, pdep)
                                   : memprof_encode_uleb_small(p, location);
  }
  if (kind != MEMPROF_EVENT_ALLOC) {
    p = memprof_encode_uleb_word(p, old_address, pdep);
    p = memprof_encode_uleb_small(p, old_size);
  }
  if (kind != MEMPROF_EVENT_FREE) {
    p = memprof_encode_uleb_word(p, new_address, pdep);
    p = memprof_encode_uleb_small(p, new_size);
  }
  return p;
}

/* Appends e to w's buffer, flushing it first when short of room. The event
 * must be valid (kind ALLOC..REALLOC, source INTERNAL..TRACE). 0 or -1. */
static inline int memprof_encode_event(struct memprof_writer *w, const struct memprof_event *e, int pdep)
{
  if (w->failed)
    return -1;
  if (w->capacity - w->used < MEMPROF_ENCODE_EVENT_MAX && memprof_writer_flush(w) != 0)
    return -1;
  uint8_t *start = w->buffer + w->used;
  uint8_t *end = memprof_encode_event_at(start, (unsigned)e->kind, (unsigned)e->source, e->location,
                                 e->line, e->old_address, e->old_size, e->new_address,
                                 e->new_size, pdep);
  w->used += (size_t)(end - start);
  w->bytes_written += (uint64_t)(end - start);
  return 0;
}

#endif
