/* report/markdown.c: a short summary for a pull-request comment: a verdict line, the flagged or undecided sites, the allowed ones. */
#include <inttypes.h>
#include <string.h>

#include "format/utf8.h"
#include "report/common.h"

#define MARKDOWN_MAX_ROWS 20

/* Writes text so Markdown shows it literally: its punctuation backslashed,
 * HTML's specials as entities, control characters and newlines as spaces. */
static void put_escaped(FILE *out, const char *text)
{
  if (!text)
    return;
  size_t length = strlen(text);
  for (size_t i = 0; i < length;) {
    uint32_t cp;
    i += utf8_decode(text + i, length - i, &cp);
    if (cp == '<')
      fputs("&lt;", out);
    else if (cp == '>')
      fputs("&gt;", out);
    else if (cp == '&')
      fputs("&amp;", out);
    else if (cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp < 0xa0))
      putc(' ', out);
    else if (cp < 0x80 && strchr("\\`*_[]|~", (int)cp))
      fprintf(out, "\\%c", (char)cp);
    else
      utf8_put(out, cp);
  }
}

/* A table of the sites pick() holds for, at most MARKDOWN_MAX_ROWS of them. */
static void put_sites(FILE *out, const struct diff_result *r, const char *more,
                      int (*pick)(const struct diff_site *))
{
  size_t total = 0, rows = 0;
  for (size_t i = 0; i < r->site_count; i++)
    total += (size_t)pick(&r->sites[i]);
  fputs("\n| site | verdict | growth/boundary | live bytes (first → last) |", out);
  if (r->mode == DIFF_MODE_BASE)
    fputs(" base growth/boundary |", out);
  fputs("\n| --- | --- | ---: | --- |", out);
  if (r->mode == DIFF_MODE_BASE)
    fputs(" ---: |", out);
  fputc('\n', out);
  for (size_t i = 0; i < r->site_count; i++) {
    const struct diff_site *site = &r->sites[i];
    if (!pick(site))
      continue;
    if (rows++ == MARKDOWN_MAX_ROWS) {
      fprintf(out, "\n… and %zu more %s.\n", total - MARKDOWN_MAX_ROWS, more);
      break;
    }
    size_t from = 1, to = site->count;  /* the whole series in range mode, as ever */
    if (r->mode != DIFF_MODE_RANGE)
      report_row_boundaries(r, site, &from, &to);  /* from the warm-up's end */
    fputs("| ", out);
    put_escaped(out, site->name);
    if (site->library) {
      fputs(" (", out);
      put_escaped(out, site->library);
      fputc(')', out);
    }
    fprintf(out, " | %s | ", diff_verdict_name(site->verdict));
    report_put_bytes(out, site->growth_bytes_per_segment, 1);
    fputs(" | ", out);
    report_put_bytes(out, (double)report_live_at(site, from), 0);
    fputs(" → ", out);
    report_put_bytes(out, (double)report_live_at(site, to), 0);
    fputs(" |", out);
    if (r->mode == DIFF_MODE_BASE) {
      fputs(" ", out);
      report_put_bytes(out, site->base_growth_bytes_per_segment, 1);
      fputs(" |", out);
    }
    fputc('\n', out);
  }
}

static int pick_flagged(const struct diff_site *site)
{
  return site->facts.flagged;
}

/* The undecided sites that rose: the reason already counts the
 * insufficient ones (in a capture too short for any change, every site). */
static int pick_undecided(const struct diff_site *site)
{
  return site->facts.rose_undecided;
}

/* Every site without a verdict, beside flagged ones: the count that JUnit's
 * errors give, each site with its verdict. */
static int pick_no_verdict(const struct diff_site *site)
{
  return site->facts.undecided;
}

/* The sites their allow-list rule let grow, each with the rule's reason. */
static void put_allowed(FILE *out, const struct diff_result *r)
{
  size_t shown = 0;
  for (size_t i = 0; i < r->site_count; i++) {
    const struct diff_site *site = &r->sites[i];
    if (!site->allowed)
      continue;
    if (!shown++)
      fputs("\nAllowed by the allow-list (they grew within their budget):\n\n", out);
    char growth[160], rule[300];
    report_allowance_growth(site, growth, sizeof growth);
    report_allowance_rule(site->allowance, rule, sizeof rule);
    fputs("* ", out);
    put_escaped(out, site->name);
    fputs(": ", out);
    put_escaped(out, growth);
    fputs(" (", out);
    put_escaped(out, rule);
    fputs(")", out);
    if (site->allowance) {
      fputs(": ", out);
      put_escaped(out, site->allowance->comment);
    }
    fputc('\n', out);
  }
}

#define MARKDOWN_SITE_STACKS 3  /* stacks named under a flagged site */

/* Under each flagged site (the first MARKDOWN_MAX_ROWS), the stacks that
 * hold its growth, flagged first, each with its verdict: the caller to look at. */
static void put_site_stacks(FILE *out, const struct diff_result *r)
{
  const struct diff_site *stacks[MARKDOWN_SITE_STACKS];
  size_t sites = 0;
  for (size_t i = 0; i < r->site_count && sites < MARKDOWN_MAX_ROWS; i++) {
    const struct diff_site *site = &r->sites[i];
    if (!site->facts.flagged)
      continue;
    size_t total = report_site_stacks(r, site, stacks, MARKDOWN_SITE_STACKS);
    if (!total)
      continue;
    if (!sites++)
      fputs("\nStacks that hold the growth (root first):\n\n", out);
    fputs("* ", out);
    put_escaped(out, site->name);
    fputc('\n', out);
    for (size_t k = 0; k < total && k < MARKDOWN_SITE_STACKS; k++) {
      fprintf(out, "  * %s, ", diff_verdict_name(stacks[k]->verdict));
      report_put_bytes(out, stacks[k]->growth_bytes_per_segment, 1);
      fputs("/boundary: ", out);
      put_escaped(out, report_stack_name(stacks[k]));
      fputc('\n', out);
    }
    if (total > MARKDOWN_SITE_STACKS)
      fprintf(out, "  * and %zu more\n", total - MARKDOWN_SITE_STACKS);
  }
}

/* Under each flagged site (the first MARKDOWN_MAX_ROWS), its top holder
 * path; or, when the capture has no heap snapshot, how to take one. */
static void put_holders(FILE *out, const struct diff_result *r)
{
  size_t sites = 0;
  for (size_t i = 0; i < r->site_count && sites < MARKDOWN_MAX_ROWS; i++) {
    const struct diff_site *site = &r->sites[i];
    if (!site->facts.flagged || !site->holder_count)
      continue;
    if (!sites++)
      fputs("\nHeld by (paths from the GC roots at the heap snapshot):\n\n", out);
    fputs("* ", out);
    put_escaped(out, site->name);
    fputc('\n', out);
    for (size_t k = 0; k < site->holder_count && k < MARKDOWN_SITE_STACKS; k++) {
      char summary[200];
      report_holder_summary(&site->holders[k], summary, sizeof summary);
      fputs("  * ", out);
      put_escaped(out, site->holders[k].path);
      fputs(": ", out);
      put_escaped(out, summary);
      fputc('\n', out);
    }
  }
  if (!sites && !r->capture.snapshots && r->mode != DIFF_MODE_BASE)
    fprintf(out, "\nHeld by: %s.\n", report_no_snapshot_hint);
}

/* Containers that grew between two heap snapshots, as the text says them. */
static void put_containers(FILE *out, const struct diff_result *r)
{
  for (size_t i = 0; i < r->container_count; i++) {
    const struct diff_container *c = &r->containers[i];
    char growth[160];
    if (!i)
      fprintf(out, "\nGrowing containers (the same object at the heap snapshots of boundaries %" PRIu64
                   " and %" PRIu64 "):\n\n", c->boundaries[0], c->boundaries[1]);
    report_container_growth(c, growth, sizeof growth);
    fprintf(out, "* %s made at ", c->type ? c->type : "object");
    put_escaped(out, c->site ? c->site : "an unknown site");
    fputs(", held by ", out);
    put_escaped(out, c->path);
    fprintf(out, ": %s\n", growth);  /* digits and units: nothing to escape */
  }
}

/* The headline and the table of an inconclusive result. */
static void put_inconclusive(FILE *out, const struct diff_result *r)
{
  char reason[512];
  report_outcome_reason(r, reason, sizeof reason);
  fputs("### ljleak: INCONCLUSIVE\n\n:warning: ", out);
  put_escaped(out, reason);
  fputs(".\n\nWhat to do: ", out);
  fputs(report_outcome_advice(r), out);  /* our own words, with their `code` */
  fputs(".\n", out);
  char evidence[512];
  report_evidence(r, evidence, sizeof evidence);
  if (evidence[0]) {
    fputs("\nEvidence: ", out);
    put_escaped(out, evidence);
    fputs(".\n", out);
  }
  if (r->facts.rose_undecided)
    put_sites(out, r, "undecided sites", pick_undecided);
  put_allowed(out, r);
}

int report_render_markdown(const struct diff_result *r, FILE *out, char *error,
                           size_t error_size)
{
  (void)error;
  (void)error_size;
  if (r->facts.outcome == DIFF_OUTCOME_INCONCLUSIVE) {
    put_inconclusive(out, r);
    return 0;
  }
  const struct diff_tally *tally = &r->facts.tally;
  size_t flagged = tally->flagged, undecided = tally->undecided;

  fputs("### ljleak: ", out);
  if (!flagged)
    fputs(r->mode == DIFF_MODE_BASE ? "no new or worse leak" : "no growing site", out);
  else if (r->mode == DIFF_MODE_BASE)
    fprintf(out, "%zu new or worse leak%s", flagged, flagged == 1 ? "" : "s");
  else
    fprintf(out, "%zu growing site%s", flagged, flagged == 1 ? "" : "s");
  fprintf(out, "\n\n%s %zu sites over %zu boundaries", flagged ? ":x:" : ":white_check_mark:",
          r->site_count, r->capture.boundary_count);
  double span = report_capture_span(&r->capture);
  if (span > 0) {
    char text[32];
    report_format_duration(text, sizeof text, span);
    fprintf(out, " (%s)", text);
  }
  if (r->options.warmup)
    fprintf(out, ", the first %zu warm-up", r->options.warmup);
  if (r->mode == DIFF_MODE_BASE)
    fprintf(out, ", candidate against a base of %zu boundaries", r->base.boundary_count);
  else if (r->mode == DIFF_MODE_RANGE)
    fprintf(out, ", boundary %zu against boundary %zu", r->options.range_to,
            r->options.range_from);
  if (flagged) {
    fputs("; flagged sites grow by ", out);
    report_put_bytes(out, tally->growth_bytes_per_segment, 1);
    fputs(" per boundary in all", out);
  }
  fputs(".\n", out);
  char evidence[512];
  report_evidence(r, evidence, sizeof evidence);
  if (evidence[0]) {
    fputs("\nEvidence: ", out);
    put_escaped(out, evidence);
    fputs(".\n", out);
  }
  if (flagged) {
    put_sites(out, r, "flagged sites", pick_flagged);
    put_site_stacks(out, r);
    put_holders(out, r);
  }
  put_containers(out, r);
  if (undecided) {
    fprintf(out, "\n:warning: %zu %s no verdict yet (undecided, or too few boundaries):\n",
            undecided, undecided == 1 ? "site has" : "sites have");
    put_sites(out, r, "sites without a verdict", pick_no_verdict);
  }
  put_allowed(out, r);
  return 0;
}
