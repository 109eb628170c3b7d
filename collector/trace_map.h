/* collector/trace_map.h: a trace's recording log and the map built from it: which Lua line each call of its machine code allocates for. */
#ifndef LJLEAK_COLLECTOR_TRACE_MAP_H
#define LJLEAK_COLLECTOR_TRACE_MAP_H

#include <stddef.h>
#include <stdint.h>

#include "collector/lj_private.h"
#include "collector/trace_log.h"


/* The calls to `target` in the machine code of snapshot `region`: the
 * lines they allocate for, in the order of the code (ordinals[first] is
 * the first call's). When they all share one known line, pt and line say
 * it; else pt is NULL and the call is told from its place among them. */
struct trace_map_site {
  const void *target;
  const GCproto *pt;
  uint32_t region;
  uint32_t line;
  uint32_t first, count;
  uint32_t chain;               /* with pt: the calls' chain (0: not known, or several) */
};

/* A sunk allocation an exit makes: what it allocates (coll_trace_map_alloc_key)
 * and its line (pt NULL: not known). */
struct trace_map_sunk {
  uint64_t key;
  const GCproto *pt;
  uint32_t line;
  uint32_t chain;               /* with pt: its inlined callers, in the map's chains (0: not known) */
};

/* Per snapshot, for allocations while the trace exits through it. */
struct trace_map_exit {
  const GCproto *pt;            /* NULL: no sunk allocation, or no line */
  uint32_t line;
  uint32_t chain;               /* with pt: the callers the sunk allocations share (0: not known) */
  uint32_t sunk;                /* 1: the snapshot holds sunk allocations */
  uint32_t sunk_first, sunk_count; /* the allocations it makes, in the map's sunk[] */
};

struct trace_map {
  size_t size;                  /* bytes mapped */
  const GCtrace *trace;
  uint64_t fp;                  /* coll_trace_map_fingerprint of it and its root's start */
  uint32_t nsnap;
  uint32_t nsites;
  uint32_t *region_first;       /* [nsnap + 1]: its sites, in sites[] */
  struct trace_map_site *sites;
  struct trace_map_line *ordinals;
  struct trace_map_sunk *sunk;
  struct trace_map_exit *exits; /* [nsnap] */
  struct trace_chain *chains;   /* [nchains]: what the lines' chain indices name */
  uint32_t nchains;
};

/* What tells a trace from a later one with its number, address or code:
 * its fields, its constants (the prototypes they hold) and, for a side
 * trace, its root trace's starting prototype. */
uint64_t coll_trace_map_fingerprint(const GCtrace *T, const GCproto *root_start);

/* Builds the map of T, a live trace of g, from its log; NULL if the log
 * does not fit the trace (or no memory). targets[IRCALL_x] is the address
 * of call x. For a side trace, parent (or NULL) is its parent's map: the
 * allocations sunk at the exit it starts at, which the side trace makes
 * before it records its first bytecode, have their lines; root_start is
 * its root trace's starting prototype (the side trace may return to it;
 * the root trace, flushed only with its side traces, keeps it alive). A
 * line's prototype must be one that T, or a trace T grew from (its
 * parent, up to the root), keeps alive. */
struct trace_map *coll_trace_map_build(global_State *g, const struct trace_log *log,
                                       const GCtrace *T, const void *const *targets,
                                       const struct trace_map *parent, const GCproto *root_start);

void coll_trace_map_free(struct trace_map *map);

/* The snapshot whose machine code holds offset ofs (as lj_trace_unwind
 * finds it), and the bounds of that code. */
uint32_t coll_trace_map_region(const GCtrace *T, uint32_t ofs, uint32_t *start, uint32_t *end);

/* The calls to target in the code of snapshot region, or NULL. */
const struct trace_map_site *coll_trace_map_find(const struct trace_map *map, uint32_t region,
                                                 const void *target);

/* What a sunk allocation makes, as a side trace replaying it has it too:
 * its op and the constants it allocates by (sizes, template, ctype). */
uint64_t coll_trace_map_alloc_key(const GCtrace *T, const IRIns *ir);


#endif
