/* bench/bench_time.h: the clock and the median the timed benchmarks share. */
#ifndef LJLEAK_BENCH_TIME_H
#define LJLEAK_BENCH_TIME_H

#include <stdlib.h>
#include <time.h>

static inline double bench_now_seconds(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static inline int bench_compare_doubles(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The median of v[0..n-1], n > 0; sorts v. */
static inline double bench_median(double *v, int n)
{
  qsort(v, (size_t)n, sizeof *v, bench_compare_doubles);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

#endif
