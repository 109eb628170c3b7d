/* tests/fuzz/fuzz_report_json.c: libFuzzer target of the JSON result reader: any input is
 * read or refused cleanly; what is read renders in every format and its JSON reads back
 * to the same bytes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

static char *render(const struct diff_result *result, enum report_format format)
{
  char *text = NULL;
  struct format_error error;
  size_t length = 0;
  FILE *out = open_memstream(&text, &length);
  struct report_options options = {format == REPORT_FORMAT_TEXT, "no/such/root", 0, 0};
  if (!out)
    abort();
  if (report_render(result, format, &options, out, &error) != 0)
    abort();
  fclose(out);
  return text;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
  struct diff_result result;
  struct format_error error;
  if (diff_result_read_json_text("fuzz.json", (const char *)data, size, &result, &error) != 0) {
    if (strncmp(error.message, "fuzz.json: ", 11) != 0)
      abort();  /* every error names the input */
    return 0;
  }
  for (int format = REPORT_FORMAT_TEXT; format <= REPORT_FORMAT_FOLDED; format++)
    if (format != REPORT_FORMAT_JSON)
      free(render(&result, (enum report_format)format));
  char *json = render(&result, REPORT_FORMAT_JSON);
  struct diff_result again;
  if (diff_result_read_json_text("again.json", json, strlen(json), &again, &error) != 0)
    abort();  /* our own output must read back */
  char *json_again = render(&again, REPORT_FORMAT_JSON);
  if (strcmp(json, json_again) != 0)
    abort();  /* and render to the same bytes */
  free(json);
  free(json_again);
  diff_result_free(&again);
  diff_result_free(&result);
  return 0;
}
