/* bench/run_timed.c: runs a command several times; prints median wall and CPU time, events per second and peak RSS. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench/bench_time.h"

static double timeval_seconds(struct timeval t)
{
  return (double)t.tv_sec + (double)t.tv_usec / 1e6;
}

/* Runs argv once with stdout on /dev/null; fills wall and CPU (user + system)
 * seconds and peak RSS in KiB. */
static int run_once(char **argv, double *seconds, double *cpu_seconds, long *max_rss_kib)
{
  double start = bench_now_seconds();
  pid_t pid = fork();
  if (pid < 0)
    return -1;
  if (pid == 0) {
    int null = open("/dev/null", O_WRONLY);
    if (null >= 0)
      dup2(null, STDOUT_FILENO);
    execv(argv[0], argv);
    fprintf(stderr, "run_timed: cannot run %s: %s\n", argv[0], strerror(errno));
    _exit(127);
  }
  int status;
  struct rusage usage;
  if (wait4(pid, &status, 0, &usage) != pid)
    return -1;
  *seconds = bench_now_seconds() - start;
  *cpu_seconds = timeval_seconds(usage.ru_utime) + timeval_seconds(usage.ru_stime);
  *max_rss_kib = usage.ru_maxrss;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    fprintf(stderr, "run_timed: %s failed (status %d)\n", argv[0], status);
    return -1;
  }
  return 0;
}

int main(int argc, char **argv)
{
  int runs = 5;
  double events = 0;
  const char *label = "run";
  int i = 1;
  for (; i < argc && strcmp(argv[i], "--"); i++) {
    if (i + 1 < argc && !strcmp(argv[i], "--runs"))
      runs = atoi(argv[++i]);
    else if (i + 1 < argc && !strcmp(argv[i], "--events"))
      events = strtod(argv[++i], NULL);
    else if (i + 1 < argc && !strcmp(argv[i], "--label"))
      label = argv[++i];
    else
      break;
  }
  if (i >= argc - 1 || strcmp(argv[i], "--") || runs < 1 || runs > 100) {
    fputs("usage: run_timed [--runs N] [--events N] [--label TEXT] -- COMMAND [ARG...]\n", stderr);
    return 2;
  }
  char **command = argv + i + 1;
  double seconds[100], cpu_seconds[100];
  long peak_kib = 0;
  for (int r = 0; r < runs; r++) {
    long rss_kib;
    if (run_once(command, &seconds[r], &cpu_seconds[r], &rss_kib))
      return 1;
    if (rss_kib > peak_kib)
      peak_kib = rss_kib;
    printf("%s: run %d: %.3f s wall, %.3f s CPU, peak RSS %.1f MiB\n", label, r + 1, seconds[r],
           cpu_seconds[r], rss_kib / 1024.0);
  }
  double wall = bench_median(seconds, runs), cpu = bench_median(cpu_seconds, runs);
  printf("%s: median of %d runs: %.3f s wall, %.3f s CPU", label, runs, wall, cpu);
  if (events > 0)
    printf("; %.2f million events/s (wall), %.2f million events/s (CPU)", events / wall / 1e6,
           events / cpu / 1e6);
  printf("; peak RSS %.1f MiB\n", peak_kib / 1024.0);
  return 0;
}
