/* collector/state.h: the state of the one capture a process runs: what the hook, the sequencer (boundary.h), the segments and the symbols share. The files below them take their own parts of it. */
#ifndef LJLEAK_COLLECTOR_STATE_H
#define LJLEAK_COLLECTOR_STATE_H

#include <limits.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "collector/addr_map.h"
#include "collector/callstack.h"
#include "collector/capture_dir.h"
#include "collector/cname.h"
#include "collector/index.h"
#include "collector/lj_private.h"
#include "collector/ljleak_collector.h"
#include "collector/seg_out.h"
#include "collector/interp_site.h"
#include "collector/now.h"
#include "collector/trace_line.h"
#include "format/capture_index.h"
#include "format/capture_layout.h"
#include "format/encode.h"
#include "format/memprof.h"

/* The snapshots of the middle of a run (the snapshots option, N): the run's length is not known
 * while it runs, so a candidate is taken at the first boundary after the bytes allocated pass
 * 1 MiB, 2 MiB, 4 MiB, ... and the N + 1 newest are kept (older files removed, their index lines
 * followed by a dropped line). When the capture stops, one more goes: the newest when it lies in
 * the last quarter of the run's allocation, else the oldest; so the N kept lie between a quarter
 * and three quarters of the run's work, the newest nearest its middle. A candidate is taken at a
 * safe point: a count hook (lua_sethook) runs at the next instruction the interpreter executes,
 * gives the program its own hook back and runs a full cycle (cause "snapshot"), on a live heap
 * of COLL_SNAPSHOT_STEP_HEAP or more in steps (gc_steps.h), a count hook every
 * COLL_SNAPSHOT_STEP_COUNT instructions; it walks where the cycle ends. */
#define COLL_SNAPSHOT_SCHEDULE_FIRST (1u << 20)  /* bytes allocated at the first candidate */
#define COLL_SNAPSHOT_STEP_HEAP (UINT64_C(64) << 20)  /* a live heap from which the cycle runs in
                                                  * steps: a smaller one's cycle is a stop of tens
                                                  * of ms, and its boundary stays where the
                                                  * candidate fell due */
#define COLL_SNAPSHOT_STEP_COUNT 1               /* as attach's: with a sparser hook, a loop that
                                                  * runs compiled reaches one too seldom */

struct coll_snapshot_candidate {
  char file[32];
  uint64_t boundary;
  uint64_t allocated;
};

struct coll_snapshot_schedule {
  uint64_t next_at;             /* allocated bytes at which the next candidate is due */
  int due;                      /* a candidate is due: the layer above arms the safe point */
  int armed;                    /* the count hook is set: the program's hook is saved below */
  int middle;                   /* the snapshot being taken is a candidate */
  lua_Hook hook;                /* the count hook set when armed */
  lua_Hook saved_hook;
  int saved_mask, saved_count;
  struct coll_snapshot_candidate kept[LJLEAK_COLLECTOR_MAX_SNAPSHOTS + 1];
  uint32_t kept_count;
};

#define COLL_CAPTURE_BUFFER_SIZE (64 * 1024)   /* stream bytes buffered before a write */
#define COLL_CAPTURE_ZBUFFER_SIZE (64 * 1024)  /* deflate output per write */
#define COLL_CAPTURE_MAP_SIZE (COLL_CAPTURE_BUFFER_SIZE + COLL_CAPTURE_ZBUFFER_SIZE)
#define COLL_CAPTURE_FLUSH_NS 100000000ull     /* flush at least this often while events come */
#define COLL_CAPTURE_TICK_BYTES 1024           /* full capture: stream bytes between clock readings */
/* writer.used above it: no room for an event (the writer's capacity is
 * COLL_CAPTURE_BUFFER_SIZE), flush first. */
#define COLL_CAPTURE_QUICK_ROOM (COLL_CAPTURE_BUFFER_SIZE - MEMPROF_ENCODE_EVENT_MAX)

/* capture.hold with only segment_open set: the byte after busy. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define HOLD_NONE 0x00010000u
#else
#define HOLD_NONE 0x00000100u
#endif


/* Everything about the one capture a process can run; one VM is hooked.
 * What the hook tiers may read and write of it, and the invariants of
 * hold, quick_until, tick_at and the GC-phase word, are in hook.h. */
struct coll_capture {
  /* What the hook's fast path reads, in the first cache line. */
  global_State *g;              /* the hooked VM */
  void *gg;                     /* GG_State: lua_close frees it last */
  lua_Alloc orig_allocf;
  int sampling;                 /* active with --sample: the hook's fast path is on */
  int direct_hook;              /* sampling through the stub (stub.h) */
  volatile sig_atomic_t fast_phase; /* what the fast paths compare the GC phase word with */
  int last_gc_phase;            /* coll_capture_gc_phase() when last seen */
  union {                       /* the quick paths' one test (hook.h) */
    struct {
      uint8_t busy;             /* re-entrancy guard */
      uint8_t segment_open;
      uint8_t pending_stop;     /* an enum capture_index_stop_reason: a stop is due */
      uint8_t hold_zero;
    };
    uint32_t hold;
  };
  uint64_t quick_until;         /* writer.bytes_written up to which the quick paths may write */
  int64_t countdown;            /* sampling: bytes until the next sampled allocation */
  uint64_t allocated;           /* status: bytes allocated while capturing */
  int pdep;                     /* encode with pdep (memprof_cpu_fast_pext) */
  int stacks_on;                /* a sidecar is open: allocations take the full tier (stacks) */

  void *orig_ud;
  int hooked;
  int layout_ok;                /* the layout check passed for g */
  char luajit_version[64];
  int signo;                    /* start/stop signal, 0 if none */
  int atexit_registered;

  /* The running capture. */
  int active;
  struct ljleak_collector_options opt;
  struct coll_capture_dir dir;       /* held open: its files are made relative to it (capture_dir.h) */
  char command[4096];
  char labels[CAPTURE_INDEX_LABELS_MAX + 1];  /* the checked labels, for the index line */
  struct coll_index index;       /* the index's fd and its held boundary lines (index.h) */
  uint8_t *buffer;              /* COLL_CAPTURE_BUFFER_SIZE + COLL_CAPTURE_ZBUFFER_SIZE, mmap'd */
  struct memprof_writer writer;
  struct seg_out out;
  char segment_name[CAPTURE_LAYOUT_NAME_MAX];
  uint64_t seq;
  double segment_start_wall;
  uint64_t segment_start_ns;
  uint64_t segment_events;
  uint64_t cycle_start_events;  /* segment events before the last GC cycle started */
  uint64_t gc_cycles;
  int boundary_due;
  unsigned gc_flips;            /* atomic phases seen (white flips) of cycles not yet counted */
  int force_armed;              /* a forced cycle is due: the VM's stepmul is ours until then */
  MSize saved_stepmul;
  uint64_t force_until;         /* gc_cycles at which the forced cycle has run */
  enum capture_index_boundary_cause force_cause;  /* why the armed cycle was asked for */
  uint64_t steps_until;         /* a cycle run in steps (gc_steps.c): gc_cycles at its end ... */
  enum capture_index_boundary_cause steps_cause;  /* ... and that end's cause (0: none runs) */
  int collecting;               /* the collector runs a full collection itself (lua_gc):
                                 * its cycles end in one boundary, written after it */
  enum capture_index_stop_reason deferred_stop;   /* edge_gc: a stop waiting for its last cycle */
  uint64_t boundaries;          /* boundary lines written */
  uint64_t every_next;          /* --every: allocated at which the next cycle is forced */
  uint64_t boundary_allocated;  /* allocated at the last boundary line */
  uint64_t boundary_seq, boundary_events;  /* the segment and its events at the last boundary line */
  uint64_t boundary_young_from; /* ... and its young_from (cycle_start_events then) */
  int boundary_phase;           /* coll_capture_gc_phase() at the last boundary line */
  int volume_off;               /* LJLEAK_VOLUME_BOUNDARIES=0: no volume boundaries (for
                                 * measurements: bench/boundaries.sh) */
  uint64_t start_ns, last_flush_ns;
  int snapshot_next;            /* the next boundary taken outside the hook writes a heap snapshot */
  /* A main chunk's frame held after its return (ljleak_collector_frame_hold):
   * a snapshot names its slots as the chunk's locals. held_proto NULL: none. */
  const GCproto *held_proto;
  long held_base, held_end;     /* the chunk's base and the end of its slots, from the stack */
  uint64_t snapshots;           /* heap snapshots written */
  uint64_t snapshot_boundary;   /* the boundary of the last one written (0: none) */
  struct coll_snapshot_schedule schedule; /* opt.snapshots: the ones in the middle of the run */
  double start_wall;            /* the index's start: a snapshot names its capture by it and the pid */
  uint64_t tick_at;             /* writer.bytes_written at which the timers run next */
  uint64_t disk_done;           /* file bytes of finished segments */
  uint64_t last_heap;

  /* Sampling. */
  uint64_t rng;
  struct addr_map sampled;

  /* Symbols already emitted in this segment. */
  struct addr_map sym_lua, sym_trace, sym_c;
  const GCproto *last_proto;
  uint64_t last_proto_fp;
  uint64_t last_trace, last_trace_fp;

  /* The names of C functions (cname.h): kept for the whole capture. */
  struct cname_state cnames;

  /* Lines of allocations made by compiled code (trace_line.h). */
  struct trace_line_state lines;

  /* Sites of allocations made by the interpreter, for the quick tier (interp_site.h). */
  struct interp_site_cache interp;

  /* Call stacks of allocations, in the sidecar of each segment (callstack.h). */
  struct callstack_state stacks;

  /* Status. */
  uint64_t segments, events, stream_done;  /* events: of the segments ended */
  char error[512];
  char last_dir[PATH_MAX];
};

/* The quick paths test busy, segment_open, pending_stop and a zero byte as
 * one 32-bit word against HOLD_NONE. */
_Static_assert(sizeof(((struct coll_capture *)0)->hold) == 4 &&
                 offsetof(struct coll_capture, busy) == offsetof(struct coll_capture, hold) &&
                 offsetof(struct coll_capture, segment_open) == offsetof(struct coll_capture, hold) + 1 &&
                 offsetof(struct coll_capture, pending_stop) == offsetof(struct coll_capture, hold) + 2 &&
                 offsetof(struct coll_capture, hold_zero) == offsetof(struct coll_capture, hold) + 3,
               "hold is busy, segment_open, pending_stop and hold_zero, one byte each, in order");

/* The one capture: the allocator hook gets no context, so this is the
 * collector's per-process state. */
extern struct coll_capture coll_capture_state __attribute__((visibility("hidden")));
/* Set by the start/stop signal's handler and the control channel's poll
 * thread (the bits COLL_CAPTURE_PENDING_*, collector/control.h); read by the slow path. */
extern volatile sig_atomic_t coll_capture_signal_pending __attribute__((visibility("hidden")));

/* The control thread and signal handlers set the pending bits and mark
 * fast_phase; the hook reads and re-arms them. Every access is atomic, so
 * that none races in C11's terms: the fast paths' loads of fast_phase are
 * relaxed (a plain move on x86-64, as before), and the slow path's store
 * that re-arms fast_phase and its load of the bits after it are
 * sequentially consistent, so that a request made in between marks
 * fast_phase again or is seen. */
static inline int coll_capture_pending(void)
{
  return __atomic_load_n(&coll_capture_signal_pending, __ATOMIC_SEQ_CST);
}

static inline int coll_capture_fast_phase(const struct coll_capture *c)
{
  return __atomic_load_n(&c->fast_phase, __ATOMIC_RELAXED);
}

static inline void coll_capture_set_fast_phase(struct coll_capture *c, int phase)
{
  __atomic_store_n(&c->fast_phase, phase, __ATOMIC_SEQ_CST);
}

/* The GC state and current white in one number (the two bytes as they lie
 * in memory, one load): a cycle flips the white in its atomic phase, so a
 * cycle that runs whole between two events (one GC step can run one) still
 * shows. */
_Static_assert(offsetof(GCState, state) == offsetof(GCState, currentwhite) + 1,
               "coll_capture_gc_phase reads GCState.currentwhite and state as one 16-bit word");
static inline int coll_capture_gc_phase(const global_State *g)
{
  uint16_t word;
  memcpy(&word, &g->gc.currentwhite, sizeof word);
  return word;
}

/* Copies src into dst (size bytes), cutting it if needed. */
void coll_text_copy(char *dst, size_t size, const char *src);

/* Formats an error message into err (which may be NULL). */
void coll_text_error(char *err, size_t size, const char *fmt, const char *a, const char *b);

#endif
