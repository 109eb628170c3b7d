/* collector/control.h: the control channel (docs/collector.md, "Control"): the registration file that names this process's collector, the requests ci/capture writes beside it, and who takes them. */
#ifndef LJLEAK_COLLECTOR_CONTROL_H
#define LJLEAK_COLLECTOR_CONTROL_H

#include <signal.h>

#include "collector/ljleak_collector.h"
#include "format/control_file.h"

/* The bits of coll_capture_signal_pending (state.h): why the hook's slow path is wanted. */
#define COLL_CAPTURE_PENDING_SIGNAL 1   /* the start/stop signal came */
#define COLL_CAPTURE_PENDING_CONTROL 2  /* a request file is waiting (the poll thread saw it) */
#define COLL_CAPTURE_PENDING_TIMER 4    /* a capture's --duration passed (the deadline thread) */

/* Who takes requests: a thread that only sets COLL_CAPTURE_PENDING_CONTROL for
 * the allocator hook (a plain program), or a timer of the host that calls
 * coll_capture_control_poll (nginx: ngx.timer.every). */
enum coll_control_poller { COLL_CONTROL_POLL_THREAD, COLL_CONTROL_POLL_TIMER,
                           COLL_CONTROL_POLL_ATTACH /* ljleak attach asks through the debugger */ };

/* The registration directory's name: LJLEAK_RUN_DIR, else /tmp/ljleak-<euid>
 * (-1 if too long). */
int coll_control_run_dir(const char *configured, char *out, size_t out_size, char *err,
                         size_t err_size);

/* Registers this process in run_dir (the file <run_dir>/<pid>), with root
 * the directory its captures go to by default (made absolute) and the
 * poller named. The directory is created 0700 if missing and held open:
 * refused if it is a link, or another user's, or others may write it (the
 * message names its owner and the remedy). Removed at exit. 0, or -1 with
 * err. Registering again (a second call) rewrites the file. The poll thread asks the hook for
 * a request's turn through wake and mark (the capture's): COLL_CAPTURE_PENDING_CONTROL in the one,
 * -1 in the other; it touches nothing else. */
int coll_control_register(const char *run_dir, const char *root, enum coll_control_poller poller,
                          volatile sig_atomic_t *wake, volatile sig_atomic_t *mark, char *err,
                          size_t err_size);

/* Whether the allocator hook must stay between captures to take requests
 * (registered with the poll thread; a timer polls without it). */
int coll_control_needs_hook(void);

/* Records an error in the registration (a layout check that failed, an
 * option that could not be honoured), so that ci/capture prints it. */
void coll_control_set_error(const char *message);

/* Whether a request file is waiting (one access()). */
int coll_control_request_waiting(void);

/* A request: an action and the options it sets (dir and root point into text). */
struct coll_control_request {
  char text[CONTROL_FILE_REQUEST_MAX + 1];
  const char *id;
  const char *action;
  struct ljleak_collector_options opt;
};

/* Reads and removes the request file, and parses it over rq->opt (which holds the base options).
 * 1 taken, 0 none; -1 with err: a bad request (its id, if it had one, is in rq->id). Who acts on
 * it is the capture's business (capture.h): the channel only carries it. */
int coll_control_take(struct coll_control_request *rq, char *err, size_t err_size);

/* Answers the request id in the registration: ok, or the error err. */
void coll_control_answer(const char *id, const char *err);

/* The capture started or stopped, or the collector attached to a VM: the registration says so
 * (the LuaJIT, whether a capture runs, the running or the last capture's directory). Safe in the
 * hook. */
void coll_control_note(const char *luajit, int active, const char *dir);

/* The worker is exiting (nginx's premature timer): the registration says
 * so. */
void coll_control_note_exiting(void);

/* In a child of fork(): not registered (the file names the parent). */
void coll_control_forget(void);

/* A capture's --duration: a thread that, once seconds have passed, sets
 * COLL_CAPTURE_PENDING_TIMER in wake and -1 in mark every 100 ms until
 * coll_control_deadline_end, so that the hook's next slow call runs the timers: a process that
 * allocates little stopped only when its stream reached the timers' next tick (10 s past a
 * --duration of 3). Nothing when the thread cannot start: the ticks still end the capture. */
void coll_control_deadline(double seconds, volatile sig_atomic_t *wake, volatile sig_atomic_t *mark);
/* The capture stopped: its deadline thread ends. */
void coll_control_deadline_end(void);

#endif
