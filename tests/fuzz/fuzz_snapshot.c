/* tests/fuzz/fuzz_snapshot.c: libFuzzer target: read any bytes as a heap snapshot; an error names the input and a byte inside it; what reads is written again and reads back the same, and every prefix of that reads as cut, keeping a part of it. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/snapshot.h"
#include "tests/bytes.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MUST(condition)                                                                  \
  do {                                                                                   \
    if (!(condition)) {                                                                  \
      fprintf(stderr, "fuzz_snapshot: %s:%d: %s\n", __FILE__, __LINE__, #condition);     \
      abort();                                                                           \
    }                                                                                    \
  } while (0)

#define CAPACITY 4096  /* small chunks: continued references happen on small inputs */

/* Writes s again: its strings, its objects in address order, its roots. */
static struct bytes rewrite(const struct snapshot *s)
{
  struct bytes out = {NULL, 0, 0};
  static uint8_t buffer[2 * CAPACITY];
  struct snapshot_writer w;
  snapshot_writer_init(&w, buffer, buffer + CAPACITY, CAPACITY, bytes_sink, &out);
  MUST(snapshot_writer_begin(&w, &s->capture) == 0);
  for (uint32_t i = 1; i <= s->string_count; i++)
    MUST(snapshot_writer_string(&w, s->strings[i], strlen(s->strings[i])) == i);
  for (size_t i = 0; i < s->object_count; i++) {
    const struct snapshot_object *o = &s->objects[i];
    struct snapshot_wire_object wire = {o->type, o->flags, o->address, o->size, snapshot_object_count(s, o), o->name,
                                        s->blocks + o->first_block, o->block_count};
    MUST(snapshot_writer_object(&w, &wire) == 0);
    for (size_t r = 0; r < o->reference_count; r++) {
      const struct snapshot_reference *ref = &s->references[o->first_reference + r];
      MUST(snapshot_writer_reference(&w, ref->kind, ref->weak, ref->kind == SNAPSHOT_REF_INDEX ? 0 : ref->text,
                                   snapshot_reference_index(s, ref), snapshot_reference_target(s, ref)) == 0);
    }
  }
  for (size_t i = 0; i < s->root_count; i++)
    MUST(snapshot_writer_root(&w, s->roots[i].text, s->roots[i].weak, s->roots[i].target) == 0);
  MUST(snapshot_writer_end(&w) == 0);
  return out;
}

static void must_equal(const struct snapshot *a, const struct snapshot *b)
{
  MUST(!memcmp(&a->capture, &b->capture, sizeof a->capture));
  MUST(a->object_count == b->object_count && a->reference_count == b->reference_count);
  MUST(a->root_count == b->root_count && a->string_count == b->string_count);
  MUST(a->object_bytes == b->object_bytes);
  for (uint32_t i = 1; i <= a->string_count; i++)
    MUST(!strcmp(a->strings[i], b->strings[i]));
  for (size_t i = 0; i < a->object_count; i++) {
    const struct snapshot_object *x = &a->objects[i], *y = &b->objects[i];
    MUST(x->address == y->address && x->size == y->size && snapshot_object_count(a, x) == snapshot_object_count(b, y));
    MUST(x->type == y->type && x->flags == y->flags && x->name == y->name);
    MUST(x->block_count == y->block_count && x->reference_count == y->reference_count);
    MUST(snapshot_find(b, x->address) == y);
    MUST(snapshot_find_block(b, x->address) != NULL);
    for (uint32_t k = 0; k < x->block_count; k++)
      MUST(!memcmp(&a->blocks[x->first_block + k], &b->blocks[y->first_block + k], sizeof *a->blocks));
    for (size_t r = 0; r < x->reference_count; r++) {
      const struct snapshot_reference *p = &a->references[x->first_reference + r];
      const struct snapshot_reference *q = &b->references[y->first_reference + r];
      MUST(snapshot_reference_target(a, p) == snapshot_reference_target(b, q) && p->kind == q->kind &&
           p->weak == q->weak);
      MUST(p->text == q->text && snapshot_reference_index(a, p) == snapshot_reference_index(b, q));
      char one[256], two[256];
      MUST(!strcmp(snapshot_label(a, p, one, sizeof one), snapshot_label(b, q, two, sizeof two)));
    }
  }
  for (size_t i = 0; i < a->root_count; i++)
    MUST(!memcmp(&a->roots[i], &b->roots[i], sizeof a->roots[i]));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  struct snapshot s;
  struct format_error e;
  enum format_status st = snapshot_read_memory(&s, data, size, "fuzz.heap", &e);
  if (st != FORMAT_OK) {
    MUST(!strncmp(e.message, "fuzz.heap: byte ", 16));
    MUST(e.offset <= size);
  }
  if (st != FORMAT_OK && st != FORMAT_CUT) {
    MUST(s.object_count == 0 && s.objects == NULL);
    snapshot_free(&s);
    return 0;
  }
  int writable = 1;  /* the writer cuts long labels: such an input does not come back the same */
  for (uint32_t i = 1; i <= s.string_count; i++)
    writable &= strlen(s.strings[i]) <= SNAPSHOT_LABEL_MAX;
  if (writable) {
    struct bytes again = rewrite(&s);
    struct snapshot t;
    MUST(snapshot_read_memory(&t, again.data, again.size, "again.heap", &e) == FORMAT_OK);
    must_equal(&s, &t);
    /* A few prefixes of it: cut, a part kept. */
    for (size_t cut = again.size / 2; cut < again.size; cut += 1 + again.size / 7) {
      struct snapshot u;
      enum format_status cs = snapshot_read_memory(&u, again.data, cut, "again.heap", &e);
      MUST(cs == FORMAT_CUT || cs == FORMAT_BAD_INPUT);
      MUST(u.object_count <= t.object_count && u.reference_count <= t.reference_count);
      snapshot_free(&u);
    }
    snapshot_free(&t);
    free(again.data);
  }
  snapshot_free(&s);
  return 0;
}
