/* merge/merge.h: a fleet's diff results in one: per site, in how many captures it grew, how fast, how much it holds, by label. */
#ifndef LJLEAK_MERGE_MERGE_H
#define LJLEAK_MERGE_MERGE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "container/index_table.h"
#include "diff/diff.h"

/* What a merge's JSON says it is (docs/merge.md): "ljleak_merge": 1. */
#define MERGE_VERSION 1

/* ---- The model ---------------------------------------------------------------
 * A merge keeps, for every capture, its metadata and, for every site, the
 * site's values in each capture it was seen in (verdict, growth, live bytes
 * at the last boundary). Every per-site figure (counts, medians, largest,
 * sums, counts by label) is computed from those values by merge_finish, and
 * a merge's JSON carries the values, not the figures: so merging merges
 * gives exactly the figures of merging every result at once, in any
 * grouping and order (a median of medians would not). */

/* One capture: the diff result's capture, without its per-boundary arrays. */
struct merge_capture {
  struct diff_capture info;   /* path, command, exe, host, pid, LuaJIT, times, labels,
                                 boundary_count; boundary_times and the other arrays NULL */
  char *source;               /* the diff result's file, as it was first named */
  char *input;                /* the file this merge read it from: source, or a merge listing it */
  double end_time;            /* stop_time, else the last boundary's time; 0 if unknown */
  int has_times;              /* the result had boundary times: per-second figures are known */
  enum diff_outcome outcome;  /* the result's own outcome */
  size_t site_count;          /* sites the result examined */
  size_t flagged;             /* of those, flagged */
};

/* One site in one capture. */
struct merge_value {
  size_t capture;             /* index in merge->captures */
  enum diff_verdict verdict;
  int flagged;                /* diff_site_flagged under the result's mode: growing (new, worse) */
  int undecided;              /* diff_site_undecided: no verdict, not allowed */
  double growth_bytes_per_boundary;
  double growth_bytes_per_second;   /* 0 when the capture has no times */
  uint64_t live_bytes;        /* at the capture's last boundary */
};

/* A label key=value and the captures that carry it. */
struct merge_label_group {
  char *key;
  char *value;
  size_t captures;
};

/* One site over the captures; the figures are merge_finish's. */
struct merge_site {
  char *name;
  uint64_t id;                /* XXH3-64 of name, as in the results */
  enum diff_site_kind kind;
  size_t value_count;
  struct merge_value *values; /* by capture index after merge_finish */
  size_t value_capacity;
  /* merge_finish: */
  size_t seen;                /* captures it was seen in (value_count) */
  size_t growing;             /* ... that flag it */
  size_t undecided;           /* ... where it has no verdict */
  size_t steady;              /* the rest: steady, shrinking, or grown within an allowance */
  double growth_median, growth_max;                  /* bytes per boundary, over the seen captures */
  size_t per_second_count;                           /* seen captures with times */
  double growth_per_second_median, growth_per_second_max;  /* over those; 0 when none */
  uint64_t live_sum, live_max;                       /* live bytes at the last boundary */
  size_t *label_growing;      /* [merge->group_count] growing captures with each label */
  size_t *label_seen;         /* [merge->group_count] captures with each label it was seen in */
};

/* Errors are format/error.h's: an unreadable, malformed or mismatched input, named
 * (FORMAT_BAD_INPUT, FORMAT_IO: "FILE: byte N: what is wrong", "FILE: what is wrong"),
 * or FORMAT_NO_MEMORY. */

struct merge {
  int has_kind;               /* a result was added: mode and by are its */
  enum diff_mode mode;
  enum diff_by by;
  char *kind_source;          /* the first input, named when another's kind differs */
  size_t capture_count, capture_capacity;
  struct merge_capture *captures;   /* by start time, host, pid, path after merge_finish */
  size_t site_count, site_capacity;
  struct merge_site *sites;   /* most growing first after merge_finish */
  struct index_table site_index;  /* sites by id and name (made by the first merge_site_get) */
  /* merge_finish: */
  size_t min_captures;        /* a site is flagged when it grows in at least this many */
  size_t group_count;
  struct merge_label_group *groups; /* by key, then value */
  size_t flagged;             /* sites growing in at least min_captures captures */
  size_t growing_sites;       /* sites growing in at least one */
  size_t undecided_sites;     /* sites short of min_captures that their undecided captures
                               * could bring to it (merge_site_undecided) */
  size_t captures_flagged, captures_inconclusive;  /* by the captures' own outcomes */
  enum diff_outcome outcome;  /* flagged: a flagged site; else inconclusive: a capture is, or a
                                 site is undecided; else pass */
};

/* Why the merge is inconclusive, in words ("2 captures cannot tell", "1 site undecided short of
 * 2 captures", or both), into out; returns out. */
const char *merge_inconclusive_why(const struct merge *merge, char *out, size_t size);

/* The sites growing or undecided in some capture (they come first after merge_finish). */
size_t merge_sites_not_steady(const struct merge *merge);

/* Whether a site not flagged (growing in fewer than min_captures captures) could be, were it
 * growing where it is undecided: what the merge cannot tell. One that could not, however its
 * undecided captures turn out, is not undecided for the merge. */
static inline int merge_site_undecided(const struct merge *merge, const struct merge_site *site)
{
  return site->growing < merge->min_captures && site->undecided &&
         site->growing + site->undecided >= merge->min_captures;
}

void merge_init(struct merge *merge);
void merge_free(struct merge *merge);

/* Adds one diff result, read from source (its file's name, kept and shown).
 * A result whose mode or rows (by site, by stack) differ from the first's
 * is an error naming both files. FORMAT_OK or an error. */
enum format_status merge_add_result(struct merge *merge, const struct diff_result *result,
                                    const char *source, struct format_error *err);

/* Adds an input: a diff result (JSON of ljleak diff), a merge (JSON of
 * ljleak merge), or a directory, whose *.json files (any depth, in name
 * order; names starting with '.' skipped) are each one of those. A
 * directory without any is an error: no capture is dropped silently. */
enum format_status merge_add_path(struct merge *merge, const char *path, struct format_error *err);

/* The most inputs merge_add_paths loads at once. */
#define MERGE_MAX_JOBS 64

/* merge_add_path for each of paths, in order, loading (reading and parsing)
 * up to jobs inputs at once on threads; each is added in its order, so the
 * merge, and the first error, are the same for any jobs. */
enum format_status merge_add_paths(struct merge *merge, const char *const *paths, size_t count,
                                   size_t jobs, struct format_error *err);

/* Adds a diff result or a merge from text in memory; name names it. */
enum format_status merge_add_text(struct merge *merge, const char *name, const char *text,
                                  size_t length, struct format_error *err);

/* Orders the captures and the sites and computes every figure, with a site
 * flagged when it grows in at least min_captures (>= 1) captures. Two
 * inputs holding the same capture (same host, pid and start time, whatever its path)
 * are an error naming both. May be called again after more inputs. */
enum format_status merge_finish(struct merge *merge, size_t min_captures, struct format_error *err);

/* ---- Rendering (merge/merge_json.c, merge_text.c, merge_html.c, merge_junit.c) -- */

enum merge_format {
  MERGE_FORMAT_TEXT,
  MERGE_FORMAT_JSON,
  MERGE_FORMAT_HTML,
  MERGE_FORMAT_MARKDOWN,
  MERGE_FORMAT_JUNIT
};

/* "text", "json", "html", "markdown", "junit": 0, or -1. */
int merge_format_parse(const char *name, enum merge_format *format);

/* Renders a finished merge. Returns FORMAT_OK, or FORMAT_IO with a message in error. */
enum format_status merge_render(const struct merge *merge, enum merge_format format, FILE *out,
                                struct format_error *error);

/* The figures as a person reads them, for the renderers: "growing on 31 of
 * 40 captures labelled release=1.4.2, on 0 of 38 of release=1.4.1", for
 * the label groups of key (in the groups' order), or "" when no capture
 * has key. Returns the length it needed. */
size_t merge_site_by_label(const struct merge *merge, const struct merge_site *site,
                           const char *key, char *buffer, size_t size);

#endif
