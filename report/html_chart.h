/* report/html_chart.h: the HTML report's charts, inline SVG: the memory chart and the table's sparklines. */
#ifndef LJLEAK_REPORT_HTML_CHART_H
#define LJLEAK_REPORT_HTML_CHART_H

#include <stdint.h>
#include <stdio.h>

#include "diff/diff.h"

/* The total live bytes at each boundary (and the base's, in base mode) as
 * a line chart. Returns 0, or -1 when out of memory. */
int report_html_chart_memory(FILE *out, const struct diff_result *r);

/* A small chart of one series for a table row; its first warmup boundaries
 * (left out of the verdicts) drawn pale. */
void report_html_chart_sparkline(FILE *out, const uint64_t *values, size_t count, int flagged,
                          size_t warmup);

#endif
