/* collector/attach.c: ljleak attach's way into a running process (docs/attach.md): what runs at the debugger's stop finds the Lua state and arms a count hook; the capture starts at the hook, between two instructions of the VM. */
#include "collector/ljleak_collector.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector/boundary.h"
#include "collector/capture.h"
#include "collector/control.h"
#include "collector/gc_steps.h"
#include "collector/lj_private.h"
#include "collector/maps.h"
#include "collector/options.h"
#include "collector/text.h"
#include "format/control_file.h"

/* One attach at a time. armed is taken by exactly one of the hook and the cancel (an atomic
 * exchange): the process is stopped at any instruction when the cancel runs. */
static struct {
  int armed;                                   /* the count hook is set and has not run */
  global_State *g;                             /* the state it was set on */
  char request[CONTROL_FILE_REQUEST_MAX + 1];  /* the start request, copied at the stop */
  char message[512];                           /* why the last step failed, for the front end */
  const char *run_dir;                         /* the request's run_dir: where to register (the
                                                  front end read it from the process's start
                                                  environment; a host such as nginx may have
                                                  changed its own since) */
  int snapshot_now;                            /* the request's snapshot_now: one heap snapshot at
                                                  once, and the capture ends there unless it has a
                                                  duration */
  const char *answer_id;                       /* the request's id, for the answer */
} attach;

/* Whether gg is a GG_State of this build's layout: the main thread and the global state of one
 * block point at each other, and what they hold is in range. */
static int gg_state_valid(const GG_State *gg)
{
  const global_State *g = &gg->g;
  const lua_State *L = &gg->L;
  return mref(L->glref, global_State) == g && gcref(g->mainthref) == obj2gco(L) &&
         L->gct == ~LJ_TTHREAD && g->gc.state <= GCSfinalize && g->allocf != NULL &&
         ((g->str.mask + 1) & g->str.mask) == 0 && g->str.mask != 0 &&
         mref(L->stack, TValue) != NULL && L->stacksize != 0;
}

/* Scans the process's private writable memory for GG_States: the main thread's glref points at
 * the global state GG_OFS(g) bytes past it. Up to max of them into found; how many there are. */
static size_t find_states(GG_State **found, size_t max)
{
  struct coll_maps maps;
  if (coll_maps_open(&maps, 0) != 0)
    return 0;
  size_t count = 0;
  const size_t glref = offsetof(GG_State, L) + offsetof(lua_State, glref);
  uintptr_t from, to;
  while (coll_maps_next_heap(&maps, &from, &to)) {
    if (to - from < sizeof(GG_State))
      continue;
    /* The word at glref of a candidate names the candidate's own g: one comparison a word. */
    for (uintptr_t at = from; at + sizeof(GG_State) <= to; at += sizeof(uint64_t)) {
      uint64_t word = *(const uint64_t *)(at + glref);
      if (word != (uint64_t)(at + (uintptr_t)GG_OFS(g)) || !gg_state_valid((const GG_State *)at))
        continue;
      if (count < max)
        found[count] = (GG_State *)at;
      count++;
    }
  }
  coll_maps_close(&maps);
  return count;
}

/* The GG_State whose global state is at g_address, when one of this build's layout is there and
 * all of it in one private writable mapping (what the scan would find there); else NULL. Reads
 * no memory outside such a mapping, so an address from anywhere is safe. */
static GG_State *state_at(uintptr_t g_address)
{
  if (g_address < (uintptr_t)GG_OFS(g) || g_address % sizeof(uint64_t))
    return NULL;
  uintptr_t at = g_address - (uintptr_t)GG_OFS(g), from, to;
  struct coll_maps maps;
  if (coll_maps_open(&maps, 0) != 0)
    return NULL;
  int inside = 0;
  while (!inside && coll_maps_next_heap(&maps, &from, &to))
    inside = at >= from && at <= to && to - at >= sizeof(GG_State);
  coll_maps_close(&maps);
  return inside && gg_state_valid((const GG_State *)at) ? (GG_State *)at : NULL;
}

/* The message of the step that failed (coll_text_error's two strings): -1. */
static int fail(const char *format, const char *a, const char *b)
{
  coll_text_error(attach.message, sizeof attach.message, format, a, b);
  return -1;
}

/* The state named by address (its global state's, in hexadecimal, as the messages print it), or
 * the one state found; NULL with the message. "~ADDR" is the front end's candidate, found from
 * outside the process before the stop (coll_state_scan): taken when it holds a state of this
 * build's layout, else the scan decides. Only the scan reads all the process's memory (tens of
 * ms for a heap of a few hundred MB, with the process stopped). */
static GG_State *choose_state(const char *address)
{
  int candidate = address && *address == '~';
  char *end = NULL;
  unsigned long long want = address && *address ? strtoull(address + candidate, &end, 16) : 0;
  GG_State *gg = end && end != address + candidate && *end == '\0' ? state_at((uintptr_t)want) : NULL;
  if (gg)
    return gg;
  GG_State *found[8];
  size_t count = find_states(found, sizeof found / sizeof found[0]);
  char list[256] = "", item[32];
  for (size_t i = 0; i < count && i < sizeof found / sizeof found[0]; i++) {
    snprintf(item, sizeof item, "%s%#lx", i ? " " : "", (unsigned long)(uintptr_t)&found[i]->g);
    strncat(list, item, sizeof list - strlen(list) - 1);
  }
  if (address && *address && !candidate) {
    fail("no Lua state at %s (this process has: %s)", address, count ? list : "none");
    return NULL;
  }
  if (count == 0) {
    fail("no Lua state of %s's layout in this process: no LuaJIT, or not the one this build "
         "was made for%s", LUAJIT_VERSION, "");
    return NULL;
  }
  if (count > 1) {
    fail("more than one Lua state in this process (their global states: %s): name one with "
         "--state ADDR%s", list, "");
    return NULL;
  }
  return found[0];
}

/* The options of the request: the defaults of the collector without the process's LJLEAK_*
 * variables (the request says all), then its lines; dir is taken too (ljleak attach -o). */
static const char *no_variable(void *ctx, const char *name)
{
  (void)ctx;
  (void)name;
  return NULL;
}

static int request_line(void *context, const char *key, char *value, char *message, size_t size)
{
  struct ljleak_collector_options *o = context;
  const struct coll_options_field *f = coll_options_field(key);
  int rc;
  if (!strcmp(key, "root") || !strcmp(key, "dir")) {
    rc = value[0] == '/' ? 0 : -1;
    if (rc == 0)
      *(!strcmp(key, "dir") ? &o->dir : &o->root) = value;
    else
      coll_text_error(message, size, "%s must be absolute in the request: '%s'", key, value);
    return rc;
  }
  if (!strcmp(key, "run_dir"))
    return attach.run_dir = value, 0;
  if (!strcmp(key, "snapshot_now"))
    rc = coll_options_parse_bool(value, &attach.snapshot_now);
  else if (f)
    rc = coll_options_parse_field(f, value, o);
  else
    return coll_text_error(message, size, "unknown option '%s' in the request%s", key, ""), -1;
  if (rc != 0)
    coll_text_error(message, size, "bad value '%s' for %s in the request", value, key);
  return rc;
}

/* The end of the snapshot's cycle in steps (ljleak attach --snapshot alone): the stop without
 * another cycle, and the answer. */
static void snapshot_stepped(lua_State *L, int snapshot)
{
  struct coll_capture *c = &coll_capture_state;
  char err[512] = "";
  int rc = snapshot ? 0 : -1;
  if (c->active && !c->busy) {
    c->busy = 1;
    coll_capture_requests(c);
    c->busy = 0;
  }
  if (!c->active) {
    rc = -1;
    coll_text_copy(err, sizeof err, c->error[0] ? c->error : "the capture stopped");
  } else if (rc == 0) {
    rc = coll_capture_stop_fresh(L, err, sizeof err);
  } else {
    /* The program stopped its GC or set a debug hook of its own, or a stop came: no snapshot,
     * and the capture ends at its next event, as a stop asked for. */
    coll_text_copy(err, sizeof err, "the program stopped its GC or set a debug hook of its own, "
                   "or the capture was asked to stop, before the snapshot's cycle ended: no snapshot");
    if (c->pending_stop == CAPTURE_INDEX_REASON_NONE)
      c->pending_stop = CAPTURE_INDEX_REASON_STOP;
  }
  if (rc != 0)
    fail("%s%s", err, "");
  coll_control_answer(attach.answer_id, rc == 0 ? NULL : err);
}

/* At the hook: registers the process in its run directory (the answer goes there), then starts
 * the capture the request asked for. */
static void start_requested(lua_State *L)
{
  static struct control_file_request request;
  static struct format_error error;   /* its message: not on a coroutine's C stack */
  struct ljleak_collector_options opt;
  char err[512], run_dir[PATH_MAX];
  coll_options_from_env(&opt, no_variable, NULL, NULL, 0);
  attach.snapshot_now = 0;
  attach.run_dir = NULL;
  if (control_file_parse_request(attach.request, &request, request_line, &opt, &error) !=
      FORMAT_OK) {
    fail("%s%s", error.message, "");
    return;
  }
  if (coll_control_run_dir(attach.run_dir ? attach.run_dir : getenv("LJLEAK_RUN_DIR"), run_dir, sizeof run_dir, err, sizeof err) != 0 ||
      coll_control_register(run_dir, opt.root, COLL_CONTROL_POLL_ATTACH, &coll_capture_signal_pending,
                            &coll_capture_state.fast_phase, err, sizeof err) != 0) {
    fail("%s%s", err, "");
    return;
  }
  coll_capture_at_fork_and_exit();
  /* Traces compiled before the collector came have no map of their lines: compiled again, with
   * the recorder followed from the start on, their allocations are charged to their lines. */
  luaJIT_setmode(L, 0, LUAJIT_MODE_ENGINE | LUAJIT_MODE_FLUSH);
  /* The snapshot alone, nothing that forces cycles of its own: its cycle in steps (gc_steps.h),
   * none longer than a few ms, instead of one cycle that stops the process for all of it. */
  int stepped = attach.snapshot_now && opt.duration == 0 && opt.edge_gc && !opt.every &&
                !opt.snapshots && !opt.force_gc && coll_boundary_gc_running(G(L));
  int rc = coll_capture_start(L, &opt, !stepped, err, sizeof err);
  /* A count hook at every instruction: a worker that runs little Lua still steps. */
  attach.answer_id = request.id;
  if (rc == 0 && stepped && coll_gc_steps_begin(L, 1, CAPTURE_INDEX_CAUSE_CALL, snapshot_stepped) == 0)
    return;   /* answered at the end of the cycle (snapshot_stepped) */
  if (rc == 0 && attach.snapshot_now) {
    /* Nothing runs between the start's full cycle and the snapshot, nor between the snapshot and
     * the stop: the one cycle serves all three (each was a stop-the-world cycle of its own). */
    rc = coll_capture_snapshot_fresh(L, err, sizeof err);
    if (rc == 0 && opt.duration == 0)
      rc = coll_capture_stop_fresh(L, err, sizeof err);
  }
  if (rc != 0)
    fail("%s%s", err, "");
  coll_control_answer(request.id, rc == 0 ? NULL : err);
}

/* The count hook: the interpreter is between two instructions. It runs once. */
static void at_safe_point(lua_State *L, lua_Debug *ar)
{
  (void)ar;
  /* The trace recorder runs (a trace stitched after a C call goes on in the interpreter): the
   * flush of start_requested under it freed the traces it was linking to, and the process died.
   * The hook stays armed: a recording ends within a trace's length, and the first instruction
   * after it is the safe point. */
  if (G(L) != attach.g || G2J(G(L))->state != LJ_TRACE_IDLE ||
      !__atomic_exchange_n(&attach.armed, 0, __ATOMIC_SEQ_CST))
    return;
  lua_sethook(L, NULL, 0, 0);
  start_requested(L);
}

/* Step "attach": the state, the checks, the hook armed (ljleak_collector.h). */
static int attach_arm(const char *request, const char *state)
{
  attach.message[0] = '\0';
  if (__atomic_load_n(&attach.armed, __ATOMIC_SEQ_CST))
    return fail("an earlier attach still waits for its safe point%s%s", "", "");
  if (!request || strlen(request) > CONTROL_FILE_REQUEST_MAX)
    return fail("the request is missing or too long%s%s", "", "");
  GG_State *gg = choose_state(state);
  if (!gg)
    return -1;
  global_State *g = &gg->g;
  if (g->hookf && (g->hookmask & (LUA_MASKCALL | LUA_MASKRET | LUA_MASKLINE | LUA_MASKCOUNT)))
    return fail("the process has a debug hook of its own (a debugger or a profiler in Lua): "
                "attaching would replace it%s%s", "", "");
  if (coll_capture_state.active || coll_gc_steps_running())
    return fail("a capture is already running in %s%s", coll_capture_state.dir.path, "");
  memcpy(attach.request, request, strlen(request) + 1);
  attach.g = g;
  /* What the front end says it found, and what a check after the capture compares with. */
  snprintf(attach.message, sizeof attach.message, "global state %#lx, allocator %#lx",
           (unsigned long)(uintptr_t)g, (unsigned long)(uintptr_t)g->allocf);
  __atomic_store_n(&attach.armed, 1, __ATOMIC_SEQ_CST);
  /* As LuaJIT's own interrupt handler (luajit.c) does from a signal handler. */
  lua_sethook(&gg->L, at_safe_point, LUA_MASKCOUNT, 1);
  return 0;
}

/* Step "cancel": 1 when it disarmed the hook, 0 when the hook ran or none was set. */
static int attach_cancel(void)
{
  if (coll_gc_steps_running()) {
    /* The capture runs: its cycle ends at the next Lua instruction, with the snapshot. */
    fail("the capture started; its snapshot is taken at the process's next Lua instruction, "
         "where the rest of its full cycle runs in one go%s%s", "", "");
    return 0;
  }
  if (!__atomic_exchange_n(&attach.armed, 0, __ATOMIC_SEQ_CST))
    return 0;
  lua_sethook(mainthread(attach.g), NULL, 0, 0);
  return 1;
}

/* Step "poll": the running capture takes the request waiting in its run directory. */
static void attach_poll(void)
{
  __atomic_fetch_or(&coll_capture_signal_pending, COLL_CAPTURE_PENDING_CONTROL, __ATOMIC_SEQ_CST);
  __atomic_store_n(&coll_capture_state.fast_phase, -1, __ATOMIC_RELAXED);
}

int ljleak_collector_attach_step(const char *step, const char *request, const char *state,
                                 char *message, size_t size)
{
  int rc;
  if (!step)
    rc = fail("no step named%s%s", "", "");
  else if (!strcmp(step, "attach"))
    rc = attach_arm(request, state);
  else if (!strcmp(step, "cancel"))
    rc = attach_cancel();
  else if (!strcmp(step, "poll")) {
    attach_poll();
    rc = 0;
  } else
    rc = fail("no step %s%s", step, "");
  if (message && size)
    snprintf(message, size, "%s", attach.message);
  return rc;
}
