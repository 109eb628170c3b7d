/* collector/options.h: parsing of option values (sizes, seconds, booleans, signals). */
#ifndef LJLEAK_COLLECTOR_OPTIONS_H
#define LJLEAK_COLLECTOR_OPTIONS_H

#include <stddef.h>
#include <stdint.h>

#include "collector/ljleak_collector.h"

/* Sizes and seconds: ljleak_collector_parse_size and _seconds, in the
 * public header (ljleak_collector.h). */
/* 1/0, yes/no, true/false, on/off. 0 or -1. */
int coll_options_parse_bool(const char *text, int *value);
/* The start/stop signal: USR1, USR2 or a real-time signal, by name
 * ("USR2", "SIGUSR2", "RTMIN", "RTMIN+3", "RTMAX-1") or number ("12");
 * "none" or "" gives 0. Any other signal is refused: a program's SEGV,
 * CHLD or TERM handler is not ours to replace. Returns 0 or -1. */
int coll_options_parse_signal(const char *text, int *signo);
/* A stack depth: 0 to LJLEAK_COLLECTOR_MAX_STACK_DEPTH. 0 or -1. */
int coll_options_parse_stack_depth(const char *text, int *depth);

/* An option: its start{} field, which is also a control request's option
 * (but dir), and its LJLEAK_* variable. coll_options_fields lists them, in the
 * order they are read, up to an entry whose key is NULL: the one table of
 * the environment, the module's start{} and the requests. */
enum coll_options_kind {
  COLL_OPTIONS_KIND_STRING,        /* const char * */
  COLL_OPTIONS_KIND_SECONDS,       /* double: ljleak_collector_parse_seconds */
  COLL_OPTIONS_KIND_SIZE,          /* uint64_t: ljleak_collector_parse_size */
  COLL_OPTIONS_KIND_BOOL,          /* int: coll_options_parse_bool */
  COLL_OPTIONS_KIND_STACK_DEPTH,   /* int: coll_options_parse_stack_depth */
  COLL_OPTIONS_KIND_LABELS,        /* const char *: a label list, capture_index_labels_check */
};
struct coll_options_field {
  const char *key;
  const char *env;
  enum coll_options_kind kind;
  size_t offset;              /* in struct ljleak_collector_options */
  uint64_t max;               /* the most a number may be (LJLEAK_COLLECTOR_MAX_*);
                                 0 for a string or a boolean */
  const char *max_words;      /* max for a reader ("1 GiB"), or NULL */
};
extern const struct coll_options_field coll_options_fields[];

/* The option whose field is key, or NULL. */
const struct coll_options_field *coll_options_field(const char *key);

/* Where f's value lies in o. */
static inline void *coll_options_field_at(struct ljleak_collector_options *o,
                                          const struct coll_options_field *f)
{
  return (char *)o + f->offset;
}

/* Sets f in o from text (a string kind takes text itself, which must
 * outlive o). 0, or -1 if text is malformed or past f's limit (o
 * unchanged). */
int coll_options_parse_field(const struct coll_options_field *f, const char *text,
                             struct ljleak_collector_options *o);

/* Whether n, a number given for f (a Lua number), is one f takes: for
 * seconds finite and from 0 to f->max; for a size or a stack depth also
 * whole, so that converting it to an integer is defined; for a boolean
 * anything but NaN. 1 or 0. */
int coll_options_number_ok(const struct coll_options_field *f, double n);

/* The error of a value of f that is not one it takes, naming f and its
 * limit: "sample must be a whole number of bytes from 0 to 1073741824
 * (1 GiB)". */
void coll_options_range_error(const struct coll_options_field *f, char *err, size_t err_size);

/* Whether every option of o is within its limit, however o was filled:
 * 0, or -1 with coll_options_range_error's message for the first that is not
 * (for the labels: "labels: " and what capture_index_labels_check says).
 * coll_capture_begin calls it, the one check every way to start passes. */
int coll_options_check(const struct ljleak_collector_options *o, char *err, size_t err_size);

/* Fills o with the defaults, then the LJLEAK_* variables as get(ctx, name)
 * gives them (NULL: unset; the strings must outlive o). A malformed value
 * is skipped and the first one is described in err: -1; else 0. */
int coll_options_from_env(struct ljleak_collector_options *o,
                          const char *(*get)(void *ctx, const char *name), void *ctx, char *err,
                          size_t err_size);

/* The process's environment (getenv) as coll_options_from_env's get. */
const char *coll_options_process_env(void *ctx, const char *name);

#endif
