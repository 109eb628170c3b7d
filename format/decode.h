/* format/decode.h: an event decoded in place with no bounds checks, inlined into hot loops.
 * memprof_reader_events_span (memprof.h) gives the bytes; the reader itself uses it too. */
#ifndef LJLEAK_FORMAT_DECODE_H
#define LJLEAK_FORMAT_DECODE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "format/memprof.h"

/* The longest event is 61 bytes (a Lua realloc with five 10-byte numbers): an
 * event starting MEMPROF_DECODE_SLACK bytes before the end of the data is
 * decoded without bounds checks. */
#define MEMPROF_DECODE_SLACK 64

/* Decodes a ULEB128 of more than 8 bytes, or any length where words are not
 * little-endian; no bounds check: the caller knows 10 bytes are there. */
static inline const uint8_t *memprof_uleb_long(const uint8_t *p, uint64_t *value, int *bad)
{
  uint64_t byte = *p++;
  if (byte < 0x80) {
    *value = byte;
    return p;
  }
  uint64_t result = byte & 0x7f;
  for (unsigned shift = 7;; shift += 7) {
    byte = *p++;
    if (shift == 63) {
      if (byte > 1)
        *bad = 1;  /* a tenth byte holds bit 63 only and ends the number */
      result |= byte << 63;
      break;
    }
    result |= (byte & 0x7f) << shift;
    if (byte < 0x80)
      break;
  }
  *value = result;
  return p;
}

/* For the function that holds a hot loop decoding with pext = 1: lets the
 * compiler use the other BMI1 and BMI2 instructions there too. Call such a
 * function only when memprof_reader_pext says the CPU has them. */
#if defined(__x86_64__) && defined(__GNUC__)
#define MEMPROF_DECODE_BMI2 __attribute__((target("bmi,bmi2")))
#else
#define MEMPROF_DECODE_BMI2
#endif

/* Packs the 7-bit groups of a ULEB128's bytes (stop bits cleared) into
 * one number. With pext it is one instruction; inline assembly, so that the
 * generic build can carry it and use it only where the CPU has it. */
static inline __attribute__((always_inline)) uint64_t memprof_uleb_squeeze(uint64_t x, int pext)
{
#if defined(__x86_64__) && defined(__GNUC__)
  if (pext) {
    __asm__("pext %2, %1, %0" : "=r"(x) : "r"(x), "r"(UINT64_C(0x7f7f7f7f7f7f7f7f)));
    return x;
  }
#else
  (void)pext;
#endif
  /* 7-bit groups to 14, 28, then 56 bits. */
  x = (x & UINT64_C(0x007f007f007f007f)) | (x & UINT64_C(0x7f007f007f007f00)) >> 1;
  x = (x & UINT64_C(0x00003fff00003fff)) | (x & UINT64_C(0x3fff00003fff0000)) >> 2;
  x = (x & UINT64_C(0x000000000fffffff)) | (x & UINT64_C(0x0fffffff00000000)) >> 4;
  return x;
}

/* Decodes a ULEB128 with no bounds check: the caller knows 10 bytes are there.
 * Numbers of up to 8 bytes (below 2^56: every address and size in practice)
 * are decoded from one 8-byte load without a branch on their length, which
 * varies from field to field and would be mispredicted. pext is a constant
 * where it is inlined. */
static inline __attribute__((always_inline)) const uint8_t *
memprof_uleb_fast(const uint8_t *p, uint64_t *value, int *bad, int pext)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  uint64_t word;
  memcpy(&word, p, sizeof word);
  uint64_t ends = ~word & UINT64_C(0x8080808080808080);  /* bytes with the stop bit clear */
  if (__builtin_expect(ends != 0, 1)) {
    *value = memprof_uleb_squeeze(word & (ends ^ (ends - 1)), pext);  /* the bytes through the first end */
    return p + (__builtin_ctzll(ends) >> 3) + 1;
  }
#else
  (void)pext;
#endif
  return memprof_uleb_long(p, value, bad);
}

/* Whether header starts an event or a symtab event in an events part of this version. */
static inline int memprof_event_header_is_valid(uint8_t header, int version)
{
  if (header < 0x04 || header > 0x13)
    return 0;  /* source 0, or source 5..7 */
  if (version == 1 && ((header & 3) == MEMPROF_EVENT_SYMTAB || (header >> 2) == MEMPROF_SOURCE_TRACE))
    return 0;  /* the first format had no trace source and no symtab events */
  if (header == ((MEMPROF_SOURCE_INTERNAL << 2) | MEMPROF_EVENT_SYMTAB))
    return 0;  /* a symtab event names a Lua, C or trace symbol */
  return 1;
}

/* Decodes the event at p (its header byte) into *e. MEMPROF_DECODE_SLACK
 * bytes must be readable from p. Returns the event's length, or 0 when p holds
 * anything else (a symtab event, the epilogue, a bad header byte, an
 * over-long number): memprof_reader_next then reads it and names any error.
 * pext is the reader's choice (memprof_reader_pext), a constant where this
 * is inlined so that one of the two decoders is compiled in. */
static inline __attribute__((always_inline)) size_t
memprof_decode_event(const uint8_t *start, int version, struct memprof_event *e, int pext)
{
  unsigned header = start[0];  /* a full register: a spilled byte reloaded wider stalls */
  /* Bit h set for the header h of an alloc, free or realloc from an
   * internal, Lua, C or trace source: what memprof_event_header_is_valid
   * accepts less symtab events, in one test (the first format had no trace
   * source). */
  uint32_t decoded = version == 1 ? UINT32_C(0x0000eee0) : UINT32_C(0x000eeee0);
  if (header > 31 || !(decoded >> header & 1))
    return 0;
  const uint8_t *p = start + 1;
  int bad = 0;
  uint64_t location = 0, line = 0, a = 0, b = 0, c = 0, d = 0;
  unsigned source = header >> 2, kind = header & 3;
  if (source == MEMPROF_SOURCE_LUA) {
    p = memprof_uleb_fast(p, &location, &bad, pext);
    p = memprof_uleb_fast(p, &line, &bad, pext);
  } else if (source != MEMPROF_SOURCE_INTERNAL) {
    p = memprof_uleb_fast(p, &location, &bad, pext);
  }
  p = memprof_uleb_fast(p, &a, &bad, pext);
  p = memprof_uleb_fast(p, &b, &bad, pext);
  if (kind == MEMPROF_EVENT_REALLOC) {
    p = memprof_uleb_fast(p, &c, &bad, pext);
    p = memprof_uleb_fast(p, &d, &bad, pext);
  }
  if (bad)
    return 0;
  e->kind = (enum memprof_event_kind)kind;
  e->source = (enum memprof_source)source;
  e->location = location;
  e->line = line;
  if (kind == MEMPROF_EVENT_ALLOC) {
    e->old_address = 0;
    e->old_size = 0;
    e->new_address = a;
    e->new_size = b;
  } else {
    e->old_address = a;
    e->old_size = b;
    e->new_address = c;
    e->new_size = d;
  }
  return (size_t)(p - start);
}

#endif
