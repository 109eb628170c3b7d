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

#include "collector/capture_dir.h"
#include "collector/now.h"
#include "collector/options.h"
#include "collector/text.h"
#include "format/control_file.h"

#define COLL_CONTROL_POLL_NS 500000000L /* the poll thread's period: a request waits at most this */

/* The registration of this process. One per process, like coll_capture_state;
 * the poll thread reads only run_fd and request_name, set before it starts.
 * Every file of the run directory is reached through run_fd, the directory
 * opened and checked once: never through a path another user could change. */
static struct control {
  int registered;
  int run_fd;                     /* the run directory, held open; -1 before registering */
  pid_t pid;                      /* the process that registered (a child of fork() is not it) */
  enum coll_control_poller poller;
  int thread_started;
  int atexit_registered;
  int exiting;
  unsigned long long started;     /* control_file_process_started */
  char path[PATH_MAX];            /* <run_dir>/<pid>: for messages */
  char request_path[PATH_MAX];    /* <run_dir>/<pid>.request: what the registration names */
  char name[32];                  /* <pid>, in run_fd */
  char request_name[48];          /* <pid>.request */
  char tmp_name[48];              /* <pid>.tmp: the next registration, renamed over name */
  char root[PATH_MAX];            /* where captures go by default */
  char exe[PATH_MAX];
  char request_id[128];           /* the last request taken */
  char result[16];                /* "ok" or "error" for it */
  char error[512];                /* why it failed, or why the collector cannot capture */
  volatile sig_atomic_t *wake;    /* the poll thread sets COLL_CAPTURE_PENDING_CONTROL here ... */
  volatile sig_atomic_t *mark;    /* ... and -1 here, for the hook (coll_control_register) */
  char luajit[64];                /* what coll_control_note said last */
  int active;
  char dir[PATH_MAX];
} control = {.run_fd = -1};


int coll_control_run_dir(const char *configured, char *out, size_t out_size, char *err,
                         size_t err_size)
{
  int n;
  if (configured && *configured)
    n = snprintf(out, out_size, "%s", configured);
  else
    n = (int)control_file_default_run_dir(geteuid(), out, out_size);
  if (n <= 0 || (size_t)n >= out_size || (size_t)n + 32 >= sizeof control.request_path) {
    coll_text_error(err, err_size, "%s%s", "the registration directory's name is too long", "");
    return -1;
  }
  return 0;
}

/* Makes (0700) and opens the run directory; refuses one that is a link, or that another user
 * owns or may write: its files could be someone else's (another user made it first in /tmp). */
static int open_run_dir(const char *run_dir, char *err, size_t err_size)
{
  if (mkdir(run_dir, 0700) != 0 && errno != EEXIST) {
    coll_text_error(err, err_size, "cannot create the registration directory %s: %s", run_dir,
                      strerror(errno));
    return -1;
  }
  int fd = open(run_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  int why = errno;
  struct stat st;
  /* Another user's 0700 directory cannot be opened: its owner still says why. */
  int known = fd >= 0 ? fstat(fd, &st) == 0 : lstat(run_dir, &st) == 0;
  char message[1024], owner[300], self[300];
  message[0] = '\0';
  if (fd < 0 && known && S_ISLNK(st.st_mode)) {
    snprintf(message, sizeof message, "the registration directory %s is a link", run_dir);
  } else if (known && st.st_uid != geteuid()) {
    coll_capture_dir_user(st.st_uid, owner, sizeof owner);
    coll_capture_dir_user(geteuid(), self, sizeof self);
    snprintf(message, sizeof message,
             "the registration directory %s belongs to %s, not to this process's user %s "
             "(another user made it first); have root make one for this user where no one else "
             "can (install -d -o USER -m 700 /run/ljleak) and give it to both sides: "
             "LJLEAK_RUN_DIR here, --run-dir to ci/capture", run_dir, owner, self);
  } else if (fd < 0 || !known) {
    snprintf(message, sizeof message, "cannot open the registration directory %s: %s", run_dir,
             strerror(fd < 0 ? why : errno));
  } else if (st.st_mode & 022) {
    snprintf(message, sizeof message,
             "the registration directory %s is writable by others (mode %04o): make it 0700",
             run_dir, (unsigned)(st.st_mode & 07777));
  }
  if (message[0]) {
    coll_text_copy(err, err_size, message);
    if (fd >= 0)
      close(fd);
    return -1;
  }
  return fd;
}

/* Rewrites the registration file whole (a temporary file, then rename), so
 * that a reader never sees half of it. Its text is built on the stack: it is
 * written from the hook too, which takes no memory but its own mmap'd buffers. */
static void write_registration(void)
{
  if (!control.registered || control.pid != getpid())
    return;
  unlinkat(control.run_fd, control.tmp_name, 0);   /* one a killed write left */
  int fd = openat(control.run_fd, control.tmp_name,
                  O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0)
    return;
  struct control_file_registration r;
  memset(&r, 0, sizeof r);
  r.pid = (long)getpid();
  r.ppid = (long)getppid();
  r.uid = (unsigned)geteuid();
  r.started = control.started;
  r.exe = control.exe;
  r.luajit = control.luajit;
  r.poll = control.poller == COLL_CONTROL_POLL_TIMER    ? "timer"
           : control.poller == COLL_CONTROL_POLL_ATTACH ? "attach"
                                                        : "thread";
  r.request_file = control.request_path;
  r.root = control.root;
  r.state = control.exiting ? "exiting" : control.active ? "capturing" : "idle";
  r.dir = control.dir;
  r.request = control.request_id;
  r.result = control.result;
  r.error = control.error;
  char text[CONTROL_FILE_REGISTRATION_SIZE];
  size_t used = control_file_write_registration(text, sizeof text, &r);
  ssize_t written = write(fd, text, used);
  if (close(fd) != 0 || written != (ssize_t)used ||
      renameat(control.run_fd, control.tmp_name, control.run_fd, control.name) != 0)
    unlinkat(control.run_fd, control.tmp_name, 0);
}

static void at_exit_unregister(void)
{
  if (control.registered && control.pid == getpid()) {
    unlinkat(control.run_fd, control.name, 0);
    unlinkat(control.run_fd, control.request_name, 0);
    control.registered = 0;   /* a capture finished after this must not write it again */
  }
}

/* Whether a request file is waiting: one fstatat on the held directory. */
static int request_present(void)
{
  struct stat st;
  return fstatat(control.run_fd, control.request_name, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

/* Sets the flag the hook's slow path reads, and marks the GC phase its fast
 * paths compare with (as the signal handler does). Nothing else: the VM
 * belongs to its own thread. */
static void *poll_thread(void *unused)
{
  (void)unused;
  for (;;) {
    struct timespec ts = {0, COLL_CONTROL_POLL_NS};
    nanosleep(&ts, NULL);
    if (request_present()) {
      __atomic_fetch_or(control.wake, COLL_CAPTURE_PENDING_CONTROL, __ATOMIC_SEQ_CST);
      __atomic_store_n(control.mark, -1, __ATOMIC_RELAXED);
    }
  }
  return NULL;
}

/* A detached thread of a small stack running run(arg): 0, or the error number. Signals go to
 * the program's own threads, never to it. */
static int detached_thread(void *(*run)(void *), void *arg)
{
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  pthread_t thread;
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  pthread_attr_setstacksize(&attr, 64 * 1024);
  int rc = pthread_create(&thread, &attr, run, arg);
  pthread_attr_destroy(&attr);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  return rc;
}

static int start_thread(char *err, size_t err_size)
{
  int rc = detached_thread(poll_thread, NULL);
  if (rc != 0) {
    coll_text_error(err, err_size, "cannot start the control thread: %s%s", strerror(rc), "");
    return -1;
  }
  control.thread_started = 1;
  return 0;
}

/* Removes the registrations (and requests) of processes that are gone
 * without their exit handler (killed): pid files of this user's own
 * directory whose process does not exist. */
static void prune_stale(void)
{
  int fd = dup(control.run_fd);
  DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
  if (!d) {
    if (fd >= 0)
      close(fd);
    return;
  }
  struct dirent *e;
  while ((e = readdir(d))) {
    char *end, registration[32], request[48];
    long pid = strtol(e->d_name, &end, 10);
    if (pid <= 0 || end == e->d_name)
      continue;
    control_file_name(pid, CONTROL_FILE_NAME_REGISTRATION, registration, sizeof registration);
    control_file_name(pid, CONTROL_FILE_NAME_REQUEST, request, sizeof request);
    if (strcmp(e->d_name, registration) && strcmp(e->d_name, request))
      continue;   /* a process's registration or request, as format/control_file.h names them */
    char proc[64];
    snprintf(proc, sizeof proc, "/proc/%ld", pid);
    if (access(proc, F_OK) == 0 || errno != ENOENT)
      continue;
    unlinkat(control.run_fd, e->d_name, 0);
  }
  closedir(d);
}

int coll_control_register(const char *run_dir, const char *root, enum coll_control_poller poller,
                          volatile sig_atomic_t *wake, volatile sig_atomic_t *mark, char *err,
                          size_t err_size)
{
  control.wake = wake;
  control.mark = mark;
  if (control.registered && control.pid == getpid()) {
    write_registration();
    return 0;
  }
  char cwd[PATH_MAX];
  if (!root || !*root)
    root = ".";
  if (root[0] != '/' && getcwd(cwd, sizeof cwd)) {
    char full[2 * PATH_MAX + 2];
    snprintf(full, sizeof full, "%s/%s", cwd, root);
    coll_text_copy(control.root, sizeof control.root, strcmp(root, ".") ? full : cwd);
  } else {
    coll_text_copy(control.root, sizeof control.root, root);
  }
  ssize_t n = readlink("/proc/self/exe", control.exe, sizeof control.exe - 1);
  control.exe[n > 0 ? n : 0] = '\0';
  int run_fd = open_run_dir(run_dir, err, err_size);
  if (run_fd < 0)
    return -1;
  if (control.run_fd >= 0)
    close(control.run_fd);   /* a child of fork() registering: its parent's */
  control.run_fd = run_fd;
  control_file_name(getpid(), CONTROL_FILE_NAME_REGISTRATION, control.name, sizeof control.name);
  control_file_name(getpid(), CONTROL_FILE_NAME_REQUEST, control.request_name,
                    sizeof control.request_name);
  control_file_name(getpid(), CONTROL_FILE_NAME_NEXT, control.tmp_name, sizeof control.tmp_name);
  snprintf(control.path, sizeof control.path, "%s/%s", run_dir, control.name);
  snprintf(control.request_path, sizeof control.request_path, "%s/%s", run_dir,
           control.request_name);
  control.pid = getpid();
  if (control_file_process_started(0, &control.started) != 0)
    control.started = 0;
  control.poller = poller;
  control.exiting = 0;
  control.request_id[0] = control.result[0] = '\0';
  unlinkat(control.run_fd, control.request_name, 0);   /* left by an earlier process */
  prune_stale();
  control.registered = 1;
  if (!control.atexit_registered) {
    atexit(at_exit_unregister);
    control.atexit_registered = 1;
  }
  write_registration();
  struct stat st;
  if (fstatat(control.run_fd, control.name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
    coll_text_error(err, err_size, "cannot write the registration %s: %s", control.path,
                      strerror(errno));
    control.registered = 0;
    return -1;
  }
  if (poller == COLL_CONTROL_POLL_THREAD && !control.thread_started &&
      start_thread(err, err_size) != 0)
    return -1;
  return 0;
}

/* Whether this process is registered (not in a child of fork()). */
static int control_registered(void)
{
  return control.registered && control.pid == getpid();
}

int coll_control_needs_hook(void)
{
  return control_registered() && control.poller == COLL_CONTROL_POLL_THREAD;
}

void coll_control_set_error(const char *message)
{
  coll_text_copy(control.error, sizeof control.error, message);
  write_registration();
}

int coll_control_request_waiting(void)
{
  return control_registered() && request_present();
}

void coll_control_note(const char *luajit, int active, const char *dir)
{
  coll_text_copy(control.luajit, sizeof control.luajit, luajit);
  control.active = active;
  coll_text_copy(control.dir, sizeof control.dir, dir);
  write_registration();
}

void coll_control_note_exiting(void)
{
  control.exiting = 1;
  write_registration();
}

void coll_control_forget(void)
{
  control.registered = 0;
  control.thread_started = 0;
  if (control.run_fd >= 0)
    close(control.run_fd);
  control.run_fd = -1;
}

/* One option of a request: 0, or -1 if the value is bad. */
static int request_option(struct ljleak_collector_options *o, const char *key, char *value)
{
  if (!strcmp(key, "root"))
    return o->root = value, o->dir = NULL, *value == '/' ? 0 : -1;
  const struct coll_options_field *f = coll_options_field(key);
  if (!f || f->kind == COLL_OPTIONS_KIND_STRING)
    return -2;                  /* dir: a request's capture gets a new directory */
  return coll_options_parse_field(f, value, o);
}

/* The option lines of a request, over the base options (control_file_parse_request's callback). */
static int request_option_line(void *context, const char *key, char *value, char *message,
                               size_t message_size)
{
  int rc = request_option(context, key, value);
  if (rc == -2)
    coll_text_error(message, message_size, "unknown option '%s' in the request%s", key, "");
  else if (rc != 0)
    coll_text_error(message, message_size, "bad value '%s' for %s in the request", value, key);
  return rc == 0 ? 0 : -1;
}

int coll_control_take(struct coll_control_request *rq, char *err, size_t err_size)
{
  rq->id = rq->action = NULL;
  int fd = openat(control.run_fd, control.request_name,
                  O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (fd < 0)
    return 0;
  struct stat st;
  ssize_t n = fstat(fd, &st) == 0 && S_ISREG(st.st_mode)
                  ? read(fd, rq->text, CONTROL_FILE_REQUEST_MAX) : (errno = EINVAL, -1);
  close(fd);
  unlinkat(control.run_fd, control.request_name, 0);
  if (n < 0) {
    coll_text_error(err, err_size, "cannot read the request: %s%s", strerror(errno), "");
    return -1;
  }
  rq->text[n] = '\0';
  /* The base options' dir is the environment's LJLEAK_DIR: a request wants a new directory. */
  rq->opt.dir = NULL;
  struct control_file_request request;
  static struct format_error error;   /* 512 bytes of message: not on a coroutine's C stack */
  enum format_status status =
      control_file_parse_request(rq->text, &request, request_option_line, &rq->opt, &error);
  rq->id = request.id;
  rq->action = request.action;
  if (status != FORMAT_OK) {
    coll_text_copy(err, err_size, error.message);
    return -1;
  }
  return 1;
}

void coll_control_answer(const char *id, const char *err)
{
  coll_text_copy(control.request_id, sizeof control.request_id, id ? id : "");
  coll_text_copy(control.result, sizeof control.result, err ? "error" : "ok");
  coll_text_copy(control.error, sizeof control.error, err ? err : "");
  write_registration();
}

/* ---- The wake at a capture's end (control.h) ------------------------------------------------ */

#define COLL_CONTROL_DEADLINE_NS 100000000L /* how often the deadline thread looks */

/* The capture the deadline thread serves: a thread whose number is no longer this one's ends. */
static unsigned deadline_generation;

struct deadline {
  unsigned generation;
  uint64_t at_ns;  /* coll_now_mono_ns */
  volatile sig_atomic_t *wake, *mark;
};

/* Past the deadline, asks the hook's slow path for the timers at every look, until the capture
 * it served has stopped: only flags, as the poll thread. */
static void *deadline_thread(void *arg)
{
  struct deadline *d = arg;
  while (__atomic_load_n(&deadline_generation, __ATOMIC_SEQ_CST) == d->generation) {
    struct timespec ts = {0, COLL_CONTROL_DEADLINE_NS};
    nanosleep(&ts, NULL);
    if (coll_now_mono_ns() >= d->at_ns) {
      __atomic_fetch_or(d->wake, COLL_CAPTURE_PENDING_TIMER, __ATOMIC_SEQ_CST);
      __atomic_store_n(d->mark, -1, __ATOMIC_RELAXED);
    }
  }
  free(d);
  return NULL;
}

void coll_control_deadline(double seconds, volatile sig_atomic_t *wake, volatile sig_atomic_t *mark)
{
  struct deadline *d = malloc(sizeof *d);
  if (!d)
    return;  /* the timers' own check, at the stream's ticks, still ends the capture */
  d->generation = __atomic_add_fetch(&deadline_generation, 1, __ATOMIC_SEQ_CST);
  d->at_ns = coll_now_mono_ns() + (uint64_t)(seconds * 1e9);  /* at most 365 days: options.c */
  d->wake = wake;
  d->mark = mark;
  if (detached_thread(deadline_thread, d) != 0)
    free(d);
}

void coll_control_deadline_end(void)
{
  __atomic_add_fetch(&deadline_generation, 1, __ATOMIC_SEQ_CST);
}
