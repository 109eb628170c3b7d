/* tests/test_format_snapshot.c: the heap snapshot's encoder and decoder: round trips, lookups by address and by owned block, labels, references continued across chunks, every cut, versions, another capture's snapshot, bad input with file and offset. */
#include <check.h>
#include <inttypes.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/snapshot.h"
#include "tests/bytes.h"
#include "tests/check_run.h"

static const struct snapshot_capture sample_capture = {4242, 1763745600125, 3, 1, 61020, 1763745605310, 1720320,
                                                       SNAPSHOT_CAPTURE_JIT};

/* The sample: a weak-valued table at 0x10000 with an array part and a hash part, holding a
 * string under "tokens", a table at [3], a function under a table key and that key; the string;
 * the inner table with a metatable; the function, named; a table with `many` references (more
 * than a small chunk holds). Roots: the registry (the first table) and a weak trace root. */
static struct bytes write_sample(size_t capacity, uint32_t many, int end)
{
  struct bytes out = {NULL, 0, 0};
  uint8_t *buffer = malloc(2 * capacity);
  struct snapshot_writer w;
  snapshot_writer_init(&w, buffer, buffer + capacity, capacity, bytes_sink, &out);
  ck_assert_int_eq(snapshot_writer_begin(&w, &sample_capture), 0);
  uint32_t tokens = snapshot_writer_string(&w, "tokens", 6);
  uint32_t table_key = snapshot_writer_string(&w, "[table]", 7);
  uint32_t metatable = snapshot_writer_string(&w, "metatable", 9);
  uint32_t name = snapshot_writer_string(&w, "function@app.lua:3", 18);
  uint32_t registry = snapshot_writer_string(&w, "registry", 8);
  uint32_t trace = snapshot_writer_string(&w, "trace 1", 7);
  ck_assert_uint_eq(tokens, 1);
  ck_assert_uint_eq(trace, 6);
  struct snapshot_block blocks[] = {{0x20000, 64}, {0x30000, 128}};
  struct snapshot_wire_object outer = {SNAPSHOT_TABLE, SNAPSHOT_FLAG_WEAK_VALUES, 0x10000, 56, 4, 0, blocks, 2};
  ck_assert_int_eq(snapshot_writer_object(&w, &outer), 0);
  ck_assert_int_eq(snapshot_writer_reference(&w, SNAPSHOT_REF_FIELD, 1, tokens, 0, 0x50000), 0);
  ck_assert_int_eq(snapshot_writer_reference(&w, SNAPSHOT_REF_INDEX, 1, 0, 3, 0x60000), 0);
  ck_assert_int_eq(snapshot_writer_reference(&w, SNAPSHOT_REF_KEYED, 1, table_key, 0, 0x70000), 0);
  ck_assert_int_eq(snapshot_writer_reference(&w, SNAPSHOT_REF_KEY, 0, table_key, 0, 0x8000), 0);
  struct snapshot_wire_object text = {SNAPSHOT_STRING, 0, 0x50000, 30, 5, 0, NULL, 0};
  ck_assert_int_eq(snapshot_writer_object(&w, &text), 0);
  struct snapshot_wire_object inner = {SNAPSHOT_TABLE, 0, 0x60000, 56, 0, 0, NULL, 0};
  ck_assert_int_eq(snapshot_writer_object(&w, &inner), 0);
  ck_assert_int_eq(snapshot_writer_reference(&w, SNAPSHOT_REF_OTHER, 0, metatable, 0, 0x8000), 0);
  struct snapshot_wire_object fn = {SNAPSHOT_LUA_FUNCTION, 0, 0x70000, 40, 1, name, NULL, 0};
  ck_assert_int_eq(snapshot_writer_object(&w, &fn), 0);
  struct snapshot_wire_object key = {SNAPSHOT_TABLE, 0, 0x8000, 56, many, 0, NULL, 0};
  ck_assert_int_eq(snapshot_writer_object(&w, &key), 0);
  for (uint32_t i = 0; i < many; i++)
    ck_assert_int_eq(snapshot_writer_reference(&w, SNAPSHOT_REF_INDEX, 0, 0, (int64_t)i - 1, 0x50000), 0);
  ck_assert_int_eq(snapshot_writer_root(&w, registry, 0, 0x10000), 0);
  ck_assert_int_eq(snapshot_writer_root(&w, trace, 1, 0x90000), 0);
  if (end)
    ck_assert_int_eq(snapshot_writer_end(&w), 0);
  free(buffer);
  return out;
}

static const struct snapshot_object *must_find(const struct snapshot *s, uint64_t address)
{
  const struct snapshot_object *o = snapshot_find(s, address);
  ck_assert_ptr_nonnull(o);
  return o;
}

START_TEST(test_round_trip_objects_references_roots)
{
  struct bytes b = write_sample(SNAPSHOT_WRITER_MIN_CAPACITY, 3, 1);
  struct snapshot s;
  struct format_error e;
  ck_assert_int_eq(snapshot_read_memory(&s, b.data, b.size, "sample.heap", &e), FORMAT_OK);
  ck_assert_int_eq(s.complete, 1);
  ck_assert_uint_eq(s.capture.pid, 4242);
  ck_assert_uint_eq(s.capture.start_ms, 1763745600125);
  ck_assert_uint_eq(s.capture.boundary, 3);
  ck_assert_uint_eq(s.capture.events, 61020);
  ck_assert_uint_eq(s.object_count, 5);
  ck_assert_uint_eq(s.reference_count, 8);
  ck_assert_uint_eq(s.root_count, 2);
  ck_assert_uint_eq(s.object_bytes, 56 + 64 + 128 + 30 + 56 + 40 + 56);
  /* By address, in address order. */
  ck_assert_uint_eq(s.objects[0].address, 0x8000);
  ck_assert_uint_eq(s.objects[4].address, 0x70000);
  const struct snapshot_object *outer = must_find(&s, 0x10000);
  ck_assert_int_eq(outer->type, SNAPSHOT_TABLE);
  ck_assert_uint_eq(outer->flags, SNAPSHOT_FLAG_WEAK_VALUES);
  ck_assert_uint_eq(outer->count, 4);
  ck_assert_uint_eq(outer->block_count, 2);
  ck_assert_uint_eq(s.blocks[outer->first_block + 1].address, 0x30000);
  ck_assert_uint_eq(s.blocks[outer->first_block + 1].size, 128);
  ck_assert_ptr_null(snapshot_find(&s, 0x10001));
  /* A block of the event stream finds its owner. */
  ck_assert_ptr_eq(snapshot_find_block(&s, 0x30000), outer);
  ck_assert_ptr_eq(snapshot_find_block(&s, 0x10000), outer);
  ck_assert_ptr_eq(snapshot_find_block(&s, 0x50000), must_find(&s, 0x50000));
  ck_assert_ptr_null(snapshot_find_block(&s, 0x30008));
  char label[64];
  const char *expected[] = {"tokens", "[3]", "[table]", "key [table]"};
  const uint64_t targets[] = {0x50000, 0x60000, 0x70000, 0x8000};
  const int weak[] = {1, 1, 1, 0};
  ck_assert_uint_eq(outer->reference_count, 4);
  for (int i = 0; i < 4; i++) {
    const struct snapshot_reference *r = &s.references[outer->first_reference + (size_t)i];
    ck_assert_str_eq(snapshot_label(&s, r, label, sizeof label), expected[i]);
    ck_assert_uint_eq(snapshot_reference_target(&s, r), targets[i]);
    ck_assert_int_eq(r->weak, weak[i]);
  }
  const struct snapshot_object *key = must_find(&s, 0x8000);
  ck_assert_str_eq(snapshot_label(&s, &s.references[key->first_reference], label, sizeof label), "[-1]");
  ck_assert_str_eq(snapshot_string(&s, must_find(&s, 0x70000)->name), "function@app.lua:3");
  ck_assert_str_eq(snapshot_type_name(must_find(&s, 0x70000)->type), "function");
  ck_assert_str_eq(snapshot_string(&s, s.roots[0].text), "registry");
  ck_assert_uint_eq(s.roots[0].target, 0x10000);
  ck_assert_int_eq(s.roots[1].weak, 1);
  snapshot_free(&s);
  free(b.data);
}
END_TEST

/* Objects whose addresses span 2^63 bytes or more (a made-up file: no heap does): each is
 * still found by its address, with one lookup bucket or with several. */
/* A writer of a small chunk size into out, its capture begun; its buffer, for free(). */
static uint8_t *begin_small(struct snapshot_writer *w, struct bytes *out)
{
  uint8_t *buffer = malloc(2 * SNAPSHOT_WRITER_MIN_CAPACITY);
  snapshot_writer_init(w, buffer, buffer + SNAPSHOT_WRITER_MIN_CAPACITY, SNAPSHOT_WRITER_MIN_CAPACITY,
                       bytes_sink, out);
  ck_assert_int_eq(snapshot_writer_begin(w, &sample_capture), 0);
  return buffer;
}

START_TEST(test_objects_spanning_half_the_address_space_are_found)
{
  static const uint64_t spans[][4] = {
    {0x10, UINT64_C(0x8000000000000010), 0, 0},
    {1, UINT64_C(0x4000000000000000), UINT64_C(0xc000000000000000), UINT64_MAX},
  };
  static const size_t counts[] = {2, 4};
  for (int t = 0; t < 2; t++) {
    struct bytes out = {NULL, 0, 0};
    struct snapshot_writer w;
    uint8_t *buffer = begin_small(&w, &out);
    for (size_t i = 0; i < counts[t]; i++) {
      struct snapshot_wire_object o = {SNAPSHOT_TABLE, 0, spans[t][i], 56, 0, 0, NULL, 0};
      ck_assert_int_eq(snapshot_writer_object(&w, &o), 0);
    }
    ck_assert_int_eq(snapshot_writer_end(&w), 0);
    free(buffer);
    struct snapshot s;
    struct format_error e;
    ck_assert_int_eq(snapshot_read_memory(&s, out.data, out.size, "span.heap", &e), FORMAT_OK);
    ck_assert_uint_eq(s.object_count, counts[t]);
    for (size_t i = 0; i < counts[t]; i++)
      ck_assert_uint_eq(must_find(&s, spans[t][i])->address, spans[t][i]);
    ck_assert_ptr_null(snapshot_find(&s, spans[t][0] + 8));
    snapshot_free(&s);
    free(out.data);
  }
}
END_TEST

/* A snapshot of objects at addresses (the last at the first's address again when dup), the
 * first referring to each target. */
static struct bytes write_targets(const uint64_t *addresses, size_t count, const uint64_t *targets,
                                  size_t target_count, int dup)
{
  struct bytes out = {NULL, 0, 0};
  struct snapshot_writer w;
  uint8_t *buffer = begin_small(&w, &out);
  uint32_t field = snapshot_writer_string(&w, "to", 2);
  for (size_t i = 0; i < count + (dup != 0); i++) {
    struct snapshot_wire_object o = {SNAPSHOT_TABLE, 0, addresses[i < count ? i : 0], 56, 0, 0, NULL, 0};
    ck_assert_int_eq(snapshot_writer_object(&w, &o), 0);
    for (size_t t = 0; i == 0 && t < target_count; t++)
      ck_assert_int_eq(snapshot_writer_reference(&w, SNAPSHOT_REF_FIELD, 0, field, 0, targets[t]), 0);
  }
  ck_assert_int_eq(snapshot_writer_end(&w), 0);
  free(buffer);
  return out;
}

/* References find their objects, and no object where there is none (below the lowest, above
 * the highest, between two objects, off the objects' common alignment), whether the objects lie
 * within 2^32 steps of their alignment (looked up before they are put in order) or not; and a
 * second object at one address is named with its record's offset either way. */
START_TEST(test_references_find_objects_near_and_far)
{
  static const uint64_t near[] = {UINT64_C(0x7f0000001040), UINT64_C(0x7f0000001000), UINT64_C(0x7f0000001010),
                                  UINT64_C(0x7f0000081000)};
  static const uint64_t far[] = {0x1040, UINT64_C(0x7f0000001000), 0x1010, UINT64_C(1) << 62};
  const uint64_t *layouts[] = {near, far};
  for (int l = 0; l < 2; l++) {
    const uint64_t *a = layouts[l];
    uint64_t targets[] = {a[0], a[1], a[2], a[3], a[1] + 8, a[1] + 0x20, a[1] - 0x10, a[3] + 0x10, 0, UINT64_MAX,
                          0x1000};
    size_t target_count = sizeof targets / sizeof targets[0];
    struct bytes b = write_targets(a, 4, targets, target_count, 0);
    struct snapshot s;
    struct format_error e;
    ck_assert_int_eq(snapshot_read_memory(&s, b.data, b.size, "targets.heap", &e), FORMAT_OK);
    const struct snapshot_object *first = must_find(&s, a[0]);
    ck_assert_uint_eq(first->reference_count, target_count);
    for (size_t t = 0; t < target_count; t++) {
      const struct snapshot_reference *r = &s.references[first->first_reference + t];
      const struct snapshot_object *o = snapshot_find(&s, targets[t]);
      ck_assert_uint_eq(snapshot_reference_target(&s, r), targets[t]);
      if (o)
        ck_assert_uint_eq(r->object, (uint32_t)(o - s.objects));
      else
        ck_assert_uint_eq(r->object, SNAPSHOT_NO_OBJECT);
      ck_assert_int_eq(o != NULL, t < 4);
    }
    snapshot_free(&s);
    free(b.data);

    /* The same objects and a second one at the first's address: named at the later record. */
    struct bytes once = write_targets(a, 4, targets, target_count, 0);
    b = write_targets(a, 4, targets, target_count, 1);
    ck_assert_int_eq(snapshot_read_memory(&s, b.data, b.size, "twice.heap", &e), FORMAT_BAD_INPUT);
    char want[128];
    snprintf(want, sizeof want, ": a second object at address 0x%" PRIx64, a[0]);
    ck_assert_ptr_nonnull(strstr(e.message, want));
    ck_assert_uint_gt(e.offset, SNAPSHOT_HEADER_BYTES);
    ck_assert_uint_lt(e.offset, once.size);  /* within the objects chunk, after the four */
    ck_assert_uint_eq(b.data[e.offset] & 0xf, SNAPSHOT_TABLE);
    snapshot_free(&s);
    free(b.data);
    free(once.data);
  }
}
END_TEST

/* Three objects 2^31 alignment steps apart at most: narrow keys of 32 bits, one bucket of them;
 * the bucket's shift was 32 on a 32-bit key (undefined; the fuzzer found it). Each reference
 * still finds its object. */
START_TEST(test_a_few_objects_spanning_2_to_the_31_steps_are_found)
{
  static const uint64_t a[] = {0x10, 0x18, 0x10 + (UINT64_C(8) << 31)};
  uint64_t targets[] = {a[0], a[1], a[2], a[2] - 8};
  struct bytes b = write_targets(a, 3, targets, 4, 0);
  struct snapshot s;
  struct format_error e;
  ck_assert_int_eq(snapshot_read_memory(&s, b.data, b.size, "wide.heap", &e), FORMAT_OK);
  const struct snapshot_object *first = must_find(&s, a[0]);
  for (size_t t = 0; t < 4; t++) {
    const struct snapshot_object *o = snapshot_find(&s, targets[t]);
    ck_assert_int_eq(o != NULL, t < 3);
    ck_assert_uint_eq(s.references[first->first_reference + t].object,
                      o ? (uint32_t)(o - s.objects) : SNAPSHOT_NO_OBJECT);
  }
  snapshot_free(&s);
  free(b.data);
}
END_TEST

START_TEST(test_references_continue_across_chunks)
{
  /* 3000 references of one object: about 4 bytes each, three 4 KiB chunks. */
  struct bytes b = write_sample(SNAPSHOT_WRITER_MIN_CAPACITY, 3000, 1);
  struct snapshot s;
  struct format_error e;
  ck_assert_int_eq(snapshot_read_memory(&s, b.data, b.size, "many.heap", &e), FORMAT_OK);
  const struct snapshot_object *key = must_find(&s, 0x8000);
  ck_assert_uint_eq(key->reference_count, 3000);
  ck_assert_uint_eq(s.object_count, 5);
  for (size_t i = 0; i < 3000; i++) {
    ck_assert_int_eq(snapshot_reference_index(&s, &s.references[key->first_reference + i]), (int64_t)i - 1);
    ck_assert_uint_eq(snapshot_reference_target(&s, &s.references[key->first_reference + i]), 0x50000);
  }
  snapshot_free(&s);
  free(b.data);
}
END_TEST

START_TEST(test_every_cut_keeps_every_complete_chunk)
{
  /* 1400 references: about 4 KiB, so the last object goes on in a second chunk. */
  struct bytes b = write_sample(SNAPSHOT_WRITER_MIN_CAPACITY, 1400, 1);
  struct snapshot full;
  struct format_error e;
  ck_assert_int_eq(snapshot_read_memory(&full, b.data, b.size, "full.heap", &e), FORMAT_OK);
  size_t last_objects = 0, last_references = 0;
  size_t capture_end = SNAPSHOT_HEADER_BYTES + SNAPSHOT_CHUNK_HEAD_BYTES + b.data[SNAPSHOT_HEADER_BYTES + 1];
  for (size_t size = 0; size < b.size; size++) {
    struct snapshot s;
    enum format_status st = snapshot_read_memory(&s, b.data, size, "cut.heap", &e);
    if (size < capture_end) {
      ck_assert_int_eq(st, FORMAT_BAD_INPUT);  /* nothing to read: not even whose it is */
      ck_assert_ptr_nonnull(strstr(e.message, "cut.heap: byte "));
      snapshot_free(&s);
      continue;
    }
    ck_assert_int_eq(st, FORMAT_CUT);
    /* Only a cut in the trailer keeps every record. */
    ck_assert_int_eq(s.complete, size >= b.size - SNAPSHOT_TRAILER_BYTES);
    ck_assert_ptr_nonnull(strstr(e.message, "is cut here"));
    ck_assert_uint_le(e.offset, size);
    /* What was read only grows as the file does, and every object read is whole or a prefix. */
    ck_assert_uint_ge(s.object_count, last_objects);
    ck_assert_uint_ge(s.reference_count, last_references);
    last_objects = s.object_count;
    last_references = s.reference_count;
    for (size_t i = 0; i < s.object_count; i++) {
      const struct snapshot_object *o = &s.objects[i];
      const struct snapshot_object *f = must_find(&full, o->address);
      ck_assert_uint_eq(o->size, f->size);
      ck_assert_uint_eq(o->block_count, f->block_count);
      ck_assert_uint_le(o->reference_count, f->reference_count);
      for (size_t r = 0; r < o->reference_count; r++)
        ck_assert_uint_eq(snapshot_reference_target(&s, &s.references[o->first_reference + r]),
                          snapshot_reference_target(&full, &full.references[f->first_reference + r]));
    }
    snapshot_free(&s);
  }
  ck_assert_uint_eq(last_objects, 5);
  snapshot_free(&full);
  free(b.data);
}
END_TEST

START_TEST(test_unknown_version_is_named)
{
  struct bytes b = write_sample(SNAPSHOT_WRITER_MIN_CAPACITY, 3, 1);
  b.data[4] = 7;
  struct snapshot s;
  struct format_error e;
  ck_assert_int_eq(snapshot_read_memory(&s, b.data, b.size, "new.heap", &e), FORMAT_UNSUPPORTED);
  ck_assert_str_eq(e.message, "new.heap: byte 4: heap snapshot version 7; this ljleak reads version 1");
  ck_assert_uint_eq(s.object_count, 0);
  snapshot_free(&s);
  free(b.data);
}
END_TEST

START_TEST(test_another_capture_is_refused)
{
  struct bytes b = write_sample(SNAPSHOT_WRITER_MIN_CAPACITY, 3, 1);
  struct snapshot s;
  struct format_error e;
  ck_assert_int_eq(snapshot_read_memory(&s, b.data, b.size, "x.heap", &e), FORMAT_OK);
  ck_assert_int_eq(snapshot_check_capture(&s, "x.heap", 4242, 1763745600.125, &e), FORMAT_OK);
  ck_assert_int_eq(snapshot_check_capture(&s, "x.heap", 4243, 1763745600.125, &e), FORMAT_BAD_INPUT);
  ck_assert_str_eq(e.message, "x.heap: byte 17: belongs to another capture (pid 4242, started 1763745600.125), "
                              "not this one (pid 4243, started 1763745600.125)");
  /* The same pid, another run. */
  ck_assert_int_eq(snapshot_check_capture(&s, "x.heap", 4242, 1763745700.5, &e), FORMAT_BAD_INPUT);
  snapshot_free(&s);
  free(b.data);
}
END_TEST

START_TEST(test_bad_input_names_file_and_offset)
{
  struct snapshot s;
  struct format_error e;
  ck_assert_int_eq(snapshot_read_memory(&s, "ljst\1\0\0\0", 8, "other.bin", &e), FORMAT_BAD_INPUT);
  ck_assert_str_eq(e.message, "other.bin: byte 0: not a heap snapshot (no \"ljhs\" magic)");
  snapshot_free(&s);

  struct bytes b = write_sample(SNAPSHOT_WRITER_MIN_CAPACITY, 3, 1);
  /* The first object record follows the CAPTURE and STRINGS chunks: make its type unknown. */
  size_t at = SNAPSHOT_HEADER_BYTES;
  while (b.data[at] != SNAPSHOT_CHUNK_OBJECTS)
    at += SNAPSHOT_CHUNK_HEAD_BYTES + (b.data[at + 1] | (size_t)b.data[at + 2] << 8);
  size_t record = at + SNAPSHOT_CHUNK_HEAD_BYTES;
  b.data[record] = (uint8_t)((b.data[record] & 0xf0) | 0xe);
  ck_assert_int_eq(snapshot_read_memory(&s, b.data, b.size, "bad.heap", &e), FORMAT_BAD_INPUT);
  char want[128];
  snprintf(want, sizeof want, "bad.heap: byte %zu: object of unknown type 14", record);
  ck_assert_str_eq(e.message, want);
  ck_assert_uint_eq(e.offset, record);
  ck_assert_uint_eq(s.object_count, 0);
  snapshot_free(&s);
  free(b.data);
}
END_TEST

START_TEST(test_long_labels_are_cut)
{
  struct bytes out = {NULL, 0, 0};
  uint8_t buffer[2 * SNAPSHOT_WRITER_MIN_CAPACITY];
  struct snapshot_writer w;
  snapshot_writer_init(&w, buffer, buffer + SNAPSHOT_WRITER_MIN_CAPACITY, SNAPSHOT_WRITER_MIN_CAPACITY, bytes_sink, &out);
  char text[1000];
  memset(text, 'x', sizeof text);
  ck_assert_int_eq(snapshot_writer_begin(&w, &sample_capture), 0);
  ck_assert_uint_eq(snapshot_writer_string(&w, text, sizeof text), 1);
  ck_assert_int_eq(snapshot_writer_end(&w), 0);
  struct snapshot s;
  struct format_error e;
  ck_assert_int_eq(snapshot_read_memory(&s, out.data, out.size, "long.heap", &e), FORMAT_OK);
  ck_assert_uint_eq(strlen(snapshot_string(&s, 1)), SNAPSHOT_LABEL_MAX);
  ck_assert_str_eq(snapshot_string(&s, 1) + SNAPSHOT_LABEL_MAX - 3, "...");
  ck_assert_str_eq(snapshot_string(&s, 2), "");
  snapshot_free(&s);
  free(out.data);
}
END_TEST

/* A snapshot of the given labels (strings 1, 2, ...), read back into s. */
static void read_labels(struct snapshot *s, const char *const *texts, const size_t *lengths, size_t count)
{
  struct bytes out = {NULL, 0, 0};
  uint8_t buffer[2 * SNAPSHOT_WRITER_MIN_CAPACITY];
  struct snapshot_writer w;
  snapshot_writer_init(&w, buffer, buffer + SNAPSHOT_WRITER_MIN_CAPACITY, SNAPSHOT_WRITER_MIN_CAPACITY, bytes_sink, &out);
  ck_assert_int_eq(snapshot_writer_begin(&w, &sample_capture), 0);
  for (size_t i = 0; i < count; i++)
    ck_assert_uint_eq(snapshot_writer_string(&w, texts[i], lengths[i]), i + 1);
  ck_assert_int_eq(snapshot_writer_end(&w), 0);
  struct format_error e;
  ck_assert_int_eq(snapshot_read_memory(s, out.data, out.size, "labels.heap", &e), FORMAT_OK);
  free(out.data);
}

START_TEST(test_long_labels_are_cut_between_characters)
{
  /* 2-byte and 4-byte characters, at every offset against the cut: whole characters, then "...". */
  static const char *const chars[] = {"\xc3\xa9", "\xf0\x9f\x98\x80", "\xe2\x96\xb8"};
  for (size_t c = 0; c < 3; c++)
    for (size_t lead = 0; lead < 4; lead++) {
      char text[400];
      size_t n = strlen(chars[c]), length = lead;
      memset(text, 'x', lead);
      while (length + n <= sizeof text) {
        memcpy(text + length, chars[c], n);
        length += n;
      }
      const char *texts[] = {text};
      struct snapshot s;
      read_labels(&s, texts, &length, 1);
      const char *label = snapshot_string(&s, 1);
      size_t kept = strlen(label) - 3;
      ck_assert_str_eq(label + kept, "...");
      ck_assert_uint_le(kept + 3, SNAPSHOT_LABEL_MAX);
      ck_assert_uint_ge(kept + 3 + n - 1, SNAPSHOT_LABEL_MAX);
      ck_assert_uint_eq((kept - lead) % n, 0);  /* whole characters */
      ck_assert_int_eq(memcmp(label, text, kept), 0);
      snapshot_free(&s);
    }
}
END_TEST

START_TEST(test_a_nul_in_a_label_reads_as_backslash_zero)
{
  /* t["a\0b"] and t["a"] are two keys: their labels differ, as Lua writes them. */
  const char *texts[] = {"a\0b", "a", "\0\0", "", "z\0"};
  const size_t lengths[] = {3, 1, 2, 0, 2};
  struct snapshot s;
  read_labels(&s, texts, lengths, 5);
  ck_assert_str_eq(snapshot_string(&s, 1), "a\\0b");
  ck_assert_str_eq(snapshot_string(&s, 2), "a");
  ck_assert_str_eq(snapshot_string(&s, 3), "\\0\\0");
  ck_assert_str_eq(snapshot_string(&s, 4), "");
  ck_assert_str_eq(snapshot_string(&s, 5), "z\\0");
  snapshot_free(&s);
}
END_TEST

/* A snapshot of one table with one INDEX reference of n into out (ended when the writer takes
 * it); the writer's answer to the reference. */
static int write_index_reference(int64_t n, struct bytes *out)
{
  uint8_t buffer[2 * SNAPSHOT_WRITER_MIN_CAPACITY];
  struct snapshot_writer w;
  snapshot_writer_init(&w, buffer, buffer + SNAPSHOT_WRITER_MIN_CAPACITY, SNAPSHOT_WRITER_MIN_CAPACITY,
                       bytes_sink, out);
  ck_assert_int_eq(snapshot_writer_begin(&w, &sample_capture), 0);
  struct snapshot_wire_object t = {SNAPSHOT_TABLE, 0, 0x1000, 56, 1, 0, NULL, 0};
  ck_assert_int_eq(snapshot_writer_object(&w, &t), 0);
  int taken = snapshot_writer_reference(&w, SNAPSHOT_REF_INDEX, 0, 0, n, 0x2000);
  if (taken == 0)
    ck_assert_int_eq(snapshot_writer_end(&w), 0);
  return taken;
}

START_TEST(test_index_beyond_the_label_word_is_refused)
{
  /* n of INDEX is zigzagged beside the kind in one 64-bit word: -2^59 .. 2^59 - 1 read back;
   * beyond, the writer fails rather than write another n. */
  static const int64_t fit[] = {(INT64_C(1) << 59) - 1, -(INT64_C(1) << 59), INT64_C(1) << 53};
  for (size_t i = 0; i < 3; i++) {
    struct bytes out = {NULL, 0, 0};
    ck_assert_int_eq(write_index_reference(fit[i], &out), 0);
    struct snapshot s;
    struct format_error e;
    ck_assert_int_eq(snapshot_read_memory(&s, out.data, out.size, "index.heap", &e), FORMAT_OK);
    ck_assert_int_eq(snapshot_reference_index(&s, &s.references[0]), fit[i]);
    snapshot_free(&s);
    free(out.data);
  }
  static const int64_t beyond[] = {INT64_C(1) << 59, -(INT64_C(1) << 59) - 1, INT64_MIN, INT64_MAX};
  for (size_t i = 0; i < 4; i++) {
    struct bytes out = {NULL, 0, 0};
    ck_assert_int_eq(write_index_reference(beyond[i], &out), -1);
    free(out.data);
  }
}
END_TEST

START_TEST(test_indices_and_counts_inline_and_aside)
{
  /* A reference is 8 bytes and an object 40: an INDEX n past 28 bits, a target that is no
   * object's and a count past 32 bits are kept aside; every one reads back, in the label too. */
  ck_assert_uint_eq(sizeof(struct snapshot_reference), 8);
  ck_assert_uint_eq(sizeof(struct snapshot_object), 40);
  static const int64_t indices[] = {0, 1, -1, (INT64_C(1) << 27) - 1, -(INT64_C(1) << 27) + 1,
                                    INT64_C(1) << 27, -(INT64_C(1) << 27), INT64_C(1) << 31, INT32_MIN,
                                    INT64_C(1) << 40, -(INT64_C(1) << 40)};
  size_t n = sizeof indices / sizeof indices[0];
  struct bytes out = {NULL, 0, 0};
  uint8_t buffer[2 * SNAPSHOT_WRITER_MIN_CAPACITY];
  struct snapshot_writer w;
  snapshot_writer_init(&w, buffer, buffer + SNAPSHOT_WRITER_MIN_CAPACITY, SNAPSHOT_WRITER_MIN_CAPACITY, bytes_sink, &out);
  ck_assert_int_eq(snapshot_writer_begin(&w, &sample_capture), 0);
  /* And counts past 32 bits, kept aside too. */
  static const uint64_t counts[] = {UINT32_MAX - 1, UINT32_MAX, UINT64_C(1) << 40};
  for (size_t i = 0; i < 3; i++) {
    struct snapshot_wire_object big = {SNAPSHOT_TABLE, 0, 0x3000 - 0x100 * i, 56, counts[i], 0, NULL, 0};
    ck_assert_int_eq(snapshot_writer_object(&w, &big), 0);
  }
  struct snapshot_wire_object list = {SNAPSHOT_TABLE, 0, 0x1000, 56, n, 0, NULL, 0};
  ck_assert_int_eq(snapshot_writer_object(&w, &list), 0);
  for (size_t i = 0; i < n; i++)
    ck_assert_int_eq(snapshot_writer_reference(&w, SNAPSHOT_REF_INDEX, 0, 0, indices[i], i % 2 ? 0x1000 : 0x9990), 0);
  ck_assert_int_eq(snapshot_writer_end(&w), 0);
  struct snapshot s;
  struct format_error e;
  ck_assert_int_eq(snapshot_read_memory(&s, out.data, out.size, "index.heap", &e), FORMAT_OK);
  ck_assert_uint_eq(s.reference_count, n);
  for (size_t i = 0; i < n; i++) {
    const struct snapshot_reference *ref = &s.references[i];
    char label[64], want[64];
    snprintf(want, sizeof want, "[%" PRId64 "]", indices[i]);
    ck_assert_int_eq(snapshot_reference_index(&s, ref), indices[i]);
    ck_assert_str_eq(snapshot_label(&s, ref, label, sizeof label), want);
    ck_assert_uint_eq(ref->object, i % 2 ? 0 : SNAPSHOT_NO_OBJECT);  /* 0x1000, the lowest */
    ck_assert_uint_eq(snapshot_reference_target(&s, ref), i % 2 ? 0x1000 : 0x9990);
  }
  for (size_t i = 0; i < 3; i++)
    ck_assert_uint_eq(snapshot_object_count(&s, must_find(&s, 0x3000 - 0x100 * i)), counts[i]);
  ck_assert_uint_eq(snapshot_object_count(&s, must_find(&s, 0x1000)), n);
  snapshot_free(&s);
  free(out.data);
}
END_TEST

START_TEST(test_references_and_index_freed_early)
{
  /* A reader done with the references or the look-ups frees them: the objects stay, with no
   * references; an object is still found by address, a block only by its owner's own. */
  struct bytes b = write_sample(SNAPSHOT_WRITER_MIN_CAPACITY, 3, 1);
  struct snapshot s;
  struct format_error e;
  ck_assert_int_eq(snapshot_read_memory(&s, b.data, b.size, "sample.heap", &e), FORMAT_OK);
  snapshot_free_references(&s);
  ck_assert_uint_eq(s.reference_count, 0);
  for (size_t i = 0; i < s.object_count; i++)
    ck_assert_uint_eq(s.objects[i].reference_count, 0);
  snapshot_free_index(&s);
  for (size_t i = 0; i < s.object_count; i++)
    ck_assert_ptr_eq(snapshot_find(&s, s.objects[i].address), &s.objects[i]);
  ck_assert_ptr_null(snapshot_find(&s, 0x10001));
  ck_assert_ptr_eq(snapshot_find_block(&s, 0x10000), must_find(&s, 0x10000));
  ck_assert_ptr_null(snapshot_find_block(&s, 0x30000));
  ck_assert_uint_eq(s.object_count, 5);
  snapshot_free(&s);
  free(b.data);
}
END_TEST

START_TEST(test_references_sized_by_the_end_whatever_the_trailer_holds)
{
  /* The trailer's first byte is the END chunk's offset's low byte: for one file in 256 it reads
   * as END's tag, and a reader that went on past END took the trailer for a second END with
   * totals of its own (104 references). That byte is met here, among others; each time the references
   * take one array of the END's total, not one grown from another. */
  unsigned char seen[256] = {0};
  for (uint32_t many = 300; many < 300 + 4 * 256; many++) {
    struct bytes b = write_sample(SNAPSHOT_WRITER_MIN_CAPACITY, many, 1);
    seen[b.data[b.size - SNAPSHOT_TRAILER_BYTES]] = 1;
    struct snapshot s;
    struct format_error e;
    ck_assert_int_eq(snapshot_read_memory(&s, b.data, b.size, "sample.heap", &e), FORMAT_OK);
    ck_assert_uint_eq(s.reference_count, many + 5);
    ck_assert_uint_lt(malloc_usable_size(s.references), s.reference_count * sizeof *s.references + 64);
    snapshot_free(&s);
    free(b.data);
  }
  ck_assert_msg(seen[SNAPSHOT_CHUNK_END], "no file whose END is at an offset of low byte 5");
}
END_TEST

static Suite *snapshot_suite(void)
{
  Suite *s = suite_create("format_snapshot");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_round_trip_objects_references_roots);
  tcase_add_test(tc, test_objects_spanning_half_the_address_space_are_found);
  tcase_add_test(tc, test_references_find_objects_near_and_far);
  tcase_add_test(tc, test_a_few_objects_spanning_2_to_the_31_steps_are_found);
  tcase_add_test(tc, test_references_continue_across_chunks);
  tcase_add_test(tc, test_every_cut_keeps_every_complete_chunk);
  tcase_add_test(tc, test_unknown_version_is_named);
  tcase_add_test(tc, test_another_capture_is_refused);
  tcase_add_test(tc, test_bad_input_names_file_and_offset);
  tcase_add_test(tc, test_long_labels_are_cut);
  tcase_add_test(tc, test_long_labels_are_cut_between_characters);
  tcase_add_test(tc, test_a_nul_in_a_label_reads_as_backslash_zero);
  tcase_add_test(tc, test_index_beyond_the_label_word_is_refused);
  tcase_add_test(tc, test_indices_and_counts_inline_and_aside);
  tcase_add_test(tc, test_references_and_index_freed_early);
  tcase_add_test(tc, test_references_sized_by_the_end_whatever_the_trailer_holds);
  suite_add_tcase(s, tc);
  return s;
}

int main(void)
{
  return check_run(snapshot_suite());
}
