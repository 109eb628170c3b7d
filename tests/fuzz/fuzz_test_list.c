/* tests/fuzz/fuzz_test_list.c: libFuzzer target: parse any bytes as ljleak busted's test list; an error names a byte inside the input, what parses is written back and reads back the same (a second rewrite gives the same bytes), and prefixes of it, as a killed run leaves them, keep their complete lines. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/test_list.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MUST(condition)                                                                  \
  do {                                                                                   \
    if (!(condition)) {                                                                  \
      fprintf(stderr, "fuzz_test_list: %s:%d: %s\n", __FILE__, __LINE__, #condition);    \
      abort();                                                                           \
    }                                                                                    \
  } while (0)

static int same_text(const char *a, const char *b)
{
  return (!a && !b) || (a && b && !strcmp(a, b));
}

/* b is a as the writer cuts it: whole when short, else a prefix within the limit. */
static int same_cut_text(const char *a, const char *b)
{
  if (!a || !b || strlen(a) <= TEST_LIST_MESSAGE_MAX)
    return same_text(a, b);
  size_t n = strlen(b);
  return n <= TEST_LIST_MESSAGE_MAX && !strncmp(a, b, n);
}

static void same_list(const struct test_list *a, const struct test_list *b)
{
  MUST(a->count == b->count);
  for (size_t i = 0; i < a->count; i++) {
    const struct test_list_test *s = &a->tests[i], *t = &b->tests[i];
    MUST(s->seq == t->seq && s->line == t->line && s->warmup == t->warmup && s->runs == t->runs);
    MUST(s->failed_run == t->failed_run);
    MUST(same_text(s->capture, t->capture) && same_text(s->file, t->file));
    MUST(same_text(s->describe, t->describe) && same_text(s->name, t->name));
    MUST(same_text(s->status, t->status));
    MUST(same_cut_text(s->message, t->message) && same_cut_text(s->capture_error, t->capture_error));
  }
}

/* The list written as the writer writes it; *ends gets each line's end. */
static char *rewrite(const struct test_list *list, size_t *size, size_t **ends)
{
  char *text = NULL;
  FILE *out = open_memstream(&text, size);
  MUST(out != NULL);
  *ends = malloc((list->count + 1) * sizeof **ends);
  MUST(*ends != NULL);
  MUST(test_list_write_header(out) == 0);
  MUST(fflush(out) == 0);
  (*ends)[0] = *size;
  for (size_t i = 0; i < list->count; i++) {
    MUST(test_list_write_test(out, &list->tests[i]) == 0);
    MUST(fflush(out) == 0);
    (*ends)[i + 1] = *size;
  }
  MUST(fclose(out) == 0);
  return text;
}

static int parse_copy(const char *data, size_t size, struct test_list *list, struct format_error *error)
{
  char *text = malloc(size + 1);
  MUST(text != NULL);
  if (size)
    memcpy(text, data, size);
  text[size] = '\0';
  int rc = test_list_parse(text, size, "fuzz", list, error);
  MUST(rc == 0 || error->status == FORMAT_BAD_INPUT);
  free(text);
  return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  struct test_list list;
  struct format_error error;
  if (parse_copy((const char *)data, size, &list, &error) != 0) {
    unsigned long long offset;
    MUST(sscanf(error.message, "fuzz: byte %llu:", &offset) == 1);
    MUST(offset < size && offset == error.offset);
    MUST(list.count == 0 && list.tests == NULL);
    return 0;
  }

  size_t written_size, *ends;
  char *written = rewrite(&list, &written_size, &ends);
  struct test_list again;
  MUST(parse_copy(written, written_size, &again, &error) == 0);
  same_list(&list, &again);
  size_t second_size, *second_ends;
  char *second = rewrite(&again, &second_size, &second_ends);
  MUST(second_size == written_size && !memcmp(second, written, written_size));

  /* Cut just before and at each line's end: the lines before it, whole. */
  for (size_t line = 0; line <= list.count; line++)
    for (size_t back = 0; back <= 1; back++) {
      size_t cut = ends[line] - back;
      struct test_list prefix;
      MUST(parse_copy(written, cut, &prefix, &error) == 0);
      size_t whole = line == 0 ? 0 : back ? line - 1 : line;
      MUST(prefix.count == whole);
      for (size_t i = 0; i < whole; i++)
        MUST(prefix.tests[i].seq == list.tests[i].seq && same_text(prefix.tests[i].name, list.tests[i].name));
      test_list_free(&prefix);
    }

  free(second);
  free(second_ends);
  free(written);
  free(ends);
  test_list_free(&again);
  test_list_free(&list);
  return 0;
}
