/* merge/merge_text.c: a merge as text (the terminal, fleet.txt) and as Markdown (a pull request or a ticket). */
#include <inttypes.h>
#include <string.h>
#include <time.h>

#include "merge/merge_internal.h"
#include "report/report.h"

/* Sites listed in full; the rest are counted. */
#define MERGE_TEXT_SITES 40

/* Text from a capture or a site name, as a terminal may be shown it; "-" when unknown. */
static void put_clean(FILE *out, const char *text)
{
  report_put_terminal(out, text ? text : "-");
}

/* "2026-11-28 05:33" in UTC, or "-". */
static void format_time(char *buffer, size_t size, double when)
{
  if (report_format_time(buffer, size, when, "%Y-%m-%d %H:%M") < 0)
    snprintf(buffer, size, "-");
}

/* Label keys a site's growth is broken down by, at most. */
#define MERGE_LABEL_KEYS 16

void merge_site_labels_each(const struct merge *merge, const struct merge_site *site, FILE *out,
                            void (*put)(FILE *out, size_t k, const char *line))
{
  const char *keys[MERGE_LABEL_KEYS];
  size_t count = 0;
  for (size_t g = 0; site->growing && g < merge->group_count && count < MERGE_LABEL_KEYS; g++)
    if (!count || strcmp(keys[count - 1], merge->groups[g].key))
      keys[count++] = merge->groups[g].key;  /* the groups are by key: each key once */
  for (size_t k = 0; k < count; k++) {
    char line[1024];
    merge_site_by_label(merge, site, keys[k], line, sizeof line);
    put(out, k, line);
  }
}

/* A site's growth by one label, under its row. */
static void put_label_line(FILE *out, size_t k, const char *line)
{
  (void)k;
  fputs("           ", out);
  put_clean(out, line);
  fputc('\n', out);
}

static void put_headline(FILE *out, const struct merge *merge)
{
  char when_first[32], when_last[32];
  double first = 0, last = 0;
  for (size_t i = 0; i < merge->capture_count; i++) {
    const struct merge_capture *c = &merge->captures[i];
    if (c->info.start_time > 0 && (first == 0 || c->info.start_time < first))
      first = c->info.start_time;
    if (c->end_time > last)
      last = c->end_time;
  }
  format_time(when_first, sizeof when_first, first);
  format_time(when_last, sizeof when_last, last);
  fprintf(out, "ljleak merge: %zu of %zu %s growing on at least %zu of %zu captures",
          merge->flagged, merge->site_count, merge_rows_name(merge), merge->min_captures,
          merge->capture_count);
  if (merge->outcome == DIFF_OUTCOME_INCONCLUSIVE) {
    char why[160];
    fprintf(out, "; inconclusive: %s", merge_inconclusive_why(merge, why, sizeof why));
  }
  fprintf(out, "\n\ncaptures  %zu (%zu flagged, %zu inconclusive, %zu pass), %s to %s UTC, %s results\n",
          merge->capture_count, merge->captures_flagged, merge->captures_inconclusive,
          merge->capture_count - merge->captures_flagged - merge->captures_inconclusive, when_first,
          when_last, diff_mode_name(merge->mode));
  if (merge->group_count) {
    fputs("labels   ", out);
    for (size_t g = 0; g < merge->group_count; g++) {
      fputs(g ? ", " : " ", out);
      put_clean(out, merge->groups[g].key);
      fputc('=', out);
      put_clean(out, merge->groups[g].value);
      fprintf(out, " (%zu)", merge->groups[g].captures);
    }
    fputc('\n', out);
  }
}

static void put_site_row(FILE *out, const struct merge *merge, const struct merge_site *s)
{
  char median[32], largest[32], per_second[40], sum[32], most[32];
  report_format_bytes(median, sizeof median, s->growth_median, 1);
  report_format_bytes(largest, sizeof largest, s->growth_max, 1);
  if (s->per_second_count) {
    report_format_bytes(per_second, sizeof per_second - 2, s->growth_per_second_median, 1);
    strcat(per_second, "/s");
  } else {
    snprintf(per_second, sizeof per_second, "-");
  }
  report_format_bytes(sum, sizeof sum, (double)s->live_sum, 0);
  report_format_bytes(most, sizeof most, (double)s->live_max, 0);
  fprintf(out, "  %7zu %9zu %6zu %6zu  %12s %12s %14s %11s %11s  ", s->growing, s->undecided,
          s->steady, s->seen, median, largest, per_second, sum, most);
  put_clean(out, s->name);
  fputc('\n', out);
  merge_site_labels_each(merge, s, out, put_label_line);
}

int merge_render_text(const struct merge *merge, FILE *out)
{
  put_headline(out, merge);
  size_t listed = 0;
  fputs("\nsites, most captures growing first (growth per boundary over the captures that saw "
        "the site; live bytes at their last boundary):\n"
        "  growing undecided steady   seen        median      largest     median/sec    live sum"
        "    live max  site\n", out);
  for (size_t i = 0; i < merge->site_count && listed < MERGE_TEXT_SITES; i++) {
    const struct merge_site *s = &merge->sites[i];
    if (!s->growing && !s->undecided)
      break;
    put_site_row(out, merge, s);
    listed++;
  }
  size_t rest = merge->site_count - listed;
  if (rest) {
    int quiet = !merge->sites[listed].growing && !merge->sites[listed].undecided;
    fprintf(out, "  and %zu more sites%s: ", rest,
            quiet ? ", steady in every capture that saw them" : " (all of them in the JSON)");
    size_t shown = 0;
    for (size_t i = listed; i < merge->site_count && shown < 5; i++, shown++) {
      fputs(shown ? ", " : "", out);
      put_clean(out, merge->sites[i].name);
    }
    fputs(rest > shown ? ", ...\n" : "\n", out);
  }
  fputs("\ncaptures:\n", out);
  for (size_t i = 0; i < merge->capture_count; i++) {
    const struct merge_capture *c = &merge->captures[i];
    char start[32], span[32] = "-";
    format_time(start, sizeof start, c->info.start_time);
    if (c->end_time > c->info.start_time && c->info.start_time > 0)
      report_format_duration(span, sizeof span, c->end_time - c->info.start_time);
    fprintf(out, "  %-12s %s  %8s  ", diff_outcome_name(c->outcome), start, span);
    if (report_stop_warning(&c->info)) {
      fputs("(stopped early: ", out);
      put_clean(out, c->info.stop_reason);
      fputs(") ", out);
    }
    put_clean(out, c->info.host);
    fprintf(out, " pid %ld  ", c->info.pid);
    for (size_t l = 0; l < c->info.label_count; l++) {
      put_clean(out, c->info.labels[l].key);
      fputc('=', out);
      put_clean(out, c->info.labels[l].value);
      fputc(' ', out);
    }
    fputs(" ", out);
    put_clean(out, c->info.exe ? c->info.exe : c->info.command);
    fputs("  ", out);
    put_clean(out, c->source);
    if (c->info.truncated)
      fputs("  (cut: read up to its last complete event)", out);
    fputc('\n', out);
  }
  return ferror(out) ? -1 : 0;
}

const char *merge_rows_name(const struct merge *merge)
{
  return merge->by == DIFF_BY_STACK ? "stacks" : "sites";
}

/* A site's growth by one label, in its row's last cell. */
static void put_label_cell(FILE *out, size_t k, const char *line)
{
  if (k)
    fputs("; ", out);
  report_put_markdown(out, line, REPORT_MARKDOWN_CELL);
}

int merge_render_markdown(const struct merge *merge, FILE *out)
{
  fprintf(out, "### ljleak merge: %zu of %zu %s growing on at least %zu of %zu captures\n\n",
          merge->flagged, merge->site_count, merge_rows_name(merge), merge->min_captures,
          merge->capture_count);
  fprintf(out, "%zu captures: %zu flagged, %zu inconclusive.", merge->capture_count,
          merge->captures_flagged, merge->captures_inconclusive);
  if (merge->outcome == DIFF_OUTCOME_INCONCLUSIVE) {
    char why[160];
    fprintf(out, " Inconclusive: %s.", merge_inconclusive_why(merge, why, sizeof why));
  }
  fputs("\n\n", out);
  fputs("| growing | undecided | seen | median/boundary | largest/boundary | live sum | site | by label |\n"
        "| ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |\n", out);
  size_t listed = 0;
  for (size_t i = 0; i < merge->site_count && listed < MERGE_TEXT_SITES; i++, listed++) {
    const struct merge_site *s = &merge->sites[i];
    if (!s->growing && !s->undecided)
      break;
    char median[32], largest[32], sum[32];
    report_format_bytes(median, sizeof median, s->growth_median, 1);
    report_format_bytes(largest, sizeof largest, s->growth_max, 1);
    report_format_bytes(sum, sizeof sum, (double)s->live_sum, 0);
    fprintf(out, "| %zu | %zu | %zu | %s | %s | %s | ", s->growing, s->undecided, s->seen, median,
            largest, sum);
    report_put_markdown(out, s->name, REPORT_MARKDOWN_CODE_CELL);
    fputs(" | ", out);
    merge_site_labels_each(merge, s, out, put_label_cell);
    fputs(" |\n", out);
  }
  if (!listed)
    fputs("| 0 | 0 | | | | | no site grew or stayed undecided in any capture | |\n", out);
  else if (listed < merge->site_count && (merge->sites[listed].growing || merge->sites[listed].undecided))
    fprintf(out, "\nand %zu more sites growing or undecided (every site is in the JSON).\n",
            merge_sites_not_steady(merge) - listed);
  return ferror(out) ? -1 : 0;
}
