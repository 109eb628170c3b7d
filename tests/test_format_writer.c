/* tests/test_format_writer.c: the memprof writer: exact bytes, round trips, and a byte-identical rewrite of a Tarantool stream. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/check_run.h"
#include "format/memprof.h"

#define FIXTURES "testdata/tarantool-memprof/"

/* A growing in-memory sink. */
struct memory_sink {
  uint8_t *data;
  size_t size;
  size_t capacity;
  size_t calls;
  size_t largest_call;
  int fail_after;  /* calls allowed before failing; -1: never fail */
};

static int memory_sink_write(void *context, const uint8_t *data, size_t size)
{
  struct memory_sink *m = context;
  if (m->fail_after >= 0 && m->calls >= (size_t)m->fail_after)
    return -1;
  m->calls++;
  if (size > m->largest_call)
    m->largest_call = size;
  if (m->size + size > m->capacity) {
    size_t capacity = m->capacity ? m->capacity : 1024;
    while (capacity < m->size + size)
      capacity *= 2;
    m->data = realloc(m->data, capacity);
    ck_assert_ptr_nonnull(m->data);
    m->capacity = capacity;
  }
  memcpy(m->data + m->size, data, size);
  m->size += size;
  return 0;
}

static uint8_t *read_whole_file(const char *path, size_t *size)
{
  FILE *f = fopen(path, "rb");
  ck_assert_ptr_nonnull(f);
  fseek(f, 0, SEEK_END);
  long length = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t *data = malloc((size_t)length);
  ck_assert_ptr_nonnull(data);
  ck_assert_uint_eq(fread(data, 1, (size_t)length, f), (size_t)length);
  fclose(f);
  *size = (size_t)length;
  return data;
}

static struct memprof_symbol symbol_of(enum memprof_symbol_kind kind, uint64_t address,
                                       uint64_t line, uint64_t trace, const char *name,
                                       size_t name_length)
{
  struct memprof_symbol s = {kind, address, line, trace, name, name_length};
  return s;
}

/* Every kind and source, with values of every ULEB128 length. */
static struct memprof_event event_of(int kind, int source, uint64_t seed)
{
  struct memprof_event e;
  memset(&e, 0, sizeof e);
  e.kind = (enum memprof_event_kind)kind;
  e.source = (enum memprof_source)source;
  if (source == MEMPROF_SOURCE_LUA) {
    e.location = 0x7f0000000000ull + seed;
    e.line = seed * 3;
  } else if (source == MEMPROF_SOURCE_C) {
    e.location = UINT64_MAX - seed;
  } else if (source == MEMPROF_SOURCE_TRACE) {
    e.location = seed + 1;
  }
  if (kind != MEMPROF_EVENT_ALLOC) {
    e.old_address = (uint64_t)1 << (seed % 64);
    e.old_size = seed * 127;
  }
  if (kind != MEMPROF_EVENT_FREE) {
    e.new_address = UINT64_MAX >> (seed % 64);
    e.new_size = seed * 16384 + 1;
  }
  return e;
}

/* The hand-encoded bytes of a small v3 stream, per the format description. */
static const uint8_t small_stream[] = {
    'l', 'j', 's', 3, 0, 0, 0,
    0x00, 0x90, 0x01, 3, '@', 'a', 'b', 7,   /* Lua proto 0x90 "@ab" line 7 */
    0x01, 0x40, 1, 'f',                      /* C symbol 0x40 "f" */
    0x02, 5, 0x90, 0x01, 9,                  /* trace 5 starts at 0x90 line 9 */
    0x80,
    'l', 'j', 'm', 3, 0, 0, 0,
    0x09, 0x90, 0x01, 12, 0xa0, 0x01, 32,    /* alloc, Lua 0x90 line 12, 0xa0 32 bytes */
    0x0c, 0x41, 2, 'f', 'n',                 /* symtab event: C symbol 0x41 "fn" */
    0x10, 6, 0x90, 0x01, 10,                 /* symtab event: trace 6 at 0x90 line 10 */
    0x08, 0x91, 0x01, 3, 'x', '\n', 'y', 1,  /* symtab event: Lua proto 0x91 "x\ny" line 1 */
    0x0e, 0x41, 0xa0, 0x01, 32,              /* free, C 0x41, 0xa0 32 bytes */
    0x13, 6, 0xb0, 0x01, 8, 0xc0, 0x01, 16,  /* realloc on trace 6 */
    0x05, 0xd0, 0x01, 1,                     /* alloc, internal */
    0x80,
};

static void write_small_stream(struct memprof_writer *w)
{
  struct memprof_symbol lua = symbol_of(MEMPROF_SYMBOL_LUA, 0x90, 7, 0, "@ab", 3);
  struct memprof_symbol c = symbol_of(MEMPROF_SYMBOL_C, 0x40, 0, 0, "f", 1);
  struct memprof_symbol trace = symbol_of(MEMPROF_SYMBOL_TRACE, 0x90, 9, 5, NULL, 0);
  struct memprof_symbol c2 = symbol_of(MEMPROF_SYMBOL_C, 0x41, 0, 0, "fn", 2);
  struct memprof_symbol trace2 = symbol_of(MEMPROF_SYMBOL_TRACE, 0x90, 10, 6, NULL, 0);
  struct memprof_symbol lua2 = symbol_of(MEMPROF_SYMBOL_LUA, 0x91, 1, 0, "x\ny", 3);
  struct memprof_event alloc = {MEMPROF_EVENT_ALLOC, MEMPROF_SOURCE_LUA, 0x90, 12, 0, 0, 0xa0, 32};
  struct memprof_event free_c = {MEMPROF_EVENT_FREE, MEMPROF_SOURCE_C, 0x41, 0, 0xa0, 32, 0, 0};
  struct memprof_event realloc_trace = {MEMPROF_EVENT_REALLOC, MEMPROF_SOURCE_TRACE, 6, 0,
                                        0xb0, 8, 0xc0, 16};
  struct memprof_event alloc_internal = {MEMPROF_EVENT_ALLOC, MEMPROF_SOURCE_INTERNAL, 0, 0,
                                         0, 0, 0xd0, 1};
  ck_assert_int_eq(memprof_writer_symtab_begin(w), 0);
  ck_assert_int_eq(memprof_writer_symbol(w, &lua), 0);
  ck_assert_int_eq(memprof_writer_symbol(w, &c), 0);
  ck_assert_int_eq(memprof_writer_symbol(w, &trace), 0);
  ck_assert_int_eq(memprof_writer_symtab_end(w), 0);
  ck_assert_int_eq(memprof_writer_events_begin(w), 0);
  ck_assert_int_eq(memprof_writer_event(w, &alloc), 0);
  ck_assert_int_eq(memprof_writer_symbol_event(w, &c2), 0);
  ck_assert_int_eq(memprof_writer_symbol_event(w, &trace2), 0);
  ck_assert_int_eq(memprof_writer_symbol_event(w, &lua2), 0);
  ck_assert_int_eq(memprof_writer_event(w, &free_c), 0);
  ck_assert_int_eq(memprof_writer_event(w, &realloc_trace), 0);
  ck_assert_int_eq(memprof_writer_event(w, &alloc_internal), 0);
  ck_assert_int_eq(memprof_writer_epilogue(w), 0);
}

START_TEST(test_writer_produces_exact_bytes_of_small_stream)
{
  uint8_t buffer[64];
  struct memory_sink sink = {NULL, 0, 0, 0, 0, -1};
  struct memprof_writer w;
  memprof_writer_init(&w, buffer, sizeof buffer, memory_sink_write, &sink);
  write_small_stream(&w);
  ck_assert_uint_eq(sink.size, sizeof small_stream);
  ck_assert_int_eq(memcmp(sink.data, small_stream, sizeof small_stream), 0);
  ck_assert_uint_eq(w.bytes_written, sizeof small_stream);
  ck_assert_uint_eq(w.used, 0);
  free(sink.data);
}
END_TEST

START_TEST(test_writer_same_events_give_same_bytes_whatever_the_buffer)
{
  static const size_t capacities[] = {64, 65, 100, 4096};
  for (size_t i = 0; i < sizeof capacities / sizeof capacities[0]; i++) {
    uint8_t *buffer = malloc(capacities[i]);
    struct memory_sink sink = {NULL, 0, 0, 0, 0, -1};
    struct memprof_writer w;
    memprof_writer_init(&w, buffer, capacities[i], memory_sink_write, &sink);
    write_small_stream(&w);
    ck_assert_uint_eq(sink.size, sizeof small_stream);
    ck_assert_int_eq(memcmp(sink.data, small_stream, sizeof small_stream), 0);
    ck_assert_uint_le(sink.largest_call, capacities[i]);
    free(sink.data);
    free(buffer);
  }
}
END_TEST

START_TEST(test_writer_round_trips_every_event_kind_and_source)
{
  uint8_t buffer[64];
  struct memory_sink sink = {NULL, 0, 0, 0, 0, -1};
  struct memprof_writer w;
  memprof_writer_init(&w, buffer, sizeof buffer, memory_sink_write, &sink);
  ck_assert_int_eq(memprof_writer_symtab_begin(&w), 0);
  ck_assert_int_eq(memprof_writer_symtab_end(&w), 0);
  ck_assert_int_eq(memprof_writer_events_begin(&w), 0);
  int written = 0;
  for (uint64_t seed = 0; seed < 70; seed++)
    for (int kind = MEMPROF_EVENT_ALLOC; kind <= MEMPROF_EVENT_REALLOC; kind++)
      for (int source = MEMPROF_SOURCE_INTERNAL; source <= MEMPROF_SOURCE_TRACE; source++) {
        struct memprof_event e = event_of(kind, source, seed);
        ck_assert_int_eq(memprof_writer_event(&w, &e), 0);
        written++;
      }
  ck_assert_int_eq(memprof_writer_epilogue(&w), 0);

  struct format_error err;
  struct memprof_reader *r = memprof_reader_open_memory(sink.data, sink.size, "round", &err);
  ck_assert_ptr_nonnull(r);
  struct memprof_record rec;
  int read = 0;
  for (uint64_t seed = 0; seed < 70; seed++)
    for (int kind = MEMPROF_EVENT_ALLOC; kind <= MEMPROF_EVENT_REALLOC; kind++)
      for (int source = MEMPROF_SOURCE_INTERNAL; source <= MEMPROF_SOURCE_TRACE; source++) {
        struct memprof_event want = event_of(kind, source, seed);
        ck_assert_int_eq(memprof_reader_next(r, &rec), FORMAT_OK);
        ck_assert_int_eq(rec.type, MEMPROF_RECORD_EVENT);
        ck_assert_int_eq(rec.event.kind, want.kind);
        ck_assert_int_eq(rec.event.source, want.source);
        ck_assert_uint_eq(rec.event.location, want.location);
        ck_assert_uint_eq(rec.event.line, want.line);
        ck_assert_uint_eq(rec.event.old_address, want.old_address);
        ck_assert_uint_eq(rec.event.old_size, want.old_size);
        ck_assert_uint_eq(rec.event.new_address, want.new_address);
        ck_assert_uint_eq(rec.event.new_size, want.new_size);
        read++;
      }
  ck_assert_int_eq(memprof_reader_next(r, &rec), FORMAT_END);
  ck_assert_int_eq(read, written);
  ck_assert_int_eq(read, 70 * 12);
  memprof_reader_close(r);
  free(sink.data);
}
END_TEST

static void assert_symbol_equal(const struct memprof_symbol *got, const struct memprof_symbol *want)
{
  ck_assert_int_eq(got->kind, want->kind);
  ck_assert_uint_eq(got->address, want->address);
  ck_assert_uint_eq(got->trace, want->trace);
  ck_assert_uint_eq(got->line, want->line);
  ck_assert_uint_eq(got->name_length, want->name_length);
  if (want->name_length > 0)
    ck_assert_int_eq(memcmp(got->name, want->name, want->name_length), 0);
}

START_TEST(test_writer_round_trips_symbols_in_prologue_and_in_stream)
{
  static const char with_nul[] = {'a', '\0', 'b', '\n', 'c'};
  char *long_name = malloc(3000);
  for (int i = 0; i < 3000; i++)
    long_name[i] = (char)('a' + i % 26);
  struct memprof_symbol symbols[] = {
      symbol_of(MEMPROF_SYMBOL_LUA, 0x1000, 1, 0, "@app.lua", 8),
      symbol_of(MEMPROF_SYMBOL_LUA, UINT64_MAX, UINT64_MAX, 0, with_nul, sizeof with_nul),
      symbol_of(MEMPROF_SYMBOL_LUA, 0, 0, 0, "", 0),
      symbol_of(MEMPROF_SYMBOL_LUA, 0x2000, 40, 0, long_name, 3000),
      symbol_of(MEMPROF_SYMBOL_C, 0x7f00, 0, 0, "malloc", 6),
      symbol_of(MEMPROF_SYMBOL_C, 1, 0, 0, long_name, 200),
      symbol_of(MEMPROF_SYMBOL_TRACE, 0x1000, 12, 1, NULL, 0),
      symbol_of(MEMPROF_SYMBOL_TRACE, UINT64_MAX, UINT64_MAX, UINT64_MAX, NULL, 0),
  };
  size_t count = sizeof symbols / sizeof symbols[0];
  uint8_t buffer[64];
  struct memory_sink sink = {NULL, 0, 0, 0, 0, -1};
  struct memprof_writer w;
  memprof_writer_init(&w, buffer, sizeof buffer, memory_sink_write, &sink);
  ck_assert_int_eq(memprof_writer_symtab_begin(&w), 0);
  for (size_t i = 0; i < count; i++)
    ck_assert_int_eq(memprof_writer_symbol(&w, &symbols[i]), 0);
  ck_assert_int_eq(memprof_writer_symtab_end(&w), 0);
  ck_assert_int_eq(memprof_writer_events_begin(&w), 0);
  for (size_t i = 0; i < count; i++)
    ck_assert_int_eq(memprof_writer_symbol_event(&w, &symbols[i]), 0);
  ck_assert_int_eq(memprof_writer_epilogue(&w), 0);
  ck_assert_uint_eq(sink.largest_call, 3000);  /* the long name went straight to the sink */

  struct format_error err;
  struct memprof_reader *r = memprof_reader_open_memory(sink.data, sink.size, "symbols", &err);
  ck_assert_ptr_nonnull(r);
  struct memprof_record rec;
  for (int in_stream = 0; in_stream <= 1; in_stream++)
    for (size_t i = 0; i < count; i++) {
      ck_assert_int_eq(memprof_reader_next(r, &rec), FORMAT_OK);
      ck_assert_int_eq(rec.type, MEMPROF_RECORD_SYMBOL);
      ck_assert_int_eq(rec.in_stream, in_stream);
      assert_symbol_equal(&rec.symbol, &symbols[i]);
    }
  ck_assert_int_eq(memprof_reader_next(r, &rec), FORMAT_END);
  memprof_reader_close(r);
  free(sink.data);
  free(long_name);
}
END_TEST

/* Writes every record the reader returns; returns the final status. */
static enum format_status rewrite(struct memprof_reader *r, struct memprof_writer *w)
{
  struct memprof_record rec;
  enum format_status status;
  int in_events = 0;
  ck_assert_int_eq(memprof_writer_symtab_begin(w), 0);
  while ((status = memprof_reader_next(r, &rec)) == FORMAT_OK) {
    if (!in_events && (rec.type == MEMPROF_RECORD_EVENT || rec.in_stream)) {
      ck_assert_int_eq(memprof_writer_symtab_end(w), 0);
      ck_assert_int_eq(memprof_writer_events_begin(w), 0);
      in_events = 1;
    }
    if (rec.type == MEMPROF_RECORD_EVENT)
      ck_assert_int_eq(memprof_writer_event(w, &rec.event), 0);
    else if (rec.in_stream)
      ck_assert_int_eq(memprof_writer_symbol_event(w, &rec.symbol), 0);
    else
      ck_assert_int_eq(memprof_writer_symbol(w, &rec.symbol), 0);
  }
  if (status == FORMAT_END) {
    if (!in_events) {
      ck_assert_int_eq(memprof_writer_symtab_end(w), 0);
      ck_assert_int_eq(memprof_writer_events_begin(w), 0);
    }
    ck_assert_int_eq(memprof_writer_epilogue(w), 0);
  }
  return status;
}

static void assert_rewrite_identical(const char *path, size_t capacity)
{
  size_t size;
  uint8_t *original = read_whole_file(path, &size);
  struct format_error err;
  struct memprof_reader *r = memprof_reader_open(path, &err);
  ck_assert_ptr_nonnull(r);
  uint8_t *buffer = malloc(capacity);
  struct memory_sink sink = {NULL, 0, 0, 0, 0, -1};
  struct memprof_writer w;
  memprof_writer_init(&w, buffer, capacity, memory_sink_write, &sink);
  ck_assert_int_eq(rewrite(r, &w), FORMAT_END);
  ck_assert_uint_eq(sink.size, size);
  ck_assert_int_eq(memcmp(sink.data, original, size), 0);
  ck_assert_uint_eq(w.bytes_written, size);
  memprof_reader_close(r);
  free(sink.data);
  free(buffer);
  free(original);
}

START_TEST(test_writer_rewrites_basic_jiton_byte_identical)
{
  assert_rewrite_identical(FIXTURES "basic-jiton.bin", 1 << 16);
  assert_rewrite_identical(FIXTURES "basic-jiton.bin", 64);
}
END_TEST

START_TEST(test_writer_rewrites_basic_jitoff_and_segments_byte_identical)
{
  assert_rewrite_identical(FIXTURES "basic-jitoff.bin", 1 << 20);
  assert_rewrite_identical(FIXTURES "segments/seg-0001.bin", 4096);
  assert_rewrite_identical(FIXTURES "segments/seg-0006.bin", 4096);
}
END_TEST

START_TEST(test_writer_stops_after_sink_failure)
{
  uint8_t buffer[64];
  struct memory_sink sink = {NULL, 0, 0, 0, 0, 1};
  struct memprof_writer w;
  memprof_writer_init(&w, buffer, sizeof buffer, memory_sink_write, &sink);
  struct memprof_event e = event_of(MEMPROF_EVENT_REALLOC, MEMPROF_SOURCE_LUA, 63);
  ck_assert_int_eq(memprof_writer_symtab_begin(&w), 0);
  ck_assert_int_eq(memprof_writer_symtab_end(&w), 0);
  ck_assert_int_eq(memprof_writer_events_begin(&w), 0);
  int result = 0, calls = 0;
  while (result == 0 && calls < 100) {
    result = memprof_writer_event(&w, &e);
    calls++;
  }
  ck_assert_int_eq(result, -1);
  ck_assert_int_eq(w.failed, 1);
  ck_assert_uint_eq(sink.calls, 1);
  ck_assert_int_eq(memprof_writer_event(&w, &e), -1);
  ck_assert_int_eq(memprof_writer_flush(&w), -1);
  ck_assert_int_eq(memprof_writer_epilogue(&w), -1);
  free(sink.data);
}
END_TEST

START_TEST(test_writer_rejects_invalid_kind_or_source)
{
  uint8_t buffer[64];
  struct memory_sink sink = {NULL, 0, 0, 0, 0, -1};
  struct memprof_writer w;
  memprof_writer_init(&w, buffer, sizeof buffer, memory_sink_write, &sink);
  struct memprof_event symtab_kind = {MEMPROF_EVENT_SYMTAB, MEMPROF_SOURCE_LUA, 1, 1, 0, 0, 1, 1};
  struct memprof_event bad_source = {MEMPROF_EVENT_ALLOC, (enum memprof_source)5, 1, 1, 0, 0, 1, 1};
  ck_assert_int_eq(memprof_writer_event(&w, &symtab_kind), -1);
  ck_assert_int_eq(memprof_writer_event(&w, &bad_source), -1);
  ck_assert_uint_eq(w.used, 0);
  ck_assert_int_eq(w.failed, 0);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("format_writer");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_writer_produces_exact_bytes_of_small_stream);
  tcase_add_test(tc, test_writer_same_events_give_same_bytes_whatever_the_buffer);
  tcase_add_test(tc, test_writer_round_trips_every_event_kind_and_source);
  tcase_add_test(tc, test_writer_round_trips_symbols_in_prologue_and_in_stream);
  tcase_add_test(tc, test_writer_rewrites_basic_jiton_byte_identical);
  tcase_add_test(tc, test_writer_rewrites_basic_jitoff_and_segments_byte_identical);
  tcase_add_test(tc, test_writer_stops_after_sink_failure);
  tcase_add_test(tc, test_writer_rejects_invalid_kind_or_source);
  suite_add_tcase(s, tc);
  return check_run(s);
}
