/* tests/fuzz/fuzz_merge.c: libFuzzer target of the merge's input reader: any input is read
 * (a diff result or a merge) or refused cleanly, naming it; what is read is finished,
 * renders in every format, and its JSON reads back to the same bytes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "merge/merge.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

static char *render(const struct merge *merge, enum merge_format format)
{
  char *text = NULL;
  struct format_error error;
  size_t length = 0;
  FILE *out = open_memstream(&text, &length);
  if (!out)
    abort();
  if (merge_render(merge, format, out, &error) != 0)
    abort();
  fclose(out);
  return text;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
  struct merge merge;
  struct format_error err;
  merge_init(&merge);
  enum format_status status = merge_add_text(&merge, "fuzz.json", (const char *)data, size, &err);
  if (status == FORMAT_OK)
    status = merge_finish(&merge, 1 + size % 3, &err);
  if (status != FORMAT_OK) {
    if (status == FORMAT_BAD_INPUT && !strstr(err.message, "fuzz.json"))
      abort();  /* every input error names the input */
    merge_free(&merge);
    return 0;
  }
  for (int format = MERGE_FORMAT_TEXT; format <= MERGE_FORMAT_JUNIT; format++)
    if (format != MERGE_FORMAT_JSON)
      free(render(&merge, (enum merge_format)format));
  char *json = render(&merge, MERGE_FORMAT_JSON);
  struct merge again;
  merge_init(&again);
  if (merge_add_text(&again, "again.json", json, strlen(json), &err) != FORMAT_OK ||
      merge_finish(&again, merge.min_captures, &err) != FORMAT_OK)
    abort();  /* our own output must read back */
  char *json_again = render(&again, MERGE_FORMAT_JSON);
  if (strcmp(json, json_again) != 0)
    abort();  /* and render to the same bytes */
  free(json);
  free(json_again);
  merge_free(&again);
  merge_free(&merge);
  return 0;
}
