/* diff/allow.h: the allow-list inside diff: its rules, which one a site matches, and its budget. */
#ifndef LJLEAK_DIFF_ALLOW_H
#define LJLEAK_DIFF_ALLOW_H

#include <stddef.h>

#include "diff/diff.h"

/* One line of an allow file: PATTERN BUDGET # WHY. */
struct diff_allow_rule {
  char *pattern;              /* shell glob on the whole site name; '*' crosses '/' */
  char *budget;               /* as written */
  double budget_bytes;        /* bytes per boundary, or per MB of work */
  int per_megabyte;
  char *comment;
  size_t line;                /* 1-based */
};

struct diff_allow {
  char *path;                 /* the file, as given (messages, and each site's allowance) */
  struct diff_allow_rule *rules;
  size_t count;
};

/* Parses an allow file's text; name is the file in messages. A malformed
 * line is FORMAT_USAGE: "NAME: line N: what is wrong". */
enum format_status diff_allow_parse(const char *name, const char *text, size_t length,
                                    struct diff_allow **allow, struct format_error *err);

/* The first rule (in file order) whose pattern matches name, or NULL. */
const struct diff_allow_rule *diff_allow_match(const struct diff_allow *allow, const char *name);

/* Gives each site of result the rule its name matches (allow NULL: the rule
 * it already carries) and decides whether it is allowed: it grew (growing,
 * new, worse, undecided) by no more than the budget. A per-MB budget on a
 * capture without per-boundary allocated bytes is FORMAT_USAGE. */
enum format_status diff_allow_apply(struct diff_result *result, const struct diff_allow *allow,
                                    struct format_error *err);

#endif
