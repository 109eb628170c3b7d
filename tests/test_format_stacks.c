/* tests/test_format_stacks.c: the stack sidecar's encoder and decoder: round trips, lockstep lookups, every cut, gzip, bad input with file and offset. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "format/stacks.h"
#include "tests/bytes.h"
#include "tests/gzip.h"
#include "tests/check_run.h"

/* The sample sidecar: two strings, two stacks, four events, the end.
 *   stack 1: put @two.lua:3 (defined 2) <- leak @two.lua:9 (defined 8) <- main @two.lua:20
 *   stack 2: put @two.lua:3 <- steady @two.lua:14 (defined 13) <- C "pcall" (truncated)
 *   events 1, 2 -> 1; 7 -> 2; 300 -> 1 */
static struct bytes write_sample(size_t capacity, int end)
{
  struct bytes out = {NULL, 0, 0};
  uint8_t *buffer = malloc(capacity);
  struct stacks_writer w;
  stacks_writer_init(&w, buffer, capacity, bytes_sink, &out);
  ck_assert_int_eq(stacks_writer_header(&w), 0);
  ck_assert_uint_eq(stacks_writer_string(&w, "@two.lua", 8), 1);
  struct stacks_wire_frame one[] = {
    {STACKS_FRAME_LUA, 1, 2, 3}, {STACKS_FRAME_LUA, 1, 8, 9}, {STACKS_FRAME_LUA, 1, 0, 20}};
  ck_assert_uint_eq(stacks_writer_stack(&w, one, 3, 0), 1);
  ck_assert_int_eq(stacks_writer_event(&w, 1, 1), 0);
  ck_assert_int_eq(stacks_writer_event(&w, 2, 1), 0);
  ck_assert_uint_eq(stacks_writer_string(&w, "pcall", 5), 2);
  struct stacks_wire_frame two[] = {
    {STACKS_FRAME_LUA, 1, 2, 3}, {STACKS_FRAME_LUA, 1, 13, 14}, {STACKS_FRAME_C, 2, 0, 0}};
  ck_assert_uint_eq(stacks_writer_stack(&w, two, 3, STACKS_FLAG_TRUNCATED), 2);
  ck_assert_int_eq(stacks_writer_event(&w, 7, 2), 0);
  ck_assert_int_eq(stacks_writer_event(&w, 300, 1), 0);
  ck_assert_int_eq(stacks_writer_event(&w, 300, 1), -1);  /* numbers only grow */
  if (end)
    ck_assert_int_eq(stacks_writer_end(&w), 0);
  ck_assert_int_eq(stacks_writer_flush(&w), 0);
  ck_assert_uint_eq(w.out.bytes_written, out.size);
  free(buffer);
  return out;
}

/* The sample's bytes, by hand: the wire format of docs/stacks-format.md. */
static const uint8_t sample_bytes[] = {
  'l', 'j', 's', 't', 1, 0, 0, 0,
  1, 8, '@', 't', 'w', 'o', '.', 'l', 'u', 'a',
  2, 0, 3, 0, 1, 2, 3, 0, 1, 8, 9, 0, 1, 0, 20,
  3, 1, 1,
  3, 0, 1,
  1, 5, 'p', 'c', 'a', 'l', 'l',
  2, 1, 3, 0, 1, 2, 3, 0, 1, 13, 14, 1, 2, 0, 0,
  3, 4, 2,
  3, 0xa4, 0x02, 1,   /* 300 - 8 = 292 */
  0,
};

START_TEST(test_writer_bytes_are_the_documented_format)
{
  struct bytes b = write_sample(4096, 1);
  ck_assert_uint_eq(b.size, sizeof sample_bytes);
  ck_assert_mem_eq(b.data, sample_bytes, sizeof sample_bytes);
  free(b.data);
  /* A writer with the smallest buffer flushes on the way: the same bytes. */
  b = write_sample(STACKS_WRITER_MIN_CAPACITY, 1);
  ck_assert_mem_eq(b.data, sample_bytes, sizeof sample_bytes);
  free(b.data);
}
END_TEST

/* Checks the sample's stacks as decoded; 0 or a message. */
static const char *sample_stacks_ok(const struct stacks_reader *r)
{
  if (stacks_reader_stack_count(r) != 2)
    return "two stacks";
  const struct stacks_stack *s1 = stacks_reader_stack(r, 1), *s2 = stacks_reader_stack(r, 2);
  if (!s1 || !s2 || stacks_reader_stack(r, 3) || stacks_reader_stack(r, 0))
    return "ids 1 and 2 only";
  if (s1->frame_count != 3 || s1->flags != 0 || s2->frame_count != 3 ||
      s2->flags != STACKS_FLAG_TRUNCATED)
    return "counts and flags";
  const struct stacks_frame *f = s1->frames;
  if (f[0].kind != STACKS_FRAME_LUA || strcmp(f[0].name, "@two.lua") || f[0].name_length != 8 ||
      f[0].defined != 2 || f[0].line != 3 || f[1].defined != 8 || f[1].line != 9 ||
      f[2].defined != 0 || f[2].line != 20)
    return "stack 1's frames";
  f = s2->frames;
  if (f[1].defined != 13 || f[1].line != 14 || f[2].kind != STACKS_FRAME_C ||
      strcmp(f[2].name, "pcall") || f[2].line != 0)
    return "stack 2's frames";
  if (s1->hash != stacks_hash(s1->frames, 3) || s1->hash == s2->hash)
    return "hashes";
  return NULL;
}

START_TEST(test_round_trip_records)
{
  struct bytes b = write_sample(4096, 1);
  struct format_error err;
  struct stacks_reader *r = stacks_reader_open_memory(b.data, b.size, "s.stacks", &err);
  ck_assert_ptr_nonnull(r);
  struct stacks_record rec;
  static const struct {
    enum stacks_record_type type;
    uint64_t offset;
    uint32_t id;
    uint64_t event;
  } expect[] = {
    {STACKS_RECORD_STRING, 8, 1, 0}, {STACKS_RECORD_STACK, 18, 1, 0},
    {STACKS_RECORD_EVENT, 33, 1, 1}, {STACKS_RECORD_EVENT, 36, 1, 2},
    {STACKS_RECORD_STRING, 39, 2, 0}, {STACKS_RECORD_STACK, 46, 2, 0},
    {STACKS_RECORD_EVENT, 61, 2, 7}, {STACKS_RECORD_EVENT, 64, 1, 300},
  };
  for (size_t i = 0; i < sizeof expect / sizeof expect[0]; i++) {
    ck_assert_int_eq(stacks_reader_next(r, &rec), FORMAT_OK);
    ck_assert_int_eq(rec.type, expect[i].type);
    ck_assert_uint_eq(rec.offset, expect[i].offset);
    if (rec.type == STACKS_RECORD_EVENT) {
      ck_assert_uint_eq(rec.stack_id, expect[i].id);
      ck_assert_uint_eq(rec.event, expect[i].event);
    } else {
      ck_assert_uint_eq(rec.id, expect[i].id);
    }
  }
  ck_assert_int_eq(stacks_reader_next(r, &rec), FORMAT_END);
  ck_assert_int_eq(stacks_reader_next(r, &rec), FORMAT_END);
  ck_assert_str_eq(stacks_reader_error(r)->message, "s.stacks: byte 68: end of the sidecar");
  ck_assert_uint_eq(stacks_reader_offset(r), 69);
  const char *bad = sample_stacks_ok(r);
  if (bad)
    ck_abort_msg("%s", bad);
  stacks_reader_close(r);
  free(b.data);
}
END_TEST

START_TEST(test_lockstep_event_lookup)
{
  struct bytes b = write_sample(4096, 1);
  struct format_error err;
  struct stacks_reader *r = stacks_reader_open_memory(b.data, b.size, "s", &err);
  ck_assert_ptr_nonnull(r);
  /* Events 0..400 as a segment reader meets them. */
  uint32_t got[401];
  enum format_status last = FORMAT_OK;
  for (uint64_t n = 0; n <= 400; n++) {
    enum format_status s = stacks_reader_event(r, n, &got[n]);
    if (s != FORMAT_OK && s != FORMAT_END)
      ck_abort_msg("event %llu: status %d", (unsigned long long)n, (int)s);
    last = s;
  }
  ck_assert_int_eq(last, FORMAT_END);
  for (uint64_t n = 0; n <= 400; n++) {
    uint32_t want = n == 1 || n == 2 || n == 300 ? 1 : n == 7 ? 2 : 0;
    if (got[n] != want)
      ck_abort_msg("event %llu: stack %u, want %u", (unsigned long long)n, got[n], want);
  }
  stacks_reader_close(r);
  /* A reader that skips events (asks only some) still gets the right ones. */
  r = stacks_reader_open_memory(b.data, b.size, "s", &err);
  uint32_t id;
  ck_assert_int_eq(stacks_reader_event(r, 5, &id), FORMAT_OK);
  ck_assert_uint_eq(id, 0);
  ck_assert_int_eq(stacks_reader_event(r, 7, &id), FORMAT_OK);
  ck_assert_uint_eq(id, 2);
  ck_assert_ptr_nonnull(stacks_reader_stack(r, 2));
  ck_assert_int_eq(stacks_reader_event(r, 300, &id), FORMAT_OK);
  ck_assert_uint_eq(id, 1);
  stacks_reader_close(r);
  free(b.data);
}
END_TEST

/* Reads a whole input; returns the records until the final status. */
static enum format_status read_all(const uint8_t *data, size_t size, struct stacks_record *out,
                                   size_t cap, size_t *count, struct format_error *err)
{
  *count = 0;
  struct stacks_reader *r = stacks_reader_open_memory(data, size, "cut", err);
  if (!r)
    return err->status;
  enum format_status s;
  struct stacks_record rec;
  while ((s = stacks_reader_next(r, &rec)) == FORMAT_OK) {
    if (*count < cap)
      out[*count] = rec;
    (*count)++;
  }
  *err = *stacks_reader_error(r);
  stacks_reader_close(r);
  return s;
}

START_TEST(test_every_cut_keeps_every_complete_record)
{
  struct bytes b = write_sample(4096, 1);
  /* Where each record ends (the next one's offset). */
  static const size_t ends[] = {18, 33, 36, 39, 46, 61, 64, 68};
  char failure[256] = "";
  for (size_t cut = 0; cut < b.size && !failure[0]; cut++) {
    struct stacks_record recs[16];
    size_t count;
    struct format_error err;
    enum format_status s = read_all(b.data, cut, recs, 16, &count, &err);
    size_t complete = 0;
    while (complete < 8 && ends[complete] <= cut)
      complete++;
    if (s != FORMAT_CUT || count != complete)
      snprintf(failure, sizeof failure, "cut %zu: status %d, %zu records (want %zu)", cut, (int)s,
               count, complete);
    else if (count > 0 && recs[count - 1].offset != (count > 1 ? ends[count - 2] : 8))
      snprintf(failure, sizeof failure, "cut %zu: wrong last record", cut);
    else if (cut >= 8 && err.offset != (complete ? ends[complete - 1] : 8))
      snprintf(failure, sizeof failure, "cut %zu: error at %llu", cut,
               (unsigned long long)err.offset);
  }
  if (failure[0])
    ck_abort_msg("%s", failure);
  /* No END record (a capture killed after its last flush): truncated, all records. */
  struct bytes open_end = write_sample(4096, 0);
  struct stacks_record recs[16];
  size_t count;
  struct format_error err;
  ck_assert_int_eq(read_all(open_end.data, open_end.size, recs, 16, &count, &err),
                   FORMAT_CUT);
  ck_assert_uint_eq(count, 8);
  ck_assert_str_eq(err.message, "cut: byte 68: the sidecar ends without its end record");
  free(open_end.data);
  free(b.data);
}
END_TEST

/* Compresses data as the collector does: a sync flush after each piece. */
static struct bytes gzip_pieces(const uint8_t *data, size_t size, size_t piece, int finish)
{
  struct bytes out = {NULL, 0, 0};
  z_stream z;
  memset(&z, 0, sizeof z);
  ck_assert_int_eq(deflateInit2(&z, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
  uint8_t buf[4096];
  for (size_t at = 0; at < size; at += piece) {
    z.next_in = (Bytef *)(uintptr_t)(data + at);
    z.avail_in = (uInt)(size - at < piece ? size - at : piece);
    do {
      z.next_out = buf;
      z.avail_out = sizeof buf;
      deflate(&z, Z_SYNC_FLUSH);
      bytes_sink(&out, buf, sizeof buf - z.avail_out);
    } while (z.avail_out == 0);
  }
  if (finish) {
    int rc;
    do {
      z.next_out = buf;
      z.avail_out = sizeof buf;
      rc = deflate(&z, Z_FINISH);
      bytes_sink(&out, buf, sizeof buf - z.avail_out);
    } while (rc != Z_STREAM_END);
  }
  deflateEnd(&z);
  return out;
}

START_TEST(test_gzip_round_trip_and_cut_gzip)
{
  struct bytes b = write_sample(4096, 1);
  struct bytes z = gzip_pieces(b.data, b.size, 36, 1);
  struct stacks_record recs[16];
  size_t count;
  struct format_error err;
  ck_assert_int_eq(read_all(z.data, z.size, recs, 16, &count, &err), FORMAT_END);
  ck_assert_uint_eq(count, 8);
  free(z.data);
  /* Killed after the first sync flush: the first 36 bytes' records (3). */
  struct bytes cut = gzip_pieces(b.data, 36, 36, 0);
  ck_assert_int_eq(read_all(cut.data, cut.size, recs, 16, &count, &err), FORMAT_CUT);
  ck_assert_uint_eq(count, 3);
  ck_assert_uint_eq(recs[2].event, 1);
  free(cut.data);
  /* From a file. */
  char path[] = "/tmp/ljleak-stacks-XXXXXX";
  int fd = mkstemp(path);
  ck_assert_int_ge(fd, 0);
  z = gzip_pieces(b.data, b.size, 7, 1);
  ck_assert_int_eq(write(fd, z.data, z.size), (ssize_t)z.size);
  close(fd);
  struct stacks_reader *r = stacks_reader_open(path, &err);
  ck_assert_ptr_nonnull(r);
  uint32_t id;
  ck_assert_int_eq(stacks_reader_event(r, 7, &id), FORMAT_OK);
  ck_assert_uint_eq(id, 2);
  const char *bad = NULL;
  ck_assert_int_eq(stacks_reader_event(r, 1000, &id), FORMAT_END);
  bad = sample_stacks_ok(r);
  if (bad)
    ck_abort_msg("%s", bad);
  stacks_reader_close(r);
  unlink(path);
  free(z.data);
  free(b.data);
}
END_TEST

/* A sidecar of count events (0, 1, 2, ... with stack 1) and its END: bigger than the reader's
 * chunk, so that refills fall inside it. */
static struct bytes write_events(uint64_t count)
{
  struct bytes out = {NULL, 0, 0};
  uint8_t buffer[4096];
  struct stacks_writer w;
  stacks_writer_init(&w, buffer, sizeof buffer, bytes_sink, &out);
  ck_assert_int_eq(stacks_writer_header(&w), 0);
  ck_assert_uint_eq(stacks_writer_string(&w, "@many.lua", 9), 1);
  struct stacks_wire_frame frame[] = {{STACKS_FRAME_LUA, 1, 2, 3}};
  ck_assert_uint_eq(stacks_writer_stack(&w, frame, 1, 0), 1);
  for (uint64_t i = 0; i < count; i++)
    ck_assert_int_eq(stacks_writer_event(&w, i, 1), 0);
  ck_assert_int_eq(stacks_writer_end(&w), 0);
  ck_assert_int_eq(stacks_writer_flush(&w), 0);
  return out;
}

START_TEST(test_gzip_members_read_as_one_sidecar)
{
  /* As gzip(1) concatenates files: a second member, wherever the first ends (inside a record
   * too), is read on; bytes after the last member that are no gzip member are ignored. */
  struct bytes b = write_events(100000);
  struct format_error err;
  size_t count, block;
  static const size_t splits[] = {8, 100000, 100001, 150002, 65536 * 3 + 1};
  for (size_t k = 0; k < sizeof splits / sizeof splits[0]; k++) {
    size_t split = splits[k];
    struct bytes first = gzip_split(b.data, split, split, &block);
    struct bytes second = gzip_split(b.data + split, b.size - split, 0, &block);
    bytes_sink(&first, second.data, second.size);
    bytes_sink(&first, (const uint8_t *)"\0\0trailing", 10);
    ck_assert_int_eq(read_all(first.data, first.size, NULL, 0, &count, &err), FORMAT_END);
    ck_assert_uint_eq(count, 100000 + 2);
    free(first.data);
    free(second.data);
  }
  free(b.data);
}
END_TEST

START_TEST(test_damaged_gzip_keeps_every_record_before_the_damage)
{
  /* Every record the data holds before the damaged block is read (those the plain bytes up
   * to there hold whole), then the error, at the first byte the damage kept from coming out. */
  struct bytes b = write_events(100000);
  static const size_t damages[] = {8, 9, 65536, 196605, 250001};
  for (size_t k = 0; k < sizeof damages / sizeof damages[0]; k++) {
    size_t at = damages[k], block, before, count;
    struct format_error err;
    ck_assert_int_eq(read_all(b.data, at, NULL, 0, &before, &err), FORMAT_CUT);
    struct bytes z = gzip_split(b.data, b.size, at, &block);
    z.data[block] |= 0x06;  /* block type 3 does not exist */
    ck_assert_int_eq(read_all(z.data, z.size, NULL, 0, &count, &err), FORMAT_IO);
    ck_assert_uint_eq(count, before);
    char want[128];
    snprintf(want, sizeof want, "cut: byte %zu: cannot read: damaged gzip data", at);
    ck_assert_str_eq(err.message, want);
    free(z.data);
  }
  free(b.data);
}
END_TEST

START_TEST(test_long_string_longer_than_the_read_chunk)
{
  struct bytes out = {NULL, 0, 0};
  uint8_t buffer[STACKS_WRITER_MIN_CAPACITY];
  struct stacks_writer w;
  stacks_writer_init(&w, buffer, sizeof buffer, bytes_sink, &out);
  size_t length = 300000;
  char *name = malloc(length);
  for (size_t i = 0; i < length; i++)
    name[i] = (char)('a' + i % 26);
  name[0] = '@';
  stacks_writer_header(&w);
  ck_assert_uint_eq(stacks_writer_string(&w, name, length), 1);
  struct stacks_wire_frame f = {STACKS_FRAME_LUA, 1, 1, 2};
  ck_assert_uint_eq(stacks_writer_stack(&w, &f, 1, 0), 1);
  stacks_writer_event(&w, 0, 1);
  stacks_writer_end(&w);
  ck_assert_int_eq(stacks_writer_flush(&w), 0);
  struct format_error err;
  struct stacks_reader *r = stacks_reader_open_memory(out.data, out.size, "long", &err);
  uint32_t id;
  ck_assert_int_eq(stacks_reader_event(r, 0, &id), FORMAT_OK);
  ck_assert_uint_eq(id, 1);
  const struct stacks_stack *s = stacks_reader_stack(r, 1);
  ck_assert_uint_eq(s->frames[0].name_length, length);
  ck_assert_mem_eq(s->frames[0].name, name, length);
  stacks_reader_close(r);
  free(name);
  free(out.data);
}
END_TEST

/* The sample with one byte changed at offset at; the status and message. */
static void expect_bad(size_t at, uint8_t value, enum format_status status, const char *message)
{
  uint8_t data[sizeof sample_bytes];
  memcpy(data, sample_bytes, sizeof data);
  data[at] = value;
  struct stacks_record recs[16];
  size_t count;
  struct format_error err;
  enum format_status s = read_all(data, sizeof data, recs, 16, &count, &err);
  if (s != status || strcmp(err.message, message) != 0)
    ck_abort_msg("byte %zu = %u: status %d, \"%s\"; want %d, \"%s\"", at, value, (int)s,
                 err.message, (int)status, message);
}

START_TEST(test_bad_input_names_file_and_offset)
{
  expect_bad(0, 'x', FORMAT_BAD_INPUT, "cut: byte 0: not a stack sidecar (no \"ljst\" magic)");
  expect_bad(4, 2, FORMAT_UNSUPPORTED, "cut: byte 4: sidecar version 2, this reader knows 1");
  expect_bad(6, 1, FORMAT_BAD_INPUT, "cut: byte 5: reserved header bytes are not zero");
  expect_bad(33, 9, FORMAT_BAD_INPUT, "cut: byte 33: unknown record tag 9");
  expect_bad(35, 5, FORMAT_BAD_INPUT, "cut: byte 33: event names stack 5, not defined before");
  expect_bad(35, 0, FORMAT_BAD_INPUT, "cut: byte 33: event names stack 0, not defined before");
  expect_bad(21, 7, FORMAT_BAD_INPUT, "cut: byte 18: frame 0 has unknown kind 7");
  expect_bad(22, 2, FORMAT_BAD_INPUT, "cut: byte 18: frame 0 names string 2, not defined before");
  expect_bad(19, 2, FORMAT_BAD_INPUT, "cut: byte 18: unknown stack flags 0x2");
  /* Bytes after the end record. */
  uint8_t more[sizeof sample_bytes + 1];
  memcpy(more, sample_bytes, sizeof sample_bytes);
  more[sizeof sample_bytes] = 3;
  struct stacks_record recs[16];
  size_t count;
  struct format_error err;
  ck_assert_int_eq(read_all(more, sizeof more, recs, 16, &count, &err), FORMAT_BAD_INPUT);
  ck_assert_str_eq(err.message, "cut: byte 69: bytes after the end record");
  /* Over-long ULEB128 in an event. */
  uint8_t longer[] = {'l', 'j', 's', 't', 1, 0, 0, 0, 3, 0x80, 0x80, 0x80, 0x80, 0x80,
                      0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 1};
  ck_assert_int_eq(read_all(longer, sizeof longer, recs, 16, &count, &err), FORMAT_BAD_INPUT);
  ck_assert_str_eq(err.message, "cut: byte 8: bad event record");
  /* A missing file. */
  ck_assert_ptr_null(stacks_reader_open("/nonexistent/seg-0001.stacks", &err));
  ck_assert_int_eq(err.status, FORMAT_IO);
  ck_assert_str_eq(err.message,
                   "/nonexistent/seg-0001.stacks: cannot open: No such file or directory");
  /* A cut header. */
  ck_assert_int_eq(read_all(sample_bytes, 5, recs, 16, &count, &err), FORMAT_CUT);
  ck_assert_str_eq(err.message, "cut: byte 0: the sidecar ends inside its header");
}
END_TEST

/* An event after one numbered UINT64_MAX - 1 would be numbered past the largest: the reader
 * refuses it at its byte (its bound wrapped once, and the event read back numbered below the
 * last; the stack fuzzer's find). */
START_TEST(test_no_event_follows_the_largest_number)
{
  struct bytes b = {NULL, 0, 0};
  uint8_t buffer[STACKS_WRITER_MIN_CAPACITY];
  struct stacks_writer w;
  stacks_writer_init(&w, buffer, sizeof buffer, bytes_sink, &b);
  ck_assert_int_eq(stacks_writer_header(&w), 0);
  ck_assert_uint_eq(stacks_writer_string(&w, "@a.lua", 6), 1);
  struct stacks_wire_frame one[] = {{STACKS_FRAME_LUA, 1, 0, 1}};
  ck_assert_uint_eq(stacks_writer_stack(&w, one, 1, 0), 1);
  ck_assert_int_eq(stacks_writer_event(&w, UINT64_MAX - 1, 1), 0);
  ck_assert_int_eq(stacks_writer_flush(&w), 0);
  size_t at = b.size;
  uint8_t next[] = {STACKS_TAG_EVENT, 0, 1};  /* the next event: skip 0, stack 1 */
  uint8_t *data = malloc(b.size + sizeof next);
  memcpy(data, b.data, b.size);
  memcpy(data + b.size, next, sizeof next);
  struct stacks_record recs[16];
  size_t count;
  struct format_error err;
  ck_assert_int_eq(read_all(data, b.size + sizeof next, recs, 16, &count, &err), FORMAT_BAD_INPUT);
  char expected[64];
  snprintf(expected, sizeof expected, "cut: byte %zu: event number overflows", at);
  ck_assert_str_eq(err.message, expected);
  ck_assert_uint_eq(count, 3);
  ck_assert_uint_eq(recs[2].event, UINT64_MAX - 1);
  free(data);
  free(b.data);
}
END_TEST

START_TEST(test_same_frames_same_hash_across_sidecars)
{
  struct stacks_frame a[] = {{STACKS_FRAME_LUA, "@x.lua", 6, 1, 2}, {STACKS_FRAME_C, "f", 1, 0, 0}};
  struct stacks_frame b[] = {{STACKS_FRAME_LUA, "@x.lua", 6, 1, 2}, {STACKS_FRAME_C, "f", 1, 0, 0}};
  ck_assert_uint_eq(stacks_hash(a, 2), stacks_hash(b, 2));
  b[0].line = 3;
  ck_assert_uint_ne(stacks_hash(a, 2), stacks_hash(b, 2));
  ck_assert_uint_ne(stacks_hash(a, 2), stacks_hash(a, 1));
}
END_TEST

static Suite *stacks_suite(void)
{
  Suite *s = suite_create("format_stacks");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_writer_bytes_are_the_documented_format);
  tcase_add_test(tc, test_round_trip_records);
  tcase_add_test(tc, test_lockstep_event_lookup);
  tcase_add_test(tc, test_every_cut_keeps_every_complete_record);
  tcase_add_test(tc, test_gzip_round_trip_and_cut_gzip);
  tcase_add_test(tc, test_gzip_members_read_as_one_sidecar);
  tcase_add_test(tc, test_damaged_gzip_keeps_every_record_before_the_damage);
  tcase_add_test(tc, test_long_string_longer_than_the_read_chunk);
  tcase_add_test(tc, test_bad_input_names_file_and_offset);
  tcase_add_test(tc, test_no_event_follows_the_largest_number);
  tcase_add_test(tc, test_same_frames_same_hash_across_sidecars);
  suite_add_tcase(s, tc);
  return s;
}

int main(void)
{
  return check_run(stacks_suite());
}
