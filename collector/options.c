/* collector/options.c: option values and the LJLEAK_* environment variables. */
#include "collector/options.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

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

static const char *env(const char *name)
{
  const char *v = getenv(name);
  return v && *v ? v : NULL;
}

void ljleak_collector_options_init(struct ljleak_collector_options *o)
{
  memset(o, 0, sizeof *o);
  const char *v;
  o->dir = env("LJLEAK_DIR");
  o->root = env("LJLEAK_ROOT");
  /* Bad values are ignored here; the runner and the module validate their own input. */
  if ((v = env("LJLEAK_PERIOD")))
    ljleak_collector_parse_seconds(v, &o->period);
  if ((v = env("LJLEAK_MAX_BYTES")))
    ljleak_collector_parse_size(v, &o->max_bytes);
  if ((v = env("LJLEAK_MAX_TOTAL_BYTES")))
    ljleak_collector_parse_size(v, &o->max_total_bytes);
  if ((v = env("LJLEAK_SAMPLE")))
    ljleak_collector_parse_size(v, &o->sample);
  if ((v = env("LJLEAK_GZIP")))
    options_parse_bool(v, &o->gzip);
  if ((v = env("LJLEAK_DURATION")))
    ljleak_collector_parse_seconds(v, &o->duration);
  if ((v = env("LJLEAK_FORCE_GC")))
    options_parse_bool(v, &o->force_gc);
  if ((v = env("LJLEAK_C_HOOK")))
    options_parse_bool(v, &o->c_hook);
  if ((v = env("LJLEAK_EVERY")))
    ljleak_collector_parse_size(v, &o->every);
  if ((v = env("LJLEAK_EDGE_GC")))
    options_parse_bool(v, &o->edge_gc);
}
