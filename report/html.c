/* report/html.c: one self-contained HTML page: metadata, memory chart, sortable site table, sources. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "report/common.h"
#include "report/html_chart.h"
#include "report/html_page.h"
#include "report/html_suspects.h"

#define SOURCE_CONTEXT 3        /* lines shown before and after a site's line */
#define SOURCE_MAX_SITES 200    /* sites that get a source excerpt or note (flagged come first) */
#define SOURCE_MAX_LINE 240     /* bytes of a source line shown */

/* ---- Header --------------------------------------------------------------- */

/* Our own words, with `code` spans as <code>. */
static void html_put_words(FILE *out, const char *text)
{
  int code = 0;
  char piece[512];
  while (*text) {
    size_t length = strcspn(text, "`");
    if (length >= sizeof piece)
      length = sizeof piece - 1;  /* a longer piece goes out in parts */
    memcpy(piece, text, length);
    piece[length] = '\0';
    report_put_html(out, piece);
    text += length;
    if (*text == '`') {
      fputs(code ? "</code>" : "<code>", out);
      code = !code;
      text++;
    }
  }
  if (code)
    fputs("</code>", out);
}

/* How much of the run the boundaries cover, and a sampled capture's floor. */
static void put_evidence(FILE *out, const struct diff_result *r)
{
  char evidence[512];
  report_evidence(r, evidence, sizeof evidence);
  if (!evidence[0])
    return;
  fputs("<p class=\"evidence\">Evidence: ", out);
  report_put_html(out, evidence);
  fputs(".</p>\n", out);
}

static void put_inconclusive(FILE *out, const struct diff_result *r)
{
  char reason[512];
  report_outcome_reason(r, reason, sizeof reason);
  fputs("<header class=\"verdict unsure\">\n<h1>INCONCLUSIVE</h1>\n<p>", out);
  report_put_html(out, reason);
  fputs(".</p>\n<p>What to do: ", out);
  html_put_words(out, report_outcome_advice(r));
  fputs(".</p>\n", out);
  put_evidence(out, r);
  fputs("</header>\n", out);
}

static void put_verdict(FILE *out, const struct diff_result *r, size_t flagged)
{
  if (!flagged && r->facts.outcome == DIFF_OUTCOME_INCONCLUSIVE) {
    put_inconclusive(out, r);
    return;
  }
  const struct diff_tally *tally = &r->facts.tally;
  double per_second = tally->growth_bytes_per_second;
  fprintf(out, "<header class=\"verdict %s\">\n<h1>", flagged ? "bad" : "good");
  if (flagged && r->suspects_grouped) {
    char findings[128];
    report_findings_words(r, findings, sizeof findings);
    report_put_html(out, findings);
    fputs(r->mode == DIFF_MODE_TREND ? ", " : "; ", out);
  }
  if (flagged && r->suspects_grouped && r->mode == DIFF_MODE_TREND) {
    fprintf(out, "%zu growing site%s (of %zu)", flagged, flagged == 1 ? "" : "s", r->site_count);
  } else if (r->mode == DIFF_MODE_BASE) {
    if (flagged)
      fprintf(out, "%zu new and %zu worse in the candidate", tally->new_count,
              tally->worse_count);
    else
      fputs("Nothing new or worse in the candidate", out);
  } else if (r->mode == DIFF_MODE_RANGE) {
    if (flagged)
      fprintf(out, "%zu of %zu sites grew from boundary %zu to %zu", flagged, r->site_count,
              r->options.range_from, r->options.range_to);
    else
      fprintf(out, "No site grew from boundary %zu to %zu", r->options.range_from,
              r->options.range_to);
  } else {
    if (flagged)
      fprintf(out, "%zu of %zu sites growing", flagged, r->site_count);
    else
      fprintf(out, "No growing site among %zu", r->site_count);
  }
  fputs("</h1>\n<p>", out);
  if (!flagged) {
    fprintf(out, "%zu sites examined over %zu boundaries.", r->site_count,
            r->capture.boundary_count);
  } else if (r->mode == DIFF_MODE_RANGE) {
    report_put_bytes(out, (double)tally->range_delta_bytes, 1);
    fputs(" held by the flagged sites between the two boundaries.", out);
  } else {
    fputs("Together the flagged sites grow by <strong>", out);
    report_put_bytes(out, tally->growth_bytes_per_segment, 1);
    fputs(" per boundary</strong>", out);
    if (per_second != 0) {
      fputs(" (", out);
      report_put_bytes(out, per_second, 1);
      fputs("/s)", out);
    }
    fputs(".", out);
  }
  if (flagged && !r->suspects_grouped) {
    const char *why = report_not_grouped(r);
    fprintf(out, " %c", why[0] == 'n' ? 'N' : 'S');
    report_put_html(out, why + 1);
    fputs(".", out);
  }
  fputs("</p>\n", out);
  put_evidence(out, r);
  fputs("</header>\n", out);
}

static void put_capture(FILE *out, const char *title, const struct diff_capture *c,
                        size_t warmup)
{
  char text[64];
  fprintf(out, "<section>\n<h3>%s</h3>\n<dl>\n", title);
  if (c->command) {
    fputs("<dt>command</dt><dd><code>", out);
    report_put_html(out, c->command);
    fputs("</code></dd>\n", out);
  }
  if (c->path) {
    fputs("<dt>capture</dt><dd>", out);
    report_put_html(out, c->path);
    fputs("</dd>\n", out);
  }
  if (c->host) {
    fputs("<dt>host</dt><dd>", out);
    report_put_html(out, c->host);
    fputs("</dd>\n", out);
  }
  if (c->pid)
    fprintf(out, "<dt>pid</dt><dd>%ld</dd>\n", c->pid);
  if (c->luajit_version) {
    fputs("<dt>LuaJIT</dt><dd>", out);
    report_put_html(out, c->luajit_version);
    fputs("</dd>\n", out);
  }
  double span = report_capture_span(c);
  if (span > 0) {
    report_format_duration(text, sizeof text, span);
    fprintf(out, "<dt>time span</dt><dd>%s", text);
    double start = c->start_time > 0 ? c->start_time : c->boundary_times[0];
    if (report_format_time(text, sizeof text, start, "%Y-%m-%d %H:%M:%S UTC") == 0)
      fprintf(out, " from %s", text);
    fputs("</dd>\n", out);
  }
  fprintf(out, "<dt>boundaries</dt><dd>%zu</dd>\n", c->boundary_count);
  if (warmup)
    fprintf(out, "<dt>warm-up</dt><dd>the first %zu boundaries, left out of the verdicts</dd>\n",
            warmup);
  if (c->gc_cycles && c->boundary_count) {
    report_format_count(text, sizeof text, c->gc_cycles[c->boundary_count - 1]);
    fprintf(out, "<dt>GC cycles</dt><dd>%s</dd>\n", text);
  }
  if (c->events) {
    report_format_count(text, sizeof text, c->events);
    fprintf(out, "<dt>events</dt><dd>%s</dd>\n", text);
  }
  fputs("<dt>sampling</dt><dd>", out);
  if (c->sample_bytes) {
    fputs("every ", out);
    report_put_bytes(out, (double)c->sample_bytes, 0);
    fputs(" on average, scaled back", out);
  } else {
    fputs("every event recorded", out);
  }
  fputs("</dd>\n", out);
  if (c->truncated)
    fputs("<dt>warning</dt><dd class=\"warn\">a segment was cut; it was read up to its last "
          "complete event</dd>\n",
          out);
  const char *stopped = report_stop_warning(c);
  if (stopped)  /* a constant sentence: nothing to escape */
    fprintf(out, "<dt>warning</dt><dd class=\"warn\">%s</dd>\n", stopped);
  fputs("</dl>\n</section>\n", out);
}

/* ---- Sources -------------------------------------------------------------- */

/* Where excerpts come from: the operator's --source-root, opened once. */
struct html_sources {
  const char *root;   /* NULL: no source file is opened */
  int fd;             /* root, or -1 */
  int error;          /* errno of opening root */
};

/* Without --source-root, where the excerpts would be (our words; no `code`
 * spans inside the table: a row's <code> is its name). */
static const char source_hint_row[] =
    "source excerpt: give --source-root DIR (the directory the chunk names are relative to)";
static const char source_hint[] =
    "give `--source-root DIR`, the directory the chunk names are relative to "
    "(`ljleak report --format html --source-root DIR RESULT.json`); without it no source "
    "file is read";

/* A Lua or trace site with a file and a line: one that could have an excerpt. */
static int source_site(const struct diff_site *s)
{
  return (s->kind == DIFF_SITE_LUA || s->kind == DIFF_SITE_TRACE) && s->source_file &&
         s->source_line;
}

/* Writes the lines of text around line as <pre>; returns 1 if any was there. */
static int put_lines(FILE *out, const char *text, size_t length, uint64_t line)
{
  uint64_t first = line > SOURCE_CONTEXT ? line - SOURCE_CONTEXT : 1;
  uint64_t last = line + SOURCE_CONTEXT, number = 0;
  const char *p = text, *end = text + length;
  char shown[SOURCE_MAX_LINE + 1];
  int found = 0;
  while (p < end && number < last) {
    const char *newline = memchr(p, '\n', (size_t)(end - p));
    const char *stop = newline ? newline : end;
    number++;
    if (number >= first) {
      size_t n = (size_t)(stop - p);
      while (n > 0 && p[n - 1] == '\r')
        n--;
      if (n > SOURCE_MAX_LINE)
        n = SOURCE_MAX_LINE;  /* may cut a UTF-8 sequence: it shows as U+FFFD */
      memcpy(shown, p, n);
      shown[n] = '\0';
      if (!found)
        fputs("<pre class=\"src\">", out);
      found = 1;
      fprintf(out, "<span%s><b>%" PRIu64 "</b>", number == line ? " class=\"hit\"" : "", number);
      report_put_html(out, shown);
      fputs("</span>", out);
    }
    p = newline ? newline + 1 : end;
  }
  if (found)
    fputs("</pre>", out);
  return found;
}

/* A site's source excerpt as HTML in *excerpt (free()), or NULL with why
 * (empty when there is nothing to say). Returns -1 when out of memory. */
static int source_excerpt(const struct html_sources *sources, const struct diff_site *s,
                          char **excerpt, char *why, size_t why_size)
{
  *excerpt = NULL;
  why[0] = '\0';
  if (!source_site(s))
    return 0;
  if (!sources->root) {
    snprintf(why, why_size, "%s", source_hint_row);
    return 0;
  }
  if (sources->fd < 0) {
    snprintf(why, why_size, "source not shown: the source root cannot be opened");
    return 0;
  }
  /* Only Lua sources: a name under the root that is not Lua (a key, a
   * config file) stays out of a page that will be shared. */
  size_t length = strlen(s->source_file);
  if (length < 5 || strcmp(s->source_file + length - 4, ".lua") != 0) {
    snprintf(why, why_size, "source not shown: not a .lua file");
    return 0;
  }
  struct report_source source;
  enum report_source_status status =
      report_source_read(sources->fd, s->source_file, REPORT_SOURCE_OPENAT2, &source);
  if (status == REPORT_SOURCE_MEMORY)
    return -1;
  if (status != REPORT_SOURCE_OK) {
    char reason[128];
    report_source_why(status, &source, reason, sizeof reason);
    snprintf(why, why_size, "source not shown: %s", reason);
    return 0;
  }
  size_t size = 0;
  FILE *out = open_memstream(excerpt, &size);
  if (!out) {
    free(source.text);
    return -1;
  }
  int found = put_lines(out, source.text, source.length, s->source_line);
  free(source.text);
  if (fclose(out) != 0) {
    free(*excerpt);
    *excerpt = NULL;
    return -1;
  }
  if (!found) {
    free(*excerpt);
    *excerpt = NULL;
    snprintf(why, why_size, "source not shown: line %" PRIu64 " is past the end of the file",
             s->source_line);
  }
  return 0;
}

/* ---- The site table ------------------------------------------------------- */

static int verdict_rank(enum diff_verdict v)
{
  switch (v) {
  case DIFF_VERDICT_WORSE: return 6;
  case DIFF_VERDICT_NEW: return 5;
  case DIFF_VERDICT_GROWING: return 4;
  case DIFF_VERDICT_UNDECIDED: return 3;
  case DIFF_VERDICT_STEADY: return 2;
  case DIFF_VERDICT_SHRINKING: return 1;
  default: return 0;
  }
}

static double finite_or_zero(double v)
{
  return isfinite(v) ? v : 0;
}

static void cell_bytes(FILE *out, double bytes, int sign, const char *suffix, int bad)
{
  fprintf(out, "<td data-v=\"%.17g\"%s>", finite_or_zero(bytes), bad ? " class=\"bad\"" : "");
  report_put_bytes(out, bytes, sign);
  fprintf(out, "%s</td>", suffix);
}

static void cell_count(FILE *out, uint64_t count)
{
  char text[32];
  report_format_count(text, sizeof text, count);
  fprintf(out, "<td data-v=\"%" PRIu64 "\">%s</td>", count, text);
}

static void cell_verdict(FILE *out, enum diff_verdict v, int allowed)
{
  fprintf(out, "<td class=\"vd\" data-v=\"%d\"><span class=\"badge %s\">%s</span>%s</td>",
          verdict_rank(v), diff_verdict_name(v), diff_verdict_name(v),
          allowed ? "<span class=\"badge allowed\">allowed</span>" : "");
}

/* Under a site's name: the allow-list rule it matched, and why. */
static void put_allowance(FILE *out, const struct diff_site *s)
{
  if (!s->allowance || (!s->allowed && !s->facts.flagged && !s->facts.undecided))
    return;  /* no rule, or a rule for a site that did not grow */
  char growth[160], rule[300];
  report_allowance_growth(s, growth, sizeof growth);
  report_allowance_rule(s->allowance, rule, sizeof rule);
  fprintf(out, "<p class=\"allow%s\">%s: ", s->allowed ? "" : " past",
          s->allowed ? "allowed" : "past its allowance");
  report_put_html(out, growth);
  fputs(" (", out);
  report_put_html(out, rule);
  fputs("): ", out);
  report_put_html(out, s->allowance->comment);
  fputs("</p>", out);
}

/* Under a growing site's name: the paths that hold its blocks at the heap
 * snapshot, the top one shown and the rest folded under it. */
static void put_holders(FILE *out, const struct diff_site *s)
{
  if (!s->holder_count)
    return;
  fputs("<details class=\"held\"><summary>held by <code>", out);
  report_put_html(out, s->holders[0].path);
  fputs("</code></summary><ul>", out);
  for (size_t k = 0; k < s->holder_count; k++) {
    char summary[200];
    report_holder_summary(&s->holders[k], summary, sizeof summary);
    fputs("<li><code>", out);
    report_put_html(out, s->holders[k].path);
    fputs("</code>: ", out);
    report_put_html(out, summary);
    fputs("</li>", out);
  }
  fputs("</ul></details>", out);
}

/* A site's name; with folded_source, its source excerpt folded under it. */
static void put_site_cell(FILE *out, const struct diff_site *s, const char *folded_source)
{
  fputs("<td class=\"site\">", out);
  if (folded_source) {
    fputs("<details><summary><code>", out);
    report_put_html(out, s->name);
    fprintf(out, "</code><span class=\"kind\">%s</span></summary>", diff_site_kind_name(s->kind));
    fputs(folded_source, out);
    fputs("</details>", out);
  } else {
    fputs("<code>", out);
    report_put_html(out, s->name);
    fprintf(out, "</code><span class=\"kind\">%s", diff_site_kind_name(s->kind));
    if (s->library) {
      fputs(" in ", out);
      report_put_html(out, s->library);
    }
    fputs("</span>", out);
  }
  put_allowance(out, s);
  put_holders(out, s);
  fputs("</td>", out);
}

/* Above the table: how to get excerpts, or why there are none. */
static void put_sources_note(FILE *out, const struct diff_result *r,
                             const struct html_sources *sources)
{
  if (sources->root && sources->fd >= 0)
    return;
  size_t i = 0;
  while (i < r->site_count && !source_site(&r->sites[i]))
    i++;
  if (i == r->site_count)
    return;  /* no site a source could be shown for */
  fputs("<p class=\"kind\" id=\"sources\">Source excerpts: ", out);
  if (!sources->root) {
    html_put_words(out, source_hint);
  } else {
    fputs("none, the source root <code>", out);
    report_put_html(out, sources->root);
    fputs("</code> cannot be opened: ", out);
    report_put_html(out, strerror(sources->error));
  }
  fputs(".</p>\n", out);
}

/* Returns 0, or -1 when out of memory. */
/* The table's title, notes and column heads. */
static void put_table_head(FILE *out, const struct diff_result *r, const struct html_sources *sources)
{
  int base = r->mode == DIFF_MODE_BASE, range = r->mode == DIFF_MODE_RANGE;
  fprintf(out, "<h2>Sites <span class=\"kind\">%zu, click a column to sort</span></h2>\n",
          r->site_count);
  if (r->facts.tally.flagged && !r->capture.snapshots && !base) {
    fputs("<p class=\"kind\">Held by: ", out);
    report_put_html(out, report_no_snapshot_hint);
    fputs("</p>\n", out);
  }
  put_sources_note(out, r, sources);
  fputs("<table class=\"sortable\" id=\"sites\">\n<thead><tr><th>#</th>"
        "<th class=\"site\">site</th><th class=\"vd\">verdict</th><th class=\"spark\">series</th>",
        out);
  if (base)
    fputs("<th class=\"spark\">base series</th>", out);
  if (range)
    fputs("<th>delta</th>", out);
  fputs(base ? "<th title=\"growth per boundary\">growth/boundary</th><th class=\"vd\">base</th>"
               "<th title=\"growth per boundary in the base\">base/boundary</th>"
             : "<th title=\"growth per boundary\">growth/boundary</th>",
        out);
  fputs("<th title=\"growth per second\">growth/s</th><th title=\"p-value of an upward trend\">p</th>"
        "<th title=\"live bytes at the first and the last boundary compared\">live</th>",
        out);
  fputs("<th>allocs</th><th>frees</th>", out);
  fputs("</tr></thead>\n", out);
}

/* A site's row after its name: the verdict, the series, the growth, the p-value, live bytes and counts. */
static void put_row_cells(FILE *out, const struct diff_result *r, const struct diff_site *s)
{
  int base = r->mode == DIFF_MODE_BASE, range = r->mode == DIFF_MODE_RANGE, flagged = s->facts.flagged;
  cell_verdict(out, s->verdict, s->allowed);
  fprintf(out, "<td class=\"spark\" data-v=\"%.17g\">", finite_or_zero(s->growth_bytes_per_segment));
  report_html_chart_sparkline(out, s->live_bytes, s->live_bytes ? s->count : 0, flagged,
                              r->options.warmup);
  fputs("</td>", out);
  if (base) {
    fprintf(out, "<td class=\"spark\" data-v=\"%.17g\">",
            finite_or_zero(s->base_growth_bytes_per_segment));
    report_html_chart_sparkline(out, s->base_live_bytes, s->base_live_bytes ? s->base_count : 0, 0,
                                r->options.warmup);
    fputs("</td>", out);
  }
  if (range)
    cell_bytes(out, (double)s->range_delta_bytes, 1, "", flagged);
  cell_bytes(out, s->growth_bytes_per_segment, 1, "", flagged);
  if (base) {
    cell_verdict(out, s->base_count ? s->base_verdict : DIFF_VERDICT_INSUFFICIENT, 0);
    cell_bytes(out, s->base_growth_bytes_per_segment, 1, "", 0);
  }
  if (r->capture.boundary_times)
    cell_bytes(out, s->growth_bytes_per_second, 1, "/s", 0);
  else
    fputs("<td data-v=\"0\">-</td>", out);  /* the index gave no times */
  char p[32];
  report_format_p_value(p, sizeof p, s->trend_p_value);
  fprintf(out, "<td data-v=\"%.17g\">%s</td>", isfinite(s->trend_p_value) ? s->trend_p_value : 1,
          p);
  /* Sorted by the last boundary's live bytes. */
  size_t from, to;
  report_row_boundaries(r, s, &from, &to);
  fprintf(out, "<td data-v=\"%" PRIu64 "\">", report_live_at(s, to));
  report_put_bytes(out, (double)report_live_at(s, from), 0);
  fputs(" \u2192 ", out);
  report_put_bytes(out, (double)report_live_at(s, to), 0);
  fputs("</td>", out);
  cell_count(out, s->allocs);
  cell_count(out, s->frees);
}

static int put_table(FILE *out, const struct diff_result *r, const struct html_sources *sources)
{
  int base = r->mode == DIFF_MODE_BASE, range = r->mode == DIFF_MODE_RANGE;
  put_table_head(out, r, sources);
  int columns = 10 + range + 3 * base;
  size_t with_sources = 0;
  for (size_t i = 0; i < r->site_count; i++) {
    const struct diff_site *s = &r->sites[i];
    int flagged = s->facts.flagged;
    char *excerpt = NULL, why[256] = "";
    if (with_sources < SOURCE_MAX_SITES &&
        source_excerpt(sources, s, &excerpt, why, sizeof why) < 0)
      return -1;
    /* A flagged site's note says why it has no excerpt; others just have none. */
    with_sources += excerpt || (flagged && why[0]);
    /* One tbody per site: its row and, for a flagged one, its source below
     * across the table; sorting moves the tbody as a whole. */
    fprintf(out, "<tbody>\n<tr class=\"%s\"><td data-v=\"%zu\">%zu</td>",
            flagged ? "row flagged" : "row", i + 1, i + 1);
    put_site_cell(out, s, flagged ? NULL : excerpt);
    put_row_cells(out, r, s);
    fputs("</tr>\n", out);
    if (flagged && (excerpt || why[0])) {
      fprintf(out, "<tr class=\"source\"><td></td><td colspan=\"%d\">", columns - 1);
      if (excerpt) {
        fputs(excerpt, out);
      } else {
        fputs("<p class=\"kind\">", out);
        report_put_html(out, why);
        fputs("</p>", out);
      }
      fputs("</td></tr>\n", out);
    }
    free(excerpt);
    fputs("</tbody>\n", out);
  }
  fputs("</table>\n", out);
  return 0;
}

int report_render_html(const struct diff_result *r, const struct report_options *options,
                       FILE *out, struct format_error *error)
{
  size_t flagged = r->facts.tally.flagged;
  fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n", out);
  /* Nothing may be fetched: the page is read offline, from a mail attachment. */
  fputs("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
        "style-src 'unsafe-inline'; script-src 'unsafe-inline'\">\n",
        out);
  fputs("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n", out);
  if (!flagged && r->facts.outcome == DIFF_OUTCOME_INCONCLUSIVE)
    fputs("<title>ljleak report: INCONCLUSIVE</title>\n", out);
  else
    fprintf(out, "<title>ljleak report: %zu %s</title>\n", flagged,
            r->mode == DIFF_MODE_BASE ? "new or worse" : "flagged");
  fputs(report_html_style, out);
  fputs("</head>\n<body>\n<main>\n", out);
  put_verdict(out, r, flagged);
  fputs("<div class=\"meta\">\n", out);
  if (r->mode == DIFF_MODE_BASE) {
    put_capture(out, "Base", &r->base, r->options.warmup);
    put_capture(out, "Candidate", &r->capture, r->options.warmup);
  } else {
    put_capture(out, "Capture", &r->capture, r->options.warmup);
  }
  fputs("</div>\n", out);
  report_html_suspects(out, r);
  if (report_html_chart_memory(out, r) < 0) {
    format_error_set(error, FORMAT_NO_MEMORY, "out of memory");
    return -1;
  }
  report_html_flame(out, r);
  /* The root is the operator's choice, followed if a link; the names
   * beneath it are the capture's and are not (report_source_read). */
  struct html_sources sources = {options->source_root, -1, 0};
  if (sources.root && (sources.fd = open(sources.root, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
    sources.error = errno;
  int table = put_table(out, r, &sources);
  if (sources.fd >= 0)
    close(sources.fd);
  if (table < 0) {
    format_error_set(error, FORMAT_NO_MEMORY, "out of memory");
    return -1;
  }
  report_html_containers(out, r);
  fprintf(out, "<footer>ljleak %s report. Growth is the Theil-Sen slope of live bytes over "
               "the boundaries; p is the one-sided Mann-Kendall p-value of an upward "
               "trend.</footer>\n",
          diff_mode_name(r->mode));
  fputs("</main>\n", out);
  fputs(report_html_script, out);
  fputs("</body>\n</html>\n", out);
  return 0;
}
