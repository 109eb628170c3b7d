/* report/junit.c: JUnit XML for CI systems: one test case per site, a failure for each flagged one. */
#include <inttypes.h>
#include <string.h>

#include "report/common.h"

/* Writes text as XML character data or attribute value: the five specials as
 * entities, characters XML 1.0 forbids (and tab, newline, carriage return, so
 * attribute values keep them) as U+FFFD or character references. */
static void put_xml(FILE *out, const char *text)
{
  if (!text)
    return;
  size_t length = strlen(text);
  for (size_t i = 0; i < length;) {
    uint32_t cp;
    i += report_utf8_decode(text + i, length - i, &cp);
    switch (cp) {
    case '<': fputs("&lt;", out); break;
    case '>': fputs("&gt;", out); break;
    case '&': fputs("&amp;", out); break;
    case '"': fputs("&quot;", out); break;
    case '\'': fputs("&apos;", out); break;
    case '\t': case '\n': case '\r': fprintf(out, "&#%" PRIu32 ";", cp); break;
    default:
      if (cp < 0x20 || cp == 0xfffe || cp == 0xffff)
        report_utf8_put(out, 0xfffd);
      else
        report_utf8_put(out, cp);
    }
  }
}

/* Why a site failed, in one line: rate, significance and what it holds. */
static void put_reason(FILE *out, const struct diff_result *r, const struct diff_site *site)
{
  char rate[48], rate_s[48], p[32], first[48], last[48];
  report_format_bytes(rate, sizeof rate, site->growth_bytes_per_segment, 1);
  report_format_bytes(rate_s, sizeof rate_s, site->growth_bytes_per_second, 1);
  report_format_p_value(p, sizeof p, site->trend_p_value);
  report_format_bytes(first, sizeof first, (double)report_first_live(site), 0);
  report_format_bytes(last, sizeof last, (double)report_last_live(site), 0);
  fprintf(out, "%s: %s per segment", diff_verdict_name(site->verdict), rate);
  if (site->growth_bytes_per_second != 0)
    fprintf(out, " (%s/s)", rate_s);
  fprintf(out, ", p=%s, live %s -&gt; %s", p, first, last);
  if (r->mode == DIFF_MODE_BASE) {
    char base[48];
    report_format_bytes(base, sizeof base, site->base_growth_bytes_per_segment, 1);
    fprintf(out, "; base %s, %s per segment", diff_verdict_name(site->base_verdict), base);
  }
  if (r->mode == DIFF_MODE_RANGE) {
    char delta[48];
    report_format_bytes(delta, sizeof delta, (double)site->range_delta_bytes, 1);
    fprintf(out, "; %s from boundary %zu to boundary %zu", delta, r->options.range_from,
            r->options.range_to);
  }
}

int report_render_junit(const struct diff_result *r, FILE *out, char *error, size_t error_size)
{
  (void)error;
  (void)error_size;
  const char *mode = diff_mode_name(r->mode);
  size_t flagged = diff_result_flagged_count(r);
  fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", out);
  fprintf(out, "<testsuites name=\"ljleak\" tests=\"%zu\" failures=\"%zu\">\n", r->site_count,
          flagged);
  fprintf(out,
          "  <testsuite name=\"ljleak.%s\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" "
          "skipped=\"0\">\n",
          mode, r->site_count, flagged);
  fputs("    <properties>\n", out);
  fputs("      <property name=\"mode\" value=\"", out);
  fputs(mode, out);
  fputs("\"/>\n", out);
  if (r->capture.command) {
    fputs("      <property name=\"command\" value=\"", out);
    put_xml(out, r->capture.command);
    fputs("\"/>\n", out);
  }
  if (r->capture.host) {
    fputs("      <property name=\"host\" value=\"", out);
    put_xml(out, r->capture.host);
    fputs("\"/>\n", out);
  }
  fprintf(out, "      <property name=\"boundaries\" value=\"%zu\"/>\n", r->capture.boundary_count);
  fputs("    </properties>\n", out);
  for (size_t i = 0; i < r->site_count; i++) {
    const struct diff_site *site = &r->sites[i];
    fputs("    <testcase name=\"", out);
    put_xml(out, site->name);
    fprintf(out, "\" classname=\"ljleak.%s\"", mode);
    if (!diff_site_flagged(r->mode, site)) {
      fputs("/>\n", out);
      continue;
    }
    fprintf(out, ">\n      <failure type=\"%s\" message=\"", diff_verdict_name(site->verdict));
    put_reason(out, r, site);
    fputs("\">", out);
    put_xml(out, site->name);
    fputs(" holds ", out);
    char last[48];
    report_format_bytes(last, sizeof last, (double)report_last_live(site), 0);
    fprintf(out, "%s at the last boundary; live bytes per boundary:", last);
    for (size_t b = 0; site->live_bytes && b < site->count; b++)
      fprintf(out, " %" PRIu64, site->live_bytes[b]);
    fputs("</failure>\n    </testcase>\n", out);
  }
  fputs("  </testsuite>\n</testsuites>\n", out);
  return 0;
}
