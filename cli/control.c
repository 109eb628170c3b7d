/* cli/control.c: ljleak control: what a running process's registration says, and a request written to it safely, so that scripts (ci/capture) never parse or write the control files themselves. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "format/capture_layout.h"
#include "format/control_file.h"
#include "format/utf8.h"
#include "format/json_write.h"

static const char control_usage_line[] =
    "usage: ljleak control [--run-dir DIR] [--format text|json] [--get KEY]... PID\n"
    "       ljleak control [--run-dir DIR] --request start|stop [--id ID] [--root DIR]\n"
    "                      [--set KEY=VALUE]... PID\n";

/* What --help prints after the usage line. */
static const char control_help[] =
    "\n"
    "Reads the registration of process PID that its ljleak collector keeps in\n"
    "its run directory (docs/control-format.md), or asks the collector to start\n"
    "or stop a capture. The registration must name PID as it runs now (its pid\n"
    "and start time), and the run directory must be the process user's own,\n"
    "written by no one else, as the collector requires.\n"
    "\n"
    "    --run-dir DIR     where the collector registered (default: LJLEAK_RUN_DIR,\n"
    "                      else /tmp/ljleak-<uid of the process>)\n"
    "    --format FORMAT   text (default: KEY=VALUE lines) or json\n"
    "    --get KEY         print only the value of KEY, or an empty line when the\n"
    "                      registration does not have it; repeatable, one line each\n"
    "    --request ACTION  write a request, start or stop, and print its id: a new\n"
    "                      file of a random name in the run directory, renamed over\n"
    "                      <PID>.request; the answer is in the registration's\n"
    "                      request, result and error\n"
    "    --id ID           the request's id (default: ljleak-<pid>-<time>)\n"
    "    --root DIR        start: where the capture goes (a relative DIR is taken\n"
    "                      from the working directory)\n"
    "    --set KEY=VALUE   start: a capture option (period, sample, every, force_gc,\n"
    "                      edge_gc, gzip, max_bytes, max_total_bytes, duration,\n"
    "                      c_hook, stack_depth, snapshots, values), as the module's\n"
    "                      start{} takes it;\n"
    "                      repeatable\n"
    "    -h, --help        show this help\n"
    "\n"
    "keys: pid ppid uid started exe luajit poll request_file root state dir\n"
    "      request result error\n"
    "\n"
    "exit status: 0 success, 1 PID has no registration there (no such process,\n"
    "no file, one left by an earlier process with its pid, or a run directory\n"
    "that is not the process user's own), 2 usage error, 3 a malformed\n"
    "registration (the message gives the byte offset) or one that is a link,\n"
    "4 the request or the output could not be written.\n";

enum control_type { CONTROL_NUMBER, CONTROL_TEXT };

static const struct {
  const char *key;
  unsigned bit;
  enum control_type type;
} control_keys[] = {
  {"pid", CONTROL_FILE_HAS_PID, CONTROL_NUMBER},
  {"ppid", CONTROL_FILE_HAS_PPID, CONTROL_NUMBER},
  {"uid", CONTROL_FILE_HAS_UID, CONTROL_NUMBER},
  {"started", CONTROL_FILE_HAS_STARTED, CONTROL_NUMBER},
  {"exe", CONTROL_FILE_HAS_EXE, CONTROL_TEXT},
  {"luajit", CONTROL_FILE_HAS_LUAJIT, CONTROL_TEXT},
  {"poll", CONTROL_FILE_HAS_POLL, CONTROL_TEXT},
  {"request_file", CONTROL_FILE_HAS_REQUEST_FILE, CONTROL_TEXT},
  {"root", CONTROL_FILE_HAS_ROOT, CONTROL_TEXT},
  {"state", CONTROL_FILE_HAS_STATE, CONTROL_TEXT},
  {"dir", CONTROL_FILE_HAS_DIR, CONTROL_TEXT},
  {"request", CONTROL_FILE_HAS_REQUEST, CONTROL_TEXT},
  {"result", CONTROL_FILE_HAS_RESULT, CONTROL_TEXT},
  {"error", CONTROL_FILE_HAS_ERROR, CONTROL_TEXT},
};
#define CONTROL_KEY_COUNT (sizeof control_keys / sizeof control_keys[0])

static size_t control_key_index(const char *key)
{
  size_t i = 0;
  while (i < CONTROL_KEY_COUNT && strcmp(control_keys[i].key, key))
    i++;
  return i;
}

/* A key's value as text (numbers into number); NULL when absent. */
static const char *control_value(const struct control_file_registration *r, size_t i, char *number,
                                 size_t number_size)
{
  if (!(r->keys & control_keys[i].bit))
    return NULL;
  switch (control_keys[i].bit) {
  case CONTROL_FILE_HAS_PID: snprintf(number, number_size, "%ld", r->pid); return number;
  case CONTROL_FILE_HAS_PPID: snprintf(number, number_size, "%ld", r->ppid); return number;
  case CONTROL_FILE_HAS_UID:
    snprintf(number, number_size, "%llu", (unsigned long long)r->uid);
    return number;
  case CONTROL_FILE_HAS_STARTED:
    snprintf(number, number_size, "%llu", (unsigned long long)r->started);
    return number;
  case CONTROL_FILE_HAS_EXE: return r->exe;
  case CONTROL_FILE_HAS_LUAJIT: return r->luajit;
  case CONTROL_FILE_HAS_POLL: return r->poll;
  case CONTROL_FILE_HAS_REQUEST_FILE: return r->request_file;
  case CONTROL_FILE_HAS_ROOT: return r->root;
  case CONTROL_FILE_HAS_STATE: return r->state;
  case CONTROL_FILE_HAS_DIR: return r->dir;
  case CONTROL_FILE_HAS_REQUEST: return r->request;
  case CONTROL_FILE_HAS_RESULT: return r->result;
  default: return r->error;
  }
}


/* ---- The process and its run directory ---- */

/* A field of /proc/PID/status's "Uid:" line: the effective uid. -1: no process. */
static int control_process_uid(long pid, unsigned long *uid)
{
  char path[64], line[256];
  snprintf(path, sizeof path, "/proc/%ld/status", pid);
  FILE *f = fopen(path, "r");
  if (!f)
    return -1;
  int found = 0;
  while (!found && fgets(line, sizeof line, f)) {
    unsigned long real, effective;
    if (sscanf(line, "Uid:\t%lu\t%lu", &real, &effective) == 2) {
      *uid = effective;
      found = 1;
    }
  }
  fclose(f);
  return found ? 0 : -1;
}


/* "name (uid N)", or "uid N" for a user without a name. */
static void control_user(unsigned long uid, char *out, size_t size)
{
  struct passwd *pw = getpwuid((uid_t)uid);
  if (pw)
    snprintf(out, size, "%s (uid %lu)", pw->pw_name, uid);
  else
    snprintf(out, size, "uid %lu", uid);
}

/* What a subcommand run needs: the process, its run directory (held open:
 * every file in it is reached through run_fd, never by a path another user
 * could change between a check and a use), its files. */
struct control_target {
  long pid;
  unsigned long uid;
  int run_fd;
  char run_dir[PATH_MAX];
  char name[32];              /* <pid>, in run_fd */
  char path[PATH_MAX + 32];   /* <run_dir>/<pid>: for messages */
};

/* Finds the process and checks its run directory; returns CLI_EXIT_OK or prints why not. */
static int control_target(struct control_target *t, const char *run_dir)
{
  if (control_process_uid(t->pid, &t->uid) != 0) {
    fprintf(stderr, "ljleak control: no process %ld\n", t->pid);
    return CLI_EXIT_FLAGGED;
  }
  const char *env = getenv("LJLEAK_RUN_DIR");
  int n = 0;
  if (run_dir)
    n = snprintf(t->run_dir, sizeof t->run_dir, "%s", run_dir);
  else if (env && *env)
    n = snprintf(t->run_dir, sizeof t->run_dir, "%s", env);
  else if (!control_file_default_run_dir(t->uid, t->run_dir, sizeof t->run_dir))
    n = -1;
  if (n < 0 || (size_t)n >= sizeof t->run_dir) {
    fprintf(stderr, "ljleak control: error: the run directory's name is too long\n");
    return CLI_EXIT_INPUT;
  }
  control_file_name(t->pid, CONTROL_FILE_NAME_REGISTRATION, t->name, sizeof t->name);
  capture_layout_join(t->run_dir, t->name, t->path, sizeof t->path);
  /* As the collector requires: a directory (not a link) of the process's user
   * that no one else may write, so that no one else put its files there. */
  t->run_fd = open(t->run_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  struct stat st;
  if (t->run_fd < 0) {
    if (errno == ENOENT) {
      fprintf(stderr, "ljleak control: process %ld is not registered in %s (no such directory)\n",
              t->pid, t->run_dir);
      return CLI_EXIT_FLAGGED;
    }
    if (errno == ELOOP || errno == ENOTDIR) {
      fprintf(stderr, "ljleak control: process %ld is not registered in %s: it is %s\n", t->pid,
              t->run_dir, errno == ELOOP ? "a link" : "not a directory");
      return CLI_EXIT_FLAGGED;
    }
    fprintf(stderr, "ljleak control: error: %s: %s\n", t->run_dir, strerror(errno));
    return CLI_EXIT_INPUT;
  }
  if (fstat(t->run_fd, &st) != 0) {
    fprintf(stderr, "ljleak control: error: %s: %s\n", t->run_dir, strerror(errno));
    return CLI_EXIT_INPUT;
  }
  /* The collector registers in no other (an nginx master's run directory is
   * its workers'): whatever such a directory holds is not the process's. */
  char owner[300], user[300];
  control_user(st.st_uid, owner, sizeof owner);
  control_user(t->uid, user, sizeof user);
  if (st.st_uid != t->uid) {
    fprintf(stderr, "ljleak control: process %ld is not registered in %s: the directory belongs "
                    "to %s, not to the process's user %s (in /tmp, another user may have made "
                    "it first); have root make a run directory for %s where no one else can "
                    "(install -d -o USER -m 700 /run/ljleak) and give it to both sides "
                    "(LJLEAK_RUN_DIR to the process, --run-dir here)\n",
            t->pid, t->run_dir, owner, user, user);
    return CLI_EXIT_FLAGGED;
  }
  if (st.st_mode & 022) {
    fprintf(stderr, "ljleak control: process %ld is not registered in %s: others may write it "
                    "(mode %04o), so its files need not be the process's\n",
            t->pid, t->run_dir, (unsigned)(st.st_mode & 07777));
    return CLI_EXIT_FLAGGED;
  }
  return CLI_EXIT_OK;
}

/* Reads the registration (never through a link) and checks that it names the
 * process as it runs now. */
static int control_read(const struct control_target *t, struct control_file_registration *r)
{
  int fd = openat(t->run_fd, t->name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  struct stat st;
  /* Only the process's user writes there (checked): a file of another owner
   * is a hard link to someone else's file, not a registration. */
  if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != t->uid) {
    int why = fd < 0 ? errno : 0;
    if (fd >= 0)
      close(fd);
    if (why == ENOENT) {
      fprintf(stderr, "ljleak control: process %ld is not registered in %s\n", t->pid, t->run_dir);
      return CLI_EXIT_FLAGGED;
    }
    fprintf(stderr, "ljleak control: error: %s: %s\n", t->path,
            why == ELOOP ? "a link, not a registration"
            : why        ? strerror(why)
            : S_ISREG(st.st_mode) ? "not the process user's file" : "not a file");
    return CLI_EXIT_INPUT;
  }
  /* A registration is at most CONTROL_FILE_REGISTRATION_SIZE - 1 bytes; one
   * byte more shows a longer file, which is read cut there. */
  char data[CONTROL_FILE_REGISTRATION_SIZE];
  size_t size = 0;
  ssize_t n;
  while (size < sizeof data && (n = read(fd, data + size, sizeof data - size)) != 0) {
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      fprintf(stderr, "ljleak control: error: %s: cannot read: %s\n", t->path, strerror(errno));
      close(fd);
      return CLI_EXIT_INPUT;
    }
    size += (size_t)n;
  }
  close(fd);
  struct format_error error;
  enum format_status status = control_file_parse_registration(r, data, size, t->path, &error);
  if (status != FORMAT_OK) {
    char shown[UTF8_TERMINAL_SIZE(sizeof error.message)];  /* may quote the registration */
    fprintf(stderr, "ljleak control: error: %s\n", utf8_terminal_text(shown, sizeof shown, error.message));
    return cli_exit_for(status);
  }
  if (!r->has_header) {
    fprintf(stderr, "ljleak control: error: %s: byte 0: no ljleak-registration header\n", t->path);
    control_file_registration_free(r);
    return CLI_EXIT_INPUT;
  }
  unsigned long long started = 0;
  int alive = control_file_process_started(t->pid, &started) == 0;
  if (!(r->keys & CONTROL_FILE_HAS_PID) || r->pid != t->pid || !alive ||
      !(r->keys & CONTROL_FILE_HAS_STARTED) || r->started != started) {
    fprintf(stderr, "ljleak control: %s was left by an earlier process %ld, not the running one\n",
            t->path, t->pid);
    control_file_registration_free(r);
    return CLI_EXIT_FLAGGED;
  }
  return CLI_EXIT_OK;
}

/* ---- Reading ---- */

static int control_print(const struct control_file_registration *r, const char *format,
                         const size_t *gets, size_t get_count)
{
  struct cli_output out;
  int code = cli_output_open(&out, "control", NULL);
  if (code != CLI_EXIT_OK)
    return code;
  char number[32];
  if (get_count) {
    for (size_t g = 0; g < get_count; g++) {
      const char *value = control_value(r, gets[g], number, sizeof number);
      fprintf(out.file, "%s\n", value ? value : "");
    }
  } else if (!strcmp(format, "json")) {
    struct json_writer writer = {.out = out.file};
    json_write_open(&writer, '{');
    for (size_t i = 0; i < CONTROL_KEY_COUNT; i++) {
      const char *value = control_value(r, i, number, sizeof number);
      if (!value)
        continue;
      json_write_key(&writer, control_keys[i].key);
      if (control_keys[i].type == CONTROL_NUMBER)
        fputs(value, out.file);
      else
        json_write_string(out.file, value);
    }
    json_write_close(&writer, '}');
    fputc('\n', out.file);
  } else {
    for (size_t i = 0; i < CONTROL_KEY_COUNT; i++) {
      const char *value = control_value(r, i, number, sizeof number);
      if (value)
        fprintf(out.file, "%s=%s\n", control_keys[i].key, value);
    }
  }
  return cli_output_close(&out, NULL);
}

/* ---- Writing a request ---- */

/* Creates a new file of a random name beside <pid>.request in the run
 * directory (O_EXCL: never through a link someone planted there): its
 * descriptor, and its name in tmp; -1 with errno. */
static int control_create_request(const struct control_target *t, char *tmp, size_t size)
{
  static const char letters[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  for (int attempt = 0; attempt < 100; attempt++) {
    unsigned char random[12];
    if (getrandom(random, sizeof random, 0) != (ssize_t)sizeof random)
      return -1;
    char suffix[sizeof random + 1];
    for (size_t i = 0; i < sizeof random; i++)
      suffix[i] = letters[random[i] % (sizeof letters - 1)];
    suffix[sizeof random] = '\0';
    snprintf(tmp, size, "%s.request.%s", t->name, suffix);
    int fd = openat(t->run_fd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd >= 0 || errno != EEXIST)
      return fd;
  }
  return -1;
}

/* Writes text to a new file of a random name beside <pid>.request, readable
 * by all (the writer may be root, the collector not), and renames it over
 * <pid>.request, which replaces a link instead of following it; both in the
 * held run directory. */
static int control_write_request(const struct control_target *t, const char *text, size_t length)
{
  char path[PATH_MAX + 48], name[64], tmp[96];
  control_file_name(t->pid, CONTROL_FILE_NAME_REQUEST, name, sizeof name);
  capture_layout_join(t->run_dir, name, path, sizeof path);
  int fd = control_create_request(t, tmp, sizeof tmp);
  if (fd < 0) {
    fprintf(stderr, "ljleak control: error: cannot create a request beside %s: %s\n", path,
            strerror(errno));
    return CLI_EXIT_RUNTIME;
  }
  size_t done = 0;
  int failed = 0;
  while (!failed && done < length) {
    ssize_t n = write(fd, text + done, length - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      failed = 1;
    else
      done += (size_t)n;
  }
  int why = failed ? errno : 0;
  if (!failed && fchmod(fd, 0644) != 0)
    failed = 1, why = errno;
  if (close(fd) != 0 && !failed)
    failed = 1, why = errno;
  if (!failed && renameat(t->run_fd, tmp, t->run_fd, name) != 0)
    failed = 1, why = errno;
  if (failed) {
    unlinkat(t->run_fd, tmp, 0);
    fprintf(stderr, "ljleak control: error: cannot write %s: %s\n", path,
            why ? strerror(why) : "write error");
    return CLI_EXIT_RUNTIME;
  }
  return CLI_EXIT_OK;
}

/* A --set: KEY=VALUE with a key of lower-case letters, digits and '_'; root,
 * dir, id and action are not options. */
static int control_check_set(struct cli_args *args, const char *set)
{
  size_t key = strspn(set, "abcdefghijklmnopqrstuvwxyz0123456789_");
  if (key == 0 || set[key] != '=')
    return cli_bad_value(args, "--set", set, "KEY=VALUE, KEY in lower case");
  if (strchr(set, '\n'))
    return cli_bad_value(args, "--set", set, "one line");
  static const char *const reserved[] = {"root", "dir", "id", "action"};
  for (size_t i = 0; i < sizeof reserved / sizeof reserved[0]; i++)
    if (strlen(reserved[i]) == key && !strncmp(set, reserved[i], key))
      return cli_usage_error(args, "--set %s: %s", reserved[i],
                             i < 2 ? "give --root" : "not a capture option");
  return CLI_EXIT_OK;
}

/* Writes the request; CLI_EXIT_OK or the exit code after the message. */
static int control_request_write(const struct control_target *t, const char *action, const char *id,
                                 const char *root, const char **sets, size_t set_count)
{
  char cwd[PATH_MAX], *root_line = NULL;
  const char **options = calloc(set_count + 1, sizeof *options);
  if (!options) {
    fputs("ljleak control: error: out of memory\n", stderr);
    return CLI_EXIT_RUNTIME;
  }
  size_t count = 0;
  int code = CLI_EXIT_OK;
  if (root) {
    int relative = root[0] != '/';
    if (relative && !getcwd(cwd, sizeof cwd)) {
      fprintf(stderr, "ljleak control: error: cannot name the working directory: %s\n",
              strerror(errno));
      free(options);
      return CLI_EXIT_RUNTIME;
    }
    size_t size = strlen(root) + (relative ? strlen(cwd) + 1 : 0) + sizeof "root=";
    root_line = malloc(size);
    if (!root_line) {
      fputs("ljleak control: error: out of memory\n", stderr);
      free(options);
      return CLI_EXIT_RUNTIME;
    }
    snprintf(root_line, size, "root=%s%s%s", relative ? cwd : "", relative ? "/" : "", root);
    options[count++] = root_line;
  }
  for (size_t i = 0; i < set_count; i++)
    options[count++] = sets[i];
  struct control_file_request rq = {id, action, options, count};
  char text[CONTROL_FILE_REQUEST_MAX + 1];
  struct format_error error;
  size_t length = control_file_write_request(text, sizeof text, &rq, &error);
  if (!length) {
    char shown[UTF8_TERMINAL_SIZE(sizeof error.message)];  /* quotes the values */
    fprintf(stderr, "ljleak control: error: %s\n", utf8_terminal_text(shown, sizeof shown, error.message));
    code = CLI_EXIT_USAGE;
  }
  if (code == CLI_EXIT_OK)
    code = control_write_request(t, text, length);
  free(root_line);
  free(options);
  return code;
}

/* Writes the request and prints its id (the default one when id is NULL). */
static int control_request(const struct control_target *t, const char *action, const char *id,
                           const char *root, const char **sets, size_t set_count)
{
  char default_id[96];
  if (!id) {
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    snprintf(default_id, sizeof default_id, "ljleak-%ld-%lld%09ld", (long)getpid(),
             (long long)now.tv_sec, now.tv_nsec);
    id = default_id;
  }
  int code = control_request_write(t, action, id, root, sets, set_count);
  if (code == CLI_EXIT_OK) {
    struct cli_output out;
    code = cli_output_open(&out, "control", NULL);
    if (code == CLI_EXIT_OK) {
      fprintf(out.file, "%s\n", id);
      code = cli_output_close(&out, NULL);
    }
  }
  return code;
}

/* What ljleak control was asked. */
struct control_command {
  const char *format, *run_dir, *action, *id, *root, *pid_text;
  size_t *gets;                 /* the --get keys, by index */
  const char **sets;            /* the --set words */
  size_t get_count, set_count;
};

/* One argument of ljleak control's, an option or the process. */
static void control_argument(struct cli_args *args, const char *arg, int options_done,
                             struct control_command *c)
{
  const char *key = NULL, *set = NULL;
  if (!options_done && cli_option_text(args, "--format", &c->format)) {
    if (c->format && strcmp(c->format, "text") && strcmp(c->format, "json"))
      cli_bad_value(args, "--format", c->format, "text or json");
  } else if (!options_done && cli_option_text(args, "--get", &key)) {
    size_t i = key ? control_key_index(key) : 0;
    if (key && i == CONTROL_KEY_COUNT)
      cli_bad_value(args, "--get", key, "a key of ljleak control --help");
    else if (key)
      c->gets[c->get_count++] = i;
  } else if (!options_done && cli_option_text(args, "--run-dir", &c->run_dir)) {
  } else if (!options_done && cli_option_text(args, "--request", &c->action)) {
    if (c->action && strcmp(c->action, "start") && strcmp(c->action, "stop"))
      cli_bad_value(args, "--request", c->action, "start or stop");
  } else if (!options_done && cli_option_text(args, "--id", &c->id)) {
    if (c->id && strchr(c->id, '\n'))
      cli_bad_value(args, "--id", c->id, "one line");
  } else if (!options_done && cli_option_text(args, "--root", &c->root)) {
    if (c->root && (!*c->root || strchr(c->root, '\n')))
      cli_bad_value(args, "--root", c->root, "a directory's name on one line");
  } else if (!options_done && cli_option_text(args, "--set", &set)) {
    if (set && control_check_set(args, set) == CLI_EXIT_OK)
      c->sets[c->set_count++] = set;
  } else if (!options_done && arg[0] == '-' && arg[1] != '\0') {
    cli_unknown_option(args);
  } else if (c->pid_text) {
    cli_usage_error(args, "more than one process: %s", arg);
  } else {
    c->pid_text = arg;
  }
}

/* The process's id, and the options that do not go together. */
static void control_check(struct cli_args *args, const struct control_command *c, long *pid)
{
  if (!args->failed && !c->pid_text)
    cli_usage_error(args, "no process given");
  if (!args->failed) {
    char *end;
    errno = 0;
    *pid = strtol(c->pid_text, &end, 10);
    if (c->pid_text[0] < '0' || c->pid_text[0] > '9' || *end || errno || *pid <= 0)
      cli_bad_value(args, "PID", c->pid_text, "a process id");
  }
  if (!args->failed && c->action && (c->format || c->get_count))
    cli_usage_error(args, "--request writes a request: it takes no --format or --get");
  if (!args->failed && !c->action && (c->id || c->root || c->set_count))
    cli_usage_error(args, "--id, --root and --set go with --request");
  if (!args->failed && c->action && !strcmp(c->action, "stop") && (c->root || c->set_count))
    cli_usage_error(args, "--root and --set go with --request start");
  if (!args->failed && c->get_count && c->format && !strcmp(c->format, "json"))
    cli_usage_error(args, "--get prints plain values: it takes no --format json");
}

int cmd_control(int argc, char **argv)
{
  struct cli_args args;
  struct control_command c;
  memset(&c, 0, sizeof c);
  c.gets = calloc((size_t)(argc > 0 ? argc : 1), sizeof *c.gets);
  c.sets = calloc((size_t)(argc > 0 ? argc : 1), sizeof *c.sets);
  int options_done = 0;
  if (!c.gets || !c.sets) {
    free(c.gets);
    free(c.sets);
    fputs("ljleak control: error: out of memory\n", stderr);
    return CLI_EXIT_RUNTIME;
  }
  cli_args_init(&args, "control", control_usage_line, argc, argv);
  for (; args.index < argc && !args.failed; args.index++) {
    const char *arg = argv[args.index];
    if (!options_done && (!strcmp(arg, "-h") || !strcmp(arg, "--help"))) {
      free(c.gets);
      free(c.sets);
      cli_help(&args, control_help);
      return CLI_EXIT_OK;
    }
    if (!options_done && !strcmp(arg, "--"))
      options_done = 1;
    else
      control_argument(&args, arg, options_done, &c);
  }
  struct control_target target;
  memset(&target, 0, sizeof target);
  target.run_fd = -1;
  control_check(&args, &c, &target.pid);
  if (args.failed) {
    free(c.gets);
    free(c.sets);
    return CLI_EXIT_USAGE;
  }

  struct control_file_registration r;
  int code = control_target(&target, c.run_dir);
  if (code == CLI_EXIT_OK)
    code = control_read(&target, &r);
  if (code == CLI_EXIT_OK) {
    if (c.action)
      code = control_request(&target, c.action, c.id, c.root, c.sets, c.set_count);
    else
      code = control_print(&r, c.format ? c.format : "text", c.gets, c.get_count);
    control_file_registration_free(&r);
  }
  if (target.run_fd >= 0)
    close(target.run_fd);
  free(c.gets);
  free(c.sets);
  return code;
}

/* The target pid in run_dir, found and checked as ljleak control does; close t->run_fd after. */
static int control_open(struct control_target *t, long pid, const char *run_dir)
{
  memset(t, 0, sizeof *t);
  t->pid = pid;
  t->run_fd = -1;
  return control_target(t, run_dir);
}

int cli_control_read(long pid, const char *run_dir, struct control_file_registration *r)
{
  struct control_target t;
  int code = control_open(&t, pid, run_dir);
  if (code == CLI_EXIT_OK)
    code = control_read(&t, r);
  if (t.run_fd >= 0)
    close(t.run_fd);
  return code;
}

int cli_control_write(long pid, const char *run_dir, const char *action, const char *id)
{
  struct control_target t;
  int code = control_open(&t, pid, run_dir);
  if (code == CLI_EXIT_OK)
    code = control_request_write(&t, action, id, NULL, NULL, 0);
  if (t.run_fd >= 0)
    close(t.run_fd);
  return code;
}
