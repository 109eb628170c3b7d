/* container/sorted.h: binary search over arrays of records sorted by an unsigned key member. */
#ifndef LJLEAK_CONTAINER_SORTED_H
#define LJLEAK_CONTAINER_SORTED_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The key member of a record type, for sorted_lower_bound: its offset and
 * its size (4 or 8 bytes). */
#define SORTED_KEY(type, member) offsetof(type, member), sizeof(((type *)0)->member)

/* The first of records [lo, hi) (each record_size bytes, sorted by the
 * unsigned key at key_offset, of key_size bytes) whose key is not below key,
 * or hi. Inline, so that constant sizes fold: lookups run once per
 * reference of a heap snapshot. */
static inline size_t sorted_lower_bound(const void *records, size_t record_size, size_t key_offset,
                                        size_t key_size, size_t lo, size_t hi, uint64_t key)
{
  const unsigned char *bytes = records;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    const unsigned char *at = bytes + mid * record_size + key_offset;
    uint64_t mid_key;
    if (key_size == sizeof(uint32_t)) {
      uint32_t narrow;
      memcpy(&narrow, at, sizeof narrow);
      mid_key = narrow;
    } else {
      memcpy(&mid_key, at, sizeof mid_key);
    }
    if (mid_key < key)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* The same over [0, n), searched from hint outwards by doubling steps: cheap when the keys
 * looked up come in about the records' order (each near the last one's place). */
static inline size_t sorted_lower_bound_near(const void *records, size_t record_size, size_t key_offset,
                                             size_t key_size, size_t n, size_t hint, uint64_t key)
{
  size_t lo, hi;
  if (hint > n)
    hint = n;
  if (hint < n && sorted_lower_bound(records, record_size, key_offset, key_size, hint, hint + 1, key) == hint + 1) {
    /* the key lies after hint: [hint + step / 2, hint + step) until it is below that end */
    size_t step = 1;
    lo = hint + 1;
    while (lo + step < n && sorted_lower_bound(records, record_size, key_offset, key_size, lo + step - 1,
                                               lo + step, key) == lo + step) {
      lo += step;
      step *= 2;
    }
    hi = lo + step < n ? lo + step : n;
  } else {
    /* at hint or before it */
    size_t step = 1;
    hi = hint;
    while (hi >= step && sorted_lower_bound(records, record_size, key_offset, key_size, hi - step, hi - step + 1,
                                            key) == hi - step) {
      hi -= step;
      step *= 2;
    }
    lo = hi >= step ? hi - step : 0;
  }
  return sorted_lower_bound(records, record_size, key_offset, key_size, lo, hi, key);
}

#endif
