/* collector/trace_log.h: the log of one recording of the JIT: each IR instruction that may allocate and the Lua bytecode it was recorded for, with its inlined callers; and the pages logs and maps live in. */
#ifndef LJLEAK_COLLECTOR_TRACE_LOG_H
#define LJLEAK_COLLECTOR_TRACE_LOG_H

#include <stddef.h>
#include <stdint.h>

#include "collector/lj_private.h"

/* A Lua line (pt NULL: not known). chain: the inlined callers of that
 * line inside the trace, an index + 1 into the log's or map's chains (0:
 * not known). */
struct trace_map_line {
  const GCproto *pt;
  uint32_t line;
  uint32_t chain;
};

#define TRACE_CHAIN_MAX 8             /* inlined callers kept per recorded bytecode */

/* The callers of a recorded bytecode inside its trace, as the recorder saw
 * the Lua stack: callers[0] called it, and so on down to the trace's first
 * frame (whose callers are on the Lua stack below the trace's base); a
 * caller with no pt is the fast function that called the one above it
 * (pcall: its line is its ffid + 1). Not valid: more than TRACE_CHAIN_MAX,
 * a frame not called from Lua, or the recording had returned below its
 * first frame. */
struct trace_chain {
  uint32_t count;
  uint32_t valid;
  struct trace_map_line callers[TRACE_CHAIN_MAX];
};

/* An IR instruction that may allocate, as the recorder emitted it, and the
 * Lua bytecode being recorded then (pt NULL: not known), with its chain. */
struct trace_log_entry {
  uint32_t ref;
  uint16_t op;
  uint16_t op1, op2;
  uint32_t chain;
  const GCproto *pt;
  const BCIns *pc;
};

/* The log of one recording (trace_record.c writes it). */
struct trace_log {
  size_t size;                  /* bytes mapped */
  uint32_t traceno;
  uint32_t parent, exitno;      /* a side trace's parent and exit; 0 for a root trace */
  const GCproto *startpt;
  const BCIns *startpc;
  uint32_t first_nins;          /* IR before it came from no recorded bytecode (setup) */
  uint32_t last_nins;           /* IR up to here is logged; after it is the last bytecode's */
  uint32_t last_nk;
  const GCproto *attr_pt;       /* the Lua bytecode whose IR comes next */
  const BCIns *attr_pc;
  uint32_t attr_chain;          /* and its callers (an index + 1 into chains) */
  int below_start;              /* the recording returned below its first frame */
  struct trace_chain *chains;   /* mmap'd: chains_size bytes, nchains used */
  size_t chains_size;
  uint32_t nchains;
  uint32_t n, cap;
  struct trace_log_entry entries[];
};

/* A new, empty log; NULL if no pages. */
struct trace_log *coll_trace_log_new(void);

/* Room for one more entry; the log may move. NULL if it cannot grow. */
struct trace_log *coll_trace_log_room(struct trace_log *log);

void coll_trace_log_free(struct trace_log *log);

/* Whether log is the recording of the live trace T. */
int coll_trace_log_matches(const struct trace_log *log, const GCtrace *T);

/* Whether the IR op may allocate through a call (and so is logged). */
int coll_trace_log_op_logged(unsigned op);

/* Pages for logs and maps: mmap'd, never the Lua allocator's, so that the
 * hook may build a map. NULL on failure. */
void *coll_trace_log_pages(size_t size);
void coll_trace_log_unpages(void *p, size_t size);

#endif
