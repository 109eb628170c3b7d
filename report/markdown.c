/* report/markdown.c: a short summary for a pull-request comment: a verdict line, the flagged or undecided sites, the allowed ones. */
#include <inttypes.h>
#include <string.h>

#include "report/common.h"

#define MARKDOWN_MAX_ROWS 20

/* A site's name, and a C function's library after it: `cjson.decode` (`cjson.so`). */
static void put_site_name(FILE *out, const struct diff_site *site, enum report_markdown where)
{
  report_put_markdown(out, site->name, where);
  if (site->library) {
    fputs(" (", out);
    report_put_markdown(out, site->library, where);
    fputc(')', out);
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
    put_site_name(out, site, REPORT_MARKDOWN_CODE_CELL);
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
    const struct diff_allowance *a = site->allowance;
    char growth[160];
    report_allowance_growth(site, growth, sizeof growth);
    fputs("* ", out);
    put_site_name(out, site, REPORT_MARKDOWN_CODE);
    fputs(": ", out);
    report_put_markdown(out, growth, REPORT_MARKDOWN_TEXT);
    fputs(" (", out);
    if (a) {  /* report_allowance_rule's words, with the pattern a name */
      char line[32];
      snprintf(line, sizeof line, " line %zu: ", a->line);
      report_put_markdown(out, a->file ? a->file : "allow file", REPORT_MARKDOWN_TEXT);
      fputs(line, out);
      report_put_markdown(out, a->pattern ? a->pattern : "?", REPORT_MARKDOWN_CODE);
    } else {
      fputs("an allow-list rule", out);
    }
    fputs(")", out);
    if (a) {
      fputs(": ", out);
      report_put_markdown(out, a->comment, REPORT_MARKDOWN_TEXT);
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
    put_site_name(out, site, REPORT_MARKDOWN_CODE);
    fputc('\n', out);
    for (size_t k = 0; k < total && k < MARKDOWN_SITE_STACKS; k++) {
      fprintf(out, "  * %s, ", diff_verdict_name(stacks[k]->verdict));
      report_put_bytes(out, stacks[k]->growth_bytes_per_segment, 1);
      fputs("/boundary: ", out);
      if (stacks[k]->frame_count)
        report_put_markdown(out, stacks[k]->name, REPORT_MARKDOWN_CODE);
      else
        report_put_markdown(out, report_stack_name(stacks[k]),  /* our words: no stack recorded */
                            REPORT_MARKDOWN_TEXT);
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
    put_site_name(out, site, REPORT_MARKDOWN_CODE);
    fputc('\n', out);
    for (size_t k = 0; k < site->holder_count && k < MARKDOWN_SITE_STACKS; k++) {
      char summary[200];
      report_holder_summary(&site->holders[k], summary, sizeof summary);
      fputs("  * ", out);
      report_put_markdown(out, site->holders[k].path, REPORT_MARKDOWN_CODE);
      fputs(": ", out);
      report_put_markdown(out, summary, REPORT_MARKDOWN_TEXT);
      fputc('\n', out);
    }
  }
  if (!sites && !r->capture.snapshots && r->mode != DIFF_MODE_BASE)
    fprintf(out, "\nHeld by: %s.\n", report_no_snapshot_hint);
}

/* Containers that grew between two heap snapshots, as the text says them. */
static void put_code(FILE *out, const char *text)
{
  report_put_markdown(out, text, REPORT_MARKDOWN_CODE);
}

static void put_text(FILE *out, const char *text)
{
  report_put_markdown(out, text, REPORT_MARKDOWN_TEXT);
}

static void put_containers(FILE *out, const struct diff_result *r)
{
  for (size_t i = 0; i < r->container_count; i++) {
    const struct diff_container *c = &r->containers[i];
    char growth[160];
    if (!i)
      fprintf(out, "\nGrowing containers (the same object at the heap snapshots of boundaries %" PRIu64
                   " and %" PRIu64 "):\n\n", c->boundaries[0], c->boundaries[1]);
    report_container_growth(c, growth, sizeof growth);
    fputs("* ", out);
    report_put_markdown(out, c->type ? c->type : "object", REPORT_MARKDOWN_TEXT);
    fputs(" made at ", out);
    if (c->site)
      report_put_markdown(out, c->site, REPORT_MARKDOWN_CODE);
    else
      fputs("an unknown site", out);
    fputs(", held by ", out);
    report_put_markdown(out, c->path, REPORT_MARKDOWN_CODE);
    fprintf(out, ": %s\n", growth);  /* digits and units: nothing to escape */
  }
}

/* --values: one value of a suspect's (report_suspect_values_each), a code span, marked as values. */
static void put_suspect_value(FILE *out, const char *title, size_t k, const char *words)
{
  if (!words) {
    fputc('\n', out);
    return;
  }
  fputs(k ? ", " : "   * ", out);
  if (!k)
    report_put_markdown(out, title, REPORT_MARKDOWN_TEXT);
  report_put_markdown(out, words, REPORT_MARKDOWN_CODE);
}

/* A site under a suspect (report_suspect_sites_each): what it holds and its stack, or whose VM
 * work it is. */
static void put_suspect_site(FILE *out, const void *context, const struct report_suspect_site *line)
{
  (void)context;
  fputs("   * ", out);
  report_put_bytes(out, line->site->growth_bytes_per_segment, 1);
  fputs("/boundary ", out);
  put_site_name(out, line->site, REPORT_MARKDOWN_CODE);
  if (line->vm_work_for) {
    fputs(": the VM's work for ", out);
    report_put_markdown(out, line->vm_work_for, REPORT_MARKDOWN_CODE);
  } else {
    fputs(": ", out);
    report_put_markdown(out, line->words, REPORT_MARKDOWN_TEXT);
    if (line->stack && line->stack->frame_count) {
      fputs("; stack ", out);
      report_put_markdown(out, line->stack->name, REPORT_MARKDOWN_CODE);
    }
  }
  fputc('\n', out);
}

/* A flagged site no container explains (report_alone_each), after the suspects. */
static void put_alone(FILE *out, const void *context, size_t k, const struct diff_site *site,
                      const char *kinds)
{
  (void)context;
  if (!k)
    fputs("\n#### On their own\n\nFlagged sites no container holds (a C library's memory, the VM's "
          "work, a site without holders):\n\n", out);
  fputs("* ", out);
  report_put_bytes(out, site->growth_bytes_per_segment, 1);
  fputs("/boundary ", out);
  put_site_name(out, site, REPORT_MARKDOWN_CODE);
  if (kinds[0]) {
    fputs(": holds ", out);
    report_put_markdown(out, kinds, REPORT_MARKDOWN_TEXT);
  }
  fputc('\n', out);
}

/* The leak suspects first: each container, its growth and what it retains, and the sites
 * under it with what each holds; then the flagged sites no container explains. */
static void put_suspects(FILE *out, const struct diff_result *r)
{
  if (!r->suspects_grouped) {
    const char *why = report_not_grouped(r);
    fprintf(out, "\n%c%s.\n", why[0] == 'n' ? 'N' : 'S', why + 1);
    return;
  }
  for (size_t k = 0; k < r->suspect_count; k++) {
    const struct diff_suspect *suspect = &r->suspects[k];
    const struct diff_site_container *c = r->sites[suspect->named_site].container;
    if (!k) {
      fputs("\n#### Leak suspects\n\nGrowing sites one container holds, most growth first; ", out);
      report_put_markdown(out, report_retained_meaning, REPORT_MARKDOWN_TEXT);
      fputs(".\n", out);
    }
    char summary[800];
    report_suspect_summary(r, suspect, summary, sizeof summary);
    fprintf(out, "\n%zu. ", k + 1);
    report_put_markdown(out, c->type, REPORT_MARKDOWN_TEXT);
    fputc(' ', out);
    report_put_markdown(out, c->path, REPORT_MARKDOWN_CODE);
    if (c->site) {
      fputs(", made at ", out);
      report_put_markdown(out, c->site, REPORT_MARKDOWN_CODE);
    }
    fputs(": ", out);
    report_put_markdown(out, summary, REPORT_MARKDOWN_TEXT);
    fputc('\n', out);
    report_suspect_sites_each(r, suspect, out, NULL, put_suspect_site);
    report_suspect_values_each(r, suspect, out, put_suspect_value);
  }
  if (r->values == DIFF_VALUES_NOT_CAPTURED) {  /* asked for: saying nothing would read as "none" */
    fputc('\n', out);
    report_put_markdown(out, report_values_not_captured, REPORT_MARKDOWN_TEXT);
    fputs(".\n", out);
  }
  report_alone_each(r, out, NULL, put_alone);
}

/* What the evidence covers (report_evidence), when the capture says. */
static void put_evidence(FILE *out, const struct diff_result *r)
{
  char evidence[512];
  report_evidence(r, evidence, sizeof evidence);
  if (evidence[0]) {
    fputs("\nEvidence: ", out);
    report_put_markdown(out, evidence, REPORT_MARKDOWN_TEXT);
    fputs(".\n", out);
  }
}

/* The headline and the table of an inconclusive result. */
static void put_inconclusive(FILE *out, const struct diff_result *r)
{
  char reason[512];
  report_outcome_reason(r, reason, sizeof reason);
  fputs("### ljleak: INCONCLUSIVE\n\n:warning: ", out);
  report_put_markdown(out, reason, REPORT_MARKDOWN_TEXT);
  fputs(".\n\nWhat to do: ", out);
  fputs(report_outcome_advice(r), out);  /* our own words, with their `code` */
  fputs(".\n", out);
  put_evidence(out, r);
  if (r->facts.rose_undecided)
    put_sites(out, r, "undecided sites", pick_undecided);
  put_allowed(out, r);
}

int report_render_markdown(const struct diff_result *r, FILE *out, struct format_error *error)
{
  (void)error;
  if (r->facts.outcome == DIFF_OUTCOME_INCONCLUSIVE) {
    put_inconclusive(out, r);
    return 0;
  }
  const struct diff_tally *tally = &r->facts.tally;
  size_t flagged = tally->flagged, undecided = tally->undecided;

  fputs("### ljleak: ", out);
  if (flagged && r->suspects_grouped) {
    char findings[128];
    report_findings_words(r, findings, sizeof findings);
    fprintf(out, "%s, ", findings);
  }
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
  put_evidence(out, r);
  if (flagged) {
    put_suspects(out, r);
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
  static const struct report_fixed_marks fixed = {
    .put = put_code, .words = put_text, .heading_open = "\n:tada: ", .heading_close = "\n\n", .open = "* ",
    .name_close = ": ", .close = "\n"};
  report_put_fixed(out, r, &fixed);
  put_allowed(out, r);
  return 0;
}
