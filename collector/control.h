/* collector/control.h: the control channel (docs/collector.md, "Control"): the registration file that names this process's collector, the requests ci/capture writes beside it, and who takes them. */
#ifndef LJLEAK_COLLECTOR_CONTROL_H
#define LJLEAK_COLLECTOR_CONTROL_H

#include "collector/capture.h"

/* The bits of capture_signal_pending: why the hook's slow path is wanted. */
#define CAPTURE_PENDING_SIGNAL 1   /* the start/stop signal came */
#define CAPTURE_PENDING_CONTROL 2  /* a request file is waiting (the poll thread saw it) */

/* Who takes requests: a thread that only sets CAPTURE_PENDING_CONTROL for
 * the allocator hook (a plain program), or a timer of the host that calls
 * control_poll (nginx: ngx.timer.every). */
enum control_poller { CONTROL_POLL_THREAD, CONTROL_POLL_TIMER };

/* The registration directory's name: LJLEAK_RUN_DIR, else /tmp/ljleak-<euid>
 * (-1 if too long). */
int control_run_dir(const char *configured, char *out, size_t out_size, char *err,
                    size_t err_size);

/* Registers this process in run_dir (the file <run_dir>/<pid>), with root
 * the directory its captures go to by default (made absolute) and the
 * poller named. The directory is created 0700 if missing and held open:
 * refused if it is a link, or another user's, or others may write it (the
 * message names its owner and the remedy). Removed at exit. 0, or -1 with
 * err. Registering again (a second call) rewrites the file. */
int control_register(const char *run_dir, const char *root, enum control_poller poller,
                     char *err, size_t err_size);

/* Whether the allocator hook must stay between captures to take requests
 * (registered with the poll thread; a timer polls without it). */
int control_needs_hook(void);

/* Records an error in the registration (a layout check that failed, an
 * option that could not be honoured), so that ci/capture prints it. */
void control_set_error(const char *message);

/* Whether a request file is waiting (one access()). */
int control_request_waiting(void);

/* Takes the waiting request and acts on it from a C function of L's VM
 * (the host's timer): base holds the options of a start request before the
 * request's own; base_error, if not NULL, why they cannot be honoured (the
 * request is refused with it). Answers in the registration. 1 if a
 * request was taken. */
int control_poll(struct lua_State *L, const struct ljleak_collector_options *base,
                 const char *base_error);

/* The same from the allocator hook (CAPTURE_PENDING_CONTROL), where no Lua
 * may run: the base options are ljleak_collector_options_init's. */
void control_poll_from_hook(struct capture *c);

/* The capture started or stopped: the registration says so. Safe in the hook. */
void control_note(const struct capture *c);

/* The worker is exiting (nginx's premature timer): the registration says
 * so. */
void control_note_exiting(void);

/* In a child of fork(): not registered (the file names the parent). */
void control_forget(void);

#endif
