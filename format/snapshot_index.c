/* format/snapshot_index.c: a decoded heap snapshot's objects put in order by address, its owned blocks by address, and the lookups by address (snapshot_find, snapshot_find_block) and by reference that read it. The decoder (snapshot_read.c) calls snapshot_index_order, then snapshot_index_place, once, after the last chunk. */
#include "format/snapshot_index.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "container/sorted.h"

/* Digits of the radix sort: 16 bits for many keys, 8 for few (the counts are cleared each
 * pass: a snapshot of a few objects should not pay for 65536 of them). */
#define RADIX_BITS(n) ((n) >= 65536 ? 16u : 8u)

/* counts[d] becomes the sum of the counts before d: where digit d's first element goes. */
static void radix_offsets(size_t *counts, size_t digits)
{
  size_t sum = 0;
  for (size_t d = 0; d < digits; d++) {
    size_t c = counts[d];
    counts[d] = sum;
    sum += c;
  }
}

/* Sorts order[0 .. n) (indices into keys) by key: least significant digit first, RADIX_BITS(n)
 * a pass, a pass skipped when every key has one digit there (the high bits of addresses);
 * stable. scratch holds n, counts 2^RADIX_BITS(n). */
static void radix_sort(uint32_t *order, uint32_t *scratch, const uint64_t *keys, size_t n,
                       size_t *counts)
{
  unsigned bits = RADIX_BITS(n);
  size_t digits = (size_t)1 << bits, mask = digits - 1;
  for (unsigned shift = 0; shift < 64; shift += bits) {
    memset(counts, 0, digits * sizeof *counts);
    for (size_t i = 0; i < n; i++)
      counts[(keys[i] >> shift) & mask]++;
    if (counts[(keys[0] >> shift) & mask] == n)
      continue;
    radix_offsets(counts, digits);
    for (size_t i = 0; i < n; i++)
      scratch[counts[(keys[order[i]] >> shift) & mask]++] = order[i];
    memcpy(order, scratch, n * sizeof *order);
  }
}

#define INDEX_AHEAD 16          /* objects prefetched ahead of their copy */

/* Puts s's objects in order (order[i]: the object that goes to i): copied into a new array in
 * that order, each read prefetched ahead (in place, by the permutation's cycles, each object
 * was two cache misses in a row: most of the reading of a million objects); in place when
 * that array cannot be had. order is spent. */
static void permute_objects(struct snapshot *s, uint32_t *order)
{
  struct snapshot_object *objects = s->objects;
  size_t n = s->object_count;
  struct snapshot_object *sorted = malloc(n * sizeof *sorted);
  if (sorted) {
    for (size_t i = 0; i < n; i++) {
      if (i + INDEX_AHEAD < n)
        __builtin_prefetch(&objects[order[i + INDEX_AHEAD]]);
      sorted[i] = objects[order[i]];
    }
    free(objects);
    s->objects = sorted;
    return;
  }
  for (size_t i = 0; i < n; i++) {
    if (order[i] == i)
      continue;
    struct snapshot_object first = objects[i];
    size_t j = i;
    while (order[j] != i) {
      size_t from = order[j];
      objects[j] = objects[from];
      order[j] = (uint32_t)j;
      j = from;
    }
    objects[j] = first;
    order[j] = (uint32_t)j;
  }
}

/* The bucket of an address delta bytes past the first object's: shift is 64 when the objects
 * span 2^63 bytes or more and there is one bucket (a shift by 64 is undefined). */
static uint64_t find_bucket(uint64_t delta, unsigned shift)
{
  return shift < 64 ? delta >> shift : 0;
}

/* snapshot_find's buckets: about two objects a bucket, so that a lookup (one a reference when
 * the holders are found) searches a few objects instead of all of them. */
static enum format_status index_buckets(struct snapshot *s)
{
  if (!s->object_count)
    return FORMAT_OK;
  uint64_t base = s->objects[0].address, span = s->objects[s->object_count - 1].address - base;
  uint32_t buckets = 1;
  while (buckets < s->object_count / 2 && buckets < (UINT32_C(1) << 30))
    buckets <<= 1;
  unsigned shift = 0;
  while (shift < 64 && (span >> shift) >= buckets)
    shift++;
  s->find_start = malloc(((size_t)buckets + 1) * sizeof *s->find_start);
  if (!s->find_start)
    return FORMAT_NO_MEMORY;
  size_t i = 0;
  for (uint32_t k = 0; k <= buckets; k++) {
    while (i < s->object_count && find_bucket(s->objects[i].address - base, shift) < k)
      i++;
    s->find_start[k] = (uint32_t)i;
  }
  s->find_buckets = buckets;
  s->find_shift = shift;
  return FORMAT_OK;
}

/* Owned blocks (objects are found by snapshot_find) sorted by address into s->block_index. */
static enum format_status index_blocks(struct snapshot *s)
{
  size_t n = s->block_count ? s->block_count : 1;
  uint64_t *keys = malloc(n * sizeof *keys);
  uint32_t *order = malloc(n * sizeof *order), *scratch = malloc(n * sizeof *scratch);
  uint32_t *owner = malloc(n * sizeof *owner);
  size_t *counts = malloc(((size_t)1 << RADIX_BITS(n)) * sizeof *counts);
  s->block_index = malloc(n * sizeof *s->block_index);
  enum format_status st = FORMAT_NO_MEMORY;
  if (keys && order && scratch && owner && counts && s->block_index) {
    for (size_t i = 0; i < s->object_count; i++) {
      const struct snapshot_object *o = &s->objects[i];
      for (uint32_t b = 0; b < o->block_count; b++) {
        keys[o->first_block + b] = s->blocks[o->first_block + b].address;
        owner[o->first_block + b] = (uint32_t)i;
      }
    }
    for (size_t i = 0; i < s->block_count; i++)
      order[i] = (uint32_t)i;
    if (s->block_count > 1)
      radix_sort(order, scratch, keys, s->block_count, counts);
    for (size_t i = 0; i < s->block_count; i++)
      s->block_index[i] = (struct snapshot_block_owner){keys[order[i]], owner[order[i]]};
    st = FORMAT_OK;
  }
  free(keys), free(order), free(scratch), free(owner), free(counts);
  return st;
}

static int wide_counts_by_address(const void *a, const void *b)
{
  const struct snapshot_wide_count *x = a, *y = b;
  return x->address < y->address ? -1 : x->address > y->address;
}

/* Sorts words (an address made narrow, << 32, | its object's index) by their high half:
 * RADIX_BITS(n) a pass over key_bits bits, each pass reading in order (no gather by index);
 * the sorted words end in *words (which may become scratch). */
static void radix_sort_words(uint64_t **words, uint64_t **scratch, size_t n, unsigned key_bits, size_t *counts)
{
  unsigned bits = RADIX_BITS(n);
  size_t digits = (size_t)1 << bits, mask = digits - 1;
  for (unsigned shift = 32; shift < 32 + key_bits; shift += bits) {
    uint64_t *in = *words, *out = *scratch;
    memset(counts, 0, digits * sizeof *counts);
    for (size_t i = 0; i < n; i++)
      counts[(in[i] >> shift) & mask]++;
    radix_offsets(counts, digits);
    for (size_t i = 0; i < n; i++)
      out[counts[(in[i] >> shift) & mask]++] = in[i];
    *words = out;
    *scratch = in;
  }
}

/* Addresses made narrow: less the lowest, over the low bits they all share (a heap of a few GB
 * spans fewer than 2^32 such steps). */
struct narrow {
  uint64_t low, span;         /* span: the highest's narrow key */
  unsigned shift;
};

/* The narrow key of address, or -1 when it is no object's of n (out of their range, or
 * between their steps). */
static int64_t narrow_key(const struct narrow *w, uint64_t address)
{
  uint64_t delta = address - w->low;
  if (address < w->low || (delta & (((uint64_t)1 << w->shift) - 1)) || delta >> w->shift > w->span)
    return -1;
  return (int64_t)(delta >> w->shift);
}

/* order[0 .. n): the objects by address, their addresses in words (which the sort spends). When
 * they are narrow, one word per object (its key << 32 | its index) sorted on 32 bits or less,
 * and *keys the sorted keys (NULL else: the indices sorted by a gather of each one's address a
 * pass). *duplicate: the first i whose object has order[i - 1]'s address, or 0. 0, or -1 out
 * of memory. */
static int sort_objects(uint64_t *words, size_t n, uint32_t *order, size_t *counts, size_t *duplicate,
                        struct narrow *w, uint32_t **keys)
{
  uint64_t high = 0, differ = 0;
  w->low = UINT64_MAX;
  for (size_t i = 0; i < n; i++) {
    w->low = words[i] < w->low ? words[i] : w->low;
    high = words[i] > high ? words[i] : high;
    differ |= words[i] ^ words[0];
  }
  w->shift = differ ? (unsigned)__builtin_ctzll(differ) : 0;
  w->span = (high - w->low) >> w->shift;  /* every address is low plus a multiple of 2^shift */
  *duplicate = 0;
  *keys = NULL;
  if (w->span > UINT32_MAX) {
    uint32_t *scratch = malloc(n * sizeof *scratch);
    if (!scratch)
      return -1;
    for (size_t i = 0; i < n; i++)
      order[i] = (uint32_t)i;
    radix_sort(order, scratch, words, n, counts);
    for (size_t i = 1; i < n && !*duplicate; i++)
      *duplicate = words[order[i]] == words[order[i - 1]] ? i : 0;
    free(scratch);
    return 0;
  }
  uint64_t *scratch = malloc(n * sizeof *scratch), *sorted = words;
  if (!scratch || !(*keys = malloc(n * sizeof **keys))) {
    free(scratch);
    return -1;
  }
  for (size_t i = 0; i < n; i++)
    words[i] = ((words[i] - w->low) >> w->shift) << 32 | (uint64_t)i;
  radix_sort_words(&sorted, &scratch, n, w->span ? 64 - (unsigned)__builtin_clzll(w->span) : 1, counts);
  for (size_t i = 0; i < n; i++) {
    order[i] = (uint32_t)sorted[i];
    (*keys)[i] = (uint32_t)(sorted[i] >> 32);
    if (i && !*duplicate && (*keys)[i] == (*keys)[i - 1])
      *duplicate = i;
  }
  free(scratch == words ? sorted : scratch);  /* the one of the two that is not words */
  return 0;
}

/* Each reference's object by its target, looked up among the n sorted narrow keys (its place
 * there is the object's once they are put in order): buckets of about two keys by their high
 * bits, a search in one. The keys are 4 bytes an object, where the objects are 40: the look-ups
 * stay in the cache. -1 when out of memory. */
static int resolve_narrow(struct snapshot *s, const uint64_t *targets, const uint32_t *keys, size_t n,
                          const struct narrow *w)
{
  unsigned key_bits = w->span ? 64 - (unsigned)__builtin_clzll(w->span) : 1, bucket_bits = 0;
  while (((size_t)1 << bucket_bits) < n / 2 && bucket_bits < key_bits)
    bucket_bits++;
  unsigned shift = key_bits - bucket_bits;
  size_t buckets = (size_t)(w->span >> shift) + 1;
  uint32_t *start = malloc((buckets + 1) * sizeof *start);
  if (!start)
    return -1;
  size_t i = 0;
  for (size_t b = 0; b <= buckets; b++) {
    while (i < n && ((uint64_t)keys[i] >> shift) < b)  /* shift is 32 for 3 keys or fewer */
      i++;
    start[b] = (uint32_t)i;
  }
  for (size_t r = 0; r < s->reference_count; r++) {
    int64_t key = narrow_key(w, targets[r]);
    if (key < 0)
      continue;
    size_t b = (size_t)key >> shift;
    size_t at = sorted_lower_bound(keys, sizeof *keys, 0, sizeof *keys, start[b], start[b + 1], (uint64_t)key);
    if (at < start[b + 1] && keys[at] == (uint64_t)key)
      s->references[r].object = (uint32_t)at;
  }
  free(start);
  return 0;
}

enum format_status snapshot_index_order(struct snapshot *s, uint64_t **offsets, const uint64_t *targets,
                                        uint32_t **order, int *resolved, uint64_t *duplicate_address,
                                        uint64_t *duplicate_offset)
{
  size_t n = s->object_count ? s->object_count : 1, duplicate = 0;
  uint64_t *words = malloc(n * sizeof *words);
  size_t *counts = malloc(((size_t)1 << RADIX_BITS(n)) * sizeof *counts);
  uint32_t *keys = NULL;
  struct narrow w = {0, 0, 0};
  *resolved = 0;
  *order = malloc(n * sizeof **order);
  enum format_status st = *order && words && counts ? FORMAT_OK : FORMAT_NO_MEMORY;
  if (st == FORMAT_OK && s->object_count > 1) {
    for (size_t i = 0; i < s->object_count; i++)
      words[i] = s->objects[i].address;
    if (sort_objects(words, s->object_count, *order, counts, &duplicate, &w, &keys) < 0)
      st = FORMAT_NO_MEMORY;
  }
  free(words), free(counts);
  if (st == FORMAT_OK && duplicate) {
    uint64_t a = (*offsets)[(*order)[duplicate]], b = (*offsets)[(*order)[duplicate - 1]];
    *duplicate_address = s->objects[(*order)[duplicate]].address;
    *duplicate_offset = a > b ? a : b;
    st = FORMAT_BAD_INPUT;
  }
  free(*offsets);
  *offsets = NULL;
  if (st == FORMAT_OK && keys) {
    if (resolve_narrow(s, targets, keys, s->object_count, &w) < 0)
      st = FORMAT_NO_MEMORY;
    *resolved = st == FORMAT_OK;
  }
  free(keys);
  if (st != FORMAT_OK) {
    free(*order);
    *order = NULL;
  }
  return st;
}

enum format_status snapshot_index_place(struct snapshot *s, uint32_t *order)
{
  if (s->object_count > 1)
    permute_objects(s, order);
  free(order);
  enum format_status st = index_blocks(s);
  if (s->wide_count_count > 1)  /* a few, if any: LuaJIT's counts fit 32 bits */
    qsort(s->wide_counts, s->wide_count_count, sizeof *s->wide_counts, wide_counts_by_address);
  return st == FORMAT_OK ? index_buckets(s) : st;
}

void snapshot_index_resolve(struct snapshot *s, const uint64_t *targets)
{
  for (size_t i = 0; i < s->reference_count; i++) {
    const struct snapshot_object *o = snapshot_find(s, targets[i]);
    if (o)
      s->references[i].object = (uint32_t)(o - s->objects);
  }
}

enum format_status snapshot_index_wide(struct snapshot *s, const uint64_t *targets,
                                       const struct snapshot_wide *big, size_t big_count)
{
  size_t wide = 0, b = 0;
  for (size_t i = 0; i < s->reference_count; i++)
    wide += snapshot_reference_wide(&s->references[i]);
  if (wide && !(s->wide = malloc(wide * sizeof *s->wide)))
    return FORMAT_NO_MEMORY;
  for (size_t i = 0; wide && i < s->reference_count; i++) {
    if (!snapshot_reference_wide(&s->references[i]))
      continue;
    int64_t index = 0;
    if (s->references[i].kind == SNAPSHOT_REF_INDEX && s->references[i].text == SNAPSHOT_INDEX_WIDE) {
      while (b < big_count && big[b].reference < i)
        b++;
      index = big[b].index;  /* every such reference has its entry */
    }
    s->wide[s->wide_count++] = (struct snapshot_wide){(uint32_t)i, targets[i], index};
  }
  return FORMAT_OK;
}

const struct snapshot_object *snapshot_find(const struct snapshot *snapshot, uint64_t address)
{
  size_t lo = 0, hi = snapshot->object_count;
  if (snapshot->find_start) {
    uint64_t base = snapshot->objects[0].address, k;
    if (address < base || (k = find_bucket(address - base, snapshot->find_shift)) >= snapshot->find_buckets)
      return NULL;
    lo = snapshot->find_start[k];
    hi = snapshot->find_start[k + 1];
  }
  lo = sorted_lower_bound(snapshot->objects, sizeof *snapshot->objects, SORTED_KEY(struct snapshot_object, address),
                          lo, hi, address);
  return lo < snapshot->object_count && snapshot->objects[lo].address == address ? &snapshot->objects[lo] : NULL;
}

const struct snapshot_object *snapshot_find_block(const struct snapshot *snapshot, uint64_t address)
{
  const struct snapshot_object *object = snapshot_find(snapshot, address);
  size_t n = snapshot->block_count, lo = 0, hi = n;
  if (object || !snapshot->block_index)
    return object;
  lo = sorted_lower_bound(snapshot->block_index, sizeof *snapshot->block_index,
                          SORTED_KEY(struct snapshot_block_owner, address), lo, hi, address);
  return lo < n && snapshot->block_index[lo].address == address
           ? &snapshot->objects[snapshot->block_index[lo].object]
           : NULL;
}

static const struct snapshot_wide *wide_of(const struct snapshot *snapshot,
                                           const struct snapshot_reference *ref)
{
  uint32_t at = (uint32_t)(ref - snapshot->references);
  size_t lo = sorted_lower_bound(snapshot->wide, sizeof *snapshot->wide, SORTED_KEY(struct snapshot_wide, reference),
                                 0, snapshot->wide_count, at);
  return lo < snapshot->wide_count && snapshot->wide[lo].reference == at ? &snapshot->wide[lo] : NULL;
}

uint64_t snapshot_object_count(const struct snapshot *snapshot, const struct snapshot_object *object)
{
  if (object->count != SNAPSHOT_COUNT_WIDE)
    return object->count;
  size_t lo = sorted_lower_bound(snapshot->wide_counts, sizeof *snapshot->wide_counts,
                                 SORTED_KEY(struct snapshot_wide_count, address), 0, snapshot->wide_count_count,
                                 object->address);
  return lo < snapshot->wide_count_count && snapshot->wide_counts[lo].address == object->address
           ? snapshot->wide_counts[lo].count
           : SNAPSHOT_COUNT_WIDE;
}

uint64_t snapshot_reference_target(const struct snapshot *snapshot, const struct snapshot_reference *ref)
{
  if (ref->object != SNAPSHOT_NO_OBJECT)
    return snapshot->objects[ref->object].address;
  const struct snapshot_wide *w = wide_of(snapshot, ref);
  return w ? w->target : 0;
}

int64_t snapshot_reference_index(const struct snapshot *snapshot, const struct snapshot_reference *ref)
{
  if (ref->kind != SNAPSHOT_REF_INDEX)
    return 0;
  if (ref->text != SNAPSHOT_INDEX_WIDE) {
    int64_t n = (int64_t)ref->text;  /* a 28-bit two's complement */
    return n > SNAPSHOT_INDEX_NARROW ? n - (INT64_C(1) << 28) : n;
  }
  const struct snapshot_wide *w = wide_of(snapshot, ref);
  return w ? w->index : 0;
}

const char *snapshot_string(const struct snapshot *snapshot, uint32_t id)
{
  return id >= 1 && id <= snapshot->string_count ? snapshot->strings[id] : "";
}

const char *snapshot_label(const struct snapshot *snapshot, const struct snapshot_reference *ref,
                           char *out, size_t size)
{
  const char *text = ref->kind == SNAPSHOT_REF_INDEX ? "" : snapshot_string(snapshot, ref->text);
  switch (ref->kind) {
  case SNAPSHOT_REF_INDEX:
    snprintf(out, size, "[%" PRId64 "]", snapshot_reference_index(snapshot, ref));
    break;
  case SNAPSHOT_REF_KEY:
    snprintf(out, size, "key %s", text);
    break;
  default:
    snprintf(out, size, "%s", text);
    break;
  }
  return out;
}

