/* collector/options.c: option values and the LJLEAK_* environment variables. */
#include "collector/options.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
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

#define FIELD(key, env, kind, field) \
  {key, env, OPTIONS_KIND_##kind, offsetof(struct ljleak_collector_options, field)}
const struct options_field options_fields[] = {
  FIELD("dir", "LJLEAK_DIR", STRING, dir),
  FIELD("root", "LJLEAK_ROOT", STRING, root),
  FIELD("period", "LJLEAK_PERIOD", SECONDS, period),
  FIELD("max_bytes", "LJLEAK_MAX_BYTES", SIZE, max_bytes),
  FIELD("max_total_bytes", "LJLEAK_MAX_TOTAL_BYTES", SIZE, max_total_bytes),
  FIELD("sample", "LJLEAK_SAMPLE", SIZE, sample),
  FIELD("gzip", "LJLEAK_GZIP", BOOL, gzip),
  FIELD("duration", "LJLEAK_DURATION", SECONDS, duration),
  FIELD("force_gc", "LJLEAK_FORCE_GC", BOOL, force_gc),
  FIELD("c_hook", "LJLEAK_C_HOOK", BOOL, c_hook),
  FIELD("every", "LJLEAK_EVERY", SIZE, every),
  FIELD("edge_gc", "LJLEAK_EDGE_GC", BOOL, edge_gc),
  FIELD("stack_depth", "LJLEAK_STACK_DEPTH", STACK_DEPTH, stack_depth),
  {NULL, NULL, OPTIONS_KIND_STRING, 0},
};
#undef FIELD

const struct options_field *options_field(const char *key)
{
  for (const struct options_field *f = options_fields; f->key; f++)
    if (!strcmp(key, f->key))
      return f;
  return NULL;
}

int options_parse_field(const struct options_field *f, const char *text,
                        struct ljleak_collector_options *o)
{
  void *field = options_field_at(o, f);
  switch (f->kind) {
  case OPTIONS_KIND_STRING:
    *(const char **)field = text;
    return 0;
  case OPTIONS_KIND_SECONDS:
    return ljleak_collector_parse_seconds(text, field);
  case OPTIONS_KIND_SIZE:
    return ljleak_collector_parse_size(text, field);
  case OPTIONS_KIND_BOOL:
    return options_parse_bool(text, field);
  case OPTIONS_KIND_STACK_DEPTH:
    return options_parse_stack_depth(text, field);
  }
  return -1;
}

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
  o->stack_depth = CALLSTACK_DEFAULT_DEPTH;
  int failed = 0;
  for (const struct options_field *f = options_fields; f->key; f++) {
    const char *v = get(ctx, f->env);
    if (v && *v)
      take(f->env, v, options_parse_field(f, v, o) == 0, &failed, err, err_size);
  }
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

const char *options_process_env(void *ctx, const char *name)
{
  (void)ctx;
  return getenv(name);
}

void ljleak_collector_options_init(struct ljleak_collector_options *o)
{
  /* Bad values are ignored here; the runner and the module validate their own input. */
  options_from_env(o, options_process_env, NULL, NULL, 0);
}
