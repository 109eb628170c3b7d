/* summary/hash.h: the hash of the summary's tables, inlined: their keys are a few bytes. */
#ifndef LJLEAK_SUMMARY_HASH_H
#define LJLEAK_SUMMARY_HASH_H

#include <stdint.h>
#ifndef XXH_INLINE_ALL
#define XXH_INLINE_ALL  /* the 8- and 24-byte keys hash in a few inlined instructions */
#endif
#include <xxhash.h>

/* The hash of an address or of a primary record's key. */
static inline uint64_t hash_u64(uint64_t value)
{
  return XXH3_64bits(&value, sizeof value);
}

#endif
