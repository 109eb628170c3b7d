/* report/markdown.c: a short summary for a pull-request comment: a verdict line and the flagged sites. */
#include <inttypes.h>
#include <string.h>

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
    i += report_utf8_decode(text + i, length - i, &cp);
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
      report_utf8_put(out, cp);
  }
}

static void put_bytes(FILE *out, double bytes, int sign)
{
  char text[48];
  report_format_bytes(text, sizeof text, bytes, sign);
  fputs(text, out);
}

int report_render_markdown(const struct diff_result *r, FILE *out, char *error,
                           size_t error_size)
{
  (void)error;
  (void)error_size;
  size_t flagged = diff_result_flagged_count(r);
  double per_segment = 0;
  for (size_t i = 0; i < r->site_count; i++)
    if (diff_site_flagged(r->mode, &r->sites[i]))
      per_segment += r->sites[i].growth_bytes_per_segment;

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
  if (r->mode == DIFF_MODE_BASE)
    fprintf(out, ", candidate against a base of %zu boundaries", r->base.boundary_count);
  else if (r->mode == DIFF_MODE_RANGE)
    fprintf(out, ", boundary %zu against boundary %zu", r->options.range_to,
            r->options.range_from);
  if (flagged) {
    fputs("; flagged sites grow by ", out);
    put_bytes(out, per_segment, 1);
    fputs(" per segment in all", out);
  }
  fputs(".\n", out);
  if (!flagged)
    return 0;

  fputs("\n| site | verdict | growth/segment | live bytes (first → last) |", out);
  if (r->mode == DIFF_MODE_BASE)
    fputs(" base growth/segment |", out);
  fputs("\n| --- | --- | ---: | --- |", out);
  if (r->mode == DIFF_MODE_BASE)
    fputs(" ---: |", out);
  fputc('\n', out);
  size_t rows = 0;
  for (size_t i = 0; i < r->site_count; i++) {
    const struct diff_site *site = &r->sites[i];
    if (!diff_site_flagged(r->mode, site))
      continue;
    if (rows++ == MARKDOWN_MAX_ROWS) {
      fprintf(out, "\n… and %zu more flagged sites.\n", flagged - MARKDOWN_MAX_ROWS);
      break;
    }
    fputs("| ", out);
    put_escaped(out, site->name);
    fprintf(out, " | %s | ", diff_verdict_name(site->verdict));
    put_bytes(out, site->growth_bytes_per_segment, 1);
    fputs(" | ", out);
    put_bytes(out, (double)report_first_live(site), 0);
    fputs(" → ", out);
    put_bytes(out, (double)report_last_live(site), 0);
    fputs(" |", out);
    if (r->mode == DIFF_MODE_BASE) {
      fputs(" ", out);
      put_bytes(out, site->base_growth_bytes_per_segment, 1);
      fputs(" |", out);
    }
    fputc('\n', out);
  }
  return 0;
}
