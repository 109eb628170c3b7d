/* tests/test_format_batch.c: runs of events decoded in place (decode.h), with and without
 * pext, give what repeated memprof_reader_next gives. */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/check_run.h"
#include "format/decode.h"
#include "format/memprof.h"

#define FIXTURES "testdata/tarantool-memprof/"
#define BATCH_MAX 64

/* How the second reader of a pair is read. */
enum walk_mode {
  WALK_SPAN,           /* memprof_reader_events_span and memprof_decode_event */
  WALK_SPAN_PORTABLE,  /* the same without pext */
  WALK_MODES
};

/* A reader read in runs decoded in place, falling back to
 * one record at a time. */
struct batch_walk {
  struct memprof_reader *reader;
  enum walk_mode mode;
  size_t capacity;
  struct memprof_event events[BATCH_MAX];
  uint64_t offsets[BATCH_MAX];
  size_t count, next;
  unsigned long batched;  /* events that came from runs */
};

/* The next record the run way: from the buffer, a new run, or memprof_reader_next. */
static enum format_status batch_walk_next(struct batch_walk *w, struct memprof_record *record)
{
  if (w->next == w->count) {
    /* Up to capacity events decoded in place, as the diff engine does. */
    const uint8_t *at;
    size_t span = memprof_reader_events_span(w->reader, &at), used = 0;
    int version = memprof_reader_events_version(w->reader);
    uint64_t base = memprof_reader_offset(w->reader);
    int pext = memprof_reader_pext(w->reader);
    w->next = w->count = 0;
    while (used < span && w->count < w->capacity) {
      size_t length = pext ? memprof_decode_event(at + used, version, &w->events[w->count], 1)
                           : memprof_decode_event(at + used, version, &w->events[w->count], 0);
      if (!length)
        break;
      w->offsets[w->count++] = base + used;
      used += length;
    }
    memprof_reader_consume(w->reader, used);
    w->batched += w->count;
  }
  if (w->next < w->count) {
    memset(record, 0, sizeof *record);
    record->type = MEMPROF_RECORD_EVENT;
    record->in_stream = 1;
    record->offset = w->offsets[w->next];
    record->event = w->events[w->next];
    w->next++;
    return FORMAT_OK;
  }
  return memprof_reader_next(w->reader, record);
}

/* 1 if a and b hold the same record. (Plain comparisons: a check assertion
 * per field would cost a system call each on these long streams.) */
static int same_record(const struct memprof_record *a, const struct memprof_record *b)
{
  if (a->type != b->type || a->offset != b->offset || a->in_stream != b->in_stream)
    return 0;
  if (a->type == MEMPROF_RECORD_EVENT)
    return a->event.kind == b->event.kind && a->event.source == b->event.source &&
           a->event.location == b->event.location && a->event.line == b->event.line &&
           a->event.old_address == b->event.old_address &&
           a->event.old_size == b->event.old_size &&
           a->event.new_address == b->event.new_address &&
           a->event.new_size == b->event.new_size;
  return a->symbol.kind == b->symbol.kind && a->symbol.address == b->symbol.address &&
         a->symbol.line == b->symbol.line && a->symbol.trace == b->symbol.trace &&
         a->symbol.name_length == b->symbol.name_length &&
         (a->symbol.name_length == 0 ||
          memcmp(a->symbol.name, b->symbol.name, a->symbol.name_length) == 0);
}

/* Reads one and two in step, two the way mode says; returns the events the
 * runs gave. */
static unsigned long assert_same_walk(struct memprof_reader *one, struct memprof_reader *two,
                                      enum walk_mode mode, size_t capacity)
{
  struct batch_walk w = {.reader = two, .mode = mode, .capacity = capacity};
  if (mode == WALK_SPAN_PORTABLE) {
    memprof_reader_use_pext(two, 0);
    ck_assert_int_eq(memprof_reader_pext(two), 0);
  }
  struct memprof_record a, b;
  enum format_status sa, sb;
  do {
    sa = memprof_reader_next(one, &a);
    sb = batch_walk_next(&w, &b);
    if (sa != sb || (sa == FORMAT_OK && !same_record(&a, &b)))
      ck_abort_msg("record at byte %llu differs (status %d and %d)",
                   (unsigned long long)a.offset, (int)sa, (int)sb);
  } while (sa == FORMAT_OK);
  const struct format_error *ea = memprof_reader_error(one);
  const struct format_error *eb = memprof_reader_error(two);
  ck_assert_int_eq(ea->status, eb->status);
  ck_assert_uint_eq(ea->offset, eb->offset);
  ck_assert_str_eq(ea->message, eb->message);
  ck_assert_uint_eq(memprof_reader_offset(one), memprof_reader_offset(two));
  /* After a final status there is no run to decode. */
  const uint8_t *at;
  ck_assert_uint_eq(memprof_reader_events_span(two, &at), 0);
  return w.batched;
}

static unsigned long assert_same_file(const char *path, enum walk_mode mode, size_t capacity)
{
  struct format_error err;
  struct memprof_reader *one = memprof_reader_open(path, &err);
  ck_assert_msg(one != NULL, "%s", err.message);
  struct memprof_reader *two = memprof_reader_open(path, &err);
  ck_assert_msg(two != NULL, "%s", err.message);
  unsigned long batched = assert_same_walk(one, two, mode, capacity);
  memprof_reader_close(one);
  memprof_reader_close(two);
  return batched;
}

static const size_t capacities[] = {1, 3, BATCH_MAX};

START_TEST(test_batch_matches_single_records_on_basic_streams)
{
  const char *paths[] = {FIXTURES "basic-jiton.bin", FIXTURES "basic-jitoff.bin",
                         FIXTURES "killed-sigkill.bin.gz"};
  for (size_t p = 0; p < sizeof paths / sizeof paths[0]; p++)
    for (int m = 0; m < WALK_MODES; m++)
      for (size_t c = 0; c < sizeof capacities / sizeof capacities[0]; c++)
        ck_assert_uint_gt(assert_same_file(paths[p], (enum walk_mode)m, capacities[c]), 1000);
}
END_TEST

START_TEST(test_batch_matches_single_records_on_every_segment)
{
  DIR *dir = opendir(FIXTURES "segments");
  ck_assert_ptr_nonnull(dir);
  struct dirent *entry;
  int files = 0;
  while ((entry = readdir(dir)) != NULL) {
    size_t n = strlen(entry->d_name);
    if (n < 4 || strcmp(entry->d_name + n - 4, ".bin") != 0)
      continue;
    char path[512];
    snprintf(path, sizeof path, FIXTURES "segments/%s", entry->d_name);
    for (int m = 0; m < WALK_MODES; m++)
      for (size_t c = 0; c < sizeof capacities / sizeof capacities[0]; c++)
        assert_same_file(path, (enum walk_mode)m, capacities[c]);
    files++;
  }
  closedir(dir);
  ck_assert_int_gt(files, 1);
}
END_TEST

/* A v3 stream: a Lua symbol, 40 events of every source, an in-stream C
 * symbol, 20 more events, the epilogue; built here so every cut is cheap. */
static size_t build_stream(uint8_t *out, size_t *event_offsets)
{
  static const uint8_t head[] = {'l', 'j', 's', 3, 0, 0, 0, 0x00, 0x90, 0x01, 3, '@', 'a', 'b', 7,
                                 0x80, 'l', 'j', 'm', 3, 0, 0, 0};
  size_t n = 0;
  memcpy(out, head, sizeof head);
  n += sizeof head;
  for (int i = 0; i < 60; i++) {
    if (i == 40) {
      static const uint8_t symbol[] = {0x0c, 0x40, 2, 'f', 'n'};
      memcpy(out + n, symbol, sizeof symbol);
      n += sizeof symbol;
    }
    if (event_offsets)
      event_offsets[i] = n;
    unsigned source = 1 + (unsigned)i % 4;  /* internal, Lua, C, trace */
    unsigned kind = 1 + (unsigned)i % 3;    /* alloc, free, realloc */
    out[n++] = (uint8_t)(source << 2 | kind);
    if (source == MEMPROF_SOURCE_LUA) {
      n += memprof_uleb128_encode(out + n, 0x90);
      n += memprof_uleb128_encode(out + n, (uint64_t)i);
    } else if (source != MEMPROF_SOURCE_INTERNAL) {
      n += memprof_uleb128_encode(out + n, 0x40 + (uint64_t)i);
    }
    n += memprof_uleb128_encode(out + n, UINT64_C(0x7f0000001000) + (uint64_t)i * 64);
    n += memprof_uleb128_encode(out + n, 16 + (uint64_t)i);
    if (kind == MEMPROF_EVENT_REALLOC) {
      n += memprof_uleb128_encode(out + n, UINT64_C(0x7f0000900000) + (uint64_t)i * 4096);
      /* Sizes of every length up to ten bytes, past what one 8-byte load holds. */
      uint64_t size = i % 5 == 0 ? UINT64_MAX - (uint64_t)i : (uint64_t)1 << (i % 64);
      n += memprof_uleb128_encode(out + n, size);
    }
  }
  out[n++] = 0x80;
  return n;
}

START_TEST(test_batch_matches_single_records_at_every_cut)
{
  uint8_t stream[4096];
  size_t size = build_stream(stream, NULL);
  ck_assert_uint_gt(size, 600);
  unsigned long batched_whole = 0;
  for (size_t cut = 0; cut <= size; cut++) {
    for (size_t c = 0; c < WALK_MODES * sizeof capacities / sizeof capacities[0]; c++) {
      enum walk_mode mode = (enum walk_mode)(c / (sizeof capacities / sizeof capacities[0]));
      size_t capacity = capacities[c % (sizeof capacities / sizeof capacities[0])];
      /* An exact-size copy, so that reading past the cut is caught. */
      uint8_t *copy = malloc(cut > 0 ? cut : 1);
      ck_assert_ptr_nonnull(copy);
      memcpy(copy, stream, cut);
      struct format_error err;
      struct memprof_reader *one = memprof_reader_open_memory(copy, cut, "cut", &err);
      struct memprof_reader *two = memprof_reader_open_memory(copy, cut, "cut", &err);
      ck_assert_ptr_nonnull(one);
      ck_assert_ptr_nonnull(two);
      unsigned long batched = assert_same_walk(one, two, mode, capacity);
      if (cut == size)
        batched_whole = batched;
      memprof_reader_close(one);
      memprof_reader_close(two);
      free(copy);
    }
  }
  ck_assert_uint_gt(batched_whole, 40);
}
END_TEST

/* A bad byte inside an event: the run stops before it and the single
 * call reports it at the same offset. */
START_TEST(test_batch_stops_before_a_bad_event)
{
  uint8_t stream[4096];
  size_t at[60];
  size_t size = build_stream(stream, at);
  stream[at[10]] = 0x30;  /* the 11th event's header made invalid (source 12) */
  struct format_error err;
  struct memprof_reader *one = memprof_reader_open_memory(stream, size, "bad", &err);
  struct memprof_reader *two = memprof_reader_open_memory(stream, size, "bad", &err);
  ck_assert_ptr_nonnull(one);
  ck_assert_ptr_nonnull(two);
  ck_assert_uint_gt(assert_same_walk(one, two, WALK_SPAN, BATCH_MAX), 0);
  ck_assert_int_eq(memprof_reader_error(two)->status, FORMAT_BAD_INPUT);
  ck_assert_uint_eq(memprof_reader_error(two)->offset, at[10]);
  memprof_reader_close(one);
  memprof_reader_close(two);
  /* An over-long ULEB128 in an event body, read each way. */
  for (int m = 0; m < WALK_MODES; m++) {
    size = build_stream(stream, at);
    memset(stream + at[10] + 1, 0xff, 11);
    one = memprof_reader_open_memory(stream, size, "bad", &err);
    two = memprof_reader_open_memory(stream, size, "bad", &err);
    ck_assert_uint_gt(assert_same_walk(one, two, (enum walk_mode)m, BATCH_MAX), 0);
    ck_assert_int_eq(memprof_reader_error(two)->status, FORMAT_BAD_INPUT);
    ck_assert_uint_eq(memprof_reader_error(two)->offset, at[10]);
    memprof_reader_close(one);
    memprof_reader_close(two);
  }
}
END_TEST

START_TEST(test_batch_gives_nothing_before_the_events)
{
  uint8_t stream[4096];
  size_t size = build_stream(stream, NULL);
  struct format_error err;
  struct memprof_reader *r = memprof_reader_open_memory(stream, size, "s", &err);
  ck_assert_ptr_nonnull(r);
  const uint8_t *at;
  ck_assert_uint_eq(memprof_reader_events_span(r, &at), 0);
  ck_assert_uint_eq(memprof_reader_offset(r), 0);
  /* pext can be turned off and back on to what the CPU allows. */
  int cpu = memprof_reader_pext(r);
  memprof_reader_use_pext(r, 0);
  ck_assert_int_eq(memprof_reader_pext(r), 0);
  memprof_reader_use_pext(r, 1);
  ck_assert_int_eq(memprof_reader_pext(r), cpu);
  struct memprof_record record;
  ck_assert_int_eq(memprof_reader_next(r, &record), FORMAT_OK);  /* the prologue's symbol */
  ck_assert_int_eq(record.type, MEMPROF_RECORD_SYMBOL);
  ck_assert_int_eq(memprof_reader_next(r, &record), FORMAT_OK);  /* the first event */
  ck_assert_uint_eq(record.offset, 23);
  ck_assert_uint_gt(memprof_reader_events_span(r, &at), 0);
  memprof_reader_close(r);
}
END_TEST

static Suite *batch_suite(void)
{
  Suite *s = suite_create("format_batch");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_batch_matches_single_records_on_basic_streams);
  tcase_add_test(tc, test_batch_matches_single_records_on_every_segment);
  tcase_add_test(tc, test_batch_matches_single_records_at_every_cut);
  tcase_add_test(tc, test_batch_stops_before_a_bad_event);
  tcase_add_test(tc, test_batch_gives_nothing_before_the_events);
  suite_add_tcase(s, tc);
  return s;
}

int main(void)
{
  return check_run(batch_suite());
}
