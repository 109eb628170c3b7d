/* collector/options.c: option values and the LJLEAK_* environment variables. */
#include "collector/options.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "collector/callstack.h"
#include "collector/ljleak_collector.h"
#include "format/capture_index.h"
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
  if (errno || *end != '\0' || !isfinite(v) || v < 0 || v > LJLEAK_COLLECTOR_MAX_SECONDS)
    return -1;
  *value = v;
  return 0;
}

int coll_options_parse_bool(const char *text, int *value)
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

/* The n of "+n" (sign '+') or "-n" (sign '-') after RTMIN or RTMAX; "" is
 * 0. -1 if text is neither or n is past the real-time range. */
static int rt_offset(const char *text, char sign)
{
  if (!*text)
    return 0;
  if (*text != sign || !isdigit((unsigned char)text[1]))
    return -1;
  char *end;
  errno = 0;
  long n = strtol(text + 1, &end, 10);
  if (errno || *end || n > SIGRTMAX - SIGRTMIN)
    return -1;
  return (int)n;
}

int coll_options_parse_signal(const char *text, int *signo)
{
  if (!text || !*text || !strcasecmp(text, "none")) {
    *signo = 0;
    return 0;
  }
  int v;
  if (isdigit((unsigned char)*text)) {
    char *end;
    errno = 0;
    long n = strtol(text, &end, 10);
    if (errno || *end || n > SIGRTMAX)
      return -1;
    v = (int)n;
  } else {
    if (!strncasecmp(text, "SIG", 3))
      text += 3;
    int offset;
    if (!strcasecmp(text, "USR1"))
      v = SIGUSR1;
    else if (!strcasecmp(text, "USR2"))
      v = SIGUSR2;
    else if (!strncasecmp(text, "RTMIN", 5) && (offset = rt_offset(text + 5, '+')) >= 0)
      v = SIGRTMIN + offset;
    else if (!strncasecmp(text, "RTMAX", 5) && (offset = rt_offset(text + 5, '-')) >= 0)
      v = SIGRTMAX - offset;
    else
      return -1;
  }
  /* glibc keeps the two real-time signals below SIGRTMIN for its threads. */
  if (v != SIGUSR1 && v != SIGUSR2 && (v < SIGRTMIN || v > SIGRTMAX))
    return -1;
  *signo = v;
  return 0;
}

#define FIELD(key, env, kind, field, max, max_words) \
  {key, env, COLL_OPTIONS_KIND_##kind, offsetof(struct ljleak_collector_options, field), max, max_words}
const struct coll_options_field coll_options_fields[] = {
  FIELD("dir", "LJLEAK_DIR", STRING, dir, 0, NULL),
  FIELD("root", "LJLEAK_ROOT", STRING, root, 0, NULL),
  FIELD("period", "LJLEAK_PERIOD", SECONDS, period, LJLEAK_COLLECTOR_MAX_SECONDS, "365 days"),
  FIELD("max_bytes", "LJLEAK_MAX_BYTES", SIZE, max_bytes, LJLEAK_COLLECTOR_MAX_SIZE, "1 PiB"),
  FIELD("max_total_bytes", "LJLEAK_MAX_TOTAL_BYTES", SIZE, max_total_bytes,
        LJLEAK_COLLECTOR_MAX_SIZE, "1 PiB"),
  FIELD("sample", "LJLEAK_SAMPLE", SIZE, sample, LJLEAK_COLLECTOR_MAX_SAMPLE, "1 GiB"),
  FIELD("gzip", "LJLEAK_GZIP", BOOL, gzip, 0, NULL),
  FIELD("duration", "LJLEAK_DURATION", SECONDS, duration, LJLEAK_COLLECTOR_MAX_SECONDS,
        "365 days"),
  FIELD("force_gc", "LJLEAK_FORCE_GC", BOOL, force_gc, 0, NULL),
  FIELD("c_hook", "LJLEAK_C_HOOK", BOOL, c_hook, 0, NULL),
  FIELD("every", "LJLEAK_EVERY", SIZE, every, LJLEAK_COLLECTOR_MAX_SIZE, "1 PiB"),
  FIELD("edge_gc", "LJLEAK_EDGE_GC", BOOL, edge_gc, 0, NULL),
  FIELD("stack_depth", "LJLEAK_STACK_DEPTH", STACK_DEPTH, stack_depth,
        LJLEAK_COLLECTOR_MAX_STACK_DEPTH, NULL),
  FIELD("labels", "LJLEAK_LABELS", LABELS, labels, 0, NULL),
  FIELD("snapshots", "LJLEAK_SNAPSHOTS", SIZE, snapshots, LJLEAK_COLLECTOR_MAX_SNAPSHOTS, NULL),
  FIELD("values", "LJLEAK_VALUES", BOOL, values, 0, NULL),
  {NULL, NULL, COLL_OPTIONS_KIND_STRING, 0, 0, NULL},
};
#undef FIELD

const struct coll_options_field *coll_options_field(const char *key)
{
  for (const struct coll_options_field *f = coll_options_fields; f->key; f++)
    if (!strcmp(key, f->key))
      return f;
  return NULL;
}

int coll_options_parse_field(const struct coll_options_field *f, const char *text,
                             struct ljleak_collector_options *o)
{
  void *field = coll_options_field_at(o, f);
  switch (f->kind) {
  case COLL_OPTIONS_KIND_STRING:
    *(const char **)field = text;
    return 0;
  case COLL_OPTIONS_KIND_LABELS:
    if (capture_index_labels_check(text, NULL) != FORMAT_OK)
      return -1;
    *(const char **)field = text;
    return 0;
  case COLL_OPTIONS_KIND_SECONDS: {
    double v;
    if (ljleak_collector_parse_seconds(text, &v) != 0 || !coll_options_number_ok(f, v))
      return -1;
    *(double *)field = v;
    return 0;
  }
  case COLL_OPTIONS_KIND_SIZE: {
    uint64_t v;
    if (ljleak_collector_parse_size(text, &v) != 0 || v > f->max)
      return -1;
    *(uint64_t *)field = v;
    return 0;
  }
  case COLL_OPTIONS_KIND_BOOL:
    return coll_options_parse_bool(text, field);
  case COLL_OPTIONS_KIND_STACK_DEPTH:
    return coll_options_parse_stack_depth(text, field);
  }
  return -1;
}

int coll_options_number_ok(const struct coll_options_field *f, double n)
{
  if (isnan(n))
    return 0;
  switch (f->kind) {
  case COLL_OPTIONS_KIND_STRING:
  case COLL_OPTIONS_KIND_LABELS:
    return 0;
  case COLL_OPTIONS_KIND_BOOL:
    return 1;
  case COLL_OPTIONS_KIND_SECONDS:
    return n >= 0 && n <= (double)f->max;   /* max is exact in a double: inf fails */
  case COLL_OPTIONS_KIND_SIZE:
  case COLL_OPTIONS_KIND_STACK_DEPTH:
    return n >= 0 && n <= (double)f->max && n == floor(n);
  }
  return 0;
}

void coll_options_range_error(const struct coll_options_field *f, char *err, size_t err_size)
{
  if (!err || !err_size)
    return;
  const char *what = "a string";
  switch (f->kind) {
  case COLL_OPTIONS_KIND_STRING:
    break;
  case COLL_OPTIONS_KIND_LABELS:
    what = "a list of KEY=VALUE labels joined by ','";
    break;
  case COLL_OPTIONS_KIND_BOOL:
    what = "a boolean, or a number other than NaN";
    break;
  case COLL_OPTIONS_KIND_SECONDS:
    what = "a number of seconds";
    break;
  case COLL_OPTIONS_KIND_SIZE:
    /* snapshots is a count, parsed as the sizes are */
    what = strcmp(f->key, "snapshots") ? "a whole number of bytes"
                                       : "a whole number of heap snapshots";
    break;
  case COLL_OPTIONS_KIND_STACK_DEPTH:
    what = "a whole number of frames";
    break;
  }
  if (!f->max)
    snprintf(err, err_size, "%s must be %s", f->key, what);
  else if (f->max_words)
    snprintf(err, err_size, "%s must be %s from 0 to %" PRIu64 " (%s)", f->key, what, f->max,
             f->max_words);
  else
    snprintf(err, err_size, "%s must be %s from 0 to %" PRIu64, f->key, what, f->max);
}

int coll_options_check(const struct ljleak_collector_options *o, char *err, size_t err_size)
{
  for (const struct coll_options_field *f = coll_options_fields; f->key; f++) {
    const void *field = (const char *)o + f->offset;
    int ok = 1;
    switch (f->kind) {
    case COLL_OPTIONS_KIND_STRING:
    case COLL_OPTIONS_KIND_BOOL:
      break;   /* any pointer, any int */
    case COLL_OPTIONS_KIND_LABELS: {
      /* The labels go into the index and every report made from it: the
       * one check, whichever way they came (a request may be hostile). */
      const char *labels = *(const char *const *)field;
      struct format_error why;
      if (labels && capture_index_labels_check(labels, &why) != FORMAT_OK) {
        if (err && err_size)
          snprintf(err, err_size, "%s: %s", f->key, why.message);
        return -1;
      }
      break;
    }
    case COLL_OPTIONS_KIND_SECONDS:
      ok = coll_options_number_ok(f, *(const double *)field);
      break;
    case COLL_OPTIONS_KIND_SIZE:
      ok = *(const uint64_t *)field <= f->max;
      break;
    case COLL_OPTIONS_KIND_STACK_DEPTH: {
      int depth = *(const int *)field;
      ok = depth >= 0 && (uint64_t)depth <= f->max;
      break;
    }
    }
    if (!ok) {
      coll_options_range_error(f, err, err_size);
      return -1;
    }
  }
  return 0;
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

int coll_options_from_env(struct ljleak_collector_options *o,
                          const char *(*get)(void *ctx, const char *name), void *ctx, char *err,
                          size_t err_size)
{
  memset(o, 0, sizeof *o);
  o->stack_depth = CALLSTACK_DEFAULT_DEPTH;
  int failed = 0;
  for (const struct coll_options_field *f = coll_options_fields; f->key; f++) {
    const char *v = get(ctx, f->env);
    if (v && *v)
      take(f->env, v, coll_options_parse_field(f, v, o) == 0, &failed, err, err_size);
  }
  return failed ? -1 : 0;
}

int coll_options_parse_stack_depth(const char *text, int *depth)
{
  uint64_t n;
  if (ljleak_collector_parse_size(text, &n) != 0 || !ljleak_collector_stack_depth_ok(n))
    return -1;
  *depth = (int)n;
  return 0;
}

const char *coll_options_process_env(void *ctx, const char *name)
{
  (void)ctx;
  return getenv(name);
}

void ljleak_collector_options_init(struct ljleak_collector_options *o)
{
  /* Bad values are ignored here; the runner and the module validate their own input. */
  coll_options_from_env(o, coll_options_process_env, NULL, NULL, 0);
}
