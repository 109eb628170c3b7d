/* bench/diff-gen.c: writes a synthetic capture (segments and index, with boundary lines when asked) for the diff benchmark. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/memprof.h"

/* The program it imitates: 8 chunks of 8 lines, 16 traces; a churn of young
 * blocks (a FIFO of 20000 that are freed in order), 100000 long-lived blocks
 * replaced now and then (so blocks die segments after their birth), reallocs,
 * and one site that leaks a block every 1000 allocations. Addresses are
 * recycled through a free list, as an allocator does. */
#define YOUNG 20000
#define OLD 100000
#define PROTOS 8
#define TRACES 16

struct generator {
  uint64_t rng;
  uint64_t *free_slots;
  size_t free_count;
  uint64_t next_slot;
  uint64_t young[YOUNG];
  uint64_t young_size[YOUNG];
  size_t young_head, young_count;
  uint64_t *old, *old_size;
  size_t old_count;
  uint64_t allocs;
};

static uint64_t next_random(struct generator *g)
{
  g->rng ^= g->rng >> 12;
  g->rng ^= g->rng << 25;
  g->rng ^= g->rng >> 27;
  return g->rng * 0x2545f4914f6cdd1dull;
}

static uint64_t take_slot(struct generator *g)
{
  if (g->free_count)
    return g->free_slots[--g->free_count];
  return g->next_slot++;
}

static void give_slot(struct generator *g, uint64_t slot)
{
  g->free_slots[g->free_count++] = slot;
}

static uint64_t slot_address(uint64_t slot)
{
  return 0x7f0000000000ull + slot * 64;
}

static int sink_file(void *context, const uint8_t *data, size_t size)
{
  return fwrite(data, 1, size, context) == size ? 0 : -1;
}

/* A location: a Lua line of one of the protos, or a trace. */
static void pick_location(struct generator *g, struct memprof_event *e)
{
  uint64_t r = next_random(g);
  if (r % 4 == 0) {
    e->source = MEMPROF_SOURCE_TRACE;
    e->location = 1 + (r >> 8) % TRACES;
    e->line = 0;
  } else {
    e->source = MEMPROF_SOURCE_LUA;
    e->location = 0x40000000 + 0x100 * ((r >> 8) % PROTOS);
    e->line = 1 + (r >> 16) % 8;
  }
}

/* Boundary lines: one every `every` events of a segment (0: none), each
 * written to the index before its segment's line, as the collector does. */
struct boundaries {
  FILE *index;
  uint64_t every;
  uint64_t seq, segment, per;
  uint64_t allocated;            /* bytes allocated so far */
};

static void boundary_line(struct boundaries *b, uint64_t events)
{
  b->seq++;
  double time = 1000.0 + 10.0 * (double)(b->segment - 1) + 10.0 * (double)events / (double)b->per;
  uint64_t young = b->every / 8;
  fprintf(b->index, "boundary\tseq=%" PRIu64 "\tsegment=%" PRIu64 "\tevents=%" PRIu64 "\ttime=%.3f"
                    "\tgc_cycles=%" PRIu64 "\theap_bytes=%" PRIu64 "\tallocated=%" PRIu64
                    "\tyoung_from=%" PRIu64 "\tcause=gc\n",
          b->seq, b->segment, events, time, b->seq, (uint64_t)(OLD * 132 + YOUNG * 48),
          b->allocated, events > young ? events - young : 0);
}

/* Writes a segment of events events (one more when the last one frees an
 * old block first); returns how many it wrote, or 0 when it cannot. */
static uint64_t write_segment(struct generator *g, const char *path, uint64_t events,
                              struct boundaries *b)
{
  FILE *f = fopen(path, "wb");
  if (!f)
    return 0;
  static uint8_t buffer[1 << 16];
  struct memprof_writer w;
  memprof_writer_init(&w, buffer, sizeof buffer, sink_file, f);
  memprof_writer_symtab_begin(&w);
  static const char *chunks[PROTOS] = {"@app/server.lua", "@app/router.lua", "@app/db.lua",
                                       "@app/cache.lua", "@app/json.lua", "@app/auth.lua",
                                       "@app/log.lua", "@app/util.lua"};
  for (int p = 0; p < PROTOS; p++) {
    struct memprof_symbol s = {MEMPROF_SYMBOL_LUA, 0x40000000 + 0x100 * (uint64_t)p, 1, 0,
                               chunks[p], strlen(chunks[p])};
    memprof_writer_symbol(&w, &s);
  }
  for (int t = 1; t <= TRACES; t++) {
    struct memprof_symbol s = {MEMPROF_SYMBOL_TRACE, 0x40000000 + 0x100 * (uint64_t)(t % PROTOS),
                               (uint64_t)(10 + t), (uint64_t)t, NULL, 0};
    memprof_writer_symbol(&w, &s);
  }
  memprof_writer_symtab_end(&w);
  memprof_writer_events_begin(&w);
  uint64_t written = 0;
  for (uint64_t i = 0; i < events; i++) {
    struct memprof_event e;
    memset(&e, 0, sizeof e);
    pick_location(g, &e);
    uint64_t r = next_random(g);
    if (g->young_count == YOUNG || (g->young_count > 0 && r % 100 < 40)) {
      /* free the oldest young block, or realloc it 1 time in 8 */
      size_t at = g->young_head;
      uint64_t slot = g->young[at];
      g->young_head = (g->young_head + 1) % YOUNG;
      g->young_count--;
      if (r % 8 == 0) {
        uint64_t slot2 = take_slot(g);
        e.kind = MEMPROF_EVENT_REALLOC;
        e.old_address = slot_address(slot);
        e.old_size = g->young_size[at];
        e.new_address = slot_address(slot2);
        e.new_size = 16 + (r >> 20) % 48;
        give_slot(g, slot);
        size_t tail = (g->young_head + g->young_count) % YOUNG;
        g->young[tail] = slot2;
        g->young_size[tail] = e.new_size;
        g->young_count++;
      } else {
        e.kind = MEMPROF_EVENT_FREE;
        e.old_address = slot_address(slot);
        e.old_size = g->young_size[at];
        give_slot(g, slot);
      }
    } else if (r % 100 < 45) {
      /* a long-lived block: replaces a random old one once the set is full */
      uint64_t slot = take_slot(g);
      size_t victim = (size_t)((r >> 24) % OLD);
      if (g->old_count == OLD) {
        struct memprof_event f2 = e;
        f2.kind = MEMPROF_EVENT_FREE;
        f2.old_address = slot_address(g->old[victim]);
        f2.old_size = g->old_size[victim];
        memprof_writer_event(&w, &f2);
        give_slot(g, g->old[victim]);
        i++;
        if (++written % (b->every ? b->every : UINT64_MAX) == 0)
          boundary_line(b, written);
      } else {
        victim = g->old_count++;
      }
      e.kind = MEMPROF_EVENT_ALLOC;
      e.new_address = slot_address(slot);
      e.new_size = 32 + (r >> 32) % 200;
      g->old[victim] = slot;
      g->old_size[victim] = e.new_size;
    } else {
      uint64_t slot = take_slot(g);
      e.kind = MEMPROF_EVENT_ALLOC;
      e.new_address = slot_address(slot);
      if (++g->allocs % 1000 == 0) {  /* the leak: never freed */
        e.source = MEMPROF_SOURCE_LUA;
        e.location = 0x40000000 + 0x100 * 3;
        e.line = 7;
        e.new_size = 128;
      } else {
        e.new_size = 16 + (r >> 32) % 64;
        size_t tail = (g->young_head + g->young_count) % YOUNG;
        g->young[tail] = slot;
        g->young_size[tail] = e.new_size;
        g->young_count++;
      }
    }
    memprof_writer_event(&w, &e);
    b->allocated += e.new_size;
    if (++written % (b->every ? b->every : UINT64_MAX) == 0)
      boundary_line(b, written);
  }
  memprof_writer_epilogue(&w);
  int status = memprof_writer_flush(&w);
  if (fclose(f) != 0 || w.failed)
    status = -1;
  return status == 0 ? written : 0;
}

int main(int argc, char **argv)
{
  if (argc != 4 && argc != 5) {
    fputs("usage: diff-gen SEGMENTS EVENTS_PER_SEGMENT DIR [BOUNDARY_EVERY]\n"
          "  BOUNDARY_EVERY: a boundary line every that many events (default 0: none; segment\n"
          "  ends are the boundaries)\n", stderr);
    return 2;
  }
  uint64_t segments = strtoull(argv[1], NULL, 10), per = strtoull(argv[2], NULL, 10);
  uint64_t every = argc == 5 ? strtoull(argv[4], NULL, 10) : 0;
  const char *dir = argv[3];
  struct generator *g = calloc(1, sizeof *g);
  if (!g)
    return 4;
  g->rng = 0x9e3779b97f4a7c15ull;
  size_t slots = YOUNG + OLD + (size_t)(segments * per / 1000) + 16;
  g->free_slots = malloc(slots * 2 * sizeof *g->free_slots);
  g->old = malloc(OLD * sizeof *g->old);
  g->old_size = malloc(OLD * sizeof *g->old_size);
  if (!g->free_slots || !g->old || !g->old_size)
    return 4;
  char path[4096];
  snprintf(path, sizeof path, "%s/index", dir);
  FILE *index = fopen(path, "w");
  if (!index) {
    fprintf(stderr, "diff-gen: %s: %s\n", path, strerror(errno));
    return 3;
  }
  fprintf(index, "ljleak-index\tversion=1\ncapture\tpid=1\thost=bench\tcommand=diff-gen\t"
                 "start=1000.0\tsample=0\tperiod=10\tmax_bytes=0\tgzip=0\n");
  struct boundaries b = {index, every, 0, 0, per, 0};
  uint64_t total = 0;
  for (uint64_t s = 1; s <= segments; s++) {
    snprintf(path, sizeof path, "%s/seg-%04" PRIu64 ".memprof", dir, s);
    b.segment = s;
    uint64_t written = write_segment(g, path, per, &b);
    if (!written) {
      fprintf(stderr, "diff-gen: cannot write %s\n", path);
      return 3;
    }
    fprintf(index, "segment\tseq=%" PRIu64 "\tfile=seg-%04" PRIu64 ".memprof\tstart=%.1f\tend=%.1f\t"
                   "events=%" PRIu64 "\tsample=0\tcomplete=1\n",
            s, s, 1000.0 + 10.0 * (double)(s - 1), 1000.0 + 10.0 * (double)s, written);
    total += written;
  }
  fclose(index);
  printf("%" PRIu64 "\n", total);
  free(g->free_slots);
  free(g->old);
  free(g->old_size);
  free(g);
  return 0;
}
