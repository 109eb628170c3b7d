/* report/fixed.c: base mode's list of what the base grew and the candidate does not (fixed, or renamed), as every format words it. */
#include <stdio.h>
#include <string.h>

#include "report/common.h"

/* Whether the candidate's site no longer grows where its base did. */
static int fixed_in_candidate(const struct diff_site *site)
{
  return site->base_verdict == DIFF_VERDICT_GROWING &&
         (site->verdict == DIFF_VERDICT_STEADY || site->verdict == DIFF_VERDICT_SHRINKING);
}

static void put_fixed_line(FILE *out, const struct report_fixed_marks *marks, const char *name,
                           const char *how, double base_growth)
{
  char growth[48], words[160];
  report_format_bytes(growth, sizeof growth, base_growth, 1);
  snprintf(words, sizeof words, "%s; %s per boundary in the base", how, growth);
  fputs(marks->open, out);
  marks->put(out, name);
  fputs(marks->name_close, out);
  marks->words(out, words);
  fputs(marks->close, out);
}

void report_put_fixed(FILE *out, const struct diff_result *r, const struct report_fixed_marks *marks)
{
  size_t n = r->mode == DIFF_MODE_BASE ? r->base_gone_count : 0;
  for (size_t i = 0; r->mode == DIFF_MODE_BASE && i < r->site_count; i++)
    n += (size_t)fixed_in_candidate(&r->sites[i]);
  if (!n)
    return;
  fprintf(out, "%sgrew in the base, not in the candidate (%zu):%s", marks->heading_open, n,
          marks->heading_close);
  for (size_t i = 0; i < r->site_count; i++)
    if (fixed_in_candidate(&r->sites[i]))
      put_fixed_line(out, marks, r->sites[i].name,
                     r->sites[i].verdict == DIFF_VERDICT_STEADY ? "steady in the candidate"
                                                                : "shrinking in the candidate",
                     r->sites[i].base_growth_bytes_per_segment);
  for (size_t i = 0; i < r->base_gone_count; i++)
    put_fixed_line(out, marks, r->base_gone[i].name, "absent from the candidate (fixed, or renamed)",
                   r->base_gone[i].growth_bytes_per_segment);
}
