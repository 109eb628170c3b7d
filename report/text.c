/* report/text.c: the terminal report: the verdict first, then the ranked sites with sparklines. */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "report/common.h"

#define SPARK_CELLS 16      /* sparkline width in the tables */
#define LIST_NAMES 5        /* names shown in a compact list before "and N more" */

struct text_style {
  int color;
};

static const char *style_on(const struct text_style *s, const char *code)
{
  return s->color ? code : "";
}

static const char *style_off(const struct text_style *s)
{
  return s->color ? "\033[0m" : "";
}

#define RED "\033[1;31m"
#define GREEN "\033[1;32m"
#define YELLOW "\033[1;33m"
#define BOLD "\033[1m"
#define DIM "\033[2m"

/* Text from a capture, a result or an allow-list (names, paths, labels,
 * rules), as a terminal may be shown it (report_put_terminal); "?" when unknown. */
static void put_name(FILE *out, const char *name)
{
  report_put_terminal(out, name ? name : "?");
}

/* A site's name, and a C function's library beside it, dim: "cjson.decode (cjson.so)". */
static void put_site_name(FILE *out, const struct diff_site *site, const struct text_style *s)
{
  put_name(out, site->name);
  if (!site->library)
    return;
  fprintf(out, " %s(", style_on(s, DIM));
  put_name(out, site->library);
  fprintf(out, ")%s", style_off(s));
}

static size_t series_length(const struct diff_site *site)
{
  return site->live_bytes ? site->count : 0;
}

static void put_bytes(FILE *out, int width, double bytes, int sign, const char *suffix)
{
  char text[48], with_suffix[64];
  report_format_bytes(text, sizeof text, bytes, sign);
  snprintf(with_suffix, sizeof with_suffix, "%s%s", text, suffix);
  fprintf(out, "%*s", width, with_suffix);
}

static void put_count(FILE *out, int width, uint64_t count)
{
  char text[32];
  report_format_count(text, sizeof text, count);
  fprintf(out, "%*s", width, text);
}

/* A sparkline padded to SPARK_CELLS cells. */
static void put_spark(FILE *out, const uint64_t *values, size_t count)
{
  char spark[SPARK_CELLS * 3 + 1];
  size_t cells = values ? report_sparkline(spark, sizeof spark, values, count, SPARK_CELLS) : 0;
  fprintf(out, "  %s", cells ? spark : "");
  for (size_t i = cells; i < SPARK_CELLS; i++)
    putc(' ', out);
}

/* The lines about one capture: what ran, where, and how long; warmup: the
 * first boundaries left out of the verdicts. */
static void put_capture(FILE *out, const char *label, const struct diff_capture *c,
                        size_t warmup)
{
  char text[64];
  fprintf(out, "%-9s ", label);
  if (c->command)
    put_name(out, c->command);
  else if (c->path)
    put_name(out, c->path);
  else
    fputs("(unknown)", out);
  putc('\n', out);

  int items = 0;
  fputs("          ", out);
  if (c->pid) {
    fprintf(out, "pid %ld", c->pid);
    items++;
  }
  if (c->host) {
    fputs(items ? " on " : "host ", out);
    put_name(out, c->host);
    items++;
  }
  if (c->luajit_version) {
    fputs(items ? ", " : "", out);
    put_name(out, c->luajit_version);
    items++;
  }
  if (c->path && c->command) {
    fputs(items ? ", " : "", out);
    put_name(out, c->path);
    items++;
  }
  if (!items)
    fputs("no process details", out);
  putc('\n', out);

  fprintf(out, "          %zu boundar%s", c->boundary_count, c->boundary_count == 1 ? "y" : "ies");
  if (warmup)
    fprintf(out, " (the first %zu warm-up, left out of the verdicts)", warmup);
  double span = report_capture_span(c);
  if (span > 0) {
    report_format_duration(text, sizeof text, span);
    fprintf(out, " over %s", text);
  }
  if (c->gc_cycles && c->boundary_count) {
    report_format_count(text, sizeof text, c->gc_cycles[c->boundary_count - 1]);
    fprintf(out, ", %s GC cycles", text);
  }
  if (c->events) {
    report_format_count(text, sizeof text, c->events);
    fprintf(out, ", %s events", text);
  }
  if (c->sample_bytes) {
    report_format_bytes(text, sizeof text, (double)c->sample_bytes, 0);
    fprintf(out, ", sampled every %s (scaled back)\n", text);
  } else {
    fputs(", every event recorded\n", out);
  }
  if (c->truncated)
    fputs("          warning: a segment was cut; it was read up to its last complete event\n",
          out);
  const char *stopped = report_stop_warning(c);
  if (stopped)
    fprintf(out, "          warning: %s\n", stopped);
}

/* The headline: how many sites fail the run and how fast they grow together. */
static void put_verdict(FILE *out, const struct diff_result *r, const struct text_style *s)
{
  const struct diff_tally *tally = &r->facts.tally;
  size_t flagged = tally->flagged;
  double per_second = tally->growth_bytes_per_second;
  char rate[48], rate_s[48];
  report_format_bytes(rate, sizeof rate, tally->growth_bytes_per_segment, 1);
  report_format_bytes(rate_s, sizeof rate_s, per_second, 1);
  if (r->facts.outcome == DIFF_OUTCOME_INCONCLUSIVE) {
    char reason[512];
    report_outcome_reason(r, reason, sizeof reason);
    fprintf(out, "%sljleak: INCONCLUSIVE: %s%s\n", style_on(s, YELLOW), reason, style_off(s));
    fprintf(out, "        what to do: %s\n", report_outcome_advice(r));
    return;
  }
  fprintf(out, "%sljleak: ", style_on(s, flagged ? RED : GREEN));
  if (!flagged) {
    if (r->mode == DIFF_MODE_BASE)
      fprintf(out, "nothing new or worse in the candidate (%zu sites)", r->site_count);
    else if (r->mode == DIFF_MODE_RANGE)
      fprintf(out, "no site grew from boundary %zu to boundary %zu (%zu sites)",
              r->options.range_from, r->options.range_to, r->site_count);
    else
      fprintf(out, "no growing sites among %zu", r->site_count);
    fprintf(out, "%s\n", style_off(s));
    return;
  }
  char findings[128];
  report_findings_words(r, findings, sizeof findings);
  if (r->suspects_grouped && r->mode == DIFF_MODE_TREND) {
    fprintf(out, "%s, %zu growing site%s (of %zu), %s per boundary", findings, flagged,
            flagged == 1 ? "" : "s", r->site_count, rate);
  } else if (r->mode == DIFF_MODE_BASE) {
    if (r->suspects_grouped)
      fprintf(out, "%s; ", findings);
    fprintf(out, "%zu new and %zu worse in the candidate (%zu of %zu sites), %s per boundary",
            tally->new_count, tally->worse_count, flagged, r->site_count, rate);
  } else if (r->mode == DIFF_MODE_RANGE) {
    if (r->suspects_grouped)
      fprintf(out, "%s; ", findings);
    report_format_bytes(rate, sizeof rate, (double)tally->range_delta_bytes, 1);
    fprintf(out, "%zu of %zu sites grew from boundary %zu to boundary %zu, %s in all", flagged,
            r->site_count, r->options.range_from, r->options.range_to, rate);
  } else {
    fprintf(out, "%zu of %zu sites growing, %s per boundary", flagged, r->site_count, rate);
  }
  if (r->mode != DIFF_MODE_RANGE) {
    if (per_second != 0)
      fprintf(out, " (%s/s)", rate_s);
    fputs(" in all", out);
  }
  fprintf(out, "%s\n", style_off(s));
  if (!r->suspects_grouped)
    fprintf(out, "        %s\n", report_not_grouped(r));
}

/* A site's growth and name, as the suspects list them. */
static void put_suspect_site(FILE *out, const struct diff_site *site, const struct text_style *s)
{
  put_bytes(out, 12, site->growth_bytes_per_segment, 1, "");
  fputs("  ", out);
  put_site_name(out, site, s);
}

/* A site under a suspect (report_suspect_sites_each): what it holds, or whose VM work it is, and
 * its top stack. */
static void put_suspect_site_line(FILE *out, const void *context, const struct report_suspect_site *line)
{
  const struct text_style *s = context;
  fputs("   ", out);
  put_suspect_site(out, line->site, s);
  fputs(line->vm_work_for ? ": the VM's work for " : ": ", out);
  put_name(out, line->vm_work_for ? line->vm_work_for : line->words);
  putc('\n', out);
  if (line->stack) {
    fprintf(out, "%17s%sstack: ", "", style_on(s, DIM));
    put_name(out, report_stack_name(line->stack));
    fprintf(out, "%s\n", style_off(s));
  }
}

/* --values: a suspect's strings and its container's keys, marked as values (they can be secrets:
 * a result has them only when asked for), escaped as every name. */
static void put_suspect_values(FILE *out, const struct diff_result *r, const struct diff_suspect *suspect,
                               const struct text_style *s)
{
  const struct report_values_line *kinds = report_values_lines;
  if (r->values != DIFF_VALUES_SHOWN)
    return;
  for (size_t i = 0; i < REPORT_VALUES_LINES; i++) {
    char words[4096];
    report_suspect_values_words(r, suspect, kinds[i].kind, words, sizeof words);
    if (!words[0])
      continue;
    fprintf(out, "     %s%s", style_on(s, DIM), kinds[i].title);
    put_name(out, words);
    fprintf(out, "%s\n", style_off(s));
  }
}

/* A flagged site that no container explains (report_alone_each), a finding on its own. */
static void put_alone(FILE *out, const void *context, size_t k, const struct diff_site *site,
                      const char *kinds)
{
  const struct text_style *s = context;
  if (!k)
    fprintf(out, "\n%son their own (no container holds their growth: a C library's memory, the VM's "
                 "work, a site without a heap snapshot's holders):%s\n",
            style_on(s, BOLD), style_off(s));
  fputs("   ", out);
  put_suspect_site(out, site, s);
  if (kinds[0]) {
    fputs(": holds ", out);
    put_name(out, kinds);
  }
  putc('\n', out);
}

/* The leak suspects first: each container with its growth, what it retains and holds, then the
 * sites under it (what each holds, its share, its top stack); then the flagged sites that no
 * container explains, each a finding on its own. */
static void put_suspects(FILE *out, const struct diff_result *r, const struct text_style *s)
{
  if (!r->suspects_grouped || !r->facts.tally.flagged)
    return;
  for (size_t k = 0; k < r->suspect_count; k++) {
    const struct diff_suspect *suspect = &r->suspects[k];
    const struct diff_site_container *c = r->sites[suspect->named_site].container;
    if (!k)
      fprintf(out, "\n%sleak suspects (growing sites one container holds, most growth first; %s):%s\n",
              style_on(s, BOLD), report_retained_meaning, style_off(s));
    fprintf(out, "  %s%zu. ", style_on(s, RED), k + 1);
    put_name(out, c->type);
    fputs(" ", out);
    put_name(out, c->path);
    fprintf(out, "%s", style_off(s));
    if (c->site) {
      fputs(", made at ", out);
      put_name(out, c->site);
    }
    char summary[800];
    report_suspect_summary(r, suspect, summary, sizeof summary);
    fputs("\n     ", out);
    put_name(out, summary);
    fprintf(out, "\n     %zu site%s under it (growth/boundary, site: what it holds):\n", suspect->site_count,
            suspect->site_count == 1 ? "" : "s");
    report_suspect_sites_each(r, suspect, out, s, put_suspect_site_line);
    put_suspect_values(out, r, suspect, s);
  }
  report_alone_each(r, out, s, put_alone);
}

/* A table of the sites for which pick() holds, in the engine's order. */
static size_t put_table(FILE *out, const struct diff_result *r, const struct text_style *s,
                        const char *title,
                        int (*pick)(const struct diff_site *))
{
  size_t shown = 0;
  int base = r->mode == DIFF_MODE_BASE, range = r->mode == DIFF_MODE_RANGE;
  int verdict_width = 8;  /* "verdict" and a space; wider for "undecided" */
  for (size_t i = 0; i < r->site_count; i++)
    if (pick(&r->sites[i]) &&
        (int)strlen(diff_verdict_name(r->sites[i].verdict)) + 1 > verdict_width)
      verdict_width = (int)strlen(diff_verdict_name(r->sites[i].verdict)) + 1;
  for (size_t i = 0; i < r->site_count; i++) {
    const struct diff_site *site = &r->sites[i];
    if (!pick(site))
      continue;
    if (!shown++) {
      fprintf(out, "\n%s%s%s\n", style_on(s, BOLD), title, style_off(s));
      fprintf(out, "%s", style_on(s, DIM));
      if (base)
        fprintf(out, "%-*s", verdict_width, "verdict");
      if (range)
        fprintf(out, "%12s", "delta");
      fprintf(out, "%12s", "/boundary");
      if (base)
        fprintf(out, "%15s", "base/boundary");
      char from_title[32] = "first", to_title[32] = "last";
      if (range) {
        snprintf(from_title, sizeof from_title, "at %zu", r->options.range_from);
        snprintf(to_title, sizeof to_title, "at %zu", r->options.range_to);
      } else if (r->options.warmup) {
        snprintf(from_title, sizeof from_title, "at %zu", r->options.warmup + 1);
      }
      fprintf(out, "%14s%9s%12s%12s", "/second", "p", from_title, to_title);
      if (base)
        fprintf(out, "%12s", "base last");
      fprintf(out, "%12s%12s  %-*s", "allocs", "frees", SPARK_CELLS, "series");
      if (base)
        fprintf(out, "  %-*s", SPARK_CELLS, "base series");
      fprintf(out, "  site%s\n", style_off(s));
    }
    if (base)
      fprintf(out, "%s%-*s%s", style_on(s, site->facts.undecided ? YELLOW : RED),
              verdict_width, diff_verdict_name(site->verdict), style_off(s));
    if (range)
      put_bytes(out, 12, (double)site->range_delta_bytes, 1, "");
    put_bytes(out, 12, site->growth_bytes_per_segment, 1, "");
    if (base)
      put_bytes(out, 15, site->base_growth_bytes_per_segment, 1, "");
    if (r->capture.boundary_times)
      put_bytes(out, 14, site->growth_bytes_per_second, 1, "/s");
    else
      fprintf(out, "%14s", "-");  /* the index gave no times */
    char p[32];
    report_format_p_value(p, sizeof p, site->trend_p_value);
    fprintf(out, "%9s", p);
    size_t from, to;
    report_row_boundaries(r, site, &from, &to);
    put_bytes(out, 12, (double)report_live_at(site, from), 0, "");
    put_bytes(out, 12, (double)report_live_at(site, to), 0, "");
    if (base)
      put_bytes(out, 12, (double)report_base_last_live(site), 0, "");
    put_count(out, 12, site->allocs);
    put_count(out, 12, site->frees);
    put_spark(out, site->live_bytes, series_length(site));
    if (base)
      put_spark(out, site->base_live_bytes, site->base_live_bytes ? site->base_count : 0);
    fputs("  ", out);
    put_site_name(out, site, s);
    putc('\n', out);
  }
  return shown;
}

/* One line for many sites: "steady (12): a, b, c, d, e and 7 more". Only
 * sites that are not flagged (they have their table). */
static void put_list(FILE *out, const struct diff_result *r, const struct text_style *s,
                     const char *title, enum diff_verdict verdict)
{
  size_t total = 0, shown = 0;
  for (size_t i = 0; i < r->site_count; i++)
    total += r->sites[i].verdict == verdict && !r->sites[i].facts.flagged;
  if (!total)
    return;
  fprintf(out, "%s%s (%zu): ", style_on(s, DIM), title, total);
  for (size_t i = 0; i < r->site_count && shown < LIST_NAMES; i++) {
    const struct diff_site *site = &r->sites[i];
    if (site->verdict != verdict || site->facts.flagged)
      continue;
    fputs(shown++ ? ", " : "", out);
    put_name(out, site->name);
  }
  if (total > shown)
    fprintf(out, " and %zu more", total - shown);
  fprintf(out, "%s\n", style_off(s));
}

/* Base mode: new sites where the base grew at another line of the same file, which the candidate
 * lacks: the same leak, moved by an edit above it? Said, not judged: the base's site is in no
 * table of this report, as the candidate has no row of its name. */
static void put_moved(FILE *out, const struct diff_result *r)
{
  int any = 0;
  for (size_t i = 0; i < r->site_count; i++) {
    const struct diff_site *site = &r->sites[i];
    if (!site->base_moved)
      continue;
    if (!any++)
      fputs("\nnew where the base grew at another line of the same file that the candidate lacks (the "
            "same leak, its line moved by an edit above it?):\n", out);
    fputs("  ", out);
    put_name(out, site->name);
    fputs("  in the base at ", out);
    put_name(out, site->base_moved);
    putc('\n', out);
  }
}

static int pick_flagged(const struct diff_site *site)
{
  return site->facts.flagged;
}

static int pick_growing_in_both(const struct diff_site *site)
{
  return site->verdict == DIFF_VERDICT_GROWING && !site->facts.flagged && !site->allowed;
}

/* Insufficient sites are listed apart, under "too few boundaries". */
static int pick_undecided(const struct diff_site *site)
{
  return site->facts.rose_undecided;
}

/* The sites an allow-list rule let grow (allowed), then those that grew past
 * their rule's budget; each with its growth, the rule and the rule's reason. */
static void put_allowances(FILE *out, const struct diff_result *r, const struct text_style *s,
                           int allowed)
{
  size_t shown = 0;
  for (size_t i = 0; i < r->site_count; i++) {
    const struct diff_site *site = &r->sites[i];
    const struct diff_allowance *a = site->allowance;
    if (!a || site->allowed != allowed)
      continue;
    if (!allowed && !site->facts.flagged && !site->facts.undecided)
      continue;  /* matched, but did not grow: nothing to allow */
    if (!shown++)
      fprintf(out, "%s%s%s\n", style_on(s, BOLD),
              allowed ? "allowed (grew within the budget of their allow-list rule):"
                      : "past the budget of their allow-list rule (judged as usual):",
              style_off(s));
    char growth[160], rule[300];
    report_allowance_growth(site, growth, sizeof growth);
    report_allowance_rule(a, rule, sizeof rule);
    fputs("  ", out);
    put_name(out, site->name);
    fprintf(out, ": %s, ", diff_verdict_name(site->verdict));
    put_name(out, growth);  /* the rule's budget, as written */
    fputs(" (", out);
    put_name(out, rule);
    fputs("): ", out);
    put_name(out, a->comment);
    putc('\n', out);
  }
  if (shown)
    putc('\n', out);
}

#define STACKS_SHOWN 8      /* stacks listed under a site */

/* Under each flagged (or undecided) site, the stacks that hold its growth,
 * in the result's order (flagged first, by growth), each with its verdict:
 * the caller that leaks is named, the steady one beside it is not blamed. */
static void put_site_stacks(FILE *out, const struct diff_result *r, const struct text_style *s)
{
  size_t shown_sites = 0;
  const struct diff_site *stacks[STACKS_SHOWN];
  for (size_t i = 0; i < r->site_count; i++) {
    const struct diff_site *site = &r->sites[i];
    if (!site->facts.flagged && !site->facts.undecided)
      continue;
    size_t total = report_site_stacks(r, site, stacks, STACKS_SHOWN);
    if (!total)
      continue;
    if (!shown_sites++)
      fprintf(out, "%sstacks that hold the growth, by site (verdict, growth/boundary, live at the "
                   "last boundary, stack root first):%s\n",
              style_on(s, BOLD), style_off(s));
    fputs("  ", out);
    put_site_name(out, site, s);
    putc('\n', out);
    for (size_t k = 0; k < total && k < STACKS_SHOWN; k++) {
      const struct diff_site *stack = stacks[k];
      int bad = stack->facts.flagged;
      fprintf(out, "    %s%-10s%s", style_on(s, bad ? RED : DIM), diff_verdict_name(stack->verdict),
              style_off(s));
      put_bytes(out, 12, stack->growth_bytes_per_segment, 1, "");
      put_bytes(out, 12, (double)report_last_live(stack), 0, "");
      fputs("  ", out);
      put_name(out, report_stack_name(stack));
      putc('\n', out);
    }
    if (total > STACKS_SHOWN)
      fprintf(out, "    and %zu more\n", total - STACKS_SHOWN);
  }
  if (shown_sites)
    putc('\n', out);
}

/* Under each flagged (or undecided) site, the paths that hold its blocks at
 * the heap snapshot, most bytes first; without a snapshot, one line that
 * says how to take one. */
static void put_holders(FILE *out, const struct diff_result *r, const struct text_style *s)
{
  size_t shown_sites = 0, growing = 0;
  for (size_t i = 0; i < r->site_count; i++) {
    const struct diff_site *site = &r->sites[i];
    if (!site->facts.flagged && !site->facts.undecided)
      continue;
    growing++;
    if (!site->holder_count)
      continue;
    if (!shown_sites++)
      fprintf(out, "%sheld by (paths from the GC roots at a heap snapshot: what each holds of the "
                   "site, what its holder keeps alive):%s\n",
              style_on(s, BOLD), style_off(s));
    fputs("  ", out);
    put_name(out, site->name);
    fprintf(out, "  (snapshot at boundary %" PRIu64 ")\n", site->holders_boundary);
    for (size_t k = 0; k < site->holder_count; k++) {
      const struct diff_holder *h = &site->holders[k];
      char summary[200];
      report_holder_summary(h, summary, sizeof summary);
      fputs("    ", out);
      put_name(out, h->path);
      fputs("  (", out);
      put_name(out, summary);  /* the holder's type, as the result names it */
      fputs(")\n", out);
    }
  }
  if (shown_sites)
    putc('\n', out);
  else if (growing && !r->capture.snapshots && r->mode != DIFF_MODE_BASE)
    fprintf(out, "held by: %s\n\n", report_no_snapshot_hint);
}

/* Containers that grew between two heap snapshots: where each was made, how
 * it is held, and its entries at each. */
static void put_containers(FILE *out, const struct diff_result *r, const struct text_style *s)
{
  static const struct report_container_marks marks = {
    .put = put_name, .open = "  ", .made_at = " made at ", .held_by = ", held by ",
    .growth = ": ", .close = "\n"};
  for (size_t i = 0; i < r->container_count; i++) {
    const struct diff_container *c = &r->containers[i];
    if (!i)
      fprintf(out, "%sgrowing containers (the same object at the heap snapshots of boundaries %" PRIu64
                   " and %" PRIu64 "):%s\n",
              style_on(s, BOLD), c->boundaries[0], c->boundaries[1], style_off(s));
    report_put_container(out, c, &marks);
  }
  if (r->container_count)
    putc('\n', out);
}

int report_render_text(const struct diff_result *r, const struct report_options *options,
                       FILE *out, struct format_error *error)
{
  (void)error;
  struct text_style s = {options->color};
  put_verdict(out, r, &s);
  putc('\n', out);
  if (r->mode == DIFF_MODE_BASE) {
    put_capture(out, "candidate", &r->capture, r->options.warmup);
    put_capture(out, "base", &r->base, r->options.warmup);
  } else {
    put_capture(out, "capture", &r->capture, r->options.warmup);
  }
  char evidence[512];
  report_evidence(r, evidence, sizeof evidence);
  if (evidence[0])
    fprintf(out, "          %s\n", evidence);
  if (r->values == DIFF_VALUES_NOT_CAPTURED)  /* asked for: saying nothing would read as "none" */
    fprintf(out, "          %s\n", report_values_not_captured);
  put_suspects(out, r, &s);
  const char *title = r->mode == DIFF_MODE_BASE    ? "new and worse in the candidate, fastest first:"
                      : r->mode == DIFF_MODE_RANGE ? "grew between the boundaries, most first:"
                                                   : "growing, fastest first:";
  put_table(out, r, &s, title, pick_flagged);
  put_table(out, r, &s,
            r->mode == DIFF_MODE_BASE
                ? "undecided (no verdict yet, in the candidate or against the base):"
                : "undecided (rose, but the boundaries cannot show a trend yet):",
            pick_undecided);
  if (r->mode == DIFF_MODE_BASE)
    put_table(out, r, &s, "growing in the candidate as in the base (not worse):",
              pick_growing_in_both);
  put_moved(out, r);
  static const struct report_fixed_marks fixed = {
    .put = put_name, .words = put_name, .heading_open = "\n", .heading_close = "\n", .open = "  ", .name_close = ": ",
    .close = "\n"};
  report_put_fixed(out, r, &fixed);
  putc('\n', out);
  put_site_stacks(out, r, &s);
  put_holders(out, r, &s);
  put_containers(out, r, &s);
  put_allowances(out, r, &s, 1);
  put_allowances(out, r, &s, 0);
  put_list(out, r, &s, "shrinking", DIFF_VERDICT_SHRINKING);
  put_list(out, r, &s, "steady", DIFF_VERDICT_STEADY);
  put_list(out, r, &s, "too few boundaries", DIFF_VERDICT_INSUFFICIENT);
  return 0;
}
