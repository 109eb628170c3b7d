/* diff/holders.h: who holds a growing site's blocks: its live blocks joined with a heap snapshot's objects, the shortest path from a GC root to each, and the retained size of each holder (the dominator tree). */
#ifndef LJLEAK_DIFF_HOLDERS_H
#define LJLEAK_DIFF_HOLDERS_H

#include <stddef.h>
#include <stdint.h>

#include "diff/aggregate.h"
#include "diff/diff.h"
#include "diff/source.h"
#include "format/snapshot.h"

#define DIFF_HOLDERS_SHOWN 5        /* paths kept per site, most bytes first */
#define DIFF_HOLDERS_NONE UINT32_MAX

/* The immediate dominator of every node of a graph of node_count nodes
 * whose edges are succ[first[v] .. first[v + 1]), from root (Cooper, Harvey
 * and Kennedy's iterative algorithm over a reverse postorder): idom[root] is
 * root, a node root does not reach gets DIFF_HOLDERS_NONE. order gets the
 * reached nodes in reverse postorder (node_count entries; *reached of them
 * used), so that a node's dominator comes before it. 0, or -1 when out of
 * memory. */
int diff_holders_dominators(uint32_t node_count, const size_t *first, const uint32_t *succ,
                            uint32_t root, uint32_t *idom, uint32_t *order, uint32_t *reached);

/* What a site holds in one snapshot, for diff_holders_analyse: blocks of
 * the site live at the snapshot's boundary (address and size). */
struct diff_holders_block {
  uint64_t address, size;
  uint32_t site;              /* the caller's site index */
};

/* Finds, for each of site_count sites, the paths that hold its blocks in
 * snapshot: the objects that own them (by address), the shortest path from
 * a root to each over references that are not weak, grouped by path with
 * array indices and keys that differ between the site's objects collapsed
 * to [*]; the DIFF_HOLDERS_SHOWN with most bytes go to sites[i].holders, each
 * with the retained size of the object it ends in. 0, or -1 when out of
 * memory. */
int diff_holders_analyse(const struct snapshot *snapshot, const struct diff_holders_block *blocks,
                         size_t block_count, struct diff_site **sites, size_t site_count);

/* The engine's step: when the capture's index lists heap snapshots, reads
 * the last one (refused with a warning when it belongs to another capture),
 * joins the blocks live at the capture's end of every growing site of
 * result_sites with it, and fills their holders; info->snapshots and
 * info->holders_boundary say what was used. Warnings go to options->warn.
 * 0, or -1 when out of memory. */
int diff_holders_find(const struct diff_source *capture, const struct diff_aggregate *aggregate,
                      struct diff_site *result_sites, size_t site_count, struct diff_capture *info,
                      const struct diff_options *options);

#endif
