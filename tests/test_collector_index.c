/* tests/test_collector_index.c: the index's held boundary lines (collector/index.h): when they
 * go out, in what order, and what a child of fork() or a failed write does with them. */
#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collector/index.h"
#include "collector/now.h"
#include "tests/check_run.h"

/* A temporary file open for appending, its path in path. */
static int scratch_file(char *path, size_t size)
{
  snprintf(path, size, "/tmp/ljleak-index-XXXXXX");
  int fd = mkstemp(path);
  ck_assert_int_ge(fd, 0);
  return fd;
}

/* What the file holds now (a static buffer). */
static const char *contents(const char *path)
{
  static char text[32768];
  int fd = open(path, O_RDONLY);
  ck_assert_int_ge(fd, 0);
  ssize_t n = read(fd, text, sizeof text - 1);
  ck_assert_int_ge(n, 0);
  text[n] = '\0';
  close(fd);
  return text;
}

static struct coll_index x;

START_TEST(test_boundary_lines_wait_for_the_next_other_line_in_order)
{
  char path[64];
  coll_index_open(&x, scratch_file(path, sizeof path));
  uint64_t t = x.written_ns;
  ck_assert_int_eq(coll_index_hold(&x, "boundary\tseq=1\n", t), 0);
  ck_assert_int_eq(coll_index_hold(&x, "boundary\tseq=2\n", t + COLL_INDEX_HOLD_NS - 1), 0);
  ck_assert_str_eq(contents(path), "");
  ck_assert_int_eq(coll_index_append(&x, "segment\tseq=1\n"), 0);
  ck_assert_str_eq(contents(path), "boundary\tseq=1\nboundary\tseq=2\nsegment\tseq=1\n");
  ck_assert_uint_eq(x.held, 0);
  coll_index_close(&x);
  unlink(path);
}
END_TEST

START_TEST(test_a_boundary_long_after_the_last_write_goes_out_with_those_held)
{
  char path[64];
  coll_index_open(&x, scratch_file(path, sizeof path));
  uint64_t t = x.written_ns;
  ck_assert_int_eq(coll_index_hold(&x, "boundary\tseq=1\n", t + 1), 0);
  ck_assert_int_eq(coll_index_hold(&x, "boundary\tseq=2\n", t + COLL_INDEX_HOLD_NS), 0);
  ck_assert_str_eq(contents(path), "boundary\tseq=1\nboundary\tseq=2\n");
  /* the clock starts again from that write */
  ck_assert_int_eq(coll_index_hold(&x, "boundary\tseq=3\n", t + COLL_INDEX_HOLD_NS + 1), 0);
  ck_assert_str_eq(contents(path), "boundary\tseq=1\nboundary\tseq=2\n");
  ck_assert_int_eq(coll_index_flush(&x), 0);
  ck_assert_str_eq(contents(path), "boundary\tseq=1\nboundary\tseq=2\nboundary\tseq=3\n");
  coll_index_close(&x);
  unlink(path);
}
END_TEST

START_TEST(test_a_full_buffer_is_written_and_every_line_kept_whole)
{
  char path[64], line[64];
  coll_index_open(&x, scratch_file(path, sizeof path));
  uint64_t t = x.written_ns;
  size_t lines = 0, bytes = 0;
  while (bytes <= 2 * COLL_INDEX_BUFFER) {
    int n = snprintf(line, sizeof line, "boundary\tseq=%zu\tevents=0\n", ++lines);
    ck_assert_int_eq(coll_index_hold(&x, line, t), 0);
    bytes += (size_t)n;
    ck_assert_uint_le(x.held, COLL_INDEX_BUFFER);
  }
  ck_assert_uint_gt(strlen(contents(path)), 0);
  coll_index_close(&x);  /* the stop writes what is held */
  const char *text = contents(path);
  ck_assert_uint_eq(strlen(text), bytes);
  size_t seq = 0, want = 0;
  for (const char *p = text; *p; p = strchr(p, '\n') + 1) {
    ck_assert_int_eq(sscanf(p, "boundary\tseq=%zu\t", &seq), 1);
    ck_assert_uint_eq(seq, ++want);
  }
  ck_assert_uint_eq(want, lines);
  unlink(path);
}
END_TEST

START_TEST(test_a_child_of_fork_drops_what_its_parent_holds)
{
  char path[64];
  coll_index_open(&x, scratch_file(path, sizeof path));
  ck_assert_int_eq(coll_index_hold(&x, "boundary\tseq=1\n", x.written_ns), 0);
  coll_index_drop(&x);
  ck_assert_int_eq(x.fd, -1);
  ck_assert_uint_eq(x.held, 0);
  ck_assert_str_eq(contents(path), "");
  ck_assert_int_eq(coll_index_hold(&x, "boundary\tseq=2\n", coll_now_mono_ns()), -1);
  ck_assert_int_eq(coll_index_append(&x, "stop\n"), -1);
  unlink(path);
}
END_TEST

START_TEST(test_a_failed_write_is_an_error_and_not_repeated)
{
  char path[64];
  int fd = scratch_file(path, sizeof path);
  int ro = open(path, O_RDONLY);
  close(fd);
  coll_index_open(&x, ro);
  ck_assert_int_eq(coll_index_hold(&x, "boundary\tseq=1\n", x.written_ns), 0);
  ck_assert_int_eq(coll_index_flush(&x), -1);
  ck_assert_uint_eq(x.held, 0);
  ck_assert_int_eq(coll_index_flush(&x), 0);  /* nothing held any more */
  coll_index_close(&x);
  unlink(path);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("collector_index");
  TCase *tc = tcase_create("held");
  tcase_add_test(tc, test_boundary_lines_wait_for_the_next_other_line_in_order);
  tcase_add_test(tc, test_a_boundary_long_after_the_last_write_goes_out_with_those_held);
  tcase_add_test(tc, test_a_full_buffer_is_written_and_every_line_kept_whole);
  tcase_add_test(tc, test_a_child_of_fork_drops_what_its_parent_holds);
  tcase_add_test(tc, test_a_failed_write_is_an_error_and_not_repeated);
  suite_add_tcase(s, tc);
  return check_run(s);
}
