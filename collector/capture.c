/* collector/capture.c: the allocator hook, segments and their rotation, the index, sampling, signals. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "collector/addr_map.h"
#include "collector/attrib.h"
#include "format/encode.h"
#include "collector/capture.h"
#include "collector/layout.h"
#include "collector/ljleak_collector.h"
#include "collector/options.h"
#include "collector/seg_out.h"
#include "collector/stub.h"
#include "format/memprof.h"
#include "lauxlib.h"

#define CAPTURE_BUFFER_SIZE (64 * 1024)   /* stream bytes buffered before a write */
#define CAPTURE_ZBUFFER_SIZE (64 * 1024)  /* deflate output per write */
#define CAPTURE_FLUSH_NS 100000000ull     /* flush at least this often while events come */
#define CAPTURE_FILTER_SIZE STUB_FILTER_SIZE /* sampling filter buckets (a power of two) */
#define CAPTURE_MAP_SIZE (CAPTURE_BUFFER_SIZE + CAPTURE_ZBUFFER_SIZE)
#define CAPTURE_TICK_BYTES 1024           /* full capture: stream bytes between clock readings */
/* writer.used above it: no room for an event (the writer's capacity is
 * CAPTURE_BUFFER_SIZE), flush first. */
#define CAPTURE_QUICK_ROOM (CAPTURE_BUFFER_SIZE - MEMPROF_ENCODE_EVENT_MAX)

/* capture.hold with only segment_open set (the byte after busy). */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define HOLD_NONE 0x00010000u
#else
#define HOLD_NONE 0x00000100u
#endif

enum stop_reason {
  REASON_NONE,
  REASON_STOP,
  REASON_DURATION,
  REASON_SIGNAL,
  REASON_MAX_TOTAL,
  REASON_WRITE_ERROR,
  REASON_EXIT
};

static const char *const reason_names[] = {
  "", "stop", "duration", "signal", "max-total-bytes", "write-error", "exit"
};

/* Everything about the one capture a process can run; one VM is hooked. */
struct capture {
  /* What the hook's fast path reads, in the first cache line. */
  global_State *g;              /* the hooked VM */
  void *gg;                     /* GG_State: lua_close frees it last */
  lua_Alloc orig_allocf;
  int sampling;                 /* active with --sample: the hook's fast path is on */
  int direct_hook;              /* sampling through the stub (stub.h) */
  volatile sig_atomic_t fast_phase; /* what the fast paths compare gc_phase() with:
                                     * last_gc_phase, or -1 once a signal came */
  int last_gc_phase;            /* gc_phase() when last seen */
  union {                       /* full capture's quick paths run only while hold is HOLD_NONE */
    struct {
      uint8_t busy;             /* re-entrancy guard */
      uint8_t segment_open;
      uint8_t pending_stop;     /* an enum stop_reason: a stop is due */
      uint8_t hold_zero;
    };
    uint32_t hold;
  };
  uint64_t quick_until;         /* writer.bytes_written up to which the quick paths may write */
  int64_t countdown;            /* sampling: bytes until the next sampled allocation */
  uint64_t allocated;           /* status: bytes allocated while capturing */
  int pdep;                     /* encode with pdep (memprof_cpu_fast_pext) */

  void *orig_ud;
  int hooked;
  int layout_ok;                /* the layout check passed for g */
  char luajit_version[64];
  int signo;                    /* start/stop signal, 0 if none */
  int atexit_registered;

  /* The running capture. */
  int active;
  struct ljleak_collector_options opt;
  char dir[PATH_MAX];
  char command[4096];
  int index_fd;
  uint8_t *buffer;              /* CAPTURE_BUFFER_SIZE + CAPTURE_ZBUFFER_SIZE, mmap'd */
  struct memprof_writer writer;
  struct seg_out out;
  char segment_name[64];
  uint64_t seq;
  double segment_start_wall;
  uint64_t segment_start_ns;
  uint64_t segment_events;
  uint64_t cycle_start_events;  /* segment events before the last GC cycle started */
  uint64_t gc_cycles;
  int boundary_due;
  unsigned gc_flips;            /* atomic phases seen (white flips) of cycles not yet counted */
  int force_armed;              /* force_gc: the VM's stepmul is ours until the boundary */
  MSize saved_stepmul;
  uint64_t force_until;         /* force_gc: gc_cycles at which the boundary may be cut */
  uint64_t start_ns, last_flush_ns;
  uint64_t tick_at;             /* writer.bytes_written at which the timers run next (tick_due) */
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

  /* Status. */
  uint64_t segments, events, stream_done;  /* events: of the segments ended */
  char error[512];
  char last_dir[PATH_MAX];
};

static struct capture cap __attribute__((aligned(64))) = {.index_fd = -1, .out = {.fd = -1}};
static volatile sig_atomic_t signal_pending;
/* The sampling filter (see filter_slot): static, so that capture_hook_sampled
 * can always read it; saturated whenever sampling is off (sampling_set). */
static uint8_t capture_filter[CAPTURE_FILTER_SIZE] __attribute__((aligned(64)));

static void *capture_hook(void *ud, void *ptr, size_t osize, size_t nsize);
static void *capture_hook_sampled(void *ud, void *ptr, size_t osize, size_t nsize);
static void stop_now(struct capture *c, enum stop_reason reason);

/* ---- Small helpers -------------------------------------------------------- */

static uint64_t mono_ns(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static double wall_time(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Copies src into dst (size bytes), cutting it if needed. */
static void copy_text(char *dst, size_t size, const char *src)
{
  size_t n = strlen(src);
  if (n >= size)
    n = size - 1;
  memcpy(dst, src, n);
  dst[n] = '\0';
}

static void set_error(char *err, size_t size, const char *fmt, const char *a, const char *b)
{
  if (err && size)
    snprintf(err, size, fmt, a, b);
}

/* Appends value to dst with the index escapes for backslash, tab and newline. */
static size_t escape_into(char *dst, size_t cap_left, const char *value)
{
  size_t n = 0;
  for (const char *p = value; *p && n + 2 < cap_left; p++) {
    char e = *p == '\\' ? '\\' : *p == '\t' ? 't' : *p == '\n' ? 'n' : 0;
    if (e) {
      dst[n++] = '\\';
      dst[n++] = e;
    } else {
      dst[n++] = *p;
    }
  }
  dst[n] = '\0';
  return n;
}

/* Appends one line to the index. 0 or -1. */
static int index_append(struct capture *c, const char *line)
{
  if (c->index_fd < 0)
    return -1;
  size_t len = strlen(line);
  while (len > 0) {
    ssize_t n = write(c->index_fd, line, len);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return -1;
    line += n;
    len -= (size_t)n;
  }
  return 0;
}

static void read_command(char *out, size_t size)
{
  out[0] = '\0';
  int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return;
  ssize_t n = read(fd, out, size - 1);
  close(fd);
  if (n <= 0) {
    out[0] = '\0';
    return;
  }
  while (n > 0 && out[n - 1] == '\0')
    n--;
  for (ssize_t i = 0; i < n; i++)
    if (out[i] == '\0')
      out[i] = ' ';
  out[n] = '\0';
}

/* ---- Symbols -------------------------------------------------------------- */

static uint64_t proto_fingerprint(const GCproto *pt)
{
  uint64_t fp = (uint64_t)(uintptr_t)gcref(pt->chunkname);
  fp ^= ((uint64_t)(uint32_t)pt->firstline << 32) ^ ((uint64_t)pt->sizebc * 0x9e3779b97f4a7c15ull);
  return fp | 1;
}

static __attribute__((noinline)) void emit_lua_symbol_slow(struct capture *c,
                                                           const GCproto *pt, uint64_t fp)
{
  uint64_t *seen = addr_map_find(&c->sym_lua, (uint64_t)(uintptr_t)pt);
  if (!seen || *seen != fp) {
    GCstr *name = proto_chunkname(pt);
    struct memprof_symbol sym = {
      .kind = MEMPROF_SYMBOL_LUA,
      .address = (uint64_t)(uintptr_t)pt,
      .line = (uint64_t)pt->firstline,
      .name = name ? strdata(name) : "",
      .name_length = name ? name->len : 0,
    };
    memprof_writer_symbol_event(&c->writer, &sym);
    addr_map_put(&c->sym_lua, (uint64_t)(uintptr_t)pt, fp);
  }
  c->last_proto = pt;
  c->last_proto_fp = fp;
}

/* Emits pt's symbol unless this segment has it; the prototype of the last
 * event is checked inline. */
static inline void emit_lua_symbol(struct capture *c, const GCproto *pt)
{
  uint64_t fp = proto_fingerprint(pt);
  if (pt != c->last_proto || fp != c->last_proto_fp)
    emit_lua_symbol_slow(c, pt, fp);
}

#if LJ_HASJIT
static uint64_t trace_fingerprint(const GCtrace *T)
{
  return ((uint64_t)(uintptr_t)T ^ ((uint64_t)(uintptr_t)mref(T->startpc, const BCIns) << 7) ^
          (uint64_t)(uintptr_t)gcref(T->startpt)) | 1;
}
#endif

static __attribute__((noinline)) void emit_trace_symbol_slow(struct capture *c,
                                                             uint64_t traceno, GCtrace *T)
{
#if LJ_HASJIT
  GCproto *pt = (GCproto *)gcref(T->startpt);
  const BCIns *startpc = mref(T->startpc, const BCIns);
  uint64_t fp = trace_fingerprint(T);
  uint64_t *seen = addr_map_find(&c->sym_trace, traceno);
  if (seen && *seen == fp) {
    c->last_trace = traceno;
    c->last_trace_fp = fp;
    return;
  }
  uint64_t line = 0;
  if (pt && pt->gct == ~LJ_TPROTO) {
    emit_lua_symbol(c, pt);
    if (startpc >= proto_bc(pt) && startpc < proto_bc(pt) + pt->sizebc)
      line = attrib_proto_line(pt, proto_bcpos(pt, startpc));
  }
  struct memprof_symbol sym = {
    .kind = MEMPROF_SYMBOL_TRACE,
    .address = (uint64_t)(uintptr_t)pt,
    .line = line,
    .trace = traceno,
    .name = "",
    .name_length = 0,
  };
  memprof_writer_symbol_event(&c->writer, &sym);
  addr_map_put(&c->sym_trace, traceno, fp);
  c->last_trace = traceno;
  c->last_trace_fp = fp;
#else
  (void)c;
  (void)traceno;
  (void)T;
#endif
}

/* Emits the symbol of trace T numbered traceno unless this segment has it;
 * the trace of the last event is checked inline. */
static inline void emit_trace_symbol(struct capture *c, uint64_t traceno, GCtrace *T)
{
#if LJ_HASJIT
  if (traceno == c->last_trace && trace_fingerprint(T) == c->last_trace_fp)
    return;
#endif
  emit_trace_symbol_slow(c, traceno, T);
}

/* C functions are named by dladdr: the dynamic symbol if there is one, else
 * "object+0xOFFSET", else the bare address. */
static void emit_c_symbol(struct capture *c, uint64_t address)
{
  if (addr_map_find(&c->sym_c, address))
    return;
  char name[512];
  Dl_info info;
  memset(&info, 0, sizeof info);
  if (dladdr((void *)(uintptr_t)address, &info) && info.dli_sname && *info.dli_sname) {
    snprintf(name, sizeof name, "%s", info.dli_sname);
  } else if (info.dli_fname && info.dli_fbase) {
    const char *base = strrchr(info.dli_fname, '/');
    snprintf(name, sizeof name, "%s+0x%llx", base ? base + 1 : info.dli_fname,
             (unsigned long long)(address - (uint64_t)(uintptr_t)info.dli_fbase));
  } else {
    snprintf(name, sizeof name, "0x%llx", (unsigned long long)address);
  }
  struct memprof_symbol sym = {
    .kind = MEMPROF_SYMBOL_C,
    .address = address,
    .name = name,
    .name_length = strlen(name),
  };
  memprof_writer_symbol_event(&c->writer, &sym);
  addr_map_put(&c->sym_c, address, 1);
}

/* ---- Segments --------------------------------------------------------------- */

static int segment_sink(void *context, const uint8_t *data, size_t size)
{
  struct capture *c = context;
  if (seg_out_write(&c->out, data, size) != 0)
    return -1;
  if (c->opt.max_total_bytes && c->disk_done + c->out.disk_bytes >= c->opt.max_total_bytes &&
      c->pending_stop == REASON_NONE)
    c->pending_stop = REASON_MAX_TOTAL;
  return 0;
}

static void segment_path(const struct capture *c, char *out, size_t size, int part)
{
  snprintf(out, size, "%s/%s%s", c->dir, c->segment_name, part ? ".part" : "");
}

static void report_write_error(struct capture *c, const char *what, int err)
{
  if (c->error[0])
    return;
  char path[PATH_MAX + 80];
  segment_path(c, path, sizeof path, 1);
  char msg[sizeof path + 256];
  snprintf(msg, sizeof msg, "%s %s: %s", what, path, strerror(err ? err : EIO));
  copy_text(c->error, sizeof c->error, msg);
  fprintf(stderr, "ljleak: capture stopped: %s\n", c->error);
}

static int segment_begin(struct capture *c)
{
  char path[PATH_MAX + 80];
  c->seq++;
  snprintf(c->segment_name, sizeof c->segment_name, "seg-%04llu.memprof%s",
           (unsigned long long)c->seq, c->opt.gzip ? ".gz" : "");
  segment_path(c, path, sizeof path, 1);
  if (seg_out_open(&c->out, path, c->opt.gzip, c->buffer + CAPTURE_BUFFER_SIZE,
                   CAPTURE_ZBUFFER_SIZE) != 0) {
    report_write_error(c, "cannot create", c->out.error);
    return -1;
  }
  c->segment_open = 1;
  memprof_writer_init(&c->writer, c->buffer, CAPTURE_BUFFER_SIZE, segment_sink, c);
  c->quick_until = 0;  /* the writer counts from 0 again: hook_full sets these anew */
  c->tick_at = 0;
  addr_map_clear(&c->sym_lua);
  addr_map_clear(&c->sym_trace);
  addr_map_clear(&c->sym_c);
  c->last_proto = NULL;
  c->last_trace = 0;
  c->segment_start_wall = wall_time();
  c->segment_start_ns = mono_ns();
  c->last_flush_ns = c->segment_start_ns;
  c->segment_events = 0;
  c->cycle_start_events = 0;
  c->boundary_due = 0;
  if (memprof_writer_symtab_begin(&c->writer) || memprof_writer_symtab_end(&c->writer) ||
      memprof_writer_events_begin(&c->writer) || memprof_writer_flush(&c->writer)) {
    report_write_error(c, "cannot write", c->out.error);
    return -1;
  }
  return 0;
}

/* Ends the open segment: epilogue, flush, close, rename, index line. */
static int segment_end(struct capture *c, int complete)
{
  char part[PATH_MAX + 80], final[PATH_MAX + 80];
  if (!c->segment_open)
    return 0;
  c->segment_open = 0;
  c->events += c->segment_events;
  if (c->g)
    c->last_heap = (uint64_t)c->g->gc.total;
  if (memprof_writer_epilogue(&c->writer) || memprof_writer_flush(&c->writer) ||
      seg_out_finish(&c->out) != 0) {
    report_write_error(c, "cannot write", c->out.error);
    seg_out_abandon(&c->out);
    return -1;
  }
  segment_path(c, part, sizeof part, 1);
  segment_path(c, final, sizeof final, 0);
  if (rename(part, final) != 0) {
    report_write_error(c, "cannot rename", errno);
    return -1;
  }
  c->segments++;
  c->stream_done += c->writer.bytes_written;
  c->disk_done += c->out.disk_bytes;
  char line[512];
  snprintf(line, sizeof line,
           "segment\tseq=%llu\tfile=%s\tstart=%.3f\tend=%.3f\tgc_cycles=%llu\theap_bytes=%llu"
           "\tevents=%llu\tbytes=%llu\tsample=%llu\tcomplete=%d",
           (unsigned long long)c->seq, c->segment_name, c->segment_start_wall, wall_time(),
           (unsigned long long)c->gc_cycles, (unsigned long long)c->last_heap,
           (unsigned long long)c->segment_events, (unsigned long long)c->writer.bytes_written,
           (unsigned long long)c->opt.sample, complete);
  size_t used = strlen(line);
  if (complete)
    snprintf(line + used, sizeof line - used, "\tyoung_from=%llu\n",
             (unsigned long long)c->cycle_start_events);
  else
    snprintf(line + used, sizeof line - used, "\n");
  if (index_append(c, line) != 0) {
    report_write_error(c, "cannot append to the index in", errno);
    return -1;
  }
  return 0;
}

static void force_disarm(struct capture *c);

static void rotate(struct capture *c)
{
  force_disarm(c);
  if (segment_end(c, 1) != 0 || segment_begin(c) != 0) {
    c->pending_stop = REASON_WRITE_ERROR;
    return;
  }
}

/* ---- Hooking ---------------------------------------------------------------- */

static lua_State *main_thread(struct capture *c)
{
  return mainthread(c->g);
}

/* Whether f is one of the collector's hooks. */
static int hook_ours(lua_Alloc f)
{
  return f == capture_hook || f == capture_hook_sampled || stub_owns(f);
}

static int hook_install(struct capture *c, lua_State *L, char *err, size_t err_size)
{
  global_State *g = G(L);
  if (c->hooked && c->g == g)
    return 0;
  if (c->hooked) {
    /* Another VM is hooked and idle: give it back its allocator. */
    void *ud;
    if (!hook_ours(lua_getallocf(main_thread(c), &ud))) {
      set_error(err, err_size, "%s%s", "the collector is attached to another Lua state", "");
      return -1;
    }
    lua_setallocf(main_thread(c), c->orig_allocf, c->orig_ud);
    c->hooked = 0;
  }
  c->orig_allocf = lua_getallocf(L, &c->orig_ud);
  if (hook_ours(c->orig_allocf)) {
    set_error(err, err_size, "%s%s", "the allocator is already hooked", "");
    return -1;
  }
  c->g = g;
  c->gg = G2GG(g);
  lua_setallocf(L, capture_hook, c->orig_ud);
  c->hooked = 1;
  return 0;
}

/* Gives the VM its own allocator back unless the signal needs the hook or
 * someone else wrapped it (then the hook stays as a pass-through). */
static void hook_release(struct capture *c)
{
  if (!c->hooked || !c->g || c->signo)
    return;
  void *ud;
  if (hook_ours(lua_getallocf(main_thread(c), &ud))) {
    lua_setallocf(main_thread(c), c->orig_allocf, c->orig_ud);
    c->hooked = 0;
  }
}

/* ---- Forced GC at boundaries -------------------------------------------------- */

/* --force-gc: a due boundary waits for a full GC cycle that starts after it
 * is due, which the VM runs at its next GC check, in the interpreter or on a
 * trace alike: stepmul 0 makes one GC step run a whole cycle (as
 * collectgarbage("setstepmul", 0) does) and threshold 0 makes the next check
 * take that step. Nothing is run from here: the hook may be inside the GC. */
static void force_cycle(struct capture *c)
{
  global_State *g = c->g;
  if (g->gc.threshold == LJ_MAX_MEM)
    return;  /* collectgarbage("stop"): the program wants no cycles now */
  if (!c->force_armed) {
    c->force_armed = 1;
    c->saved_stepmul = g->gc.stepmul;
    /* A cycle under way started before the boundary was due: one more. */
    c->force_until = c->gc_cycles + (g->gc.state == GCSpause ? 1 : 2);
  }
  g->gc.stepmul = 0;
  if (g->vmstate != ~LJ_VMST_GC)
    g->gc.threshold = 0;  /* inside a step, the step sets it when it ends */
}

/* Gives the VM its stepmul back. */
static void force_disarm(struct capture *c)
{
  if (!c->force_armed)
    return;
  c->force_armed = 0;
  if (c->g)
    c->g->gc.stepmul = c->saved_stepmul;
}

/* ---- The hook ------------------------------------------------------------------ */

static uint64_t next_random(struct capture *c)
{
  /* xorshift64* */
  c->rng ^= c->rng >> 12;
  c->rng ^= c->rng << 25;
  c->rng ^= c->rng >> 27;
  return c->rng * 0x2545f4914f6cdd1dull;
}

/* Bytes until the next sample: exponential with mean opt.sample. */
static int64_t sample_gap(struct capture *c)
{
  double u = ((double)(next_random(c) >> 11) + 1.0) / 9007199254740992.0;
  double gap = -log(u) * (double)c->opt.sample;
  if (gap < 1)
    gap = 1;
  if (gap > 1e15)
    gap = 1e15;
  return (int64_t)gap;
}

static int sample_take(struct capture *c, size_t size)
{
  c->countdown -= (int64_t)size;
  if (c->countdown > 0)
    return 0;
  c->countdown = sample_gap(c);
  return 1;
}

/* Whether the open segment has run its period or reached its size. */
static void boundary_check(struct capture *c, uint64_t now)
{
  if (!c->boundary_due &&
      ((c->opt.period > 0 && (double)(now - c->segment_start_ns) >= c->opt.period * 1e9) ||
       (c->opt.max_bytes && c->writer.bytes_written >= c->opt.max_bytes)))
    c->boundary_due = 1;
}

static void timers(struct capture *c)
{
  uint64_t now = mono_ns();
  if (c->opt.duration > 0 && (double)(now - c->start_ns) >= c->opt.duration * 1e9 &&
      c->pending_stop == REASON_NONE)
    c->pending_stop = REASON_DURATION;
  boundary_check(c, now);
  if (c->boundary_due && c->opt.force_gc)
    force_cycle(c);
  if (now - c->last_flush_ns >= CAPTURE_FLUSH_NS) {
    c->last_flush_ns = now;
    if (c->writer.used && memprof_writer_flush(&c->writer) != 0) {
      report_write_error(c, "cannot write", c->out.error);
      c->pending_stop = REASON_WRITE_ERROR;
    }
  }
}

/* Whether the timers are due: every CAPTURE_TICK_BYTES of stream (or at
 * once in a new segment). Takes the tick when they are. */
static inline int tick_due(struct capture *c)
{
  if (c->writer.bytes_written < c->tick_at)
    return 0;
  c->tick_at = c->writer.bytes_written + CAPTURE_TICK_BYTES;
  return 1;
}

/* The GC state and current white in one number (the two bytes as they lie
 * in memory, one load): a cycle flips the white in its atomic phase, so a
 * cycle that runs whole between two events (one GC step can run one) still
 * shows. */
_Static_assert(offsetof(GCState, state) == offsetof(GCState, currentwhite) + 1,
               "gc_phase reads GCState.currentwhite and state as one 16-bit word");
static inline int gc_phase(const global_State *g)
{
  uint16_t word;
  memcpy(&word, &g->gc.currentwhite, sizeof word);
  return word;
}

/* The GC state and the current white of a gc_phase() value. */
static inline void phase_split(int phase, int *state, int *white)
{
  uint16_t word = (uint16_t)phase;
  uint8_t bytes[2];
  memcpy(bytes, &word, sizeof bytes);
  *white = bytes[0];
  *state = bytes[1];
}

/* A GC phase change. Full cycles have ended when the state is back at pause
 * after their atomic phases (white flips); that is the only place a due
 * segment boundary is cut. A flip since the last event is one atomic phase
 * or more: two cycles run back to back with no event between them (two
 * collectgarbage() calls with nothing to free) count as none. */
static void gc_transition(struct capture *c, int phase)
{
  int st, last, white, last_white;
  phase_split(phase, &st, &white);
  phase_split(c->last_gc_phase, &last, &last_white);
  int flipped = white != last_white;
  c->last_gc_phase = phase;
  c->fast_phase = signal_pending ? -1 : phase;
  if (last == GCSpause && st != GCSpause) {
    /* A cycle starts; seen at the first event after it, so one event early
     * to be safe (a block wrongly called young only waits a boundary). */
    c->cycle_start_events = c->segment_events ? c->segment_events - 1 : 0;
  }
  c->gc_flips += (unsigned)flipped;
  if (st != GCSpause || !c->gc_flips)
    return;
  if (last == GCSpause)
    c->cycle_start_events = c->segment_events;  /* the whole cycle ran since the last event */
  c->gc_cycles += c->gc_flips;
  c->gc_flips = 0;
  boundary_check(c, mono_ns());  /* the timers look only now and then */
  if (c->boundary_due && (!c->force_armed || c->gc_cycles >= c->force_until))
    rotate(c);
}

/* Sampling filter: a counter per address bucket, so the free of a block
 * that was not sampled (nearly all of them) costs one byte load. Blocks 1
 * MiB apart share a bucket; a shared bucket only sends a free to the slow
 * path, which looks the block up. */
static inline size_t filter_slot(const void *p)
{
  /* As the stub computes it (stub.h). */
  return (size_t)((uintptr_t)p >> 4) & (CAPTURE_FILTER_SIZE - 1);
}

static void filter_add(const void *p)
{
  uint8_t *f = &capture_filter[filter_slot(p)];
  if (*f < 255)
    (*f)++;
}

static void filter_remove(const void *p)
{
  uint8_t *f = &capture_filter[filter_slot(p)];
  if (*f != 0 && *f != 255)
    (*f)--;
}

static void sampled_add(struct capture *c, const void *p, size_t size)
{
  if (addr_map_put(&c->sampled, (uint64_t)(uintptr_t)p, size) == 0)
    filter_add(p);
}

static int sampled_remove(struct capture *c, const void *p)
{
  if (!capture_filter[filter_slot(p)] || !addr_map_remove(&c->sampled, (uint64_t)(uintptr_t)p))
    return 0;
  filter_remove(p);
  return 1;
}

/* The hook the VM calls while sampling: the stub, unless the options ask
 * for the C hook or no stub can be made. */
static lua_Alloc sampled_hook(struct capture *c)
{
  if (!c->opt.c_hook) {
    struct stub_spec spec = {
      .target = c->orig_allocf,
      .slow = capture_hook_sampled,
      .filter = capture_filter,
      .base = c,
      .countdown_off = offsetof(struct capture, countdown),
      .allocated_off = offsetof(struct capture, allocated),
      .fast_phase_off = offsetof(struct capture, fast_phase),
      .g_off = offsetof(struct capture, g),
      .phase_off = offsetof(global_State, gc.currentwhite),
    };
    lua_Alloc f = stub_get(&spec);
    if (f)
      return f;
  }
  return capture_hook_sampled;
}

/* Turns sampling on or off. While sampling, the VM calls the stub or
 * capture_hook_sampled directly, so that the fast path does not test the
 * mode; if someone wrapped the allocator since the hook went in,
 * capture_hook stays and passes the calls on to capture_hook_sampled. Such
 * a wrapper may go on calling the stub or capture_hook_sampled after
 * sampling is off: then the filter is saturated and the countdown at zero,
 * so that every call reaches hook_general. */
static void sampling_set(struct capture *c, int on)
{
  if (on) {
    memset(capture_filter, 0, sizeof capture_filter);
    /* Saturated, never counted down: lua_close's free of the GG_State always
     * reaches hook_general, so the fast path need not look for it. */
    capture_filter[filter_slot(c->gg)] = 255;
    c->countdown = sample_gap(c);
  } else if (c->sampling) {
    memset(capture_filter, 255, sizeof capture_filter);
    c->countdown = 0;
  }
  c->sampling = on;
  c->direct_hook = 0;
  void *ud;
  if (c->hooked && hook_ours(lua_getallocf(main_thread(c), &ud))) {
    lua_Alloc f = on ? sampled_hook(c) : capture_hook;
    c->direct_hook = stub_owns(f);
    lua_setallocf(main_thread(c), f, c->orig_ud);
  }
}

/* The site of the running Lua or C code, its symbol emitted first when it
 * is new in this segment. */
static inline __attribute__((always_inline)) void current_site(struct capture *c,
                                                               struct attrib_site *site)
{
  attrib_current_site(c->g, site);
  if (site->source == MEMPROF_SOURCE_LUA)
    emit_lua_symbol(c, site->proto);
  else if (site->source == MEMPROF_SOURCE_TRACE)
    emit_trace_symbol(c, site->location, site->trace);
  else if (site->source == MEMPROF_SOURCE_C)
    emit_c_symbol(c, site->location);
}

/* Attributes and writes one event (sampling decisions are already made). */
static void write_event(struct capture *c, struct memprof_event *ev)
{
  struct attrib_site site;
  int32_t vmstate = c->g->vmstate;
  if (vmstate < 0 && vmstate != ~LJ_VMST_INTERP && vmstate != ~LJ_VMST_C) {
    /* GC, trace exits, the compiler: no frames to read (the usual free). */
    ev->source = MEMPROF_SOURCE_INTERNAL;
    ev->location = 0;
    ev->line = 0;
    goto encode;
  }
  current_site(c, &site);
  ev->source = site.source;
  ev->location = site.location;
  ev->line = site.line;
encode:
  memprof_encode_event(&c->writer, ev, c->pdep);
  c->segment_events++;
  if (c->writer.failed) {
    report_write_error(c, "cannot write", c->out.error);
    c->pending_stop = REASON_WRITE_ERROR;
  }
}

/* The slow path of the hook: every event without sampling, and the events
 * the sampling fast path could not dismiss. */
static void record(struct capture *c, void *ptr, size_t osize, void *nptr, size_t nsize,
                   int counted)
{
  struct memprof_event ev;
  if (nsize == 0) {
    if (!ptr)
      return;
    if (c->opt.sample && !sampled_remove(c, ptr))
      return;
    ev.kind = MEMPROF_EVENT_FREE;
    ev.old_address = (uint64_t)(uintptr_t)ptr;
    ev.old_size = osize;
    ev.new_address = 0;
    ev.new_size = 0;
  } else {
    if (!nptr)
      return; /* failed allocation: the VM raises an error, nothing changed */
    if (!counted)
      c->allocated += nsize;
    ev.new_address = (uint64_t)(uintptr_t)nptr;
    ev.new_size = nsize;
    if (ptr == NULL || osize == 0) {
      if (c->opt.sample) {
        if (!counted && !sample_take(c, nsize))
          return;
        sampled_add(c, nptr, nsize);
      }
      ev.kind = MEMPROF_EVENT_ALLOC;
      ev.old_address = 0;
      ev.old_size = 0;
    } else if (c->opt.sample && !sampled_remove(c, ptr)) {
      /* A block we did not sample grew or shrank: sample the new size as an allocation. */
      if (!sample_take(c, nsize))
        return;
      sampled_add(c, nptr, nsize);
      ev.kind = MEMPROF_EVENT_ALLOC;
      ev.old_address = 0;
      ev.old_size = 0;
    } else {
      if (c->opt.sample)
        sampled_add(c, nptr, nsize);
      ev.kind = MEMPROF_EVENT_REALLOC;
      ev.old_address = (uint64_t)(uintptr_t)ptr;
      ev.old_size = osize;
    }
  }
  write_event(c, &ev);
}

static int capture_begin(struct capture *c, const struct ljleak_collector_options *opt,
                         char *err, size_t err_size);

static void handle_signal(struct capture *c)
{
  signal_pending = 0;
  if (c->active) {
    stop_now(c, REASON_SIGNAL);
    return;
  }
  if (!c->layout_ok)
    return;
  struct ljleak_collector_options opt;
  ljleak_collector_options_init(&opt);
  if (opt.dir) {
    /* LJLEAK_DIR serves the first capture; later ones get new directories. */
    char index[PATH_MAX + 8];
    snprintf(index, sizeof index, "%s/index", opt.dir);
    if (access(index, F_OK) == 0)
      opt.dir = NULL;
  }
  char err[512];
  if (capture_begin(c, &opt, err, sizeof err) != 0)
    fprintf(stderr, "ljleak: cannot start a capture on signal: %s\n", err);
}

/* What the slow path is asked to do. */
enum slow_work {
  SLOW_RECORD,          /* record the event (full capture, or not dismissed by sampling) */
  SLOW_RECORD_COUNTED,  /* the same for an allocation the fast path already counted and sampled */
  SLOW_TAIL             /* only the GC state, timers and the signal flag */
};

/* lua_close frees the GG_State last: finish while g is still readable. */
static __attribute__((noinline)) void *hook_close(struct capture *c, void *ud, void *ptr,
                                                  size_t osize, size_t nsize)
{
  lua_Alloc f = c->orig_allocf;
  if (ptr == NULL)
    return f(ud, ptr, osize, nsize);
  if (c->active && !c->busy) {
    c->busy = 1;
    stop_now(c, REASON_EXIT);
    c->busy = 0;
  }
  c->hooked = 0;
  c->g = NULL;
  c->gg = NULL;
  c->layout_ok = 0;
  return f(ud, ptr, osize, nsize);
}

static __attribute__((noinline)) void hook_slow(struct capture *c, void *ptr, size_t osize,
                                                void *nptr, size_t nsize, enum slow_work work)
{
  if (c->busy)
    return;
  c->busy = 1;
  /* Re-armed before the flag is read: a signal that comes after it marks
   * fast_phase again. (One that comes between gc_transition's read of the
   * flag and its store waits for the next slow call.) */
  c->fast_phase = c->last_gc_phase;
  if (signal_pending)
    handle_signal(c);
  if (!c->active) {
    c->busy = 0;
    return;
  }
  int phase = gc_phase(c->g);
  if (phase != c->last_gc_phase)
    gc_transition(c, phase);
  if (work != SLOW_TAIL) {
    if (c->segment_open)
      record(c, ptr, osize, nptr, nsize, work == SLOW_RECORD_COUNTED);
  }
  if (tick_due(c) || c->sampling)
    timers(c);
  if (c->pending_stop != REASON_NONE)
    stop_now(c, c->pending_stop);
  c->busy = 0;
}

/* Appends an event to the buffer, which has room for it (MEMPROF_ENCODE_EVENT_MAX). */
static inline __attribute__((always_inline)) void append_event(struct capture *c, unsigned kind,
                                                               unsigned source,
                                                               uint64_t location, uint64_t line,
                                                               void *ptr, size_t osize,
                                                               void *nptr, size_t nsize)
{
  struct memprof_writer *w = &c->writer;
  uint8_t *start = w->buffer + w->used;
  uint8_t *end = memprof_encode_event_at(start, kind, source, location, line, (uint64_t)(uintptr_t)ptr,
                                 osize, (uint64_t)(uintptr_t)nptr, nsize, c->pdep);
  w->used += (size_t)(end - start);
  w->bytes_written += (uint64_t)(end - start);
  c->segment_events++;
}

/* Full capture: one event, made by the allocator call that returned nptr,
 * attributed and encoded straight into the buffer; returns nptr. Anything
 * unusual (re-entry, a signal, a GC state change, a stop due, no segment
 * open) takes hook_slow instead. Nothing here calls the Lua allocator, so
 * the re-entrancy guard is only raised around the timers. The common
 * events take the quick paths below, which end here for anything else. */
static __attribute__((noinline)) void *hook_full(struct capture *c, void *ptr, size_t osize,
                                                 void *nptr, size_t nsize)
{
  struct memprof_writer *w = &c->writer;
  global_State *g = c->g;
  if (__builtin_expect(c->hold != HOLD_NONE, 0) ||
      __builtin_expect(gc_phase(g) != c->fast_phase, 0)) {
    hook_slow(c, ptr, osize, nptr, nsize, SLOW_RECORD);
    return nptr;
  }
  unsigned kind;
  if (nsize == 0) {
    if (!ptr)
      return nptr;
    kind = MEMPROF_EVENT_FREE;
  } else {
    if (!nptr)
      return nptr; /* failed allocation: the VM raises an error, nothing changed */
    c->allocated += nsize;
    kind = ptr == NULL || osize == 0 ? MEMPROF_EVENT_ALLOC : MEMPROF_EVENT_REALLOC;
  }
  unsigned source = MEMPROF_SOURCE_INTERNAL;
  uint64_t location = 0, line = 0;
  int32_t vmstate = g->vmstate;
  if (vmstate > 0) {
    /* Compiled code: the trace number is the whole site. */
    GCtrace *T = attrib_trace(g, (uint64_t)vmstate);
    if (T) {
      emit_trace_symbol(c, (uint64_t)vmstate, T);
      source = MEMPROF_SOURCE_TRACE;
      location = (uint64_t)vmstate;
    }
  } else if (vmstate == ~LJ_VMST_INTERP || vmstate == ~LJ_VMST_C) {
    struct attrib_site site;
    current_site(c, &site);
    source = (unsigned)site.source;
    location = site.location;
    line = site.line;
  }
  /* After the symbols, which may have filled the buffer or failed to write. */
  if (__builtin_expect(w->used > CAPTURE_QUICK_ROOM, 0) || __builtin_expect(w->failed, 0)) {
    if (w->failed || memprof_writer_flush(w) != 0) {
      c->busy = 1;
      report_write_error(c, "cannot write", c->out.error);
      stop_now(c, REASON_WRITE_ERROR);
      c->busy = 0;
      return nptr;
    }
  }
  append_event(c, kind, source, location, line, ptr, osize, nptr, nsize);
  if (__builtin_expect(tick_due(c), 0)) {
    c->busy = 1;
    timers(c);
    if (c->pending_stop != REASON_NONE)
      stop_now(c, c->pending_stop);
    c->busy = 0;
  }
  /* Until the next tick, or the buffer's end (flushes only move it on). */
  uint64_t room_end = w->bytes_written - w->used + CAPTURE_QUICK_ROOM;
  c->quick_until = c->tick_at < room_end ? c->tick_at : room_end;
  return nptr;
}

/* Full capture: the allocator call, then the event. */
static __attribute__((noinline)) void *hook_full_call(struct capture *c, void *ud, void *ptr,
                                                      size_t osize, size_t nsize)
{
  void *nptr = c->orig_allocf(ud, ptr, osize, nsize);
  return hook_full(c, ptr, osize, nptr, nsize);
}

/* Whether the next event can be written by a quick path: nothing unusual
 * for hook_full (not busy, a segment open, no stop due, no GC phase change
 * or signal), room in the buffer and no timer tick due (quick_until, set by
 * hook_full). A failed write shows as a stop due (timers) or is seen by
 * hook_full when the buffer is full. */
static inline __attribute__((always_inline)) int quick_ok(const struct capture *c,
                                                          const global_State *g)
{
  return __builtin_expect(c->hold == HOLD_NONE, 1) &&
         __builtin_expect(gc_phase(g) == c->fast_phase, 1) &&
         __builtin_expect(c->writer.bytes_written <= c->quick_until, 1);
}

/* The site of an event a quick path can write, without a call: the GC or
 * another VM internal, or the trace whose symbol the last event checked
 * (still the same trace). 0 for the others: Lua and C functions, other
 * traces. */
static inline __attribute__((always_inline)) int quick_site(const struct capture *c,
                                                            global_State *g, unsigned *source,
                                                            uint64_t *location)
{
  int32_t vmstate = g->vmstate;
  if (vmstate < 0) {
    *source = MEMPROF_SOURCE_INTERNAL;
    *location = 0;
    return vmstate != ~LJ_VMST_INTERP && vmstate != ~LJ_VMST_C;
  }
  if ((uint64_t)vmstate != c->last_trace)
    return 0;
  GCtrace *T = attrib_trace(g, (uint64_t)vmstate);
  if (!T || trace_fingerprint(T) != c->last_trace_fp)
    return 0;
  *source = MEMPROF_SOURCE_TRACE;
  *location = (uint64_t)vmstate;
  return 1;
}

/* Full capture, a free: written before the block goes, and the allocator
 * tail-called, so that the common case (the GC freeing) makes no frame. */
static __attribute__((noinline)) void *hook_full_free(struct capture *c, void *ud, void *ptr,
                                                      size_t osize)
{
  global_State *g = c->g;
  unsigned source;
  uint64_t location;
  if (__builtin_expect(ptr != NULL, 1) && quick_ok(c, g) &&
      quick_site(c, g, &source, &location)) {
    append_event(c, MEMPROF_EVENT_FREE, source, location, 0, ptr, osize, NULL, 0);
    return c->orig_allocf(ud, ptr, osize, 0);
  }
  return hook_full_call(c, ud, ptr, osize, 0);
}

/* Full capture, an allocation or reallocation the allocator made: the
 * common case (a trace allocating) written with no frame. */
static __attribute__((noinline)) void *hook_full_record(struct capture *c, void *ptr,
                                                        size_t osize, void *nptr, size_t nsize)
{
  global_State *g = c->g;
  unsigned source;
  uint64_t location;
  if (__builtin_expect(nptr != NULL, 1) && quick_ok(c, g) &&
      quick_site(c, g, &source, &location)) {
    c->allocated += nsize;
    append_event(c, ptr == NULL || osize == 0 ? MEMPROF_EVENT_ALLOC : MEMPROF_EVENT_REALLOC,
                 source, location, 0, ptr, osize, nptr, nsize);
    return nptr;
  }
  return hook_full(c, ptr, osize, nptr, nsize);
}

static __attribute__((noinline)) void *hook_full_alloc(struct capture *c, void *ud, void *ptr,
                                                       size_t osize, size_t nsize)
{
  void *nptr = c->orig_allocf(ud, ptr, osize, nsize);
  return hook_full_record(c, ptr, osize, nptr, nsize);
}

/* Everything but the fast paths: lua_close's last free, the sampled events
 * the sampling fast path could not dismiss, and the pass-through hook
 * waiting for a signal. */
static __attribute__((noinline)) void *hook_general(struct capture *c, void *ud, void *ptr,
                                                    size_t osize, size_t nsize)
{
  if (__builtin_expect(nsize == 0 && ptr == c->gg, 0))
    return hook_close(c, ud, ptr, osize, nsize);
  void *nptr = c->orig_allocf(ud, ptr, osize, nsize);
  if (c->sampling) {
    if (nsize != 0 && ptr == NULL) {
      if (__builtin_expect(nptr == NULL, 0))
        goto slow;
      c->allocated += nsize;
      c->countdown -= (int64_t)nsize;
      if (c->countdown <= 0) {
        c->countdown = sample_gap(c);
        hook_slow(c, ptr, osize, nptr, nsize, SLOW_RECORD_COUNTED);
        return nptr;
      }
      hook_slow(c, ptr, osize, nptr, nsize, SLOW_TAIL);
      return nptr;
    }
    goto slow;
  }
  /* A full capture's events come here only for lua_close (above): its own
   * path is hook_full_call. */
  if (!c->active && !signal_pending)
    return nptr;
slow:
  hook_slow(c, ptr, osize, nptr, nsize, SLOW_RECORD);
  return nptr;
}

/* The hook while sampling where there is no stub, and the stub's slow path
 * (the stub does what the fast path here does). The common events leave
 * with a few loads and no frame of their own, tail-calling the allocator:
 * a free of a block the filter says was not sampled, and an allocation, or
 * a reallocation of such a block, that does not end the countdown (counted
 * first, so that a failed allocation, which raises a memory error in the
 * VM, counts too). Only allocations compare the GC phase: the GC steps at
 * allocations, so a new phase, or a signal's mark, is seen at the next
 * one. Everything else, with the timers, goes to hook_general. */
static void *capture_hook_sampled(void *ud, void *ptr, size_t osize, size_t nsize)
{
  struct capture *c = &cap;
  if (nsize == 0) {
    if (__builtin_expect(capture_filter[filter_slot(ptr)] == 0, 1))
      return c->orig_allocf(ud, ptr, osize, nsize);
  } else if (__builtin_expect(gc_phase(c->g) == c->fast_phase, 1) &&
             (ptr == NULL || capture_filter[filter_slot(ptr)] == 0)) {
    int64_t left = c->countdown - (int64_t)nsize;
    if (__builtin_expect(left > 0, 1)) {
      c->countdown = left;
      c->allocated += nsize;
      return c->orig_allocf(ud, ptr, osize, nsize);
    }
  }
  return hook_general(c, ud, ptr, osize, nsize);
}

/* The hook otherwise: a full capture's quick paths, sampling where someone
 * wrapped the allocator after the hook went in (see sampling_set), and the
 * pass-through waiting for a signal. */
static void *capture_hook(void *ud, void *ptr, size_t osize, size_t nsize)
{
  struct capture *c = &cap;
  if (__builtin_expect(c->sampling, 0))
    return capture_hook_sampled(ud, ptr, osize, nsize);
  if (__builtin_expect(c->active, 1)) {
    if (nsize != 0)
      return hook_full_alloc(c, ud, ptr, osize, nsize);
    if (__builtin_expect(ptr != c->gg, 1))
      return hook_full_free(c, ud, ptr, osize);
  }
  return hook_general(c, ud, ptr, osize, nsize);
}

/* ---- Start and stop ------------------------------------------------------------ */

static void free_buffers(struct capture *c)
{
  if (c->buffer)
    munmap(c->buffer, CAPTURE_MAP_SIZE);
  c->buffer = NULL;
  addr_map_free(&c->sampled);
  addr_map_free(&c->sym_lua);
  addr_map_free(&c->sym_trace);
  addr_map_free(&c->sym_c);
}

static void stop_now(struct capture *c, enum stop_reason reason)
{
  if (!c->active)
    return;
  c->active = 0;
  sampling_set(c, 0);
  if (reason == REASON_WRITE_ERROR || c->writer.failed) {
    reason = REASON_WRITE_ERROR;
    report_write_error(c, "cannot write", c->out.error);
    seg_out_abandon(&c->out);
    c->segment_open = 0;
  } else if (segment_end(c, 0) != 0) {
    reason = REASON_WRITE_ERROR;
  }
  if (reason == REASON_MAX_TOTAL)
    fprintf(stderr, "ljleak: capture in %s stopped: it reached --max-total-bytes %llu\n", c->dir,
            (unsigned long long)c->opt.max_total_bytes);
  char line[128];
  snprintf(line, sizeof line, "stop\ttime=%.3f\treason=%s\n", wall_time(), reason_names[reason]);
  index_append(c, line);
  if (c->index_fd >= 0)
    close(c->index_fd);
  c->index_fd = -1;
  c->pending_stop = REASON_NONE;
  force_disarm(c);
  free_buffers(c);
  copy_text(c->last_dir, sizeof c->last_dir, c->dir);
  if (reason != REASON_EXIT)
    hook_release(c);
}

static void at_exit(void)
{
  struct capture *c = &cap;
  if (c->active && !c->busy) {
    c->busy = 1;
    stop_now(c, REASON_EXIT);
    c->busy = 0;
  }
}

/* A child of fork() shares its parent's open segment and index: it drops the
 * capture without writing a byte (nor at exit), and its allocator calls pass
 * through. It may start a capture of its own. */
static void at_fork_child(void)
{
  struct capture *c = &cap;
  if (!c->active)
    return;
  c->active = 0;
  sampling_set(c, 0);
  c->segment_open = 0;
  c->pending_stop = REASON_NONE;
  seg_out_abandon(&c->out);
  if (c->index_fd >= 0)
    close(c->index_fd);
  c->index_fd = -1;
  force_disarm(c);
  free_buffers(c);
  c->busy = 0;
}

/* Creates the capture directory: opt->dir, or a new ljleak-<pid>-<time>. */
static int make_dir(struct capture *c, const struct ljleak_collector_options *opt, char *err,
                    size_t err_size)
{
  if (opt->dir && *opt->dir) {
    copy_text(c->dir, sizeof c->dir, opt->dir);
    if (mkdir(c->dir, 0755) != 0) {
      struct stat st;
      char index[PATH_MAX + 8];
      if (errno != EEXIST || stat(c->dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        set_error(err, err_size, "cannot create capture directory %s: %s", c->dir,
                  strerror(errno));
        return -1;
      }
      snprintf(index, sizeof index, "%s/index", c->dir);
      if (access(index, F_OK) == 0) {
        set_error(err, err_size, "%s already holds a capture (it has an index)%s", c->dir, "");
        return -1;
      }
    }
    return 0;
  }
  const char *root = opt->root && *opt->root ? opt->root : ".";
  if (mkdir(root, 0755) != 0 && errno != EEXIST) {
    set_error(err, err_size, "cannot create %s: %s", root, strerror(errno));
    return -1;
  }
  time_t now = time(NULL);
  struct tm tm;
  char stamp[32];
  localtime_r(&now, &tm);
  strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
  for (int n = 1; n < 1000; n++) {
    if (n == 1)
      snprintf(c->dir, sizeof c->dir, "%s/ljleak-%ld-%s", root, (long)getpid(), stamp);
    else
      snprintf(c->dir, sizeof c->dir, "%s/ljleak-%ld-%s-%d", root, (long)getpid(), stamp, n);
    if (mkdir(c->dir, 0755) == 0)
      return 0;
    if (errno != EEXIST)
      break;
  }
  set_error(err, err_size, "cannot create a capture directory in %s: %s", root, strerror(errno));
  return -1;
}

static int capture_begin(struct capture *c, const struct ljleak_collector_options *opt,
                         char *err, size_t err_size)
{
  if (c->active) {
    set_error(err, err_size, "a capture is already running in %s%s", c->dir, "");
    return -1;
  }
  if (opt->period < 0 || opt->duration < 0) {
    set_error(err, err_size, "%s%s", "period and duration must not be negative", "");
    return -1;
  }
  if (make_dir(c, opt, err, err_size) != 0)
    return -1;
  c->opt = *opt;
  c->opt.dir = c->dir;
  c->opt.root = NULL;
  if (opt->command)
    copy_text(c->command, sizeof c->command, opt->command);
  else
    read_command(c->command, sizeof c->command);
  c->opt.command = c->command;

  void *mem = mmap(NULL, CAPTURE_MAP_SIZE, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED) {
    set_error(err, err_size, "cannot map the capture buffer: %s%s", strerror(errno), "");
    return -1;
  }
  c->buffer = mem;
  if (addr_map_init(&c->sym_lua, 1024) || addr_map_init(&c->sym_trace, 256) ||
      addr_map_init(&c->sym_c, 256) || (opt->sample && addr_map_init(&c->sampled, 4096))) {
    free_buffers(c);
    set_error(err, err_size, "cannot map the symbol tables: %s%s", strerror(errno), "");
    return -1;
  }

  char path[PATH_MAX + 8];
  snprintf(path, sizeof path, "%s/index", c->dir);
  c->index_fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_TRUNC | O_CLOEXEC, 0644);
  if (c->index_fd < 0) {
    set_error(err, err_size, "cannot create %s: %s", path, strerror(errno));
    free_buffers(c);
    return -1;
  }
  char host[256] = "";
  gethostname(host, sizeof host - 1);
  double start = wall_time();
  char line[16384], *p = line;
  size_t left = sizeof line;
  int n = snprintf(p, left, "ljleak-index\tversion=1\ncapture\tpid=%ld\thost=", (long)getpid());
  p += n, left -= (size_t)n;
  n = (int)escape_into(p, left, host);
  p += n, left -= (size_t)n;
  n = snprintf(p, left, "\tcommand=");
  p += n, left -= (size_t)n;
  n = (int)escape_into(p, left - 256, c->command);
  p += n, left -= (size_t)n;
  n = snprintf(p, left, "\tluajit=");
  p += n, left -= (size_t)n;
  n = (int)escape_into(p, left, c->luajit_version);
  p += n, left -= (size_t)n;
  snprintf(p, left, "\tstart=%.3f\tsample=%llu\tperiod=%g\tmax_bytes=%llu\tgzip=%d\n", start,
           (unsigned long long)opt->sample, opt->period, (unsigned long long)opt->max_bytes,
           opt->gzip ? 1 : 0);
  if (index_append(c, line) != 0) {
    set_error(err, err_size, "cannot write %s: %s", path, strerror(errno));
    close(c->index_fd);
    c->index_fd = -1;
    free_buffers(c);
    return -1;
  }

  c->seq = 0;
  c->segments = c->events = c->stream_done = c->allocated = 0;
  c->disk_done = 0;
  c->gc_cycles = 0;
  c->error[0] = '\0';
  c->pending_stop = REASON_NONE;
  c->start_ns = mono_ns();
  c->pdep = memprof_cpu_fast_pext();
  c->rng = (c->start_ns ^ ((uint64_t)getpid() << 32) ^ (uint64_t)(uintptr_t)c) | 1;
  c->last_gc_phase = c->fast_phase = gc_phase(c->g);
  /* A cycle past its atomic phase has flipped the white already. */
  c->gc_flips = c->g->gc.state >= GCSsweepstring;
  c->force_armed = 0;
  c->last_heap = (uint64_t)c->g->gc.total;
  if (segment_begin(c) != 0) {
    copy_text(err, err_size, c->error);
    char stop_line[128];
    snprintf(stop_line, sizeof stop_line, "stop\ttime=%.3f\treason=write-error\n", wall_time());
    index_append(c, stop_line);
    seg_out_abandon(&c->out);
    c->segment_open = 0;
    close(c->index_fd);
    c->index_fd = -1;
    free_buffers(c);
    return -1;
  }
  c->active = 1;
  sampling_set(c, opt->sample != 0);
  if (!c->atexit_registered) {
    atexit(at_exit);
    pthread_atfork(NULL, NULL, at_fork_child);
    c->atexit_registered = 1;
  }
  return 0;
}

/* ---- The C API ------------------------------------------------------------------ */

int capture_attach(lua_State *L, char *err, size_t err_size)
{
  struct capture *c = &cap;
  if (c->hooked && c->g == G(L) && c->layout_ok)
    return 0;
  if (c->active) {
    set_error(err, err_size, "a capture of another Lua state is running in %s%s", c->dir, "");
    return -1;
  }
  char version[64];
  if (layout_verify(L, version, sizeof version, err, err_size) != 0)
    return -1;
  if (hook_install(c, L, err, err_size) != 0)
    return -1;
  copy_text(c->luajit_version, sizeof c->luajit_version, version);
  c->layout_ok = 1;
  return 0;
}

int ljleak_collector_start(lua_State *L, const struct ljleak_collector_options *options,
                           char *err, size_t err_size)
{
  struct capture *c = &cap;
  struct ljleak_collector_options defaults;
  if (!options) {
    ljleak_collector_options_init(&defaults);
    options = &defaults;
  }
  if (c->active) {
    set_error(err, err_size, "a capture is already running in %s%s", c->dir, "");
    return -1;
  }
  if (capture_attach(L, err, err_size) != 0)
    return -1;
  c->busy = 1;
  int rc = capture_begin(c, options, err, err_size);
  c->busy = 0;
  if (rc != 0)
    hook_release(c);
  return rc;
}

int ljleak_collector_stop(lua_State *L, char *err, size_t err_size)
{
  struct capture *c = &cap;
  if (!c->active) {
    set_error(err, err_size, "%s%s", "no capture is running", "");
    return -1;
  }
  if (c->g != G(L)) {
    set_error(err, err_size, "%s%s", "the running capture belongs to another Lua state", "");
    return -1;
  }
  c->busy = 1;
  stop_now(c, REASON_STOP);
  c->busy = 0;
  if (c->error[0]) {
    copy_text(err, err_size, c->error);
    return -1;
  }
  return 0;
}

int ljleak_collector_exit(lua_State *L, char *err, size_t err_size)
{
  struct capture *c = &cap;
  if (!c->active || c->g != G(L)) {
    copy_text(err, err_size, c->error[0] ? c->error : "no capture is running");
    return -1;
  }
  c->busy = 1;
  stop_now(c, REASON_EXIT);
  c->busy = 0;
  hook_release(c);
  if (c->error[0]) {
    copy_text(err, err_size, c->error);
    return -1;
  }
  return 0;
}

void ljleak_collector_status(struct ljleak_collector_status *st)
{
  const struct capture *c = &cap;
  memset(st, 0, sizeof *st);
  st->active = c->active;
  copy_text(st->dir, sizeof st->dir, c->active ? c->dir : c->last_dir);
  st->segments = c->segments;
  st->events = c->events + (c->active && c->segment_open ? c->segment_events : 0);
  st->bytes = c->stream_done + (c->active && c->segment_open ? c->writer.bytes_written : 0);
  st->allocated = c->allocated;
  st->direct_hook = c->active && c->direct_hook;
  copy_text(st->error, sizeof st->error, c->error);
}

/* Sets the flag and marks fast_phase, so that the hook's fast paths, which
 * compare it with the GC phase, leave for the slow path that reads the flag. */
static void on_signal(int signo)
{
  (void)signo;
  signal_pending = 1;
  cap.fast_phase = -1;
}

int ljleak_collector_install_signal(lua_State *L, const char *spec, char *err, size_t err_size)
{
  struct capture *c = &cap;
  int signo;
  if (options_parse_signal(spec, &signo) != 0) {
    set_error(err, err_size, "bad signal '%s' (use a name like USR2, a number, or none)%s",
              spec ? spec : "", "");
    return -1;
  }
  if (signo == 0)
    return 0;
  if (capture_attach(L, err, err_size) != 0)
    return -1;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  if (sigaction(signo, &sa, NULL) != 0) {
    set_error(err, err_size, "cannot install the handler for signal %s: %s", spec,
              strerror(errno));
    return -1;
  }
  c->signo = signo;
  return 0;
}
