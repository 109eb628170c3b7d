/* tests/fuzz/fuzz_control.c: libFuzzer target: parse any bytes as a registration and as a request; an error is inside the input, what parses is written back and reads back the same (a second rewrite gives the same bytes), and prefixes of a registration read too. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/control_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MUST(condition)                                                                  \
  do {                                                                                   \
    if (!(condition)) {                                                                  \
      fprintf(stderr, "fuzz_control: %s:%d: %s\n", __FILE__, __LINE__, #condition);      \
      abort();                                                                           \
    }                                                                                    \
  } while (0)

/* A value as the writer gives it back: a carriage return becomes '?'. */
static int same_value(const char *original, const char *back)
{
  if (!original)
    return 1;
  MUST(back != NULL);
  for (; *original; original++, back++) {
    char expected = *original == '\r' ? '?' : *original;
    if (*back != expected)
      return 0;
  }
  return *back == '\0';
}

static void registration_round_trip(const char *text, size_t size)
{
  struct control_file_registration r, back;
  struct format_error error;
  enum format_status status = control_file_parse_registration(&r, text, size, "fuzz", &error);
  if (status != FORMAT_OK) {
    MUST(status == FORMAT_BAD_INPUT);
    MUST(error.offset <= size);
    MUST(!strncmp(error.message, "fuzz: byte ", 11));
    MUST(r.text == NULL);
    return;
  }
  MUST(r.last_line_cut == (size > 0 && text[size - 1] != '\n'));
  if (!r.has_header) {
    MUST(r.keys == 0);
    control_file_registration_free(&r);
    return;
  }
  /* Room for every value (at most the input) and the keys and numbers. */
  size_t capacity = size + 1024;
  char *written = malloc(capacity), *twice = malloc(capacity);
  MUST(written && twice);
  size_t n = control_file_write_registration(written, capacity, &r);
  MUST(n > 0 && n < capacity - 1 && written[n - 1] == '\n');
  MUST(control_file_parse_registration(&back, written, n, "rewrite", &error) == FORMAT_OK);
  MUST(back.has_header && back.version == CONTROL_FILE_VERSION && !back.last_line_cut);
  MUST(back.keys == (1u << 14) - 1);
  MUST(!(r.keys & CONTROL_FILE_HAS_PID) || r.pid == back.pid);
  MUST(!(r.keys & CONTROL_FILE_HAS_PPID) || r.ppid == back.ppid);
  MUST(!(r.keys & CONTROL_FILE_HAS_UID) || r.uid == back.uid);
  MUST(!(r.keys & CONTROL_FILE_HAS_STARTED) || r.started == back.started);
  MUST(same_value(r.exe, back.exe) && same_value(r.luajit, back.luajit));
  MUST(same_value(r.poll, back.poll) && same_value(r.request_file, back.request_file));
  MUST(same_value(r.root, back.root) && same_value(r.state, back.state));
  MUST(same_value(r.dir, back.dir) && same_value(r.request, back.request));
  MUST(same_value(r.result, back.result) && same_value(r.error, back.error));
  MUST(control_file_write_registration(twice, capacity, &back) == n && !memcmp(twice, written, n));
  /* Prefixes: a copy made while a writer wrote (not the collector's rename). */
  size_t cuts[3] = {size / 2, size - 1, (size_t)(unsigned char)text[0] * size / 256};
  for (int i = 0; i < 3; i++) {
    struct control_file_registration prefix;
    MUST(control_file_parse_registration(&prefix, text, cuts[i], "prefix", &error) == FORMAT_OK);
    MUST((prefix.keys & ~r.keys) == 0);
    control_file_registration_free(&prefix);
  }
  /* A buffer too small: cut, the cut line without its newline: each key read back has its
   * whole value, and the cut line is dropped. */
  size_t small = (size_t)(unsigned char)text[size - 1] % 64 + 2;
  n = control_file_write_registration(twice, small < capacity ? small : capacity, &r);
  MUST(n > 0 && strlen(twice) == n);
  struct control_file_registration cut;
  MUST(control_file_parse_registration(&cut, twice, n, "cut", &error) == FORMAT_OK);
  MUST(cut.last_line_cut == (twice[n - 1] != '\n'));
  MUST(!(cut.keys & CONTROL_FILE_HAS_PID) || cut.pid == back.pid);
  MUST(!(cut.keys & CONTROL_FILE_HAS_PPID) || cut.ppid == back.ppid);
  MUST(!(cut.keys & CONTROL_FILE_HAS_EXE) || same_value(back.exe, cut.exe));
  control_file_registration_free(&cut);
  free(written);
  free(twice);
  control_file_registration_free(&back);
  control_file_registration_free(&r);
}

/* What a request's option lines were, in order. */
struct options {
  const char *lines[CONTROL_FILE_REQUEST_MAX];
  char storage[2 * CONTROL_FILE_REQUEST_MAX + 2];
  size_t count, used;
  int empty_key;
};

static int take_option(void *context, const char *key, char *value, char *message, size_t size)
{
  struct options *o = context;
  if (!strcmp(key, "fail")) {
    snprintf(message, size, "unknown option '%s' in the request", key);
    return -1;
  }
  MUST(strchr(key, '=') == NULL && strchr(key, '\n') == NULL && strchr(value, '\n') == NULL);
  o->empty_key |= *key == '\0';
  int n = snprintf(o->storage + o->used, sizeof o->storage - o->used, "%s=%s", key, value);
  MUST(n >= 0 && (size_t)n < sizeof o->storage - o->used);
  o->lines[o->count++] = o->storage + o->used;
  o->used += (size_t)n + 1;
  return 0;
}

static void request_round_trip(const char *data, size_t size)
{
  static char text[CONTROL_FILE_REQUEST_MAX + 1], written[CONTROL_FILE_REQUEST_MAX + 1];
  static struct options first, second;
  size_t n = size < CONTROL_FILE_REQUEST_MAX ? size : CONTROL_FILE_REQUEST_MAX;
  memcpy(text, data, n);
  text[n] = '\0';
  memset(&first, 0, sizeof first);
  struct control_file_request rq;
  struct format_error error;
  enum format_status status = control_file_parse_request(text, &rq, take_option, &first, &error);
  if (status != FORMAT_OK) {
    MUST(status == FORMAT_BAD_INPUT && error.offset <= n && error.message[0] != '\0');
    return;
  }
  MUST(!strcmp(rq.action, "start") || !strcmp(rq.action, "stop"));
  if (first.empty_key)
    return;   /* the collector calls it an unknown option; the writer refuses it */
  rq.options = first.lines;
  rq.option_count = first.count;
  size_t length = control_file_write_request(written, sizeof written, &rq, &error);
  if (!length) {
    MUST(error.status == FORMAT_UNWRITABLE && strstr(error.message, "longer than"));
    return;
  }
  const char *id = rq.id, *action = rq.action;
  char copy[CONTROL_FILE_REQUEST_MAX + 1];
  memcpy(copy, written, length + 1);
  memset(&second, 0, sizeof second);
  struct control_file_request back;
  MUST(control_file_parse_request(copy, &back, take_option, &second, &error) == FORMAT_OK);
  MUST((id == NULL) == (back.id == NULL) && (!id || !strcmp(id, back.id)));
  MUST(!strcmp(action, back.action));
  MUST(second.count == first.count);
  for (size_t i = 0; i < first.count; i++)
    MUST(!strcmp(first.lines[i], second.lines[i]));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  const char *text = (const char *)data;
  if (size == 0) {
    registration_round_trip(text, 0);
    return 0;
  }
  registration_round_trip(text, size);
  request_round_trip(text, size);
  return 0;
}
