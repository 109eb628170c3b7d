/* report/html_suspects.c: the HTML page's sections on containers: the leak suspects (each container, what it holds, its sites and values; the flagged sites no container explains) and the containers that grew between two heap snapshots. */
#include "report/html_suspects.h"

#include <inttypes.h>
#include <stdint.h>

#include "diff/suspects.h"
#include "report/common.h"

/* --values: one value of a suspect's (report_suspect_values_each), marked as values, escaped. */
static void put_suspect_value(FILE *out, const char *title, size_t k, const char *words)
{
  if (!words) {
    fputs("</li>\n", out);
    return;
  }
  if (!k) {
    fputs("<li class=\"values\">", out);
    report_put_html(out, title);
  }
  fputs(k ? ", <code>" : "<code>", out);
  report_put_html(out, words);
  fputs("</code>", out);
}

/* A site under a suspect (report_suspect_sites_each): what it holds and its stack, or whose VM
 * work it is. */
static void put_suspect_site(FILE *out, const void *context, const struct report_suspect_site *line)
{
  (void)context;
  fputs("<li>", out);
  report_put_bytes(out, line->site->growth_bytes_per_segment, 1);
  fputs("/boundary <code>", out);
  report_put_html(out, line->site->name);
  fputs("</code>", out);
  if (line->vm_work_for) {
    fputs(": the VM's work for <code>", out);
    report_put_html(out, line->vm_work_for);
    fputs("</code></li>\n", out);
    return;
  }
  fputs(": ", out);
  report_put_html(out, line->words);
  if (line->stack && line->stack->frame_count) {
    fputs("; stack <code>", out);
    report_put_html(out, line->stack->name);
    fputs("</code>", out);
  }
  fputs("</li>\n", out);
}

/* A flagged site that no container explains (report_alone_each), after the suspects. */
static void put_alone(FILE *out, const void *context, size_t k, const struct diff_site *site,
                      const char *kinds)
{
  (void)context;
  if (!k)
    fputs("<h3>On their own</h3>\n<p>Flagged sites no container holds (a C library's memory, the "
          "VM's work, a site without holders):</p>\n<ul>\n", out);
  fputs("<li>", out);
  report_put_bytes(out, site->growth_bytes_per_segment, 1);
  fputs("/boundary <code>", out);
  report_put_html(out, site->name);
  fputs("</code>", out);
  if (kinds[0]) {
    fputs(": holds ", out);
    report_put_html(out, kinds);
  }
  fputs("</li>\n", out);
}

/* The leak suspects, before the table: each container with its growth, what it retains and
 * holds, the sites under it; then the flagged sites that no container explains. */
void report_html_suspects(FILE *out, const struct diff_result *r)
{
  if (!r->suspects_grouped || !r->facts.tally.flagged)
    return;
  fputs("<section class=\"suspects\"><h2>Leak suspects</h2>\n<p>Growing sites one container holds, "
        "most growth first; ", out);
  report_put_html(out, report_retained_meaning);
  fputs(".</p>\n<ol>\n", out);
  for (size_t k = 0; k < r->suspect_count; k++) {
    const struct diff_suspect *suspect = &r->suspects[k];
    const struct diff_site_container *c = r->sites[suspect->named_site].container;
    char summary[800];
    report_suspect_summary(r, suspect, summary, sizeof summary);
    fputs("<li><strong>", out);
    report_put_html(out, c->type);
    fputs(" <code>", out);
    report_put_html(out, c->path);
    fputs("</code></strong>", out);
    if (c->site) {
      fputs(", made at <code>", out);
      report_put_html(out, c->site);
      fputs("</code>", out);
    }
    fputs(": ", out);
    report_put_html(out, summary);
    fputs("\n<ul>\n", out);
    report_suspect_sites_each(r, suspect, out, NULL, put_suspect_site);
    report_suspect_values_each(r, suspect, out, put_suspect_value);
    fputs("</ul></li>\n", out);
  }
  fputs("</ol>\n", out);
  if (r->values == DIFF_VALUES_NOT_CAPTURED) {  /* asked for: saying nothing would read as "none" */
    fputs("<p>", out);
    report_put_html(out, report_values_not_captured);
    fputs(".</p>\n", out);
  }
  if (report_alone_each(r, out, NULL, put_alone))
    fputs("</ul>\n", out);
  fputs("</section>\n", out);
}

/* A name, escaped; an older result's missing path as nothing. */
static void put_html_name(FILE *out, const char *name)
{
  report_put_html(out, name ? name : "");
}

/* Containers that grew between two heap snapshots: where each was made,
 * how it is held, its entries and bytes at both (the text's words). */
void report_html_containers(FILE *out, const struct diff_result *r)
{
  if (!r->container_count)
    return;
  fprintf(out, "<section class=\"containers\"><h2>Growing containers</h2>\n<p>The same object "
               "at the heap snapshots of boundaries %" PRIu64 " and %" PRIu64 ":</p>\n<ul>\n",
          r->containers[0].boundaries[0], r->containers[0].boundaries[1]);
  static const struct report_container_marks marks = {
    .put = put_html_name, .open = "<li>", .made_at = " made at <code>",
    .held_by = "</code>, held by <code>", .growth = "</code>: ", .close = "</li>\n"};
  for (size_t i = 0; i < r->container_count; i++)
    report_put_container(out, &r->containers[i], &marks);
  fputs("</ul></section>\n", out);
}
