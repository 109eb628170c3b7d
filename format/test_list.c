/* format/test_list.c: the test list's one writer and one reader (format/test_list.h). */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "container/array.h"
#include "format/capture_index.h"
#include "format/key_value.h"
#include "format/test_list.h"
#include "format/whole_file.h"

static int put_text(FILE *out, const char *key, const char *value, size_t max)
{
  if (!value)
    return 0;
  size_t length = strlen(value);
  if (length > max) {
    length = max;
    while (length > 0 && ((unsigned char)value[length] & 0xc0) == 0x80)
      length--;  /* not inside a UTF-8 character */
  }
  char *cut = malloc(length + 1);
  char *escaped = malloc(2 * length + 1);
  int rc = -1;
  if (cut && escaped) {
    memcpy(cut, value, length);
    cut[length] = '\0';
    size_t used;
    capture_index_escape(escaped, 2 * length + 1, cut, &used);
    rc = fprintf(out, "\t%s=%s", key, escaped) < 0 ? -1 : 0;
  }
  free(cut);
  free(escaped);
  return rc;
}

int test_list_write_header(FILE *out)
{
  return fputs("ljleak-tests\tversion=1\n", out) < 0 ? -1 : 0;
}

int test_list_write_test(FILE *out, const struct test_list_test *t)
{
  int rc = fprintf(out, "test\tseq=%llu", (unsigned long long)t->seq) < 0 ? -1 : 0;
  rc |= put_text(out, "capture", t->capture, SIZE_MAX / 4);
  rc |= put_text(out, "file", t->file, SIZE_MAX / 4);
  if (fprintf(out, "\tline=%llu", (unsigned long long)t->line) < 0)
    rc = -1;
  rc |= put_text(out, "describe", t->describe, SIZE_MAX / 4);
  rc |= put_text(out, "name", t->name, SIZE_MAX / 4);
  rc |= put_text(out, "status", t->status, SIZE_MAX / 4);
  if (fprintf(out, "\twarmup=%llu\truns=%llu", (unsigned long long)t->warmup,
              (unsigned long long)t->runs) < 0)
    rc = -1;
  if (t->failed_run && fprintf(out, "\tfailed_run=%llu", (unsigned long long)t->failed_run) < 0)
    rc = -1;
  rc |= put_text(out, "capture_error", t->capture_error, TEST_LIST_MESSAGE_MAX);
  rc |= put_text(out, "message", t->message, TEST_LIST_MESSAGE_MAX);  /* last: the longest */
  if (fputc('\n', out) == EOF)
    rc = -1;
  return rc ? -1 : 0;
}

/* ---- The reader ---------------------------------------------------------- */

enum {
  HAS_SEQ = 1u << 0, HAS_CAPTURE = 1u << 1, HAS_FILE = 1u << 2, HAS_LINE = 1u << 3,
  HAS_DESCRIBE = 1u << 4, HAS_NAME = 1u << 5, HAS_STATUS = 1u << 6, HAS_MESSAGE = 1u << 7,
  HAS_WARMUP = 1u << 8, HAS_RUNS = 1u << 9, HAS_FAILED_RUN = 1u << 10, HAS_CAPTURE_ERROR = 1u << 11
};

/* As read, before the text is copied: values point into the input. */
struct raw_test {
  uint64_t seq, line, warmup, runs, failed_run;
  const char *capture, *file, *describe, *name, *status, *message, *capture_error;
};

#define KEY(member, bit, kind) {#member, bit, KEY_VALUE_##kind, offsetof(struct raw_test, member)}
static const struct key_value_key test_keys[] = {
  KEY(seq, HAS_SEQ, U64), KEY(capture, HAS_CAPTURE, TEXT), KEY(file, HAS_FILE, TEXT),
  KEY(line, HAS_LINE, U64), KEY(describe, HAS_DESCRIBE, TEXT), KEY(name, HAS_NAME, TEXT),
  KEY(status, HAS_STATUS, TEXT), KEY(message, HAS_MESSAGE, TEXT), KEY(warmup, HAS_WARMUP, U64),
  KEY(runs, HAS_RUNS, U64), KEY(failed_run, HAS_FAILED_RUN, U64),
  KEY(capture_error, HAS_CAPTURE_ERROR, TEXT),
};
#undef KEY

static int copy_text(char **to, const char *from)
{
  if (!from)
    return 0;
  *to = strdup(from);
  return *to ? 0 : -1;
}

static int parse_test(struct key_value_reader *reader, const struct key_value_line *line,
                      struct test_list *list, size_t *capacity)
{
  struct raw_test raw;
  memset(&raw, 0, sizeof raw);
  unsigned seen = 0;
  char *p = line->start + 4;  /* past "test" */
  char *end = line->start + line->length;
  while (p < end) {
    p++;  /* the tab */
    char *field_end = memchr(p, '\t', (size_t)(end - p));
    if (!field_end)
      field_end = end;
    *field_end = '\0';
    size_t length = (size_t)(field_end - p);
    if (length > 0) {
      struct key_value_field f;
      size_t offset = line->offset + (size_t)(p - line->start);
      if (key_value_split(p, length, offset, &f) != 0)
        return key_value_fail(reader, offset, "test line: a field without '='");
      const struct key_value_key *taken;
      if (key_value_take(reader, "test line: ", test_keys, sizeof test_keys / sizeof test_keys[0],
                         &raw, &seen, &f, &taken) != 0)
        return -1;
      if (taken && taken->kind == KEY_VALUE_TEXT && key_value_unescape(reader, "test line: ", &f) != 0)
        return -1;
    }
    p = field_end;
  }
  if (!(seen & HAS_SEQ) || !(seen & HAS_NAME) || !(seen & HAS_STATUS))
    return key_value_fail(reader, line->offset, "test line: without %s",
                          !(seen & HAS_SEQ) ? "seq" : !(seen & HAS_NAME) ? "name" : "status");
  if (raw.capture && (!*raw.capture || strchr(raw.capture, '/') || !strcmp(raw.capture, "..") ||
                      !strcmp(raw.capture, ".")))
    return key_value_fail(reader, line->offset, "test line: capture is no name in the suite's directory");
  if (array_reserve((void **)&list->tests, capacity, list->count + 1, sizeof *list->tests) != 0)
    return key_value_no_memory(reader);
  struct test_list_test *t = &list->tests[list->count];
  memset(t, 0, sizeof *t);
  list->count++;
  t->seq = raw.seq;
  t->line = raw.line;
  t->warmup = raw.warmup;
  t->runs = raw.runs;
  t->failed_run = raw.failed_run;
  if (copy_text(&t->capture, raw.capture) || copy_text(&t->file, raw.file) ||
      copy_text(&t->describe, raw.describe) || copy_text(&t->name, raw.name) ||
      copy_text(&t->status, raw.status) || copy_text(&t->message, raw.message) ||
      copy_text(&t->capture_error, raw.capture_error))
    return key_value_no_memory(reader);
  return 0;
}

int test_list_parse(char *text, size_t size, const char *name, struct test_list *list,
                    struct format_error *error)
{
  memset(list, 0, sizeof *list);
  format_error_clear(error);
  struct key_value_reader reader;
  key_value_reader_in_place(&reader, text, size, name, error);
  if (memchr(text, '\0', size))
    return key_value_fail(&reader, (size_t)((char *)memchr(text, '\0', size) - text), "a NUL byte");
  struct key_value_line line;
  size_t capacity = 0;
  int header = 0;
  while (key_value_next_line(&reader, &line)) {
    if (line.cut)
      break;  /* written while the run was killed: dropped */
    size_t kind = strcspn(line.start, "\t");
    if (!header) {
      if (kind != 12 || memcmp(line.start, "ljleak-tests", 12) != 0) {
        key_value_fail(&reader, line.offset, "not a test list (no ljleak-tests line first)");
        goto fail;
      }
      header = 1;
      continue;
    }
    if (kind == 4 && !memcmp(line.start, "test", 4) && parse_test(&reader, &line, list, &capacity) != 0)
      goto fail;
  }
  return 0;
fail:
  test_list_free(list);
  return -1;
}

int test_list_read(const char *path, struct test_list *list, struct format_error *error)
{
  char *data = NULL;
  size_t size = 0;
  memset(list, 0, sizeof *list);
  if (whole_file_read(path, INPUT_FILE_FOUND, &data, &size, error) != FORMAT_OK)
    return -1;
  int rc = test_list_parse(data, size, path, list, error);
  free(data);
  return rc;
}

void test_list_free(struct test_list *list)
{
  for (size_t i = 0; i < list->count; i++) {
    struct test_list_test *t = &list->tests[i];
    free(t->capture);
    free(t->file);
    free(t->describe);
    free(t->name);
    free(t->status);
    free(t->message);
    free(t->capture_error);
  }
  free(list->tests);
  memset(list, 0, sizeof *list);
}
