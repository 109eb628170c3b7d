/* report/render.c: the report stage's entry points: format names, dispatch, colour choice. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/common.h"

static const char *const format_names[] = {
    [REPORT_FORMAT_TEXT] = "text",   [REPORT_FORMAT_HTML] = "html",
    [REPORT_FORMAT_JSON] = "json",   [REPORT_FORMAT_JUNIT] = "junit",
    [REPORT_FORMAT_MARKDOWN] = "markdown", [REPORT_FORMAT_PPROF] = "pprof",
    [REPORT_FORMAT_FOLDED] = "folded"};

int report_format_parse(const char *name, enum report_format *format)
{
  for (size_t i = 0; i < sizeof format_names / sizeof format_names[0]; i++)
    if (name && !strcmp(name, format_names[i])) {
      *format = (enum report_format)i;
      return 0;
    }
  return -1;
}

int report_color_wanted(FILE *out)
{
  const char *no_color = getenv("NO_COLOR");
  if (no_color && no_color[0])
    return 0;
  int fd = fileno(out);
  return fd >= 0 && isatty(fd);
}

enum format_status report_render(const struct diff_result *result, enum report_format format,
                                 const struct report_options *options, FILE *out,
                                 struct format_error *error)
{
  static const struct report_options defaults = {0, NULL, 0, 0};
  if (!options)
    options = &defaults;
  format_error_clear(error);
  if (!result->facts.filled)  /* zeroed facts would read as a pass */
    return format_error_set(error, FORMAT_USAGE,
                            "the result's facts are not filled (diff_result_fill_facts)");
  int status;
  switch (format) {
  case REPORT_FORMAT_TEXT:
    status = report_render_text(result, options, out, error);
    break;
  case REPORT_FORMAT_HTML:
    status = report_render_html(result, options, out, error);
    break;
  case REPORT_FORMAT_JSON: {
    char reason[512];  /* the words of every format's inconclusive line */
    report_outcome_reason(result, reason, sizeof reason);
    diff_result_write_json(result, reason, out);
    status = 0;
    break;
  }
  case REPORT_FORMAT_JUNIT:
    status = report_render_junit(result, out, error);
    break;
  case REPORT_FORMAT_MARKDOWN:
    status = report_render_markdown(result, out, error);
    break;
  case REPORT_FORMAT_PPROF:
    status = report_render_pprof(result, options, out, error);
    break;
  case REPORT_FORMAT_FOLDED:
    status = report_render_folded(result, options, out, error);
    break;
  default:
    return format_error_set(error, FORMAT_USAGE, "unknown report format %d", (int)format);
  }
  if (status < 0)
    return error->status;
  if (fflush(out) != 0 || ferror(out)) {
    error->system_error = errno;
    return format_error_set(error, FORMAT_IO, "cannot write the report: %s",
                            errno ? strerror(errno) : "write error");
  }
  return FORMAT_OK;
}
