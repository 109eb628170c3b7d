/* tests/test_collector_options.c: the limits of the capture options, their parsers, the start/stop signal, and start{} refusing what is past them. */
#include <check.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collector/ljleak_collector.h"
#include "collector/options.h"
#include "lauxlib.h"
#include "lualib.h"
#include "tests/check_run.h"
#include "tests/collector_capture.h"

/* The defaults, whatever the environment of the test holds. */
static const char *no_env(void *ctx, const char *name)
{
  (void)ctx;
  (void)name;
  return NULL;
}

static void defaults(struct ljleak_collector_options *o)
{
  ck_assert_int_eq(coll_options_from_env(o, no_env, NULL, NULL, 0), 0);
}

/* coll_options_check on o: 0 with err untouched, or -1 with exactly expected. */
static void assert_check(const struct ljleak_collector_options *o, const char *expected)
{
  char err[512] = "untouched";
  if (!expected) {
    ck_assert_msg(coll_options_check(o, err, sizeof err) == 0, "%s", err);
    ck_assert_str_eq(err, "untouched");
  } else {
    ck_assert_int_eq(coll_options_check(o, err, sizeof err), -1);
    ck_assert_str_eq(err, expected);
  }
}

#define PERIOD_ERROR "period must be a number of seconds from 0 to 31536000 (365 days)"
#define DURATION_ERROR "duration must be a number of seconds from 0 to 31536000 (365 days)"
#define SAMPLE_ERROR "sample must be a whole number of bytes from 0 to 1073741824 (1 GiB)"
#define MAX_BYTES_ERROR \
  "max_bytes must be a whole number of bytes from 0 to 1125899906842624 (1 PiB)"
#define MAX_TOTAL_BYTES_ERROR \
  "max_total_bytes must be a whole number of bytes from 0 to 1125899906842624 (1 PiB)"
#define EVERY_ERROR "every must be a whole number of bytes from 0 to 1125899906842624 (1 PiB)"
#define STACK_DEPTH_RANGE_ERROR "stack_depth must be a whole number of frames from 0 to 256"
/* A count of heap snapshots, not of bytes (`ljleak run --snapshots N|none` has its own check). */
#define SNAPSHOTS_ERROR "snapshots must be a whole number of heap snapshots from 0 to 64"

START_TEST(test_limits_are_the_documented_numbers)
{
  ck_assert_int_eq(LJLEAK_COLLECTOR_MAX_SECONDS, 365 * 24 * 3600);
  ck_assert_uint_eq(LJLEAK_COLLECTOR_MAX_SIZE, 1125899906842624u);
  ck_assert_uint_eq(LJLEAK_COLLECTOR_MAX_SAMPLE, 1073741824u);
  ck_assert_int_eq(LJLEAK_COLLECTOR_MAX_STACK_DEPTH, 256);
}
END_TEST

START_TEST(test_check_takes_the_defaults_and_every_limit)
{
  struct ljleak_collector_options o;
  defaults(&o);
  assert_check(&o, NULL);
  o.period = o.duration = LJLEAK_COLLECTOR_MAX_SECONDS;
  o.max_bytes = o.max_total_bytes = o.every = LJLEAK_COLLECTOR_MAX_SIZE;
  o.sample = LJLEAK_COLLECTOR_MAX_SAMPLE;
  o.stack_depth = LJLEAK_COLLECTOR_MAX_STACK_DEPTH;
  assert_check(&o, NULL);
  o.period = o.duration = 0.001;
  o.max_bytes = o.max_total_bytes = o.every = o.sample = 0;
  o.stack_depth = 0;
  assert_check(&o, NULL);
}
END_TEST

/* Seconds: one past the limit, negative, NaN and infinities are refused. */
START_TEST(test_check_refuses_seconds_past_the_limit_or_not_finite)
{
  const double bad[] = {nextafter(LJLEAK_COLLECTOR_MAX_SECONDS, INFINITY),
                        LJLEAK_COLLECTOR_MAX_SECONDS + 1.0, -1, -0.001, NAN, INFINITY,
                        -INFINITY, 1e300};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    struct ljleak_collector_options o;
    defaults(&o);
    o.period = bad[i];
    assert_check(&o, PERIOD_ERROR);
    defaults(&o);
    o.duration = bad[i];
    assert_check(&o, DURATION_ERROR);
  }
}
END_TEST

START_TEST(test_check_refuses_sizes_one_past_the_limit)
{
  const uint64_t past_size[] = {LJLEAK_COLLECTOR_MAX_SIZE + 1, UINT64_MAX};
  for (size_t i = 0; i < 2; i++) {
    struct ljleak_collector_options o;
    defaults(&o);
    o.max_bytes = past_size[i];
    assert_check(&o, MAX_BYTES_ERROR);
    defaults(&o);
    o.max_total_bytes = past_size[i];
    assert_check(&o, MAX_TOTAL_BYTES_ERROR);
    defaults(&o);
    o.every = past_size[i];
    assert_check(&o, EVERY_ERROR);
  }
  struct ljleak_collector_options o;
  defaults(&o);
  o.sample = LJLEAK_COLLECTOR_MAX_SAMPLE + 1;
  assert_check(&o, SAMPLE_ERROR);
  o.sample = UINT64_MAX;
  assert_check(&o, SAMPLE_ERROR);
  defaults(&o);
  o.snapshots = LJLEAK_COLLECTOR_MAX_SNAPSHOTS;
  assert_check(&o, NULL);
  o.snapshots = LJLEAK_COLLECTOR_MAX_SNAPSHOTS + 1;
  assert_check(&o, SNAPSHOTS_ERROR);
  o.snapshots = UINT64_MAX;
  assert_check(&o, SNAPSHOTS_ERROR);
  const struct coll_options_field *f = coll_options_field("snapshots");
  ck_assert_ptr_nonnull(f);
  char err[256];
  coll_options_range_error(f, err, sizeof err);
  ck_assert_str_eq(err, SNAPSHOTS_ERROR);
}
END_TEST

START_TEST(test_check_refuses_stack_depths_out_of_range)
{
  const int bad[] = {LJLEAK_COLLECTOR_MAX_STACK_DEPTH + 1, -1, INT_MIN, INT_MAX};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    struct ljleak_collector_options o;
    defaults(&o);
    o.stack_depth = bad[i];
    assert_check(&o, STACK_DEPTH_RANGE_ERROR);
  }
}
END_TEST

/* The first option out of range is the one named; a NULL err is allowed. */
START_TEST(test_check_names_the_first_bad_option_in_table_order)
{
  struct ljleak_collector_options o;
  defaults(&o);
  o.sample = UINT64_MAX;
  o.every = UINT64_MAX;
  o.period = NAN;
  assert_check(&o, PERIOD_ERROR);
  ck_assert_int_eq(coll_options_check(&o, NULL, 0), -1);
  char tiny[7];
  ck_assert_int_eq(coll_options_check(&o, tiny, sizeof tiny), -1);
  ck_assert_str_eq(tiny, "period");
}
END_TEST

/* What a Lua number may be for each kind before it is converted. */
START_TEST(test_check_refuses_labels_the_index_would_not_take)
{
  struct ljleak_collector_options o;
  defaults(&o);
  o.labels = "release=1.4.2,role=api";
  assert_check(&o, NULL);
  o.labels = "release=1.4.2\n,role=api";
  assert_check(&o, "labels: label 1: the value has a control character, a backslash or bytes "
                   "that are not UTF-8");
  o.labels = "release=1,release=2";
  assert_check(&o, "labels: label 2: the key 'release' is given twice");
  /* A request's or a variable's value is parsed by the same check. */
  const struct coll_options_field *f = coll_options_field("labels");
  ck_assert_ptr_nonnull(f);
  ck_assert_str_eq(f->env, "LJLEAK_LABELS");
  defaults(&o);
  ck_assert_int_eq(coll_options_parse_field(f, "a=1,b=2", &o), 0);
  ck_assert_str_eq(o.labels, "a=1,b=2");
  ck_assert_int_eq(coll_options_parse_field(f, "a=1,b", &o), -1);
  ck_assert_str_eq(o.labels, "a=1,b=2");
}
END_TEST

START_TEST(test_number_ok_refuses_what_cannot_be_converted)
{
  const struct coll_options_field *sample = coll_options_field("sample");
  const struct coll_options_field *every = coll_options_field("every");
  const struct coll_options_field *period = coll_options_field("period");
  const struct coll_options_field *depth = coll_options_field("stack_depth");
  const struct coll_options_field *gzip = coll_options_field("gzip");
  const struct coll_options_field *dir = coll_options_field("dir");
  ck_assert_ptr_nonnull(sample);
  ck_assert_ptr_nonnull(every);
  ck_assert_ptr_nonnull(period);
  ck_assert_ptr_nonnull(depth);
  ck_assert_ptr_nonnull(gzip);
  ck_assert_ptr_nonnull(dir);

  ck_assert_int_eq(coll_options_number_ok(sample, 0), 1);
  ck_assert_int_eq(coll_options_number_ok(sample, -0.0), 1);
  ck_assert_int_eq(coll_options_number_ok(sample, 1073741824.0), 1);
  ck_assert_int_eq(coll_options_number_ok(sample, 1073741825.0), 0);
  ck_assert_int_eq(coll_options_number_ok(sample, 1.5), 0);
  ck_assert_int_eq(coll_options_number_ok(sample, -1), 0);
  ck_assert_int_eq(coll_options_number_ok(sample, INFINITY), 0);
  ck_assert_int_eq(coll_options_number_ok(sample, NAN), 0);
  ck_assert_int_eq(coll_options_number_ok(every, 1125899906842624.0), 1);
  ck_assert_int_eq(coll_options_number_ok(every, 1125899906842625.0), 0);
  ck_assert_int_eq(coll_options_number_ok(every, 1e300), 0);
  ck_assert_int_eq(coll_options_number_ok(depth, 256), 1);
  ck_assert_int_eq(coll_options_number_ok(depth, 257), 0);
  ck_assert_int_eq(coll_options_number_ok(depth, 1e300), 0);
  ck_assert_int_eq(coll_options_number_ok(depth, 2.5), 0);
  ck_assert_int_eq(coll_options_number_ok(period, 2.5), 1);
  ck_assert_int_eq(coll_options_number_ok(period, 31536000), 1);
  ck_assert_int_eq(coll_options_number_ok(period, nextafter(31536000, INFINITY)), 0);
  ck_assert_int_eq(coll_options_number_ok(period, -1), 0);
  ck_assert_int_eq(coll_options_number_ok(period, INFINITY), 0);
  ck_assert_int_eq(coll_options_number_ok(period, NAN), 0);
  ck_assert_int_eq(coll_options_number_ok(gzip, 2), 1);
  ck_assert_int_eq(coll_options_number_ok(gzip, INFINITY), 1);
  ck_assert_int_eq(coll_options_number_ok(gzip, NAN), 0);
  ck_assert_int_eq(coll_options_number_ok(dir, 1), 0);

  char err[256];
  coll_options_range_error(gzip, err, sizeof err);
  ck_assert_str_eq(err, "gzip must be a boolean, or a number other than NaN");
}
END_TEST

START_TEST(test_parse_seconds_refuses_past_the_limit_and_not_finite)
{
  const char *const bad[] = {"1e400", "inf", "-inf", "nan", "NaN", "-1", "31536000.5",
                             "31536001", "1e9", "", "soon", "1e-400"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    double v = 7;
    ck_assert_msg(ljleak_collector_parse_seconds(bad[i], &v) == -1, "%s", bad[i]);
    ck_assert(v == 7);
  }
  double v = 0;
  ck_assert_int_eq(ljleak_collector_parse_seconds("31536000", &v), 0);
  ck_assert(v == 31536000);
  ck_assert_int_eq(ljleak_collector_parse_seconds("2.5", &v), 0);
  ck_assert(v == 2.5);
}
END_TEST

/* coll_options_parse_field: what the environment and a request line go through. */
static int parse(const char *key, const char *text, struct ljleak_collector_options *o)
{
  const struct coll_options_field *f = coll_options_field(key);
  ck_assert_ptr_nonnull(f);
  return coll_options_parse_field(f, text, o);
}

START_TEST(test_parse_field_refuses_values_past_each_limit)
{
  struct ljleak_collector_options o;
  defaults(&o);
  const struct ljleak_collector_options before = o;
  const char *const bad[][2] = {
    {"period", "1e400"}, {"period", "inf"},    {"period", "nan"},     {"period", "-1"},
    {"period", "31536001"}, {"duration", "1e400"}, {"duration", "nan"},
    {"sample", "2g"},    {"sample", "1073741825"}, {"sample", "-1"},  {"sample", "1e400"},
    {"sample", "inf"},   {"sample", "nan"},    {"sample", "1.5"},
    {"max_bytes", "1048577g"}, {"max_total_bytes", "1125899906842625"},
    {"every", "1e400"},  {"every", "18446744073709551615"}, {"every", "18446744073709551616"},
    {"stack_depth", "257"}, {"stack_depth", "-1"}, {"stack_depth", "1e300"},
    {"stack_depth", "4294967296"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    ck_assert_msg(parse(bad[i][0], bad[i][1], &o) == -1, "%s=%s", bad[i][0], bad[i][1]);
    ck_assert_msg(!memcmp(&o, &before, sizeof o), "%s=%s changed the options", bad[i][0],
                  bad[i][1]);
  }
  ck_assert_int_eq(parse("sample", "1g", &o), 0);
  ck_assert_uint_eq(o.sample, 1073741824u);
  ck_assert_int_eq(parse("max_bytes", "1048576g", &o), 0);
  ck_assert_uint_eq(o.max_bytes, 1125899906842624u);
  ck_assert_int_eq(parse("every", "1125899906842624", &o), 0);
  ck_assert_uint_eq(o.every, 1125899906842624u);
  ck_assert_int_eq(parse("stack_depth", "256", &o), 0);
  ck_assert_int_eq(o.stack_depth, 256);
  ck_assert_int_eq(parse("period", "31536000", &o), 0);
  ck_assert(o.period == 31536000);
  assert_check(&o, NULL);
}
END_TEST

/* The environment: a value past its limit is a bad value, named as before. */
struct env_pair {
  const char *name, *value;
};

static const char *pair_env(void *ctx, const char *name)
{
  const struct env_pair *p = ctx;
  return !strcmp(name, p->name) ? p->value : NULL;
}

START_TEST(test_env_values_past_the_limit_are_bad_values)
{
  const struct env_pair bad[] = {
    {"LJLEAK_SAMPLE", "2g"},         {"LJLEAK_PERIOD", "1e400"},
    {"LJLEAK_DURATION", "31536001"}, {"LJLEAK_EVERY", "1048577g"},
    {"LJLEAK_STACK_DEPTH", "257"},   {"LJLEAK_MAX_TOTAL_BYTES", "18446744073709551615"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    struct ljleak_collector_options o;
    char err[256], expected[256];
    ck_assert_int_eq(coll_options_from_env(&o, pair_env, (void *)&bad[i], err, sizeof err), -1);
    snprintf(expected, sizeof expected, "bad value '%s' in %s", bad[i].value, bad[i].name);
    ck_assert_str_eq(err, expected);
    assert_check(&o, NULL);   /* the bad value was skipped */
  }
}
END_TEST

/* Values can be secrets: off unless LJLEAK_VALUES (or the values field) turns them on. */
START_TEST(test_values_are_off_by_default_and_on_by_ljleak_values)
{
  struct ljleak_collector_options o;
  defaults(&o);
  ck_assert_int_eq(o.values, 0);
  const struct env_pair on = {"LJLEAK_VALUES", "1"}, bad = {"LJLEAK_VALUES", "maybe"};
  ck_assert_int_eq(coll_options_from_env(&o, pair_env, (void *)&on, NULL, 0), 0);
  ck_assert_int_eq(o.values, 1);
  char err[256];
  ck_assert_int_eq(coll_options_from_env(&o, pair_env, (void *)&bad, err, sizeof err), -1);
  ck_assert_str_eq(err, "bad value 'maybe' in LJLEAK_VALUES");
  ck_assert_int_eq(o.values, 0);
  const struct coll_options_field *f = coll_options_field("values");
  ck_assert_ptr_nonnull(f);
  ck_assert_int_eq(f->kind, COLL_OPTIONS_KIND_BOOL);
  ck_assert_int_eq(coll_options_parse_field(f, "on", &o), 0);
  ck_assert_int_eq(o.values, 1);
}
END_TEST

/* ---- The start/stop signal ---------------------------------------------------- */

START_TEST(test_signal_takes_usr1_usr2_and_realtime_signals)
{
  char rt_number[16], rt_last[16];
  snprintf(rt_number, sizeof rt_number, "%d", SIGRTMIN + 1);
  snprintf(rt_last, sizeof rt_last, "%d", SIGRTMAX);
  const struct {
    const char *text;
    int signo;
  } good[] = {
    {"USR1", SIGUSR1},          {"usr2", SIGUSR2},          {"SIGUSR2", SIGUSR2},
    {"10", SIGUSR1},            {"12", SIGUSR2},            {"RTMIN", SIGRTMIN},
    {"RTMIN+3", SIGRTMIN + 3},  {"SIGRTMIN+3", SIGRTMIN + 3}, {"rtmin+0", SIGRTMIN},
    {"RTMAX", SIGRTMAX},        {"RTMAX-1", SIGRTMAX - 1},  {"SIGRTMAX-1", SIGRTMAX - 1},
    {rt_number, SIGRTMIN + 1},  {rt_last, SIGRTMAX},
    {"none", 0},                {"", 0},                    {NULL, 0},
  };
  ck_assert_int_eq(SIGUSR1, 10);   /* the numbers above are Linux's */
  ck_assert_int_eq(SIGUSR2, 12);
  for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
    int signo = -7;
    ck_assert_msg(coll_options_parse_signal(good[i].text, &signo) == 0, "%s", good[i].text);
    ck_assert_int_eq(signo, good[i].signo);
  }
}
END_TEST

START_TEST(test_signal_refuses_every_other_signal)
{
  char below_rt[16], past_rt[16], rt_span[24];
  snprintf(below_rt, sizeof below_rt, "%d", SIGRTMIN - 1);
  snprintf(past_rt, sizeof past_rt, "%d", SIGRTMAX + 1);
  snprintf(rt_span, sizeof rt_span, "RTMIN+%d", SIGRTMAX - SIGRTMIN + 1);
  const char *const bad[] = {
    "SEGV", "SIGSEGV", "11", "BUS", "7", "CHLD", "17", "PIPE", "13", "TERM", "15", "HUP", "1",
    "INT", "QUIT", "PROF", "URG", "WINCH", "TTIN", "TTOU", "PWR", "KILL", "9", "STOP", "19",
    "0", "65", "32", "33", below_rt, past_rt, rt_span, "RTMIN-1", "RTMAX+1", "RTMIN+",
    "RTMIN+x", "RTMIN+3x", "RTMAX-", "RTMAX-99999999999999999999", "99999999999999999999",
    "12x", "+12", "-12", " 12", "USR", "USR3", "SIG", "nonesuch",
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    int signo = -7;
    ck_assert_msg(coll_options_parse_signal(bad[i], &signo) == -1, "%s", bad[i]);
    ck_assert_int_eq(signo, -7);
  }
}
END_TEST

/* ---- Starting: the C API and the module's start{} ------------------------------ */

/* Options past a limit start nothing through the C API: no directory, no
 * capture (coll_capture_begin's coll_options_check). */
START_TEST(test_api_start_refuses_options_past_their_limits)
{
  char dir[1100], path[1200];
  scratch(dir, sizeof dir, "api");
  lua_State *L = luaL_newstate();
  ck_assert_ptr_nonnull(L);
  luaL_openlibs(L);
  struct {
    int which;
    const char *expected;
  } cases[] = {
    {0, PERIOD_ERROR}, {1, DURATION_ERROR}, {2, SAMPLE_ERROR}, {3, EVERY_ERROR},
    {4, STACK_DEPTH_RANGE_ERROR},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    struct ljleak_collector_options o;
    defaults(&o);
    snprintf(path, sizeof path, "%s/cap-%zu", dir, i);
    o.dir = path;
    o.command = "test host";
    switch (cases[i].which) {
    case 0: o.period = NAN; break;
    case 1: o.duration = INFINITY; break;
    case 2: o.sample = LJLEAK_COLLECTOR_MAX_SAMPLE + 1; break;
    case 3: o.every = UINT64_MAX; break;
    default: o.stack_depth = -1; break;
    }
    char err[512] = "";
    ck_assert_int_eq(ljleak_collector_start(L, &o, err, sizeof err), -1);
    ck_assert_str_eq(err, cases[i].expected);
    ck_assert_int_ne(access(path, F_OK), 0);
    struct ljleak_collector_status st;
    ljleak_collector_status(&st);
    ck_assert_int_eq(st.active, 0);
  }
  lua_close(L);
}
END_TEST

/* The module's start{} with numbers that are not finite, not whole or past a
 * limit: each is refused (a Lua error, or nil and the message for
 * stack_depth) with the option and its limit, and makes no directory. The
 * last start, at every limit, runs. */
static const char start_script[] =
  "local c = require 'ljleak.collector'\n"
  "local function try(name, opts)\n"
  "  local ok, a, b = pcall(c.start, opts)\n"
  "  if not ok then io.write(name, ': error ', tostring(a), '\\n')\n"
  "  elseif a == nil then io.write(name, ': nil ', tostring(b), '\\n')\n"
  "  else assert(c.stop()) io.write(name, ': started ', a, '\\n') end\n"
  "end\n"
  "try('sample', {dir = 'cap-sample', sample = math.huge})\n"
  "try('stack_depth', {dir = 'cap-depth', stack_depth = 1e300})\n"
  "try('every', {dir = 'cap-every', every = 0/0})\n"
  "try('period', {dir = 'cap-period', period = -1})\n"
  "try('period_inf', {dir = 'cap-period-inf', period = 1/0})\n"
  "try('max_bytes', {dir = 'cap-max-bytes', max_bytes = 1.5})\n"
  "try('max_total_bytes', {dir = 'cap-total', max_total_bytes = 2^50 + 1})\n"
  "try('duration', {dir = 'cap-duration', duration = 0/0})\n"
  "try('gzip', {dir = 'cap-gzip', gzip = 0/0})\n"
  "try('sample_text', {dir = 'cap-sample-text', sample = '2g'})\n"
  "try('period_text', {dir = 'cap-period-text', period = '1e400'})\n"
  "try('depth_text', {dir = 'cap-depth-text', stack_depth = '257'})\n"
  "try('snapshots', {dir = 'cap-snapshots', snapshots = 65})\n"
  "try('snapshots_text', {dir = 'cap-snapshots-text', snapshots = 'none'})\n"
  "try('root', {root = '.', sample = -math.huge})\n"
  "io.write('active ', tostring(c.status().active), '\\n')\n"
  "try('limits', {dir = 'cap-limits', sample = 2^30, every = 2^50, max_bytes = 2^50,\n"
  "               max_total_bytes = 2^50, period = 31536000, duration = 31536000,\n"
  "               stack_depth = 256, gzip = 2})\n";

static const char start_expected[] =
  "sample: error ljleak.collector: " SAMPLE_ERROR "\n"
  "stack_depth: nil " STACK_DEPTH_RANGE_ERROR "\n"
  "every: error ljleak.collector: " EVERY_ERROR "\n"
  "period: error ljleak.collector: " PERIOD_ERROR "\n"
  "period_inf: error ljleak.collector: " PERIOD_ERROR "\n"
  "max_bytes: error ljleak.collector: " MAX_BYTES_ERROR "\n"
  "max_total_bytes: error ljleak.collector: " MAX_TOTAL_BYTES_ERROR "\n"
  "duration: error ljleak.collector: " DURATION_ERROR "\n"
  "gzip: error ljleak.collector: gzip must be a boolean, or a number other than NaN\n"
  "sample_text: error ljleak.collector: " SAMPLE_ERROR "\n"
  "period_text: error ljleak.collector: bad period '1e400': " PERIOD_ERROR "\n"
  "depth_text: nil " STACK_DEPTH_RANGE_ERROR "\n"
  "snapshots: error ljleak.collector: " SNAPSHOTS_ERROR "\n"
  "snapshots_text: error ljleak.collector: bad snapshots 'none': " SNAPSHOTS_ERROR "\n"
  "root: error ljleak.collector: " SAMPLE_ERROR "\n"
  "active false\n"
  "limits: started cap-limits\n";

/* Runs script with the module in NAME's scratch directory, dir (its size PATH_MAX), with env (shell
 * assignments, or "") in front; returns what it wrote on stdout (to free). */
/* luajit_cmd() with lib preloaded too, after the sanitizers' runtimes (which must come first):
 * an LD_PRELOAD of its own before it would be overridden by luajit_cmd()'s. */
static const char *luajit_cmd_preloading(const char *lib, char *out, size_t size)
{
  static const char head[] = "LD_PRELOAD='";
  const char *cmd = luajit_cmd(), *end = NULL;
  if (!strncmp(cmd, head, sizeof head - 1))
    end = strchr(cmd + sizeof head - 1, '\'');
  if (end)
    snprintf(out, size, "%.*s%s%s", (int)(end - cmd), cmd, lib, end);
  else
    snprintf(out, size, "LD_PRELOAD='%s' %s", lib, cmd);
  return out;
}

/* The output of script run by luajit (luajit_cmd() when NULL) in scratch directory name, with
 * env before it. */
static char *module_script_env_output(const char *name, const char *env, const char *luajit,
                                      const char *script, char *dir)
{
  char path[PATH_MAX + 16];
  scratch(dir, PATH_MAX, name);
  snprintf(path, sizeof path, "%s/start.lua", dir);
  FILE *f = fopen(path, "w");
  ck_assert_ptr_nonnull(f);
  ck_assert_int_eq(fputs(script, f) >= 0, 1);
  ck_assert_int_eq(fclose(f), 0);
  ck_assert_int_eq(sh("cd '%s' && %s LJLEAK_SIGNAL=none LJLEAK_CONTROL=0 LUA_CPATH='%s/%s/lua/?.so;;' "
                      "%s start.lua > out 2> err",
                      dir, env, getenv("PWD"), build_dir(), luajit ? luajit : luajit_cmd()),
                   0);
  snprintf(path, sizeof path, "%s/out", dir);
  return slurp(path);
}

/* Runs script in scratch directory name (dir) and checks its output. */
static void check_module_script(const char *name, const char *script, const char *expected, char *dir)
{
  char *text = module_script_env_output(name, "", NULL, script, dir);
  ck_assert_str_eq(text, expected);
  free(text);
}

START_TEST(test_module_start_refuses_numbers_past_their_limits)
{
  char dir[PATH_MAX];
  check_module_script("module", start_script, start_expected, dir);
  /* Only the last start made a directory. */
  ck_assert_int_eq(sh("cd '%s' && test \"$(ls | tr '\\n' ' ')\" = 'cap-limits err out start.lua '",
                      dir),
                   0);
}
END_TEST

/* start{} strings with a NUL byte: C would read them cut short there (a capture in 'cap' for
 * 'cap\0other', the labels after it lost) with no word said; each is refused, and no directory
 * made. So is an option name with one, which C would read as another option's. */
static const char nul_script[] =
  "local c = require 'ljleak.collector'\n"
  "local function try(name, opts)\n"
  "  local ok, a, b = pcall(c.start, opts)\n"
  "  if not ok then io.write(name, ': error ', tostring(a), '\\n')\n"
  "  elseif a == nil then io.write(name, ': nil ', tostring(b), '\\n')\n"
  "  else assert(c.stop()) io.write(name, ': started ', a, '\\n') end\n"
  "end\n"
  "try('dir', {dir = 'cap\\0other'})\n"
  "try('root', {root = 'root\\0other'})\n"
  "try('labels', {dir = 'cap', labels = 'a=x\\0,b=z'})\n"
  "try('label_value', {dir = 'cap', labels = {a = 'x\\0y', b = 'z'}})\n"
  "try('label_key', {dir = 'cap', labels = {['a\\0b'] = 'x'}})\n"
  "try('sample', {dir = 'cap', sample = '4k\\0junk'})\n"
  "try('key', {dir = 'cap', ['root\\0x'] = 'elsewhere'})\n";

static const char nul_expected[] =
  "dir: error ljleak.collector: dir has a NUL byte\n"
  "root: error ljleak.collector: root has a NUL byte\n"
  "labels: error ljleak.collector: labels has a NUL byte\n"
  "label_value: error ljleak.collector: labels has a NUL byte\n"
  "label_key: error ljleak.collector: labels has a NUL byte\n"
  "sample: error ljleak.collector: sample has a NUL byte\n"
  "key: nil unknown option 'root' (its name has a NUL byte)\n";

START_TEST(test_module_start_refuses_strings_with_a_nul_byte)
{
  char dir[PATH_MAX];
  check_module_script("module-nul", nul_script, nul_expected, dir);
  ck_assert_int_eq(sh("cd '%s' && test \"$(ls | tr '\\n' ' ')\" = 'err out start.lua '", dir), 0);
}
END_TEST

/* A program whose undeclared globals raise an error when read (as Lua 5.1's etc/strict.lua
 * makes them): the module looked up the global ngx, which only nginx declares, and failed to
 * load (require raised "variable 'ngx' is not declared"). It loads, starts and stops. */
static const char strict_script[] =
  "setmetatable(_G, {__newindex = function(t, k, v) rawset(t, k, v) end,\n"
  "                  __index = function(t, k) error(\"variable '\" .. k .. \"' is not declared\", 2) end})\n"
  "local ok, c = pcall(require, 'ljleak.collector')\n"
  "io.write('require: ', tostring(ok), '\\n')\n"
  "if not ok then io.write(c, '\\n') return end\n"
  "io.write('start: ', tostring(c.start{dir = 'cap'}), '\\n')\n"
  "io.write('stop: ', tostring(c.stop()), '\\n')\n";

START_TEST(test_module_loads_under_strict_globals)
{
  char dir[PATH_MAX];
  check_module_script("module-strict", strict_script, "require: true\nstart: cap\nstop: true\n", dir);
}
END_TEST

/* A capture that stopped on a write error (segment 2 on a full disk, tests/fault_io.c): the
 * program's next calls, which never asked for a stop, say why there is none; they said "no
 * capture is running" only, as if nothing had happened. */
static const char stopped_script[] =
  "local c = require 'ljleak.collector'\n"
  "assert(c.start{dir = 'cap', max_bytes = 4096})\n"
  "keep = {} for i = 1, 20000 do keep[i] = {i} end\n"
  "for _, name in ipairs{'boundary', 'snapshot', 'stop'} do\n"
  "  io.write(name, ': ', tostring(select(2, c[name]())), '\\n')\n"
  "end\n";

START_TEST(test_module_calls_after_a_write_error_say_why)
{
  char dir[PATH_MAX], shim[PATH_MAX], luajit[2 * PATH_MAX + 2048];
  snprintf(shim, sizeof shim, "%s/%s/tests/fault_io.so", getenv("PWD"), build_dir());
  char *text = module_script_env_output(
      "module-write-error", "LJLEAK_FAULT_FILE=seg-0002.memprof.part LJLEAK_FAULT_CALL=write LJLEAK_FAULT_ERRNO=ENOSPC",
      luajit_cmd_preloading(shim, luajit, sizeof luajit), stopped_script, dir);
  static const char why[] = "no capture is running: it stopped on an error: cannot write "
                            "cap/seg-0002.memprof.part: No space left on device\n";
  char expected[3 * sizeof why + 64];
  snprintf(expected, sizeof expected, "boundary: %ssnapshot: %sstop: %s", why, why, why);
  ck_assert_str_eq(text, expected);
  free(text);
}
END_TEST

/* An os.getenv of the program's that calls start (start reads the LJLEAK_* variables through
 * os.getenv): each start called os.getenv, which called start, down the whole C stack (a
 * segmentation fault). The start inside reads the process's environment, and runs. */
static const char getenv_script[] =
  "local c = require 'ljleak.collector'\n"
  "local real, inner = os.getenv, nil\n"
  "os.getenv = function(name) if not inner then inner = {c.start{dir = 'inner'}} end return real(name) end\n"
  "local dir, err = c.start{dir = 'outer'}\n"
  "io.write('outer: ', tostring(dir), ' ', tostring(err), '\\n')\n"
  "io.write('inner: ', tostring(inner[1]), '\\n')\n"
  "io.write('stop: ', tostring(c.stop()), '\\n')\n";

START_TEST(test_module_start_from_os_getenv_does_not_recurse)
{
  char dir[PATH_MAX];
  check_module_script("module-getenv", getenv_script,
                      "outer: nil a capture is already running in inner\ninner: inner\nstop: true\n", dir);
}
END_TEST

/* start{} in nginx's master (init_by_lua: ngx.get_phase() is "init", played here) keeps the
 * options for the workers, checked now so that a bad one fails here; a root too long for a
 * capture's path was taken (cut to fit), to fail in each worker instead. */
static const char defer_script[] =
  "ngx = {get_phase = function() return 'init' end}\n"
  "local c = require 'ljleak.collector'\n"
  "local ok, err = c.start{root = '/' .. string.rep('r', 5000)}\n"
  "io.write('long: ', tostring(ok), ' ', tostring(err):match('^(.-) %('), '\\n')\n"
  "io.write('short: ', tostring(c.start{root = 'caps'}), '\\n')\n";

START_TEST(test_module_start_for_nginx_workers_checks_the_root)
{
  char dir[PATH_MAX];
  check_module_script("module-defer", defer_script,
                      "long: nil the capture root's name is too long\nshort: true\n", dir);
}
END_TEST

/* An ngx without ngx.timer (a unit test's stand-in for nginx's, in a request's phase): nginx(),
 * which loading the module runs there, raised "attempt to index a nil value", and require with
 * it; it says what is missing. */
static const char mock_script[] =
  "ngx = {get_phase = function() return 'content' end}\n"
  "local c = require 'ljleak.collector'\n"
  "io.write('nginx: ', tostring(select(2, c.nginx())), '\\n')\n";

START_TEST(test_module_nginx_without_a_timer_says_so)
{
  char dir[PATH_MAX];
  char *text = module_script_env_output("module-ngx-mock", "LJLEAK_RUN_DIR=\"$PWD/run\"", NULL, mock_script, dir);
  ck_assert_str_eq(text, "nginx: this nginx Lua module has no ngx.timer.every (0.10.9 or later has it)\n");
  free(text);
}
END_TEST

/* ljleak run with a malformed LJLEAK_* variable: a usage error naming it (exit 2), as the
 * module's start refuses it, and no capture; skipped, the run captured on another setting than
 * the one asked for (LJLEAK_SAMPLE=2g recorded every event) and said nothing. */
START_TEST(test_run_refuses_malformed_variables)
{
  static const char *const cases[][2] = {
    {"LJLEAK_SAMPLE=2g", "ljleak run: bad value '2g' in LJLEAK_SAMPLE"},
    {"LJLEAK_PERIOD=soon", "ljleak run: bad value 'soon' in LJLEAK_PERIOD"},
    {"LJLEAK_STACK_DEPTH=257", "ljleak run: bad value '257' in LJLEAK_STACK_DEPTH"},
    {"LJLEAK_GZIP=maybe", "ljleak run: bad value 'maybe' in LJLEAK_GZIP"},
    {"LJLEAK_MAX_BYTES=-1", "ljleak run: bad value '-1' in LJLEAK_MAX_BYTES"},
  };
  char dir[PATH_MAX], path[PATH_MAX + 16];
  scratch(dir, sizeof dir, "run-env");
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    ck_assert_int_eq(sh("%s '%s/ljleak' run -o '%s/cap' tests/lua/collector_args.lua > '%s/out' 2> '%s/err'",
                        cases[i][0], build_dir(), dir, dir, dir),
                     2);
    snprintf(path, sizeof path, "%s/err", dir);
    char *err = slurp(path);
    ck_assert_msg(!strncmp(err, cases[i][1], strlen(cases[i][1])), "%s: %s", cases[i][0], err);
    free(err);
    snprintf(path, sizeof path, "%s/cap", dir);
    ck_assert_int_ne(access(path, F_OK), 0);
  }
  /* A well-formed one still runs (the script exits with 7). */
  ck_assert_int_eq(sh("LJLEAK_SAMPLE=4k '%s/ljleak' run -o '%s/cap' tests/lua/collector_args.lua > '%s/out' 2> '%s/err'",
                      build_dir(), dir, dir, dir),
                   7);
}
END_TEST

/* LJLEAK_SNAPSHOTS under ljleak run: the snapshots in the middle of the run, as for the module,
 * and the one at the main chunk's return. It was ignored: 2 in all whatever it said. */
START_TEST(test_run_takes_ljleak_snapshots)
{
  char dir[PATH_MAX];
  scratch(dir, sizeof dir, "run-snapshots");
  ck_assert_int_eq(sh("cd '%s' && echo 'local t = {} for i = 1, 300000 do t[i] = {i} end' > work.lua", dir), 0);
  static const char *const cases[][2] = {{"", "2"}, {"LJLEAK_SNAPSHOTS=0", "1"}, {"LJLEAK_SNAPSHOTS=3", "4"}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    ck_assert_int_eq(sh("cd '%s' && rm -rf cap && %s '%s/%s/ljleak' run -o cap work.lua 2> err && "
                        "test \"$(ls cap | grep -c '^snap-.*\\.heap$')\" = %s",
                        dir, cases[i][0], getenv("PWD"), build_dir(), cases[i][1]),
                     0);
  }
}
END_TEST

/* LJLEAK_EDGE_GC set empty is unset, as every LJLEAK_ variable: the run's first and last exact
 * boundaries are taken (it turned them off: a short script got no boundary, exit 5); =0 still
 * turns them off. */
START_TEST(test_run_takes_an_empty_ljleak_edge_gc_as_unset)
{
  char dir[PATH_MAX];
  scratch(dir, sizeof dir, "run-edge-gc");
  ck_assert_int_eq(sh("cd '%s' && echo 'local t = {} for i = 1, 100 do t[i] = {i} end' > work.lua", dir), 0);
  static const char *const cases[] = {"unset", "LJLEAK_EDGE_GC=", "LJLEAK_EDGE_GC=0"};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    ck_assert_int_eq(sh("cd '%s' && rm -rf cap && %s '%s/%s/ljleak' run --snapshots none -o cap work.lua 2> err && "
                        "'%s/%s/ljleak' info --get boundaries cap > '%zu.count'",
                        dir, i ? cases[i] : "", getenv("PWD"), build_dir(), getenv("PWD"), build_dir(), i),
                     0);
  ck_assert_msg(sh("cd '%s' && test \"$(cat 1.count)\" = \"$(cat 0.count)\" && test \"$(cat 2.count)\" -lt \"$(cat 0.count)\"",
                   dir) == 0,
                "boundaries unset, empty and 0 not as they should be");
}
END_TEST

int main(void)
{
  Suite *s = suite_create("collector_options");
  TCase *tc = tcase_create("limits");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_limits_are_the_documented_numbers);
  tcase_add_test(tc, test_run_takes_an_empty_ljleak_edge_gc_as_unset);
  tcase_add_test(tc, test_check_takes_the_defaults_and_every_limit);
  tcase_add_test(tc, test_check_refuses_seconds_past_the_limit_or_not_finite);
  tcase_add_test(tc, test_check_refuses_sizes_one_past_the_limit);
  tcase_add_test(tc, test_check_refuses_stack_depths_out_of_range);
  tcase_add_test(tc, test_check_names_the_first_bad_option_in_table_order);
  tcase_add_test(tc, test_number_ok_refuses_what_cannot_be_converted);
  tcase_add_test(tc, test_parse_seconds_refuses_past_the_limit_and_not_finite);
  tcase_add_test(tc, test_parse_field_refuses_values_past_each_limit);
  tcase_add_test(tc, test_env_values_past_the_limit_are_bad_values);
  tcase_add_test(tc, test_signal_takes_usr1_usr2_and_realtime_signals);
  tcase_add_test(tc, test_signal_refuses_every_other_signal);
  tcase_add_test(tc, test_api_start_refuses_options_past_their_limits);
  tcase_add_test(tc, test_module_start_refuses_numbers_past_their_limits);
  tcase_add_test(tc, test_module_start_refuses_strings_with_a_nul_byte);
  tcase_add_test(tc, test_run_refuses_malformed_variables);
  tcase_add_test(tc, test_module_loads_under_strict_globals);
  tcase_add_test(tc, test_module_calls_after_a_write_error_say_why);
  tcase_add_test(tc, test_module_start_from_os_getenv_does_not_recurse);
  tcase_add_test(tc, test_module_start_for_nginx_workers_checks_the_root);
  tcase_add_test(tc, test_module_nginx_without_a_timer_says_so);
  tcase_add_test(tc, test_run_takes_ljleak_snapshots);
  tcase_add_test(tc, test_check_refuses_labels_the_index_would_not_take);
  tcase_add_test(tc, test_values_are_off_by_default_and_on_by_ljleak_values);
  suite_add_tcase(s, tc);
  return check_run(s);
}
