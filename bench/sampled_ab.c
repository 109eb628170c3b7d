/* bench/sampled_ab.c: the cost of a sampled capture inside one process.
 *
 * usage: sampled_ab SCRIPT ROUNDS PAIRS DIR
 *
 * Runs the Lua SCRIPT (its arg[1] is ROUNDS) 2 * PAIRS times in one VM, in
 * turns without the collector and under a sampled capture (--sample
 * 524288, started before the run and stopped after it, outside the timed
 * part; the captures go under DIR). The two runs of a pair come in turns
 * first. A run lasts a fraction of a second, so the two sides of a pair see
 * the same state of a shared machine, whose speed drifts by some 10% over
 * seconds. Prints the medians of both sides, their ratio, the median of the
 * pairs' ratios (the figure the target applies to), and the first half of
 * the plain runs against the second (what noise alone gives). The
 * script's own output is dropped. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "bench/bench_time.h"
#include "collector/ljleak_collector.h"
#include "lauxlib.h"
#include "lua.h"
#include "lualib.h"

/* The median of v[0..n-1], v left as it is. */
static double median(const double *v, int n, double *tmp)
{
  for (int i = 0; i < n; i++)
    tmp[i] = v[i];
  return bench_median(tmp, n);
}

/* Runs the script once (the chunk is at index 1); returns its wall time or a
 * negative value on a Lua error, printed. */
static double run_script(lua_State *L)
{
  lua_pushvalue(L, 1);
  double t0 = bench_now_seconds();
  int rc = lua_pcall(L, 0, 0, 0);
  double t = bench_now_seconds() - t0;
  if (rc != 0) {
    fprintf(stderr, "sampled_ab: %s\n", lua_tostring(L, -1));
    return -1;
  }
  return t;
}

static double run_sampled(lua_State *L, const char *dir, int n)
{
  char path[4096], err[512];
  snprintf(path, sizeof path, "%s/%03d", dir, n);
  struct ljleak_collector_options o;
  ljleak_collector_options_init(&o);
  o.dir = path;
  o.sample = 524288;
  if (ljleak_collector_start(L, &o, err, sizeof err) != 0) {
    fprintf(stderr, "sampled_ab: cannot start a capture: %s\n", err);
    return -1;
  }
  double t = run_script(L);
  if (ljleak_collector_stop(L, err, sizeof err) != 0) {
    fprintf(stderr, "sampled_ab: cannot stop the capture: %s\n", err);
    return -1;
  }
  return t;
}

int main(int argc, char **argv)
{
  if (argc != 5 || atoi(argv[2]) < 1 || atoi(argv[3]) < 2) {
    fprintf(stderr, "usage: sampled_ab SCRIPT ROUNDS PAIRS DIR\n");
    return 2;
  }
  const char *script = argv[1], *rounds = argv[2], *dir = argv[4];
  int pairs = atoi(argv[3]);
  int out_fd = dup(STDOUT_FILENO);
  FILE *out = out_fd >= 0 ? fdopen(out_fd, "w") : NULL;
  if (!out || !freopen("/dev/null", "w", stdout)) {
    fprintf(stderr, "sampled_ab: cannot set up the output\n");
    return 1;
  }
  lua_State *L = luaL_newstate();
  if (!L) {
    fprintf(stderr, "sampled_ab: cannot create a Lua state\n");
    return 1;
  }
  luaL_openlibs(L);
  lua_newtable(L);
  lua_pushstring(L, script);
  lua_rawseti(L, -2, 0);
  lua_pushstring(L, rounds);
  lua_rawseti(L, -2, 1);
  lua_setglobal(L, "arg");
  if (luaL_loadfile(L, script) != 0) {
    fprintf(stderr, "sampled_ab: %s\n", lua_tostring(L, -1));
    lua_close(L);
    return 1;
  }

  double *plain = calloc((size_t)pairs, sizeof *plain);
  double *sampled = calloc((size_t)pairs, sizeof *sampled);
  double *ratio = calloc((size_t)pairs, sizeof *ratio);
  double *tmp = calloc((size_t)pairs, sizeof *tmp);
  int status = 0;
  if (!plain || !sampled || !ratio || !tmp) {
    fprintf(stderr, "sampled_ab: out of memory\n");
    status = 1;
  }
  /* One run of each side first, untimed: the traces are compiled then. */
  if (status == 0 && (run_script(L) < 0 || run_sampled(L, dir, 0) < 0))
    status = 1;
  for (int i = 0; status == 0 && i < pairs; i++) {
    if (i % 2 == 0) {
      plain[i] = run_script(L);
      sampled[i] = run_sampled(L, dir, i + 1);
    } else {
      sampled[i] = run_sampled(L, dir, i + 1);
      plain[i] = run_script(L);
    }
    if (plain[i] < 0 || sampled[i] < 0)
      status = 1;
    else
      ratio[i] = sampled[i] / plain[i];
  }
  if (status == 0) {
    double p = median(plain, pairs, tmp), s = median(sampled, pairs, tmp);
    double first = median(plain, pairs / 2, tmp);
    double second = median(plain + pairs / 2, pairs - pairs / 2, tmp);
    fprintf(out, "plain luajit (no collector)    %.4fs median of %d runs\n", p, pairs);
    fprintf(out, "sampled capture                %.4fs median of %d runs (%.3fx)\n", s, pairs,
            s / p);
    fprintf(out, "pairs, sampled/plain           median of %d ratios %.3fx   target <= 1.03x\n",
            pairs, median(ratio, pairs, tmp));
    fprintf(out, "noise: plain runs, second half against first: %.3fx\n", second / first);
  }
  free(plain);
  free(sampled);
  free(ratio);
  free(tmp);
  lua_close(L);
  fclose(out);
  return status;
}
