/* diff/segment_piece.c: a segment's pieces: the end of one (its young blocks old from then on, its sites' churn kept), the blocks kept at a kept boundary, and the local sites' stats. */
#include "diff/segment.h"

#include <stdlib.h>
#include <string.h>

#include "container/array.h"
#include "diff/sampling.h"

int diff_segment_aggregate_site(struct diff_segment_aggregate *segment, const char *name, size_t length,
                           enum diff_site_kind kind, uint32_t *site)
{
  if (segment->sites.count >= DIFF_LIVE_MAP_MAX_SITES)  /* the live map keeps 24 bits of site */
    return -1;
  if (diff_site_table_intern(&segment->sites, name, length, kind, site) < 0)
    return -1;
  return diff_segment_aggregate_reserve(segment, segment->sites.count);
}

int diff_segment_aggregate_reserve(struct diff_segment_aggregate *segment, size_t count)
{
  size_t before = segment->stats_capacity;
  if (array_reserve((void **)&segment->stats, &segment->stats_capacity, count, sizeof *segment->stats) != 0)
    return -1;
  memset(segment->stats + before, 0, (segment->stats_capacity - before) * sizeof *segment->stats);
  return 0;
}

void diff_segment_aggregate_drop_kept(struct diff_segment_aggregate *segment)
{
  for (size_t i = 0; i < segment->kept_count; i++)
    free(segment->kept[i].blocks), free(segment->kept[i].big);
  free(segment->kept);
  segment->kept = NULL;
  segment->kept_count = 0;
}

int diff_segment_aggregate_keep(struct diff_segment_aggregate *segment, size_t boundary)
{
  const struct diff_live_map *map = &segment->touched;
  if (array_resize((void **)&segment->kept, segment->kept_count + 1, sizeof *segment->kept) != 0)
    return -1;
  struct diff_segment_kept *kept = &segment->kept[segment->kept_count];
  kept->boundary = boundary;
  kept->touches_end = segment->touch_count;
  kept->count = 0;
  kept->big = NULL;
  kept->big_count = 0;
  kept->blocks = malloc((map->count ? map->count : 1) * sizeof *kept->blocks);
  segment->kept_count++;  /* counted now: dropped whole on failure */
  if (!kept->blocks)
    return -1;
  for (size_t i = 0; i < map->slot_count; i++) {
    const struct diff_live_block *slot = &map->slots[i];
    if (slot->address && slot->site != DIFF_LIVE_MAP_DEAD &&
        diff_segment_block_put(kept->blocks, kept->count++, slot->address, live_map_size(map, slot),
                               slot->site & DIFF_LIVE_MAP_SITE_MASK, &kept->big, &kept->big_count) < 0)
      return -1;
  }
  return 0;
}

int diff_segment_block_put(struct diff_segment_block *blocks, size_t i, uint64_t address, uint64_t size,
                           uint32_t owner, struct diff_live_map_big **big, size_t *big_count)
{
  blocks[i] = (struct diff_segment_block){address, owner, size < DIFF_LIVE_MAP_BIG_SIZE ? (uint32_t)size : DIFF_LIVE_MAP_BIG_SIZE};
  if (size < DIFF_LIVE_MAP_BIG_SIZE)
    return 0;
  if (array_resize((void **)big, *big_count + 1, sizeof **big) != 0)
    return -1;
  (*big)[(*big_count)++] = (struct diff_live_map_big){address, size};
  return 0;
}

int diff_segment_aggregate_end_piece(struct diff_segment_aggregate *segment, int boundary_end,
                                uint64_t sample)
{
  /* The piece's young blocks still live: young at its end, old from now on. Not counted
   * at its end, they count from the next piece as if born in it. A piece with no boundary
   * at its end shares its mark with the next: its blocks were not live at a boundary. */
  uint32_t next_mark = boundary_end ? (segment->piece_mark + (1u << DIFF_LIVE_MAP_PIECE_SHIFT)) &
                                          DIFF_LIVE_MAP_PIECE
                                    : segment->piece_mark;
  for (size_t i = 0; i < segment->young_count; i++) {
    struct diff_live_block *block = diff_live_map_find(&segment->touched, segment->young[i]);
    if (!block || block->site == DIFF_LIVE_MAP_DEAD || !(block->site & DIFF_LIVE_MAP_YOUNG))
      continue;  /* died, or counted already (born twice at one address) */
    block->site = (block->site & DIFF_LIVE_MAP_SITE_MASK) | next_mark;
    uint64_t size = live_map_size(&segment->touched, block);
    struct diff_segment_site *stats = &segment->stats[block->site & DIFF_LIVE_MAP_SITE_MASK];
    stats->young_bytes += sampling_bytes(sample, size);
    stats->young_blocks += sampling_blocks(sample, size);
  }
  segment->young_count = 0;
  size_t owners = segment_owner_count(segment);
  for (uint32_t site = 0; site < owners; site++) {
    struct diff_segment_site *stats = &segment->stats[site];
    if (!stats->alloc_bytes && !stats->allocs && !stats->free_bytes && !stats->frees &&
        !stats->young_bytes && !stats->young_blocks)
      continue;
    if (array_reserve((void **)&segment->piece_sites, &segment->piece_site_capacity,
                      segment->piece_site_count + 1, sizeof *segment->piece_sites) != 0)
      return -1;
    struct diff_segment_piece_site *entry = &segment->piece_sites[segment->piece_site_count++];
    entry->site = site;
    entry->stats = *stats;
    memset(stats, 0, sizeof *stats);
  }
  if (array_reserve((void **)&segment->pieces, &segment->piece_capacity, segment->piece_count + 1,
                    sizeof *segment->pieces) != 0)
    return -1;
  struct diff_segment_piece *piece = &segment->pieces[segment->piece_count++];
  piece->touches_end = segment->touch_count;
  piece->sites_end = segment->piece_site_count;
  piece->boundary_end = boundary_end;
  segment->piece_mark = next_mark;
  return 0;
}
