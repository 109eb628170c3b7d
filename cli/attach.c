/* cli/attach.c: ljleak attach: captures a running LuaJIT process that never loaded the collector, without a restart (docs/attach.md). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "collector/state_scan.h"
#include "format/capture_files.h"
#include "format/capture_index.h"
#include "format/capture_layout.h"
#include "format/control_file.h"
#include "format/utf8.h"

static const char attach_usage[] =
    "usage: ljleak attach [-o DIR] [--duration SECONDS] [--every BYTES] [--sample BYTES]\n"
    "                     [--snapshots N|none] [--gzip] [--period SECONDS] [--max-bytes N]\n"
    "                     [--max-total-bytes N] [--force-gc] [--no-edge-gc] [--stack-depth N]\n"
    "                     [--values] [--label KEY=VALUE]... [--snapshot] [--state ADDR]\n"
    "                     [--wait SECONDS] PID\n";

static const char attach_help[] =
    "\n"
    "Captures process PID, a running LuaJIT program that never loaded the collector,\n"
    "without restarting it: gdb stops it in a system call, loads the collector and\n"
    "arms a count hook; at the VM's next instruction the capture starts, with the\n"
    "options of ljleak run. At the end (--duration, or Ctrl-C here) it stops, gives\n"
    "the VM its allocator back, and the process goes on; only the collector's code\n"
    "stays mapped. Needs gdb and the rights ptrace needs (root, or the process's\n"
    "user with kernel.yama.ptrace_scope 0).\n"
    "\n"
    "  -o DIR                capture directory (default: a new ljleak-<pid>-<time> in\n"
    "                        $LJLEAK_ROOT or the working directory); the process\n"
    "                        writes it, as its own user\n"
    "  --duration SECONDS    stop after this long (default: at Ctrl-C)\n"
    "  --snapshots N|none    heap snapshots in the middle of the capture (default none)\n"
    "  --snapshot            one heap snapshot at once, and what holds the heap now:\n"
    "                        the objects that keep the most bytes alive, with their\n"
    "                        paths (ljleak snapshot --holders); without --duration\n"
    "                        the capture ends there\n"
    "  --state ADDR          the Lua state to capture, by its global state's address,\n"
    "                        when the process has several (attach names them when it\n"
    "                        refuses, and says the one it found)\n"
    "  --wait SECONDS        how long to wait for a safe stop and for the VM's next\n"
    "                        instruction (default 10): past it attach gives up, and\n"
    "                        the process goes on as it was\n"
    "  The other options are ljleak run's (ljleak run --help).\n"
    "\n"
    "The collector is LJLEAK_COLLECTOR, else lua/ljleak/collector.so beside this\n"
    "ljleak, else the installed one; gdb is LJLEAK_GDB, else gdb on PATH.\n"
    "Exit status: 0 captured; 2 bad usage; 3 refused (no such process, no\n"
    "permission, no gdb, no LuaJIT or another LuaJIT, no or several Lua states, a\n"
    "capture already running); 4 no safe point within --wait, or the capture failed.\n";

struct attach_job {
  struct cli_capture_options capture;
  long pid;
  const char *state;         /* --state, or the candidate the scan from outside found */
  char candidate[32];
  double wait;
  int snapshot_now;         /* --snapshot */
  int made_dir;             /* prepare_dir made dir: removed when nothing was captured */
  int exited;               /* the process exited during the capture, which ended there */
  char gdb[PATH_MAX];
  char collector[PATH_MAX];
  char run_dir[PATH_MAX];
  char dir[PATH_MAX];
  char root[PATH_MAX];
  char id[96];
  unsigned long uid, gid;    /* the process's effective ids and start time, read once before */
  unsigned long long started; /* anything else: every later step is for that process */
};

static volatile sig_atomic_t attach_interrupted;

static void attach_on_signal(int signo)
{
  (void)signo;
  attach_interrupted = 1;
}

static int parse(struct attach_job *job, int argc, char **argv)
{
  struct cli_args args;
  const char *pid_text = NULL;
  cli_args_init(&args, "attach", attach_usage, argc, argv);
  for (; args.index < argc && !args.failed; args.index++) {
    char *a = argv[args.index];
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      cli_help(&args, attach_help);
      return -1;
    }
    if (!strcmp(a, "--snapshot")) {
      job->snapshot_now = 1;
    } else if (cli_capture_option(&args, &job->capture) || cli_option_text(&args, "--state", &job->state) ||
        cli_option_seconds(&args, "--wait", &job->wait)) {
      /* the value is in place, or the error reported */
    } else if (a[0] == '-') {
      cli_unknown_option(&args);
    } else if (pid_text) {
      cli_usage_error(&args, "more than one process: %s", a);
    } else {
      pid_text = a;
    }
  }
  if (args.failed)
    return CLI_EXIT_USAGE;
  char *end = NULL;
  job->pid = pid_text ? strtol(pid_text, &end, 10) : 0;
  if (!pid_text)
    return cli_usage_error(&args, "no process given");
  if (*end || job->pid <= 0 || pid_text[0] < '0' || pid_text[0] > '9')
    return cli_bad_value(&args, "PID", pid_text, "a process id");
  if (job->wait <= 0) {
    char given[32];
    snprintf(given, sizeof given, "%g", job->wait);
    return cli_bad_value(&args, "--wait", given, "seconds above 0");
  }
  return cli_capture_env_check(&args, &job->capture);
}

/* name made absolute from the working directory, into out; -1 if too long. */
static int absolute(const char *name, char *out, size_t size)
{
  char cwd[PATH_MAX];
  if (name[0] == '/')
    return snprintf(out, size, "%s", name) < (int)size ? 0 : -1;
  if (!getcwd(cwd, sizeof cwd))
    return -1;
  return capture_layout_join(strcmp(name, ".") ? cwd : "", strcmp(name, ".") ? name : cwd, out,
                             size) ? 0 : -1;
}

/* A program on PATH, into out: 0, or -1 when there is none. */
static int find_program(const char *name, char *out, size_t size)
{
  if (strchr(name, '/'))
    return snprintf(out, size, "%s", name) < (int)size && access(out, X_OK) == 0 ? 0 : -1;
  const char *path = getenv("PATH");
  while (path && *path) {
    size_t len = strcspn(path, ":");
    if (len && snprintf(out, size, "%.*s/%s", (int)len, path, name) < (int)size &&
        access(out, X_OK) == 0)
      return 0;
    path += len + (path[len] == ':');
  }
  return -1;
}

/* The collector to load: LJLEAK_COLLECTOR, beside this ljleak, or the installed one. */
static int find_collector(char *out, size_t size)
{
  const char *given = getenv("LJLEAK_COLLECTOR");
  if (given && *given)
    return realpath(given, out) && strlen(out) < size ? 0 : -1;
  char exe[PATH_MAX], candidate[PATH_MAX + 32];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  exe[n > 0 ? n : 0] = '\0';
  char *slash = strrchr(exe, '/');
  if (slash)
    *slash = '\0';
  const char *const places[] = {exe, "/usr/local/lib/lua/5.1", "/usr/lib/x86_64-linux-gnu/lua/5.1"};
  for (size_t i = 0; i < sizeof places / sizeof places[0]; i++) {
    snprintf(candidate, sizeof candidate, "%s/lua/ljleak/collector.so", places[i]);
    if (i > 0)
      snprintf(candidate, sizeof candidate, "%s/ljleak/collector.so", places[i]);
    if (access(candidate, R_OK) == 0 && realpath(candidate, out))
      return 0;
  }
  return -1;
}

/* The process's LJLEAK_RUN_DIR (from /proc/PID/environ), else the default of its user. */
static void target_run_dir(const struct attach_job *job, char *out, size_t size)
{
  char path[64], env[65536];
  struct stat st;
  snprintf(path, sizeof path, "/proc/%ld/environ", job->pid);
  FILE *f = fopen(path, "r");
  size_t n = f ? fread(env, 1, sizeof env - 1, f) : 0;
  if (f)
    fclose(f);
  env[n] = '\0';
  for (size_t at = 0; at < n; at += strlen(env + at) + 1)
    if (!strncmp(env + at, "LJLEAK_RUN_DIR=", 15) && env[at + 15]) {
      snprintf(out, size, "%s", env + at + 15);
      return;
    }
  snprintf(path, sizeof path, "/proc/%ld", job->pid);
  control_file_default_run_dir(stat(path, &st) == 0 ? st.st_uid : (unsigned long)-1, out, size);
}

/* The effective uid and gid of the process, from /proc/PID/status: 0, or -1. */
static int target_ids(long pid, unsigned long *uid, unsigned long *gid)
{
  char path[64], line[256];
  snprintf(path, sizeof path, "/proc/%ld/status", pid);
  FILE *f = fopen(path, "r");
  int found = 0;
  unsigned long real;
  while (f && fgets(line, sizeof line, f)) {
    found += sscanf(line, "Uid:\t%lu\t%lu", &real, uid) == 2;
    found += sscanf(line, "Gid:\t%lu\t%lu", &real, gid) == 2;
  }
  if (f)
    fclose(f);
  return found == 2 ? 0 : -1;
}

/* What must hold before gdb runs: the process, the permission, gdb, the collector. */
static int preflight(struct attach_job *job)
{
  char path[64];
  struct stat st;
  snprintf(path, sizeof path, "/proc/%ld", job->pid);
  if (stat(path, &st) != 0 || job->pid == (long)getpid()) {
    fprintf(stderr, "ljleak attach: no process %ld\n", job->pid);
    return CLI_EXIT_INPUT;
  }
  if (control_file_ptrace_scope(CONTROL_FILE_PTRACE_SCOPE) >= 3) {
    fprintf(stderr, "ljleak attach: kernel.yama.ptrace_scope is 3: no process may be attached to "
                    "until the next boot, so attach cannot enter %ld\n", job->pid);
    return CLI_EXIT_INPUT;
  }
  if (target_ids(job->pid, &job->uid, &job->gid) != 0 ||
      control_file_process_started(job->pid, &job->started) != 0) {
    fprintf(stderr, "ljleak attach: no process %ld\n", job->pid);
    return CLI_EXIT_INPUT;
  }
  if (geteuid() != 0 && job->uid != geteuid()) {
    fprintf(stderr, "ljleak attach: process %ld belongs to another user: attaching needs root "
                    "(or that user, with ptrace allowed)\n", job->pid);
    return CLI_EXIT_INPUT;
  }
  const char *gdb = getenv("LJLEAK_GDB");
  if (find_program(gdb && *gdb ? gdb : "gdb", job->gdb, sizeof job->gdb) != 0) {
    fprintf(stderr, "ljleak attach: no gdb%s%s: ljleak attach enters the process with it "
                    "(apt-get install gdb)\n", gdb && *gdb ? " at " : " on PATH",
            gdb && *gdb ? gdb : "");
    return CLI_EXIT_INPUT;
  }
  if (find_collector(job->collector, sizeof job->collector) != 0) {
    fprintf(stderr, "ljleak attach: no collector.so beside this ljleak or installed "
                    "(give LJLEAK_COLLECTOR=FILE)\n");
    return CLI_EXIT_INPUT;
  }
  target_run_dir(job, job->run_dir, sizeof job->run_dir);
  return CLI_EXIT_OK;
}

/* Root attaching to another user's process: the process writes its capture as its own user,
 * into a directory root chose. A missing one is made for that user (cli_attach_make_dir); one that
 * exists is the collector's to check (it takes only an empty one of its user's). Without -o, it
 * is a new ljleak-<pid>-<time> in the root. */
static int prepare_dir(struct attach_job *job)
{
  if (geteuid() != 0 || job->uid == 0)
    return CLI_EXIT_OK;
  if (!job->capture.explicit_dir) {
    char stamp[32];
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
    if (snprintf(job->dir, sizeof job->dir, "%s/ljleak-%ld-%s", job->root, job->pid, stamp) >=
        (int)sizeof job->dir)
      return CLI_EXIT_USAGE;
    job->capture.explicit_dir = 1;
  }
  int rc = cli_attach_make_dir(job->dir, job->uid, job->gid);
  job->made_dir = rc == 0;
  if (rc && rc != EEXIST) {
    fprintf(stderr, "ljleak attach: cannot create %s for process %ld: %s (root makes it only "
                    "below directories that only root can change; elsewhere the process's user "
                    "does)\n", job->dir, job->pid, strerror(rc));
    return CLI_EXIT_RUNTIME;
  }
  return CLI_EXIT_OK;
}

/* The start request: the id, then every option the capture takes, as the collector reads them. */
static int build_request(struct attach_job *job, char *text, size_t size)
{
  const struct ljleak_collector_options *o = &job->capture.opt;
  char lines[24][PATH_MAX + 32];
  const char *options[24];
  size_t n = 0;
  if (job->capture.explicit_dir)
    snprintf(lines[n++], sizeof lines[0], "dir=%s", job->dir);
  else
    snprintf(lines[n++], sizeof lines[0], "root=%s", job->root);
  snprintf(lines[n++], sizeof lines[0], "period=%.17g", o->period);
  snprintf(lines[n++], sizeof lines[0], "duration=%.17g", o->duration);
  snprintf(lines[n++], sizeof lines[0], "max_bytes=%" PRIu64, o->max_bytes);
  snprintf(lines[n++], sizeof lines[0], "max_total_bytes=%" PRIu64, o->max_total_bytes);
  snprintf(lines[n++], sizeof lines[0], "sample=%" PRIu64, o->sample);
  snprintf(lines[n++], sizeof lines[0], "every=%" PRIu64, o->every);
  snprintf(lines[n++], sizeof lines[0], "snapshots=%" PRIu64, job->capture.snapshots);
  snprintf(lines[n++], sizeof lines[0], "stack_depth=%d", o->stack_depth);
  snprintf(lines[n++], sizeof lines[0], "gzip=%d", o->gzip);
  snprintf(lines[n++], sizeof lines[0], "force_gc=%d", o->force_gc);
  snprintf(lines[n++], sizeof lines[0], "edge_gc=%d", o->edge_gc);
  snprintf(lines[n++], sizeof lines[0], "values=%d", o->values);
  if (job->snapshot_now)
    snprintf(lines[n++], sizeof lines[0], "snapshot_now=1");
  snprintf(lines[n++], sizeof lines[0], "run_dir=%s", job->run_dir);
  if (o->labels && *o->labels)
    snprintf(lines[n++], sizeof lines[0], "labels=%s", o->labels);
  for (size_t i = 0; i < n; i++)
    options[i] = lines[i];
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  snprintf(job->id, sizeof job->id, "ljleak-attach-%ld-%lld%09ld", (long)getpid(),
           (long long)now.tv_sec, now.tv_nsec);
  struct control_file_request rq = {job->id, "start", options, n};
  struct format_error error;
  if (!control_file_write_request(text, size, &rq, &error)) {
    fprintf(stderr, "ljleak attach: %s\n", error.message);
    return CLI_EXIT_USAGE;
  }
  return CLI_EXIT_OK;
}

/* Runs a debugger step; its answer's first word into kind, the rest into why. */
static void gdb_step(const struct attach_job *job, const char *step, const char *request,
                     struct cli_attach_gdb *g)
{
  memset(g, 0, sizeof *g);
  g->gdb = job->gdb;
  g->pid = job->pid;
  g->collector = job->collector;
  g->step = step;
  g->request = request;
  g->state = job->state;
  g->wait = job->wait;
  g->uid = job->uid;
  g->started = job->started;
  cli_attach_gdb_run(g);
}

/* Room for a text from the process shown escaped: what its registration says (its error, its
 * capture's directory) and the answer through gdb (the collector's message, dlerror, gdb's lines
 * about the process) are its user's bytes, printed on root's terminal. */
#define ATTACH_SHOWN_SIZE UTF8_TERMINAL_SIZE(PATH_MAX)

static int answer_is(const struct cli_attach_gdb *g, const char *kind)
{
  size_t n = strlen(kind);
  return !strncmp(g->answer, kind, n) && (g->answer[n] == '\0' || g->answer[n] == ' ');
}

static const char *answer_text(const struct cli_attach_gdb *g)
{
  const char *space = strchr(g->answer, ' ');
  return space ? space + 1 : "";
}

/* Without --state, the Lua state is looked for from outside while the process runs, so the stop
 * does not scan its memory (docs/attach.md): one found is the collector's candidate ("~ADDR",
 * checked against its layout at the stop); none, several, or memory that cannot be read or takes
 * longer than this leave the choice to the scan at the stop. */
#define ATTACH_SCAN_BUDGET_NS UINT64_C(5000000000)
static void find_candidate(struct attach_job *job)
{
  uint64_t found[2];
  if ((job->state && *job->state) ||
      coll_state_scan(job->pid, found, 2, ATTACH_SCAN_BUDGET_NS) != 1)
    return;
  snprintf(job->candidate, sizeof job->candidate, "~%#" PRIx64, found[0]);
  job->state = job->candidate;
  fprintf(stderr, "ljleak: process %ld: a Lua state, global state %s, found while it runs\n",
          job->pid, job->candidate + 1);
}

/* The debugger's step that arms the hook: CLI_EXIT_OK, or why not (printed). */
static int arm(struct attach_job *job, const char *request)
{
  struct cli_attach_gdb g;
  char shown[ATTACH_SHOWN_SIZE];
  find_candidate(job);
  gdb_step(job, "attach", request, &g);
  const char *said = utf8_terminal_text(shown, sizeof shown, answer_text(&g));
  if (answer_is(&g, "armed")) {
    fprintf(stderr, "ljleak: process %ld: %s; waiting for its next Lua instruction\n", job->pid,
            said);
    return CLI_EXIT_OK;
  }
  if (answer_is(&g, "refused")) {
    fprintf(stderr, "ljleak attach: process %ld refused: %s\n", job->pid, said);
    return CLI_EXIT_INPUT;
  }
  if (answer_is(&g, "noload")) {
    if (strstr(said, "undefined symbol: lua") || strstr(said, "undefined symbol: luaL"))
      fprintf(stderr, "ljleak attach: process %ld has no LuaJIT the collector can use (%s)\n",
              job->pid, said);
    else
      fprintf(stderr, "ljleak attach: cannot load the collector into process %ld: %s\n",
              job->pid, said);
    return CLI_EXIT_INPUT;
  }
  if (answer_is(&g, "nosafe")) {
    fprintf(stderr, "ljleak attach: process %ld entered no system call where loading is safe "
                    "within %g s; it runs on as it was\n", job->pid, job->wait);
    return CLI_EXIT_RUNTIME;
  }
  if (answer_is(&g, "changed")) {
    fprintf(stderr, "ljleak attach: process %ld is not the one attach began with (%s): nothing "
                    "was called in it\n", job->pid, said);
    return CLI_EXIT_INPUT;
  }
  if (answer_is(&g, "hung")) {
    fprintf(stderr, "ljleak attach: process %ld: %s\n", job->pid, said);
    return CLI_EXIT_RUNTIME;
  }
  fprintf(stderr, "ljleak attach: cannot enter process %ld with %s: %s%s\n", job->pid, job->gdb, said,
          strstr(g.answer, "ptrace") ? " (attaching needs root, or the process's user with "
                                       "kernel.yama.ptrace_scope 0)" : "");
  return CLI_EXIT_INPUT;
}

static void pause_briefly(void)
{
  struct timespec pause = {0, 50000000};
  nanosleep(&pause, NULL);
}

/* Whether process pid registered in job's run directory (a quiet check, before reading it). */
static int registered(const struct attach_job *job)
{
  char name[32], path[PATH_MAX + 32];
  struct stat st;
  control_file_name(job->pid, CONTROL_FILE_NAME_REGISTRATION, name, sizeof name);
  capture_layout_join(job->run_dir, name, path, sizeof path);
  return lstat(path, &st) == 0;
}

/* Polls for the hook's answer to the start request for --wait seconds (and, when interruptible,
 * until Ctrl-C or SIGTERM): 1 when it came or the process ended, with the exit code in *rc and
 * the capture's directory in dir; 0 when it did not come. */
static int poll_started(struct attach_job *job, char *dir, size_t size, int interruptible, int *rc)
{
  struct timespec start;
  char shown[ATTACH_SHOWN_SIZE], proc[64];
  snprintf(proc, sizeof proc, "/proc/%ld", job->pid);
  clock_gettime(CLOCK_MONOTONIC, &start);
  while (cli_attach_seconds_since(&start) < job->wait && !(interruptible && attach_interrupted)) {
    struct control_file_registration r;
    /* gone (killed, crashed, exited): no safe point will come, and no cancel can run */
    if (access(proc, F_OK) != 0) {
      fprintf(stderr, "ljleak attach: process %ld ended before its safe point: nothing was "
                      "captured\n", job->pid);
      *rc = CLI_EXIT_RUNTIME;
      return 1;
    }
    if (registered(job) && cli_control_read(job->pid, job->run_dir, &r) == CLI_EXIT_OK) {
      int ours = r.request && !strcmp(r.request, job->id);
      int ok = ours && r.result && !strcmp(r.result, "ok");
      if (ours && !ok)
        fprintf(stderr, "ljleak attach: process %ld could not start the capture: %s\n", job->pid,
                utf8_terminal_text(shown, sizeof shown, r.error ? r.error : "no reason given"));
      if (ok)
        snprintf(dir, size, "%s", r.dir ? r.dir : "");
      control_file_registration_free(&r);
      if (ours) {
        *rc = ok ? CLI_EXIT_OK : CLI_EXIT_INPUT;
        return 1;
      }
    }
    pause_briefly();
  }
  return 0;
}

/* Waits for the hook's answer to the start request: CLI_EXIT_OK with the capture's directory
 * in dir, or why not (printed; a hook that never ran is disarmed, at --wait or at Ctrl-C or
 * SIGTERM: it once stayed armed, and a capture nobody would stop began later). */
static int wait_started(struct attach_job *job, char *dir, size_t size)
{
  char shown[ATTACH_SHOWN_SIZE];
  int rc;
  if (poll_started(job, dir, size, 1, &rc))
    return rc;
  struct cli_attach_gdb g;
  gdb_step(job, "cancel", NULL, &g);
  if (answer_is(&g, "cancelled") && attach_interrupted) {
    fprintf(stderr, "ljleak attach: interrupted before process %ld reached its safe point: the "
                    "hook is disarmed and it goes on as it was; nothing was captured\n", job->pid);
    return CLI_EXIT_RUNTIME;
  }
  if (answer_is(&g, "cancelled")) {
    fprintf(stderr, "ljleak attach: process %ld ran no Lua code within %g s (blocked in C?), or "
                    "only one compiled loop: the hook is disarmed and it goes on as it was; only "
                    "the collector's code stays loaded\n", job->pid, job->wait);
    return CLI_EXIT_RUNTIME;
  }
  /* Interrupted just as the hook ran: the capture began; its answer comes, and the stop follows
   * at once (wait_stopped sees the interrupt). */
  if (attach_interrupted && answer_is(&g, "ran") && poll_started(job, dir, size, 0, &rc))
    return rc;
  fprintf(stderr, "ljleak attach: process %ld did not answer within %g s: %s\n", job->pid,
          job->wait, utf8_terminal_text(shown, sizeof shown, (answer_is(&g, "ran") ||
                                        answer_is(&g, "changed")) && *answer_text(&g)
                                           ? answer_text(&g) : g.answer));
  return CLI_EXIT_RUNTIME;
}

/* Asks the running capture to stop: a stop request, and the debugger's poll of it. */
static void request_stop(struct attach_job *job)
{
  char id[128], shown[ATTACH_SHOWN_SIZE];
  struct cli_attach_gdb g;
  snprintf(id, sizeof id, "%s-stop", job->id);
  if (cli_control_write(job->pid, job->run_dir, "stop", id) != CLI_EXIT_OK)
    return;
  gdb_step(job, "poll", NULL, &g);
  if (!answer_is(&g, "polled"))
    fprintf(stderr, "ljleak attach: cannot ask process %ld to stop: %s\n", job->pid,
            utf8_terminal_text(shown, sizeof shown, g.answer));
}

/* Whether the capture in dir ended at its process's exit: its index's last line is the stop that
 * the exit handler writes (a process killed has none). */
static int ended_at_exit(const char *dir)
{
  char path[PATH_MAX + 16];
  struct capture_index index;
  struct format_error error;
  capture_layout_join(dir, CAPTURE_LAYOUT_INDEX, path, sizeof path);
  if (capture_index_read_file(&index, path, &error) != FORMAT_OK)
    return 0;
  int ended = index.has_stop && index.stop.reason &&
              !strcmp(index.stop.reason, capture_index_stop_reason_name(CAPTURE_INDEX_REASON_EXIT));
  capture_index_free(&index);
  return ended;
}

/* Waits until the capture in dir is over: by its duration, or a stop asked at Ctrl-C. Bounded
 * whatever the process does (it may stop itself, block in C, or keep saying "capturing"): a
 * capture that should be over (its duration or --snapshot's one cycle, plus --wait) is asked to
 * stop, and --wait after a stop was asked attach gives up. */
static int wait_stopped(struct attach_job *job, const char *dir)
{
  int asked = 0;
  char path[64], shown_dir[ATTACH_SHOWN_SIZE], shown[ATTACH_SHOWN_SIZE];
  double due = job->capture.opt.duration > 0 || job->snapshot_now
                   ? job->capture.opt.duration + job->wait : -1;
  struct timespec start, asked_at;
  clock_gettime(CLOCK_MONOTONIC, &start);
  utf8_terminal_text(shown_dir, sizeof shown_dir, dir);
  snprintf(path, sizeof path, "/proc/%ld", job->pid);
  for (;;) {
    struct control_file_registration r;
    if (access(path, F_OK) != 0) {
      /* an exit ends the capture as a stop does: complete, and a capture made (it was exit 4) */
      if (ended_at_exit(dir)) {
        job->exited = 1;
        return CLI_EXIT_OK;
      }
      fprintf(stderr, "ljleak attach: process %ld ended during the capture, and the capture in %s "
                      "has no end (killed?): what it holds reads up to there\n", job->pid, shown_dir);
      return CLI_EXIT_RUNTIME;
    }
    if ((attach_interrupted || (due >= 0 && cli_attach_seconds_since(&start) > due)) && !asked) {
      asked = 1;
      request_stop(job);
      clock_gettime(CLOCK_MONOTONIC, &asked_at);
    }
    if (asked && cli_attach_seconds_since(&asked_at) > job->wait) {
      fprintf(stderr, "ljleak attach: process %ld did not end the capture in %s within %g s of "
                      "the stop asked (stopped, or blocked in C?); it may end it later\n", job->pid,
              shown_dir, job->wait);
      return CLI_EXIT_RUNTIME;
    }
    /* Its registration goes as it exits, before /proc does (a zombie until reaped): a capture
     * ended at that exit is one made (it read as "not registered", exit 4) */
    if (!registered(job) && ended_at_exit(dir)) {
      job->exited = 1;
      return CLI_EXIT_OK;
    }
    if (cli_control_read(job->pid, job->run_dir, &r) != CLI_EXIT_OK)
      return CLI_EXIT_RUNTIME;
    int over = !r.state || strcmp(r.state, "capturing") != 0 || !r.dir || strcmp(r.dir, dir);
    int failed = over && r.error && *r.error;
    if (failed)
      fprintf(stderr, "ljleak attach: the capture in %s ended on an error: %s\n", shown_dir,
              utf8_terminal_text(shown, sizeof shown, r.error));
    control_file_registration_free(&r);
    if (over)
      return failed ? CLI_EXIT_RUNTIME : CLI_EXIT_OK;
    pause_briefly();
  }
}

int cmd_attach(int argc, char **argv)
{
  struct attach_job job;
  memset(&job, 0, sizeof job);
  cli_capture_options_init(&job.capture);
  job.capture.snapshots = 0;   /* no main chunk to return here: only those asked for */
  job.wait = 10;
  int rc = parse(&job, argc, argv);
  if (rc != 0)
    return rc < 0 ? CLI_EXIT_OK : rc;
  const char *root = job.capture.opt.root && *job.capture.opt.root ? job.capture.opt.root : ".";
  if ((job.capture.explicit_dir && absolute(job.capture.opt.dir, job.dir, sizeof job.dir) != 0) ||
      absolute(root, job.root, sizeof job.root) != 0) {
    fprintf(stderr, "ljleak attach: the capture directory's name is too long\n");
    return CLI_EXIT_USAGE;
  }
  char request[CONTROL_FILE_REQUEST_MAX + 1], dir[PATH_MAX], shown[ATTACH_SHOWN_SIZE];
  /* Ctrl-C and SIGTERM from here on are noted, not fatal: once the hook is armed, only attach
   * can disarm it (wait_started) or stop the capture it starts (wait_stopped). */
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = attach_on_signal;
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  rc = preflight(&job);
  if (rc == CLI_EXIT_OK)
    rc = prepare_dir(&job);
  if (rc == CLI_EXIT_OK)
    rc = build_request(&job, request, sizeof request);
  if (rc == CLI_EXIT_OK && attach_interrupted) {
    fprintf(stderr, "ljleak attach: interrupted before process %ld was entered: nothing was "
                    "captured\n", job.pid);
    rc = CLI_EXIT_RUNTIME;
  }
  if (rc == CLI_EXIT_OK)
    rc = arm(&job, request);
  if (rc == CLI_EXIT_OK)
    rc = wait_started(&job, dir, sizeof dir);
  if (rc != CLI_EXIT_OK) {
    /* nothing was captured: the directory made for it goes, when the process left it empty */
    if (job.made_dir)
      cli_attach_remove_dir(job.dir, job.uid, job.gid);
    return rc;
  }
  fprintf(stderr, "ljleak: capturing process %ld into %s\n", job.pid,
          utf8_terminal_text(shown, sizeof shown, dir));
  rc = wait_stopped(&job, dir);
  if (rc == CLI_EXIT_OK)
    fprintf(stderr, "ljleak: the capture of process %ld is over; %s. See: ljleak diff %s\n", job.pid,
            job.exited ? "the process exited, and the capture ended at its exit" : "it runs on", shown);
  if (rc == CLI_EXIT_OK && job.snapshot_now)
    rc = cli_attach_read_snapshot(dir, job.uid, job.gid, job.wait);
  return rc;
}
