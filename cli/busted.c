/* cli/busted.c: ljleak busted: runs a busted suite under the collector, each test repeated in a capture of its own, and gives a leak verdict per test. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "collector/ljleak_collector.h"
#include "container/array.h"
#include "diff/tests.h"
#include "format/test_list.h"
#include "lauxlib.h"
#include "lua.h"
#include "report/report.h"
#include "busted_lua.h"   /* lua/ljleak/busted.lua as a C string (generated) */

/* Defaults, measured on testdata/busted (docs/busted.md, "How many runs"):
 * 2 warm-up runs (the first is the one busted reports) and 4 measured runs,
 * so that 5 boundaries are judged: the fewest at which a test that keeps
 * more with every run reaches p = 1/120 < 0.01. */
#define BUSTED_WARMUP 2
#define BUSTED_RUNS 4
#define BUSTED_MAX_RUNS 1000

static const char busted_usage_line[] =
    "usage: ljleak busted [--dir DIR] [--repeat W:M] [--junit FILE] [--json FILE] [--html FILE]\n"
    "                     [--text FILE] [--allow FILE] [--budget PATTERN=BYTES]... [--min-growth BYTES]\n"
    "                     [--stack-depth N] [--no-snapshot] [--busted SCRIPT] [--] [BUSTED ARGS...]\n"
    "   or: ljleak busted --judge DIR [output and verdict options]\n";

/* What --help prints after the usage line. */
static const char busted_help[] =
    "\n"
    "Runs a busted suite with the JIT on, each test W + M times (its before_each and\n"
    "after_each too) in a capture of its own, with a full GC cycle and a boundary\n"
    "after each run, and gives each test a verdict: leaking (what it keeps grows\n"
    "with its runs: its sites, stacks and holders), steady, undecided (why), or\n"
    "skipped (pending). busted sees and reports each test once (its first run).\n"
    "ljleak busted's options come first; the first argument it does not know, or\n"
    "the one after --, starts busted's own (busted's --repeat and -o go after --).\n"
    "\n"
    "    --dir DIR             where the captures go, one per test, and their list\n"
    "                          DIR/tests; a new or empty directory (default: a new\n"
    "                          ljleak-busted-<pid>-<time> in $LJLEAK_ROOT or the\n"
    "                          working directory)\n"
    "    --repeat W:M          W warm-up runs, then M measured runs (default 2:4)\n"
    "    --text FILE           the text report (default: stdout)\n"
    "    --junit FILE          JUnit XML: one testcase per busted test\n"
    "    --json FILE           the JSON result (docs/json-schema.md, \"ljleak busted\")\n"
    "    --html FILE           an HTML page\n"
    "    --allow FILE          sites that may grow within a budget, as for ljleak diff\n"
    "    --budget PATTERN=BYTES  tests whose full name (describe blocks and name) match\n"
    "                          the shell glob PATTERN may keep BYTES per run (k, M, G);\n"
    "                          repeatable, the first match counts\n"
    "    --min-growth BYTES    growth over the measured runs that matters (default 4096)\n"
    "    --stack-depth N       Lua frames recorded per allocation (default 16)\n"
    "    --no-snapshot         no heap snapshot at each test's last run: no holders\n"
    "    --busted SCRIPT       busted's main script (default: busted on PATH)\n"
    "    --judge DIR           judge the captures of an earlier ljleak busted run again\n"
    "    -h, --help            show this help\n"
    "\n"
    "exit status: 0 no test leaks and every test passed, 1 a test leaks or failed in\n"
    "busted, 5 inconclusive (a test undecided, nothing leaking or failed), 2 usage\n"
    "error, 3 unreadable captures, 4 the suite could not be run or a report written.\n";

struct busted_command {
  const char *dir, *judge, *script;
  const char *outputs[4];           /* text, junit, json, html */
  uint64_t warmup, runs;
  int stack_depth, no_snapshot;
  const char *run_option;           /* the first option that only a run takes, for --judge's refusal */
  struct diff_options options;
  const char *allow_path;
  struct diff_test_budget *budgets;
  size_t budget_count;
  int busted_args;                  /* index of busted's first argument in argv */
  FILE *list;                       /* DIR/tests, while the suite runs */
  uint64_t recorded;
  int record_failed;
  char dir_buffer[4096];
  char root_buffer[4096];           /* DIR made absolute: where the helper starts the captures */
  char script_buffer[4096];
};

static const enum report_format busted_formats[4] = {
  REPORT_FORMAT_TEXT, REPORT_FORMAT_JUNIT, REPORT_FORMAT_JSON, REPORT_FORMAT_HTML
};

/* ---- Inside the run: the host table of lua/ljleak/busted.lua ------------- */

static char *busted_field(lua_State *L, int table, const char *key)
{
  lua_getfield(L, table, key);
  const char *value = lua_isstring(L, -1) ? lua_tostring(L, -1) : NULL;
  char *copy = value ? strdup(value) : NULL;
  lua_pop(L, 1);
  return copy;
}

static uint64_t busted_number(lua_State *L, int table, const char *key)
{
  lua_getfield(L, table, key);
  lua_Number n = lua_isnumber(L, -1) ? lua_tonumber(L, -1) : 0;
  lua_pop(L, 1);
  return n > 0 ? (uint64_t)n : 0;
}

/* host.record{...}: one test, appended to DIR/tests as soon as it ran, so a
 * suite that crashes keeps the tests before. */
static int busted_record(lua_State *L)
{
  struct busted_command *c = lua_touserdata(L, lua_upvalueindex(1));
  luaL_checktype(L, 1, LUA_TTABLE);
  struct test_list_test t;
  memset(&t, 0, sizeof t);
  t.seq = ++c->recorded;
  t.capture = busted_field(L, 1, "capture");
  t.file = busted_field(L, 1, "file");
  t.line = busted_number(L, 1, "line");
  t.describe = busted_field(L, 1, "describe");
  t.name = busted_field(L, 1, "name");
  t.status = busted_field(L, 1, "status");
  t.message = busted_field(L, 1, "message");
  t.warmup = busted_number(L, 1, "warmup");
  t.runs = busted_number(L, 1, "runs");
  t.failed_run = busted_number(L, 1, "failed_run");
  t.capture_error = busted_field(L, 1, "capture_error");
  if (!t.name)
    t.name = strdup("");
  if (!t.status)
    t.status = strdup("error");
  if (test_list_write_test(c->list, &t) != 0 || fflush(c->list) != 0)
    c->record_failed = 1;
  free(t.capture);
  free(t.file);
  free(t.describe);
  free(t.name);
  free(t.status);
  free(t.message);
  free(t.capture_error);
  return 0;
}

/* host.discard(NAME): removes the capture DIR/NAME (four digits) of a test whose body never
 * ran, and its files: a capture no line of the test list names. Returns true, or nil and why. */
static int busted_discard(lua_State *L)
{
  struct busted_command *c = lua_touserdata(L, lua_upvalueindex(1));
  const char *name = luaL_checkstring(L, 1);
  if (strlen(name) != 4 || strspn(name, "0123456789") != 4)
    return luaL_argerror(L, 1, "a capture's four digits");
  int root = open(c->root_buffer, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  int fd = root < 0 ? -1 : openat(root, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  DIR *dir = fd < 0 ? NULL : fdopendir(fd);
  int error = dir ? 0 : errno;
  if (!dir && fd >= 0)
    close(fd);
  struct dirent *entry;
  while (dir && !error && (entry = readdir(dir)))
    if (strcmp(entry->d_name, ".") && strcmp(entry->d_name, "..") && unlinkat(dirfd(dir), entry->d_name, 0) != 0)
      error = errno;
  if (dir)
    closedir(dir);
  if (!error && unlinkat(root, name, AT_REMOVEDIR) != 0)
    error = errno;
  if (root >= 0)
    close(root);
  if (error) {
    lua_pushnil(L);
    lua_pushfstring(L, "cannot remove %s/%s: %s", c->root_buffer, name, strerror(error));
    return 2;
  }
  lua_pushboolean(L, 1);
  return 1;
}

static int busted_host(lua_State *L)
{
  struct busted_command *c = lua_touserdata(L, lua_upvalueindex(1));
  lua_createtable(L, 0, 7);
  lua_pushstring(L, c->root_buffer);
  lua_setfield(L, -2, "root");
  lua_pushnumber(L, (lua_Number)c->warmup);
  lua_setfield(L, -2, "warmup");
  lua_pushnumber(L, (lua_Number)c->runs);
  lua_setfield(L, -2, "runs");
  lua_pushnumber(L, c->stack_depth);
  lua_setfield(L, -2, "stack_depth");
  lua_pushboolean(L, !c->no_snapshot);
  lua_setfield(L, -2, "snapshot");
  lua_pushlightuserdata(L, c);
  lua_pushcclosure(L, busted_record, 1);
  lua_setfield(L, -2, "record");
  lua_pushlightuserdata(L, c);
  lua_pushcclosure(L, busted_discard, 1);
  lua_setfield(L, -2, "discard");
  return 1;
}

static int busted_module(lua_State *L)
{
  if (luaL_loadbuffer(L, busted_lua, sizeof busted_lua - 1, "=ljleak.busted") != 0)
    return lua_error(L);
  lua_call(L, 0, 1);
  return 1;
}

/* Before busted's script: the helper and its host table in package.preload. */
static void busted_prepare(lua_State *L, void *context)
{
  lua_getfield(L, LUA_REGISTRYINDEX, "_LOADED");
  lua_getfield(L, -1, "package");
  lua_getfield(L, -1, "preload");
  lua_pushlightuserdata(L, context);
  lua_pushcclosure(L, busted_host, 1);
  lua_setfield(L, -2, "ljleak.busted.host");
  lua_pushcfunction(L, busted_module);
  lua_setfield(L, -2, "ljleak.busted");
  lua_pop(L, 3);
}

/* ---- The command ----------------------------------------------------------- */

/* busted on PATH, as a shell finds it. */
static const char *busted_find_script(struct busted_command *c)
{
  const char *path = getenv("PATH");
  while (path && *path) {
    size_t n = strcspn(path, ":");
    snprintf(c->script_buffer, sizeof c->script_buffer, "%.*s/busted", (int)n, path);
    if (n && access(c->script_buffer, R_OK) == 0)
      return c->script_buffer;
    path += n + (path[n] == ':');
  }
  return NULL;
}

static int busted_add_budget(struct cli_args *args, struct busted_command *c, const char *value)
{
  const char *eq = strrchr(value, '=');
  uint64_t bytes;
  char size[64];
  if (!eq || eq == value || strlen(eq + 1) >= sizeof size)
    return cli_bad_value(args, "--budget", value, "PATTERN=BYTES");
  snprintf(size, sizeof size, "%s", eq + 1);
  if (ljleak_collector_parse_size(size, &bytes) != 0)
    return cli_bad_value(args, "--budget", value, "PATTERN=BYTES, BYTES with k, M or G");
  if (array_resize((void **)&c->budgets, c->budget_count + 1, sizeof *c->budgets) != 0)
    return cli_usage_error(args, "out of memory");
  struct diff_test_budget *more = c->budgets;
  more[c->budget_count].pattern = strndup(value, (size_t)(eq - value));
  more[c->budget_count].bytes_per_run = (double)bytes;
  if (!more[c->budget_count].pattern)
    return cli_usage_error(args, "out of memory");
  c->budget_count++;
  return 0;
}

static int busted_parse_repeat(struct cli_args *args, struct busted_command *c, const char *value)
{
  unsigned long long w, m;
  char extra;
  /* each count bounded before the sum, which would wrap for a count near 2^64; %llu would also take
   * a sign, spaces or a value past 2^64 (as its largest) */
  if (sscanf(value, "%llu:%llu%c", &w, &m, &extra) != 2 || w < 1 || m < 1 || w > BUSTED_MAX_RUNS ||
      m > BUSTED_MAX_RUNS || w + m > BUSTED_MAX_RUNS || strspn(value, "0123456789:") != strlen(value))
    return cli_bad_value(args, "--repeat", value, "W:M, at least one warm-up and one measured run");
  c->warmup = w;
  c->runs = m;
  return 0;
}

/* Parses ljleak busted's options; returns -1 to go on, else an exit code. */
static int busted_parse(int argc, char **argv, struct busted_command *c)
{
  struct cli_args args;
  const char *value = NULL;
  cli_args_init(&args, "busted", busted_usage_line, argc, argv);
  c->busted_args = argc;
  for (; args.index < argc && !args.failed; args.index++) {
    const char *a = argv[args.index];
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      cli_help(&args, busted_help);
      return CLI_EXIT_OK;
    } else if (!strcmp(a, "--")) {
      c->busted_args = args.index + 1;
      break;
    } else if (cli_option_text(&args, "--busted", &c->script)) {
      c->run_option = c->run_option ? c->run_option : "--busted";
    } else if (cli_option_text(&args, "--dir", &c->dir) || cli_option_text(&args, "--judge", &c->judge) ||
               cli_option_text(&args, "--text", &c->outputs[0]) ||
               cli_option_text(&args, "--junit", &c->outputs[1]) ||
               cli_option_text(&args, "--json", &c->outputs[2]) ||
               cli_option_text(&args, "--html", &c->outputs[3]) ||
               cli_option_text(&args, "--allow", &c->allow_path) ||
               cli_option_bytes(&args, "--min-growth", &c->options.min_growth_bytes)) {
      /* the value is in place, or the error reported */
    } else if (cli_option_text(&args, "--repeat", &value)) {
      c->run_option = c->run_option ? c->run_option : "--repeat";
      if (value)
        busted_parse_repeat(&args, c, value);
    } else if (cli_option_text(&args, "--budget", &value)) {
      if (value)
        busted_add_budget(&args, c, value);
    } else if (cli_option_stack_depth(&args, "--stack-depth", &c->stack_depth)) {
      c->run_option = c->run_option ? c->run_option : "--stack-depth";
    } else if (!strcmp(a, "--no-snapshot")) {
      c->no_snapshot = 1;
      c->run_option = c->run_option ? c->run_option : "--no-snapshot";
    } else {
      c->busted_args = args.index;  /* busted's own from here */
      break;
    }
  }
  if (args.failed)
    return CLI_EXIT_USAGE;
  if (c->judge && (c->dir || c->busted_args < argc))
    return cli_usage_error(&args, "--judge reads an earlier run: no --dir, no busted arguments");
  if (c->judge && c->run_option)  /* it would do nothing: the runs are made */
    return cli_usage_error(&args, "--judge reads an earlier run: %s applies to a run", c->run_option);
  return -1;
}

/* Whether path is a directory with nothing in it (one of mktemp -d's), as ljleak run -o takes. */
static int busted_dir_is_empty(const char *path)
{
  DIR *dir = opendir(path);
  if (!dir)
    return 0;
  struct dirent *entry;
  int empty = 1;
  while (empty && (entry = readdir(dir)))
    empty = !strcmp(entry->d_name, ".") || !strcmp(entry->d_name, "..");
  closedir(dir);
  return empty;
}

/* Creates the suite's directory (mode 0700), or takes an empty one, and its test list. */
static int busted_open_dir(struct busted_command *c)
{
  if (!c->dir) {
    const char *root = getenv("LJLEAK_ROOT");
    snprintf(c->dir_buffer, sizeof c->dir_buffer, "%s/ljleak-busted-%ld-%ld", root && *root ? root : ".",
             (long)getpid(), (long)time(NULL));
    c->dir = c->dir_buffer;
  }
  int made = mkdir(c->dir, 0700) == 0;
  int error = errno;  /* before busted_dir_is_empty's calls */
  if (!made && !(error == EEXIST && busted_dir_is_empty(c->dir))) {
    fprintf(stderr, "ljleak busted: cannot create %s: %s\n", c->dir,
            error == EEXIST ? "it exists and is not an empty directory" : strerror(error));
    return -1;
  }
  /* The captures' root absolute: busted's -C (--directory) changes the working directory
   * before the suite runs, and a relative DIR would then name another directory. */
  char *real = realpath(c->dir, NULL);
  const char *why = !real ? strerror(errno)
                  : (size_t)snprintf(c->root_buffer, sizeof c->root_buffer, "%s", real) >= sizeof c->root_buffer
                  ? "path too long" : NULL;
  free(real);
  if (why) {
    fprintf(stderr, "ljleak busted: cannot resolve %s: %s\n", c->dir, why);
    return -1;
  }
  char path[4200];
  snprintf(path, sizeof path, "%s/%s", c->dir, TEST_LIST_FILE);
  c->list = fopen(path, "wx");
  if (!c->list || test_list_write_header(c->list) != 0 || fflush(c->list) != 0) {
    fprintf(stderr, "ljleak busted: cannot write %s: %s\n", path, strerror(errno));
    if (c->list)
      fclose(c->list);
    c->list = NULL;
    return -1;
  }
  return 0;
}

/* busted's script, found before anything is made: one that does not read is a suite that could
 * not run (exit 4), not busted's failure (luajit's "cannot open" and exit 1 looked like one). */
static int busted_resolve_script(struct busted_command *c)
{
  if (!c->script && !(c->script = busted_find_script(c))) {
    fprintf(stderr, "ljleak busted: busted is not on PATH (install lua-busted, or give --busted SCRIPT)\n");
    return -1;
  }
  struct stat st;
  if (access(c->script, R_OK) != 0 || stat(c->script, &st) != 0) {
    fprintf(stderr, "ljleak busted: cannot read %s: %s\n", c->script, strerror(errno));
    return -1;
  }
  if (S_ISDIR(st.st_mode)) {
    fprintf(stderr, "ljleak busted: cannot read %s: %s\n", c->script, strerror(EISDIR));
    return -1;
  }
  return 0;
}

/* Runs busted's script as ljleak run would, without a capture of its own:
 * the helper starts one per test. Returns busted's exit status, or -1. */
static int busted_run_suite(struct busted_command *c, int argc, char **argv)
{
  const char *script = c->script;
  int busted_count = argc - c->busted_args;
  char **run_argv = calloc((size_t)busted_count + 8, sizeof *run_argv);
  if (!run_argv)
    return -1;
  int n = 0;
  run_argv[n++] = "run";
  run_argv[n++] = "-l";
  run_argv[n++] = "ljleak.busted";
  run_argv[n++] = (char *)script;
  run_argv[n++] = "--ignore-lua";  /* busted's --lua would run the suite again in another process */
  for (int i = c->busted_args; i < argc; i++)
    run_argv[n++] = argv[i];
  struct cli_run_host host = {0, busted_prepare, c};
  /* Back to this directory after the suite (busted's -C leaves the one it took), so that DIR
   * and the report files are where they were given. */
  int cwd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  int status = cli_run(n, run_argv, &host);
  free(run_argv);
  if (cwd >= 0) {
    if (fchdir(cwd) != 0) {
      fprintf(stderr, "ljleak busted: cannot return to the working directory: %s\n", strerror(errno));
      status = -1;
    }
    close(cwd);
  }
  return status;
}

static int busted_write_reports(struct busted_command *c, const struct diff_tests *tests)
{
  int rc = CLI_EXIT_OK;
  for (int i = 0; i < 4; i++) {
    if (!c->outputs[i] && i > 0)
      continue;
    struct cli_output output;
    if (cli_output_open(&output, "busted", c->outputs[i]) != CLI_EXIT_OK) {
      rc = CLI_EXIT_RUNTIME;
      continue;
    }
    struct report_options options;
    memset(&options, 0, sizeof options);
    options.color = 0;
    struct format_error error;
    enum format_status rendered = report_tests_render(tests, busted_formats[i], &options, output.file, &error);
    if (cli_output_close(&output, rendered != FORMAT_OK ? error.message : NULL) != CLI_EXIT_OK)
      rc = CLI_EXIT_RUNTIME;
  }
  return rc;
}

int cmd_busted(int argc, char **argv)
{
  struct busted_command c;
  memset(&c, 0, sizeof c);
  c.warmup = BUSTED_WARMUP;
  c.runs = BUSTED_RUNS;
  c.stack_depth = 16;
  diff_options_default(&c.options);
  int rc = busted_parse(argc, argv, &c);
  struct diff_allow *allow = NULL;
  int busted_status = 0;
  if (rc == -1 && c.allow_path) {
    struct format_error err;
    if (diff_allow_load(c.allow_path, &allow, &err) != FORMAT_OK) {
      fprintf(stderr, "ljleak busted: %s\n", err.message);
      rc = CLI_EXIT_USAGE;
    }
    c.options.allow = allow;
  }
  if (rc == -1 && !c.judge) {
    if (busted_resolve_script(&c) != 0 || busted_open_dir(&c) != 0) {
      rc = CLI_EXIT_RUNTIME;
    } else {
      busted_status = busted_run_suite(&c, argc, argv);
      if (fclose(c.list) != 0 || c.record_failed) {
        fprintf(stderr, "ljleak busted: cannot write %s/%s\n", c.dir, TEST_LIST_FILE);
        rc = CLI_EXIT_RUNTIME;
      } else if (busted_status < 0) {
        rc = CLI_EXIT_RUNTIME;
      }
    }
  }
  if (rc == -1) {
    struct diff_tests tests;
    struct format_error err;
    enum format_status status = diff_tests_judge(c.judge ? c.judge : c.dir, &c.options, c.budgets,
                                                 c.budget_count, &tests, &err);
    if (status != FORMAT_OK) {
      fprintf(stderr, "ljleak busted: %s\n", err.message);
      rc = cli_exit_for(status);
    } else {
      rc = busted_write_reports(&c, &tests);
      if (rc == CLI_EXIT_OK) {
        /* A leak or a test busted failed fails the run; then a test undecided. */
        rc = tests.outcome == DIFF_OUTCOME_FLAGGED || tests.failed || busted_status > 0 ? CLI_EXIT_FLAGGED
           : tests.outcome == DIFF_OUTCOME_INCONCLUSIVE ? CLI_EXIT_INCONCLUSIVE : CLI_EXIT_OK;
      }
      diff_tests_free(&tests);
    }
  }
  diff_allow_free(allow);
  for (size_t i = 0; i < c.budget_count; i++)
    free(c.budgets[i].pattern);
  free(c.budgets);
  return rc;
}
