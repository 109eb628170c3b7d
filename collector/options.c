/* collector/options.c: option values and the LJLEAK_* environment variables. */
#include "collector/options.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "collector/callstack.h"
#include "collector/ljleak_collector.h"
#include "format/units.h"

int ljleak_collector_parse_size(const char *text, uint64_t *value)
{
  uint64_t v;
  size_t length = units_parse_size(text, &v);
  if (!length || text[length] != '\0')
    return -1;
  *value = v;
  return 0;
}

int ljleak_collector_parse_seconds(const char *text, double *value)
{
  if (!text || !*text)
    return -1;
  char *end;
  errno = 0;
  double v = strtod(text, &end);
  if (errno || *end != '\0' || !isfinite(v) || v < 0)
    return -1;
  *value = v;
  return 0;
}

int options_parse_bool(const char *text, int *value)
{
  static const char *const yes[] = {"1", "yes", "true", "on"};
  static const char *const no[] = {"0", "no", "false", "off", ""};
  if (!text)
    return -1;
  for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++)
    if (!strcasecmp(text, yes[i])) {
      *value = 1;
      return 0;
    }
  for (size_t i = 0; i < sizeof no / sizeof no[0]; i++)
    if (!strcasecmp(text, no[i])) {
      *value = 0;
      return 0;
    }
  return -1;
}

int options_parse_signal(const char *text, int *signo)
{
  static const struct { const char *name; int signo; } names[] = {
    {"USR1", SIGUSR1}, {"USR2", SIGUSR2}, {"HUP", SIGHUP}, {"INT", SIGINT},
    {"QUIT", SIGQUIT}, {"TERM", SIGTERM}, {"PROF", SIGPROF}, {"URG", SIGURG},
    {"WINCH", SIGWINCH}, {"TTIN", SIGTTIN}, {"TTOU", SIGTTOU}, {"PWR", SIGPWR},
  };
  if (!text || !*text || !strcasecmp(text, "none")) {
    *signo = 0;
    return 0;
  }
  if (isdigit((unsigned char)*text)) {
    char *end;
    long v = strtol(text, &end, 10);
    if (*end || v <= 0 || v >= NSIG || v == SIGKILL || v == SIGSTOP)
      return -1;
    *signo = (int)v;
    return 0;
  }
  if (!strncasecmp(text, "SIG", 3))
    text += 3;
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (!strcasecmp(text, names[i].name)) {
      *signo = names[i].signo;
      return 0;
    }
  return -1;
}

#include <stdio.h>

/* One variable into a field: the value, or the first error. */
static void take(const char *name, const char *value, int ok, int *failed, char *err,
                 size_t err_size)
{
  if (ok || *failed)
    return;
  *failed = 1;
  if (err && err_size)
    snprintf(err, err_size, "bad value '%s' in %s", value, name);
}

int options_from_env(struct ljleak_collector_options *o,
                     const char *(*get)(void *ctx, const char *name), void *ctx, char *err,
                     size_t err_size)
{
  memset(o, 0, sizeof *o);
  int failed = 0;
  const char *v;
#define OPTION(name, parse, field)                                          \
  if ((v = get(ctx, name)) && *v)                                           \
    take(name, v, parse(v, &o->field) == 0, &failed, err, err_size);
  if ((v = get(ctx, "LJLEAK_DIR")) && *v)
    o->dir = v;
  if ((v = get(ctx, "LJLEAK_ROOT")) && *v)
    o->root = v;
  OPTION("LJLEAK_PERIOD", ljleak_collector_parse_seconds, period)
  OPTION("LJLEAK_MAX_BYTES", ljleak_collector_parse_size, max_bytes)
  OPTION("LJLEAK_MAX_TOTAL_BYTES", ljleak_collector_parse_size, max_total_bytes)
  OPTION("LJLEAK_SAMPLE", ljleak_collector_parse_size, sample)
  OPTION("LJLEAK_GZIP", options_parse_bool, gzip)
  OPTION("LJLEAK_DURATION", ljleak_collector_parse_seconds, duration)
  OPTION("LJLEAK_FORCE_GC", options_parse_bool, force_gc)
  OPTION("LJLEAK_C_HOOK", options_parse_bool, c_hook)
  OPTION("LJLEAK_EVERY", ljleak_collector_parse_size, every)
  OPTION("LJLEAK_EDGE_GC", options_parse_bool, edge_gc)
  o->stack_depth = CALLSTACK_DEFAULT_DEPTH;
  OPTION("LJLEAK_STACK_DEPTH", options_parse_stack_depth, stack_depth)
#undef OPTION
  return failed ? -1 : 0;
}

int options_parse_stack_depth(const char *text, int *depth)
{
  uint64_t n;
  if (ljleak_collector_parse_size(text, &n) != 0 || !ljleak_collector_stack_depth_ok(n))
    return -1;
  *depth = (int)n;
  return 0;
}

static const char *process_env(void *ctx, const char *name)
{
  (void)ctx;
  return getenv(name);
}

void ljleak_collector_options_init(struct ljleak_collector_options *o)
{
  /* Bad values are ignored here; the runner and the module validate their own input. */
  options_from_env(o, process_env, NULL, NULL, 0);
}
