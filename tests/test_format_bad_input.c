/* tests/test_format_bad_input.c: the reader on cut, corrupt, unsupported and unusual input: exact statuses, offsets, messages. */
#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include "tests/bytes.h"
#include "tests/gzip.h"
#include "tests/check_run.h"
#include "format/memprof.h"

#define FIXTURES "testdata/tarantool-memprof/"

/* ---- Helpers -------------------------------------------------------------------- */

static void bytes_append(struct bytes *b, const void *data, size_t size)
{
  ck_assert_int_eq(bytes_sink(b, data, size), 0);
}

/* Where the parts of a written stream begin. */
struct layout {
  size_t prologue_final;  /* offset of the symtab's 0x80 */
  size_t events_header;
  size_t epilogue;
};

/* A stream with every record kind: symbols of each kind in the prologue and
 * in the stream, every event kind from every source, names of all lengths. */
static struct bytes write_every_kind(struct layout *layout)
{
  struct bytes out = {NULL, 0, 0};
  uint8_t buffer[256];
  struct memprof_writer w;
  memprof_writer_init(&w, buffer, sizeof buffer, bytes_sink, &out);
  static const char chunk[] = "@every.lua";
  static const char loaded[] = "return\n1";
  struct memprof_symbol prologue[] = {
      {MEMPROF_SYMBOL_LUA, 0x1000, 1, 0, chunk, sizeof chunk - 1},
      {MEMPROF_SYMBOL_C, 0x7f00, 0, 0, "malloc", 6},
      {MEMPROF_SYMBOL_TRACE, 0x1000, 3, 1, NULL, 0},
      {MEMPROF_SYMBOL_LUA, 0x2000, 1, 0, "", 0},
  };
  struct memprof_symbol in_stream[] = {
      {MEMPROF_SYMBOL_LUA, 0x3000, 1, 0, loaded, sizeof loaded - 1},
      {MEMPROF_SYMBOL_C, 0x8f00, 0, 0, "dlopen", 6},
      {MEMPROF_SYMBOL_TRACE, 0x3000, 1, 2, NULL, 0},
  };
  ck_assert_int_eq(memprof_writer_symtab_begin(&w), 0);
  for (size_t i = 0; i < sizeof prologue / sizeof prologue[0]; i++)
    ck_assert_int_eq(memprof_writer_symbol(&w, &prologue[i]), 0);
  layout->prologue_final = (size_t)w.bytes_written;
  ck_assert_int_eq(memprof_writer_symtab_end(&w), 0);
  layout->events_header = (size_t)w.bytes_written;
  ck_assert_int_eq(memprof_writer_events_begin(&w), 0);
  for (int kind = MEMPROF_EVENT_ALLOC; kind <= MEMPROF_EVENT_REALLOC; kind++)
    for (int source = MEMPROF_SOURCE_INTERNAL; source <= MEMPROF_SOURCE_TRACE; source++) {
      struct memprof_event e = {(enum memprof_event_kind)kind, (enum memprof_source)source,
                                source == MEMPROF_SOURCE_INTERNAL ? 0 : 0x1000 + (uint64_t)source,
                                source == MEMPROF_SOURCE_LUA ? 77 : 0,
                                kind == MEMPROF_EVENT_ALLOC ? 0 : 0x50000,
                                kind == MEMPROF_EVENT_ALLOC ? 0 : 300,
                                kind == MEMPROF_EVENT_FREE ? 0 : 0x60000 + (uint64_t)kind,
                                kind == MEMPROF_EVENT_FREE ? 0 : 1u << 20};
      ck_assert_int_eq(memprof_writer_event(&w, &e), 0);
      if (source == kind + 1)
        ck_assert_int_eq(memprof_writer_symbol_event(&w, &in_stream[kind - 1]), 0);
    }
  layout->epilogue = (size_t)w.bytes_written;
  ck_assert_int_eq(memprof_writer_epilogue(&w), 0);
  return out;
}

/* A record as read, with its name copied out of the reader. */
struct seen {
  struct memprof_record record;
  char name[64];
  uint64_t end;  /* reader offset after the record */
};

static size_t read_all(struct memprof_reader *r, struct seen *seen, size_t max,
                       enum format_status *status)
{
  size_t n = 0;
  struct memprof_record rec;
  while ((*status = memprof_reader_next(r, &rec)) == FORMAT_OK) {
    ck_assert_uint_lt(n, max);
    seen[n].record = rec;
    memset(seen[n].name, 0, sizeof seen[n].name);
    if (rec.type == MEMPROF_RECORD_SYMBOL && rec.symbol.name_length > 0) {
      ck_assert_uint_lt(rec.symbol.name_length, sizeof seen[n].name);
      memcpy(seen[n].name, rec.symbol.name, rec.symbol.name_length);
    }
    seen[n].end = memprof_reader_offset(r);
    n++;
  }
  return n;
}

static void assert_same_record(const struct seen *a, const struct seen *b)
{
  ck_assert_int_eq(a->record.type, b->record.type);
  ck_assert_int_eq(a->record.in_stream, b->record.in_stream);
  ck_assert_uint_eq(a->record.offset, b->record.offset);
  ck_assert_uint_eq(a->end, b->end);
  if (a->record.type == MEMPROF_RECORD_EVENT) {
    ck_assert_int_eq(memcmp(&a->record.event, &b->record.event, sizeof a->record.event), 0);
  } else {
    ck_assert_int_eq(a->record.symbol.kind, b->record.symbol.kind);
    ck_assert_uint_eq(a->record.symbol.address, b->record.symbol.address);
    ck_assert_uint_eq(a->record.symbol.line, b->record.symbol.line);
    ck_assert_uint_eq(a->record.symbol.trace, b->record.symbol.trace);
    ck_assert_uint_eq(a->record.symbol.name_length, b->record.symbol.name_length);
    ck_assert_str_eq(a->name, b->name);
  }
}

/* Reads memory to its final status; returns the number of records before it. */
static size_t read_memory(const void *data, size_t size, const char *name,
                          enum format_status *status, struct format_error *final)
{
  struct format_error err;
  struct memprof_reader *r = memprof_reader_open_memory(data, size, name, &err);
  ck_assert_ptr_nonnull(r);
  struct memprof_record rec;
  size_t n = 0;
  while ((*status = memprof_reader_next(r, &rec)) == FORMAT_OK)
    n++;
  ck_assert_int_eq(memprof_reader_next(r, &rec), *status);  /* final statuses repeat */
  *final = *memprof_reader_error(r);
  memprof_reader_close(r);
  return n;
}

static char temp_dir[200];

static void make_temp_dir(void)
{
  const char *base = getenv("TMPDIR");
  snprintf(temp_dir, sizeof temp_dir, "%s/ljleak-format-XXXXXX", base && *base ? base : P_tmpdir);
  ck_assert_ptr_nonnull(mkdtemp(temp_dir));
}

static void remove_temp_dir(void)
{
  char command[300];
  snprintf(command, sizeof command, "rm -rf '%s'", temp_dir);
  ck_assert_int_eq(system(command), 0);
}

static void write_file(const char *path, const void *data, size_t size)
{
  FILE *f = fopen(path, "wb");
  ck_assert_ptr_nonnull(f);
  ck_assert_uint_eq(fwrite(data, 1, size, f), size);
  ck_assert_int_eq(fclose(f), 0);
}

static uint8_t *read_whole_file(const char *path, size_t *size)
{
  FILE *f = fopen(path, "rb");
  ck_assert_ptr_nonnull(f);
  fseek(f, 0, SEEK_END);
  long length = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t *data = malloc((size_t)length + 1);
  ck_assert_uint_eq(fread(data, 1, (size_t)length, f), (size_t)length);
  fclose(f);
  *size = (size_t)length;
  return data;
}

/* Gzips data; with split > 0, a new deflate block starts at input byte split and
 * *block gets its offset in the output. */
static struct bytes gzip_bytes(const uint8_t *data, size_t size)
{
  return gzip_split(data, size, 0, NULL);
}

/* ---- Corrupt records ---------------------------------------------------------------- */

static const uint8_t v3_headers[] = {'l', 'j', 's', 3, 0, 0, 0, 0x80, 'l', 'j', 'm', 3, 0, 0, 0};

/* v3 headers, then `body`, then (if padded) 80 bytes of valid internal allocs, so that
 * the fast path (plenty of bytes left) and the checked path (near the end) both see it. */
static struct bytes stream_with(const uint8_t *body, size_t size, int padded)
{
  struct bytes b = {NULL, 0, 0};
  bytes_append(&b, v3_headers, sizeof v3_headers);
  bytes_append(&b, body, size);
  if (padded)
    for (int i = 0; i < 20; i++)
      bytes_append(&b, "\x05\x10\x10", 3);
  return b;
}

START_TEST(test_overlong_uleb128_is_corrupt_at_its_record)
{
  /* An alloc whose address has 11 bytes (continuation bits on ten of them). */
  static const uint8_t body[] = {0x05, 0x01, 0x05, 0x05, 0x80, 0x80, 0x80, 0x80, 0x80,
                                 0x80, 0x80, 0x80, 0x80, 0x80, 0x00, 0x01};
  for (int padded = 0; padded <= 1; padded++) {
    struct bytes b = stream_with(body, sizeof body, padded);
    enum format_status status;
    struct format_error err;
    ck_assert_uint_eq(read_memory(b.data, b.size, "long.bin", &status, &err), 1);
    ck_assert_int_eq(status, FORMAT_BAD_INPUT);
    ck_assert_uint_eq(err.offset, 18);
    ck_assert_str_eq(err.message, "long.bin: byte 18: over-long or overflowing ULEB128 at byte 19");
    free(b.data);
  }
}
END_TEST

START_TEST(test_overflowing_uleb128_is_corrupt)
{
  /* Ten bytes, but the tenth carries more than bit 63. */
  static const uint8_t body[] = {0x06, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                                 0xff, 0xff, 0xff, 0x02, 0x01};
  for (int padded = 0; padded <= 1; padded++) {
    struct bytes b = stream_with(body, sizeof body, padded);
    enum format_status status;
    struct format_error err;
    ck_assert_uint_eq(read_memory(b.data, b.size, "over.bin", &status, &err), 0);
    ck_assert_int_eq(status, FORMAT_BAD_INPUT);
    ck_assert_str_eq(err.message, "over.bin: byte 15: over-long or overflowing ULEB128 at byte 16");
    free(b.data);
  }
}
END_TEST

START_TEST(test_largest_ten_byte_uleb128_is_accepted)
{
  static const uint8_t body[] = {0x05, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                                 0xff, 0xff, 0xff, 0x01, 0x01, 0x80};
  for (int padded = 0; padded <= 1; padded++) {
    struct bytes b = stream_with(body, sizeof body - (size_t)padded, padded);
    if (padded)
      bytes_append(&b, "\x80", 1);
    struct format_error err;
    struct memprof_reader *r = memprof_reader_open_memory(b.data, b.size, "max", &err);
    struct memprof_record rec;
    ck_assert_int_eq(memprof_reader_next(r, &rec), FORMAT_OK);
    ck_assert_uint_eq(rec.event.new_address, UINT64_MAX);
    ck_assert_uint_eq(rec.event.new_size, 1);
    memprof_reader_close(r);
    free(b.data);
  }
}
END_TEST

START_TEST(test_string_length_past_the_end_is_reported)
{
  /* A symtab event: C symbol at 0x10 whose name claims 1000 bytes; 3 follow. */
  static const uint8_t body[] = {0x0c, 0x10, 0xe8, 0x07, 'a', 'b', 'c'};
  struct bytes b = stream_with(body, sizeof body, 0);
  enum format_status status;
  struct format_error err;
  ck_assert_uint_eq(read_memory(b.data, b.size, "str.bin", &status, &err), 0);
  ck_assert_int_eq(status, FORMAT_CUT);
  ck_assert_uint_eq(err.offset, 15);
  ck_assert_str_eq(err.message,
                   "str.bin: byte 15: string length 1000 runs past the end of the input (3 bytes "
                   "left); stream ends without its epilogue (cut mid-record); every complete "
                   "event before it was read");
  free(b.data);
}
END_TEST

START_TEST(test_string_length_beyond_limit_is_corrupt)
{
  /* A name of 2^40 bytes. */
  static const uint8_t body[] = {0x08, 0x10, 0x80, 0x80, 0x80, 0x80, 0x80, 0x20, 'a'};
  struct bytes b = stream_with(body, sizeof body, 1);
  enum format_status status;
  struct format_error err;
  ck_assert_uint_eq(read_memory(b.data, b.size, "huge.bin", &status, &err), 0);
  ck_assert_int_eq(status, FORMAT_BAD_INPUT);
  ck_assert_str_eq(err.message,
                   "huge.bin: byte 15: string length 1099511627776 exceeds the limit of 67108864 bytes");
  free(b.data);
}
END_TEST

START_TEST(test_invalid_event_header_byte_is_corrupt)
{
  static const uint8_t invalid[] = {0x00, 0x01, 0x02, 0x03, 0x04, 0x14, 0x17, 0x20, 0x7f, 0x81, 0xff};
  for (size_t i = 0; i < sizeof invalid; i++) {
    uint8_t body[2] = {0x05, 0x01};
    struct bytes b = stream_with(body, 0, 0);
    bytes_append(&b, "\x05\x01\x01", 3);   /* one valid alloc first */
    bytes_append(&b, &invalid[i], 1);
    bytes_append(&b, body, sizeof body);
    enum format_status status;
    struct format_error err;
    ck_assert_uint_eq(read_memory(b.data, b.size, "hdr.bin", &status, &err), 1);
    ck_assert_int_eq(status, FORMAT_BAD_INPUT);
    ck_assert_uint_eq(err.offset, 18);
    char want[128];
    snprintf(want, sizeof want, "hdr.bin: byte 18: invalid event header byte 0x%02x", invalid[i]);
    ck_assert_str_eq(err.message, want);
    free(b.data);
  }
}
END_TEST

START_TEST(test_symtab_entry_of_type_3_is_corrupt)
{
  static const uint8_t stream[] = {'l', 'j', 's', 3, 0, 0, 0, 0x00, 0x10, 1, 'a', 1, 0x03, 0x10};
  enum format_status status;
  struct format_error err;
  ck_assert_uint_eq(read_memory(stream, sizeof stream, "sym.bin", &status, &err), 1);
  ck_assert_int_eq(status, FORMAT_BAD_INPUT);
  ck_assert_str_eq(err.message,
                   "sym.bin: byte 12: invalid symtab entry header byte 0x03 (type 3 in symtab version 3)");
}
END_TEST

START_TEST(test_wrong_magic_is_corrupt)
{
  static const uint8_t events_first[] = {'l', 'j', 'm', 3, 0, 0, 0, 0x80};
  static const uint8_t bad_events[] = {'l', 'j', 's', 3, 0, 0, 0, 0x80, 'l', 'j', 'x', 3, 0, 0, 0};
  static const uint8_t text[] = "hello";
  enum format_status status;
  struct format_error err;
  ck_assert_uint_eq(read_memory(events_first, sizeof events_first, "m.bin", &status, &err), 0);
  ck_assert_int_eq(status, FORMAT_BAD_INPUT);
  ck_assert_uint_eq(err.offset, 0);
  ck_assert_str_eq(err.message,
                   "m.bin: byte 0: not a memprof stream: symtab magic is \"ljm\", expected \"ljs\"");
  read_memory(bad_events, sizeof bad_events, "m.bin", &status, &err);
  ck_assert_int_eq(status, FORMAT_BAD_INPUT);
  ck_assert_str_eq(err.message,
                   "m.bin: byte 8: not a memprof stream: events magic is \"ljx\", expected \"ljm\"");
  read_memory(text, 2, "t.txt", &status, &err);
  ck_assert_int_eq(status, FORMAT_BAD_INPUT);
  ck_assert_str_eq(err.message,
                   "t.txt: byte 0: not a memprof stream: symtab magic is \"he\", expected \"ljs\"");
  static const uint8_t binary[] = {0x00, 0xff, '"'};
  read_memory(binary, sizeof binary, "b", &status, &err);
  ck_assert_str_eq(err.message,
                   "b: byte 0: not a memprof stream: symtab magic is \"\\x00\\xff\\x22\", expected \"ljs\"");
}
END_TEST

START_TEST(test_unknown_version_names_both_version_bytes)
{
  static const int pairs[][2] = {{2, 3}, {3, 2}, {1, 3}, {3, 1}, {2, 2}, {3, 4}};
  for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
    uint8_t stream[] = {'l', 'j', 's', (uint8_t)pairs[i][0], 0, 0, 0, 0x80,
                        'l', 'j', 'm', (uint8_t)pairs[i][1], 0, 0, 0, 0x80};
    enum format_status status;
    struct format_error err;
    ck_assert_uint_eq(read_memory(stream, sizeof stream, "v.bin", &status, &err), 0);
    ck_assert_int_eq(status, FORMAT_UNSUPPORTED);
    ck_assert_uint_eq(err.offset, 8);
    char want[160];
    snprintf(want, sizeof want,
             "v.bin: byte 8: unsupported memprof version: symtab %d, events %d "
             "(ljleak reads 3/3 and 1/1)", pairs[i][0], pairs[i][1]);
    ck_assert_str_eq(err.message, want);
  }
}
END_TEST

START_TEST(test_symtab_version_out_of_range_is_rejected_at_once)
{
  static const uint8_t stream[] = {'l', 'j', 's', 4, 0, 0, 0, 0x80, 'l', 'j', 'm', 4, 0, 0, 0, 0x80};
  static const uint8_t zero[] = {'l', 'j', 's', 0, 0, 0, 0};
  enum format_status status;
  struct format_error err;
  ck_assert_uint_eq(read_memory(stream, sizeof stream, "v4.bin", &status, &err), 0);
  ck_assert_int_eq(status, FORMAT_UNSUPPORTED);
  ck_assert_uint_eq(err.offset, 0);
  ck_assert_str_eq(err.message,
                   "v4.bin: byte 0: unsupported memprof version: symtab 4 (events version not "
                   "reached; ljleak reads 3/3 and 1/1)");
  read_memory(zero, sizeof zero, "v0.bin", &status, &err);
  ck_assert_int_eq(status, FORMAT_UNSUPPORTED);
}
END_TEST

START_TEST(test_version_2_symtab_with_trace_entries_is_parsed_then_rejected)
{
  /* Version 2: type 1 is a trace (number, machine-code address, proto, line). */
  static const uint8_t stream[] = {'l', 'j', 's', 2, 0, 0, 0,
                                   0x00, 0x10, 2, '@', 'a', 1,
                                   0x01, 3, 0x90, 0x01, 0x10, 5,
                                   0x80, 'l', 'j', 'm', 2, 0, 0, 0, 0x80};
  struct format_error err;
  struct memprof_reader *r = memprof_reader_open_memory(stream, sizeof stream, "v2.bin", &err);
  struct memprof_record rec;
  ck_assert_int_eq(memprof_reader_next(r, &rec), FORMAT_OK);
  ck_assert_int_eq(rec.symbol.kind, MEMPROF_SYMBOL_LUA);
  ck_assert_int_eq(memprof_reader_next(r, &rec), FORMAT_OK);
  ck_assert_int_eq(rec.symbol.kind, MEMPROF_SYMBOL_TRACE);
  ck_assert_uint_eq(rec.symbol.trace, 3);
  ck_assert_uint_eq(rec.symbol.address, 0x10);
  ck_assert_uint_eq(rec.symbol.line, 5);
  ck_assert_int_eq(memprof_reader_next(r, &rec), FORMAT_UNSUPPORTED);
  ck_assert_str_eq(memprof_reader_error(r)->message,
                   "v2.bin: byte 20: unsupported memprof version: symtab 2, events 2 "
                   "(ljleak reads 3/3 and 1/1)");
  ck_assert_int_eq(memprof_reader_symtab_version(r), 2);
  ck_assert_int_eq(memprof_reader_events_version(r), 2);
  memprof_reader_close(r);
}
END_TEST

START_TEST(test_version_1_stream_is_read)
{
  static const uint8_t stream[] = {'l', 'j', 's', 1, 0, 0, 0,
                                   0x00, 0x10, 2, '@', 'a', 1,
                                   0x80, 'l', 'j', 'm', 1, 0, 0, 0,
                                   0x09, 0x10, 4, 0x20, 8,     /* Lua alloc */
                                   0x0e, 0x30, 0x20, 8,        /* C free */
                                   0x07, 0x20, 8, 0x40, 16,    /* internal realloc */
                                   0x80};
  struct format_error err;
  struct memprof_reader *r = memprof_reader_open_memory(stream, sizeof stream, "v1.bin", &err);
  struct memprof_record rec;
  ck_assert_int_eq(memprof_reader_next(r, &rec), FORMAT_OK);
  ck_assert_int_eq(rec.type, MEMPROF_RECORD_SYMBOL);
  ck_assert_int_eq(memprof_reader_next(r, &rec), FORMAT_OK);
  ck_assert_int_eq(rec.event.source, MEMPROF_SOURCE_LUA);
  ck_assert_uint_eq(rec.event.line, 4);
  ck_assert_int_eq(memprof_reader_next(r, &rec), FORMAT_OK);
  ck_assert_int_eq(rec.event.kind, MEMPROF_EVENT_FREE);
  ck_assert_int_eq(memprof_reader_next(r, &rec), FORMAT_OK);
  ck_assert_int_eq(rec.event.kind, MEMPROF_EVENT_REALLOC);
  ck_assert_uint_eq(rec.event.new_size, 16);
  ck_assert_int_eq(memprof_reader_next(r, &rec), FORMAT_END);
  ck_assert_int_eq(memprof_reader_symtab_version(r), 1);
  ck_assert_int_eq(memprof_reader_events_version(r), 1);
  memprof_reader_close(r);
}
END_TEST

START_TEST(test_version_1_rejects_trace_source_and_symtab_events)
{
  static const uint8_t headers[] = {'l', 'j', 's', 1, 0, 0, 0, 0x80, 'l', 'j', 'm', 1, 0, 0, 0};
  static const uint8_t bodies[][5] = {{0x11, 1, 0x20, 8, 0x80}, {0x08, 0x10, 0, 1, 0x80},
                                      {0x0c, 0x10, 0, 0x80, 0x80}};
  for (size_t i = 0; i < 3; i++) {
    struct bytes b = {NULL, 0, 0};
    bytes_append(&b, headers, sizeof headers);
    bytes_append(&b, bodies[i], sizeof bodies[i]);
    enum format_status status;
    struct format_error err;
    read_memory(b.data, b.size, "v1.bin", &status, &err);
    ck_assert_int_eq(status, FORMAT_BAD_INPUT);
    ck_assert_uint_eq(err.offset, 15);
    free(b.data);
  }
  /* and a C symbol type in a version 1 symtab */
  static const uint8_t c_entry[] = {'l', 'j', 's', 1, 0, 0, 0, 0x01, 0x10, 1, 'f', 0x80};
  enum format_status status;
  struct format_error err;
  read_memory(c_entry, sizeof c_entry, "v1.bin", &status, &err);
  ck_assert_int_eq(status, FORMAT_BAD_INPUT);
  ck_assert_uint_eq(err.offset, 7);
}
END_TEST

START_TEST(test_empty_file_is_an_error)
{
  enum format_status status;
  struct format_error err;
  read_memory("", 0, "empty.bin", &status, &err);
  ck_assert_int_eq(status, FORMAT_BAD_INPUT);
  ck_assert_str_eq(err.message, "empty.bin: byte 0: empty input: not a memprof stream");

  make_temp_dir();
  char path[300];
  snprintf(path, sizeof path, "%s/empty.bin", temp_dir);
  write_file(path, "", 0);
  struct memprof_reader *r = memprof_reader_open(path, &err);
  ck_assert_ptr_nonnull(r);
  struct memprof_record rec;
  ck_assert_int_eq(memprof_reader_next(r, &rec), FORMAT_BAD_INPUT);
  char want[512];
  snprintf(want, sizeof want, "%s: byte 0: empty input: not a memprof stream", path);
  ck_assert_str_eq(memprof_reader_error(r)->message, want);
  memprof_reader_close(r);
  remove_temp_dir();
}
END_TEST

START_TEST(test_missing_file_is_io_error)
{
  struct format_error err;
  struct memprof_reader *r = memprof_reader_open("testdata/no-such-file.bin", &err);
  ck_assert_ptr_null(r);
  ck_assert_int_eq(err.status, FORMAT_IO);
  ck_assert_str_eq(err.message, "testdata/no-such-file.bin: cannot open: No such file or directory");
}
END_TEST

START_TEST(test_trailing_bytes_after_epilogue_are_ignored)
{
  struct layout layout;
  struct bytes b = write_every_kind(&layout);
  size_t size = b.size;
  bytes_append(&b, "garbage\xff", 8);
  enum format_status status;
  struct format_error err;
  size_t with = read_memory(b.data, b.size, "t.bin", &status, &err);
  ck_assert_int_eq(status, FORMAT_END);
  size_t without = read_memory(b.data, size, "t.bin", &status, &err);
  ck_assert_int_eq(status, FORMAT_END);
  ck_assert_uint_eq(with, without);
  ck_assert_uint_eq(with, 4 + 12 + 3);
  free(b.data);
}
END_TEST

/* ---- Truncation -------------------------------------------------------------------- */

START_TEST(test_every_cut_point_keeps_exactly_the_complete_records)
{
  struct layout layout;
  struct bytes b = write_every_kind(&layout);
  struct seen full[64], cut[64];
  enum format_status status;
  struct format_error err;
  struct memprof_reader *r = memprof_reader_open_memory(b.data, b.size, "full", &err);
  size_t total = read_all(r, full, 64, &status);
  ck_assert_int_eq(status, FORMAT_END);
  ck_assert_uint_eq(total, 4 + 12 + 3);
  memprof_reader_close(r);

  /* Where an incomplete unit can start: records, the prologue's end, the events header. */
  uint64_t starts[80];
  size_t start_count = 0;
  starts[start_count++] = 0;
  for (size_t i = 0; i < total; i++)
    starts[start_count++] = full[i].record.offset;
  starts[start_count++] = layout.prologue_final;
  starts[start_count++] = layout.events_header;
  starts[start_count++] = layout.epilogue;

  for (size_t k = 1; k < b.size; k++) {
    /* A private copy of exactly k bytes, so ASan sees any read past the cut. */
    uint8_t *copy = malloc(k);
    memcpy(copy, b.data, k);
    r = memprof_reader_open_memory(copy, k, "cut.bin", &err);
    size_t n = read_all(r, cut, 64, &status);
    size_t expected = 0;
    while (expected < total && full[expected].end <= k)
      expected++;
    ck_assert_msg(n == expected, "cut at %zu: %zu records, expected %zu", k, n, expected);
    for (size_t i = 0; i < n; i++)
      assert_same_record(&cut[i], &full[i]);
    ck_assert_int_eq(status, FORMAT_CUT);
    uint64_t want_offset = 0;
    for (size_t i = 0; i < start_count; i++)
      if (starts[i] <= k && starts[i] > want_offset)
        want_offset = starts[i];
    const struct format_error *e = memprof_reader_error(r);
    ck_assert_msg(e->offset == want_offset, "cut at %zu: offset %llu, expected %llu", k,
                  (unsigned long long)e->offset, (unsigned long long)want_offset);
    char want[256];
    snprintf(want, sizeof want, "cut.bin: byte %llu: ", (unsigned long long)want_offset);
    ck_assert_int_eq(strncmp(e->message, want, strlen(want)), 0);
    ck_assert_ptr_nonnull(strstr(e->message, "stream ends without its epilogue"));
    /* The same cut read through the decoding window (gzip by content) gives the same. */
    struct bytes gz = gzip_bytes(copy, k);
    struct memprof_reader *windowed = memprof_reader_open_memory(gz.data, gz.size, "cut.bin", &err);
    enum format_status windowed_status;
    ck_assert_uint_eq(read_all(windowed, cut, 64, &windowed_status), n);
    for (size_t i = 0; i < n; i++)
      assert_same_record(&cut[i], &full[i]);
    ck_assert_int_eq(windowed_status, status);
    ck_assert_str_eq(memprof_reader_error(windowed)->message, e->message);
    memprof_reader_close(windowed);
    free(gz.data);
    memprof_reader_close(r);
    free(copy);
  }
  free(b.data);
}
END_TEST

START_TEST(test_cut_between_records_names_the_end_of_input)
{
  struct layout layout;
  struct bytes b = write_every_kind(&layout);
  enum format_status status;
  struct format_error err;
  read_memory(b.data, layout.epilogue, "cut.bin", &status, &err);
  ck_assert_int_eq(status, FORMAT_CUT);
  char want[256];
  snprintf(want, sizeof want,
           "cut.bin: byte %zu: stream ends without its epilogue (cut between records); every "
           "complete event before it was read", layout.epilogue);
  ck_assert_str_eq(err.message, want);
  read_memory(b.data, layout.epilogue - 1, "cut.bin", &status, &err);
  ck_assert_int_eq(status, FORMAT_CUT);
  ck_assert_ptr_nonnull(strstr(err.message, "(cut mid-record)"));
  free(b.data);
}
END_TEST

START_TEST(test_killed_fixture_gives_every_complete_event_then_truncated)
{
  struct format_error err;
  struct memprof_reader *r = memprof_reader_open(FIXTURES "killed-sigkill.bin.gz", &err);
  ck_assert_ptr_nonnull(r);
  struct memprof_record rec;
  enum format_status status;
  unsigned long events = 0, symbols = 0;
  while ((status = memprof_reader_next(r, &rec)) == FORMAT_OK) {
    if (rec.type == MEMPROF_RECORD_EVENT)
      events++;
    else
      symbols++;
  }
  ck_assert_int_eq(status, FORMAT_CUT);
  ck_assert_uint_eq(events, 1062434);
  ck_assert_uint_eq(symbols, 5718);
  ck_assert_uint_eq(memprof_reader_error(r)->offset, 8388595);
  ck_assert_str_eq(memprof_reader_error(r)->message,
                   FIXTURES "killed-sigkill.bin.gz: byte 8388595: stream ends without its "
                   "epilogue (cut mid-record); every complete event before it was read");
  memprof_reader_close(r);
}
END_TEST

/* ---- gzip, stdin, big streams --------------------------------------------------------- */

/* Reads a file and returns its records' count and final status. */
static size_t read_path(const char *path, enum format_status *status, struct format_error *final)
{
  struct format_error err;
  struct memprof_reader *r = memprof_reader_open(path, &err);
  ck_assert_msg(r != NULL, "%s", err.message);
  struct memprof_record rec;
  size_t n = 0;
  while ((*status = memprof_reader_next(r, &rec)) == FORMAT_OK)
    n++;
  *final = *memprof_reader_error(r);
  memprof_reader_close(r);
  return n;
}

START_TEST(test_gzip_is_recognised_by_content_not_name)
{
  size_t size;
  uint8_t *plain = read_whole_file(FIXTURES "basic-jiton.bin", &size);
  struct bytes gz = gzip_bytes(plain, size);
  make_temp_dir();
  char path[300];
  snprintf(path, sizeof path, "%s/looks-plain.bin", temp_dir);
  write_file(path, gz.data, gz.size);
  enum format_status status;
  struct format_error err;
  ck_assert_uint_eq(read_path(path, &status, &err), 75734);
  ck_assert_int_eq(status, FORMAT_END);
  ck_assert_uint_eq(read_memory(gz.data, gz.size, "gz-in-memory", &status, &err), 75734);
  ck_assert_int_eq(status, FORMAT_END);
  remove_temp_dir();
  free(gz.data);
  free(plain);
}
END_TEST

START_TEST(test_gzip_with_corrupt_trailer_is_an_error_after_every_record_and_a_cut_one_a_cut)
{
  size_t size;
  uint8_t *plain = read_whole_file(FIXTURES "basic-jiton.bin", &size);
  struct bytes gz = gzip_bytes(plain, size);
  gz.data[gz.size - 8] ^= 0x5a;  /* the CRC-32 in the trailer */
  make_temp_dir();
  char path[300];
  snprintf(path, sizeof path, "%s/crc.bin.gz", temp_dir);
  write_file(path, gz.data, gz.size);
  enum format_status status;
  struct format_error err;
  ck_assert_uint_eq(read_path(path, &status, &err), 75734);
  ck_assert_int_eq(status, FORMAT_IO);
  ck_assert_uint_eq(err.offset, 703898);
  char want[512];
  snprintf(want, sizeof want, "%s: byte 703898: gzip data is damaged (incorrect data check)", path);
  ck_assert_str_eq(err.message, want);
  /* The size in the trailer, too. */
  gz.data[gz.size - 8] ^= 0x5a;
  gz.data[gz.size - 1] ^= 0x01;
  ck_assert_uint_eq(read_memory(gz.data, gz.size, "len.gz", &status, &err), 75734);
  ck_assert_int_eq(status, FORMAT_IO);
  ck_assert_str_eq(err.message, "len.gz: byte 703898: gzip data is damaged (incorrect length check)");
  /* A gzip cut in or before its trailer: a cut, after every record (not damage: ljleak diff
   * takes the segment with a warning). */
  for (size_t kept = 0; kept < 8; kept++) {
    ck_assert_uint_eq(read_memory(gz.data, gz.size - 8 + kept, "short.gz", &status, &err), 75734);
    ck_assert_int_eq(status, FORMAT_CUT);
    ck_assert_str_eq(err.message, "short.gz: byte 703898: gzip data ends before its trailer "
                                  "(every event was read; its checksum was not)");
  }
  remove_temp_dir();
  free(gz.data);
  free(plain);
}
END_TEST

START_TEST(test_gzip_cut_mid_stream_is_truncated)
{
  size_t size;
  uint8_t *plain = read_whole_file(FIXTURES "basic-jiton.bin", &size);
  struct bytes gz = gzip_bytes(plain, size);
  enum format_status status;
  struct format_error err;
  size_t n = read_memory(gz.data, gz.size / 2, "half.gz", &status, &err);
  ck_assert_int_eq(status, FORMAT_CUT);
  ck_assert_uint_gt(n, 1000);
  ck_assert_uint_lt(n, 75734);
  free(gz.data);
  /* A damaged deflate block in the middle: every record before it, then the error. */
  size_t block = 0;
  gz = gzip_split(plain, size, 300000, &block);
  gz.data[block] |= 0x06;  /* block type 3 does not exist */
  size_t before = read_memory(plain, 300000, "plain", &status, &err);
  ck_assert_uint_eq(read_memory(gz.data, gz.size, "bad.gz", &status, &err), before);
  ck_assert_int_eq(status, FORMAT_IO);
  ck_assert_str_eq(err.message, "bad.gz: byte 300000: gzip data is damaged (invalid block type)");
  free(gz.data);
  free(plain);
}
END_TEST

START_TEST(test_gzip_damaged_or_cut_before_the_first_byte_says_so)
{
  /* Not "empty input": the file is a gzip whose data is damaged or cut before the stream's
   * first byte came out of it. */
  size_t size;
  uint8_t *plain = read_whole_file(FIXTURES "basic-jiton.bin", &size);
  struct bytes gz = gzip_bytes(plain, size);
  enum format_status status;
  struct format_error err;
  ck_assert_uint_eq(read_memory(gz.data, 10, "header.gz", &status, &err), 0);
  ck_assert_int_eq(status, FORMAT_CUT);
  ck_assert_str_eq(err.message, "header.gz: byte 0: gzip data ends before the stream's first byte");
  gz.data[10] |= 0x06;  /* the first block's type: 3 does not exist */
  ck_assert_uint_eq(read_memory(gz.data, gz.size, "bad.gz", &status, &err), 0);
  ck_assert_int_eq(status, FORMAT_IO);
  ck_assert_str_eq(err.message, "bad.gz: byte 0: gzip data is damaged (invalid block type)");
  free(gz.data);
  free(plain);
}
END_TEST

START_TEST(test_concatenated_gzip_members_read_as_one_stream)
{
  size_t size;
  uint8_t *plain = read_whole_file(FIXTURES "basic-jiton.bin", &size);
  struct bytes first = gzip_bytes(plain, 123457);
  struct bytes second = gzip_bytes(plain + 123457, size - 123457);
  bytes_append(&first, second.data, second.size);
  enum format_status status;
  struct format_error err;
  ck_assert_uint_eq(read_memory(first.data, first.size, "two.gz", &status, &err), 75734);
  ck_assert_int_eq(status, FORMAT_END);
  free(first.data);
  free(second.data);
  free(plain);
}
END_TEST

START_TEST(test_stdin_is_read_for_dash)
{
  int pipe_fds[2];
  ck_assert_int_eq(pipe(pipe_fds), 0);
  pid_t child = fork();
  ck_assert_int_ne(child, -1);
  if (child == 0) {
    /* The writer: the fixture, gzipped by content, into the pipe. */
    close(pipe_fds[0]);
    size_t size;
    uint8_t *plain = read_whole_file(FIXTURES "basic-jiton.bin", &size);
    struct bytes gz = gzip_bytes(plain, size);
    size_t done = 0;
    while (done < gz.size) {
      ssize_t n = write(pipe_fds[1], gz.data + done, gz.size - done > 777 ? 777 : gz.size - done);
      if (n <= 0)
        _exit(1);
      done += (size_t)n;
    }
    free(gz.data);
    free(plain);
    _exit(0);
  }
  close(pipe_fds[1]);
  int saved = dup(STDIN_FILENO);
  ck_assert_int_eq(dup2(pipe_fds[0], STDIN_FILENO), STDIN_FILENO);
  close(pipe_fds[0]);
  enum format_status status;
  struct format_error err;
  size_t n = read_path("-", &status, &err);
  dup2(saved, STDIN_FILENO);
  close(saved);
  int child_status;
  ck_assert_int_eq(waitpid(child, &child_status, 0), child);
  ck_assert_int_eq(child_status, 0);
  ck_assert_uint_eq(n, 75734);
  ck_assert_int_eq(status, FORMAT_END);
}
END_TEST

START_TEST(test_stdin_cut_stream_names_stdin)
{
  int pipe_fds[2];
  ck_assert_int_eq(pipe(pipe_fds), 0);
  static const uint8_t cut[] = {'l', 'j', 's', 3, 0, 0, 0, 0x80, 'l', 'j', 'm', 3, 0, 0, 0, 0x05, 1};
  ck_assert_int_eq(write(pipe_fds[1], cut, sizeof cut), (ssize_t)sizeof cut);
  close(pipe_fds[1]);
  int saved = dup(STDIN_FILENO);
  dup2(pipe_fds[0], STDIN_FILENO);
  close(pipe_fds[0]);
  enum format_status status;
  struct format_error err;
  read_path("-", &status, &err);
  dup2(saved, STDIN_FILENO);
  close(saved);
  ck_assert_int_eq(status, FORMAT_CUT);
  ck_assert_str_eq(err.message, "stdin: byte 15: stream ends without its epilogue (cut mid-record); "
                                "every complete event before it was read");
}
END_TEST

/* A stream much larger than the reader's window, with names longer than it. */
static struct bytes write_big_stream(void)
{
  struct bytes out = {NULL, 0, 0};
  uint8_t buffer[4096];
  struct memprof_writer w;
  memprof_writer_init(&w, buffer, sizeof buffer, bytes_sink, &out);
  size_t long_length = 1500 * 1000;
  char *long_name = malloc(long_length);
  for (size_t i = 0; i < long_length; i++)
    long_name[i] = (char)('a' + i % 23);
  long_name[long_length / 2] = '\n';
  struct memprof_symbol big_lua = {MEMPROF_SYMBOL_LUA, 0x1000, 77, 0, long_name, long_length};
  struct memprof_symbol big_c = {MEMPROF_SYMBOL_C, 0x2000, 0, 0, long_name, long_length - 3};
  ck_assert_int_eq(memprof_writer_symtab_begin(&w), 0);
  ck_assert_int_eq(memprof_writer_symbol(&w, &big_lua), 0);
  ck_assert_int_eq(memprof_writer_symtab_end(&w), 0);
  ck_assert_int_eq(memprof_writer_events_begin(&w), 0);
  for (uint64_t i = 0; i < 300000; i++) {
    struct memprof_event e = {(enum memprof_event_kind)(1 + i % 3),
                              (enum memprof_source)(1 + i % 4), i % 4 == 0 ? 0 : i * 7919,
                              i % 4 == 1 ? i : 0, 0, 0, 0, 0};
    if (e.kind != MEMPROF_EVENT_ALLOC) {
      e.old_address = i << 20;
      e.old_size = i;
    }
    if (e.kind != MEMPROF_EVENT_FREE) {
      e.new_address = i << 30;
      e.new_size = i * 3;
    }
    ck_assert_int_eq(memprof_writer_event(&w, &e), 0);
    if (i == 150000 || i == 250000)
      ck_assert_int_eq(memprof_writer_symbol_event(&w, &big_c), 0);
  }
  ck_assert_int_eq(memprof_writer_epilogue(&w), 0);
  free(long_name);
  return out;
}

/* Compares two readers record by record; returns the count. */
static size_t assert_same_records(struct memprof_reader *a, struct memprof_reader *b,
                                  enum format_status *status)
{
  struct memprof_record x, y;
  size_t n = 0;
  for (;;) {
    enum format_status sa = memprof_reader_next(a, &x);
    enum format_status sb = memprof_reader_next(b, &y);
    ck_assert_int_eq(sa, sb);
    if (sa != FORMAT_OK) {
      *status = sa;
      ck_assert_uint_eq(memprof_reader_error(a)->offset, memprof_reader_error(b)->offset);
      return n;
    }
    ck_assert_int_eq(x.type, y.type);
    ck_assert_uint_eq(x.offset, y.offset);
    if (x.type == MEMPROF_RECORD_EVENT) {
      ck_assert_int_eq(memcmp(&x.event, &y.event, sizeof x.event), 0);
    } else {
      ck_assert_uint_eq(x.symbol.name_length, y.symbol.name_length);
      ck_assert_int_eq(memcmp(x.symbol.name, y.symbol.name, x.symbol.name_length), 0);
      ck_assert_uint_eq(x.symbol.line, y.symbol.line);
    }
    n++;
  }
}

START_TEST(test_stream_longer_than_window_reads_the_same_from_file_gzip_and_memory)
{
  struct bytes big = write_big_stream();
  struct bytes gz = gzip_bytes(big.data, big.size);
  make_temp_dir();
  char plain_path[300], gz_path[300];
  snprintf(plain_path, sizeof plain_path, "%s/big.bin", temp_dir);
  snprintf(gz_path, sizeof gz_path, "%s/big.bin.gz", temp_dir);
  write_file(plain_path, big.data, big.size);
  write_file(gz_path, gz.data, gz.size);
  struct format_error err;
  enum format_status status;
  const char *paths[] = {plain_path, gz_path};
  for (int i = 0; i < 2; i++) {
    struct memprof_reader *memory = memprof_reader_open_memory(big.data, big.size, "big", &err);
    struct memprof_reader *file = memprof_reader_open(paths[i], &err);
    ck_assert_ptr_nonnull(file);
    ck_assert_uint_eq(assert_same_records(memory, file, &status), 1 + 300000 + 2);
    ck_assert_int_eq(status, FORMAT_END);
    memprof_reader_close(memory);
    memprof_reader_close(file);
  }
  /* Cut at points around window sizes and inside the long names. */
  static const size_t cuts[] = {100, 700000, 1500010, 1600000, 2097152, 2097153, 2500001};
  for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
    size_t k = cuts[i] < big.size ? cuts[i] : big.size - 1;
    write_file(plain_path, big.data, k);
    struct memprof_reader *memory = memprof_reader_open_memory(big.data, k, "big", &err);
    struct memprof_reader *file = memprof_reader_open(plain_path, &err);
    assert_same_records(memory, file, &status);
    ck_assert_int_eq(status, FORMAT_CUT);
    memprof_reader_close(memory);
    memprof_reader_close(file);
  }
  remove_temp_dir();
  free(gz.data);
  free(big.data);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("format_bad_input");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_overlong_uleb128_is_corrupt_at_its_record);
  tcase_add_test(tc, test_overflowing_uleb128_is_corrupt);
  tcase_add_test(tc, test_largest_ten_byte_uleb128_is_accepted);
  tcase_add_test(tc, test_string_length_past_the_end_is_reported);
  tcase_add_test(tc, test_string_length_beyond_limit_is_corrupt);
  tcase_add_test(tc, test_invalid_event_header_byte_is_corrupt);
  tcase_add_test(tc, test_symtab_entry_of_type_3_is_corrupt);
  tcase_add_test(tc, test_wrong_magic_is_corrupt);
  tcase_add_test(tc, test_unknown_version_names_both_version_bytes);
  tcase_add_test(tc, test_symtab_version_out_of_range_is_rejected_at_once);
  tcase_add_test(tc, test_version_2_symtab_with_trace_entries_is_parsed_then_rejected);
  tcase_add_test(tc, test_version_1_stream_is_read);
  tcase_add_test(tc, test_version_1_rejects_trace_source_and_symtab_events);
  tcase_add_test(tc, test_empty_file_is_an_error);
  tcase_add_test(tc, test_missing_file_is_io_error);
  tcase_add_test(tc, test_trailing_bytes_after_epilogue_are_ignored);
  tcase_add_test(tc, test_every_cut_point_keeps_exactly_the_complete_records);
  tcase_add_test(tc, test_cut_between_records_names_the_end_of_input);
  tcase_add_test(tc, test_killed_fixture_gives_every_complete_event_then_truncated);
  tcase_add_test(tc, test_gzip_is_recognised_by_content_not_name);
  tcase_add_test(tc, test_gzip_with_corrupt_trailer_is_an_error_after_every_record_and_a_cut_one_a_cut);
  tcase_add_test(tc, test_gzip_cut_mid_stream_is_truncated);
  tcase_add_test(tc, test_gzip_damaged_or_cut_before_the_first_byte_says_so);
  tcase_add_test(tc, test_concatenated_gzip_members_read_as_one_stream);
  tcase_add_test(tc, test_stdin_is_read_for_dash);
  tcase_add_test(tc, test_stdin_cut_stream_names_stdin);
  tcase_add_test(tc, test_stream_longer_than_window_reads_the_same_from_file_gzip_and_memory);
  suite_add_tcase(s, tc);
  return check_run(s);
}
