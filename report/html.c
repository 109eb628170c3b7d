/* report/html.c: one self-contained HTML page: metadata, memory chart, sortable site table, sources. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>

#include "report/common.h"
#include "report/html_chart.h"

#define SOURCE_CONTEXT 3        /* lines shown before and after a site's line */
#define SOURCE_MAX_SITES 200    /* sites that get a source excerpt (flagged come first) */
#define SOURCE_MAX_LINE 240     /* bytes of a source line shown */

/* Text as HTML character data or a quoted attribute value. */
static void html_put(FILE *out, const char *text)
{
  report_put_markup(out, text, REPORT_MARKUP_HTML);
}

static const char page_style[] =
    "<style>\n"
    ":root{--bad:#c62828;--bad-bg:#fdecea;--good:#2e7d32;--good-bg:#e8f5e9;--ink:#1f2328;"
    "--muted:#656d76;--line:#d0d7de;--panel:#f6f8fa;--accent:#0969da}\n"
    "*{box-sizing:border-box}\n"
    "body{margin:0;font:14px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;"
    "color:var(--ink);background:#fff}\n"
    "main{max-width:1600px;margin:0 auto;padding:24px 16px}\n"
    "h1{font-size:26px;margin:0 0 4px}\n"
    "h2{font-size:17px;margin:28px 0 10px}\n"
    ".verdict{border-radius:8px;padding:16px 20px;border-left:6px solid}\n"
    ".verdict.bad{background:var(--bad-bg);border-color:var(--bad);color:#7f1d1d}\n"
    ".verdict.good{background:var(--good-bg);border-color:var(--good);color:#14532d}\n"
    ".verdict.unsure{background:#fff8c5;border-color:#9a6700;color:#633c01}\n"
    ".verdict p+p{margin-top:6px}\n"
    ".verdict p{margin:0;font-size:15px}\n"
    ".meta{display:flex;gap:16px;flex-wrap:wrap;margin-top:16px}\n"
    ".meta section{flex:1 1 420px;background:var(--panel);border:1px solid var(--line);"
    "border-radius:8px;padding:12px 16px}\n"
    ".meta h3{margin:0 0 8px;font-size:14px;text-transform:uppercase;letter-spacing:.04em;"
    "color:var(--muted)}\n"
    "dl{display:grid;grid-template-columns:max-content 1fr;gap:3px 14px;margin:0}\n"
    "dt{color:var(--muted)}dd{margin:0;word-break:break-all}\n"
    ".warn{color:var(--bad);font-weight:600}\n"
    ".chart{border:1px solid var(--line);border-radius:8px;padding:8px 8px 4px}\n"
    ".chart svg{display:block;width:100%;height:auto}\n"
    ".legend{display:flex;gap:18px;font-size:13px;color:var(--muted);padding:2px 8px 6px}\n"
    ".legend i{display:inline-block;width:14px;height:3px;margin-right:6px;vertical-align:middle}\n"
    "table{border-collapse:collapse;width:100%;font-variant-numeric:tabular-nums}\n"
    "th,td{padding:6px;border-bottom:1px solid var(--line);text-align:right;"
    "vertical-align:top;white-space:nowrap}\n"
    "th{position:sticky;top:0;background:#fff;cursor:pointer;user-select:none;"
    "font-weight:600;color:var(--muted);border-bottom:2px solid var(--line)}\n"
    "th:hover{color:var(--accent)}\n"
    "th[aria-sort=ascending]::after{content:' \\25b2'}\n"
    "th[aria-sort=descending]::after{content:' \\25bc'}\n"
    "td.spark,th.spark{text-align:center}\n"
    "td.site,th.site{text-align:left;white-space:normal;word-break:break-all;min-width:200px}\n"
    "td.site code{font:13px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}\n"
    "tr.flagged td,tr.source td{background:#fff7f7}\n"
    "tr.row.flagged td{border-bottom:none}\n"
    "tr.source td{padding-top:0;text-align:left}\n"
    "td.vd,th.vd{text-align:center}\n"
    "tr.source pre.src{max-width:none;margin:0 0 4px}\n"
    "tr.flagged td.site code{color:var(--bad);font-weight:600}\n"
    ".badge{display:inline-block;padding:1px 8px;border-radius:10px;font-size:12px;"
    "font-weight:600;background:#eaeef2;color:var(--muted)}\n"
    ".badge.growing,.badge.new,.badge.worse{background:var(--bad);color:#fff}\n"
    ".badge.shrinking{background:#ddf4ff;color:#0550ae}\n"
    ".badge.undecided,.badge.insufficient{background:#9a6700;color:#fff}\n"
    ".badge.allowed{background:#dafbe1;color:#116329;margin-left:4px}\n"
    "p.allow{margin:2px 0 0;color:#116329;font-size:12px}\n"
    "p.allow.past{color:var(--bad)}\n"
    ".kind{color:var(--muted);font-size:12px;margin-left:6px;white-space:nowrap}\n"
    "details summary{cursor:pointer;list-style-position:inside}\n"
    "pre.src{margin:6px 0 2px;padding:6px 0;background:var(--panel);border:1px solid var(--line);"
    "border-radius:6px;font:12px/1.5 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;"
    "overflow-x:auto;white-space:pre;max-width:460px}\n"
    "pre.src span{display:block;padding:0 10px}\n"
    "pre.src span.hit{background:#fff1c2}\n"
    "pre.src b{display:inline-block;width:4em;color:var(--muted);font-weight:400}\n"
    "td.bad{color:var(--bad);font-weight:600}\n"
    "footer{margin:28px 0 8px;color:var(--muted);font-size:12px}\n"
    "</style>\n";

static const char page_script[] =
    "<script>\n"
    "(function () {\n"
    "  var heads = document.querySelectorAll('table.sortable th');\n"
    "  Array.prototype.forEach.call(heads, function (th) {\n"
    "    th.addEventListener('click', function () {\n"
    "      var table = th.closest('table');\n"
    "      var column = th.cellIndex;\n"
    "      var ascending = th.getAttribute('aria-sort') !== 'ascending';\n"
    "      Array.prototype.forEach.call(table.querySelectorAll('th'), function (h) {\n"
    "        h.removeAttribute('aria-sort');\n"
    "      });\n"
    "      th.setAttribute('aria-sort', ascending ? 'ascending' : 'descending');\n"
    "      var key = function (group) {\n"
    "        var cell = group.rows[0].cells[column], v = cell.getAttribute('data-v');\n"
    "        return v === null ? cell.textContent.toLowerCase() : parseFloat(v);\n"
    "      };\n"
    "      var groups = Array.prototype.slice.call(table.tBodies);\n"
    "      groups.sort(function (a, b) {\n"
    "        var x = key(a), y = key(b), order = x < y ? -1 : x > y ? 1 : 0;\n"
    "        return ascending ? order : -order;\n"
    "      });\n"
    "      groups.forEach(function (group) { table.appendChild(group); });\n"
    "    });\n"
    "  });\n"
    "  document.body.setAttribute('data-ready', 'sortable');\n"
    "})();\n"
    "</script>\n";

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
    html_put(out, piece);
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
  html_put(out, evidence);
  fputs(".</p>\n", out);
}

static void put_inconclusive(FILE *out, const struct diff_result *r)
{
  char reason[512];
  report_outcome_reason(r, reason, sizeof reason);
  fputs("<header class=\"verdict unsure\">\n<h1>INCONCLUSIVE</h1>\n<p>", out);
  html_put(out, reason);
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
  if (r->mode == DIFF_MODE_BASE) {
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
    html_put(out, c->command);
    fputs("</code></dd>\n", out);
  }
  if (c->path) {
    fputs("<dt>capture</dt><dd>", out);
    html_put(out, c->path);
    fputs("</dd>\n", out);
  }
  if (c->host) {
    fputs("<dt>host</dt><dd>", out);
    html_put(out, c->host);
    fputs("</dd>\n", out);
  }
  if (c->pid)
    fprintf(out, "<dt>pid</dt><dd>%ld</dd>\n", c->pid);
  if (c->luajit_version) {
    fputs("<dt>LuaJIT</dt><dd>", out);
    html_put(out, c->luajit_version);
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
  fputs("</dl>\n</section>\n", out);
}

/* ---- Sources -------------------------------------------------------------- */

/* Opens a site's Lua source (a name ending in .lua): as named (relative to
 * the current directory), or under source_root when one is given and the
 * name is relative. */
static FILE *open_source(const struct report_options *options, const char *file)
{
  /* Only Lua sources: a result from elsewhere must not pull lines of any
   * other file (a key, a password file) into a page that will be shared. */
  size_t length = file ? strlen(file) : 0;
  if (length < 5 || strcmp(file + length - 4, ".lua") != 0)
    return NULL;
  if (!options->source_root || file[0] == '/')
    return fopen(file, "r");
  size_t n = strlen(options->source_root) + strlen(file) + 2;
  char *path = malloc(n);
  if (!path)
    return NULL;
  snprintf(path, n, "%s/%s", options->source_root, file);
  FILE *in = fopen(path, "r");
  free(path);
  return in;
}

/* Writes the lines around a site's line as <pre>; returns 1 if any was found. */
static int put_source(FILE *out, const struct report_options *options, const struct diff_site *s)
{
  if ((s->kind != DIFF_SITE_LUA && s->kind != DIFF_SITE_TRACE) || !s->source_line)
    return 0;
  FILE *in = open_source(options, s->source_file);
  if (!in)
    return 0;
  uint64_t first = s->source_line > SOURCE_CONTEXT ? s->source_line - SOURCE_CONTEXT : 1;
  uint64_t last = s->source_line + SOURCE_CONTEXT, number = 0;
  char *line = NULL;
  size_t capacity = 0;
  int found = 0;
  ssize_t length;
  while (number < last && (length = getline(&line, &capacity, in)) >= 0) {
    number++;
    if (number < first)
      continue;
    while (length > 0 && (line[length - 1] == '\n' || line[length - 1] == '\r'))
      line[--length] = '\0';
    if (length > SOURCE_MAX_LINE)
      line[SOURCE_MAX_LINE] = '\0';  /* may cut a UTF-8 sequence: it shows as U+FFFD */
    if (!found)
      fputs("<pre class=\"src\">", out);
    found = 1;
    fprintf(out, "<span%s><b>%" PRIu64 "</b>", number == s->source_line ? " class=\"hit\"" : "",
            number);
    html_put(out, line);
    fputs("</span>", out);
  }
  free(line);
  fclose(in);
  if (found)
    fputs("</pre>", out);
  return found;
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
  html_put(out, growth);
  fputs(" (", out);
  html_put(out, rule);
  fputs("): ", out);
  html_put(out, s->allowance->comment);
  fputs("</p>", out);
}

/* Under a growing site's name: the paths that hold its blocks at the heap
 * snapshot, the top one shown and the rest folded under it. */
static void put_holders(FILE *out, const struct diff_site *s)
{
  if (!s->holder_count)
    return;
  fputs("<details class=\"held\"><summary>held by <code>", out);
  html_put(out, s->holders[0].path);
  fputs("</code></summary><ul>", out);
  for (size_t k = 0; k < s->holder_count; k++) {
    char summary[200];
    report_holder_summary(&s->holders[k], summary, sizeof summary);
    fputs("<li><code>", out);
    html_put(out, s->holders[k].path);
    fputs("</code>: ", out);
    html_put(out, summary);
    fputs("</li>", out);
  }
  fputs("</ul></details>", out);
}

/* Containers that grew between two heap snapshots: where each was made,
 * how it is held, its entries and bytes at both (the text's words). */
static void put_containers(FILE *out, const struct diff_result *r)
{
  if (!r->container_count)
    return;
  fprintf(out, "<section class=\"containers\"><h2>Growing containers</h2>\n<p>The same object "
               "at the heap snapshots of boundaries %" PRIu64 " and %" PRIu64 ":</p>\n<ul>\n",
          r->containers[0].boundaries[0], r->containers[0].boundaries[1]);
  for (size_t i = 0; i < r->container_count; i++) {
    const struct diff_container *c = &r->containers[i];
    char growth[160];
    report_container_growth(c, growth, sizeof growth);
    fputs("<li>", out);
    html_put(out, c->type ? c->type : "object");
    fputs(" made at <code>", out);
    html_put(out, c->site ? c->site : "an unknown site");
    fputs("</code>, held by <code>", out);
    html_put(out, c->path ? c->path : "");
    fputs("</code>: ", out);
    html_put(out, growth);
    fputs("</li>\n", out);
  }
  fputs("</ul></section>\n", out);
}

/* A site's name; with folded_source, its source excerpt folded under it. */
static void put_site_cell(FILE *out, const struct report_options *options,
                          const struct diff_site *s, int folded_source)
{
  fputs("<td class=\"site\">", out);
  if (folded_source) {
    fputs("<details><summary><code>", out);
    html_put(out, s->name);
    fprintf(out, "</code><span class=\"kind\">%s</span></summary>", diff_site_kind_name(s->kind));
    if (!put_source(out, options, s))
      fputs("<p class=\"kind\">source not readable</p>", out);
    fputs("</details>", out);
  } else {
    fputs("<code>", out);
    html_put(out, s->name);
    fprintf(out, "</code><span class=\"kind\">%s", diff_site_kind_name(s->kind));
    if (s->library) {
      fputs(" in ", out);
      html_put(out, s->library);
    }
    fputs("</span>", out);
  }
  put_allowance(out, s);
  put_holders(out, s);
  fputs("</td>", out);
}

/* Whether a site's source can be opened (so the cell gets an excerpt). */
static int source_readable(const struct report_options *options, const struct diff_site *s)
{
  if ((s->kind != DIFF_SITE_LUA && s->kind != DIFF_SITE_TRACE) || !s->source_line)
    return 0;
  FILE *in = open_source(options, s->source_file);
  if (!in)
    return 0;
  fclose(in);
  return 1;
}

static void put_table(FILE *out, const struct diff_result *r, const struct report_options *options)
{
  int base = r->mode == DIFF_MODE_BASE, range = r->mode == DIFF_MODE_RANGE;
  fprintf(out, "<h2>Sites <span class=\"kind\">%zu, click a column to sort</span></h2>\n",
          r->site_count);
  if (r->facts.tally.flagged && !r->capture.snapshots && !base) {
    fputs("<p class=\"kind\">Held by: ", out);
    html_put(out, report_no_snapshot_hint);
    fputs("</p>\n", out);
  }
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
  int columns = 10 + range + 3 * base;
  size_t with_sources = 0;
  for (size_t i = 0; i < r->site_count; i++) {
    const struct diff_site *s = &r->sites[i];
    int flagged = s->facts.flagged;
    int with_source = with_sources < SOURCE_MAX_SITES && source_readable(options, s);
    with_sources += with_source != 0;
    /* One tbody per site: its row and, for a flagged one, its source below
     * across the table; sorting moves the tbody as a whole. */
    fprintf(out, "<tbody>\n<tr class=\"%s\"><td data-v=\"%zu\">%zu</td>",
            flagged ? "row flagged" : "row", i + 1, i + 1);
    put_site_cell(out, options, s, with_source && !flagged);
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
    fputs("</tr>\n", out);
    if (with_source && flagged) {
      fprintf(out, "<tr class=\"source\"><td></td><td colspan=\"%d\">", columns - 1);
      if (!put_source(out, options, s))
        fputs("<p class=\"kind\">source not readable</p>", out);
      fputs("</td></tr>\n", out);
    }
    fputs("</tbody>\n", out);
  }
  fputs("</table>\n", out);
}

int report_render_html(const struct diff_result *r, const struct report_options *options,
                       FILE *out, char *error, size_t error_size)
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
  fputs(page_style, out);
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
  if (report_html_chart_memory(out, r) < 0) {
    snprintf(error, error_size, "out of memory");
    return -1;
  }
  report_html_flame(out, r);
  put_table(out, r, options);
  put_containers(out, r);
  fprintf(out, "<footer>ljleak %s report. Growth is the Theil-Sen slope of live bytes over "
               "the boundaries; p is the one-sided Mann-Kendall p-value of an upward "
               "trend.</footer>\n",
          diff_mode_name(r->mode));
  fputs("</main>\n", out);
  fputs(page_script, out);
  fputs("</body>\n</html>\n", out);
  return 0;
}
