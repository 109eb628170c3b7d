/* report/folded.c: folded stacks ("root;...;leaf BYTES" a line, what flame graph tools read), and the stack rows that every stack format shares. */
#include <inttypes.h>
#include <string.h>

#include "format/utf8.h"
#include "report/common.h"

const struct diff_site *report_stack_rows(const struct diff_result *result, size_t *count)
{
  if (result->stack_count) {
    *count = result->stack_count;
    return result->stacks;
  }
  *count = result->site_count;
  return result->sites;
}

size_t report_stack_from(const struct diff_result *result)
{
  size_t boundaries = result->facts.boundaries;
  if (!boundaries)
    return 0;
  if (result->mode == DIFF_MODE_RANGE && result->options.range_from)
    return result->options.range_from;
  return result->options.warmup < boundaries ? result->options.warmup + 1 : 1;
}

int report_stack_boundaries(const struct diff_result *result, const struct report_options *options,
                            size_t *from, size_t *to, struct format_error *error)
{
  size_t boundaries = result->facts.boundaries;
  *from = *to = 0;
  if (options->boundary > boundaries) {
    format_error_set(error, FORMAT_USAGE, "--boundary %zu: the result has boundaries 1 to %zu",
             options->boundary, boundaries);
    return -1;
  }
  if (!boundaries)
    return 0;
  *to = options->boundary ? options->boundary : boundaries;
  *from = report_stack_from(result);
  if (*from > *to)
    *from = *to;
  return 0;
}

size_t report_site_stacks(const struct diff_result *result, const struct diff_site *site,
                          const struct diff_site **out, size_t max)
{
  size_t total = 0;
  for (size_t i = 0; i < result->stack_count; i++)
    if (result->stacks[i].site_id == site->id) {
      if (total < max)
        out[total] = &result->stacks[i];
      total++;
    }
  return total;
}

const char *report_stack_name(const struct diff_site *stack)
{
  return stack->frame_count ? stack->name : "(no stack recorded)";
}

/* A name as one folded line's stack, cleaned as its labels are (a saved
 * result's may not be): valid UTF-8, no newline, no control character; a
 * site's own name (a row without frames) has no ';' either. */
static void folded_put_name(FILE *out, const struct diff_site *row)
{
  char piece[UTF8_NAME_CHAR_MAX];
  size_t length = strlen(row->name), used;
  for (size_t i = 0; i < length; i += used)
    fwrite(piece, 1, utf8_name_char(piece, row->name + i, length - i, row->frame_count ? 0 : ';', &used),
           out);
}

int report_render_folded(const struct diff_result *result, const struct report_options *options,
                         FILE *out, struct format_error *error)
{
  size_t from, to, count;
  if (report_stack_boundaries(result, options, &from, &to, error) < 0)
    return -1;
  const struct diff_site *rows = report_stack_rows(result, &count);
  for (size_t i = 0; to && i < count; i++) {
    const struct diff_site *row = &rows[i];
    uint64_t at_to = report_live_at(row, to);
    uint64_t at_from = report_live_at(row, from);
    uint64_t value = options->growth ? (at_to > at_from ? at_to - at_from : 0) : at_to;
    if (!value)
      continue;  /* flame graph tools take positive counts only */
    folded_put_name(out, row);
    fprintf(out, " %" PRIu64 "\n", value);
  }
  return 0;
}
