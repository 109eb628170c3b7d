/* collector/capture.h: a capture's start and stop, fork and exit, installing the hook, acting on control requests and on what the sequencer asks for. */
#ifndef LJLEAK_COLLECTOR_CAPTURE_H
#define LJLEAK_COLLECTOR_CAPTURE_H

#include "collector/state.h"

/* Ends the running capture: the last segment and the stop line, then the
 * hook is released unless the VM is closing. */
void coll_capture_stop(struct coll_capture *c, enum capture_index_stop_reason reason);

/* A stop came due inside the hook (pending_stop): with edge_gc, a stop by
 * duration or signal waits for one more full cycle, forced now, so that the
 * capture ends on a boundary; anything else stops at once. */
void coll_capture_stop_due(struct coll_capture *c);

/* Starts a capture of the hooked VM with opt. 0, or -1 with err. */
int coll_capture_begin(struct coll_capture *c, const struct ljleak_collector_options *opt, char *err,
                       size_t err_size);

/* Checks the layout of L's VM and installs the pass-through hook (once per
 * VM). 0, or -1 with err. */
int coll_capture_attach(lua_State *L, char *err, size_t err_size);

/* Gives the VM its allocator back while no capture runs, unless the signal
 * or the poll thread needs the hook (collector.nginx(): its timer does not). */
void coll_capture_release_idle(void);

/* ljleak_collector_start, with edge_now 0: no full cycle at the start even with edge_gc (the caller
 * runs one itself, in steps: attach.c), so the first boundary is the caller's. 0, or -1 with err. */
int coll_capture_start(lua_State *L, const struct ljleak_collector_options *options, int edge_now,
                       char *err, size_t err_size);

/* ljleak attach --snapshot (attach.c): a heap snapshot at the last boundary when nothing has
 * happened since (coll_boundary_fresh: right after the start's full cycle), else after a full
 * cycle of its own (ljleak_collector_snapshot). 0, or -1 with err. */
int coll_capture_snapshot_fresh(lua_State *L, char *err, size_t err_size);

/* Stops the capture without its closing full cycle when nothing has happened since the last
 * boundary (the segment already ends right after a full cycle), else as ljleak_collector_stop.
 * 0, or -1 with err. */
int coll_capture_stop_fresh(lua_State *L, char *err, size_t err_size);

/* Registers, once, the atexit handler that finishes a capture and the fork
 * handler that drops it in the child (and the control registration). */
void coll_capture_at_fork_and_exit(void);

/* The hook the VM calls while no sampled capture runs (coll_hook_main), or while
 * sampling (the stub or coll_hook_sampled): whether f is one of them. */
int coll_capture_hook_ours(lua_Alloc f);

/* What the sequencer asked for (boundary.h): the safe point of a snapshot candidate armed, a
 * stop that came due taken (coll_capture_stop_due). After a boundary, from the hook or a collection. */
void coll_capture_requests(struct coll_capture *c);

/* Takes the waiting control request and acts on it from a C function of L's VM (the host's
 * timer): base holds the options of a start request before the request's own; base_error, if
 * not NULL, why they cannot be honoured (the request is refused with it). Answers in the
 * registration. 1 if a request was taken. */
int coll_capture_control_poll(lua_State *L, const struct ljleak_collector_options *base,
                              const char *base_error);

/* The same from the allocator hook (COLL_CAPTURE_PENDING_CONTROL), where no Lua may run: the base
 * options are ljleak_collector_options_init's. */
void coll_capture_control_from_hook(struct coll_capture *c);

/* The registration (control.h) told the capture's state. */
void coll_capture_note(const struct coll_capture *c);

#endif
