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
/* The most string keys of one table on a site's paths that stay named when the code holds them
 * as constants (_G.left, _G.right); more are keys made at run time, whatever holds them too (a
 * cache of code generated per key holds each as a constant): [*]. */
#define DIFF_HOLDERS_NAMED_MAX 65

/* The immediate dominator of every node of a graph of node_count nodes
 * whose edges are succ[first[v] .. first[v + 1]), from root (Lengauer and
 * Tarjan's algorithm with path compression: O(E log N) on any graph, a chain
 * of a million nodes too): idom[root] is root, a node root does not reach
 * gets DIFF_HOLDERS_NONE. order gets the reached nodes in depth-first
 * preorder (node_count entries; *reached of them used), so that a node's
 * dominator comes before it. 0, or -1 when out of memory. */
int diff_holders_dominators(uint32_t node_count, const uint32_t *first, const uint32_t *succ,
                            uint32_t root, uint32_t *idom, uint32_t *order, uint32_t *reached);

/* What a site holds in one snapshot, for diff_holders_analyse: blocks of
 * the site live at the snapshot's boundary (address and size). */
struct diff_holders_block {
  uint64_t address, size;
  uint32_t site;              /* the caller's site index */
};

/* Finds, for each of site_count sites, the paths that hold its blocks in
 * snapshot: the objects that own them (by address), the shortest path from
 * a root to each over references that are not weak, a named one first (one
 * through a temporary, then one through a weak-keyed table's value, only
 * when there is none, and saying so: docs/diff.md, "Holders"), grouped by path with
 * array indices and keys that differ between the site's objects collapsed
 * to [*], a path of more than 64 steps cut after its 64th (" ..."); the
 * DIFF_HOLDERS_SHOWN with most bytes go to sites[i].holders, each with the
 * retained size of the object it ends in. Linear in the snapshot's objects and
 * references and the blocks (but for log factors: the dominator tree, look-ups): no
 * path is walked per object. 0, or -1 when out of memory. */
int diff_holders_analyse(const struct snapshot *snapshot, const struct diff_holders_block *blocks,
                         size_t block_count, struct diff_site **sites, size_t site_count);

/* diff_holders_analyse, then the leak suspects' step on the same reading (diff/suspects.h,
 * diff_suspects_snapshot): each site with holders gets its kinds and its container, made at
 * the site of the blocks at (NULL: unknown), at the snapshot of boundary's seq. The
 * snapshot's graph and dominator tree are built once for both. *blocks (malloc'd) is taken:
 * freed once joined with the objects, before the graph is built, and set NULL; the snapshot's
 * index by address is freed once they are joined (snapshot_free_index) and its
 * references once the holders are found (snapshot_free_references: the suspects'
 * step reads none). 0, or -1 when out of memory. */
int diff_holders_analyse_suspects(struct snapshot *snapshot, struct diff_holders_block **blocks,
                                  size_t block_count, struct diff_site **sites, size_t site_count,
                                  const struct diff_aggregate_at *at, uint64_t boundary,
                                  const struct diff_container *growing, size_t growing_count);

/* What the holders' step hands the suspects' step of one snapshot: its dominator tree and the
 * join of the sites' blocks with its objects. */
struct diff_holders_member {  /* an object of a site, and the bytes of the site's blocks in it */
  uint32_t site : 31;
  uint32_t part : 1;          /* the site made none of its own block, only blocks it owns (a table's
                               * slots, a thread's stack): the object holds them. Never for an
                               * object whose one block is its allocation (a variable-length
                               * cdata's, before it) */
  uint32_t object;
  uint64_t bytes;
};
#define DIFF_HOLDERS_SITE_MAX ((UINT32_C(1) << 31) - 1)
struct diff_holders_tree {
  const struct snapshot *snapshot;
  uint32_t n;                 /* objects; the roots' node is n */
  uint32_t reached;           /* nodes the roots reach, root included */
  const uint32_t *idom;       /* [n + 1] immediate dominators (NONE: unreached) */
  const uint32_t *order;      /* [reached] depth-first preorder: a node's dominator before it */
  const uint64_t *retained;   /* [n + 1] what each node keeps alive */
  const struct diff_holders_member *members;  /* by site, one per (site, object), reached ones */
  size_t member_count;
  /* [site_count] per site: the node that immediately dominates the keys of more than half of
   * its bytes held as weak-keyed values, NONE when none (or NULL: none for any). */
  const uint32_t *key_holder;
  /* [site_count] (or NULL) per site with a key_holder: SNAPSHOT_FLAG_WEAK_* when the site made
   * only the slots of weak tables, whose weak keys or values key_holder holds; else 0. */
  const uint8_t *key_slots;
};

/* The engine's step, after a capture was read and its sites judged: the
 * snapshots its index lists, the newest DIFF_HOLDERS_MAX_SNAPSHOTS. */
struct diff_holders_snapshot {
  uint64_t boundary;          /* its boundary's seq */
  char *path;
  size_t at;                  /* the boundary's index among the capture's (diff_source), or
                               * DIFF_HOLDERS_AT_END: the exit boundary, after the last one */
};
#define DIFF_HOLDERS_AT_END DIFF_SOURCE_AT_END
#define DIFF_HOLDERS_MAX_SNAPSHOTS 3

struct diff_holders {
  struct diff_holders_snapshot *snapshots;  /* newest first */
  size_t count;
  size_t listed;              /* snapshots the index lists */
  uint64_t pid;               /* whose capture: the index's capture line */
  double start;
  /* The growing containers (diff_holders_containers' result->containers) that the container
   * rule prefers (diff/suspects.h); none before they are found. */
  const struct diff_container *growing;
  size_t growing_count;
};

/* Reads the capture's index for its snapshots and places their boundaries
 * among the capture's (a boundary thinned out, or left out by
 * --forced-only, leaves its snapshot out), marking them kept, so that the
 * capture's reading keeps the blocks live there (diff/aggregate.h). 0, or -1
 * when out of memory. */
int diff_holders_prepare(struct diff_holders *holders, struct diff_source *capture);

/* Whether the capture's reading kept the blocks of every snapshot to be read (none is at the
 * exit boundary, where the capture's map is used): the caller may then release that map
 * before diff_holders_find and diff_holders_containers. */
int diff_holders_all_kept(const struct diff_holders *holders, const struct diff_aggregate *aggregate);

/* For every growing (or undecided) site of result_sites, the holders found
 * in the snapshot that holds most of its bytes (the newest on a tie). The
 * blocks live at a snapshot's boundary are those of aggregate (the whole
 * capture read) for the exit boundary, else those its reading kept there,
 * else (a boundary not kept) of the capture read again up to it. A snapshot of another capture is refused with a warning
 * (options->warn), a cut one is used with one. info->snapshots says how many
 * the index lists. 0, or -1 when out of memory or when reading the capture
 * again fails (err says why). */
int diff_holders_find(struct diff_holders *holders, struct diff_source *capture,
                      const struct diff_aggregate *aggregate, struct diff_site *result_sites,
                      size_t site_count, struct diff_capture *info,
                      const struct diff_options *options, struct format_error *err);

/* Growing containers: the objects (tables, userdata, threads) at one address
 * in the two newest snapshots whose entries grew by DIFF_CONTAINERS_MIN_ENTRIES
 * or whose bytes grew by DIFF_CONTAINERS_MIN_BYTES, confirmed by the event
 * stream between the two boundaries (no block freed or made at that address),
 * with the site that made each (the live map at the later boundary) and its
 * path there; the DIFF_CONTAINERS_SHOWN that grew most in bytes go into
 * result->containers. 0, or -1 when out of memory or reading fails (err). */
int diff_holders_containers(struct diff_holders *holders, struct diff_source *capture,
                            const struct diff_aggregate *aggregate, struct diff_result *result,
                            const struct diff_options *options, struct format_error *err);
#define DIFF_CONTAINERS_MIN_ENTRIES 16
#define DIFF_CONTAINERS_MIN_BYTES 1024
#define DIFF_CONTAINERS_SHOWN 10

void diff_holders_release(struct diff_holders *holders);

#endif
