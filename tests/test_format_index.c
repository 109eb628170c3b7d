/* tests/test_format_index.c: the capture index codec: the collector's exact bytes, boundary lines, round trips, escapes, cut lines, malformed input. */
#include <check.h>
#include <errno.h>
#include <locale.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/check_run.h"
#include "format/capture_index.h"

/* ---- The collector's formats as they were before the codec (collector/capture.c
 * at c78a326), the reference for byte-identical output. ---- */

static size_t reference_escape_into(char *dst, size_t cap_left, const char *value)
{
  size_t n = 0;
  for (const char *p = value; *p && n + 2 < cap_left; p++) {
    char e = *p == '\\' ? '\\' : *p == '\t' ? 't' : *p == '\n' ? 'n' : 0;
    if (e) {
      dst[n++] = '\\';
      dst[n++] = e;
    } else {
      dst[n++] = *p;
    }
  }
  dst[n] = '\0';
  return n;
}

/* coll_capture_begin's one write: the header and the capture line. */
static void reference_begin_lines(char line[16384], long pid, const char *host, const char *command,
                                  const char *luajit, double start, uint64_t sample, double period,
                                  uint64_t max_bytes, int gzip)
{
  char *p = line;
  size_t left = 16384;
  int n = snprintf(p, left, "ljleak-index\tversion=1\ncapture\tpid=%ld\thost=", pid);
  p += n, left -= (size_t)n;
  n = (int)reference_escape_into(p, left, host);
  p += n, left -= (size_t)n;
  n = snprintf(p, left, "\tcommand=");
  p += n, left -= (size_t)n;
  n = (int)reference_escape_into(p, left - CAPTURE_INDEX_CAPTURE_TAIL_ROOM, command);
  p += n, left -= (size_t)n;
  n = snprintf(p, left, "\tluajit=");
  p += n, left -= (size_t)n;
  n = (int)reference_escape_into(p, left, luajit);
  p += n, left -= (size_t)n;
  snprintf(p, left, "\tstart=%.3f\tsample=%llu\tperiod=%g\tmax_bytes=%llu\tgzip=%d\n", start,
           (unsigned long long)sample, period, (unsigned long long)max_bytes, gzip ? 1 : 0);
}

/* segment_end's line. */
static void reference_segment_line(char line[512], uint64_t seq, const char *name, double start,
                                   double end, uint64_t gc_cycles, uint64_t heap, uint64_t events,
                                   uint64_t bytes, uint64_t sample, int complete, uint64_t young_from)
{
  snprintf(line, 512,
           "segment\tseq=%llu\tfile=%s\tstart=%.3f\tend=%.3f\tgc_cycles=%llu\theap_bytes=%llu"
           "\tevents=%llu\tbytes=%llu\tsample=%llu\tcomplete=%d",
           (unsigned long long)seq, name, start, end, (unsigned long long)gc_cycles,
           (unsigned long long)heap, (unsigned long long)events, (unsigned long long)bytes,
           (unsigned long long)sample, complete);
  size_t used = strlen(line);
  if (complete)
    snprintf(line + used, 512 - used, "\tyoung_from=%llu\n", (unsigned long long)young_from);
  else
    snprintf(line + used, 512 - used, "\n");
}

/* stop_now's line (and coll_capture_begin's on failure, with reason write-error). */
static void reference_stop_line(char line[128], double time, const char *reason)
{
  snprintf(line, 128, "stop\ttime=%.3f\treason=%s\n", time, reason);
}

/* The codec's header and capture line, written into one 16384-byte buffer as
 * the collector does. Returns the bytes. */
static size_t codec_begin_lines(char line[16384], const struct capture_index_capture *capture)
{
  size_t header = capture_index_write_header(line, 16384);
  ck_assert_uint_eq(header, 23);
  size_t rest = capture_index_write_capture(line + header, 16384 - header, capture);
  ck_assert_uint_gt(rest, 0);
  return header + rest;
}

static void assert_begin_lines_identical(const struct capture_index_capture *c)
{
  static char expected[16384], got[16384];
  reference_begin_lines(expected, c->pid, c->host, c->command, c->luajit, c->start, c->sample,
                        c->period, c->max_bytes, c->gzip);
  size_t length = codec_begin_lines(got, c);
  ck_assert_uint_eq(length, strlen(expected));
  ck_assert_int_eq(memcmp(got, expected, length + 1), 0);
}

START_TEST(test_header_and_capture_lines_match_the_collector_byte_for_byte)
{
  struct capture_index_capture c = {4242, "web-1", "luajit app.lua 8080", "LuaJIT 2.1.0-beta3",
                                    1763745600.125, 0, 10, 0, 0, NULL, NULL, NULL, NULL, 0, 0, 0, NULL};
  char line[16384];
  size_t length = codec_begin_lines(line, &c);
  const char *expected = "ljleak-index\tversion=1\n"
                         "capture\tpid=4242\thost=web-1\tcommand=luajit app.lua 8080\t"
                         "luajit=LuaJIT 2.1.0-beta3\tstart=1763745600.125\tsample=0\tperiod=10\t"
                         "max_bytes=0\tgzip=0\n";
  ck_assert_str_eq(line, expected);
  ck_assert_uint_eq(length, strlen(expected));
  assert_begin_lines_identical(&c);

  /* Every number format: %ld, %.3f, %llu, %g, the gzip flag. */
  const double periods[] = {0, 0.5, 1, 2.25, 1e-05, 123456789, 1.0 / 3};
  for (size_t i = 0; i < sizeof periods / sizeof periods[0]; i++) {
    struct capture_index_capture v = {2147483647L, "h", "c", "v", 1763745600.0005 + (double)i,
                                      UINT64_MAX, periods[i], 65536, (int)(i & 1), NULL, NULL, NULL, NULL, 0, 0, 0, NULL};
    assert_begin_lines_identical(&v);
  }
}
END_TEST

START_TEST(test_capture_line_escapes_match_the_collector_byte_for_byte)
{
  struct capture_index_capture c = {7, "host\twith\\tabs\n", "luajit -e \"print('a\\tb')\"\targ\nline",
                                    "LuaJIT\\2.1", 1.0, 4096, 1.5, 1048576, 1, NULL, NULL, NULL, NULL, 0, 0, 0, NULL};
  char line[16384];
  codec_begin_lines(line, &c);
  ck_assert_ptr_nonnull(strstr(line, "\thost=host\\twith\\\\tabs\\n\t"));
  ck_assert_ptr_nonnull(strstr(line, "\tcommand=luajit -e \"print('a\\\\tb')\"\\targ\\nline\t"));
  ck_assert_ptr_nonnull(strstr(line, "\tluajit=LuaJIT\\\\2.1\t"));
  assert_begin_lines_identical(&c);

  /* The longest host (255 bytes) and command (4095 bytes) the collector
   * keeps, all escapes: nothing is cut. */
  static char host[256], command[4096];
  memset(host, '\\', 255);
  memset(command, '\t', 4095);
  struct capture_index_capture longest = {1, host, command, "LuaJIT 2.1", 2.0, 0, 0, 0, 0,
                                          NULL, NULL, NULL, NULL, 0, 0, 0, NULL};
  codec_begin_lines(line, &longest);
  ck_assert_uint_eq(strlen(line), 23 + strlen("capture\tpid=1\thost=") + 510 + strlen("\tcommand=") +
                                      8190 + strlen("\tluajit=LuaJIT 2.1\tstart=2.000\tsample=0\tperiod=0"
                                                    "\tmax_bytes=0\tgzip=0\n"));
  assert_begin_lines_identical(&longest);
}
END_TEST

START_TEST(test_long_command_is_cut_like_the_collector_never_inside_an_escape)
{
  static char command[20001];
  for (size_t i = 0; i < 20000; i++)
    command[i] = i % 7 == 3 ? '\t' : 'a' + (char)(i % 26);
  command[20000] = '\0';
  struct capture_index_capture c = {99, "h", command, "LuaJIT 2.1", 3.0, 0, 1, 0, 0, NULL, NULL, NULL, NULL, 0, 0, 0, NULL};
  assert_begin_lines_identical(&c);
  char line[16384];
  size_t length = codec_begin_lines(line, &c);
  ck_assert_uint_lt(length, 16384);
  ck_assert_int_eq(line[length - 1], '\n');
  /* The command stops where CAPTURE_INDEX_CAPTURE_TAIL_ROOM bytes of the
   * buffer (plus the one byte its rule keeps) remain for the rest of the line. */
  const char *at = strstr(line, "\tcommand=") + strlen("\tcommand=");
  size_t command_length = (size_t)(strstr(at, "\tluajit=") - at);
  size_t room = 16384 - (size_t)(at - line);
  ck_assert_uint_ge(command_length, room - CAPTURE_INDEX_CAPTURE_TAIL_ROOM - 2);
  ck_assert_uint_le(command_length, room - CAPTURE_INDEX_CAPTURE_TAIL_ROOM - 1);
  ck_assert_int_ne(at[command_length - 1], '\\');

  /* A cut falling on an escape leaves it out whole: every shift of the
   * escapes against the cut gives the collector's bytes. */
  for (int shift = 0; shift < 4; shift++) {
    for (size_t i = 0; i < 20000; i++)
      command[i] = (i + (size_t)shift) % 3 == 0 ? '\\' : 'x';
    assert_begin_lines_identical(&c);
  }
}
END_TEST

START_TEST(test_segment_lines_match_the_collector_byte_for_byte)
{
  char expected[512], got[512];
  struct capture_index_segment complete = {1, "seg-0001.memprof", 1763745600.125, 1763745610.402, 7,
                                           1843200, 120331, 1022117, 0, 1, 118012, 0, 0, 0};
  size_t length = capture_index_write_segment(got, sizeof got, &complete);
  ck_assert_str_eq(got, "segment\tseq=1\tfile=seg-0001.memprof\tstart=1763745600.125\tend=1763745610.402"
                        "\tgc_cycles=7\theap_bytes=1843200\tevents=120331\tbytes=1022117\tsample=0"
                        "\tcomplete=1\tyoung_from=118012\n");
  ck_assert_uint_eq(length, strlen(got));
  reference_segment_line(expected, 1, "seg-0001.memprof", 1763745600.125, 1763745610.402, 7, 1843200,
                         120331, 1022117, 0, 1, 118012);
  ck_assert_str_eq(got, expected);

  /* Cut short: no young_from, whatever the field holds. */
  struct capture_index_segment cut = {12, "seg-0012.memprof.gz", 5.5, 6.25, 3, 0, 0, 64, 1000, 0, 55, 0, 0, 0};
  capture_index_write_segment(got, sizeof got, &cut);
  reference_segment_line(expected, 12, "seg-0012.memprof.gz", 5.5, 6.25, 3, 0, 0, 64, 1000, 0, 55);
  ck_assert_str_eq(got, expected);
  ck_assert_ptr_null(strstr(got, "young_from"));

  /* The largest numbers. */
  struct capture_index_segment big = {UINT64_MAX, "seg-18446744073709551615.memprof", 1e10, 1e10 + 0.001,
                                      UINT64_MAX, UINT64_MAX, UINT64_MAX, UINT64_MAX, UINT64_MAX, 1,
                                      UINT64_MAX - 1, 0, 0, 0};
  capture_index_write_segment(got, sizeof got, &big);
  reference_segment_line(expected, UINT64_MAX, "seg-18446744073709551615.memprof", 1e10, 1e10 + 0.001,
                         UINT64_MAX, UINT64_MAX, UINT64_MAX, UINT64_MAX, UINT64_MAX, 1, UINT64_MAX - 1);
  ck_assert_str_eq(got, expected);

  /* young_from NONE on a complete segment is left out. */
  big.young_from = CAPTURE_INDEX_YOUNG_FROM_NONE;
  capture_index_write_segment(got, sizeof got, &big);
  ck_assert_ptr_null(strstr(got, "young_from"));
}
END_TEST

/* trace_events and trace_lines follow the other keys when compiled code
 * allocated in the segment, and are left out (read as 0) when it did not. */
START_TEST(test_segment_trace_counts_are_written_when_traces_allocated_and_read_back)
{
  char got[512], text[1024];
  struct capture_index_segment s = {3, "seg-0003.memprof", 5.5, 6.25, 3, 10, 20, 64, 0, 1, 7, 0,
                                    79735, 79001};
  size_t length = capture_index_write_segment(got, sizeof got, &s);
  ck_assert_str_eq(got, "segment\tseq=3\tfile=seg-0003.memprof\tstart=5.500\tend=6.250\tgc_cycles=3"
                        "\theap_bytes=10\tevents=20\tbytes=64\tsample=0\tcomplete=1\tyoung_from=7"
                        "\ttrace_events=79735\ttrace_lines=79001\n");
  ck_assert_uint_eq(length, strlen(got));
  size_t used = capture_index_write_header(text, sizeof text);
  used += capture_index_write_segment(text + used, sizeof text - used, &s);
  struct capture_index index;
  struct format_error error;
  ck_assert_int_eq(capture_index_parse(&index, text, used, "trace", &error), FORMAT_OK);
  ck_assert_uint_eq(index.segment_count, 1);
  ck_assert_uint_eq(index.segments[0].trace_events, 79735);
  ck_assert_uint_eq(index.segments[0].trace_lines, 79001);
  ck_assert_uint_eq(index.segments[0].keys & (CAPTURE_INDEX_SEGMENT_HAS_TRACE_EVENTS |
                                              CAPTURE_INDEX_SEGMENT_HAS_TRACE_LINES),
                    CAPTURE_INDEX_SEGMENT_HAS_TRACE_EVENTS | CAPTURE_INDEX_SEGMENT_HAS_TRACE_LINES);
  capture_index_free(&index);

  s.trace_events = 0;
  s.trace_lines = 0;
  capture_index_write_segment(got, sizeof got, &s);
  ck_assert_ptr_null(strstr(got, "trace_"));
  used = capture_index_write_header(text, sizeof text);
  used += capture_index_write_segment(text + used, sizeof text - used, &s);
  ck_assert_int_eq(capture_index_parse(&index, text, used, "none", &error), FORMAT_OK);
  ck_assert_uint_eq(index.segments[0].trace_events, 0);
  ck_assert_uint_eq(index.segments[0].trace_lines, 0);
  ck_assert_uint_eq(index.segments[0].keys & CAPTURE_INDEX_SEGMENT_HAS_TRACE_EVENTS, 0);
  capture_index_free(&index);
}
END_TEST

START_TEST(test_stop_lines_match_the_collector_for_every_reason)
{
  char expected[128], got[128];
  for (int reason = CAPTURE_INDEX_REASON_STOP; reason <= CAPTURE_INDEX_REASON_EXIT; reason++) {
    struct capture_index_stop stop = {1763745700.5, capture_index_stop_reason_name(reason), 0, 0};
    size_t length = capture_index_write_stop(got, sizeof got, &stop);
    reference_stop_line(expected, 1763745700.5, stop.reason);
    ck_assert_str_eq(got, expected);
    ck_assert_uint_eq(length, strlen(expected));
  }
  struct capture_index_stop stop = {1763745700.5, "duration", 0, 0};
  capture_index_write_stop(got, sizeof got, &stop);
  ck_assert_str_eq(got, "stop\ttime=1763745700.500\treason=duration\n");
}
END_TEST

START_TEST(test_stop_reason_names_are_the_formats_list)
{
  ck_assert_ptr_null(capture_index_stop_reason_name(0));
  ck_assert_str_eq(capture_index_stop_reason_name(CAPTURE_INDEX_REASON_STOP), "stop");
  ck_assert_str_eq(capture_index_stop_reason_name(CAPTURE_INDEX_REASON_DURATION), "duration");
  ck_assert_str_eq(capture_index_stop_reason_name(CAPTURE_INDEX_REASON_SIGNAL), "signal");
  ck_assert_str_eq(capture_index_stop_reason_name(CAPTURE_INDEX_REASON_MAX_TOTAL_BYTES), "max-total-bytes");
  ck_assert_str_eq(capture_index_stop_reason_name(CAPTURE_INDEX_REASON_WRITE_ERROR), "write-error");
  ck_assert_str_eq(capture_index_stop_reason_name(CAPTURE_INDEX_REASON_EXIT), "exit");
  ck_assert_ptr_null(capture_index_stop_reason_name(7));
  ck_assert_ptr_null(capture_index_stop_reason_name(-1));
}
END_TEST

START_TEST(test_boundary_line_is_written_as_documented)
{
  char got[512];
  struct capture_index_boundary b = {3, 1, 120331, 1763745610.402, 7, 1843200, 52428800, 118012, "gc", 0, 0};
  size_t length = capture_index_write_boundary(got, sizeof got, &b);
  const char *expected = "boundary\tseq=3\tsegment=1\tevents=120331\ttime=1763745610.402\tgc_cycles=7"
                         "\theap_bytes=1843200\tallocated=52428800\tyoung_from=118012\tcause=gc\n";
  ck_assert_str_eq(got, expected);
  ck_assert_uint_eq(length, strlen(expected));

  /* No young_from, no cause: both keys left out. */
  b.young_from = CAPTURE_INDEX_YOUNG_FROM_NONE;
  b.cause = NULL;
  capture_index_write_boundary(got, sizeof got, &b);
  ck_assert_str_eq(got, "boundary\tseq=3\tsegment=1\tevents=120331\ttime=1763745610.402\tgc_cycles=7"
                        "\theap_bytes=1843200\tallocated=52428800\n");

  /* A boundary at event 0, the largest numbers, a cause a later version adds (escaped). */
  struct capture_index_boundary big = {UINT64_MAX, UINT64_MAX, 0, 0, UINT64_MAX, UINT64_MAX, UINT64_MAX, 0,
                                       "new\tcause", 0, 0};
  capture_index_write_boundary(got, sizeof got, &big);
  ck_assert_str_eq(got, "boundary\tseq=18446744073709551615\tsegment=18446744073709551615\tevents=0"
                        "\ttime=0.000\tgc_cycles=18446744073709551615\theap_bytes=18446744073709551615"
                        "\tallocated=18446744073709551615\tyoung_from=0\tcause=new\\tcause\n");

  /* Too small a buffer: 0, as for every line. */
  length = capture_index_write_boundary(got, sizeof got, &b);
  ck_assert_uint_eq(capture_index_write_boundary(got, length, &b), 0);
  ck_assert_uint_eq(capture_index_write_boundary(got, length + 1, &b), length);
  ck_assert_uint_eq(capture_index_write_boundary(got, 0, &b), 0);
}
END_TEST

/* Snapshot lines: written and read back; a dropped line takes back the one it names; a cut one
 * is not listed (its file may not be finished). */
START_TEST(test_snapshot_lines_round_trip_and_drop)
{
  char text[2048];
  size_t n = capture_index_write_header(text, sizeof text);
  struct capture_index_snapshot a = {.boundary = 3, .file = "snap-0003.heap", .objects = 10, .references = 20,
                                     .object_bytes = 300, .bytes = 400, .pause_us = 50};
  struct capture_index_snapshot b = {.boundary = 7, .file = "snap-0007.heap", .objects = 1, .references = 2,
                                     .object_bytes = 3, .bytes = 4, .pause_us = 5};
  struct capture_index_snapshot drop = {.boundary = 3, .file = "snap-0003.heap", .dropped = 1};
  size_t line = capture_index_write_snapshot(text + n, sizeof text - n, &a);
  ck_assert_str_eq(text + n, "snapshot\tboundary=3\tfile=snap-0003.heap\tobjects=10\treferences=20"
                             "\tobject_bytes=300\tbytes=400\tpause_us=50\n");
  n += line;
  n += capture_index_write_snapshot(text + n, sizeof text - n, &b);
  line = capture_index_write_snapshot(text + n, sizeof text - n, &drop);
  ck_assert_str_eq(text + n, "snapshot\tboundary=3\tfile=snap-0003.heap\tdropped=1\n");
  n += line;
  struct capture_index index;
  struct format_error error;
  ck_assert_int_eq(capture_index_parse(&index, text, n, "index", &error), FORMAT_OK);
  ck_assert_uint_eq(index.snapshot_count, 1);
  ck_assert_str_eq(index.snapshots[0].file, "snap-0007.heap");
  ck_assert_uint_eq(index.snapshots[0].boundary, 7);
  ck_assert_uint_eq(index.snapshots[0].objects, 1);
  ck_assert_uint_eq(index.snapshots[0].pause_us, 5);
  capture_index_free(&index);
  /* Cut inside the last line: dropped, whatever it kept. */
  const char *cut = "ljleak-index\tversion=1\nsnapshot\tboundary=3\tfile=snap-0003.heap\tobjects=1";
  ck_assert_int_eq(capture_index_parse(&index, cut, strlen(cut), "index", &error), FORMAT_OK);
  ck_assert_uint_eq(index.snapshot_count, 0);
  capture_index_free(&index);
  const char *bad = "ljleak-index\tversion=1\nsnapshot\tboundary=3\n";
  ck_assert_int_eq(capture_index_parse(&index, bad, strlen(bad), "index", &error), FORMAT_BAD_INPUT);
  ck_assert_str_eq(error.message, "index: byte 23: snapshot line: no file");
}
END_TEST

START_TEST(test_boundary_cause_names_and_which_are_forced)
{
  static const char *const names[] = {"gc",   "start",  "stop",  "every", "call",
                                      "period", "exit", "volume", "return", "snapshot"};
  ck_assert_ptr_null(capture_index_boundary_cause_name(0));
  for (int cause = CAPTURE_INDEX_CAUSE_GC; cause <= CAPTURE_INDEX_CAUSE_SNAPSHOT; cause++) {
    ck_assert_str_eq(capture_index_boundary_cause_name(cause), names[cause - 1]);
    ck_assert_int_eq(capture_index_boundary_cause_forced(capture_index_boundary_cause_name(cause)),
                     cause != CAPTURE_INDEX_CAUSE_GC);
  }
  ck_assert_ptr_null(capture_index_boundary_cause_name(11));
  ck_assert_ptr_null(capture_index_boundary_cause_name(-1));
  /* A word a later version adds is a forced cycle too; no cause is the program's own. */
  ck_assert_int_eq(capture_index_boundary_cause_forced("harness-sync"), 1);
  ck_assert_int_eq(capture_index_boundary_cause_forced(""), 1);
  ck_assert_int_eq(capture_index_boundary_cause_forced(NULL), 0);
  ck_assert_int_eq(capture_index_boundary_cause_forced("gcx"), 1);
}
END_TEST

START_TEST(test_writer_returns_0_when_the_line_does_not_fit)
{
  char buffer[64];
  struct capture_index_segment s = {1, "seg-0001.memprof", 1, 2, 3, 4, 5, 6, 7, 1, 8, 0, 0, 0};
  char whole[512];
  size_t length = capture_index_write_segment(whole, sizeof whole, &s);
  ck_assert_uint_eq(capture_index_write_segment(buffer, sizeof buffer, &s), 0);
  ck_assert_uint_eq(capture_index_write_segment(whole, length, &s), 0);      /* no room for the NUL */
  ck_assert_uint_eq(capture_index_write_segment(whole, length + 1, &s), length);
  ck_assert_uint_eq(capture_index_write_header(buffer, 23), 0);
  ck_assert_uint_eq(capture_index_write_header(buffer, 24), 23);
  ck_assert_uint_eq(capture_index_write_header(buffer, 0), 0);
  /* A host that does not fit is no cut: the line fails. */
  struct capture_index_capture c = {1, "a-long-host-name-that-fills-the-buffer", "c", "v", 0, 0, 0, 0, 0,
                                    NULL, NULL, NULL, NULL, 0, 0, 0, NULL};
  ck_assert_uint_eq(capture_index_write_capture(buffer, sizeof buffer, &c), 0);
  /* With less than the tail room left, the command is empty and the rest may still fit. */
  char small[280];
  c.host = "h";
  length = capture_index_write_capture(small, sizeof small, &c);
  ck_assert_str_eq(small, "capture\tpid=1\thost=h\tcommand=\tluajit=v\tstart=0.000\tsample=0\tperiod=0"
                          "\tmax_bytes=0\tgzip=0\n");
  ck_assert_uint_eq(length, strlen(small));
  /* NULL strings are written empty. */
  struct capture_index_stop stop = {0, NULL, 0, 0};
  capture_index_write_stop(buffer, sizeof buffer, &stop);
  ck_assert_str_eq(buffer, "stop\ttime=0.000\treason=\n");
}
END_TEST

/* ---- Parser ------------------------------------------------------------- */

static enum format_status parse_text(struct capture_index *index, const char *text,
                                     struct format_error *error)
{
  return capture_index_parse(index, text, strlen(text), "t/index", error);
}

static const char real_index[] =
    "ljleak-index\tversion=1\n"
    "capture\tpid=4242\thost=web-1\tcommand=luajit app.lua 8080\tluajit=LuaJIT 2.1.0-beta3\t"
    "start=1763745600.125\tsample=0\tperiod=10\tmax_bytes=0\tgzip=0\n"
    "segment\tseq=1\tfile=seg-0001.memprof\tstart=1763745600.125\tend=1763745610.402\tgc_cycles=7\t"
    "heap_bytes=1843200\tevents=120331\tbytes=1022117\tsample=0\tcomplete=1\tyoung_from=118012\n"
    "segment\tseq=2\tfile=seg-0002.memprof\tstart=1763745610.402\tend=1763745620.000\tgc_cycles=9\t"
    "heap_bytes=1900000\tevents=1000\tbytes=2000\tsample=0\tcomplete=1\tyoung_from=0\n"
    "segment\tseq=3\tfile=seg-0003.memprof\tstart=1763745620.000\tend=1763745700.500\tgc_cycles=9\t"
    "heap_bytes=1950000\tevents=10\tbytes=300\tsample=0\tcomplete=0\n"
    "stop\ttime=1763745700.500\treason=duration\n";

START_TEST(test_parser_reads_every_field_of_a_real_index)
{
  struct capture_index index;
  struct format_error error;
  ck_assert_int_eq(parse_text(&index, real_index, &error), FORMAT_OK);
  ck_assert_int_eq(index.has_header, 1);
  ck_assert_uint_eq(index.version, 1);
  ck_assert_int_eq(index.has_capture, 1);
  ck_assert_int_eq(index.capture.pid, 4242);
  ck_assert_str_eq(index.capture.host, "web-1");
  ck_assert_str_eq(index.capture.command, "luajit app.lua 8080");
  ck_assert_str_eq(index.capture.luajit, "LuaJIT 2.1.0-beta3");
  ck_assert(index.capture.start == 1763745600.125);
  ck_assert_uint_eq(index.capture.sample, 0);
  ck_assert(index.capture.period == 10);
  ck_assert_uint_eq(index.capture.max_bytes, 0);
  ck_assert_int_eq(index.capture.gzip, 0);
  ck_assert_uint_eq(index.capture.keys, 0x1ff);
  ck_assert_uint_eq(index.segment_count, 3);
  const struct capture_index_segment *s = &index.segments[0];
  ck_assert_uint_eq(s->seq, 1);
  ck_assert_str_eq(s->file, "seg-0001.memprof");
  ck_assert(s->start == 1763745600.125);
  ck_assert(s->end == 1763745610.402);
  ck_assert_uint_eq(s->gc_cycles, 7);
  ck_assert_uint_eq(s->heap_bytes, 1843200);
  ck_assert_uint_eq(s->events, 120331);
  ck_assert_uint_eq(s->bytes, 1022117);
  ck_assert_uint_eq(s->sample, 0);
  ck_assert_int_eq(s->complete, 1);
  ck_assert_uint_eq(s->young_from, 118012);
  ck_assert_uint_eq(s->keys, 0x7ff);
  ck_assert_uint_eq(index.segments[1].young_from, 0);
  ck_assert_uint_eq(index.segments[1].keys, 0x7ff);
  ck_assert_int_eq(index.segments[2].complete, 0);
  ck_assert_uint_eq(index.segments[2].young_from, CAPTURE_INDEX_YOUNG_FROM_NONE);
  ck_assert_uint_eq(index.segments[2].keys, 0x7ff & ~CAPTURE_INDEX_SEGMENT_HAS_YOUNG_FROM);
  ck_assert_int_eq(index.has_stop, 1);
  ck_assert(index.stop.time == 1763745700.5);
  ck_assert_str_eq(index.stop.reason, "duration");
  ck_assert_uint_eq(index.stop.keys, CAPTURE_INDEX_STOP_HAS_TIME | CAPTURE_INDEX_STOP_HAS_REASON);
  ck_assert_int_eq(index.last_line_cut, 0);
  capture_index_free(&index);
  ck_assert_ptr_null(index.segments);
}
END_TEST

/* What the writer writes, the parser reads back: integers and strings exactly,
 * times to the millisecond, periods to %g's six digits. */
/* The LuaJIT's package after gzip, when the collector names it; read back. A
 * long command leaves room for it: the tail room holds the longest names. */
START_TEST(test_capture_line_names_the_luajit_package_and_reads_it_back)
{
  struct capture_index_capture c = {4242, "web-1", "nginx: worker process", "LuaJIT 2.1.0-beta3",
                                    1763745600.125, 0, 10, 0, 0,
                                    "openresty", "libluajit2-5.1-2", "2.1-20230119-1", NULL, 0, 0, 0, NULL};
  char line[16384];
  codec_begin_lines(line, &c);
  ck_assert_str_eq(line, "ljleak-index\tversion=1\n"
                         "capture\tpid=4242\thost=web-1\tcommand=nginx: worker process\t"
                         "luajit=LuaJIT 2.1.0-beta3\tstart=1763745600.125\tsample=0\tperiod=10\t"
                         "max_bytes=0\tgzip=0\tluajit_flavour=openresty\tluajit_package=libluajit2-5.1-2\t"
                         "luajit_package_version=2.1-20230119-1\n");
  struct capture_index index;
  struct format_error error;
  ck_assert_int_eq(parse_text(&index, line, &error), FORMAT_OK);
  ck_assert_str_eq(index.capture.luajit_flavour, "openresty");
  ck_assert_str_eq(index.capture.luajit_package, "libluajit2-5.1-2");
  ck_assert_str_eq(index.capture.luajit_package_version, "2.1-20230119-1");
  ck_assert_uint_eq(index.capture.keys, 0xfff);
  capture_index_free(&index);

  static char command[20001];
  memset(command, 'a', 20000);
  command[20000] = '\0';
  c.command = command;
  char version[201], want[256];
  memset(version, '9', 200);
  version[200] = '\0';
  c.luajit_package_version = version;
  size_t length = codec_begin_lines(line, &c);
  snprintf(want, sizeof want, "\tluajit_package_version=%s\n", version);
  ck_assert_str_eq(line + length - strlen(want), want);
}
END_TEST

START_TEST(test_capture_line_names_the_program_and_its_parent_and_reads_them_back)
{
  struct capture_index_capture c = {4243, "web-1", "nginx: worker process", "LuaJIT 2.1.0-beta3",
                                    1763745600.125, 0, 10, 0, 0, NULL, NULL, NULL, NULL, 0, 0, 0, NULL};
  c.exe = "/usr/sbin/nginx";
  c.ppid = 4200;
  char line[16384];
  codec_begin_lines(line, &c);
  ck_assert_str_eq(line, "ljleak-index\tversion=1\n"
                         "capture\tpid=4243\thost=web-1\texe=/usr/sbin/nginx\tppid=4200\t"
                         "command=nginx: worker process\t"
                         "luajit=LuaJIT 2.1.0-beta3\tstart=1763745600.125\tsample=0\tperiod=10\t"
                         "max_bytes=0\tgzip=0\n");
  struct capture_index index;
  struct format_error error;
  ck_assert_int_eq(parse_text(&index, line, &error), FORMAT_OK);
  ck_assert_str_eq(index.capture.exe, "/usr/sbin/nginx");
  ck_assert_int_eq(index.capture.ppid, 4200);
  ck_assert_uint_eq(index.capture.keys, 0x1ff | CAPTURE_INDEX_CAPTURE_HAS_EXE |
                                            CAPTURE_INDEX_CAPTURE_HAS_PPID);
  capture_index_free(&index);
}
END_TEST

START_TEST(test_labels_are_written_before_the_command_and_read_back)
{
  struct capture_index_capture c = {4243, "web-1", "luajit app.lua", "LuaJIT 2.1.0-beta3",
                                    1763745600.125, 0, 10, 0, 0, NULL, NULL, NULL, NULL, 0, 0, 0, NULL};
  c.labels = "release=1.4.2,region=eu-west";
  char line[16384];
  codec_begin_lines(line, &c);
  ck_assert_str_eq(line, "ljleak-index\tversion=1\n"
                         "capture\tpid=4243\thost=web-1\tlabels=release=1.4.2,region=eu-west\t"
                         "command=luajit app.lua\t"
                         "luajit=LuaJIT 2.1.0-beta3\tstart=1763745600.125\tsample=0\tperiod=10\t"
                         "max_bytes=0\tgzip=0\n");
  struct capture_index index;
  struct format_error error;
  ck_assert_int_eq(parse_text(&index, line, &error), FORMAT_OK);
  const char *at = index.capture.labels;
  struct capture_index_label label;
  ck_assert_int_eq(capture_index_labels_next(&at, &label), 1);
  ck_assert_int_eq((int)label.key_length, 7);
  ck_assert_int_eq(strncmp(label.key, "release", 7), 0);
  ck_assert_int_eq(strncmp(label.value, "1.4.2", label.value_length), 0);
  ck_assert_int_eq(capture_index_labels_next(&at, &label), 1);
  ck_assert_int_eq(strncmp(label.value, "eu-west", label.value_length), 0);
  ck_assert_int_eq(capture_index_labels_next(&at, &label), 0);
  capture_index_free(&index);
  /* No labels: no key, as before them. */
  c.labels = "";
  codec_begin_lines(line, &c);
  ck_assert_ptr_null(strstr(line, "labels="));
}
END_TEST

START_TEST(test_labels_check_refuses_what_would_not_split_or_print)
{
  struct format_error error_why, *why = &error_why;
  ck_assert_int_eq(capture_index_labels_check("", why), FORMAT_OK);
  ck_assert_int_eq(capture_index_labels_check("a=1,a=2", NULL), FORMAT_BAD_INPUT);
  ck_assert_int_eq(capture_index_labels_check("release=1.4.2,role=api", why), FORMAT_OK);
  ck_assert_int_eq(capture_index_labels_check("r\u00e9gion=\u00e9t\u00e9", why), FORMAT_BAD_INPUT);
  ck_assert_str_eq(why->message, "label 1: the key has a character other than letters, digits, '_', '-' and '.'");
  ck_assert_int_eq(capture_index_labels_check("region=\u00e9t\u00e9 \u65e5", why), FORMAT_OK);
  static const struct {
    const char *labels, *why;
  } bad[] = {
      {"release", "label 1: 'release' is not KEY=VALUE"},
      {"=1", "label 1: the key must be 1 to 64 bytes"},
      {"a=", "label 1: the value must be 1 to 128 bytes"},
      {"a=1,", "label 1: the list ends in ','"},
      {"a=1,,b=2", "label 2: '' is not KEY=VALUE"},
      {"a=x\033[2J", "label 1: the value has a control character, a backslash or bytes that are not UTF-8"},
      {"a=x\\y", "label 1: the value has a control character, a backslash or bytes that are not UTF-8"},
      {"a=\xff", "label 1: the value has a control character, a backslash or bytes that are not UTF-8"},
      {"a=\xc2\x85", "label 1: the value has a control character, a backslash or bytes that are not UTF-8"},
      {"a=1,b=2,a=3", "label 3: the key 'a' is given twice"},
      {"a b=1", "label 1: the key has a character other than letters, digits, '_', '-' and '.'"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    ck_assert_msg(capture_index_labels_check(bad[i].labels, why) == FORMAT_BAD_INPUT, "%s", bad[i].labels);
    ck_assert_str_eq(why->message, bad[i].why);
  }
  char many[1024] = "", key[16];
  for (int i = 0; i < 17; i++) {
    snprintf(key, sizeof key, "%sk%d=v", i ? "," : "", i);
    strcat(many, key);
  }
  ck_assert_int_eq(capture_index_labels_check(many, why), FORMAT_BAD_INPUT);
  ck_assert_str_eq(why->message, "more than 16 labels");
  char long_value[200];
  memset(long_value, 'v', sizeof long_value);
  memcpy(long_value, "k=", 2);
  long_value[2 + 128] = '\0';
  ck_assert_int_eq(capture_index_labels_check(long_value, why), FORMAT_OK);
  long_value[2 + 128] = 'v';
  long_value[2 + 129] = '\0';
  ck_assert_int_eq(capture_index_labels_check(long_value, why), FORMAT_BAD_INPUT);
  /* The parser refuses them too, at the capture line: a hostile process wrote the index. */
  struct capture_index index;
  struct format_error error;
  ck_assert_int_eq(parse_text(&index, "ljleak-index\tversion=1\ncapture\tpid=1\tlabels=a=\\t\n", &error),
                   FORMAT_BAD_INPUT);
  ck_assert_str_eq(error.message, "t/index: byte 23: capture line: labels: label 1: the value has a "
                                  "control character, a backslash or bytes that are not UTF-8");
}
END_TEST

START_TEST(test_written_lines_read_back_the_same)
{
  static char text[65536];
  size_t used = capture_index_write_header(text, sizeof text);
  struct capture_index_capture c = {-12, "h\\o\ts\nt", "a\tb\\c\nd e", "", 1763745600.125, 123, 0.25,
                                    UINT64_MAX, 1, NULL, NULL, NULL, NULL, 0, 0, 0, NULL};
  used += capture_index_write_capture(text + used, sizeof text - used, &c);
  struct capture_index_segment segments[3] = {
    {1, "seg-0001.memprof", 1.5, 2.5, 1, 2, 3, 4, 5, 1, 0, 0, 0, 0},
    {2, "with\\back\tslash", 2.5, 3.25, UINT64_MAX, 0, 0, 0, 0, 1, UINT64_MAX - 1, 0, 12, 11},
    {3, "seg-0003.memprof.gz", 3.25, 4.125, 9, 9, 9, 9, 9, 0, 77, 0, 0, 0},
  };
  for (int i = 0; i < 3; i++)
    used += capture_index_write_segment(text + used, sizeof text - used, &segments[i]);
  struct capture_index_stop stop = {4.125, "max-total-bytes", 0, 0};
  used += capture_index_write_stop(text + used, sizeof text - used, &stop);

  struct capture_index index;
  struct format_error error;
  ck_assert_int_eq(capture_index_parse(&index, text, used, "round", &error), FORMAT_OK);
  ck_assert_int_eq(index.capture.pid, -12);
  ck_assert_str_eq(index.capture.host, c.host);
  ck_assert_str_eq(index.capture.command, c.command);
  ck_assert_str_eq(index.capture.luajit, "");
  ck_assert(index.capture.start == c.start);
  ck_assert_uint_eq(index.capture.sample, 123);
  ck_assert(index.capture.period == 0.25);
  ck_assert_uint_eq(index.capture.max_bytes, UINT64_MAX);
  ck_assert_int_eq(index.capture.gzip, 1);
  ck_assert_uint_eq(index.segment_count, 3);
  for (int i = 0; i < 3; i++) {
    const struct capture_index_segment *s = &index.segments[i], *w = &segments[i];
    ck_assert_uint_eq(s->seq, w->seq);
    ck_assert_str_eq(s->file, w->file);
    ck_assert(s->start == w->start && s->end == w->end);
    ck_assert_uint_eq(s->gc_cycles, w->gc_cycles);
    ck_assert_uint_eq(s->heap_bytes, w->heap_bytes);
    ck_assert_uint_eq(s->events, w->events);
    ck_assert_uint_eq(s->bytes, w->bytes);
    ck_assert_uint_eq(s->sample, w->sample);
    ck_assert_int_eq(s->complete, w->complete);
    ck_assert_uint_eq(s->trace_events, w->trace_events);
    ck_assert_uint_eq(s->trace_lines, w->trace_lines);
    ck_assert_uint_eq(s->young_from, w->complete ? w->young_from : CAPTURE_INDEX_YOUNG_FROM_NONE);
  }
  ck_assert(index.stop.time == 4.125);
  ck_assert_str_eq(index.stop.reason, "max-total-bytes");

  /* Written again from what was read: the same bytes. */
  static char again[65536];
  size_t again_used = capture_index_write_header(again, sizeof again);
  again_used += capture_index_write_capture(again + again_used, sizeof again - again_used, &index.capture);
  for (size_t i = 0; i < index.segment_count; i++)
    again_used += capture_index_write_segment(again + again_used, sizeof again - again_used, &index.segments[i]);
  again_used += capture_index_write_stop(again + again_used, sizeof again - again_used, &index.stop);
  ck_assert_uint_eq(again_used, used);
  ck_assert_int_eq(memcmp(again, text, used), 0);
  capture_index_free(&index);
}
END_TEST

/* Boundary lines as the collector interleaves them: a segment's boundaries
 * before its own line, the last ones pointing into the .part. */
static const char boundary_index[] =
    "ljleak-index\tversion=1\n"
    "capture\tpid=7\tstart=100.000\tsample=0\tperiod=10\tmax_bytes=0\tgzip=0\n"
    "boundary\tseq=1\tsegment=1\tevents=0\ttime=100.001\tgc_cycles=1\theap_bytes=1000\tallocated=0"
    "\tyoung_from=0\tcause=start\n"
    "boundary\tseq=2\tsegment=1\tevents=500\ttime=104.500\tgc_cycles=2\theap_bytes=3000\tallocated=65536"
    "\tyoung_from=420\tcause=gc\n"
    "segment\tseq=1\tfile=seg-0001.memprof\tstart=100.000\tend=110.000\tgc_cycles=2\theap_bytes=3100"
    "\tevents=900\tbytes=9000\tsample=0\tcomplete=0\n"
    "boundary\tseq=3\tsegment=2\tevents=12\ttime=111.250\tgc_cycles=3\theap_bytes=2900\tallocated=131072"
    "\tyoung_from=12\tcause=every\n";

START_TEST(test_parser_reads_boundary_lines_interleaved_with_segments)
{
  struct capture_index index;
  struct format_error error;
  ck_assert_int_eq(parse_text(&index, boundary_index, &error), FORMAT_OK);
  ck_assert_uint_eq(index.segment_count, 1);
  ck_assert_uint_eq(index.boundary_count, 3);
  const struct capture_index_boundary *b = &index.boundaries[1];
  ck_assert_uint_eq(b->seq, 2);
  ck_assert_uint_eq(b->segment, 1);
  ck_assert_uint_eq(b->events, 500);
  ck_assert(b->time == 104.5);
  ck_assert_uint_eq(b->gc_cycles, 2);
  ck_assert_uint_eq(b->heap_bytes, 3000);
  ck_assert_uint_eq(b->allocated, 65536);
  ck_assert_uint_eq(b->young_from, 420);
  ck_assert_str_eq(b->cause, "gc");
  ck_assert_uint_eq(b->keys, 0x1ff);
  /* Each line's offset, for messages about it. */
  const char *first = strstr(boundary_index, "boundary\t");
  ck_assert_uint_eq(index.boundaries[0].offset, (size_t)(first - boundary_index));
  ck_assert_uint_eq(index.boundaries[1].offset, (size_t)(strstr(first + 1, "boundary\t") - boundary_index));
  ck_assert_uint_eq(index.boundaries[2].offset, (size_t)(strstr(boundary_index, "boundary\tseq=3") - boundary_index));
  ck_assert_uint_eq(index.boundaries[0].events, 0);
  ck_assert_str_eq(index.boundaries[0].cause, "start");
  ck_assert_uint_eq(index.boundaries[2].segment, 2);
  ck_assert_str_eq(index.boundaries[2].cause, "every");
  capture_index_free(&index);
  ck_assert_ptr_null(index.boundaries);

  /* Only segment and events are needed; a missing key is absent. */
  ck_assert_int_eq(parse_text(&index, "ljleak-index\tversion=1\nboundary\tsegment=4\tevents=9\tnew=1\n", &error),
                   FORMAT_OK);
  ck_assert_uint_eq(index.boundary_count, 1);
  ck_assert_uint_eq(index.boundaries[0].keys, CAPTURE_INDEX_BOUNDARY_HAS_SEGMENT | CAPTURE_INDEX_BOUNDARY_HAS_EVENTS);
  ck_assert_uint_eq(index.boundaries[0].young_from, CAPTURE_INDEX_YOUNG_FROM_NONE);
  ck_assert_ptr_null(index.boundaries[0].cause);
  ck_assert_uint_eq(index.boundaries[0].seq, 0);
  capture_index_free(&index);
}
END_TEST

START_TEST(test_boundary_lines_read_back_the_same)
{
  static char text[8192];
  size_t used = capture_index_write_header(text, sizeof text);
  struct capture_index_boundary written[4] = {
    {1, 1, 0, 1763745600.125, 1, 2, 0, 0, "start", 0, 0},
    {2, 1, 77, 1763745601.5, 9, 1 << 20, 4096, 70, "gc", 0, 0},
    {3, 2, 5, 1763745602.25, 10, 3, UINT64_MAX, CAPTURE_INDEX_YOUNG_FROM_NONE, NULL, 0, 0},
    {UINT64_MAX, UINT64_MAX, UINT64_MAX, 0, 0, 0, 0, UINT64_MAX - 1, "a\\b\nc", 0, 0},
  };
  size_t offsets[4];
  for (int i = 0; i < 4; i++) {
    offsets[i] = used;
    used += capture_index_write_boundary(text + used, sizeof text - used, &written[i]);
  }
  struct capture_index index;
  struct format_error error;
  ck_assert_int_eq(capture_index_parse(&index, text, used, "round", &error), FORMAT_OK);
  ck_assert_uint_eq(index.boundary_count, 4);
  for (int i = 0; i < 4; i++) {
    const struct capture_index_boundary *r = &index.boundaries[i], *w = &written[i];
    ck_assert_uint_eq(r->seq, w->seq);
    ck_assert_uint_eq(r->segment, w->segment);
    ck_assert_uint_eq(r->events, w->events);
    ck_assert(r->time == w->time);
    ck_assert_uint_eq(r->gc_cycles, w->gc_cycles);
    ck_assert_uint_eq(r->heap_bytes, w->heap_bytes);
    ck_assert_uint_eq(r->allocated, w->allocated);
    ck_assert_uint_eq(r->young_from, w->young_from);
    if (w->cause)
      ck_assert_str_eq(r->cause, w->cause);
    else
      ck_assert_ptr_null(r->cause);
    ck_assert_uint_eq(r->offset, offsets[i]);
  }
  /* Written again from what was read: the same bytes. */
  static char again[8192];
  size_t again_used = capture_index_write_header(again, sizeof again);
  for (size_t i = 0; i < index.boundary_count; i++)
    again_used += capture_index_write_boundary(again + again_used, sizeof again - again_used, &index.boundaries[i]);
  ck_assert_uint_eq(again_used, used);
  ck_assert_int_eq(memcmp(again, text, used), 0);
  capture_index_free(&index);
}
END_TEST

/* A process killed while it wrote a boundary line: the line is dropped
 * whole, whatever it kept; every prefix of the index reads, and no prefix
 * lists more boundaries than the whole. */
START_TEST(test_cut_boundary_line_is_dropped_and_every_prefix_reads)
{
  struct capture_index index;
  struct format_error error;
  size_t size = strlen(boundary_index);
  const char *last = strstr(boundary_index, "boundary\tseq=3");
  size_t last_at = (size_t)(last - boundary_index);
  /* Cut after its cause's tab: everything but the cause is whole, still dropped. */
  size_t cut_at = (size_t)(strstr(last, "\tcause=") - boundary_index) + 1;
  ck_assert_int_eq(capture_index_parse(&index, boundary_index, cut_at, "t/index", &error), FORMAT_OK);
  ck_assert_uint_eq(index.boundary_count, 2);
  ck_assert_int_eq(index.last_line_cut, 1);
  ck_assert_uint_eq(index.last_line_offset, last_at);
  capture_index_free(&index);

  size_t previous = 0;
  for (size_t cut = 0; cut <= size; cut++) {
    ck_assert_msg(capture_index_parse(&index, boundary_index, cut, "t/index", &error) == FORMAT_OK,
                  "cut at %zu: %s", cut, error.message);
    if (index.boundary_count < previous || index.boundary_count > 3)
      ck_abort_msg("cut at %zu: %zu boundaries after %zu", cut, index.boundary_count, previous);
    previous = index.boundary_count;
    capture_index_free(&index);
  }
  ck_assert_uint_eq(previous, 3);
}
END_TEST

START_TEST(test_unknown_keys_kinds_empty_lines_and_fields_are_skipped)
{
  struct capture_index index;
  struct format_error error;
  const char *text = "ljleak-index\tversion=1\tflavour=new\n"
                     "capture\tpid=5\tnew_key=x\\q\t\tsample=8\t\n"
                     "\n"
                     "mark\tcycle=3\tbad field without equals\tx=\\\n"
                     "segment\tfile=a.memprof\tweird=\tcomplete=1\n"
                     "note\n"
                     "stop\treason=stop\tmore=1\n"
                     "after-stop\tk=v\n";
  ck_assert_int_eq(parse_text(&index, text, &error), FORMAT_OK);
  ck_assert_int_eq(index.capture.pid, 5);
  ck_assert_uint_eq(index.capture.sample, 8);
  ck_assert_uint_eq(index.capture.keys, CAPTURE_INDEX_CAPTURE_HAS_PID | CAPTURE_INDEX_CAPTURE_HAS_SAMPLE);
  ck_assert_ptr_null(index.capture.host);
  ck_assert_uint_eq(index.segment_count, 1);
  ck_assert_str_eq(index.segments[0].file, "a.memprof");
  ck_assert_uint_eq(index.segments[0].keys, CAPTURE_INDEX_SEGMENT_HAS_FILE | CAPTURE_INDEX_SEGMENT_HAS_COMPLETE);
  ck_assert_uint_eq(index.segments[0].young_from, CAPTURE_INDEX_YOUNG_FROM_NONE);
  ck_assert_int_eq(index.has_stop, 1);
  ck_assert_str_eq(index.stop.reason, "stop");
  ck_assert_uint_eq(index.stop.keys, CAPTURE_INDEX_STOP_HAS_REASON);
  capture_index_free(&index);
}
END_TEST

START_TEST(test_escapes_are_undone_and_a_slash_in_a_file_is_kept_for_the_reader)
{
  struct capture_index index;
  struct format_error error;
  const char *text = "ljleak-index\tversion=1\n"
                     "capture\thost=a\\\\b\\tc\\nd\tcommand=x=y\n"
                     "segment\tfile=../outside.memprof\n";
  ck_assert_int_eq(parse_text(&index, text, &error), FORMAT_OK);
  ck_assert_str_eq(index.capture.host, "a\\b\tc\nd");
  ck_assert_str_eq(index.capture.command, "x=y");
  ck_assert_str_eq(index.segments[0].file, "../outside.memprof");
  capture_index_free(&index);
}
END_TEST

START_TEST(test_escape_of_a_value_is_the_writers_and_comes_in_whole_pieces)
{
  const char *value = "a\\b\tc\nd\"\xff";
  char whole[32];
  size_t used;
  size_t n = capture_index_escape(whole, sizeof whole, value, &used);
  ck_assert_str_eq(whole, "a\\\\b\\tc\\nd\"\xff");
  ck_assert_uint_eq(n, strlen(whole));
  ck_assert_uint_eq(used, strlen(value));
  /* 2 * strlen + 1 bytes hold any value whole. */
  char tight[2 * 3 + 1];
  ck_assert_uint_eq(capture_index_escape(tight, sizeof tight, "\\\t\n", &used), 6);
  ck_assert_uint_eq(used, 3);
  /* In small pieces, no escape is split and the pieces join into the whole. */
  for (size_t size = 3; size < 8; size++) {
    char joined[64] = "", piece[8];
    for (const char *p = value; *p; p += used) {
      n = capture_index_escape(piece, size, p, &used);
      ck_assert_uint_gt(used, 0);
      ck_assert_uint_lt(n, size);
      strcat(joined, piece);
    }
    ck_assert_str_eq(joined, whole);
  }
  char none[1] = {'x'};
  ck_assert_uint_eq(capture_index_escape(none, 0, value, &used), 0);
  ck_assert_int_eq(none[0], 'x');
  ck_assert_uint_eq(used, 0);
}
END_TEST

START_TEST(test_decimal_comma_of_a_comma_locale_is_read)
{
  struct capture_index index;
  struct format_error error;
  const char *text = "ljleak-index\tversion=1\n"
                     "capture\tstart=1763745600,125\tperiod=0,5\n"
                     "stop\ttime=1763745700,500\treason=exit\n";
  ck_assert_int_eq(parse_text(&index, text, &error), FORMAT_OK);
  ck_assert(index.capture.start == 1763745600.125);
  ck_assert(index.capture.period == 0.5);
  ck_assert(index.stop.time == 1763745700.5);
  capture_index_free(&index);
}
END_TEST

START_TEST(test_empty_index_has_no_header_and_is_no_error)
{
  struct capture_index index;
  struct format_error error;
  ck_assert_int_eq(capture_index_parse(&index, "", 0, "t/index", &error), FORMAT_OK);
  ck_assert_int_eq(index.has_header, 0);
  ck_assert_int_eq(index.has_capture, 0);
  ck_assert_uint_eq(index.segment_count, 0);
  ck_assert_int_eq(index.last_line_cut, 0);
  capture_index_free(&index);
  /* The header cut before its first tab: no header yet. */
  ck_assert_int_eq(parse_text(&index, "ljleak-ind", &error), FORMAT_OK);
  ck_assert_int_eq(index.has_header, 0);
  ck_assert_int_eq(index.last_line_cut, 1);
  ck_assert_uint_eq(index.last_line_offset, 0);
  capture_index_free(&index);
  ck_assert_int_eq(parse_text(&index, "ljleak-index\tvers", &error), FORMAT_OK);
  ck_assert_int_eq(index.has_header, 1);
  ck_assert_uint_eq(index.version, 0);
  capture_index_free(&index);
}
END_TEST

START_TEST(test_cut_last_line_keeps_fields_before_its_last_tab)
{
  struct capture_index index;
  struct format_error error;
  /* A segment line cut inside young_from: young_from may be short, so it is dropped. */
  char text[2048];
  snprintf(text, sizeof text, "%.*s%s", (int)(strlen(real_index) - strlen("stop\ttime=1763745700.500\treason=duration\n")),
           real_index, "segment\tseq=4\tfile=seg-0004.memprof\tend=1763745800.5\tcomplete=1\tyoung_from=11");
  ck_assert_int_eq(parse_text(&index, text, &error), FORMAT_OK);
  ck_assert_uint_eq(index.segment_count, 4);
  ck_assert_str_eq(index.segments[3].file, "seg-0004.memprof");
  ck_assert(index.segments[3].end == 1763745800.5);
  ck_assert_int_eq(index.segments[3].complete, 1);
  ck_assert_uint_eq(index.segments[3].young_from, CAPTURE_INDEX_YOUNG_FROM_NONE);
  ck_assert_int_eq(index.last_line_cut, 1);
  ck_assert_uint_eq(index.last_line_offset, strlen(text) - strlen("segment\tseq=4\tfile=seg-0004.memprof\t"
                                                                  "end=1763745800.5\tcomplete=1\tyoung_from=11"));
  ck_assert_int_eq(index.has_stop, 0);
  capture_index_free(&index);

  /* Cut inside its file name, or right after it: the segment is not listed. */
  ck_assert_int_eq(parse_text(&index, "ljleak-index\tversion=1\nsegment\tseq=1\tfile=seg-00", &error), FORMAT_OK);
  ck_assert_uint_eq(index.segment_count, 0);
  capture_index_free(&index);
  ck_assert_int_eq(parse_text(&index, "ljleak-index\tversion=1\nsegment\tseq=1\tfile=seg-0001.memprof", &error),
                   FORMAT_OK);
  ck_assert_uint_eq(index.segment_count, 0);
  capture_index_free(&index);
  ck_assert_int_eq(parse_text(&index, "ljleak-index\tversion=1\nsegment\tseq=1\tfile=seg-0001.memprof\t", &error),
                   FORMAT_OK);
  ck_assert_uint_eq(index.segment_count, 1);
  capture_index_free(&index);

  /* A cut value that is not a number yet is no error. */
  ck_assert_int_eq(parse_text(&index, "ljleak-index\tversion=1\ncapture\tpid=1\tstart=", &error), FORMAT_OK);
  ck_assert_uint_eq(index.capture.keys, CAPTURE_INDEX_CAPTURE_HAS_PID);
  capture_index_free(&index);

  /* A cut stop line is a stop line with what it kept. */
  ck_assert_int_eq(parse_text(&index, "ljleak-index\tversion=1\nstop\ttime=5.000\treason=dur", &error),
                   FORMAT_OK);
  ck_assert_int_eq(index.has_stop, 1);
  ck_assert_uint_eq(index.stop.keys, CAPTURE_INDEX_STOP_HAS_TIME);
  ck_assert_ptr_null(index.stop.reason);
  capture_index_free(&index);
}
END_TEST

/* A process killed at any byte of its index leaves something that reads. */
START_TEST(test_every_prefix_of_a_real_index_reads)
{
  size_t size = strlen(real_index);
  size_t previous_segments = 0;
  for (size_t cut = 0; cut <= size; cut++) {
    struct capture_index index;
    struct format_error error;
    ck_assert_msg(capture_index_parse(&index, real_index, cut, "t/index", &error) == FORMAT_OK,
                  "cut at %zu: %s", cut, error.message);
    ck_assert_uint_ge(index.segment_count, previous_segments);
    previous_segments = index.segment_count;
    ck_assert_int_eq(index.last_line_cut, cut > 0 && real_index[cut - 1] != '\n');
    capture_index_free(&index);
  }
  ck_assert_uint_eq(previous_segments, 3);
}
END_TEST

struct malformed_case {
  const char *text;
  size_t length;          /* 0: strlen(text) */
  size_t offset;
  const char *message;    /* after "t/index: byte N: " */
};

START_TEST(test_malformed_input_is_an_error_at_its_byte_offset)
{
  static const struct malformed_case cases[] = {
    {"capture\tpid=1\n", 0, 0, "the first line is not the ljleak-index header"},
    {"\nljleak-index\tversion=1\n", 0, 0, "the first line is not the ljleak-index header"},
    {"ljleak-index\tversion=x\n", 0, 13, "ljleak-index line: version is not a whole number"},
    {"ljleak-index\tversion=1\nljleak-index\tversion=1\n", 0, 23, "a second ljleak-index line"},
    {"ljleak-index\nc\ncapture\tpid=1\ncapture\tpid=2\n", 0, 29, "a second capture line"},
    {"ljleak-index\nstop\treason=stop\nstop\treason=exit\n", 0, 30, "a second stop line"},
    {"ljleak-index\ncapture\tpid\n", 0, 21, "capture line: a field without '='"},
    {"ljleak-index\ncapture\tpid=1\thost=a\tpid=2\n", 0, 34, "capture line: pid given twice"},
    {"ljleak-index\ncapture\tpid=12a\n", 0, 21, "capture line: pid is not a whole number"},
    {"ljleak-index\ncapture\tpid=\n", 0, 21, "capture line: pid is not a whole number"},
    {"ljleak-index\ncapture\tpid=9223372036854775808\n", 0, 21, "capture line: pid is not a whole number"},
    {"ljleak-index\ncapture\tpid=-\n", 0, 21, "capture line: pid is not a whole number"},
    {"ljleak-index\ncapture\tsample=-1\n", 0, 21, "capture line: sample is not a whole number"},
    {"ljleak-index\ncapture\tsample=+1\n", 0, 21, "capture line: sample is not a whole number"},
    {"ljleak-index\ncapture\tmax_bytes=18446744073709551616\n", 0, 21, "capture line: max_bytes is not a whole number"},
    {"ljleak-index\ncapture\tstart=1.5x\n", 0, 21, "capture line: start is not a number"},
    {"ljleak-index\ncapture\tstart= 1.5\n", 0, 21, "capture line: start is not a number"},
    {"ljleak-index\ncapture\tperiod=\n", 0, 21, "capture line: period is not a number"},
    {"ljleak-index\ncapture\tperiod=1,000.5\n", 0, 21, "capture line: period is not a number"},
    {"ljleak-index\ncapture\tgzip=2\n", 0, 21, "capture line: gzip is not 0 or 1"},
    {"ljleak-index\ncapture\thost=a\\qb\n", 0, 27, "capture line: host has an unknown escape"},
    {"ljleak-index\ncapture\tcommand=ab\\\n", 0, 31, "capture line: command has an unknown escape"},
    {"ljleak-index\ncapture\thost=a\0b\n", 30, 21, "capture line: host has a NUL byte"},
    {"ljleak-index\nsegment\tseq=1\n", 0, 13, "segment line: no file"},
    {"ljleak-index\nsegment\tseq=1\tfile=\n", 0, 13, "segment line: the file is empty"},
    {"ljleak-index\nsegment\tfile=a\tcomplete=yes\n", 0, 28, "segment line: complete is not 0 or 1"},
    {"ljleak-index\nsegment\tfile=a\tend=now\n", 0, 28, "segment line: end is not a number"},
    {"ljleak-index\nsegment\tfile=a\tyoung_from=1.5\n", 0, 28, "segment line: young_from is not a whole number"},
    {"ljleak-index\nsegment\tfile=a\tfile=b\n", 0, 28, "segment line: file given twice"},
    {"ljleak-index\nstop\ttime=x\n", 0, 18, "stop line: time is not a number"},
    {"ljleak-index\nboundary\tseq=1\tevents=5\n", 0, 13, "boundary line: no segment"},
    {"ljleak-index\nboundary\tseq=1\tsegment=1\n", 0, 13, "boundary line: no events"},
    {"ljleak-index\nboundary\tsegment=1\tevents=5\tyoung_from=6\n", 0, 13,
     "boundary line: young_from is greater than events"},
    {"ljleak-index\nboundary\tsegment=1\tevents=-5\n", 0, 32, "boundary line: events is not a whole number"},
    {"ljleak-index\nboundary\tsegment=x\tevents=5\n", 0, 22, "boundary line: segment is not a whole number"},
    {"ljleak-index\nboundary\tsegment=1\tevents=5\ttime=soon\n", 0, 41, "boundary line: time is not a number"},
    {"ljleak-index\nboundary\tsegment=1\tevents=5\tallocated=1e3\n", 0, 41,
     "boundary line: allocated is not a whole number"},
    {"ljleak-index\nboundary\tsegment=1\tevents=5\tevents=6\n", 0, 41, "boundary line: events given twice"},
    {"ljleak-index\nboundary\tsegment=1\tevents=5\tcause=g\\c\n", 0, 48, "boundary line: cause has an unknown escape"},
    {"ljleak-index\nboundary\tsegment=1\tevents=5\tcause\n", 0, 41, "boundary line: a field without '='"},
    /* A cut boundary line is dropped, but still errs on what it has whole. */
    {"ljleak-index\nboundary\tsegment=1\tevents=x\tcause=g", 0, 32, "boundary line: events is not a whole number"},
    /* A cut last line still errs on what it has whole. */
    {"ljleak-index\nsegment\tfile=a\tgc_cycles=z\tbytes=1", 0, 28, "segment line: gc_cycles is not a whole number"},
    {"segment\tseq=1\tbytes=1", 0, 0, "the first line is not the ljleak-index header"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const struct malformed_case *c = &cases[i];
    struct capture_index index;
    struct format_error error;
    size_t length = c->length ? c->length : strlen(c->text);
    char expected[512];
    ck_assert_msg(capture_index_parse(&index, c->text, length, "t/index", &error) == FORMAT_BAD_INPUT,
                  "case %zu read", i);
    snprintf(expected, sizeof expected, "t/index: byte %zu: %s", c->offset, c->message);
    ck_assert_msg(error.status == FORMAT_BAD_INPUT, "case %zu", i);
    ck_assert_msg(error.offset == c->offset, "case %zu: offset %zu, want %zu", i, error.offset, c->offset);
    ck_assert_msg(!strcmp(error.message, expected), "case %zu: '%s', want '%s'", i, error.message, expected);
    ck_assert_ptr_null(index.segments);
    ck_assert_ptr_null(index.text);
  }
}
END_TEST

START_TEST(test_read_file_reads_an_index_and_names_the_file_in_errors)
{
  char dir[] = "/tmp/ljleak-index-test.XXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(dir));
  char path[128];
  snprintf(path, sizeof path, "%s/index", dir);
  struct capture_index index;
  struct format_error error;

  ck_assert_int_eq(capture_index_read_file(&index, path, &error), FORMAT_IO);
  ck_assert_int_eq(error.system_error, ENOENT);
  char expected[256];
  snprintf(expected, sizeof expected, "%s: cannot open: %s", path, strerror(ENOENT));
  ck_assert_str_eq(error.message, expected);

  FILE *f = fopen(path, "w");
  ck_assert_ptr_nonnull(f);
  /* Bigger than the first read, so the buffer grows. */
  fputs("ljleak-index\tversion=1\ncapture\tpid=3\n", f);
  for (int i = 1; i <= 200; i++)
    fprintf(f, "segment\tseq=%d\tfile=seg-%04d.memprof\tcomplete=1\tyoung_from=%d\n", i, i, i * 3);
  fclose(f);
  ck_assert_int_eq(capture_index_read_file(&index, path, &error), FORMAT_OK);
  ck_assert_uint_eq(index.segment_count, 200);
  ck_assert_str_eq(index.segments[199].file, "seg-0200.memprof");
  ck_assert_uint_eq(index.segments[199].young_from, 600);
  capture_index_free(&index);

  f = fopen(path, "w");
  fputs("ljleak-index\tversion=1\nsegment\tfile=a\tend=x\n", f);
  fclose(f);
  ck_assert_int_eq(capture_index_read_file(&index, path, &error), FORMAT_BAD_INPUT);
  snprintf(expected, sizeof expected, "%s: byte 38: segment line: end is not a number", path);
  ck_assert_str_eq(error.message, expected);
  ck_assert_uint_eq(error.offset, 38);

  ck_assert_int_eq(capture_index_read_file(&index, dir, &error), FORMAT_IO);
  ck_assert_int_eq(error.system_error, EISDIR);
  unlink(path);
  rmdir(dir);
}
END_TEST

START_TEST(test_c_function_lines_are_written_and_read_back_a_cut_one_dropped)
{
  char text[1024];
  size_t n = capture_index_write_header(text, sizeof text);
  struct capture_index_c_function decode = {"cjson.decode", "cjson.so", "lua", 0};
  struct capture_index_c_function odd = {"a\tb", "", "offset", 0};
  n += capture_index_write_c_function(text + n, sizeof text - n, &decode);
  ck_assert_str_eq(text + strlen("ljleak-index\tversion=1\n"),
                   "c_function\tname=cjson.decode\tlibrary=cjson.so\torigin=lua\n");
  n += capture_index_write_c_function(text + n, sizeof text - n, &odd);
  struct capture_index index;
  struct format_error error;
  ck_assert_int_eq(parse_text(&index, text, &error), FORMAT_OK);
  ck_assert_uint_eq(index.c_function_count, 2);
  ck_assert_str_eq(index.c_functions[0].name, "cjson.decode");
  ck_assert_str_eq(index.c_functions[0].library, "cjson.so");
  ck_assert_str_eq(index.c_functions[0].origin, "lua");
  ck_assert_str_eq(index.c_functions[1].name, "a\tb");
  ck_assert_str_eq(index.c_functions[1].library, "");
  capture_index_free(&index);
  /* Cut after its library: dropped whole, as a cut boundary line is. */
  ck_assert_int_eq(parse_text(&index, "ljleak-index\tversion=1\nc_function\tname=x\tlibrary=y\tori",
                              &error), FORMAT_OK);
  ck_assert_uint_eq(index.c_function_count, 0);
  capture_index_free(&index);
  ck_assert_int_eq(parse_text(&index, "ljleak-index\tversion=1\nc_function\tlibrary=y\n", &error),
                   FORMAT_BAD_INPUT);
  ck_assert_str_eq(error.message, "t/index: byte 23: c_function line: no name");
  ck_assert_uint_eq(capture_index_write_c_function(text, 20, &decode), 0);
}
END_TEST

START_TEST(test_capture_line_gives_the_stack_depth_and_reads_it_back)
{
  struct capture_index_capture c = {5, "h", "c", "LuaJIT 2.1", 1.0, 0, 0, 0, 1, NULL, NULL, NULL,
                                    NULL, 0, 16, 0, NULL};
  char text[16384];
  size_t header = capture_index_write_header(text, sizeof text);
  size_t length = capture_index_write_capture(text + header, sizeof text - header, &c);
  ck_assert_ptr_nonnull(strstr(text, "\tgzip=1\tstacks=16\n"));
  struct capture_index index;
  struct format_error error;
  ck_assert_int_eq(capture_index_parse(&index, text, header + length, "index", &error),
                   FORMAT_OK);
  ck_assert_uint_eq(index.capture.stacks, 16);
  ck_assert(index.capture.keys & CAPTURE_INDEX_CAPTURE_HAS_STACKS);
  capture_index_free(&index);
  /* No stacks: no key, as before sidecars existed. */
  c.stacks = 0;
  capture_index_write_capture(text, sizeof text, &c);
  ck_assert_ptr_null(strstr(text, "stacks"));
}
END_TEST

int main(void)
{
  Suite *s = suite_create("format_index");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_header_and_capture_lines_match_the_collector_byte_for_byte);
  tcase_add_test(tc, test_capture_line_escapes_match_the_collector_byte_for_byte);
  tcase_add_test(tc, test_long_command_is_cut_like_the_collector_never_inside_an_escape);
  tcase_add_test(tc, test_capture_line_gives_the_stack_depth_and_reads_it_back);
  tcase_add_test(tc, test_c_function_lines_are_written_and_read_back_a_cut_one_dropped);
  tcase_add_test(tc, test_capture_line_names_the_luajit_package_and_reads_it_back);
  tcase_add_test(tc, test_capture_line_names_the_program_and_its_parent_and_reads_them_back);
  tcase_add_test(tc, test_segment_lines_match_the_collector_byte_for_byte);
  tcase_add_test(tc, test_segment_trace_counts_are_written_when_traces_allocated_and_read_back);
  tcase_add_test(tc, test_stop_lines_match_the_collector_for_every_reason);
  tcase_add_test(tc, test_stop_reason_names_are_the_formats_list);
  tcase_add_test(tc, test_boundary_line_is_written_as_documented);
  tcase_add_test(tc, test_boundary_cause_names_and_which_are_forced);
  tcase_add_test(tc, test_snapshot_lines_round_trip_and_drop);
  tcase_add_test(tc, test_writer_returns_0_when_the_line_does_not_fit);
  tcase_add_test(tc, test_parser_reads_every_field_of_a_real_index);
  tcase_add_test(tc, test_written_lines_read_back_the_same);
  tcase_add_test(tc, test_parser_reads_boundary_lines_interleaved_with_segments);
  tcase_add_test(tc, test_boundary_lines_read_back_the_same);
  tcase_add_test(tc, test_cut_boundary_line_is_dropped_and_every_prefix_reads);
  tcase_add_test(tc, test_unknown_keys_kinds_empty_lines_and_fields_are_skipped);
  tcase_add_test(tc, test_escapes_are_undone_and_a_slash_in_a_file_is_kept_for_the_reader);
  tcase_add_test(tc, test_escape_of_a_value_is_the_writers_and_comes_in_whole_pieces);
  tcase_add_test(tc, test_decimal_comma_of_a_comma_locale_is_read);
  tcase_add_test(tc, test_empty_index_has_no_header_and_is_no_error);
  tcase_add_test(tc, test_cut_last_line_keeps_fields_before_its_last_tab);
  tcase_add_test(tc, test_every_prefix_of_a_real_index_reads);
  tcase_add_test(tc, test_malformed_input_is_an_error_at_its_byte_offset);
  tcase_add_test(tc, test_read_file_reads_an_index_and_names_the_file_in_errors);
  tcase_add_test(tc, test_labels_are_written_before_the_command_and_read_back);
  tcase_add_test(tc, test_labels_check_refuses_what_would_not_split_or_print);
  suite_add_tcase(s, tc);
  return check_run(s);
}
