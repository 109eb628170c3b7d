/* bench/read_limit.c: the physical limit of reading a stream on this machine: decoding plus one table update per event, nothing else. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/bench_time.h"
#include "format/decode.h"
#include "container/keyed_slots.h"

/* What `ljleak diff` and `summary` cannot go below: every event decoded
 * (format/decode.h, as they decode) and one update of one open-addressing
 * table of 16-byte slots (container/keyed_slots.h, 3/4 full at most) per
 * address it names: an alloc sets the block's size, a free sets it to 0
 * (a dead slot, as diff's map of a segment keeps it), the slot prefetched
 * a few events ahead as they do. No sites, no symbols, no series. The
 * stream is read from the page cache through the same reader. */

struct limit_slot {
  uint64_t address;
  uint64_t size;
};

struct limit_table {
  struct limit_slot *slots;
  size_t mask, count;
};

#define LIMIT_AHEAD 16  /* a power of two */

struct limit_pending {
  uint64_t address, size;  /* size 0: a free */
  size_t hash;
};

static int limit_grow(struct limit_table *table)
{
  size_t size = (table->mask + 1) * 2;
  struct limit_slot *slots = calloc(size, sizeof *slots);
  if (!slots)
    return -1;
  keyed_slots_move(slots, size - 1, table->slots, table->mask);
  free(table->slots);
  table->slots = slots;
  table->mask = size - 1;
  return 0;
}

static inline int limit_apply(struct limit_table *table, const struct limit_pending *op)
{
  if (!op->address)
    return 0;
  int found;
  size_t i = keyed_slots_probe(table->slots, table->mask, op->address, op->hash, &found);
  if (!op->size) {
    if (found)
      table->slots[i].size = 0;
    return 0;
  }
  if (!found) {
    if ((table->count + 1) * 4 > (table->mask + 1) * 3) {
      if (limit_grow(table) < 0)
        return -1;
      i = keyed_slots_probe(table->slots, table->mask, op->address, op->hash, &found);
    }
    table->slots[i].address = op->address;
    table->count++;
  }
  table->slots[i].size = op->size;
  return 0;
}

/* Queues one table update as the n-th, applying the one LIMIT_AHEAD before it. */
static inline int limit_queue(struct limit_table *table, struct limit_pending *ring, uint64_t n,
                              uint64_t address, uint64_t size)
{
  struct limit_pending *op = &ring[n & (LIMIT_AHEAD - 1)];
  if (n >= LIMIT_AHEAD && limit_apply(table, op) < 0)
    return -1;
  op->address = address;
  op->size = size;
  op->hash = keyed_slots_hash(address);
  __builtin_prefetch(&table->slots[op->hash & table->mask], 1);
  return 0;
}

/* Reads the stream at path once; *events gets its event count, *live the
 * table's count at the end (addresses seen). Returns 0, or -1 with a
 * message printed. */
static int limit_read(const char *path, uint64_t *events, uint64_t *live)
{
  struct format_error err;
  struct memprof_reader *reader = memprof_reader_open(path, &err);
  if (!reader) {
    fprintf(stderr, "read_limit: %s\n", err.message);
    return -1;
  }
  struct limit_table table = {calloc(1024, sizeof(struct limit_slot)), 1023, 0};
  struct limit_pending ring[LIMIT_AHEAD];
  uint64_t n = 0;  /* updates queued */
  uint64_t count = 0;
  int pext = memprof_reader_pext(reader), failed = !table.slots;
  enum format_status status = FORMAT_OK;
  while (!failed) {
    const uint8_t *at;
    size_t span = memprof_reader_events_span(reader, &at), used = 0;
    int version = memprof_reader_events_version(reader);
    while (used < span) {
      struct memprof_event e;
      size_t length = pext ? memprof_decode_event(at + used, version, &e, 1)
                           : memprof_decode_event(at + used, version, &e, 0);
      if (!length)
        break;
      used += length;
      count++;
      if (e.kind != MEMPROF_EVENT_ALLOC && limit_queue(&table, ring, n++, e.old_address, 0) < 0)
        failed = 1;
      if (e.kind != MEMPROF_EVENT_FREE && e.new_size &&
          limit_queue(&table, ring, n++, e.new_address, e.new_size) < 0)
        failed = 1;
    }
    memprof_reader_consume(reader, used);
    struct memprof_record record;
    status = memprof_reader_next(reader, &record);
    if (status != FORMAT_OK)
      break;
    if (record.type == MEMPROF_RECORD_EVENT) {
      count++;
      const struct memprof_event *e = &record.event;
      if (e->kind != MEMPROF_EVENT_ALLOC && limit_queue(&table, ring, n++, e->old_address, 0) < 0)
        failed = 1;
      if (e->kind != MEMPROF_EVENT_FREE && e->new_size &&
          limit_queue(&table, ring, n++, e->new_address, e->new_size) < 0)
        failed = 1;
    }
  }
  for (uint64_t i = n > LIMIT_AHEAD ? n - LIMIT_AHEAD : 0; !failed && i < n; i++)
    failed = limit_apply(&table, &ring[i & (LIMIT_AHEAD - 1)]) < 0;
  if (failed)
    fprintf(stderr, "read_limit: %s: out of memory\n", path);
  else if (status != FORMAT_END) {
    fprintf(stderr, "read_limit: %s\n", memprof_reader_error(reader)->message);
    failed = 1;
  }
  *events = count;
  *live = table.count;
  free(table.slots);
  memprof_reader_close(reader);
  return failed ? -1 : 0;
}

static double limit_cpu_seconds(void)
{
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
  if (argc < 3 || atoi(argv[1]) < 1 || atoi(argv[1]) > 100) {
    fputs("usage: read_limit RUNS STREAM...\n", stderr);
    return 2;
  }
  int runs = atoi(argv[1]);
  double seconds[100], cpu_seconds[100];
  uint64_t events = 0, addresses = 0;
  for (int r = 0; r < runs; r++) {
    double start = bench_now_seconds(), cpu_start = limit_cpu_seconds();
    events = addresses = 0;
    for (int i = 2; i < argc; i++) {  /* segments one after another, each with its own table */
      uint64_t stream_events, stream_addresses;
      if (limit_read(argv[i], &stream_events, &stream_addresses) < 0)
        return 1;
      events += stream_events;
      addresses += stream_addresses;
    }
    seconds[r] = bench_now_seconds() - start;
    cpu_seconds[r] = limit_cpu_seconds() - cpu_start;
  }
  double wall = bench_median(seconds, runs), cpu = bench_median(cpu_seconds, runs);
  printf("physical limit (decoding, one table update per event): median of %d runs: %.3f s wall, "
         "%.3f s CPU; %.2f million events/s (wall), %.2f million events/s (CPU); %" PRIu64
         " events, %" PRIu64 " addresses\n",
         runs, wall, cpu, (double)events / wall / 1e6, (double)events / cpu / 1e6, events, addresses);
  return 0;
}
