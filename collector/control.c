/* collector/control.c: the control channel: the registration file, the request file ci/capture writes, the poll thread, and acting on a request. */
#include "collector/control.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "collector/boundary.h"
#include "collector/options.h"
#include "format/control_file.h"

#define CONTROL_POLL_NS 500000000L /* the poll thread's period: a request waits at most this */

/* The registration of this process. One per process, like capture_state;
 * the poll thread reads only request_path, set before it starts. */
static struct control {
  int registered;
  pid_t pid;                      /* the process that registered (a child of fork() is not it) */
  enum control_poller poller;
  int thread_started;
  int atexit_registered;
  int exiting;
  unsigned long long started;     /* control_file_process_started */
  char path[PATH_MAX];            /* <run_dir>/<pid> */
  char request_path[PATH_MAX];    /* <run_dir>/<pid>.request */
  char root[PATH_MAX];            /* where captures go by default */
  char exe[PATH_MAX];
  char request_id[128];           /* the last request taken */
  char result[16];                /* "ok" or "error" for it */
  char error[512];                /* why it failed, or why the collector cannot capture */
} control;

/* A request: an action and the options it sets (dir and root point into text). */
struct control_request {
  char text[CONTROL_FILE_REQUEST_MAX + 1];
  const char *id;
  const char *action;
  struct ljleak_collector_options opt;
};

int control_run_dir(const char *configured, char *out, size_t out_size, char *err,
                    size_t err_size)
{
  int n;
  if (configured && *configured)
    n = snprintf(out, out_size, "%s", configured);
  else
    n = snprintf(out, out_size, "/tmp/ljleak-%u", (unsigned)geteuid());
  if (n < 0 || (size_t)n >= out_size) {
    capture_set_error(err, err_size, "%s%s", "the registration directory's name is too long", "");
    return -1;
  }
  if (mkdir(out, 0700) != 0 && errno != EEXIST) {
    capture_set_error(err, err_size, "cannot create the registration directory %s: %s", out,
                      strerror(errno));
    return -1;
  }
  /* Someone else's directory (made first in /tmp) could feed us requests. */
  struct stat st;
  if (lstat(out, &st) != 0 || !S_ISDIR(st.st_mode)) {
    capture_set_error(err, err_size, "the registration directory %s is not a directory%s", out,
                      "");
    return -1;
  }
  if (st.st_uid != geteuid() || (st.st_mode & 022)) {
    capture_set_error(err, err_size,
                      "the registration directory %s belongs to another user or is writable by "
                      "others%s", out, "");
    return -1;
  }
  return 0;
}


/* Rewrites the registration file whole (a temporary file, then rename), so
 * that a reader never sees half of it. Its text is built on the stack: it is
 * written from the hook too, which takes no memory but its own mmap'd buffers. */
static void write_registration(const struct capture *c)
{
  if (!control.registered || control.pid != getpid())
    return;
  char tmp[PATH_MAX + 8];
  snprintf(tmp, sizeof tmp, "%s.tmp", control.path);
  int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0)
    return;
  struct control_file_registration r;
  memset(&r, 0, sizeof r);
  r.pid = (long)getpid();
  r.ppid = (long)getppid();
  r.uid = (unsigned)geteuid();
  r.started = control.started;
  r.exe = control.exe;
  r.luajit = c->luajit_version;
  r.poll = control.poller == CONTROL_POLL_TIMER ? "timer" : "thread";
  r.request_file = control.request_path;
  r.root = control.root;
  r.state = control.exiting ? "exiting" : c->active ? "capturing" : "idle";
  r.dir = c->active ? c->dir : c->last_dir;
  r.request = control.request_id;
  r.result = control.result;
  r.error = control.error;
  char text[CONTROL_FILE_REGISTRATION_SIZE];
  size_t used = control_file_write_registration(text, sizeof text, &r);
  ssize_t written = write(fd, text, used);
  if (close(fd) != 0 || written != (ssize_t)used || rename(tmp, control.path) != 0)
    unlink(tmp);
}

static void at_exit_unregister(void)
{
  if (control.registered && control.pid == getpid()) {
    unlink(control.path);
    unlink(control.request_path);
    control.registered = 0;   /* a capture finished after this must not write it again */
  }
}

/* Sets the flag the hook's slow path reads, and marks the GC phase its fast
 * paths compare with (as the signal handler does). Nothing else: the VM
 * belongs to its own thread. */
static void *poll_thread(void *unused)
{
  (void)unused;
  for (;;) {
    struct timespec ts = {0, CONTROL_POLL_NS};
    nanosleep(&ts, NULL);
    if (access(control.request_path, F_OK) == 0) {
      __atomic_fetch_or(&capture_signal_pending, CAPTURE_PENDING_CONTROL, __ATOMIC_SEQ_CST);
      __atomic_store_n(&capture_state.fast_phase, -1, __ATOMIC_RELAXED);
    }
  }
  return NULL;
}

static int start_thread(char *err, size_t err_size)
{
  /* Signals go to the program's own threads, never to this one. */
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  pthread_t thread;
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  pthread_attr_setstacksize(&attr, 64 * 1024);
  int rc = pthread_create(&thread, &attr, poll_thread, NULL);
  pthread_attr_destroy(&attr);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  if (rc != 0) {
    capture_set_error(err, err_size, "cannot start the control thread: %s%s", strerror(rc), "");
    return -1;
  }
  control.thread_started = 1;
  return 0;
}

/* Removes the registrations (and requests) of processes that are gone
 * without their exit handler (killed): pid files of this user's own
 * directory whose process does not exist. */
static void prune_stale(const char *run_dir)
{
  DIR *d = opendir(run_dir);
  if (!d)
    return;
  struct dirent *e;
  while ((e = readdir(d))) {
    char *end;
    long pid = strtol(e->d_name, &end, 10);
    if (pid <= 0 || end == e->d_name || (*end && strcmp(end, ".request")))
      continue;
    char proc[64], path[PATH_MAX + 300];
    snprintf(proc, sizeof proc, "/proc/%ld", pid);
    if (access(proc, F_OK) == 0 || errno != ENOENT)
      continue;
    snprintf(path, sizeof path, "%s/%s", run_dir, e->d_name);
    unlink(path);
  }
  closedir(d);
}

int control_register(const char *run_dir, const char *root, enum control_poller poller, char *err,
                     size_t err_size)
{
  if (control.registered && control.pid == getpid()) {
    write_registration(&capture_state);
    return 0;
  }
  char cwd[PATH_MAX];
  if (!root || !*root)
    root = ".";
  if (root[0] != '/' && getcwd(cwd, sizeof cwd)) {
    char full[2 * PATH_MAX + 2];
    snprintf(full, sizeof full, "%s/%s", cwd, root);
    capture_copy_text(control.root, sizeof control.root, strcmp(root, ".") ? full : cwd);
  } else {
    capture_copy_text(control.root, sizeof control.root, root);
  }
  ssize_t n = readlink("/proc/self/exe", control.exe, sizeof control.exe - 1);
  control.exe[n > 0 ? n : 0] = '\0';
  snprintf(control.path, sizeof control.path, "%s/%ld", run_dir, (long)getpid());
  snprintf(control.request_path, sizeof control.request_path, "%s/%ld.request", run_dir,
           (long)getpid());
  control.pid = getpid();
  if (control_file_process_started(0, &control.started) != 0)
    control.started = 0;
  control.poller = poller;
  control.exiting = 0;
  control.request_id[0] = control.result[0] = '\0';
  unlink(control.request_path);   /* one left by an earlier process with this pid */
  prune_stale(run_dir);
  control.registered = 1;
  if (!control.atexit_registered) {
    atexit(at_exit_unregister);
    control.atexit_registered = 1;
  }
  write_registration(&capture_state);
  if (access(control.path, F_OK) != 0) {
    capture_set_error(err, err_size, "cannot write the registration %s: %s", control.path,
                      strerror(errno));
    control.registered = 0;
    return -1;
  }
  if (poller == CONTROL_POLL_THREAD && !control.thread_started &&
      start_thread(err, err_size) != 0)
    return -1;
  return 0;
}

/* Whether this process is registered (not in a child of fork()). */
static int control_registered(void)
{
  return control.registered && control.pid == getpid();
}

int control_needs_hook(void)
{
  return control_registered() && control.poller == CONTROL_POLL_THREAD;
}

void control_set_error(const char *message)
{
  capture_copy_text(control.error, sizeof control.error, message);
  write_registration(&capture_state);
}

int control_request_waiting(void)
{
  return control_registered() && access(control.request_path, F_OK) == 0;
}

void control_note(const struct capture *c)
{
  write_registration(c);
}

void control_note_exiting(void)
{
  control.exiting = 1;
  write_registration(&capture_state);
}

void control_forget(void)
{
  control.registered = 0;
  control.thread_started = 0;
}

/* One option of a request: 0, or -1 if the value is bad. */
static int request_option(struct ljleak_collector_options *o, const char *key, char *value)
{
  if (!strcmp(key, "root"))
    return o->root = value, o->dir = NULL, *value == '/' ? 0 : -1;
  const struct options_field *f = options_field(key);
  if (!f || f->kind == OPTIONS_KIND_STRING)
    return -2;                  /* dir: a request's capture gets a new directory */
  return options_parse_field(f, value, o);
}

/* The option lines of a request, over the base options (control_file_parse_request's callback). */
static int request_option_line(void *context, const char *key, char *value, char *message,
                               size_t message_size)
{
  int rc = request_option(context, key, value);
  if (rc == -2)
    capture_set_error(message, message_size, "unknown option '%s' in the request%s", key, "");
  else if (rc != 0)
    capture_set_error(message, message_size, "bad value '%s' for %s in the request", value, key);
  return rc == 0 ? 0 : -1;
}

/* Reads and removes the request file, and parses it over rq->opt (which
 * holds the base options). 1 taken, 0 none; -1 with err: a bad request
 * (its id, if it had one, is in rq->id). */
static int take_request(struct control_request *rq, char *err, size_t err_size)
{
  rq->id = rq->action = NULL;
  int fd = open(control.request_path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0)
    return 0;
  ssize_t n = read(fd, rq->text, CONTROL_FILE_REQUEST_MAX);
  close(fd);
  unlink(control.request_path);
  if (n < 0) {
    capture_set_error(err, err_size, "cannot read the request: %s%s", strerror(errno), "");
    return -1;
  }
  rq->text[n] = '\0';
  /* The base options' dir is the environment's LJLEAK_DIR: a request wants a new directory. */
  rq->opt.dir = NULL;
  struct control_file_request request;
  static struct control_file_error error;   /* 512 bytes of message: not on a coroutine's C stack */
  enum control_file_status status =
      control_file_parse_request(rq->text, &request, request_option_line, &rq->opt, &error);
  rq->id = request.id;
  rq->action = request.action;
  if (status != CONTROL_FILE_OK) {
    capture_copy_text(err, err_size, error.message);
    return -1;
  }
  return 1;
}

static void answer(const char *id, const char *err)
{
  capture_copy_text(control.request_id, sizeof control.request_id, id ? id : "");
  capture_copy_text(control.result, sizeof control.result, err ? "error" : "ok");
  capture_copy_text(control.error, sizeof control.error, err ? err : "");
  write_registration(&capture_state);
}

int control_poll(lua_State *L, const struct ljleak_collector_options *base,
                 const char *base_error)
{
  static struct control_request rq;   /* 4 KiB: not on a coroutine's C stack */
  char err[512];
  rq.opt = *base;
  int taken = take_request(&rq, err, sizeof err);
  if (taken == 0)
    return 0;
  if (taken < 0 || base_error) {
    answer(rq.id, taken < 0 ? err : base_error);
    return 1;
  }
  int rc;
  if (!strcmp(rq.action, "start"))
    rc = ljleak_collector_start(L, &rq.opt, err, sizeof err);
  else
    rc = ljleak_collector_stop(L, err, sizeof err);
  answer(rq.id, rc == 0 ? NULL : err);
  return 1;
}

void control_poll_from_hook(struct capture *c)
{
  static struct control_request rq;
  char err[512], env_err[512];
  int env_bad = options_from_env(&rq.opt, options_process_env, NULL, env_err, sizeof env_err) != 0;
  int taken = take_request(&rq, err, sizeof err);
  if (taken == 0)
    return;
  if (taken < 0 || env_bad) {
    answer(rq.id, taken < 0 ? err : env_err);
    return;
  }
  if (!c->layout_ok) {
    answer(rq.id, "the collector is not attached to a Lua state that passed the layout check");
    return;
  }
  if (!strcmp(rq.action, "start")) {
    if (capture_begin(c, &rq.opt, err, sizeof err) != 0) {
      answer(rq.id, err);
      return;
    }
    if (rq.opt.edge_gc)
      boundary_force(c, CAPTURE_INDEX_CAUSE_START);  /* at the next GC check, not from the hook */
    answer(rq.id, NULL);
    return;
  }
  if (!c->active) {
    answer(rq.id, "no capture is running");
    return;
  }
  answer(rq.id, NULL);   /* the stop line follows, at once or after the last cycle */
  c->pending_stop = REASON_STOP;
  capture_stop_due(c);
}
