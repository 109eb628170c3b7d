/* diff/sampling.h: scaling a sampled capture back to what the program allocated. */
#ifndef LJLEAK_DIFF_SAMPLING_H
#define LJLEAK_DIFF_SAMPLING_H

#include <math.h>
#include <stdint.h>

/* With byte sampling at mean interval N, a block of s bytes is recorded with
 * probability 1 - exp(-s/N), so each recorded one stands for
 * 1 / (1 - exp(-s/N)) blocks (the Poisson estimator pprof uses). Values are
 * rounded per block, the same way on alloc and free, so live totals stay exact
 * sums. sample 0 means every block was recorded. */
static inline uint64_t sampling_blocks(uint64_t sample, uint64_t size)
{
  if (!sample || !size)
    return 1;
  double weight = 1.0 / -expm1(-(double)size / (double)sample);
  return (uint64_t)llround(weight);
}

static inline uint64_t sampling_bytes(uint64_t sample, uint64_t size)
{
  if (!sample || !size)
    return size;
  double weight = 1.0 / -expm1(-(double)size / (double)sample);
  return (uint64_t)llround((double)size * weight);
}

#endif
