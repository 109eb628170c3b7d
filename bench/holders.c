/* bench/holders.c: the holder analysis on a generated heap snapshot of N objects (default one
 * million): a module in _LOADED whose cache holds N/4 records under unique keys, each record a
 * table with a string and a closure with an upvalue; the records' site asks who holds them.
 * Prints the time to read the snapshot and of the analysis (paths, grouping, dominator tree),
 * each the median of ROUNDS runs in wall and in CPU time (the CPU time is what a busy machine
 * disturbs least), and the process's peak memory. usage: holders FILE [OBJECTS [ROUNDS]] */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "bench/bench_time.h"
#include "diff/holders.h"
#include "format/snapshot.h"

static double cpu_seconds(void)
{
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int file_sink(void *context, const uint8_t *data, size_t size)
{
  return fwrite(data, 1, size, context) == size ? 0 : -1;
}

/* Writes the snapshot; returns the number of records (the site's objects). */
static size_t generate(const char *path, size_t objects)
{
  FILE *out = fopen(path, "wb");
  if (!out) {
    perror(path);
    exit(2);
  }
  size_t capacity = 1 << 20;
  uint8_t *buffer = malloc(2 * capacity);
  struct snapshot_writer w;
  snapshot_writer_init(&w, buffer, buffer + capacity, capacity, file_sink, out);
  struct snapshot_capture capture = {4242, 1763745600125, 9, 1, 1000, 1763745605310, 0, 0};
  snapshot_writer_begin(&w, &capture);
  uint32_t s_loaded = snapshot_writer_string(&w, "_LOADED", 7);
  uint32_t s_app = snapshot_writer_string(&w, "app", 3);
  uint32_t s_cache = snapshot_writer_string(&w, "cache", 5);
  uint32_t s_name = snapshot_writer_string(&w, "name", 4);
  uint32_t s_on = snapshot_writer_string(&w, "on_close", 8);
  uint32_t s_upvalue = snapshot_writer_string(&w, "upvalue conn", 12);
  uint32_t s_value = snapshot_writer_string(&w, "value", 5);
  uint32_t s_registry = snapshot_writer_string(&w, "registry", 8);
  size_t records = (objects - 4) / 4;
  const uint64_t base = 0x10000000;
  /* Addresses: registry, _LOADED, app, cache (with its hash part), then per record: the
   * record, its string, its closure, the closure's upvalue. */
  struct snapshot_wire_object o = {SNAPSHOT_TABLE, 0, base, 64, 1, 0, NULL, 0};
  snapshot_writer_object(&w, &o);
  snapshot_writer_reference(&w, SNAPSHOT_REF_FIELD, 0, s_loaded, 0, base + 64);
  o.address = base + 64;
  snapshot_writer_object(&w, &o);
  snapshot_writer_reference(&w, SNAPSHOT_REF_FIELD, 0, s_app, 0, base + 128);
  o.address = base + 128;
  snapshot_writer_object(&w, &o);
  snapshot_writer_reference(&w, SNAPSHOT_REF_FIELD, 0, s_cache, 0, base + 192);
  struct snapshot_block hash = {base + 0x40000000, records * 40};
  struct snapshot_wire_object cache = {SNAPSHOT_TABLE, 0, base + 192, 64, records, 0, &hash, 1};
  snapshot_writer_object(&w, &cache);
  char key[32];
  uint64_t first = base + 256;
  for (size_t i = 0; i < records; i++) {
    int n = snprintf(key, sizeof key, "token-%zu", i);
    uint32_t id = snapshot_writer_string(&w, key, (size_t)n);
    snapshot_writer_reference(&w, SNAPSHOT_REF_FIELD, 0, id, 0, first + i * 256);
  }
  for (size_t i = 0; i < records; i++) {
    uint64_t at = first + i * 256;
    struct snapshot_wire_object record = {SNAPSHOT_TABLE, 0, at, 64, 2, 0, NULL, 0};
    snapshot_writer_object(&w, &record);
    snapshot_writer_reference(&w, SNAPSHOT_REF_FIELD, 0, s_name, 0, at + 64);
    snapshot_writer_reference(&w, SNAPSHOT_REF_FIELD, 0, s_on, 0, at + 128);
    struct snapshot_wire_object text = {SNAPSHOT_STRING, 0, at + 64, 40, 16, 0, NULL, 0};
    snapshot_writer_object(&w, &text);
    struct snapshot_wire_object fn = {SNAPSHOT_LUA_FUNCTION, 0, at + 128, 40, 1, 0, NULL, 0};
    snapshot_writer_object(&w, &fn);
    snapshot_writer_reference(&w, SNAPSHOT_REF_OTHER, 0, s_upvalue, 0, at + 192);
    struct snapshot_wire_object uv = {SNAPSHOT_UPVALUE, 0, at + 192, 48, 0, 0, NULL, 0};
    snapshot_writer_object(&w, &uv);
    snapshot_writer_reference(&w, SNAPSHOT_REF_OTHER, 0, s_value, 0, at);  /* a cycle back */
  }
  snapshot_writer_root(&w, s_registry, 0, base);
  if (snapshot_writer_end(&w) < 0 || fclose(out) != 0) {
    fprintf(stderr, "%s: write failed\n", path);
    exit(2);
  }
  free(buffer);
  return records;
}

/* One round: the snapshot read, the site's blocks, the analysis. Fills wall and cpu times of
 * the read ([0]) and the analysis ([1]); prints the holders when print. */
static void round_once(const char *path, size_t records, int print, double wall[2], double cpu[2])
{
  double w0 = bench_now_seconds(), c0 = cpu_seconds();
  struct snapshot snapshot;
  struct format_error error;
  if (snapshot_read_file(&snapshot, path, INPUT_FILE_NAMED, &error) != FORMAT_OK) {
    fprintf(stderr, "%s\n", error.message);
    exit(2);
  }
  double w1 = bench_now_seconds(), c1 = cpu_seconds();
  /* The site: every record, its string and its closure (three quarters of the objects). */
  struct diff_holders_block *blocks = malloc(3 * records * sizeof *blocks);
  size_t count = 0;
  const uint64_t first = 0x10000000 + 256;
  for (size_t i = 0; i < records; i++)
    for (int k = 0; k < 3; k++)
      blocks[count++] = (struct diff_holders_block){first + i * 256 + (uint64_t)k * 64, k ? 40 : 64, 0};
  struct diff_site site;
  memset(&site, 0, sizeof site);
  struct diff_site *sites[1] = {&site};
  double w2 = bench_now_seconds(), c2 = cpu_seconds();
  if (diff_holders_analyse(&snapshot, blocks, count, sites, 1) < 0) {
    fputs("out of memory\n", stderr);
    exit(2);
  }
  double w3 = bench_now_seconds(), c3 = cpu_seconds();
  wall[0] = w1 - w0, wall[1] = w3 - w2;
  cpu[0] = c1 - c0, cpu[1] = c3 - c2;
  if (print) {
    printf("snapshot: %zu objects, %zu references; the site: %zu blocks\n", snapshot.object_count,
           snapshot.reference_count, count);
    for (size_t i = 0; i < site.holder_count; i++)
      printf("  %s: %llu objects, %llu bytes; retained %llu\n", site.holders[i].path,
             (unsigned long long)site.holders[i].objects, (unsigned long long)site.holders[i].bytes,
             (unsigned long long)site.holders[i].retained_bytes);
  }
  diff_site_release(&site);
  free(blocks);
  snapshot_free(&snapshot);
}

int main(int argc, char **argv)
{
  if (argc < 2) {
    fputs("usage: holders FILE [OBJECTS [ROUNDS]]\n", stderr);
    return 2;
  }
  size_t objects = argc > 2 ? strtoull(argv[2], NULL, 10) : 1000000;
  int rounds = argc > 3 ? atoi(argv[3]) : 5;
  if (rounds < 1 || rounds > 100)
    rounds = 5;
  size_t records = generate(argv[1], objects);
  double wall[2][100], cpu[2][100], total_wall[100], total_cpu[100];
  for (int i = 0; i < rounds; i++) {
    double w[2], c[2];
    round_once(argv[1], records, i == 0, w, c);
    wall[0][i] = w[0], wall[1][i] = w[1], cpu[0][i] = c[0], cpu[1][i] = c[1];
    total_wall[i] = w[0] + w[1], total_cpu[i] = c[0] + c[1];
  }
  struct rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  printf("medians of %d rounds: read %.3f s (CPU %.3f s), analysis %.3f s (CPU %.3f s), "
         "read and analysis %.3f s (CPU %.3f s; target 1 s)\n", rounds,
         bench_median(wall[0], rounds), bench_median(cpu[0], rounds), bench_median(wall[1], rounds),
         bench_median(cpu[1], rounds), bench_median(total_wall, rounds),
         bench_median(total_cpu, rounds));
  printf("peak memory %.0f MB (target 200 MB)\n", usage.ru_maxrss / 1024.0);
  return 0;
}
