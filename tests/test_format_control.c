/* tests/test_format_control.c: the control files' codec: the registration's exact bytes (the collector's before the codec), cut at every byte, malformed lines at their offsets; requests as ci/capture wrote them and as the collector read them. */
#include <check.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/check_run.h"
#include "format/control_file.h"

/* ---- The collector's registration as it was before the codec
 * (collector/control.c at 497a646), the reference for identical bytes. ---- */

struct reference_text {
  char data[CONTROL_FILE_REGISTRATION_SIZE];
  size_t used;
};

static void reference_put(struct reference_text *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void reference_put(struct reference_text *t, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(t->data + t->used, sizeof t->data - t->used, fmt, ap);
  va_end(ap);
  if (n > 0)
    t->used = t->used + (size_t)n < sizeof t->data ? t->used + (size_t)n : sizeof t->data - 1;
}

static void reference_value(struct reference_text *t, const char *key, const char *value)
{
  size_t start = t->used;
  reference_put(t, "%s=%s\n", key, value ? value : "");
  for (size_t i = start + strlen(key) + 1; i + 1 < t->used; i++)
    if (t->data[i] == '\n' || t->data[i] == '\r')
      t->data[i] = '?';
  if (t->used && t->data[t->used - 1] != '\n')
    t->data[t->used - 1] = '\n';
}

static void reference_registration(struct reference_text *t, const struct control_file_registration *r)
{
  t->used = 0;
  t->data[0] = '\0';
  reference_put(t, "ljleak-registration\t1\n");
  reference_put(t, "pid=%ld\nppid=%ld\nuid=%u\n", r->pid, r->ppid, (unsigned)r->uid);
  reference_put(t, "started=%llu\n", (unsigned long long)r->started);
  reference_value(t, "exe", r->exe);
  reference_value(t, "luajit", r->luajit);
  reference_value(t, "poll", r->poll);
  reference_value(t, "request_file", r->request_file);
  reference_value(t, "root", r->root);
  reference_value(t, "state", r->state);
  reference_value(t, "dir", r->dir);
  reference_value(t, "request", r->request);
  reference_value(t, "result", r->result);
  reference_value(t, "error", r->error);
}

static struct control_file_registration sample_registration(void)
{
  struct control_file_registration r;
  memset(&r, 0, sizeof r);
  r.pid = 4243;
  r.ppid = 4200;
  r.uid = 65534;
  r.started = 1031826;
  r.exe = "/usr/sbin/nginx";
  r.luajit = "LuaJIT 2.1.0-beta3";
  r.poll = "timer";
  r.request_file = "/run/ljleak/4243.request";
  r.root = "/var/cache/ljleak";
  r.state = "capturing";
  r.dir = "/var/cache/ljleak/ljleak-4243-20261124T084000";
  r.request = "ci-77-1-1763970000";
  r.result = "ok";
  r.error = "";
  return r;
}

static void assert_same_as_reference(const struct control_file_registration *r)
{
  static struct reference_text ref;
  static char text[CONTROL_FILE_REGISTRATION_SIZE];
  reference_registration(&ref, r);
  size_t n = control_file_write_registration(text, sizeof text, r);
  ck_assert_uint_eq(n, ref.used);
  ck_assert_uint_eq(strlen(text), n);
  ck_assert(!memcmp(text, ref.data, n));
}

START_TEST(test_registration_matches_the_collector_byte_for_byte)
{
  struct control_file_registration r = sample_registration();
  assert_same_as_reference(&r);
  char text[CONTROL_FILE_REGISTRATION_SIZE];
  control_file_write_registration(text, sizeof text, &r);
  ck_assert_str_eq(text,
                   "ljleak-registration\t1\npid=4243\nppid=4200\nuid=65534\nstarted=1031826\n"
                   "exe=/usr/sbin/nginx\nluajit=LuaJIT 2.1.0-beta3\npoll=timer\n"
                   "request_file=/run/ljleak/4243.request\nroot=/var/cache/ljleak\nstate=capturing\n"
                   "dir=/var/cache/ljleak/ljleak-4243-20261124T084000\nrequest=ci-77-1-1763970000\n"
                   "result=ok\nerror=\n");
  /* NULL values, a new process with nothing taken yet, extremes of the numbers. */
  memset(&r, 0, sizeof r);
  assert_same_as_reference(&r);
  r.pid = 2147483647;
  r.ppid = 1;
  r.uid = 4294967295u;
  r.started = UINT64_MAX;
  assert_same_as_reference(&r);
}
END_TEST

START_TEST(test_newlines_in_values_become_question_marks_like_the_collector)
{
  struct control_file_registration r = sample_registration();
  r.error = "line one\nline two\r\n";
  r.exe = "\n";
  r.dir = "a\rb";
  assert_same_as_reference(&r);
  char text[CONTROL_FILE_REGISTRATION_SIZE];
  control_file_write_registration(text, sizeof text, &r);
  ck_assert_ptr_nonnull(strstr(text, "\nerror=line one?line two??\n"));
  ck_assert_ptr_nonnull(strstr(text, "\nexe=?\n"));
}
END_TEST

/* r written into a full registration's room, read back: each key read has its whole value
 * (a newline in it became '?'), and the line the cut went through is dropped. */
static void assert_cut_reads_whole_values(const struct control_file_registration *r)
{
  char text[CONTROL_FILE_REGISTRATION_SIZE];
  size_t n = control_file_write_registration(text, sizeof text, r);
  struct control_file_registration back;
  struct format_error error;
  ck_assert_int_eq(control_file_parse_registration(&back, text, n, "reg", &error), FORMAT_OK);
  ck_assert_int_eq(back.last_line_cut, text[n - 1] != '\n');
  if (n < sizeof text - 1)  /* not cut */
    ck_assert_uint_eq(back.keys, (1u << 14) - 1);
  const char *const written[] = {r->exe, r->root, r->dir, r->request, r->error};
  const char *const read[] = {back.exe, back.root, back.dir, back.request, back.error};
  const unsigned has[] = {CONTROL_FILE_HAS_EXE, CONTROL_FILE_HAS_ROOT, CONTROL_FILE_HAS_DIR,
                          CONTROL_FILE_HAS_REQUEST, CONTROL_FILE_HAS_ERROR};
  for (size_t i = 0; i < sizeof has / sizeof has[0]; i++) {
    if (!(back.keys & has[i]))
      continue;
    ck_assert_uint_eq(strlen(read[i]), strlen(written[i]));
    for (size_t k = 0; written[i][k]; k++)
      ck_assert_int_eq(read[i][k], written[i][k] == '\n' ? '?' : written[i][k]);
  }
  control_file_registration_free(&back);
}

START_TEST(test_a_registration_too_long_is_cut_before_its_cut_line)
{
  /* The cut falls in a key, in a value, and at a line's end; values long and short. */
  static char big[3 * CONTROL_FILE_REGISTRATION_SIZE];
  for (size_t length = 4000; length < 8400; length += 37) {
    memset(big, 'x', length);
    big[length] = '\0';
    big[length / 2] = '\n';   /* replaced before the cut too */
    struct control_file_registration r = sample_registration();
    r.exe = big;
    r.root = big + length / 3;
    assert_cut_reads_whole_values(&r);
    r.exe = "/e";
    r.error = big;   /* the last value */
    assert_cut_reads_whole_values(&r);
  }
  for (size_t length = 7990; length < 8100; length++) {
    memset(big, 'd', length);
    big[length] = '\0';
    struct control_file_registration r = sample_registration();
    r.dir = big;
    r.request = "abc";
    assert_cut_reads_whole_values(&r);
  }
  /* A small buffer: size - 1 bytes, cut inside ppid=4200, which keeps no newline (the rule before
   * wrote ppid=42 and a newline: another number). */
  struct control_file_registration r = sample_registration();
  char small[40];
  ck_assert_uint_eq(control_file_write_registration(small, sizeof small, &r), 39);
  ck_assert_str_eq(small, "ljleak-registration\t1\npid=4243\nppid=420");
  ck_assert_uint_eq(control_file_write_registration(small, 1, &r), 0);
  ck_assert_str_eq(small, "");
}
END_TEST

static void assert_same_text(const char *a, const char *b)
{
  ck_assert_str_eq(a ? a : "", b ? b : "");
}

START_TEST(test_written_registration_reads_back_the_same)
{
  struct control_file_registration r = sample_registration(), back;
  r.pid = -5;
  char text[CONTROL_FILE_REGISTRATION_SIZE];
  size_t n = control_file_write_registration(text, sizeof text, &r);
  struct format_error error;
  ck_assert_int_eq(control_file_parse_registration(&back, text, n, "reg", &error), FORMAT_OK);
  ck_assert_int_eq(back.has_header, 1);
  ck_assert_uint_eq(back.version, CONTROL_FILE_VERSION);
  ck_assert_uint_eq(back.keys, (1u << 14) - 1);
  ck_assert_int_eq(back.pid, -5);
  ck_assert_int_eq(back.ppid, r.ppid);
  ck_assert_uint_eq(back.uid, r.uid);
  ck_assert_uint_eq(back.started, r.started);
  assert_same_text(back.exe, r.exe);
  assert_same_text(back.luajit, r.luajit);
  assert_same_text(back.poll, r.poll);
  assert_same_text(back.request_file, r.request_file);
  assert_same_text(back.root, r.root);
  assert_same_text(back.state, r.state);
  assert_same_text(back.dir, r.dir);
  assert_same_text(back.request, r.request);
  assert_same_text(back.result, r.result);
  ck_assert_str_eq(back.error, "");
  ck_assert_int_eq(back.last_line_cut, 0);
  /* Written again from what was read: the same bytes. */
  char again[CONTROL_FILE_REGISTRATION_SIZE];
  ck_assert_uint_eq(control_file_write_registration(again, sizeof again, &back), n);
  ck_assert_str_eq(again, text);
  control_file_registration_free(&back);
  ck_assert_ptr_null(back.text);
}
END_TEST

START_TEST(test_every_prefix_reads_and_drops_only_its_cut_last_line)
{
  struct control_file_registration r = sample_registration(), cut;
  char text[CONTROL_FILE_REGISTRATION_SIZE];
  size_t n = control_file_write_registration(text, sizeof text, &r);
  struct format_error error;
  for (size_t size = 0; size <= n; size++) {
    ck_assert_int_eq(control_file_parse_registration(&cut, text, size, "reg", &error), FORMAT_OK);
    /* The lines wholly inside the prefix are read; the rest is not. */
    size_t whole = 0;
    for (size_t i = 0; i < size; i++)
      if (text[i] == '\n')
        whole = i + 1;
    ck_assert_int_eq(cut.last_line_cut, size > whole);
    if (size > whole)
      ck_assert_uint_eq(cut.last_line_offset, whole);
    ck_assert_int_eq(cut.has_header, whole > 0);
    unsigned lines = 0;
    for (size_t i = 0; i < whole; i++)
      lines += text[i] == '\n';
    ck_assert_uint_eq(cut.keys, lines ? (1u << (lines - 1)) - 1 : 0);
    if (cut.keys & CONTROL_FILE_HAS_DIR)
      ck_assert_str_eq(cut.dir, r.dir);
    control_file_registration_free(&cut);
  }
}
END_TEST

START_TEST(test_unknown_keys_and_empty_lines_are_skipped_an_empty_file_has_no_header)
{
  static const char text[] = "ljleak-registration\t1\n\npid=7\nfuture=x=y\n\nstate=idle\n";
  struct control_file_registration r;
  struct format_error error;
  ck_assert_int_eq(control_file_parse_registration(&r, text, sizeof text - 1, "reg", &error),
                   FORMAT_OK);
  ck_assert_uint_eq(r.keys, CONTROL_FILE_HAS_PID | CONTROL_FILE_HAS_STATE);
  ck_assert_int_eq(r.pid, 7);
  ck_assert_str_eq(r.state, "idle");
  ck_assert_ptr_null(r.exe);
  control_file_registration_free(&r);
  ck_assert_int_eq(control_file_parse_registration(&r, "", 0, "reg", &error), FORMAT_OK);
  ck_assert_int_eq(r.has_header, 0);
  control_file_registration_free(&r);
  /* A value keeps every '=' after the first, and a later version's header is read. */
  static const char later[] = "ljleak-registration\t2\nerror=a=b\n";
  ck_assert_int_eq(control_file_parse_registration(&r, later, sizeof later - 1, "reg", &error),
                   FORMAT_OK);
  ck_assert_uint_eq(r.version, 2);
  ck_assert_str_eq(r.error, "a=b");
  control_file_registration_free(&r);
}
END_TEST

static void assert_malformed(const char *text, size_t size, size_t offset, const char *message)
{
  struct control_file_registration r;
  struct format_error error;
  ck_assert_int_eq(control_file_parse_registration(&r, text, size, "reg", &error),
                   FORMAT_BAD_INPUT);
  ck_assert_uint_eq(error.offset, offset);
  ck_assert_str_eq(error.message, message);
  ck_assert_ptr_null(r.text);
}

START_TEST(test_malformed_lines_are_errors_at_their_byte_offset)
{
#define MALFORMED(text, offset, message) assert_malformed(text, sizeof text - 1, offset, message)
  MALFORMED("pid=1\n", 0, "reg: byte 0: the first line is not the ljleak-registration header");
  MALFORMED("ljleak-index\tversion=1\n", 0,
            "reg: byte 0: the first line is not the ljleak-registration header");
  MALFORMED("ljleak-registration\tone\n", 20, "reg: byte 20: the header's version is not a whole number");
  MALFORMED("ljleak-registration\t1\npid=1\nstate\n", 28, "reg: byte 28: a line without '='");
  MALFORMED("ljleak-registration\t1\npid=1\npid=2\n", 28, "reg: byte 28: pid given twice");
  MALFORMED("ljleak-registration\t1\npid=x\n", 22, "reg: byte 22: pid is not a whole number");
  MALFORMED("ljleak-registration\t1\nppid=\n", 22, "reg: byte 22: ppid is not a whole number");
  MALFORMED("ljleak-registration\t1\nuid=-1\n", 22, "reg: byte 22: uid is not a whole number");
  MALFORMED("ljleak-registration\t1\nstarted=18446744073709551616\n", 22,
            "reg: byte 22: started is not a whole number");
  MALFORMED("ljleak-registration\t1\npid=9223372036854775808\n", 22,
            "reg: byte 22: pid is not a whole number");
  MALFORMED("ljleak-registration\t1\nexe=a\0b\n", 27, "reg: byte 27: a NUL byte");
#undef MALFORMED
  /* The extremes that are whole numbers. */
  static const char ok[] = "ljleak-registration\t1\npid=-9223372036854775808\nstarted=18446744073709551615\n";
  struct control_file_registration r;
  struct format_error error;
  ck_assert_int_eq(control_file_parse_registration(&r, ok, sizeof ok - 1, "reg", &error), FORMAT_OK);
  ck_assert_uint_eq(r.started, UINT64_MAX);
  control_file_registration_free(&r);
}
END_TEST

START_TEST(test_read_file_names_the_file_and_a_missing_one_is_enoent)
{
  char path[] = "/tmp/test_format_control.XXXXXX";
  int fd = mkstemp(path);
  ck_assert_int_ge(fd, 0);
  static const char text[] = "ljleak-registration\t1\npid=12\nbad\n";
  ck_assert_int_eq(write(fd, text, sizeof text - 1), (int)(sizeof text - 1));
  close(fd);
  struct control_file_registration r;
  struct format_error error;
  ck_assert_int_eq(control_file_read_registration(&r, path, &error), FORMAT_BAD_INPUT);
  char expected[128];
  snprintf(expected, sizeof expected, "%s: byte 29: a line without '='", path);
  ck_assert_str_eq(error.message, expected);
  unlink(path);
  ck_assert_int_eq(control_file_read_registration(&r, path, &error), FORMAT_IO);
  ck_assert_int_eq(error.system_error, ENOENT);
  ck_assert_ptr_nonnull(strstr(error.message, ": cannot open: "));
}
END_TEST

/* ---- Requests ---- */

START_TEST(test_request_is_written_as_ci_capture_wrote_it)
{
  const char *options[] = {"root=/srv/captures", "period=2", "edge_gc=1"};
  struct control_file_request rq = {"ci-1-1-5", "start", options, 3};
  char text[CONTROL_FILE_REQUEST_MAX + 1];
  struct format_error error;
  size_t n = control_file_write_request(text, sizeof text, &rq, &error);
  ck_assert_str_eq(text, "id=ci-1-1-5\naction=start\nroot=/srv/captures\nperiod=2\nedge_gc=1\n");
  ck_assert_uint_eq(n, strlen(text));
  struct control_file_request stop = {NULL, "stop", NULL, 0};
  ck_assert_uint_eq(control_file_write_request(text, sizeof text, &stop, &error), 12);
  ck_assert_str_eq(text, "action=stop\n");
}
END_TEST

static void assert_unwritable(const char *id, const char *action, const char *option, const char *message)
{
  const char *options[] = {option};
  struct control_file_request rq = {id, action, options, option ? 1 : 0};
  char text[64];
  struct format_error error;
  ck_assert_uint_eq(control_file_write_request(text, sizeof text, &rq, &error), 0);
  ck_assert_int_eq(error.status, FORMAT_UNWRITABLE);
  ck_assert_str_eq(error.message, message);
  ck_assert_str_eq(text, "");
}

START_TEST(test_request_writer_refuses_what_would_not_read_back)
{
  assert_unwritable("x", "go", NULL, "the action is not start or stop: go");
  assert_unwritable("x", NULL, NULL, "the action is not start or stop: ");
  assert_unwritable("a\nb", "stop", NULL, "the request's id holds a newline");
  assert_unwritable("x", "start", "period", "an option is not KEY=VALUE: period");
  assert_unwritable("x", "start", "=1", "an option is not KEY=VALUE: =1");
  assert_unwritable("x", "start", "id=2", "an option may not be id or action: id=2");
  assert_unwritable("x", "start", "action=stop", "an option may not be id or action: action=stop");
  assert_unwritable("x", "start", "period=1\naction=stop", "an option holds a newline");
  assert_unwritable("x", "start", "root=/a/very/long/path/that/does/not/fit/in/64/bytes",
                    "the request is longer than 63 bytes");
  /* The collector reads 4096 bytes: a longer request is refused whatever the buffer. */
  static char big[CONTROL_FILE_REQUEST_MAX + 16], buffer[2 * CONTROL_FILE_REQUEST_MAX];
  memcpy(big, "root=/", 6);
  memset(big + 6, 'r', sizeof big - 7);
  const char *options[] = {big};
  struct control_file_request rq = {"x", "start", options, 1};
  struct format_error error;
  ck_assert_uint_eq(control_file_write_request(buffer, sizeof buffer, &rq, &error), 0);
  ck_assert_str_eq(error.message, "the request is longer than 4096 bytes");
}
END_TEST

/* The option callback of the tests: "period" takes digits, "fail" is refused. */
struct seen {
  char lines[8][64];
  int count;
};

static int test_option(void *context, const char *key, char *value, char *message, size_t size)
{
  struct seen *seen = context;
  if (!strcmp(key, "period") && value[strspn(value, "0123456789")] != '\0') {
    snprintf(message, size, "bad value '%s' for %s in the request", value, key);
    return -1;
  }
  if (strcmp(key, "period") && strcmp(key, "root")) {
    snprintf(message, size, "unknown option '%s' in the request", key);
    return -1;
  }
  if (seen->count < 8)
    snprintf(seen->lines[seen->count++], 64, "%s=%s", key, value);
  return 0;
}

static enum format_status parse_request(const char *input, struct control_file_request *rq,
                                        struct seen *seen, struct format_error *error)
{
  static char text[CONTROL_FILE_REQUEST_MAX + 1];
  snprintf(text, sizeof text, "%s", input);
  memset(seen, 0, sizeof *seen);
  return control_file_parse_request(text, rq, test_option, seen, error);
}

START_TEST(test_request_parser_reads_what_the_collector_read_with_its_messages)
{
  struct control_file_request rq;
  struct seen seen;
  struct format_error error;
  ck_assert_int_eq(parse_request("id=a\n\naction=start\nroot=/r\nperiod=5\nid=b", &rq, &seen, &error),
                   FORMAT_OK);
  ck_assert_str_eq(rq.id, "b");
  ck_assert_str_eq(rq.action, "start");
  ck_assert_int_eq(seen.count, 2);
  ck_assert_str_eq(seen.lines[0], "root=/r");
  ck_assert_str_eq(seen.lines[1], "period=5");
  ck_assert_int_eq(parse_request("action=stop\n", &rq, &seen, &error), FORMAT_OK);
  ck_assert_ptr_null(rq.id);

  ck_assert_int_eq(parse_request("id=t1\naction=start\nperiod\n", &rq, &seen, &error),
                   FORMAT_BAD_INPUT);
  ck_assert_str_eq(error.message, "bad request line 'period'");
  ck_assert_uint_eq(error.offset, 19);
  ck_assert_str_eq(rq.id, "t1");
  ck_assert_int_eq(parse_request("id=t2\nperiod=soon\naction=start\n", &rq, &seen, &error),
                   FORMAT_BAD_INPUT);
  ck_assert_str_eq(error.message, "bad value 'soon' for period in the request");
  ck_assert_uint_eq(error.offset, 6);
  ck_assert_int_eq(parse_request("perod=1\nid=late\naction=start\n", &rq, &seen, &error),
                   FORMAT_BAD_INPUT);
  ck_assert_str_eq(error.message, "unknown option 'perod' in the request");
  ck_assert_ptr_null(rq.id);
  ck_assert_int_eq(parse_request("id=t3\naction=go\n", &rq, &seen, &error), FORMAT_BAD_INPUT);
  ck_assert_str_eq(error.message, "the request has no action start or stop");
  ck_assert_str_eq(rq.id, "t3");
  ck_assert_int_eq(parse_request("", &rq, &seen, &error), FORMAT_BAD_INPUT);
  ck_assert_str_eq(error.message, "the request has no action start or stop");
  /* A carriage return is part of its value, as it always was. */
  ck_assert_int_eq(parse_request("action=stop\r\n", &rq, &seen, &error), FORMAT_BAD_INPUT);
}
END_TEST

START_TEST(test_written_request_reads_back_and_every_prefix_parses_safely)
{
  const char *options[] = {"root=/r=x", "period=10"};
  struct control_file_request rq = {"ci-9", "start", options, 2}, back;
  char text[CONTROL_FILE_REQUEST_MAX + 1];
  struct format_error error;
  size_t n = control_file_write_request(text, sizeof text, &rq, &error);
  struct seen seen;
  ck_assert_int_eq(parse_request(text, &back, &seen, &error), FORMAT_OK);
  ck_assert_str_eq(back.id, "ci-9");
  ck_assert_str_eq(back.action, "start");
  ck_assert_int_eq(seen.count, 2);
  ck_assert_str_eq(seen.lines[0], "root=/r=x");
  ck_assert_str_eq(seen.lines[1], "period=10");
  for (size_t size = 0; size < n; size++) {
    char prefix[CONTROL_FILE_REQUEST_MAX + 1];
    memcpy(prefix, text, size);
    prefix[size] = '\0';
    enum format_status status = parse_request(prefix, &back, &seen, &error);
    /* No prefix without its whole action line is a request; errors lie inside it. */
    if (size < 20)
      ck_assert_int_eq(status, FORMAT_BAD_INPUT);
    if (status != FORMAT_OK)
      ck_assert_uint_le(error.offset, size);
  }
}
END_TEST

/* The Yama scope attach refuses at 3: the number in the file, 0 without one or without the file. */
START_TEST(test_ptrace_scope_is_the_number_in_the_file_and_0_without_it)
{
  static const char *const texts[] = {"0\n", "1\n", "2\n", "3\n", "", "none\n"};
  static const int scopes[] = {0, 1, 2, 3, 0, 0};
  char path[] = "/tmp/test_format_control.XXXXXX";
  int fd = mkstemp(path);
  ck_assert_int_ge(fd, 0);
  close(fd);
  for (size_t i = 0; i < sizeof scopes / sizeof scopes[0]; i++) {
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(texts[i], f);
    fclose(f);
    ck_assert_int_eq(control_file_ptrace_scope(path), scopes[i]);
  }
  unlink(path);
  ck_assert_int_eq(control_file_ptrace_scope(path), 0);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("format_control");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_registration_matches_the_collector_byte_for_byte);
  tcase_add_test(tc, test_newlines_in_values_become_question_marks_like_the_collector);
  tcase_add_test(tc, test_a_registration_too_long_is_cut_before_its_cut_line);
  tcase_add_test(tc, test_written_registration_reads_back_the_same);
  tcase_add_test(tc, test_every_prefix_reads_and_drops_only_its_cut_last_line);
  tcase_add_test(tc, test_unknown_keys_and_empty_lines_are_skipped_an_empty_file_has_no_header);
  tcase_add_test(tc, test_malformed_lines_are_errors_at_their_byte_offset);
  tcase_add_test(tc, test_read_file_names_the_file_and_a_missing_one_is_enoent);
  tcase_add_test(tc, test_request_is_written_as_ci_capture_wrote_it);
  tcase_add_test(tc, test_request_writer_refuses_what_would_not_read_back);
  tcase_add_test(tc, test_request_parser_reads_what_the_collector_read_with_its_messages);
  tcase_add_test(tc, test_written_request_reads_back_and_every_prefix_parses_safely);
  tcase_add_test(tc, test_ptrace_scope_is_the_number_in_the_file_and_0_without_it);
  suite_add_tcase(s, tc);
  return check_run(s);
}
