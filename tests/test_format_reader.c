/* tests/test_format_reader.c: the memprof reader on real Tarantool streams and small hand-made ones. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "tests/check_run.h"
#include "format/memprof.h"

#define FIXTURES "testdata/tarantool-memprof/"

/* Counts of what a stream holds, by kind and source. */
struct tally {
  unsigned long events[4][5];  /* [kind][source] */
  unsigned long symbols[3];    /* [kind] */
  unsigned long in_stream_symbols;
  unsigned long records;
};

static enum format_status tally_reader(struct memprof_reader *r, struct tally *t)
{
  struct memprof_record record;
  enum format_status status;
  memset(t, 0, sizeof *t);
  while ((status = memprof_reader_next(r, &record)) == FORMAT_OK) {
    t->records++;
    if (record.type == MEMPROF_RECORD_EVENT) {
      t->events[record.event.kind][record.event.source]++;
    } else {
      t->symbols[record.symbol.kind]++;
      t->in_stream_symbols += (unsigned long)record.in_stream;
    }
  }
  return status;
}

/* A v3 stream: one Lua symbol, one in-stream C symbol, two events. */
static const uint8_t small_stream[] = {
    'l', 'j', 's', 3, 0, 0, 0,
    0x00, 0x90, 0x01, 3, '@', 'a', 'b', 7,   /* Lua proto 0x90 "@ab" line 7 */
    0x80,
    'l', 'j', 'm', 3, 0, 0, 0,
    0x09, 0x90, 0x01, 12, 0xa0, 0x01, 32,    /* alloc, Lua 0x90 line 12, 0xa0 32 bytes */
    0x0c, 0x40, 2, 'f', 'n',                 /* symtab event: C symbol 0x40 "fn" */
    0x06, 0xa0, 0x01, 32,                    /* free, internal, 0xa0 32 bytes */
    0x80,
};

START_TEST(test_basic_jiton_record_counts)
{
  struct format_error err;
  struct memprof_reader *r = memprof_reader_open(FIXTURES "basic-jiton.bin", &err);
  ck_assert_ptr_nonnull(r);
  struct tally t;
  ck_assert_int_eq(tally_reader(r, &t), FORMAT_END);
  ck_assert_int_eq(memprof_reader_symtab_version(r), 3);
  ck_assert_int_eq(memprof_reader_events_version(r), 3);
  ck_assert_uint_eq(t.records, 75734);
  ck_assert_uint_eq(t.symbols[MEMPROF_SYMBOL_LUA], 13);
  ck_assert_uint_eq(t.symbols[MEMPROF_SYMBOL_C], 5707);
  ck_assert_uint_eq(t.symbols[MEMPROF_SYMBOL_TRACE], 11);
  ck_assert_uint_eq(t.in_stream_symbols, 15);
  ck_assert_uint_eq(t.events[MEMPROF_EVENT_ALLOC][MEMPROF_SOURCE_INTERNAL], 20);
  ck_assert_uint_eq(t.events[MEMPROF_EVENT_ALLOC][MEMPROF_SOURCE_LUA], 319);
  ck_assert_uint_eq(t.events[MEMPROF_EVENT_ALLOC][MEMPROF_SOURCE_C], 0);
  ck_assert_uint_eq(t.events[MEMPROF_EVENT_ALLOC][MEMPROF_SOURCE_TRACE], 30583);
  ck_assert_uint_eq(t.events[MEMPROF_EVENT_FREE][MEMPROF_SOURCE_INTERNAL], 30913);
  ck_assert_uint_eq(t.events[MEMPROF_EVENT_FREE][MEMPROF_SOURCE_LUA], 21);
  ck_assert_uint_eq(t.events[MEMPROF_EVENT_FREE][MEMPROF_SOURCE_TRACE], 6);
  ck_assert_uint_eq(t.events[MEMPROF_EVENT_REALLOC][MEMPROF_SOURCE_INTERNAL], 4);
  ck_assert_uint_eq(t.events[MEMPROF_EVENT_REALLOC][MEMPROF_SOURCE_LUA], 59);
  ck_assert_uint_eq(t.events[MEMPROF_EVENT_REALLOC][MEMPROF_SOURCE_TRACE], 8078);
  ck_assert_uint_eq(memprof_reader_offset(r), 703898);
  memprof_reader_close(r);
}
END_TEST

START_TEST(test_small_stream_fields_exact)
{
  struct format_error err;
  struct memprof_reader *r = memprof_reader_open_memory(small_stream, sizeof small_stream,
                                                        "small", &err);
  ck_assert_ptr_nonnull(r);
  struct memprof_record rec;

  ck_assert_int_eq(memprof_reader_next(r, &rec), FORMAT_OK);
  ck_assert_int_eq(rec.type, MEMPROF_RECORD_SYMBOL);
  ck_assert_int_eq(rec.in_stream, 0);
  ck_assert_uint_eq(rec.offset, 7);
  ck_assert_int_eq(rec.symbol.kind, MEMPROF_SYMBOL_LUA);
  ck_assert_uint_eq(rec.symbol.address, 0x90);
  ck_assert_uint_eq(rec.symbol.line, 7);
  ck_assert_uint_eq(rec.symbol.name_length, 3);
  ck_assert_int_eq(memcmp(rec.symbol.name, "@ab", 3), 0);

  ck_assert_int_eq(memprof_reader_next(r, &rec), FORMAT_OK);
  ck_assert_int_eq(rec.type, MEMPROF_RECORD_EVENT);
  ck_assert_uint_eq(rec.offset, 23);
  ck_assert_int_eq(rec.event.kind, MEMPROF_EVENT_ALLOC);
  ck_assert_int_eq(rec.event.source, MEMPROF_SOURCE_LUA);
  ck_assert_uint_eq(rec.event.location, 0x90);
  ck_assert_uint_eq(rec.event.line, 12);
  ck_assert_uint_eq(rec.event.new_address, 0xa0);
  ck_assert_uint_eq(rec.event.new_size, 32);
  ck_assert_uint_eq(rec.event.old_address, 0);

  ck_assert_int_eq(memprof_reader_next(r, &rec), FORMAT_OK);
  ck_assert_int_eq(rec.type, MEMPROF_RECORD_SYMBOL);
  ck_assert_int_eq(rec.in_stream, 1);
  ck_assert_uint_eq(rec.offset, 30);
  ck_assert_int_eq(rec.symbol.kind, MEMPROF_SYMBOL_C);
  ck_assert_uint_eq(rec.symbol.address, 0x40);
  ck_assert_uint_eq(rec.symbol.name_length, 2);
  ck_assert_int_eq(memcmp(rec.symbol.name, "fn", 2), 0);

  ck_assert_int_eq(memprof_reader_next(r, &rec), FORMAT_OK);
  ck_assert_int_eq(rec.event.kind, MEMPROF_EVENT_FREE);
  ck_assert_int_eq(rec.event.source, MEMPROF_SOURCE_INTERNAL);
  ck_assert_uint_eq(rec.event.location, 0);
  ck_assert_uint_eq(rec.event.old_address, 0xa0);
  ck_assert_uint_eq(rec.event.old_size, 32);

  ck_assert_int_eq(memprof_reader_next(r, &rec), FORMAT_END);
  ck_assert_int_eq(memprof_reader_next(r, &rec), FORMAT_END);
  ck_assert_uint_eq(memprof_reader_offset(r), sizeof small_stream);
  memprof_reader_close(r);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("format_reader");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_basic_jiton_record_counts);
  tcase_add_test(tc, test_small_stream_fields_exact);
  suite_add_tcase(s, tc);
  return check_run(s);
}
