/* collector/ljleak_collector.h: the collector's C API for programs that embed LuaJIT. */
#ifndef LJLEAK_COLLECTOR_H
#define LJLEAK_COLLECTOR_H

#include <stddef.h>
#include <stdint.h>

struct lua_State;

/* What the collector exports: it is built with -fvisibility=hidden, since it
 * is loaded into other people's processes, and this header is its whole
 * interface. */
#if defined(__GNUC__)
#define LJLEAK_API __attribute__((visibility("default")))
#else
#define LJLEAK_API
#endif

/* What to capture and where. ljleak_collector_options_init fills the
 * defaults and then the LJLEAK_* environment variables; set fields after it. */
struct ljleak_collector_options {
  const char *dir;            /* capture directory; NULL: a new ljleak-<pid>-<time> under root */
  const char *root;           /* where new capture directories go; NULL: the working directory */
  double period;              /* seconds per segment; 0: no period (limits of these
                                 numbers: LJLEAK_COLLECTOR_MAX_*, below) */
  uint64_t max_bytes;         /* stream bytes per segment; 0: no limit */
  uint64_t max_total_bytes;   /* bytes written for the whole capture; 0: no limit */
  uint64_t sample;            /* mean bytes between sampled allocations; 0: record every event */
  int gzip;                   /* 1: compress segments with zlib */
  double duration;            /* seconds until the capture stops by itself; 0: no limit */
  int force_gc;               /* 1: force a full GC cycle at each due boundary */
  int c_hook;                 /* 1: sample through the C hook only, never the stub
                                 made at run time (docs/collector.md) */
  const char *command;        /* the command line for the index; NULL: /proc/self/cmdline */
  uint64_t every;             /* force a full GC cycle, a boundary, after every this many bytes
                                 allocated; 0: none (docs/collector.md) */
  int edge_gc;                /* 1: run a full GC cycle when the capture starts and when it
                                 stops, so that it has a first and a last exact boundary */
  int stack_depth;            /* Lua frames recorded per allocation, in a sidecar beside each
                                 segment (docs/stacks-format.md); 0: no stacks; default 16,
                                 at most LJLEAK_COLLECTOR_MAX_STACK_DEPTH */
  const char *labels;         /* labels recorded in the index for reports and merges:
                                 "KEY=VALUE" pairs joined by ',' ("release=1.4.2,role=api");
                                 NULL or "": none. Keys of letters, digits, '_', '-', '.'
                                 (at most 64 bytes), values of UTF-8 without control
                                 characters, ',' or backslash (at most 128 bytes), at most
                                 16 labels (docs/index-format.md) */
  uint64_t snapshots;         /* heap snapshots in the middle of the capture (docs/snapshot-format.md,
                                 "When"); 0: none; at most LJLEAK_COLLECTOR_MAX_SNAPSHOTS */
  int values;                 /* 1: beside each heap snapshot, the first bytes of every live string
                                 and the first keys of every table (snap-NNNN.values,
                                 docs/snapshot-format.md, "Values"): they can be secrets, so
                                 off by default */
};

/* The limits of the options (docs/collector.md, "Options and environment
 * variables"). A value past one, or a number that is not finite (or not
 * whole, where a count is wanted), is refused whichever way it comes
 * (ljleak_collector_start, the module's start{}, LJLEAK_*, a control
 * request, ljleak run): the capture does not start. */
/* The most stack_depth may be, in frames. */
#define LJLEAK_COLLECTOR_MAX_STACK_DEPTH 256
/* The most the snapshots option may be. */
#define LJLEAK_COLLECTOR_MAX_SNAPSHOTS 64
/* The most period and duration may be, in seconds: 365 days. */
#define LJLEAK_COLLECTOR_MAX_SECONDS 31536000
/* The most max_bytes, max_total_bytes and every may be: 2^50 bytes (1 PiB),
 * far past any heap, and small enough that sums of them cannot overflow. */
#define LJLEAK_COLLECTOR_MAX_SIZE (UINT64_C(1) << 50)
/* The most sample may be: 2^30 bytes (1 GiB). A mean interval between
 * sampled allocations past the heap's size would record nothing. */
#define LJLEAK_COLLECTOR_MAX_SAMPLE (UINT64_C(1) << 30)

/* Whether depth is a stack_depth the collector takes: the one test of the
 * bound, for a runner's option as for the collector's own (inline, so that
 * the collector exports no more than its API). */
static inline int ljleak_collector_stack_depth_ok(uint64_t depth)
{
  return depth <= LJLEAK_COLLECTOR_MAX_STACK_DEPTH;
}

/* The state of the capture. */
struct ljleak_collector_status {
  int active;                 /* a capture is running */
  char dir[4096];             /* the last capture's directory ("" if none) */
  uint64_t segments;          /* segments finished */
  uint64_t events;            /* alloc/free/realloc events recorded */
  uint64_t bytes;             /* stream bytes (uncompressed) */
  uint64_t allocated;         /* bytes of every allocation and reallocation that went
                                 through the allocator while capturing, sampled or not */
  int direct_hook;            /* sampling through the stub that jumps straight to
                                 the allocator (docs/collector.md) */
  uint64_t boundaries;        /* boundaries recorded: full GC cycles that ended */
  uint64_t trace_allocations; /* allocation events made by compiled code (JIT traces) */
  uint64_t trace_lines;       /* of those, charged to their Lua line (the others to
                                 their trace: docs/collector.md) */
  uint64_t snapshots;         /* heap snapshots written (docs/snapshot-format.md) */
  char error[512];            /* why the last capture stopped on an error ("" if none) */
};

/* Defaults, then LJLEAK_DIR, LJLEAK_ROOT, LJLEAK_PERIOD, LJLEAK_MAX_BYTES,
 * LJLEAK_MAX_TOTAL_BYTES, LJLEAK_SAMPLE, LJLEAK_GZIP, LJLEAK_DURATION,
 * LJLEAK_FORCE_GC, LJLEAK_C_HOOK, LJLEAK_EVERY, LJLEAK_EDGE_GC,
 * LJLEAK_STACK_DEPTH, LJLEAK_LABELS, LJLEAK_SNAPSHOTS, LJLEAK_VALUES. The strings point into the
 * environment. */
LJLEAK_API void ljleak_collector_options_init(struct ljleak_collector_options *options);

/* Starts a capture of L's VM. Must be called while no Lua code of that VM
 * runs in another thread. Checks the private-structure layout first and
 * refuses if it does not match the running LuaJIT. Returns 0, or -1 with a
 * message in err. One capture per process at a time. */
LJLEAK_API int ljleak_collector_start(struct lua_State *L,
                                      const struct ljleak_collector_options *options, char *err,
                                      size_t err_size);

/* Runs a full GC cycle now and records the boundary it ends (cause "call"
 * in the index): a test harness calls it after each batch of work. Must be
 * called from a C function of L's VM or outside any Lua call, like
 * lua_gc. Returns 0, or -1 with a message (no capture of L running). */
LJLEAK_API int ljleak_collector_boundary(struct lua_State *L, char *err, size_t err_size);

/* Names a C function of the host as sites and stacks show it: the entry
 * through which it runs its Lua code, say ("ljleak run", "myhost main").
 * A host function it does not name shows as "[C] SYMBOL" from the
 * program's symbol table, or "[C] PROGRAM". At most 16 names of 1 to 63
 * bytes without ';'; naming f again replaces its name. Call it before a
 * capture starts. Returns 0, or -1 (a bad name, or 16 named already). */
LJLEAK_API int ljleak_collector_name_function(int (*f)(struct lua_State *L), const char *name);

/* The main chunk's return (docs/collector.md, "The last boundary"). A host
 * that runs a main chunk takes its frame before the call
 * (ljleak_collector_frame_of, with the chunk at stack index idx and narg
 * arguments above it), and right after the call returned, before anything
 * allocates, holds it (its slots, with what the chunk's locals held, count
 * as live again), calls ljleak_collector_return_boundary and whatever else
 * must see the program's state at its end, and releases it. */
struct ljleak_collector_frame {
  long from, slots;           /* the stack slots the frame may span */
  long saved_top;             /* while held: the top to give back; else -1 */
  long base;                  /* the chunk's own first slot (its locals from there) */
  const void *proto;          /* the chunk's prototype, whose local names a snapshot gives */
};
LJLEAK_API void ljleak_collector_frame_of(struct lua_State *L, int idx, int narg,
                                          struct ljleak_collector_frame *frame);
LJLEAK_API void ljleak_collector_frame_hold(struct lua_State *L,
                                            struct ljleak_collector_frame *frame);
LJLEAK_API void ljleak_collector_frame_release(struct lua_State *L,
                                               struct ljleak_collector_frame *frame);
/* Runs a full GC cycle and records its boundary (cause "return"), when a
 * capture of L runs with edge_gc; else does nothing. Returns 0, or -1 with a
 * message when the capture stopped meanwhile. */
LJLEAK_API int ljleak_collector_return_boundary(struct lua_State *L, char *err, size_t err_size);

/* Runs a full GC cycle now, records its boundary (cause "call") and writes a heap snapshot at
 * it, snap-NNNN.heap beside the segments (docs/snapshot-format.md): the program stands still for
 * about as long as a full GC takes. Called as ljleak_collector_boundary is. Returns 0, or -1 with
 * a message (no capture of L running, or the snapshot could not be written: the capture then
 * stops, as after any write error). */
LJLEAK_API int ljleak_collector_snapshot(struct lua_State *L, char *err, size_t err_size);

/* Marks the next boundary the collector takes from outside the allocator (ljleak_collector_boundary,
 * the stop's or the exit's with edge_gc) to write a heap snapshot: a runner calls it before the
 * boundary it takes where the script's state is still alive. Returns 0, or -1 with a message (no
 * capture of L running). */
LJLEAK_API int ljleak_collector_snapshot_next(struct lua_State *L, char *err, size_t err_size);

/* Stops the capture (index reason "stop"); returns 0, or -1 with a message. */
LJLEAK_API int ljleak_collector_stop(struct lua_State *L, char *err, size_t err_size);

/* Stops the capture as the program ends (index reason "exit"): a host calls
 * it before lua_close, so that the last segment holds the program's own work
 * and not the teardown. Returns 0, or -1 if the capture had met an error
 * (then err holds it) or none was running. */
LJLEAK_API int ljleak_collector_exit(struct lua_State *L, char *err, size_t err_size);

LJLEAK_API void ljleak_collector_status(struct ljleak_collector_status *status);

/* Installs the start/stop signal for L's VM: USR1, USR2 or a real-time
 * signal (RTMIN, RTMIN+n, RTMAX, RTMAX-n), by name (with or without SIG) or
 * number; no other signal, since their handlers belong to the program or
 * the system. "none" or "" installs nothing. The handler only sets a flag.
 * A signal the program has a handler for keeps it (-1, and the message says so).
 * Returns 0 or -1 with a message. */
LJLEAK_API int ljleak_collector_install_signal(struct lua_State *L, const char *signal_spec,
                                               char *err, size_t err_size);

/* Option values in the syntax of the LJLEAK_* variables and the Lua
 * module's options, for hosts and front ends that take the same options:
 * a size is "123", "64k", "8M", "1g" (binary multiples, an optional B),
 * any that fits 64 bits (each option has its own limit, above); seconds
 * are a decimal from 0 to LJLEAK_COLLECTOR_MAX_SECONDS ("2.5"). 0, or -1
 * if text is not one. */
LJLEAK_API int ljleak_collector_parse_size(const char *text, uint64_t *value);
LJLEAK_API int ljleak_collector_parse_seconds(const char *text, double *value);

/* ljleak attach's one entry (docs/attach.md), called by the debugger in a process that was
 * stopped in a system call; each step does only what is safe at any instruction. Step "attach"
 * finds the Lua state (state: its global state's address in hexadecimal, "~" and the address of a
 * candidate found from outside, or NULL or "" for the only one) and arms a count hook that, at the
 * VM's next instruction, registers the process (docs/control-format.md, poll "attach") and starts
 * the capture request (a control request, docs/control-format.md, whose options may name dir)
 * asks for, answering in the registration: 0, or -1. Step "cancel" disarms a hook that has not
 * run: 1, or 0 when it ran (or none was set). Step "poll" asks the running capture to take the
 * request waiting in the run directory (the poll thread's part, for a process that has none): 0.
 * Another step: -1. The step's message (why it failed; after "attach", the state it armed) is
 * copied into message (size bytes, NUL-terminated). */
LJLEAK_API int ljleak_collector_attach_step(const char *step, const char *request, const char *state,
                                            char *message, size_t size);

/* The Lua module's entry point: require "ljleak.collector". */
LJLEAK_API int luaopen_ljleak_collector(struct lua_State *L);

#endif
