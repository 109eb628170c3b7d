/* collector/now.h: the two clocks the collector reads: monotonic nanoseconds for its timers, wall-clock seconds for what it writes. */
#ifndef LJLEAK_COLLECTOR_NOW_H
#define LJLEAK_COLLECTOR_NOW_H

#include <stdint.h>
#include <time.h>

static inline uint64_t coll_now_mono_ns(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline double coll_now_wall_time(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

#endif
