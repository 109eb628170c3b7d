/* tests/fuzz/fuzz_values.c: libFuzzer target: read any bytes as a values sidecar; an error is inside the input and names it; what reads is written again and reads back the same, and its prefixes read as cut. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/snapshot_values.h"
#include "tests/bytes.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MUST(condition)                                                            \
  do {                                                                             \
    if (!(condition)) {                                                            \
      fprintf(stderr, "fuzz_values: %s:%d: %s\n", __FILE__, __LINE__, #condition); \
      abort();                                                                     \
    }                                                                              \
  } while (0)

/* Writes what v holds again: its strings and tables in address order, then END when it was
 * complete (so a cut file is written cut again). */
static struct bytes write_again(const struct snapshot_values *v)
{
  struct bytes out = {NULL, 0, 0};
  static uint8_t buffer[2 * SNAPSHOT_VALUES_RECORD_MAX];
  struct snapshot_values_writer w;
  snapshot_values_writer_init(&w, buffer, sizeof buffer, bytes_sink, &out);
  MUST(snapshot_values_writer_begin(&w, &v->capture) == 0);
  for (size_t i = 0; i < v->string_count; i++) {
    const struct snapshot_values_string *s = &v->strings[i];
    /* Only the bytes shown are there: the writer keeps min(length, cap) of them. */
    if (s->shown < s->length && s->shown < v->capture.shown)
      continue;  /* a record the writer would not have made; not written back */
    MUST(snapshot_values_writer_string(&w, s->address, s->text, s->length) == 0);
  }
  for (size_t i = 0; i < v->table_count; i++) {
    const struct snapshot_values_table *t = &v->tables[i];
    int whole = 1;
    for (uint32_t k = 0; k < t->key_count; k++) {
      const struct snapshot_values_key *key = &v->keys[t->first_key + k];  /* key_count > 0: keys != NULL */
      whole &= key->kind != SNAPSHOT_VALUES_KEY_STRING || key->shown == key->length || key->shown >= v->capture.shown;
    }
    if (!whole)
      continue;  /* as a string above */
    MUST(snapshot_values_writer_table(&w, t->address, t->entries, t->key_count ? &v->keys[t->first_key] : NULL,
                                      t->key_count) == 0);
  }
  if (v->complete)
    MUST(snapshot_values_writer_end(&w) == 0);
  else
    MUST(bytes_sink(&out, w.out.buffer, w.out.used) == 0);
  return out;
}

static int same_key(const struct snapshot_values_key *a, const struct snapshot_values_key *b, uint32_t cap)
{
  if (a->kind != b->kind)
    return 0;
  switch (a->kind) {
  case SNAPSHOT_VALUES_KEY_STRING: {
    uint32_t shown = a->shown < cap ? a->shown : cap;
    return a->length == b->length && b->shown == shown && !memcmp(a->text, b->text, shown);
  }
  case SNAPSHOT_VALUES_KEY_NUMBER:
    return !memcmp(&a->number, &b->number, sizeof a->number);
  case SNAPSHOT_VALUES_KEY_OBJECT:
    return a->type == b->type;
  default:
    return 1;
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  struct snapshot_values v;
  struct format_error e;
  enum format_status status = snapshot_values_read_memory(&v, data, size, "fuzz", &e);
  if (status != FORMAT_OK && status != FORMAT_CUT) {
    MUST(e.offset <= size);
    MUST(!strncmp(e.message, "fuzz: byte ", 11));
    MUST(v.strings == NULL && v.tables == NULL && v.keys == NULL && v.data == NULL);
    snapshot_values_free(&v);
    return 0;
  }
  MUST(e.offset <= size);
  MUST(status == FORMAT_OK ? v.complete : !v.complete);
  for (size_t i = 0; i < v.string_count; i++) {
    MUST(v.strings[i].shown <= v.strings[i].length);
    MUST(snapshot_values_find_string(&v, v.strings[i].address) == &v.strings[i]);
  }
  for (size_t i = 0; i < v.table_count; i++) {
    MUST(v.tables[i].first_key + v.tables[i].key_count <= v.key_count);
    MUST(snapshot_values_find_table(&v, v.tables[i].address) == &v.tables[i]);
  }
  /* Written again, it reads back the same (within the caps its CAPTURE record gives). */
  struct bytes again = write_again(&v);
  struct snapshot_values w;
  enum format_status back = snapshot_values_read_memory(&w, again.data, again.size, "again", &e);
  MUST(back == status);
  if (back == status) {
    MUST(w.table_count <= v.table_count && w.string_count <= v.string_count);
    for (size_t i = 0; i < w.table_count; i++) {
      const struct snapshot_values_table *b = &w.tables[i];
      const struct snapshot_values_table *a = snapshot_values_find_table(&v, b->address);
      MUST(a != NULL);
      uint32_t kept = a->key_count < v.capture.keys ? a->key_count : v.capture.keys;
      MUST(a->address == b->address && a->entries == b->entries && b->key_count == kept);
      for (uint32_t k = 0; k < kept; k++)
        MUST(same_key(&v.keys[a->first_key + k], &w.keys[b->first_key + k], v.capture.shown));
    }
    for (size_t i = 0; i < w.string_count; i++) {
      const struct snapshot_values_string *b = &w.strings[i];
      const struct snapshot_values_string *a = snapshot_values_find_string(&v, b->address);
      MUST(a && a->length == b->length && b->shown <= a->shown && !memcmp(a->text, b->text, b->shown));
    }
    /* Its prefixes read as cut, or (before CAPTURE is whole) as nothing. */
    for (size_t cut = 0; cut < again.size; cut += 1 + again.size / 64) {
      struct snapshot_values p;
      enum format_status s = snapshot_values_read_memory(&p, again.data, cut, "cut", &e);
      MUST(s == FORMAT_CUT || s == FORMAT_BAD_INPUT);
      MUST(e.offset <= cut);
      MUST(p.string_count <= w.string_count && p.table_count <= w.table_count);
      snapshot_values_free(&p);
    }
  }
  snapshot_values_free(&w);
  free(again.data);
  snapshot_values_free(&v);
  return 0;
}
