/* merge/merge_html.c: a merge as one self-contained HTML page (fleet.html: top sites first, captures per site, per label) and as JUnit XML. */
#include <inttypes.h>
#include <string.h>
#include <time.h>

#include "merge/merge_internal.h"
#include "report/report.h"

/* Rows of the sites table: at 1,000 captures and thousands of sites the
 * page stays readable; the JSON has them all. */
#define MERGE_HTML_SITES 200

/* A capture's field, "-" when unknown. */
static void put_html(FILE *out, const char *text)
{
  report_put_html(out, text ? text : "-");
}

static void put_bytes_cell(FILE *out, double bytes, int sign, const char *unit)
{
  char text[40];
  report_format_bytes(text, sizeof text, bytes, sign);
  fprintf(out, "<td class=n>%s%s</td>", text, unit);
}

static void put_time(FILE *out, double when)
{
  char text[32];
  if (report_format_time(text, sizeof text, when, "%Y-%m-%d %H:%M:%S") == 0)
    fputs(text, out);
  else
    fputs("-", out);
}

/* A bar of the captures a site grew in, of those that saw it. */
static void put_share(FILE *out, size_t part, size_t whole)
{
  unsigned percent = whole ? (unsigned)(100.0 * (double)part / (double)whole + 0.5) : 0;
  fprintf(out, "<td class=n><span class=bar><span style=\"width:%upx\"></span></span> %zu of %zu</td>",
          percent, part, whole);
}

/* A site's growth by one label, under its name. */
static void put_label_div(FILE *out, size_t k, const char *line)
{
  (void)k;
  fputs("<div class=by>", out);
  put_html(out, line);
  fputs("</div>", out);
}

/* A site's growth by one label, a line of its failure. */
static void put_label_xml(FILE *out, size_t k, const char *line)
{
  (void)k;
  report_put_xml(out, line);
  fputs("\n", out);
}

/* The page's head and style, and the headline. */
static void put_head(FILE *out, const struct merge *merge)
{
  fputs("<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8>\n"
        "<meta name=viewport content=\"width=device-width, initial-scale=1\">\n"
        "<title>ljleak merge</title>\n<style>\n"
        "body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222}\n"
        "table{border-collapse:collapse;margin:.5em 0 1.5em}\n"
        "td,th{padding:.2em .6em;border-bottom:1px solid #ddd;text-align:left;vertical-align:top}\n"
        "th{background:#f4f4f4;position:sticky;top:0}\n"
        ".n{text-align:right;white-space:nowrap;font-variant-numeric:tabular-nums}\n"
        ".site{font-family:monospace;word-break:break-all}\n"
        ".by{color:#555;font-size:90%}\n"
        ".bar{display:inline-block;width:100px;height:.7em;background:#eee;vertical-align:middle}\n"
        ".bar span{display:block;height:100%;background:#c0392b}\n"
        ".flagged{color:#c0392b;font-weight:bold}.inconclusive{color:#b9770e}.pass{color:#1e8449}\n"
        "tr.hot td:first-child,tr.hot .site{color:#c0392b;font-weight:bold}\n"
        "</style></head><body>\n", out);
  fprintf(out, "<h1>ljleak merge: <span class=%s>%zu of %zu %s growing</span> on at least %zu of %zu captures</h1>\n",
          diff_outcome_name(merge->outcome), merge->flagged, merge->site_count, merge_rows_name(merge),
          merge->min_captures, merge->capture_count);
  fprintf(out, "<p>%zu captures (%s results): %zu flagged, %zu inconclusive, %zu pass. ",
          merge->capture_count, diff_mode_name(merge->mode), merge->captures_flagged,
          merge->captures_inconclusive,
          merge->capture_count - merge->captures_flagged - merge->captures_inconclusive);
  if (merge->outcome == DIFF_OUTCOME_INCONCLUSIVE) {
    char why[160];
    fprintf(out, "<span class=inconclusive>Inconclusive: %s.</span> ", merge_inconclusive_why(merge, why, sizeof why));
  }
  fputs("Growth is per boundary, over the captures that saw the site; live bytes at each "
        "capture's last boundary.</p>\n", out);
}

/* The sites, most captures growing first, each with its growth by label. */
static void put_sites(FILE *out, const struct merge *merge)
{
  fputs("<h2>Sites, most captures growing first</h2>\n<table><thead><tr><th>growing in</th>"
        "<th class=n>undecided</th><th class=n>steady</th><th class=n>median/boundary</th>"
        "<th class=n>largest/boundary</th><th class=n>median/second</th><th class=n>live sum</th>"
        "<th class=n>live max</th><th>site</th></tr></thead><tbody>\n", out);
  size_t listed = 0;
  for (; listed < merge->site_count && listed < MERGE_HTML_SITES; listed++) {
    const struct merge_site *s = &merge->sites[listed];
    if (!s->growing && !s->undecided)
      break;
    fprintf(out, "<tr%s>", s->growing >= merge->min_captures ? " class=hot" : "");
    put_share(out, s->growing, s->seen);
    fprintf(out, "<td class=n>%zu</td><td class=n>%zu</td>", s->undecided, s->steady);
    put_bytes_cell(out, s->growth_median, 1, "");
    put_bytes_cell(out, s->growth_max, 1, "");
    if (s->per_second_count)
      put_bytes_cell(out, s->growth_per_second_median, 1, "/s");
    else
      fputs("<td class=n>-</td>", out);
    put_bytes_cell(out, (double)s->live_sum, 0, "");
    put_bytes_cell(out, (double)s->live_max, 0, "");
    fputs("<td><span class=site>", out);
    put_html(out, s->name);
    fputs("</span>", out);
    merge_site_labels_each(merge, s, out, put_label_div);
    fputs("</td></tr>\n", out);
  }
  fputs("</tbody></table>\n", out);
  if (listed < merge->site_count)
    fprintf(out, "<p>%zu more sites, %s (every site is in the JSON).</p>\n",
            merge->site_count - listed,
            merge->sites[listed].growing || merge->sites[listed].undecided
                ? "growing or undecided"
                : "steady in every capture that saw them");
}

/* The labels: for each, its captures and how many of them flagged a site. */
static void put_labels(FILE *out, const struct merge *merge)
{
  if (!merge->group_count)
    return;
  fputs("<h2>Labels</h2>\n<table><thead><tr><th>label</th><th class=n>captures</th>"
        "<th class=n>flagged captures</th></tr></thead><tbody>\n", out);
  for (size_t g = 0; g < merge->group_count; g++) {
    size_t flagged = 0;
    for (size_t i = 0; i < merge->capture_count; i++) {
      const char *value = diff_capture_label(&merge->captures[i].info, merge->groups[g].key);
      flagged += value && !strcmp(value, merge->groups[g].value) &&
                 merge->captures[i].outcome == DIFF_OUTCOME_FLAGGED;
    }
    fputs("<tr><td class=site>", out);
    put_html(out, merge->groups[g].key);
    fputs("=", out);
    put_html(out, merge->groups[g].value);
    fprintf(out, "</td><td class=n>%zu</td>", merge->groups[g].captures);
    put_share(out, flagged, merge->groups[g].captures);
    fputs("</tr>\n", out);
  }
  fputs("</tbody></table>\n", out);
}

/* Every capture merged: its outcome, process, labels and result file. */
static void put_captures(FILE *out, const struct merge *merge)
{
  fprintf(out, "<details%s><summary><h2 style=\"display:inline\">Captures (%zu)</h2></summary>\n"
               "<table><thead><tr><th>outcome</th><th class=n>flagged sites</th><th>host</th>"
               "<th class=n>pid</th><th>started (UTC)</th><th>ended</th><th>labels</th>"
               "<th>program</th><th>LuaJIT</th><th>result</th></tr></thead><tbody>\n",
          merge->capture_count <= 50 ? " open" : "", merge->capture_count);
  for (size_t i = 0; i < merge->capture_count; i++) {
    const struct merge_capture *c = &merge->captures[i];
    fprintf(out, "<tr><td class=%s>%s</td><td class=n>%zu</td><td>", diff_outcome_name(c->outcome),
            diff_outcome_name(c->outcome), c->flagged);
    put_html(out, c->info.host);
    fprintf(out, "</td><td class=n>%ld</td><td>", c->info.pid);
    put_time(out, c->info.start_time);
    fputs("</td><td>", out);
    put_time(out, c->end_time);
    fputs("</td><td class=site>", out);
    for (size_t l = 0; l < c->info.label_count; l++) {
      fputs(l ? "<br>" : "", out);
      put_html(out, c->info.labels[l].key);
      fputs("=", out);
      put_html(out, c->info.labels[l].value);
    }
    fputs("</td><td class=site>", out);
    put_html(out, c->info.exe);
    fputs("<div class=by>", out);
    put_html(out, c->info.command);
    fputs("</div></td><td>", out);
    put_html(out, c->info.luajit_version);
    fputs("</td><td class=site>", out);
    put_html(out, c->source);
    if (c->info.truncated)
      fputs("<div class=by>cut: read up to its last complete event</div>", out);
    fputs("</td></tr>\n", out);
  }
  fputs("</tbody></table></details>\n</body></html>\n", out);
}

int merge_render_html(const struct merge *merge, FILE *out)
{
  put_head(out, merge);
  put_sites(out, merge);
  put_labels(out, merge);
  put_captures(out, merge);
  return ferror(out) ? -1 : 0;
}

/* JUnit: a flagged site is a failure; one undecided for the merge (merge_site_undecided: what
 * makes it inconclusive, exit 5) an error of type undecided, as ljleak diff has it. */
int merge_render_junit(const struct merge *merge, FILE *out)
{
  size_t errors = 0;
  for (size_t i = 0; i < merge->site_count; i++)
    errors += (size_t)merge_site_undecided(merge, &merge->sites[i]);
  /* Inconclusive with no site in error (a capture of too few boundaries, say): one more test
   * case, in error, says so; the suite is not green while the merge exits 5. */
  int verdict = merge->outcome == DIFF_OUTCOME_INCONCLUSIVE && !merge->flagged && !errors;
  size_t tests = merge->site_count + (size_t)verdict;
  errors += (size_t)verdict;
  fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
               "<testsuites name=\"ljleak merge\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\">\n"
               "  <testsuite name=\"ljleak merge of %zu captures\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\">\n",
          tests, merge->flagged, errors, merge->capture_count, tests, merge->flagged, errors);
  if (verdict)
    fprintf(out, "    <testcase classname=\"ljleak.merge\" name=\"ljleak merge verdict\">\n"
                 "      <error type=\"inconclusive\" message=\"%zu of %zu captures cannot tell (inconclusive), "
                 "and no site is undecided for the merge\"/>\n    </testcase>\n",
            merge->captures_inconclusive, merge->capture_count);
  for (size_t i = 0; i < merge->site_count; i++) {
    const struct merge_site *s = &merge->sites[i];
    fputs("    <testcase classname=\"ljleak.merge\" name=\"", out);
    report_put_xml(out, s->name);
    if (merge_site_undecided(merge, s)) {
      fprintf(out, "\">\n      <error type=\"undecided\" message=\"undecided in %zu of %zu captures\"/>\n"
                   "    </testcase>\n", s->undecided, s->seen);
      continue;
    }
    if (s->growing < merge->min_captures) {
      fputs("\"/>\n", out);
      continue;
    }
    char median[32];
    report_format_bytes(median, sizeof median, s->growth_median, 1);
    fprintf(out, "\">\n      <failure message=\"growing in %zu of %zu captures, median %s per boundary\">",
            s->growing, s->seen, median);
    merge_site_labels_each(merge, s, out, put_label_xml);
    fputs("</failure>\n    </testcase>\n", out);
  }
  fputs("  </testsuite>\n</testsuites>\n", out);
  return ferror(out) ? -1 : 0;
}
