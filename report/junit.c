/* report/junit.c: JUnit XML for CI systems: one test case per site, a failure for each flagged one, an error for each undecided one. */
#include <inttypes.h>
#include <stdint.h>
#include <string.h>

#include "report/common.h"

/* Why a site failed, in one line: rate, significance and what it holds. */
static void put_reason(FILE *out, const struct diff_result *r, const struct diff_site *site)
{
  char rate[48], rate_s[48], p[32], first[48], last[48];
  report_format_bytes(rate, sizeof rate, site->growth_bytes_per_segment, 1);
  report_format_bytes(rate_s, sizeof rate_s, site->growth_bytes_per_second, 1);
  report_format_p_value(p, sizeof p, site->trend_p_value);
  size_t from = 1, to = site->count;  /* the whole series in range mode, as ever */
  if (r->mode != DIFF_MODE_RANGE)
    report_row_boundaries(r, site, &from, &to);  /* from the warm-up's end */
  report_format_bytes(first, sizeof first, (double)report_live_at(site, from), 0);
  report_format_bytes(last, sizeof last, (double)report_live_at(site, to), 0);
  fprintf(out, "%s: %s per boundary", diff_verdict_name(site->verdict), rate);
  if (site->growth_bytes_per_second != 0)
    fprintf(out, " (%s/s)", rate_s);
  fprintf(out, ", p=%s, live %s -&gt; %s", p, first, last);
  if (r->mode == DIFF_MODE_BASE) {
    char base[48];
    report_format_bytes(base, sizeof base, site->base_growth_bytes_per_segment, 1);
    fprintf(out, "; base %s, %s per boundary", diff_verdict_name(site->base_verdict), base);
  }
  if (r->mode == DIFF_MODE_RANGE) {
    char delta[48];
    report_format_bytes(delta, sizeof delta, (double)site->range_delta_bytes, 1);
    fprintf(out, "; %s from boundary %zu to boundary %zu", delta, r->options.range_from,
            r->options.range_to);
  }
}

/* Why a site has no verdict (its facts' cause), after put_reason: what the
 * boundaries lacked. */
static void put_undecided_reason(FILE *out, const struct diff_result *r,
                                 const struct diff_site *site)
{
  size_t judged = r->facts.judged;
  switch (site->facts.cause) {
  case DIFF_UNDECIDED_UNMEASURED:
    fputs("; too few boundaries to measure a change", out);
    break;
  case DIFF_UNDECIDED_NO_P_VALUE:  /* a saved result without its p-value */
    fprintf(out, "; %zu boundaries cannot show a trend", judged);
    break;
  case DIFF_UNDECIDED_SHORT_CAPTURE:
    fprintf(out, "; %zu boundaries cannot show a trend at p \u2264 %g (%zu are needed)", judged,
            r->options.max_p_value, r->facts.needed);
    break;
  case DIFF_UNDECIDED_SHORT_BASE:
  case DIFF_UNDECIDED_BASE_NO_TREND:
    fputs("; the base cannot show whether it grew there too", out);
    break;
  case DIFF_UNDECIDED_RELEASED:
    fputs("; it rose with a significant trend, then was let go in the last quarter of the run", out);
    break;
  case DIFF_UNDECIDED_FORCED_GROWS:
    fputs("; it grows at the full cycles the collector forced, not at the program's own "
          "(ljleak diff --forced-only judges those alone)", out);
    break;
  case DIFF_UNDECIDED_HELD_BRIEFLY:
    fputs("; it rose with a significant trend, then held its level to the end for fewer "
          "boundaries than it rose for (a cache that filled, or a leak that paused)", out);
    break;
  case DIFF_UNDECIDED_YOUNG_GROWS:
    fputs("; it grows with its young blocks counted, its newest copy young at every boundary "
          "(capture with ljleak run --every BYTES)", out);
    break;
  default:
    fprintf(out, "; ties in its live bytes keep a trend at p \u2264 %g from showing",
            r->options.max_p_value);
  }
}

/* The series, as the body of a failure or an error. */
static void put_series(FILE *out, const struct diff_site *site)
{
  report_put_xml(out, site->name);
  fputs(" holds ", out);
  char last[48];
  report_format_bytes(last, sizeof last, (double)report_last_live(site), 0);
  fprintf(out, "%s at the last boundary; live bytes per boundary:", last);
  for (size_t b = 0; site->live_bytes && b < site->count; b++)
    fprintf(out, " %" PRIu64, site->live_bytes[b]);
}

#define JUNIT_SITE_STACKS 3  /* stacks named in a flagged site's failure */

/* After a flagged site's series: the stacks that hold its growth, flagged
 * first, each with its verdict and growth. */
static void put_stacks(FILE *out, const struct diff_result *r, const struct diff_site *site)
{
  const struct diff_site *stacks[JUNIT_SITE_STACKS];
  size_t total = report_site_stacks(r, site, stacks, JUNIT_SITE_STACKS);
  for (size_t k = 0; k < total && k < JUNIT_SITE_STACKS; k++) {
    char growth[48];
    report_format_bytes(growth, sizeof growth, stacks[k]->growth_bytes_per_segment, 1);
    fprintf(out, "%s%s %s/boundary: ", k ? "; " : "\nstacks (root first): ",
            diff_verdict_name(stacks[k]->verdict), growth);
    report_put_xml(out, report_stack_name(stacks[k]));
  }
  if (total > JUNIT_SITE_STACKS)
    fprintf(out, "; and %zu more", total - JUNIT_SITE_STACKS);
}

/* Whether container c concerns site: the site made it, or it holds the site's objects (the
 * site's top holder path goes through it: "_G.pool.listeners" of "_G.pool.listeners[*]"). */
static int container_of_site(const struct diff_container *c, const struct diff_site *site)
{
  if (c->site && !strcmp(c->site, site->name))
    return 1;
  if (!c->path || !site->holder_count || !site->holders[0].path)
    return 0;
  size_t n = strlen(c->path);
  const char *path = site->holders[0].path;
  return !strncmp(path, c->path, n) && (path[n] == '\0' || path[n] == '[' || path[n] == '.');
}

/* A growing container in a failure's message: "; a growing table held by PATH: GROWTH". */
static void put_container_growth(FILE *out, const struct diff_container *c)
{
  char growth[160];
  report_container_growth(c, growth, sizeof growth);
  fprintf(out, "; a growing %s held by ", c->type ? c->type : "object");
  report_put_xml(out, c->path);
  fputs(": ", out);
  report_put_xml(out, growth);
}

/* The growing containers the site made or that hold its objects, in its failure's message. */
static void put_containers(FILE *out, const struct diff_result *r, const struct diff_site *site)
{
  for (size_t i = 0; i < r->container_count; i++) {
    const struct diff_container *c = &r->containers[i];
    if (!container_of_site(c, site))
      continue;
    put_container_growth(out, c);
  }
}

/* The allow-list rule of a site, in words: its growth, the budget, the reason. */
/* The path that holds most of a site's bytes, in the failure's message. */
static void put_top_holder(FILE *out, const struct diff_site *site)
{
  if (!site->holder_count)
    return;
  char summary[200];
  report_holder_summary(&site->holders[0], summary, sizeof summary);
  fputs("; held by ", out);
  report_put_xml(out, site->holders[0].path);
  fputs(" (", out);
  report_put_xml(out, summary);
  fputs(")", out);
}

static void put_allowance(FILE *out, const struct diff_site *site)
{
  char growth[160], rule[300];
  report_allowance_growth(site, growth, sizeof growth);
  report_allowance_rule(site->allowance, rule, sizeof rule);
  report_put_xml(out, growth);
  fputs(" (", out);
  report_put_xml(out, rule);
  fputs(")", out);
  if (site->allowance) {
    fputs(": ", out);
    report_put_xml(out, site->allowance->comment);
  }
}

/* The site whose test case carries a suspect's failure: its first site that is not the VM's
 * work for another (the sites are in order of the growth they hold), so that the failing test
 * case keeps a site's name from run to run, as CI systems track a test's history by name. */
static size_t suspect_lead(const struct diff_suspect *suspect)
{
  for (size_t j = 0; j < suspect->site_count; j++)
    if (suspect->cause[j] == SIZE_MAX)
      return suspect->sites[j];
  return suspect->sites[0];
}

/* A site under a suspect (report_suspect_sites_each), a line of the failure's text: what it
 * holds, its series and stacks, or whose VM work it is. context: the result. */
static void put_suspect_site(FILE *out, const void *context, const struct report_suspect_site *line)
{
  if (line->k)
    fputs("\n", out);
  report_put_xml(out, line->site->name);
  if (line->vm_work_for) {
    fputs(": the VM's work for ", out);
    report_put_xml(out, line->vm_work_for);
    return;
  }
  fputs(": ", out);
  report_put_xml(out, line->words);
  fputs("; ", out);
  put_series(out, line->site);
  put_stacks(out, context, line->site);
}

/* A leak suspect's one failure, in the test case of its lead site: the lead's verdict as its
 * type (growing; new or worse against a base), the container, growth and what it retains in
 * the message, with its sites; each site's words and series in the body. */
static void put_suspect(FILE *out, const struct diff_result *r, size_t k)
{
  const struct diff_suspect *suspect = &r->suspects[k];
  const struct diff_site_container *c = r->sites[suspect->named_site].container;
  char summary[800];
  report_suspect_summary(r, suspect, summary, sizeof summary);
  fprintf(out, ">\n      <failure type=\"%s\" message=\"leak suspect %zu: ",
          diff_verdict_name(r->sites[suspect_lead(suspect)].verdict), k + 1);
  report_put_xml(out, c->type);
  fputs(" ", out);
  report_put_xml(out, c->path);
  if (c->site) {
    fputs(", made at ", out);
    report_put_xml(out, c->site);
  }
  fputs(": ", out);
  report_put_xml(out, summary);
  /* The growing containers its sites made or that hold them, as a site's failure says them. */
  for (size_t i = 0; i < r->container_count; i++) {
    const struct diff_container *g = &r->containers[i];
    size_t j = 0;
    while (j < suspect->site_count && !container_of_site(g, &r->sites[suspect->sites[j]]))
      j++;
    if (j == suspect->site_count)
      continue;
    put_container_growth(out, g);
  }
  fprintf(out, "; %zu site%s under it:", suspect->site_count, suspect->site_count == 1 ? "" : "s");
  for (size_t j = 0; j < suspect->site_count; j++) {
    const struct diff_site *site = &r->sites[suspect->sites[j]];
    char growth[48];
    report_format_bytes(growth, sizeof growth, site->growth_bytes_per_segment, 1);
    fputs(j ? ", " : " ", out);
    report_put_xml(out, site->name);
    fprintf(out, " (%s/boundary)", growth);
  }
  fputs("\">", out);
  report_suspect_sites_each(r, suspect, out, r, put_suspect_site);
  fputs("</failure>\n    </testcase>\n", out);
}

/* The suite's properties: the mode, the capture's command and host, its boundaries, the
 * warm-up and the evidence. */
static void put_properties(FILE *out, const struct diff_result *r, const char *mode)
{
  fputs("    <properties>\n", out);
  fputs("      <property name=\"mode\" value=\"", out);
  fputs(mode, out);
  fputs("\"/>\n", out);
  if (r->capture.command) {
    fputs("      <property name=\"command\" value=\"", out);
    report_put_xml(out, r->capture.command);
    fputs("\"/>\n", out);
  }
  if (r->capture.host) {
    fputs("      <property name=\"host\" value=\"", out);
    report_put_xml(out, r->capture.host);
    fputs("\"/>\n", out);
  }
  fprintf(out, "      <property name=\"boundaries\" value=\"%zu\"/>\n", r->capture.boundary_count);
  if (r->options.warmup)
    fprintf(out, "      <property name=\"warmup\" value=\"%zu\"/>\n", r->options.warmup);
  char evidence[512];
  report_evidence(r, evidence, sizeof evidence);
  if (evidence[0]) {
    fputs("      <property name=\"evidence\" value=\"", out);
    report_put_xml(out, evidence);
    fputs("\"/>\n", out);
  }
  fputs("    </properties>\n", out);
}

/* Site i's test case after its name: a pass, a failure (its suspect's or its own), an error. */
static void put_testcase_end(FILE *out, const struct diff_result *r, size_t i)
{
  const struct diff_site *site = &r->sites[i];
  const struct diff_suspect *suspect = diff_suspects_of(r, i);
  if (suspect && suspect_lead(suspect) == i) {
    put_suspect(out, r, (size_t)(suspect - r->suspects));
  } else if (suspect && site->facts.flagged) {
    /* Its failure is its suspect's, in the lead site's test case (an undecided site under it
     * stays an error, as the suite's count of errors says). */
    const struct diff_site_container *c = r->sites[suspect->named_site].container;
    fprintf(out, ">\n      <system-out>under leak suspect %zu (its failure is in ",
            (size_t)(suspect - r->suspects) + 1);
    report_put_xml(out, r->sites[suspect_lead(suspect)].name);
    fputs("), ", out);
    report_put_xml(out, c->type);
    fputs(" ", out);
    report_put_xml(out, c->path);
    fputs(": ", out);
    put_reason(out, r, site);
    fputs("</system-out>\n    </testcase>\n", out);
  } else if (site->allowed) {
    /* A pass, with the rule that allowed it and why. */
    fputs(">\n      <system-out>allowed: ", out);
    put_allowance(out, site);
    fputs("</system-out>\n    </testcase>\n", out);
  } else if (site->facts.flagged) {
    fprintf(out, ">\n      <failure type=\"%s\" message=\"", diff_verdict_name(site->verdict));
    put_reason(out, r, site);
    put_top_holder(out, site);
    put_containers(out, r, site);
    if (site->allowance) {
      fputs("; past its allowance: ", out);
      put_allowance(out, site);
    }
    fputs("\">", out);
    put_series(out, site);
    put_stacks(out, r, site);
    fputs("</failure>\n    </testcase>\n", out);
  } else if (site->facts.undecided) {
    /* Neither a pass nor a failure: no verdict could be reached. */
    fprintf(out, ">\n      <error type=\"%s\" message=\"", diff_verdict_name(site->verdict));
    put_reason(out, r, site);
    put_undecided_reason(out, r, site);
    fputs("\">", out);
    put_series(out, site);
    fputs("</error>\n    </testcase>\n", out);
  } else {
    fputs("/>\n", out);
  }
}

int report_render_junit(const struct diff_result *r, FILE *out, struct format_error *error)
{
  (void)error;
  const char *mode = diff_mode_name(r->mode);
  size_t flagged = r->facts.tally.flagged, undecided = r->facts.tally.undecided;
  /* A test case per site; one failure per leak suspect (its lead site's), whose other sites
   * pass and name it, and one per site on its own. */
  size_t tests = r->site_count;
  if (r->suspects_grouped)
    flagged = r->suspect_count + diff_suspects_alone(r);
  /* Inconclusive with no site in error (too few boundaries, a sampling floor above
   * --min-growth): one more test case, in error, says why; the suite is not green while the
   * diff exits 5. */
  int verdict = r->facts.outcome == DIFF_OUTCOME_INCONCLUSIVE && !flagged && !undecided;
  fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", out);
  fprintf(out, "<testsuites name=\"ljleak\" tests=\"%zu\" failures=\"%zu\">\n", tests + verdict,
          flagged);
  fprintf(out,
          "  <testsuite name=\"ljleak.%s\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" "
          "skipped=\"0\">\n",
          mode, tests + verdict, flagged, undecided + verdict);
  put_properties(out, r, mode);
  if (verdict) {
    char reason[1024];
    report_outcome_reason(r, reason, sizeof reason);
    fprintf(out, "    <testcase name=\"ljleak verdict\" classname=\"ljleak.%s\">\n"
                 "      <error type=\"inconclusive\" message=\"", mode);
    report_put_xml(out, reason);
    fputs("\"/>\n    </testcase>\n", out);
  }
  for (size_t i = 0; i < r->site_count; i++) {
    const struct diff_site *site = &r->sites[i];
    fputs("    <testcase name=\"", out);
    report_put_xml(out, site->name);
    fprintf(out, "\" classname=\"ljleak.%s\"", mode);
    put_testcase_end(out, r, i);
  }
  fputs("  </testsuite>\n</testsuites>\n", out);
  return 0;
}
