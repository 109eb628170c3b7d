/* report/progress.c: a throttled progress bar on a terminal; silent when the output is not one. */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "report/common.h"

#define PROGRESS_WIDTH 30               /* cells of the bar */
#define PROGRESS_INTERVAL_NS 100000000  /* redraw at most ten times a second */

struct report_progress {
  FILE *out;
  int active;        /* out is a terminal */
  int drawn;         /* something is on the line and must be cleared */
  int64_t last_ns;   /* when the bar was last drawn */
};

static int64_t monotonic_ns(void)
{
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
}

size_t report_progress_format(char *buffer, size_t size, uint64_t done, uint64_t total,
                              unsigned width)
{
  if (size == 0)
    return 0;
  if (done > total)
    done = total;
  /* Cells and percent in integers, so the text is exact. */
  unsigned cells = total ? (unsigned)((long double)done * width / total) : 0;
  unsigned percent = total ? (unsigned)((long double)done * 100 / total) : 0;
  char done_text[32], total_text[32];
  report_format_bytes(done_text, sizeof done_text, (double)done, 0);
  report_format_bytes(total_text, sizeof total_text, (double)total, 0);
  size_t used = 0;
  buffer[0] = '\0';
  if (used + 2 < size)
    buffer[used++] = '[';
  for (unsigned i = 0; i < width; i++) {
    const char *cell = i < cells ? "\u2588" : "\u00b7";  /* full block, middle dot */
    size_t n = strlen(cell);
    if (used + n + 1 >= size)
      break;
    memcpy(buffer + used, cell, n);
    used += n;
  }
  buffer[used] = '\0';
  int n = snprintf(buffer + used, size - used, "] %3u%%  %s / %s", percent, done_text,
                   total_text);
  if (n > 0)
    used += (size_t)n < size - used ? (size_t)n : size - used - 1;
  return used;
}

struct report_progress *report_progress_new(FILE *out)
{
  struct report_progress *progress = calloc(1, sizeof *progress);
  if (!progress)
    return NULL;
  progress->out = out;
  int fd = out ? fileno(out) : -1;
  progress->active = fd >= 0 && isatty(fd);
  return progress;
}

void report_progress_update(void *context, uint64_t done, uint64_t total)
{
  struct report_progress *progress = context;
  if (!progress || !progress->active)
    return;
  int64_t now = monotonic_ns();
  int finished = done >= total;
  if (progress->drawn && !finished && now - progress->last_ns < PROGRESS_INTERVAL_NS)
    return;
  char line[256];
  report_progress_format(line, sizeof line, done, total, PROGRESS_WIDTH);
  /* \r and erase-to-end keep the bar on one line however its length changes. */
  fprintf(progress->out, "\r%s\033[K", line);
  fflush(progress->out);
  progress->drawn = 1;
  progress->last_ns = now;
}

void report_progress_free(struct report_progress *progress)
{
  if (!progress)
    return;
  if (progress->active && progress->drawn) {
    fputs("\r\033[K", progress->out);
    fflush(progress->out);
  }
  free(progress);
}
