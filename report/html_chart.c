/* report/html_chart.c: the HTML report's charts, inline SVG: the memory chart and the table's sparklines. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/common.h"
#include "report/html_chart.h"

/* ---- Charts --------------------------------------------------------------- */

/* One line of a chart: values scaled into the plot box. */
struct chart_line {
  const double *values;
  size_t count;
  const char *color;
  const char *label;
  int dashed;
  int filled;
};

#define CHART_W 1000.0
#define CHART_H 260.0
#define CHART_LEFT 78.0
#define CHART_RIGHT 16.0
#define CHART_TOP 14.0
#define CHART_BOTTOM 30.0

static double chart_x(size_t i, size_t count)
{
  double width = CHART_W - CHART_LEFT - CHART_RIGHT;
  return CHART_LEFT + (count > 1 ? width * (double)i / (double)(count - 1) : width / 2);
}

static double chart_y(double v, double top, double chart_h)
{
  double height = chart_h - CHART_TOP - CHART_BOTTOM;
  return CHART_TOP + height - (top > 0 ? height * v / top : 0);
}

/* A round top for the y axis: four steps of 1, 2, 2.5 or 5 times a power of
 * ten, in the unit (B, KiB, MiB, ...) the labels will use. */
static double nice_top(double top)
{
  double unit = 1;
  while (top / unit >= 1024 && unit < 1e18)
    unit *= 1024;
  double step = top / unit / 4, power = 1;
  if (step <= 0)
    return 4;
  while (power * 10 <= step)
    power *= 10;
  while (power > step)
    power /= 10;
  static const double multiples[] = {1, 2, 2.5, 5, 10};
  for (size_t i = 0; i < sizeof multiples / sizeof multiples[0]; i++)
    if (multiples[i] * power >= step)
      return multiples[i] * power * unit * 4;
  return 10 * power * unit * 4;
}

/* An axis label: "64 KiB", "2.5 MiB" (no ".0" on round ticks). */
static void put_tick(FILE *out, double bytes)
{
  static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  size_t unit = 0;
  while (bytes >= 1024 && unit + 1 < sizeof units / sizeof units[0]) {
    bytes /= 1024;
    unit++;
  }
  fprintf(out, bytes == floor(bytes) ? "%.0f %s" : "%.1f %s", bytes, units[unit]);
}

/* A pale band over the warm-up boundaries, from the left edge to halfway
 * to the first boundary judged. */
static void put_warmup_band(FILE *out, size_t warmup, size_t boundaries, double chart_h)
{
  if (!warmup || boundaries < 2)
    return;
  double left = chart_x(0, boundaries) - 6;
  double right = warmup < boundaries
                     ? (chart_x(warmup - 1, boundaries) + chart_x(warmup, boundaries)) / 2
                     : chart_x(boundaries - 1, boundaries) + 6;
  fprintf(out,
          "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#9a6700\" "
          "fill-opacity=\"0.08\"/>\n<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" "
          "fill=\"#9a6700\">warm-up</text>\n",
          left, CHART_TOP, right - left, chart_h - CHART_TOP - CHART_BOTTOM, left + 6,
          CHART_TOP + 14);
}

static void put_chart(FILE *out, const struct chart_line *lines, size_t line_count,
                      size_t boundaries, double chart_h, const char *label, size_t warmup)
{
  double top = 0;
  for (size_t l = 0; l < line_count; l++)
    for (size_t i = 0; i < lines[l].count; i++)
      if (lines[l].values[i] > top)
        top = lines[l].values[i];
  top = nice_top(top);
  fprintf(out,
          "<div class=\"chart\">\n<svg viewBox=\"0 0 %.0f %.0f\" role=\"img\" "
          "aria-label=\"%s\">\n",
          CHART_W, chart_h, label);
  put_warmup_band(out, warmup, boundaries, chart_h);
  for (int g = 0; g <= 4; g++) {
    double v = top * g / 4, y = chart_y(v, top, chart_h);
    fprintf(out,
            "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#d0d7de\" "
            "stroke-width=\"1\"%s/>\n",
            CHART_LEFT, y, CHART_W - CHART_RIGHT, y, g ? " stroke-dasharray=\"3 4\"" : "");
    fprintf(out,
            "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" font-size=\"12\" "
            "fill=\"#656d76\">",
            CHART_LEFT - 8, y + 4);
    put_tick(out, v);
    fputs("</text>\n", out);
  }
  size_t ticks = boundaries < 10 ? boundaries : 10;
  for (size_t t = 0; t < ticks; t++) {
    size_t i = ticks > 1 ? t * (boundaries - 1) / (ticks - 1) : 0;
    fprintf(out,
            "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"12\" "
            "fill=\"#656d76\">%zu</text>\n",
            chart_x(i, boundaries), chart_h - 10, i + 1);
  }
  for (size_t l = 0; l < line_count; l++) {
    const struct chart_line *line = &lines[l];
    if (!line->count)
      continue;
    if (line->filled) {
      fprintf(out, "<polygon fill=\"%s\" fill-opacity=\"0.12\" points=\"", line->color);
      fprintf(out, "%.1f,%.1f", chart_x(0, line->count), chart_y(0, top, chart_h));
      for (size_t i = 0; i < line->count; i++)
        fprintf(out, " %.1f,%.1f", chart_x(i, line->count),
                chart_y(line->values[i], top, chart_h));
      fprintf(out, " %.1f,%.1f\"/>\n", chart_x(line->count - 1, line->count),
              chart_y(0, top, chart_h));
    }
    fprintf(out, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2.5\"%s points=\"",
            line->color, line->dashed ? " stroke-dasharray=\"7 5\"" : "");
    for (size_t i = 0; i < line->count; i++)
      fprintf(out, "%s%.1f,%.1f", i ? " " : "", chart_x(i, line->count),
              chart_y(line->values[i], top, chart_h));
    fputs("\"/>\n", out);
    for (size_t i = 0; i < line->count && line->count <= 60; i++)
      fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>\n",
              chart_x(i, line->count), chart_y(line->values[i], top, chart_h), line->color);
  }
  fputs("</svg>\n<div class=\"legend\">", out);
  for (size_t l = 0; l < line_count; l++)
    if (lines[l].count)
      fprintf(out, "<span><i style=\"background:%s\"></i>%s</span>", lines[l].color,
              lines[l].label);
  if (warmup)
    fprintf(out, "<span>boundaries 1 to %zu: warm-up, left out of the verdicts</span>", warmup);
  fputs("<span>x: boundary (a full GC cycle)</span></div>\n</div>\n",
        out);
}

/* The sum of every site's live bytes at each boundary (base: the base series). */
static double *total_live(const struct diff_result *r, int base, size_t *count)
{
  size_t n = 0;
  for (size_t i = 0; i < r->site_count; i++) {
    const struct diff_site *s = &r->sites[i];
    size_t c = base ? (s->base_live_bytes ? s->base_count : 0) : (s->live_bytes ? s->count : 0);
    if (c > n)
      n = c;
  }
  *count = n;
  if (!n)
    return NULL;
  double *totals = calloc(n, sizeof *totals);
  if (!totals)
    return NULL;
  for (size_t i = 0; i < r->site_count; i++) {
    const struct diff_site *s = &r->sites[i];
    const uint64_t *v = base ? s->base_live_bytes : s->live_bytes;
    size_t c = base ? s->base_count : s->count;
    for (size_t b = 0; v && b < c; b++)
      totals[b] += (double)v[b];
  }
  return totals;
}

int report_html_chart_memory(FILE *out, const struct diff_result *r)
{
  struct chart_line lines[2];
  size_t line_count = 0, count = 0, base_count = 0;
  double *totals = total_live(r, 0, &count);
  double *base_totals = r->mode == DIFF_MODE_BASE ? total_live(r, 1, &base_count) : NULL;
  double *heap = NULL;
  if ((count && !totals) || (base_count && !base_totals)) {
    free(totals);
    free(base_totals);
    return -1;
  }
  size_t boundaries = count > base_count ? count : base_count;
  if (r->capture.heap_bytes && r->capture.boundary_count) {
    heap = calloc(r->capture.boundary_count, sizeof *heap);
    if (!heap) {
      free(totals);
      free(base_totals);
      return -1;
    }
    for (size_t i = 0; i < r->capture.boundary_count; i++)
      heap[i] = (double)r->capture.heap_bytes[i];
    if (r->capture.boundary_count > boundaries)
      boundaries = r->capture.boundary_count;
  }
  if (base_totals)
    lines[line_count++] = (struct chart_line){base_totals, base_count, "#656d76",
                                              "live bytes, all sites (base)", 1, 0};
  lines[line_count++] =
      (struct chart_line){totals, count, "#c62828",
                          r->mode == DIFF_MODE_BASE ? "live bytes, all sites (candidate)"
                                                    : "live bytes, all sites",
                          0, 1};
  fputs("<h2>Live memory of all sites at each boundary</h2>\n", out);
  if (boundaries)
    put_chart(out, lines, line_count, boundaries, CHART_H, "live bytes at each boundary",
              r->options.warmup);
  else
    fputs("<p>No boundaries.</p>\n", out);
  if (heap) {
    /* The heap has its own chart: on one scale it would flatten the sites' line. */
    struct chart_line heap_line = {heap, r->capture.boundary_count, "#8250df",
                                   "Lua heap (collectgarbage(\"count\") from the index)", 0, 1};
    fputs("<h2>Lua heap at each boundary</h2>\n", out);
    put_chart(out, &heap_line, 1, boundaries, CHART_H * 0.7, "Lua heap at each boundary",
              r->options.warmup);
  }
  free(totals);
  free(base_totals);
  free(heap);
  return 0;
}

/* A small chart of one series for a table row. */
void report_html_chart_sparkline(FILE *out, const uint64_t *values, size_t count, int flagged,
                          size_t warmup)
{
  const double w = 84, h = 26, pad = 2;
  if (!values || !count) {
    fputs("<svg class=\"spark\" width=\"84\" height=\"26\"></svg>", out);
    return;
  }
  uint64_t low = values[0], high = values[0];
  for (size_t i = 1; i < count; i++) {
    if (values[i] < low)
      low = values[i];
    if (values[i] > high)
      high = values[i];
  }
  const char *color = flagged ? "#c62828" : "#57606a";
  /* The warm-up in a pale line up to the first boundary judged, then the rest. */
  size_t split = warmup < count ? warmup : count - 1;
  fprintf(out, "<svg class=\"spark\" width=\"84\" height=\"26\" viewBox=\"0 0 84 26\">");
  for (int part = split ? 0 : 1; part < 2; part++) {
    size_t from = part ? split : 0, to = part ? count : split + 1;
    fprintf(out, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\"%s points=\"",
            part ? color : "#d0d7de", part ? "" : " stroke-dasharray=\"2 2\"");
    for (size_t i = from; i < to; i++) {
      double x = count > 1 ? pad + (w - 2 * pad) * (double)i / (double)(count - 1) : w / 2;
      double y = high > low ? h - pad - (h - 2 * pad) * (double)(values[i] - low) /
                                            (double)(high - low)
                            : h - pad;
      fprintf(out, "%s%.1f,%.1f", i > from ? " " : "", x, y);
    }
    fputs("\"/>", out);
  }
  fputs("</svg>", out);
}

