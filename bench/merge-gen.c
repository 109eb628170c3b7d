/* bench/merge-gen.c: writes COUNT diff results (JSON, as ljleak diff writes them) of a fleet into DIR, for the merge benchmark. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "report/report.h"

/* Each capture: SITES of a pool of POOL sites (a service's lines, a few
 * hundred), BOUNDARIES boundaries with the full series of each, and labels
 * for release, region and host; one site in four of the pool grows in the
 * captures of the newest release. */
#define POOL 400
#define SITES 60
#define BOUNDARIES 16

static uint64_t state = 0x2545f4914f6cdd1dULL;
static uint64_t next_random(void)
{
  state ^= state << 13;
  state ^= state >> 7;
  state ^= state << 17;
  return state;
}

static char *copy(const char *text)
{
  char *c = strdup(text);
  if (!c) {
    perror("merge-gen");
    exit(1);
  }
  return c;
}

static uint64_t *series(size_t count, uint64_t base, uint64_t step)
{
  uint64_t *values = calloc(count, sizeof *values);
  if (!values)
    exit(1);
  for (size_t i = 0; i < count; i++)
    values[i] = base + step * i + next_random() % 512;
  return values;
}

static int write_result(size_t c, const char *path)
{
  static const char *const regions[] = {"eu-west", "us-east", "ap-south"};
  struct diff_result r;
  memset(&r, 0, sizeof r);
  r.mode = DIFF_MODE_TREND;
  diff_options_default(&r.options);
  char text[256];
  snprintf(text, sizeof text, "web-%zu", c % 250);
  r.capture.host = copy(text);
  snprintf(text, sizeof text, "/var/tmp/captures/ljleak-%zu-1795000000", 4000 + c);
  r.capture.path = copy(text);
  r.capture.command = copy("nginx: worker process");
  r.capture.exe = copy("/usr/sbin/nginx");
  r.capture.luajit_version = copy("LuaJIT 2.1.0-beta3");
  r.capture.pid = (long)(4000 + c);
  r.capture.start_time = 1795000000.0 + (double)(c / 250) * 86400 + (double)(c % 250);
  r.capture.stop_time = r.capture.start_time + 300;
  r.capture.boundary_count = BOUNDARIES;
  r.capture.boundary_times = calloc(BOUNDARIES, sizeof *r.capture.boundary_times);
  r.capture.gc_cycles = series(BOUNDARIES, 1, 3);
  r.capture.heap_bytes = series(BOUNDARIES, 1 << 24, 4096);
  if (!r.capture.boundary_times)
    return -1;
  for (size_t b = 0; b < BOUNDARIES; b++)
    r.capture.boundary_times[b] = r.capture.start_time + 18.75 * (double)(b + 1);
  const char *release = c % 4 == 0 ? "1.4.2" : "1.4.1";
  if (diff_capture_add_label(&r.capture, "release", 7, release, 5) != 0 ||
      diff_capture_add_label(&r.capture, "region", 6, regions[c % 3], strlen(regions[c % 3])) != 0 ||
      diff_capture_add_label(&r.capture, "role", 4, "api", 3) != 0)
    return -1;
  r.sites = calloc(SITES, sizeof *r.sites);
  size_t first = (size_t)(next_random() % (POOL - SITES));
  for (size_t s = 0; s < SITES; s++) {
    struct diff_site *site = &r.sites[r.site_count++];
    size_t line = first + s;
    snprintf(text, sizeof text, "@/srv/app/handlers/module_%zu.lua:%zu", line / 20, 10 + line);
    site->name = copy(text);
    site->id = XXH3_64bits(site->name, strlen(site->name));
    site->kind = DIFF_SITE_LUA;
    snprintf(text, sizeof text, "/srv/app/handlers/module_%zu.lua", line / 20);
    site->source_file = copy(text);
    site->source_line = 10 + line;
    int grows = line % 4 == 0 && c % 4 == 0;
    site->verdict = grows ? DIFF_VERDICT_GROWING
                    : next_random() % 20 == 0 ? DIFF_VERDICT_UNDECIDED : DIFF_VERDICT_STEADY;
    site->count = BOUNDARIES;
    site->live_bytes = series(BOUNDARIES, 65536, grows ? 8192 : 0);
    site->live_blocks = series(BOUNDARIES, 512, grows ? 64 : 0);
    site->alloc_bytes = series(BOUNDARIES, 1 << 20, 0);
    site->free_bytes = series(BOUNDARIES, 1 << 20, 0);
    site->allocs = 100000 + next_random() % 1000;
    site->frees = site->allocs - 100;
    site->growth_bytes_per_segment = grows ? 8192 + (double)(next_random() % 1000) : 0;
    site->growth_bytes_per_second = site->growth_bytes_per_segment / 18.75;
    site->trend_statistic = grows ? 120 : 3;
    site->trend_p_value = grows ? 1e-6 : 0.4;
  }
  diff_result_fill_facts(&r);
  FILE *out = fopen(path, "w");
  char error[256];
  struct report_options options = {0, NULL, 0, 0};
  int rc = out ? report_render(&r, REPORT_FORMAT_JSON, &options, out, error, sizeof error) : -1;
  if (out && fclose(out) != 0)
    rc = -1;
  diff_result_free(&r);
  return rc;
}

int main(int argc, char **argv)
{
  if (argc != 3) {
    fprintf(stderr, "usage: merge-gen COUNT DIR\n");
    return 2;
  }
  size_t count = (size_t)strtoull(argv[1], NULL, 10);
  for (size_t c = 0; c < count; c++) {
    char path[4096];
    snprintf(path, sizeof path, "%s/result-%05zu.json", argv[2], c);
    if (write_result(c, path) != 0) {
      fprintf(stderr, "merge-gen: cannot write %s\n", path);
      return 1;
    }
  }
  return 0;
}
