/* cli/cli.h: the ljleak subcommands (each in cli/NAME.c) and what they share: exit codes, options, output. */
#ifndef LJLEAK_CLI_H
#define LJLEAK_CLI_H

#include <stddef.h>
#include <stdint.h>
#include <limits.h>
#include <stdio.h>
#include <time.h>

#include "collector/ljleak_collector.h"
#include "diff/diff.h"
#include "format/capture_index.h"
#include "format/input_file.h"

/* Exit codes shared by every subcommand (documented in README.md). */
enum cli_exit {
  CLI_EXIT_OK = 0,          /* success; for diff: nothing flagged */
  CLI_EXIT_FLAGGED = 1,     /* diff/report: a leak was flagged */
  CLI_EXIT_USAGE = 2,       /* bad command line */
  CLI_EXIT_INPUT = 3,       /* unreadable or corrupt input (or cut, with --strict) */
  CLI_EXIT_RUNTIME = 4,     /* run: the capture could not be made */
  CLI_EXIT_INCONCLUSIVE = 5 /* diff/report: nothing flagged, but a site rose without a
                               trend that the boundaries can show, or under 2 boundaries after the warm-up */
};

/* The exit code of a step's status (format/error.h): FORMAT_OK 0, out of memory 4, usage 2,
 * anything else (the input's fault) 3. */
int cli_exit_for(enum format_status status);

/* The exit code of a diff result, from the model's outcome (result->facts.outcome):
 * pass 0, flagged 1, inconclusive 5. diff and report both exit by it. */
int cli_result_exit(const struct diff_result *result);

/* ---- Options (cli/options.c) ------------------------------------------------
 * A subcommand walks its arguments with a struct cli_args. An option with a
 * value takes it as "NAME VALUE" or "NAME=VALUE". Every usage error is
 * reported the same way: "ljleak COMMAND: what is wrong" and the usage line
 * on stderr; the subcommand then exits with CLI_EXIT_USAGE. */

struct cli_args {
  const char *command;      /* "diff": names the subcommand in messages */
  const char *usage;        /* its usage line(s), printed after a usage error */
  int argc;
  char **argv;
  int index;                /* the argument being looked at */
  int failed;               /* a usage error was reported */
};

void cli_args_init(struct cli_args *args, const char *command, const char *usage, int argc,
                   char **argv);

/* --help: the usage line(s), then help (what the options do), on stdout. */
void cli_help(const struct cli_args *args, const char *help);
/* Reports a usage error (printf-style message), sets args->failed and
 * returns CLI_EXIT_USAGE. */
int cli_usage_error(struct cli_args *args, const char *format, ...)
    __attribute__((format(printf, 2, 3)));
/* The three usage errors every subcommand words alike: "unknown option
 * 'ARG'" for the argument being looked at, "NAME needs a value", and "bad
 * value 'VALUE' for NAME (WANTED)". Each returns CLI_EXIT_USAGE. */
int cli_unknown_option(struct cli_args *args);
int cli_missing_value(struct cli_args *args, const char *name);
int cli_bad_value(struct cli_args *args, const char *name, const char *value,
                  const char *wanted);

/* Matches argv[*i] against an option that takes a value, given as "NAME VALUE"
 * or "NAME=VALUE". Returns 1 on a match (advancing *i past a separate value;
 * *value is NULL when the value is missing), 0 otherwise. */
int cli_option_value(int argc, char **argv, int *i, const char *name, const char **value);

/* The option matchers: each looks at the argument args->index and returns 0
 * when it is not option NAME. On a match it returns 1, with args->index past
 * a separate value and *out set; or, for a missing or bad value, with the
 * error reported, args->failed set and *out unchanged. */
int cli_option_text(struct cli_args *args, const char *name, const char **out);
/* A whole decimal number from min to max. */
int cli_option_count(struct cli_args *args, const char *name, size_t min, size_t max,
                     size_t *out);
/* A non-negative decimal number ("0.01", "1e-3") up to max (HUGE_VAL: no limit). */
int cli_option_number(struct cli_args *args, const char *name, double max, double *out);
/* A byte count with an optional k, M or G suffix ("4096", "64k", "8M", "1G"),
 * read by ljleak_collector_parse_size. */
int cli_option_size(struct cli_args *args, const char *name, uint64_t *out);
/* The same as a double; a plain number with a fraction or an exponent is
 * taken too ("1e6"), as options kept as doubles always took it. */
int cli_option_bytes(struct cli_args *args, const char *name, double *out);
/* Non-negative seconds ("2.5"), read by ljleak_collector_parse_seconds. */
int cli_option_seconds(struct cli_args *args, const char *name, double *out);
/* A call stack depth, in frames: a whole number from 0 to LJLEAK_COLLECTOR_MAX_STACK_DEPTH. */
int cli_option_stack_depth(struct cli_args *args, const char *name, int *out);

/* ---- Output (cli/output.c) --------------------------------------------------
 * Where a subcommand writes: the file of -o, or stdout. Opening, flushing and
 * closing are checked, and a failure names the file. */

struct cli_output {
  const char *command;      /* "diff": names the subcommand in messages */
  const char *name;         /* the file as given, or "stdout" */
  FILE *file;
  char tmp[PATH_MAX + 32];  /* the new file beside name, renamed over it at close; "" if none */
};

/* Opens path for writing (NULL or "-": stdout). A file is written as a new
 * file beside path (O_EXCL, the mode umask gives) and renamed over path when
 * closed without error: a link at path is replaced, not followed, and a
 * failed run leaves path as it was. A device or a pipe is written as it is.
 * Returns CLI_EXIT_OK, or prints "ljleak COMMAND: error: PATH: reason" and
 * returns CLI_EXIT_RUNTIME. */
int cli_output_open(struct cli_output *output, const char *command, const char *path);
/* Flushes the output and closes a file (stdout stays open). error is the
 * writer's message when it failed, else NULL. Returns CLI_EXIT_OK, or prints
 * "ljleak COMMAND: error: NAME: reason" (a write failed) or "ljleak COMMAND:
 * error: ERROR" (the writer failed otherwise) and returns CLI_EXIT_RUNTIME. */
int cli_output_close(struct cli_output *output, const char *error);

/* ---- The subcommands --------------------------------------------------------- */

int cmd_summary(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_control(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_snapshot(int argc, char **argv);
/* What ljleak snapshot prints of file, read as how says (format/input_file.h), checked against
 * the capture of capture (NULL: of the file's directory, if it is one): the summary, or its
 * first holders ones holding most (0: the summary). An exit code. */
int cli_snapshot_show(const char *file, enum input_file_how how, const char *capture, size_t holders);
int cmd_busted(int argc, char **argv);
int cmd_attach(int argc, char **argv);

/* ---- ljleak run's machinery for another subcommand (cli/run.c) -------------
 * cli_run runs argv as ljleak run would (argv[0] "run"); with a host,
 * prepare(L, context) runs once the libraries are open, before LUA_INIT,
 * -e, -l and the script; with capture 0 no capture starts with the script
 * (the host starts its own). */
struct lua_State;
struct cli_run_host {
  int capture;
  void (*prepare)(struct lua_State *L, void *context);
  void *context;
};
int cli_run(int argc, char **argv, const struct cli_run_host *host);

/* ---- The capture options ljleak run and ljleak attach share (cli/run.c) ------- */
struct cli_capture_options {
  struct ljleak_collector_options opt;
  int explicit_dir;                            /* -o was given */
  char labels[CAPTURE_INDEX_LABELS_MAX + 1];   /* the --label options, joined by ',' */
  int labels_given;
  uint64_t snapshots;                          /* --snapshots: 0 for none */
  char env_error[512];                         /* the first malformed LJLEAK_* variable, or "" */
};
/* The defaults: the collector's and the LJLEAK_* variables, edge_gc on (unless LJLEAK_EDGE_GC
 * says), 2 snapshots. A malformed variable is skipped and described in env_error. */
void cli_capture_options_init(struct cli_capture_options *c);
/* After the command line: a usage error (CLI_EXIT_USAGE) if a variable was malformed, as the
 * module's start refuses one; else 0. */
int cli_capture_env_check(struct cli_args *args, const struct cli_capture_options *c);
/* Matches the argument args->index against a capture option (-o, --period, --max-bytes,
 * --max-total-bytes, --sample, --every, --duration, --stack-depth, --label, --snapshots, --gzip,
 * --values, --force-gc, --no-edge-gc): as the cli_option matchers, 1 (the value in place or the
 * error reported) or 0 when it is none of them. */
int cli_capture_option(struct cli_args *args, struct cli_capture_options *c);

/* ---- The control channel for another subcommand (cli/control.c) ------------- */
struct control_file_registration;
/* Reads process pid's registration in run_dir (NULL: LJLEAK_RUN_DIR or the default), checked
 * as ljleak control checks it; messages as ljleak control's. CLI_EXIT_OK (free it with
 * control_file_registration_free), else ljleak control's exit code. */
int cli_control_read(long pid, const char *run_dir, struct control_file_registration *r);
/* Writes a request (start or stop) with id to process pid's collector, as ljleak control
 * --request does, without printing the id. CLI_EXIT_OK or ljleak control's exit code. */
int cli_control_write(long pid, const char *run_dir, const char *action, const char *id);

/* ---- ljleak attach's debugger step (cli/attach_gdb.c) ------------------------ */
struct cli_attach_gdb {
  const char *gdb;          /* the debugger to run */
  long pid;
  const char *collector;    /* the collector's shared object, an absolute path */
  const char *step;         /* "attach", "cancel" or "poll" (ljleak_collector.h) */
  const char *request;      /* attach: the start request's text */
  const char *state;        /* attach: the Lua state's address, or NULL */
  double wait;              /* seconds to wait for a safe stop */
  unsigned long uid;        /* the process's effective uid and start time when attach began: */
  unsigned long long started; /* no call into it when it has another since (su, a new pid) */
  char answer[1024];        /* the script's last word: "armed", "refused WHY", "nosafe", ... */
};
/* Runs the step under gdb: 0 with the answer, or -1 when gdb could not be run (why in answer). */
int cli_attach_gdb_run(struct cli_attach_gdb *step);
/* attach --snapshot's report (cli/attach_reader.c): what holds the heap at the capture dir's
 * first snapshot, as ljleak snapshot --holders prints it, read by a child that drops to uid and
 * gid (when root and uid is not 0), killed past wait plus 1 s per 10 MB of the capture. Its
 * output is relayed, escaped, to stdout and stderr. An exit code (4: the reading did not end). */
int cli_attach_read_snapshot(const char *dir, unsigned long uid, unsigned long gid, double wait);
/* Seconds of CLOCK_MONOTONIC since start (cli/attach_gdb.c): attach's bounded waits. */
double cli_attach_seconds_since(const struct timespec *start);
/* Makes the missing capture directory dir (absolute) for the user uid and gid of the process
 * (cli/attach_dir.c): root makes it and gives it to them only below directories that only root
 * can change, else they make it. 0, or an errno. */
int cli_attach_make_dir(const char *dir, unsigned long uid, unsigned long gid);
/* Removes dir, made by cli_attach_make_dir, when empty; 0 or an errno. */
int cli_attach_remove_dir(const char *dir, unsigned long uid, unsigned long gid);

#endif
