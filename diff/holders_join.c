/* diff/holders_join.c: a snapshot's objects joined with the blocks live at its boundary, by address (docs/diff.md, "Holders", the join). */
#include <stdlib.h>
#include <string.h>

#include "container/sorted.h"
#include "diff/holders_join.h"

/* The size the snapshot gives the block at address of object o (its own or an owned one). */
static uint64_t holders_block_size(const struct snapshot *s, const struct snapshot_object *o, uint64_t address)
{
  if (o->address == address)
    return o->size;
  for (uint32_t b = 0; b < o->block_count; b++)
    if (s->blocks[o->first_block + b].address == address)
      return s->blocks[o->first_block + b].size;
  return 0;
}

/* Where the last look-up of holders_find_near ended, in the objects and in the owned blocks. */
struct holders_near {
  size_t object, block;
};

/* snapshot_find_block, searched from where the last look-up ended: the blocks come in about
 * address order, so each is a few steps from the one before. */
static const struct snapshot_object *holders_find_near(const struct snapshot *s, uint64_t address,
                                                       struct holders_near *at)
{
  at->object = sorted_lower_bound_near(s->objects, sizeof *s->objects, SORTED_KEY(struct snapshot_object, address),
                                       s->object_count, at->object, address);
  if (at->object < s->object_count && s->objects[at->object].address == address)
    return &s->objects[at->object];
  if (!s->block_index)
    return NULL;
  at->block = sorted_lower_bound_near(s->block_index, sizeof *s->block_index,
                                      SORTED_KEY(struct snapshot_block_owner, address), s->block_count, at->block,
                                      address);
  return at->block < s->block_count && s->block_index[at->block].address == address
           ? &s->objects[s->block_index[at->block].object]
           : NULL;
}

#define HOLDERS_DIGIT_BITS 11       /* a pass of the blocks' sort: 2048 places written at once, few
                                     * enough that each one's line stays in the cache */

/* *sorted: the blocks in about address order: sorted by address range (about two blocks a
 * range), HOLDERS_DIGIT_BITS of the range a pass, least significant first, each pass reading in
 * order. The snapshot's objects are in address order, so that its look-ups then read it in
 * order: in the live map's order (a hash's), each missed the cache, most of the analysis of a
 * million-node list. taken: blocks may be written (it becomes *sorted, or is freed); else
 * *sorted is a new array. -1 when out of memory (taken freed). */
static int holders_block_order(const struct diff_holders_block *blocks, struct diff_holders_block *taken,
                               size_t count, struct diff_holders_block **sorted)
{
  uint64_t low = UINT64_MAX, high = 0;
  for (size_t i = 0; i < count; i++) {
    low = blocks[i].address < low ? blocks[i].address : low;
    high = blocks[i].address > high ? blocks[i].address : high;
  }
  unsigned range_bits = 5;
  while (range_bits < 32 && ((size_t)1 << range_bits) < count / 2)
    range_bits++;
  unsigned shift = 0;  /* stops by 63: the span >> 63 is 0 or 1 */
  while (count && ((high - low) >> shift) >> range_bits)
    shift++;
  size_t digits = (size_t)1 << HOLDERS_DIGIT_BITS, *at = malloc(digits * sizeof *at);
  struct diff_holders_block *a = malloc((count ? count : 1) * sizeof *a), *b = taken;
  if (!b)
    b = malloc((count ? count : 1) * sizeof *b);
  if (!at || !a || !b) {
    free(at), free(a), free(b);
    return -1;
  }
  const struct diff_holders_block *in = blocks;
  for (unsigned d = 0; d < range_bits; d += HOLDERS_DIGIT_BITS) {
    struct diff_holders_block *out = in == a ? b : a;
    memset(at, 0, digits * sizeof *at);
    for (size_t i = 0; i < count; i++)
      at[((in[i].address - low) >> shift >> d) & (digits - 1)]++;
    for (size_t k = 0, sum = 0; k < digits; k++) {
      size_t c = at[k];
      at[k] = sum;
      sum += c;
    }
    for (size_t i = 0; i < count; i++)
      out[at[((in[i].address - low) >> shift >> d) & (digits - 1)]++] = in[i];
    in = out;
  }
  *sorted = in == a ? a : b;  /* a pass at least: range_bits >= 5 */
  free(in == a ? b : a);
  free(at);
  return 0;
}

int holders_join(const struct snapshot *snapshot, const struct diff_holders_block *blocks, size_t block_count,
                 size_t site_count, struct diff_holders_member **members, size_t *count,
                 struct diff_holders_block *taken)
{
  struct diff_holders_block *sorted_blocks;
  if (holders_block_order(blocks, taken, block_count, &sorted_blocks) < 0)
    return -1;
  blocks = sorted_blocks;
  struct diff_holders_member *found = malloc((block_count ? block_count : 1) * sizeof *found);
  if (!found) {
    free(sorted_blocks);
    return -1;
  }
  size_t n = 0;
  struct holders_near near = {0, 0};
  for (size_t i = 0; i < block_count; i++) {
    const struct snapshot_object *o = holders_find_near(snapshot, blocks[i].address, &near);
    if (!o || blocks[i].site >= site_count || blocks[i].site > DIFF_HOLDERS_SITE_MAX ||
        holders_block_size(snapshot, o, blocks[i].address) != blocks[i].size)
      continue;  /* not in the snapshot, or another block at a reused address */
    found[n++] = (struct diff_holders_member){.site = blocks[i].site,
                                              .part = o->address != blocks[i].address && o->size,
                                              .object = (uint32_t)(o - snapshot->objects),
                                              .bytes = blocks[i].size};
  }
  free(sorted_blocks);
  /* By site: a counting sort (sites are few, members many). */
  size_t *start = calloc(site_count + 1, sizeof *start);
  struct diff_holders_member *sorted = malloc((n ? n : 1) * sizeof *sorted);
  uint32_t *last = malloc((snapshot->object_count ? snapshot->object_count : 1) * sizeof *last);
  if (!start || !sorted || !last) {
    free(start), free(sorted), free(last), free(found);
    return -1;
  }
  for (size_t i = 0; i < n; i++)
    start[found[i].site + 1]++;
  for (size_t k = 0; k < site_count; k++)
    start[k + 1] += start[k];
  for (size_t i = 0; i < n; i++)
    sorted[start[found[i].site]++] = found[i];
  free(start);
  free(found);
  memset(last, 0xff, (snapshot->object_count ? snapshot->object_count : 1) * sizeof *last);
  size_t out = 0;  /* last[object]: its member of the current site, while the site lasts */
  for (size_t i = 0; i < n; i++) {
    uint32_t o = sorted[i].object;
    if (last[o] != DIFF_HOLDERS_NONE && last[o] < out && sorted[last[o]].site == sorted[i].site &&
        sorted[last[o]].object == o) {
      sorted[last[o]].bytes += sorted[i].bytes;
      sorted[last[o]].part &= sorted[i].part;  /* the site made the object itself too */
      continue;
    }
    last[o] = (uint32_t)out;
    sorted[out++] = sorted[i];
  }
  free(last);
  *members = sorted;
  *count = out;
  return 0;
}
