/* tests/test_report_progress.c: the progress bar and the colour choice: silent off a terminal, drawn on a pty. */
#include <check.h>
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/check_run.h"
#include "report/report.h"

START_TEST(test_progress_format_is_exact)
{
  char line[256];
  size_t n = report_progress_format(line, sizeof line, 512 * 1024, 2 * 1024 * 1024, 8);
  ck_assert_str_eq(line, "[\u2588\u2588\u00b7\u00b7\u00b7\u00b7\u00b7\u00b7]  25%  512.0 KiB / 2.0 MiB");
  ck_assert_uint_eq(n, strlen(line));
  report_progress_format(line, sizeof line, 0, 0, 4);
  ck_assert_str_eq(line, "[\u00b7\u00b7\u00b7\u00b7]   0%  0 B / 0 B");
  report_progress_format(line, sizeof line, 7, 3, 4);  /* done beyond total: capped */
  ck_assert_str_eq(line, "[\u2588\u2588\u2588\u2588] 100%  3 B / 3 B");
}
END_TEST

START_TEST(test_progress_format_never_overflows_a_small_buffer)
{
  char line[12];
  memset(line, 'x', sizeof line);
  size_t n = report_progress_format(line, sizeof line, 50, 100, 30);
  ck_assert_uint_lt(n, sizeof line);
  ck_assert_uint_eq(strlen(line), n);
}
END_TEST

START_TEST(test_progress_writes_nothing_to_a_memstream)
{
  char *text = NULL;
  size_t size = 0;
  FILE *out = open_memstream(&text, &size);
  struct report_progress *progress = report_progress_new(out);
  ck_assert_ptr_nonnull(progress);
  for (uint64_t done = 0; done <= 1000; done += 100)
    report_progress_update(progress, done, 1000);
  report_progress_free(progress);
  fclose(out);
  ck_assert_uint_eq(size, 0);
  free(text);
}
END_TEST

START_TEST(test_progress_writes_nothing_to_a_pipe)
{
  int fds[2];
  ck_assert_int_eq(pipe(fds), 0);
  FILE *out = fdopen(fds[1], "w");
  struct report_progress *progress = report_progress_new(out);
  report_progress_update(progress, 10, 100);
  report_progress_update(progress, 100, 100);
  report_progress_free(progress);
  fclose(out);
  char buffer[64];
  ck_assert_int_eq(read(fds[0], buffer, sizeof buffer), 0);
  close(fds[0]);
}
END_TEST

/* Reads what the pty shows until it has been quiet for a moment. */
static size_t read_pty(int master, char *buffer, size_t size)
{
  size_t used = 0;
  struct pollfd pfd = {master, POLLIN, 0};
  while (used + 1 < size && poll(&pfd, 1, 200) > 0) {
    ssize_t n = read(master, buffer + used, size - 1 - used);
    if (n <= 0)
      break;
    used += (size_t)n;
  }
  buffer[used] = '\0';
  return used;
}

START_TEST(test_progress_draws_on_a_terminal_and_clears_at_the_end)
{
  int master, slave;
  ck_assert_int_eq(openpty(&master, &slave, NULL, NULL, NULL), 0);
  FILE *out = fdopen(slave, "w");
  struct report_progress *progress = report_progress_new(out);
  report_progress_update(progress, 25, 100);
  report_progress_update(progress, 100, 100);  /* the end is always drawn */
  report_progress_free(progress);
  char shown[4096];
  read_pty(master, shown, sizeof shown);
  char first[256], last[256], expected[1024];
  report_progress_format(first, sizeof first, 25, 100, 30);
  report_progress_format(last, sizeof last, 100, 100, 30);
  snprintf(expected, sizeof expected, "\r%s\033[K\r%s\033[K\r\033[K", first, last);
  ck_assert_str_eq(shown, expected);
  fclose(out);
  close(master);
}
END_TEST

/* A thousand updates in a tight loop redraw at most ten times a second:
 * far fewer than a hundred draws unless the loop takes ten seconds. */
START_TEST(test_progress_throttles_redraws)
{
  int master, slave;
  ck_assert_int_eq(openpty(&master, &slave, NULL, NULL, NULL), 0);
  FILE *out = fdopen(slave, "w");
  struct report_progress *progress = report_progress_new(out);
  for (uint64_t done = 0; done < 1000; done++)
    report_progress_update(progress, done, 1000);
  char shown[65536];
  read_pty(master, shown, sizeof shown);
  size_t draws = 0;
  for (const char *p = shown; (p = strchr(p, '\r')); p++)
    draws++;
  ck_assert_uint_ge(draws, 1);
  ck_assert_uint_lt(draws, 100);
  report_progress_free(progress);
  fclose(out);
  close(master);
}
END_TEST

START_TEST(test_colour_wanted_only_on_a_terminal_without_no_color)
{
  int master, slave;
  ck_assert_int_eq(openpty(&master, &slave, NULL, NULL, NULL), 0);
  FILE *terminal = fdopen(slave, "w");
  char *text = NULL;
  size_t size = 0;
  FILE *memory = open_memstream(&text, &size);
  unsetenv("NO_COLOR");
  ck_assert_int_eq(report_color_wanted(terminal), 1);
  ck_assert_int_eq(report_color_wanted(memory), 0);
  setenv("NO_COLOR", "", 1);  /* empty: no effect, as the convention says */
  ck_assert_int_eq(report_color_wanted(terminal), 1);
  setenv("NO_COLOR", "1", 1);
  ck_assert_int_eq(report_color_wanted(terminal), 0);
  unsetenv("NO_COLOR");
  fclose(memory);
  free(text);
  fclose(terminal);
  close(master);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("report_progress");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_progress_format_is_exact);
  tcase_add_test(tc, test_progress_format_never_overflows_a_small_buffer);
  tcase_add_test(tc, test_progress_writes_nothing_to_a_memstream);
  tcase_add_test(tc, test_progress_writes_nothing_to_a_pipe);
  tcase_add_test(tc, test_progress_draws_on_a_terminal_and_clears_at_the_end);
  tcase_add_test(tc, test_progress_throttles_redraws);
  tcase_add_test(tc, test_colour_wanted_only_on_a_terminal_without_no_color);
  suite_add_tcase(s, tc);
  return check_run(s);
}
