/* report/common.h: helpers shared by the renderers inside report/ (not part of the interface). */
#ifndef LJLEAK_REPORT_COMMON_H
#define LJLEAK_REPORT_COMMON_H

#include <stdint.h>
#include <stdio.h>

#include "diff/diff.h"
#include "diff/suspects.h"
#include "report/report.h"

/* report_format_bytes, report_format_duration, report_format_count and each
 * format's escaper (report_put_html, ...) are in report.h: the merge's
 * renderers use them too. */
/* report_format_bytes, written to out. */
void report_put_bytes(FILE *out, double bytes, int sign);
/* What a holder path holds, after its path: "240 objects, 20.6 KiB; the table keeps 22.7 KiB
 * alive" (every format but JSON says it so). */
void report_holder_summary(const struct diff_holder *holder, char *buffer, size_t size);
/* What a growing container did, after where it was made and its path: "2,048 -> 3,000 entries
 * (16.1 KiB -> 32.1 KiB)". */
void report_container_growth(const struct diff_container *container, char *buffer, size_t size);
/* How a format writes a growing container's line (report_put_container): its escaper
 * (given NULL for a path an older result lacks) and the marks around the names. */
struct report_container_marks {
  void (*put)(FILE *out, const char *text);
  const char *open, *made_at, *held_by, *growth, *close;
};
/* "KIND made at SITE, held by PATH: GROWTH", each name through marks->put: the one
 * wording of a growing container, which text and HTML mark up their own way. */
void report_put_container(FILE *out, const struct diff_container *container,
                          const struct report_container_marks *marks);
/* How a format writes the base's growing sites that the candidate does not grow
 * (report_put_fixed): its escapers for names and for our words, and the marks around the
 * heading and each line. */
struct report_fixed_marks {
  void (*put)(FILE *out, const char *text);
  void (*words)(FILE *out, const char *text);
  const char *heading_open, *heading_close, *open, *name_close, *close;
};
/* Base mode: the base's growing sites that the candidate does not grow, after a heading: its
 * steady or shrinking sites whose base grew ("NAME: steady in the candidate; +1.2 KiB per
 * boundary in the base"), then the base's growing sites it lacks (base_gone: "absent from the
 * candidate (fixed, or renamed)"), each name through marks->put. Nothing when there are none. */
void report_put_fixed(FILE *out, const struct diff_result *r, const struct report_fixed_marks *marks);
/* "3,000 tables (281.2 KiB), 3,000 closures (140.6 KiB)"; "" when no kind is known. */
void report_kinds_words(const struct diff_kind_count *kinds, char *buffer, size_t size);
/* A site under a suspect, in words: "holds 3,000 tables (281.2 KiB); the suspect retains
 * 1.3 MiB, of which this site 281.2 KiB"; through_keys (diff_suspect_through_keys): the
 * weak-keyed table whose values they are, alive while their keys are, named after the kinds. */
void report_suspect_site_words(const struct diff_suspect *suspect, const struct diff_site *site, int through_keys,
                               char *buffer, size_t size);
/* A suspect's growth, retained size, kinds and a growing container's entries, in words. */
void report_suspect_summary(const struct diff_result *result, const struct diff_suspect *suspect,
                            char *buffer, size_t size);
/* A value as every report words it, before the report's own escaping: "\"user:1234:tok...\"
 * (+52 bytes)" for a string cut, "\"user:1\"" for a whole one, 42 for a key that is no string. */
void report_value_words(const struct diff_value *value, char *buffer, size_t size);
/* A suspect's values of kind, joined by ", " ("" when none). */
void report_suspect_values_words(const struct diff_result *result, const struct diff_suspect *suspect,
                                 enum diff_value_kind kind, char *buffer, size_t size);
/* The lines of values under a suspect, in every report's order, each marked as values: its
 * strings ("values (--values): "), then its container's keys ("keys (--values): "). */
struct report_values_line {
  enum diff_value_kind kind;
  const char *title;
};
#define REPORT_VALUES_LINES 2
extern const struct report_values_line report_values_lines[REPORT_VALUES_LINES];
/* For each line of values a suspect shows (a result with values shown), put(out, title, k,
 * words) for its k-th value (from 0) in report_value_words's words, then put(out, title, count,
 * NULL) once after its last: the renderers' one walk over them. */
void report_suspect_values_each(const struct diff_result *result, const struct diff_suspect *suspect, FILE *out,
                                void (*put)(FILE *out, const char *title, size_t k, const char *words));
/* What a report says when --values was asked of a capture without values sidecars. */
extern const char report_values_not_captured[];
/* A site under a suspect, as every report lists it. */
struct report_suspect_site {
  size_t k;                   /* its place under the suspect, from 0 */
  const struct diff_site *site;
  const char *vm_work_for;    /* the VM's work: the name of the suspect's site its stacks end
                                 at; NULL for a site the container holds */
  const char *words;          /* a site it holds: what it holds and its share
                                 (report_suspect_site_words); "" for the VM's work */
  const struct diff_site *stack;  /* a site it holds: its top stack, or NULL */
};
/* For each site under suspect, in its order: put(out, context, line). The renderers' one walk
 * over them. */
void report_suspect_sites_each(const struct diff_result *result, const struct diff_suspect *suspect,
                               FILE *out, const void *context,
                               void (*put)(FILE *out, const void *context,
                                           const struct report_suspect_site *line));
/* For each flagged site no suspect holds (a finding on its own), in the result's order:
 * put(out, context, k, site, kinds) with k from 0 and kinds its objects by kind in words
 * (report_kinds_words; "" when none is known): the renderers' one walk over them. Returns how
 * many there were. */
size_t report_alone_each(const struct diff_result *result, FILE *out, const void *context,
                         void (*put)(FILE *out, const void *context, size_t k, const struct diff_site *site,
                                     const char *kinds));
/* The headline's findings: "1 leak suspect", "2 leak suspects and 1 other finding". */
void report_findings_words(const struct diff_result *result, char *buffer, size_t size);
/* What a retained size means, said once in each report that shows suspects. */
extern const char report_retained_meaning[];
/* What a report says of flagged sites not grouped (no snapshot, or an older result). */
const char *report_not_grouped(const struct diff_result *result);
/* The line a report prints for a capture without heap snapshots, so no holders. */
extern const char report_no_snapshot_hint[];
/* "0.042", "1.2e-04": a p-value in few characters. */
void report_format_p_value(char *buffer, size_t size, double p_value);

/* A sparkline of values (UTF-8 blocks, at most width cells; values are
 * averaged in buckets when there are more). Returns the cells drawn. */
size_t report_sparkline(char *buffer, size_t size, const uint64_t *values, size_t count,
                        size_t width);


/* The capture's span in seconds (first start to last boundary); 0 when unknown. */
double report_capture_span(const struct diff_capture *capture);
/* Live bytes of a site at its last boundary (0 when it has none). */
uint64_t report_last_live(const struct diff_site *site);
/* Live bytes at boundary (1-based); 0 outside the series. */
uint64_t report_live_at(const struct diff_site *site, size_t boundary);
/* The boundaries a row compares: the range in range mode, else the first
 * after the warm-up and the last. */
void report_row_boundaries(const struct diff_result *result, const struct diff_site *site,
                           size_t *from, size_t *to);
/* Live bytes of a site at its last boundary in the base (0 when it has none). */
uint64_t report_base_last_live(const struct diff_site *site);

/* Why a result is inconclusive, one line (empty when its outcome is not
 * inconclusive): its facts' reasons in words: what was missing, how many
 * boundaries there were and how many a trend needs. The text, Markdown,
 * HTML and JSON reports all use it. */
void report_outcome_reason(const struct diff_result *result, char *buffer, size_t size);
/* What to do about an inconclusive result (its facts' remedy), one line
 * ("" when it is not inconclusive). */
/* The sampling floor (diff_facts.sample_floor), formatted. */
void report_sampling_floor(const struct diff_result *r, char *buffer, size_t size);
/* What the evidence covers: how much of the run's work its boundaries
 * cover (and that it ends early), and a sampled capture's floor; empty
 * when the capture says neither. */
void report_evidence(const struct diff_result *r, char *buffer, size_t size);
const char *report_outcome_advice(const struct diff_result *result);
/* Where an allowance's rule is: its file, line and pattern ("ci/allow.txt line 3: INTERNAL"). */
void report_allowance_rule(const struct diff_allowance *allowance, char *buffer, size_t size);
/* The site's growth against its allowance: "+1.2 KiB per boundary, within
 * 4k/boundary" or "+3.0 KiB per MB of work, past 1k/MB". */
void report_allowance_growth(const struct diff_site *site, char *buffer, size_t size);

/* The renderers; each returns 0, or -1 with error set (text, JUnit and markdown cannot fail). */
int report_render_text(const struct diff_result *result, const struct report_options *options,
                       FILE *out, struct format_error *error);
int report_render_html(const struct diff_result *result, const struct report_options *options,
                       FILE *out, struct format_error *error);
int report_render_junit(const struct diff_result *result, FILE *out, struct format_error *error);
int report_render_markdown(const struct diff_result *result, FILE *out, struct format_error *error);
int report_render_pprof(const struct diff_result *result, const struct report_options *options,
                        FILE *out, struct format_error *error);
int report_render_folded(const struct diff_result *result, const struct report_options *options,
                         FILE *out, struct format_error *error);

/* The HTML report's stacks of the flagged sites and its leak flame graph
 * (report/flame.c); nothing for a result without stacks. */
void report_html_flame(FILE *out, const struct diff_result *result);

/* ---- Stacks (report/folded.c) ----------------------------------------------
 * The rows that stack formats draw: result->stacks when the result has them,
 * else its rows (by stack, or sites without stacks: one frame each). */
const struct diff_site *report_stack_rows(const struct diff_result *result, size_t *count);
/* The first boundary of the growth that stack formats show: range mode's
 * range_from when set, else the first after the warm-up (1 when the warm-up
 * holds them all); 0 when the result has no boundary. */
size_t report_stack_from(const struct diff_result *result);
/* The boundaries a stack format compares (1-based, from <= to; 0 and 0
 * when the result has none), or -1 with FORMAT_USAGE in error when
 * options->boundary is past the last boundary. */
int report_stack_boundaries(const struct diff_result *result, const struct report_options *options,
                            size_t *from, size_t *to, struct format_error *error);
/* A series' value (a row's live bytes or blocks) at boundary `at` (1-based;
 * 0 outside); report_live_at is this for live bytes (report/common.c). */
uint64_t report_stack_at(const uint64_t *series, size_t count, size_t at);
/* The stacks that hold a site's growth (their site_id is its id), in the
 * result's order (flagged first, by growth): up to max into out; returns
 * how many there are in all. */
size_t report_site_stacks(const struct diff_result *result, const struct diff_site *site,
                          const struct diff_site **out, size_t max);
/* A stack's name as the reports list it: root first, or a note where the
 * collector recorded no frames. */
const char *report_stack_name(const struct diff_site *stack);

#endif
