/* bench/snapshot_read.c: reading a heap snapshot and nothing else, the floor under any holder
 * analysis that holds the snapshot's graph in memory: bench/holders-heap.sh sets its CPU time
 * and peak memory beside the diff's with and without holders. usage: snapshot_read FILE
 * Prints the objects and references read, the CPU seconds of the read and the process's peak
 * RSS in KB, tab-separated. */
#include <stdio.h>
#include <sys/resource.h>
#include <time.h>

#include "format/snapshot.h"

static double cpu_seconds(void)
{
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
  if (argc != 2) {
    fputs("usage: snapshot_read FILE\n", stderr);
    return 2;
  }
  double start = cpu_seconds();
  struct snapshot snapshot;
  struct format_error error;
  if (snapshot_read_file(&snapshot, argv[1], INPUT_FILE_NAMED, &error) != FORMAT_OK) {
    fprintf(stderr, "%s\n", error.message);
    return 2;
  }
  double cpu = cpu_seconds() - start;
  struct rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  printf("%zu\t%zu\t%.4f\t%ld\n", snapshot.object_count, snapshot.reference_count, cpu, usage.ru_maxrss);
  snapshot_free(&snapshot);
  return 0;
}
