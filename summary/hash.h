/* summary/hash.h: the hash of the summary's tables, inlined: their keys are 8 bytes. */
#ifndef LJLEAK_SUMMARY_HASH_H
#define LJLEAK_SUMMARY_HASH_H

#include <stdint.h>
#include "container/keyed_slots.h"

/* The hash of an address or of a primary record's key: the one diff's and
 * the collector's address maps use (a multiply between two xor-shifts). */
static inline uint64_t hash_u64(uint64_t value)
{
  return keyed_slots_hash(value);
}

#endif
