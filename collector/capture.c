/* collector/capture.c: starting and stopping a capture, fork and exit, the hook's installation, the signal, and the C API. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "collector/boundary.h"
#include "collector/capture.h"
#include "collector/capture_dir.h"
#include "collector/control.h"
#include "collector/gc_full.h"
#include "collector/gc_steps.h"
#include "collector/hook.h"
#include "collector/layout.h"
#include "collector/options.h"
#include "collector/segments.h"
#include "collector/stub.h"
#include "collector/text.h"
#include "collector/trace_record.h"
#include "lauxlib.h"

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

/* Whether f is one of the collector's hooks. */
int coll_capture_hook_ours(lua_Alloc f)
{
  return f == coll_hook_main || f == coll_hook_sampled || coll_stub_owns(f);
}

static int hook_install(struct coll_capture *c, lua_State *L, char *err, size_t err_size)
{
  global_State *g = G(L);
  if (c->hooked && c->g == g)
    return 0;
  if (c->hooked) {
    /* Another VM is hooked and idle: give it back its allocator. */
    void *ud;
    if (!coll_capture_hook_ours(lua_getallocf(mainthread(c->g), &ud))) {
      coll_text_error(err, err_size, "%s%s", "the collector is attached to another Lua state",
                        "");
      return -1;
    }
    lua_setallocf(mainthread(c->g), c->orig_allocf, c->orig_ud);
    c->hooked = 0;
  }
  c->orig_allocf = lua_getallocf(L, &c->orig_ud);
  if (coll_capture_hook_ours(c->orig_allocf)) {
    coll_text_error(err, err_size, "%s%s", "the allocator is already hooked", "");
    return -1;
  }
  c->g = g;
  c->gg = G2GG(g);
  lua_setallocf(L, coll_hook_main, c->orig_ud);
  c->hooked = 1;
  return 0;
}

/* Gives the VM its own allocator back unless the signal or the control
 * channel's poll thread needs the hook, or someone else wrapped it (then the
 * hook stays as a pass-through). */
static void hook_release(struct coll_capture *c)
{
  if (!c->hooked || !c->g || c->signo || coll_control_needs_hook())
    return;
  void *ud;
  if (coll_capture_hook_ours(lua_getallocf(mainthread(c->g), &ud))) {
    lua_setallocf(mainthread(c->g), c->orig_allocf, c->orig_ud);
    c->hooked = 0;
  }
}

static void collect(struct coll_capture *c, lua_State *L, enum capture_index_boundary_cause cause);

/* What a capture holds: its buffers, tables and its directory's handle. */
static void free_buffers(struct coll_capture *c)
{
  coll_capture_dir_close(&c->dir);
  if (c->buffer)
    munmap(c->buffer, COLL_CAPTURE_MAP_SIZE);
  c->buffer = NULL;
  coll_addr_map_free(&c->sampled);
  coll_addr_map_free(&c->sym_lua);
  coll_addr_map_free(&c->sym_trace);
  coll_addr_map_free(&c->sym_c);
  coll_cname_free(&c->cnames);
  coll_callstack_free(&c->stacks);
  c->stacks_on = 0;
}

void coll_capture_note(const struct coll_capture *c)
{
  coll_control_note(c->luajit_version, c->active, c->active ? c->dir.path : c->last_dir);
}

/* The work since a candidate was due makes no other due. */
static void schedule_done(struct coll_capture *c)
{
  c->schedule.middle = 0;
  while (c->schedule.next_at && c->schedule.next_at <= c->allocated)
    c->schedule.next_at *= 2;
}

/* The end of a candidate's cycle in steps: what its boundary and snapshot asked for (with no
 * snapshot, the next candidate comes with the work). */
static void candidate_stepped(lua_State *L, int snapshot)
{
  struct coll_capture *c = &coll_capture_state;
  (void)L;
  (void)snapshot;
  if (c->active && !c->busy) {
    c->busy = 1;
    coll_capture_requests(c);
    c->busy = 0;
  }
  schedule_done(c);
}

/* The count hook of a snapshot candidate (coll_boundary_schedule_arm): the interpreter is between two
 * instructions, its state whole. On a large live heap the candidate's full cycle runs in steps
 * (gc_steps.h): the program stands still for the walk at its end, not for the cycle too. It is
 * one stop (as before) on a smaller heap, whose boundary then lies where the candidate fell due
 * (the steps move it later in the program's work, and a short run's verdicts with it), when the
 * program has a debug hook of its own, which the steps' hook would displace, or when a forced
 * cycle is under way, which would run the rest in one step anyway. */
static void safe_point(lua_State *L, lua_Debug *ar)
{
  struct coll_capture *c = &coll_capture_state;
  (void)ar;
  if (!c->g || G(L) != c->g)
    return;
  coll_boundary_schedule_disarm(c);
  if (!c->active || c->busy || !coll_boundary_gc_running(c->g) || coll_boundary_stop_coming(c))
    return;
  c->schedule.middle = 1;
  if (!c->force_armed && !lua_gethook(L) && (uint64_t)c->g->gc.estimate >= COLL_SNAPSHOT_STEP_HEAP &&
      coll_gc_steps_begin(L, COLL_SNAPSHOT_STEP_COUNT, CAPTURE_INDEX_CAUSE_SNAPSHOT, candidate_stepped) == 0)
    return;
  c->snapshot_next = 1;
  collect(c, L, CAPTURE_INDEX_CAUSE_SNAPSHOT);
  schedule_done(c);
}

void coll_capture_requests(struct coll_capture *c)
{
  coll_boundary_schedule_arm(c, safe_point);
  if (c->pending_stop != CAPTURE_INDEX_REASON_NONE)
    coll_capture_stop_due(c);
}

/* A full collection now and its boundary (coll_boundary_collect), then what it asked for. */
static void collect(struct coll_capture *c, lua_State *L, enum capture_index_boundary_cause cause)
{
  coll_gc_steps_cancel(c);   /* this cycle, whole, ends a stepped one */
  if (!coll_boundary_collect(c, L, cause))
    return;
  c->busy = 1;
  coll_capture_requests(c);
  c->busy = 0;
}

void coll_capture_stop(struct coll_capture *c, enum capture_index_stop_reason reason)
{
  if (!c->active)
    return;
  c->active = 0;
  coll_control_deadline_end();
  coll_gc_steps_cancel(c);
  coll_hook_sampled_set(c, 0);
  /* Only the segment's own failed write loses its buffered events; after a snapshot's or the
   * index's, it ends as at any stop, and the reason stays write-error. */
  if (c->writer.failed || c->out.error) {
    reason = CAPTURE_INDEX_REASON_WRITE_ERROR;
    coll_segments_write_error(c, "cannot write", c->out.error);
    coll_seg_out_abandon(&c->out);
    coll_callstack_abandon(&c->stacks);
    c->segment_open = 0;
  } else if (coll_segments_end(c, 0) != 0) {
    reason = CAPTURE_INDEX_REASON_WRITE_ERROR;
  }
  if (reason == CAPTURE_INDEX_REASON_MAX_TOTAL_BYTES)
    fprintf(stderr, "ljleak: capture in %s stopped: it reached --max-total-bytes %llu\n", c->dir.path,
            (unsigned long long)c->opt.max_total_bytes);
  coll_boundary_schedule_stop(c);
  coll_segments_index_close(c, reason);
  c->pending_stop = CAPTURE_INDEX_REASON_NONE;
  coll_boundary_force_disarm(c);
  free_buffers(c);
  coll_text_copy(c->last_dir, sizeof c->last_dir, c->dir.path);
  if (reason != CAPTURE_INDEX_REASON_EXIT)
    hook_release(c);
  coll_capture_note(c);
}

void coll_capture_stop_due(struct coll_capture *c)
{
  enum capture_index_stop_reason reason = (enum capture_index_stop_reason)c->pending_stop;
  int deferrable = reason == CAPTURE_INDEX_REASON_DURATION || reason == CAPTURE_INDEX_REASON_SIGNAL || reason == CAPTURE_INDEX_REASON_STOP;
  if (c->opt.edge_gc && deferrable && c->deferred_stop == CAPTURE_INDEX_REASON_NONE &&
      coll_boundary_force(c, CAPTURE_INDEX_CAUSE_STOP) == 0) {
    c->deferred_stop = reason;
    c->pending_stop = CAPTURE_INDEX_REASON_NONE;
    return;
  }
  coll_capture_stop(c, reason);
}

static void at_exit(void)
{
  struct coll_capture *c = &coll_capture_state;
  if (c->active && !c->busy) {
    c->busy = 1;
    coll_capture_stop(c, CAPTURE_INDEX_REASON_EXIT);
    c->busy = 0;
  }
}

/* A child of fork() shares its parent's open segment and index: it drops the
 * capture without writing a byte (nor at exit), and its allocator calls pass
 * through. It may start a capture of its own. */
static void at_fork_child(void)
{
  struct coll_capture *c = &coll_capture_state;
  coll_control_forget();
  if (!c->active)
    return;
  c->active = 0;
  coll_hook_sampled_set(c, 0);
  c->segment_open = 0;
  c->pending_stop = CAPTURE_INDEX_REASON_NONE;
  coll_seg_out_abandon(&c->out);
  coll_index_drop(&c->index);
  coll_boundary_force_disarm(c);
  free_buffers(c);
  c->busy = 0;
}

void coll_capture_at_fork_and_exit(void)
{
  struct coll_capture *c = &coll_capture_state;
  if (!c->atexit_registered) {
    atexit(at_exit);
    pthread_atfork(NULL, NULL, at_fork_child);
    c->atexit_registered = 1;
  }
}

/* The stream buffer and the symbol tables of a capture that begins (the sampled blocks' table if
 * sampled): 0, or -1 with a message in err and the capture directory closed. */
static int begin_buffers(struct coll_capture *c, int sampled, char *err, size_t err_size)
{
  void *mem = mmap(NULL, COLL_CAPTURE_MAP_SIZE, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED) {
    coll_text_error(err, err_size, "cannot map the capture buffer: %s%s", strerror(errno), "");
    coll_capture_dir_close(&c->dir);
    return -1;
  }
  c->buffer = mem;
  if (coll_addr_map_init(&c->sym_lua, 1024) || coll_addr_map_init(&c->sym_trace, 256) ||
      coll_addr_map_init(&c->sym_c, 256) || (sampled && coll_addr_map_init(&c->sampled, 4096)) ||
      coll_cname_begin(&c->cnames) != 0) {
    free_buffers(c);
    coll_text_error(err, err_size, "cannot map the symbol tables: %s%s", strerror(errno), "");
    return -1;
  }
  return 0;
}

int coll_capture_begin(struct coll_capture *c, const struct ljleak_collector_options *opt, char *err,
                       size_t err_size)
{
  if (c->active) {
    coll_text_error(err, err_size, "a capture is already running in %s%s", c->dir.path, "");
    return -1;
  }
  if (coll_options_check(opt, err, err_size) != 0)
    return -1;
  if (coll_capture_dir_open(&c->dir, opt, err, err_size) != 0)
    return -1;
  c->opt = *opt;
  c->opt.dir = c->dir.path;
  c->opt.root = NULL;
  const char *volume = getenv("LJLEAK_VOLUME_BOUNDARIES");
  c->volume_off = volume && (!strcmp(volume, "0") || !strcmp(volume, "no") ||
                             !strcmp(volume, "off") || !strcmp(volume, "false"));
  c->boundary_allocated = 0;
  if (opt->command)
    coll_text_copy(c->command, sizeof c->command, opt->command);
  else
    read_command(c->command, sizeof c->command);
  c->opt.command = c->command;
  coll_text_copy(c->labels, sizeof c->labels, opt->labels ? opt->labels : "");
  c->opt.labels = c->labels;

  if (begin_buffers(c, opt->sample != 0, err, err_size) != 0)
    return -1;
  if (coll_segments_index_open(c, err, err_size) != 0) {
    free_buffers(c);
    return -1;
  }

  c->seq = 0;
  c->segments = c->events = c->stream_done = c->allocated = 0;
  coll_trace_line_begin(&c->lines);
  c->disk_done = 0;
  c->gc_cycles = 0;
  c->error[0] = '\0';
  c->pending_stop = CAPTURE_INDEX_REASON_NONE;
  c->start_ns = coll_now_mono_ns();
  c->pdep = memprof_cpu_fast_pext();
  c->rng = (c->start_ns ^ ((uint64_t)getpid() << 32) ^ (uint64_t)(uintptr_t)c) | 1;
  c->last_gc_phase = coll_capture_gc_phase(c->g);
  coll_capture_set_fast_phase(c, c->last_gc_phase);
  /* A cycle past its atomic phase has flipped the white already. */
  c->gc_flips = c->g->gc.state >= GCSsweepstring;
  c->force_armed = 0;
  c->collecting = 0;
  c->deferred_stop = CAPTURE_INDEX_REASON_NONE;
  c->boundaries = 0;
  c->snapshots = 0;
  c->snapshot_boundary = 0;
  c->snapshot_next = 0;
  c->every_next = c->opt.every;
  c->last_heap = (uint64_t)c->g->gc.total;
  if (coll_segments_begin(c) != 0) {
    coll_text_copy(err, err_size, c->error);
    coll_seg_out_abandon(&c->out);
    c->segment_open = 0;
    coll_segments_index_close(c, CAPTURE_INDEX_REASON_WRITE_ERROR);
    free_buffers(c);
    return -1;
  }
  /* The Lua names of C functions, now, unless the hook started the capture
   * (a signal, a request): a table may be halfway through a resize there,
   * so the first C function that allocates walks, knowing which. */
  if (!c->busy)
    coll_cname_walk(&c->cnames, c->g);
  c->active = 1;
  coll_hook_sampled_set(c, opt->sample != 0);
  coll_capture_at_fork_and_exit();
  if (opt->duration > 0)
    coll_control_deadline(opt->duration, &coll_capture_signal_pending, &c->fast_phase);
  coll_capture_note(c);
  return 0;
}

/* Checks the layout of L's VM and installs the pass-through hook. */
int coll_capture_attach(lua_State *L, char *err, size_t err_size)
{
  struct coll_capture *c = &coll_capture_state;
  if (c->hooked && c->g == G(L) && c->layout_ok) {
    coll_trace_record_attach(&c->lines, L);   /* again, if another handler took its place */
    return 0;
  }
  if (c->active) {
    coll_text_error(err, err_size, "a capture of another Lua state is running in %s%s", c->dir.path,
                      "");
    return -1;
  }
  char version[64];
  if (coll_layout_verify(L, version, sizeof version, err, err_size) != 0)
    return -1;
  if (hook_install(c, L, err, err_size) != 0)
    return -1;
  coll_text_copy(c->luajit_version, sizeof c->luajit_version, version);
  c->layout_ok = 1;
  coll_trace_record_attach(&c->lines, L);   /* follow the recorder from now on */
  coll_capture_note(c);
  return 0;
}

void coll_capture_release_idle(void)
{
  struct coll_capture *c = &coll_capture_state;
  if (!c->active)
    hook_release(c);
}

int ljleak_collector_start(lua_State *L, const struct ljleak_collector_options *options,
                           char *err, size_t err_size)
{
  return coll_capture_start(L, options, 1, err, err_size);
}

int coll_capture_start(lua_State *L, const struct ljleak_collector_options *options, int edge_now,
                       char *err, size_t err_size)
{
  struct coll_capture *c = &coll_capture_state;
  struct ljleak_collector_options defaults;
  if (!options) {
    ljleak_collector_options_init(&defaults);
    options = &defaults;
  }
  if (c->active) {
    coll_text_error(err, err_size, "a capture is already running in %s%s", c->dir.path, "");
    return -1;
  }
  if (coll_capture_attach(L, err, err_size) != 0)
    return -1;
  /* edge_gc: a full cycle before the first event, so that the capture
   * starts on an exact boundary (its frees are of blocks it never saw). */
  int edge = edge_now && options->edge_gc && coll_boundary_gc_running(G(L));
  if (edge)
    coll_gc_full(L);
  c->busy = 1;
  int rc = coll_capture_begin(c, options, err, err_size);
  if (rc == 0 && edge) {
    coll_boundary_record(c, CAPTURE_INDEX_CAUSE_START);
    coll_boundary_schedule_arm(c, safe_point);
  }
  c->busy = 0;
  if (rc != 0)
    hook_release(c);
  return rc;
}

/* The running capture if it is L's; NULL with err otherwise. */
static struct coll_capture *running_capture(lua_State *L, char *err, size_t err_size)
{
  struct coll_capture *c = &coll_capture_state;
  if (!c->active) {
    /* One that stopped on its own (a write error) says why: the program never asked it to. */
    coll_text_error(err, err_size, c->error[0] ? "no capture is running: it stopped on an error: %s%s"
                                               : "no capture is running%s%s", c->error, "");
    return NULL;
  }
  if (c->g != G(L)) {
    coll_text_error(err, err_size, "%s%s", "the running capture belongs to another Lua state",
                      "");
    return NULL;
  }
  return c;
}

int ljleak_collector_name_function(int (*f)(lua_State *L), const char *name)
{
  return coll_cname_register((uint64_t)(uintptr_t)f, name);
}

int ljleak_collector_boundary(lua_State *L, char *err, size_t err_size)
{
  struct coll_capture *c = running_capture(L, err, err_size);
  if (!c)
    return -1;
  collect(c, L, CAPTURE_INDEX_CAUSE_CALL);
  if (!c->active) {
    coll_text_copy(err, err_size, c->error[0] ? c->error : "the capture stopped");
    return -1;
  }
  return 0;
}

int ljleak_collector_return_boundary(lua_State *L, char *err, size_t err_size)
{
  struct coll_capture *c = &coll_capture_state;
  if (!c->active || c->g != G(L) || !c->opt.edge_gc || !coll_boundary_gc_running(G(L)))
    return 0;  /* no capture of L, or one that forces no cycle at its edges */
  collect(c, L, CAPTURE_INDEX_CAUSE_RETURN);
  if (!c->active) {
    coll_text_copy(err, err_size, c->error[0] ? c->error : "the capture stopped");
    return -1;
  }
  return 0;
}

int ljleak_collector_snapshot(lua_State *L, char *err, size_t err_size)
{
  struct coll_capture *c = running_capture(L, err, err_size);
  if (!c)
    return -1;
  c->snapshot_next = 1;
  collect(c, L, CAPTURE_INDEX_CAUSE_CALL);
  if (coll_boundary_snapshot_owed(c, L) != 0) {
    coll_text_error(err, err_size, "%s%s", "no heap snapshot at this boundary: the program ran on past it", "");
    return -1;
  }
  if (!c->active) {
    coll_text_copy(err, err_size, c->error[0] ? c->error : "the capture stopped");
    return -1;
  }
  return 0;
}

int coll_capture_snapshot_fresh(lua_State *L, char *err, size_t err_size)
{
  struct coll_capture *c = running_capture(L, err, err_size);
  if (!c)
    return -1;
  if (coll_boundary_snapshot_here(c, L) != 0)
    return ljleak_collector_snapshot(L, err, err_size);
  c->busy = 1;
  coll_capture_requests(c);
  c->busy = 0;
  if (!c->active) {
    coll_text_copy(err, err_size, c->error[0] ? c->error : "the capture stopped");
    return -1;
  }
  return 0;
}

int ljleak_collector_snapshot_next(lua_State *L, char *err, size_t err_size)
{
  struct coll_capture *c = running_capture(L, err, err_size);
  if (!c)
    return -1;
  c->snapshot_next = 1;
  return 0;
}

/* The stop a caller asked for, after its closing cycle if any: 0, or -1 with the capture's error. */
static int stop_requested(struct coll_capture *c, char *err, size_t err_size)
{
  c->busy = 1;
  coll_capture_stop(c, CAPTURE_INDEX_REASON_STOP);
  c->busy = 0;
  if (c->error[0]) {
    coll_text_copy(err, err_size, c->error);
    return -1;
  }
  return 0;
}

int ljleak_collector_stop(lua_State *L, char *err, size_t err_size)
{
  struct coll_capture *c = running_capture(L, err, err_size);
  if (!c)
    return -1;
  if (c->opt.edge_gc && coll_boundary_gc_running(G(L)))
    collect(c, L, CAPTURE_INDEX_CAUSE_STOP);
  return stop_requested(c, err, err_size);
}

int coll_capture_stop_fresh(lua_State *L, char *err, size_t err_size)
{
  struct coll_capture *c = running_capture(L, err, err_size);
  if (!c)
    return -1;
  if (!coll_boundary_fresh(c))
    return ljleak_collector_stop(L, err, err_size);
  return stop_requested(c, err, err_size);
}

int ljleak_collector_exit(lua_State *L, char *err, size_t err_size)
{
  struct coll_capture *c = &coll_capture_state;
  if (!c->active || c->g != G(L)) {
    coll_text_copy(err, err_size, c->error[0] ? c->error : "no capture is running");
    return -1;
  }
  if (c->opt.edge_gc && coll_boundary_gc_running(G(L)))
    collect(c, L, CAPTURE_INDEX_CAUSE_EXIT);
  c->busy = 1;
  coll_capture_stop(c, CAPTURE_INDEX_REASON_EXIT);
  c->busy = 0;
  hook_release(c);
  if (c->error[0]) {
    coll_text_copy(err, err_size, c->error);
    return -1;
  }
  return 0;
}

void ljleak_collector_status(struct ljleak_collector_status *st)
{
  const struct coll_capture *c = &coll_capture_state;
  memset(st, 0, sizeof *st);
  st->active = c->active;
  coll_text_copy(st->dir, sizeof st->dir, c->active ? c->dir.path : c->last_dir);
  st->segments = c->segments;
  st->events = c->events + (c->active && c->segment_open ? c->segment_events : 0);
  st->bytes = c->stream_done + (c->active && c->segment_open ? c->writer.bytes_written : 0);
  st->allocated = c->allocated;
  st->direct_hook = c->active && c->direct_hook;
  st->boundaries = c->boundaries;
  st->snapshots = c->snapshots;
  uint64_t seg_events = 0, seg_lines = 0;
  if (c->active && c->segment_open)
    coll_trace_line_segment_counts(&c->lines, &seg_events, &seg_lines);
  st->trace_allocations = c->lines.events + seg_events;
  st->trace_lines = c->lines.lines + seg_lines;
  coll_text_copy(st->error, sizeof st->error, c->error);
}

int coll_capture_control_poll(lua_State *L, const struct ljleak_collector_options *base,
                              const char *base_error)
{
  static struct coll_control_request rq;   /* 4 KiB: not on a coroutine's C stack */
  char err[512];
  rq.opt = *base;
  int taken = coll_control_take(&rq, err, sizeof err);
  if (taken == 0)
    return 0;
  if (taken < 0 || base_error) {
    coll_control_answer(rq.id, taken < 0 ? err : base_error);
    return 1;
  }
  int rc;
  if (!strcmp(rq.action, "start"))
    rc = ljleak_collector_start(L, &rq.opt, err, sizeof err);
  else
    rc = ljleak_collector_stop(L, err, sizeof err);
  coll_control_answer(rq.id, rc == 0 ? NULL : err);
  return 1;
}

void coll_capture_control_from_hook(struct coll_capture *c)
{
  static struct coll_control_request rq;
  char err[512], env_err[512];
  int env_bad = coll_options_from_env(&rq.opt, coll_options_process_env, NULL, env_err, sizeof env_err) != 0;
  int taken = coll_control_take(&rq, err, sizeof err);
  if (taken == 0)
    return;
  if (taken < 0 || env_bad) {
    coll_control_answer(rq.id, taken < 0 ? err : env_err);
    return;
  }
  if (!c->layout_ok) {
    coll_control_answer(rq.id, "the collector is not attached to a Lua state that passed the layout check");
    return;
  }
  if (!strcmp(rq.action, "start")) {
    if (coll_capture_begin(c, &rq.opt, err, sizeof err) != 0) {
      coll_control_answer(rq.id, err);
      return;
    }
    if (rq.opt.edge_gc)
      coll_boundary_force(c, CAPTURE_INDEX_CAUSE_START);  /* at the next GC check, not from the hook */
    coll_control_answer(rq.id, NULL);
    return;
  }
  if (!c->active) {
    coll_control_answer(rq.id, "no capture is running");
    return;
  }
  coll_control_answer(rq.id, NULL);   /* the stop line follows, at once or after the last cycle */
  c->pending_stop = CAPTURE_INDEX_REASON_STOP;
  coll_capture_stop_due(c);
}
