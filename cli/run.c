/* cli/run.c: ljleak run: runs a Lua script like luajit does, while the collector captures it. */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "collector/ljleak_collector.h"
#include "collector/options.h"
#include "format/capture_index.h"
#include "lauxlib.h"
#include "lua.h"
#include "luajit.h"
#include "lualib.h"

/* Error messages carry luajit's program name, as users compare them with luajit's. */
#define RUN_PROGNAME "luajit"
#define RUN_STRING_(x) #x
#define RUN_STRING(x) RUN_STRING_(x)  /* a constant's value, in the usage text */

static const char run_usage[] =
  "usage: ljleak run [-o DIR] [--period SECONDS] [--max-bytes N] [--max-total-bytes N]\n"
  "                  [--sample BYTES] [--gzip] [--duration SECONDS] [--force-gc]\n"
  "                  [--every BYTES] [--no-edge-gc] [--stack-depth N] [--snapshots N|none]\n"
  "                  [--values] [--label KEY=VALUE]... [-e CHUNK] [-l LIB] [-j CMD] [-O[OPT]]\n"
  "                  [-E] [-v] SCRIPT [ARGS...]\n";

static const char run_help[] =
  "\n"
  "Runs SCRIPT with ARGS as `luajit SCRIPT ARGS` would (same arg table, exit\n"
  "status and error messages) while capturing its allocations into DIR: one\n"
  "memprof segments (storage, cut by --period and --max-bytes) and an index\n"
  "that records a boundary at the end of every full GC cycle.\n"
  "\n"
  "  -o DIR                capture directory (default: a new ljleak-<pid>-<time>\n"
  "                        in $LJLEAK_ROOT or the working directory)\n"
  "  --period SECONDS      start a new segment after this long (storage only)\n"
  "  --max-bytes N         start a new segment after N stream bytes (k, M, G suffixes)\n"
  "  --max-total-bytes N   stop capturing once N bytes were written\n"
  "  --sample BYTES        record allocations sampled with this mean interval\n"
  "  --gzip                compress segments with zlib\n"
  "  --duration SECONDS    stop capturing after this long\n"
  "  --force-gc            force a full GC cycle at each due segment boundary\n"
  "  --every BYTES         force a full GC cycle, a boundary, after every BYTES allocated\n"
  "  --no-edge-gc          no full GC cycle when the capture starts and stops (they\n"
  "                        give it a first and a last exact boundary)\n"
  "  --stack-depth N       Lua frames recorded per allocation, in a .stacks file\n"
  "                        beside each segment (default 16, at most "
  RUN_STRING(LJLEAK_COLLECTOR_MAX_STACK_DEPTH) "; 0: none)\n"
  "  --label KEY=VALUE     a label recorded in the index (release, region, role),\n"
  "                        for reports and ljleak merge; repeatable, at most 16\n"
  "  --snapshots N|none    heap snapshots (snap-NNNN.heap, see ljleak snapshot): one\n"
  "                        at the main chunk's return, with what its locals hold, N-1\n"
  "                        in the middle of the run (default 2; none: no snapshot)\n"
  "  --values              beside each heap snapshot, the first bytes of every live\n"
  "                        string and the first keys of every table (snap-NNNN.values,\n"
  "                        for ljleak diff --values). Values can be secrets: off by\n"
  "                        default; the files are the capture's, mode 0600\n"
  "  -e CHUNK              run the Lua string CHUNK first (as luajit -e)\n"
  "  -l LIB                require LIB first (as luajit -l)\n"
  "  -j CMD                LuaJIT control command first (as luajit -j, e.g. -j off)\n"
  "  -O[OPT]               JIT optimization level or flags (as luajit -O, e.g. -O3, -O-fold)\n"
  "  -E                    ignore LUA_INIT, LUA_PATH and LUA_CPATH (as luajit -E)\n"
  "  -v                    print the LuaJIT version first (as luajit -v); when the\n"
  "                        script returns, print on stderr how many allocations\n"
  "                        by compiled code were charged to their Lua line\n"
  "\n"
  "LUA_INIT is run first, as luajit does. luajit's -b (save bytecode) and -i\n"
  "(interactive) run no script to capture and are refused.\n"
  "Options also come from LJLEAK_DIR, LJLEAK_ROOT, LJLEAK_PERIOD, LJLEAK_MAX_BYTES,\n"
  "LJLEAK_MAX_TOTAL_BYTES, LJLEAK_SAMPLE, LJLEAK_GZIP, LJLEAK_DURATION, LJLEAK_FORCE_GC,\n"
  "LJLEAK_EVERY, LJLEAK_EDGE_GC, LJLEAK_STACK_DEPTH, LJLEAK_LABELS (--label replaces it),\n"
  "LJLEAK_VALUES, LJLEAK_SNAPSHOTS (those in the middle: as --snapshots one more).\n"
  "Exit status: the script's; 4 if the capture could not start; 2 on bad usage.\n";

/* One -e, -l, -j or -O, run in command-line order. */
struct run_action {
  char kind;
  const char *text;
};

struct run_job {
  int argc;                 /* of the runner's argv (argv[0] is "run") */
  char **argv;
  int script;               /* index of SCRIPT in argv */
  struct run_action *actions;
  int nactions;
  struct cli_capture_options capture;
  int status;               /* the exit status to return */
  int no_env;               /* -E */
  int version;              /* -v */
  int capture_failed;
  const struct cli_run_host *host;  /* another subcommand's (ljleak busted), or NULL */
  int last_snapshot_due;    /* the return boundary was asked for the last snapshot */
};

static void message(const char *msg)
{
  fprintf(stderr, "%s: %s\n", RUN_PROGNAME, msg);
  fflush(stderr);
}

static int report(lua_State *L, int status)
{
  if (status && !lua_isnil(L, -1)) {
    const char *msg = lua_tostring(L, -1);
    message(msg ? msg : "(error object is not a string)");
    lua_pop(L, 1);
  }
  return status;
}

static int traceback(lua_State *L)
{
  if (!lua_isstring(L, 1)) {
    if (lua_isnoneornil(L, 1) || !luaL_callmeta(L, 1, "__tostring") || !lua_isstring(L, -1))
      return 1;
    lua_remove(L, 1);
  }
  luaL_traceback(L, L, lua_tostring(L, 1), 1);
  return 1;
}

/* Calls the function below narg arguments under a traceback handler; a
 * main chunk's frame (non-NULL frame) is noted once the handler is below it. */
static int docall(lua_State *L, int narg, int clear, struct ljleak_collector_frame *frame)
{
  int base = lua_gettop(L) - narg;
  lua_pushcfunction(L, traceback);
  lua_insert(L, base);
  if (frame)
    ljleak_collector_frame_of(L, base + 1, narg, frame);
  int status = lua_pcall(L, narg, clear ? 0 : LUA_MULTRET, base);
  lua_remove(L, base);
  if (status != 0)
    lua_gc(L, LUA_GCCOLLECT, 0);
  return status;
}

static int dostring(lua_State *L, const char *s)
{
  return report(L, luaL_loadbuffer(L, s, strlen(s), "=(command line)") || docall(L, 0, 1, NULL));
}

static int dolibrary(lua_State *L, const char *name)
{
  lua_getglobal(L, "require");
  lua_pushstring(L, name);
  return report(L, docall(L, 1, 1, NULL));
}

static int runcmdopt(lua_State *L, const char *opt);

/* -j CMD[=ARG,...]: a function of the jit table, or the start of module jit.CMD. */
static int dojitcmd(lua_State *L, const char *cmd)
{
  const char *opt = strchr(cmd, '=');
  lua_pushlstring(L, cmd, opt ? (size_t)(opt - cmd) : strlen(cmd));
  lua_getfield(L, LUA_REGISTRYINDEX, "_LOADED");
  lua_getfield(L, -1, "jit");
  lua_remove(L, -2);
  lua_pushvalue(L, -2);
  lua_gettable(L, -2);
  if (!lua_isfunction(L, -1)) {
    lua_pop(L, 2);
    lua_getglobal(L, "require");
    lua_pushliteral(L, "jit.");
    lua_pushvalue(L, -3);
    lua_concat(L, 2);
    if (lua_pcall(L, 1, 1, 0)) {
      const char *msg = lua_tostring(L, -1);
      if (!msg || strncmp(msg, "module ", 7))
        return report(L, 1);
      message("unknown luaJIT command or jit.* modules not installed");
      return 1;
    }
    lua_getfield(L, -1, "start");
    if (lua_isnil(L, -1)) {
      message("unknown luaJIT command or jit.* modules not installed");
      return 1;
    }
    lua_remove(L, -2);
  } else {
    lua_remove(L, -2);
  }
  lua_remove(L, -2);
  return runcmdopt(L, opt ? opt + 1 : NULL);
}

/* Calls the function on the stack with the comma-separated arguments in opt
 * (none if opt is NULL or empty), as luajit does for -j and -O. */
static int runcmdopt(lua_State *L, const char *opt)
{
  int narg = 0;
  if (opt && *opt) {
    for (;;) {
      const char *p = strchr(opt, ',');
      narg++;
      if (!p)
        break;
      if (p == opt)
        lua_pushnil(L);
      else
        lua_pushlstring(L, opt, (size_t)(p - opt));
      opt = p + 1;
    }
    if (*opt)
      lua_pushstring(L, opt);
    else
      lua_pushnil(L);
  }
  return report(L, lua_pcall(L, narg, 0, 0));
}

/* -O[OPT,...]: jit.opt.start(OPT, ...). */
static int dojitopt(lua_State *L, const char *opt)
{
  lua_getfield(L, LUA_REGISTRYINDEX, "_LOADED");
  lua_getfield(L, -1, "jit.opt");
  lua_remove(L, -2);
  if (!lua_istable(L, -1)) {
    lua_pop(L, 1);
    message("unknown luaJIT command or jit.* modules not installed");
    return 1;
  }
  lua_getfield(L, -1, "start");
  lua_remove(L, -2);
  return runcmdopt(L, opt);
}

/* arg: arg[0] the script, arg[1..] its arguments, negative indices the
 * command before it, down to "ljleak". */
static void create_arg_table(lua_State *L, const struct run_job *job)
{
  int before = job->script + 1; /* "ljleak" plus argv[0..script-1] */
  lua_createtable(L, job->argc - job->script, before);
  lua_pushliteral(L, "ljleak");
  lua_rawseti(L, -2, -before);
  for (int i = 0; i < job->argc; i++) {
    lua_pushstring(L, job->argv[i]);
    lua_rawseti(L, -2, i - job->script);
  }
  lua_setglobal(L, "arg");
}

/* The main chunk has just returned (nothing has allocated since): the one
 * place where the program's whole state is still there to be seen, its
 * main chunk's locals included. The run's last counted boundary is taken
 * here; whatever else must see the state at the end of the run belongs
 * here too, between hold and release. */
static void run_main_returned(lua_State *L, struct run_job *job, struct ljleak_collector_frame *frame)
{
  char err[512];
  struct ljleak_collector_status st;
  ljleak_collector_status(&st);
  if (!st.active)
    return;  /* a host's run whose captures ended with their tests */
  ljleak_collector_frame_hold(L, frame);
  /* The last heap snapshot goes with this boundary: the holders of what
   * the main chunk's locals keep are named too. */
  if (job->capture.snapshots && ljleak_collector_snapshot_next(L, err, sizeof err) == 0)
    job->last_snapshot_due = 1;
  if (ljleak_collector_return_boundary(L, err, sizeof err) != 0)
    fprintf(stderr, "ljleak: %s\n", err);
  ljleak_collector_frame_release(L, frame);
}

static int handle_script(lua_State *L, struct run_job *job, const char *fname)
{
  if (!strcmp(fname, "-"))
    fname = NULL;
  int status = luaL_loadfile(L, fname);
  if (status == 0) {
    int narg = 0;
    lua_getglobal(L, "arg");
    if (lua_istable(L, -1)) {
      do {
        narg++;
        lua_rawgeti(L, -narg, narg);
      } while (!lua_isnil(L, -1));
      lua_pop(L, 1);
      lua_remove(L, -narg);
      narg--;
    } else {
      lua_pop(L, 1);
    }
    struct ljleak_collector_frame frame;
    status = docall(L, narg, 0, &frame);
    if (status == 0)
      run_main_returned(L, job, &frame);
  }
  return report(L, status);
}

/* -v: how many allocations of compiled code got their Lua line. */
static void print_trace_lines(void)
{
  struct ljleak_collector_status st;
  ljleak_collector_status(&st);
  if (st.trace_allocations == 0) {
    fprintf(stderr, "ljleak: no allocations by compiled code\n");
    return;
  }
  double share = 100.0 * (double)st.trace_lines / (double)st.trace_allocations;
  fprintf(stderr, "ljleak: %llu allocations by compiled code, %llu (%.1f%%) charged to their line\n",
          (unsigned long long)st.trace_allocations, (unsigned long long)st.trace_lines, share);
}

static int pmain(lua_State *L)
{
  struct run_job *job = lua_touserdata(L, 1);
  lua_settop(L, 0);
  if (job->no_env) {
    /* Read by the package library as it opens: no LUA_PATH or LUA_CPATH. */
    lua_pushboolean(L, 1);
    lua_setfield(L, LUA_REGISTRYINDEX, "LUA_NOENV");
  }
  lua_gc(L, LUA_GCSTOP, 0);
  luaL_openlibs(L);
  lua_gc(L, LUA_GCRESTART, 0);
  /* require "ljleak.collector" inside the run uses this very collector. */
  lua_getfield(L, LUA_REGISTRYINDEX, "_LOADED");
  lua_getfield(L, -1, "package");
  lua_getfield(L, -1, "preload");
  lua_pushcfunction(L, luaopen_ljleak_collector);
  lua_setfield(L, -2, "ljleak.collector");
  lua_settop(L, 0);
  create_arg_table(L, job);
  if (job->host && job->host->prepare)
    job->host->prepare(L, job->host->context);

  char err[512];
  if (job->host && !job->host->capture) {
    /* the host starts its own captures */
  } else if (ljleak_collector_start(L, &job->capture.opt, err, sizeof err) != 0) {
    fprintf(stderr, "ljleak run: cannot start the capture: %s\n", err);
    job->capture_failed = 1;
    return 0;
  }
  if (!job->capture.explicit_dir && (!job->host || job->host->capture)) {
    struct ljleak_collector_status st;
    ljleak_collector_status(&st);
    fprintf(stderr, "ljleak: capturing into %s\n", st.dir);
  }
  if (job->version)
    fprintf(stdout, "%s -- %s. %s\n", LUAJIT_VERSION, LUAJIT_COPYRIGHT, LUAJIT_URL);
  /* LUA_INIT, as luajit runs it: "@file" or a chunk. */
  const char *init = job->no_env ? NULL : getenv("LUA_INIT");
  if (init && *init) {
    int rc = init[0] == '@'
               ? report(L, luaL_loadfile(L, init + 1) || docall(L, 0, 1, NULL))
               : report(L, luaL_loadbuffer(L, init, strlen(init), "=LUA_INIT") || docall(L, 0, 1, NULL));
    if (rc) {
      job->status = 1;
      return 0;
    }
  }
  for (int i = 0; i < job->nactions; i++) {
    const struct run_action *a = &job->actions[i];
    int rc = a->kind == 'e' ? dostring(L, a->text)
           : a->kind == 'l' ? dolibrary(L, a->text)
           : a->kind == 'O' ? dojitopt(L, a->text)
                            : dojitcmd(L, a->text);
    if (rc) {
      job->status = 1;
      return 0;
    }
  }
  if (handle_script(L, job, job->argv[job->script]))
    job->status = 1;
  return 0;
}

/* A size option within the collector's limit for it (ljleak_collector.h):
 * past it, a usage error, as for --stack-depth. Returns as cli_option_size. */
static int run_option_size(struct cli_args *args, const char *name, uint64_t max, uint64_t *out)
{
  uint64_t size = *out;
  if (!cli_option_size(args, name, &size))
    return 0;
  if (!args->failed && size > max)
    cli_usage_error(args, "%s must be 0 to %" PRIu64 " bytes", name, max);
  else if (!args->failed)
    *out = size;
  return 1;
}

/* --label KEY=VALUE: appended to job's list, which must stay one the index
 * takes (format/capture_index.h); else a usage error. */
static void run_add_label(struct cli_args *args, struct cli_capture_options *job, const char *label)
{
  struct format_error why;
  size_t used = job->labels_given ? strlen(job->labels) : 0;
  if (strchr(label, ',') || used + 1 + strlen(label) >= sizeof job->labels) {
    cli_bad_value(args, "--label", label, "KEY=VALUE without ','");
    return;
  }
  snprintf(job->labels + used, sizeof job->labels - used, "%s%s", used ? "," : "", label);
  if (capture_index_labels_check(job->labels, &why) != FORMAT_OK) {
    job->labels[used] = '\0';
    cli_usage_error(args, "--label %s: %s", label, why.message);
    return;
  }
  job->labels_given = 1;
  job->opt.labels = job->labels;
}

/* A capture option without a value (--gzip, ...) set in c: 1, or 0 when a is none. */
static int capture_flag(const char *a, struct cli_capture_options *c)
{
  if (!strcmp(a, "--gzip"))
    c->opt.gzip = 1;
  else if (!strcmp(a, "--values"))
    c->opt.values = 1;
  else if (!strcmp(a, "--force-gc"))
    c->opt.force_gc = 1;
  else if (!strcmp(a, "--no-edge-gc"))
    c->opt.edge_gc = 0;
  else
    return 0;
  return 1;
}

/* ljleak run's own option without a value (-E, -v) set in job: 1, or 0 when a is none. */
static int run_flag(const char *a, struct run_job *job)
{
  if (!strcmp(a, "-E"))
    job->no_env = 1;
  else if (!strcmp(a, "-v"))
    job->version = 1;
  else
    return 0;
  return 1;
}

void cli_capture_options_init(struct cli_capture_options *c)
{
  memset(c, 0, sizeof *c);
  coll_options_from_env(&c->opt, coll_options_process_env, NULL, c->env_error, sizeof c->env_error);
  /* Every capture gets a first and a last exact boundary, unless LJLEAK_EDGE_GC says otherwise;
   * set empty it says nothing, as every LJLEAK_ variable (it turned them off). */
  const char *edge = getenv("LJLEAK_EDGE_GC");
  if (!edge || !*edge)
    c->opt.edge_gc = 1;
  /* LJLEAK_SNAPSHOTS counts those in the middle, as for the module; the run takes one more at the
   * main chunk's return. Set over, it was ignored without a word. */
  const char *snapshots = getenv("LJLEAK_SNAPSHOTS");
  c->snapshots = snapshots && *snapshots ? c->opt.snapshots + 1 : 2;
}

int cli_capture_env_check(struct cli_args *args, const struct cli_capture_options *c)
{
  /* Skipped, the capture would run on another setting than the one asked for (LJLEAK_SAMPLE=2g
   * recorded every event), and nothing said. */
  if (c->env_error[0])
    return cli_usage_error(args, "%s", c->env_error);
  return 0;
}

int cli_capture_option(struct cli_args *args, struct cli_capture_options *c)
{
  char *a = args->argv[args->index];
  const char *label = NULL, *snapshots = NULL;
  if (cli_option_text(args, "-o", &c->opt.dir) || cli_option_text(args, "--dir", &c->opt.dir)) {
    /* An empty one would be no -o: a directory named for the run, and not said where. */
    if (!args->failed && !*c->opt.dir)
      cli_bad_value(args, strncmp(a, "--dir", 5) ? "-o" : "--dir", "", "a directory");
    c->explicit_dir = 1;
  } else if (cli_option_seconds(args, "--period", &c->opt.period) ||
             run_option_size(args, "--max-bytes", LJLEAK_COLLECTOR_MAX_SIZE, &c->opt.max_bytes) ||
             run_option_size(args, "--max-total-bytes", LJLEAK_COLLECTOR_MAX_SIZE,
                             &c->opt.max_total_bytes) ||
             run_option_size(args, "--sample", LJLEAK_COLLECTOR_MAX_SAMPLE, &c->opt.sample) ||
             run_option_size(args, "--every", LJLEAK_COLLECTOR_MAX_SIZE, &c->opt.every) ||
             cli_option_seconds(args, "--duration", &c->opt.duration)) {
    /* the value is in place, or the error reported */
  } else if (cli_option_stack_depth(args, "--stack-depth", &c->opt.stack_depth)) {
    /* the value is in place, or the error reported */
  } else if (cli_option_text(args, "--label", &label)) {
    if (label)
      run_add_label(args, c, label);
  } else if (cli_option_text(args, "--snapshots", &snapshots)) {
    /* --snapshots=N too, as every option with a value takes it */
    char *end = NULL;
    unsigned long long v = snapshots && strcmp(snapshots, "none") ? strtoull(snapshots, &end, 10) : 0;
    if (!snapshots)
      return 1;   /* missing: reported */
    if (strcmp(snapshots, "none") && (!*snapshots || *end || !isdigit((unsigned char)snapshots[0]) ||
                                      v > LJLEAK_COLLECTOR_MAX_SNAPSHOTS + 1))
      cli_bad_value(args, "--snapshots", snapshots, "none, or a count from 0 to " RUN_STRING(LJLEAK_COLLECTOR_MAX_SNAPSHOTS) " + 1");
    else
      c->snapshots = v;
  } else {
    return capture_flag(a, c);
  }
  return 1;
}

/* Parses argv into job; returns 0 to run, -1 after --help, else an exit code. */
static int parse(struct run_job *job, int argc, char **argv)
{
  struct cli_args args;
  cli_args_init(&args, "run", run_usage, argc, argv);
  for (; args.index < argc && !args.failed; args.index++) {
    char *a = argv[args.index];
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      printf("%s%s", run_usage, run_help);
      return -1;
    }
    if (!strcmp(a, "--")) {
      job->script = args.index + 1;
      break;
    }
    if (a[0] != '-' || !strcmp(a, "-")) {
      job->script = args.index;
      break;
    }
    if (cli_capture_option(&args, &job->capture)) {
      /* the value is in place, or the error reported */
    } else if (run_flag(a, job)) {
      /* set */
    } else if (a[1] == 'O') {
      job->actions[job->nactions].kind = 'O';
      job->actions[job->nactions].text = a + 2;  /* attached, as luajit takes it */
      job->nactions++;
    } else if (a[1] == 'b' || a[1] == 'i') {
      cli_usage_error(&args, "luajit's %s runs no script to capture", a);
    } else if (a[1] == 'e' || a[1] == 'l' || a[1] == 'j') {
      /* Attached or separate, as luajit takes them. */
      const char *text = a[2] ? a + 2 : (args.index + 1 < argc ? argv[++args.index] : NULL);
      if (!text) {
        cli_missing_value(&args, a);
      } else {
        job->actions[job->nactions].kind = a[1];
        job->actions[job->nactions].text = text;
        job->nactions++;
      }
    } else {
      cli_unknown_option(&args);
    }
  }
  if (args.failed)
    return CLI_EXIT_USAGE;
  if (job->script <= 0 || job->script >= argc)
    return cli_usage_error(&args, "no script given");
  return cli_capture_env_check(&args, &job->capture);
}

int cmd_run(int argc, char **argv)
{
  return cli_run(argc, argv, NULL);
}

int cli_run(int argc, char **argv, const struct cli_run_host *host)
{
  struct run_job job;
  memset(&job, 0, sizeof job);
  job.host = host;
  job.argc = argc;
  job.argv = argv;
  job.actions = calloc((size_t)argc + 1, sizeof *job.actions);
  if (!job.actions) {
    fprintf(stderr, "ljleak run: out of memory\n");
    return CLI_EXIT_RUNTIME;
  }
  cli_capture_options_init(&job.capture);
  int rc = parse(&job, argc, argv);
  /* The last one is the runner's; the collector takes those in the middle. */
  job.capture.opt.snapshots = job.capture.snapshots ? job.capture.snapshots - 1 : 0;
  if (rc != 0) {
    free(job.actions);
    return rc < 0 ? CLI_EXIT_OK : rc;
  }

  lua_State *L = luaL_newstate();
  if (!L) {
    message("cannot create state: not enough memory");
    free(job.actions);
    return EXIT_FAILURE;
  }
  ljleak_collector_name_function(pmain, "ljleak run");   /* the root of every stack */
  int status = lua_cpcall(L, pmain, &job);
  report(L, status);
  if (!job.capture_failed) {
    char err[512];
    /* Ends the capture before lua_close so the last segment holds the
     * program's own work, not the teardown; an error was already reported. */
    struct ljleak_collector_status st;
    ljleak_collector_status(&st);
    /* The last snapshot was asked of the return boundary; a script that
     * failed has none, and the exit boundary takes it (its globals, modules
     * and coroutines are there, its main chunk's locals are not). */
    if (st.active && job.capture.snapshots && !job.last_snapshot_due)
      ljleak_collector_snapshot_next(L, err, sizeof err);
    if (st.active)
      ljleak_collector_exit(L, err, sizeof err);
    if (job.version)
      print_trace_lines();
  }
  lua_close(L);
  free(job.actions);
  if (job.capture_failed)
    return CLI_EXIT_RUNTIME;
  return (status || job.status) ? EXIT_FAILURE : EXIT_SUCCESS;
}
