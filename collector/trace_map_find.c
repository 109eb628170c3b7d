/* collector/trace_map_find.c: looks up a built trace map (trace_map.h): the snapshot whose machine code holds an offset, and the calls to a target there. */
#include "collector/trace_map.h"

uint32_t coll_trace_map_region(const GCtrace *T, uint32_t ofs, uint32_t *start, uint32_t *end)
{
  uint32_t lo = 0, hi = T->nsnap;
  while (hi - lo > 1) {
    uint32_t mid = (lo + hi) / 2;
    if (T->snap[mid].mcofs <= ofs)
      lo = mid;
    else
      hi = mid;
  }
  *start = T->snap[lo].mcofs;
  *end = lo + 1 < T->nsnap ? T->snap[lo + 1].mcofs : T->szmcode;
  return lo;
}

const struct trace_map_site *coll_trace_map_find(const struct trace_map *map, uint32_t region,
                                                 const void *target)
{
  if (region >= map->nsnap)
    return NULL;
  for (uint32_t i = map->region_first[region]; i < map->region_first[region + 1]; i++)
    if (map->sites[i].target == target)
      return &map->sites[i];
  return NULL;
}
