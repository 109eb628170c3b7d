/* tests/report_golden.h: the report suites' golden files: read one, compare a rendering with it, or rewrite it (LJLEAK_UPDATE_GOLDEN=1). */
#ifndef LJLEAK_TESTS_REPORT_GOLDEN_H
#define LJLEAK_TESTS_REPORT_GOLDEN_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GOLDEN_DIR "testdata/report/"

static inline char *read_file(const char *path)
{
  FILE *in = fopen(path, "rb");
  if (!in)
    return NULL;
  char *text = NULL;
  size_t size = 0;
  FILE *out = open_memstream(&text, &size);
  char buffer[4096];
  size_t n;
  while ((n = fread(buffer, 1, sizeof buffer, in)) > 0)
    fwrite(buffer, 1, n, out);
  fclose(in);
  fclose(out);
  return text;
}

/* Compares text with a golden file (or rewrites it when asked). */
static inline void check_golden(const char *text, const char *name)
{
  char path[256];
  snprintf(path, sizeof path, GOLDEN_DIR "%s", name);
  const char *update = getenv("LJLEAK_UPDATE_GOLDEN");
  if (update && update[0] == '1') {
    FILE *out = fopen(path, "wb");
    ck_assert_ptr_nonnull(out);
    fputs(text, out);
    fclose(out);
  }
  char *golden = read_file(path);
  ck_assert_msg(golden != NULL, "missing golden file %s", path);
  if (strcmp(golden, text) != 0) {
    char actual[300];
    snprintf(actual, sizeof actual, "%s.actual", path);
    FILE *out = fopen(actual, "wb");
    if (out) {
      fputs(text, out);
      fclose(out);
    }
  }
  ck_assert_msg(strcmp(golden, text) == 0, "%s differs (see %s.actual)", path, path);
  free(golden);
}

#endif
