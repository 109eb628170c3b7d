/* bench/gen_stream.c: writes a synthetic memprof stream shaped like a busy LuaJIT program, for benchmarks. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/memprof.h"

/* The shape of the stream:
 * - about 400 sites: 40 Lua prototypes with 6 lines each, 60 C functions,
 *   100 traces, and INTERNAL; a few sites are hot (weights fall as 1/rank);
 * - 95% of frees by INTERNAL (the GC), the rest and 15% of reallocs by one
 *   partner site of the allocating site, other reallocs by the allocating site;
 * - sizes mostly 16-256 bytes, some up to 4 KiB, 1% up to 1 MiB;
 * - addresses come back through per-size free lists, as in a real allocator;
 * - bursts: a loop allocating several blocks at one site, or a GC sweep
 *   freeing several young blocks;
 * - a young set of short-lived blocks, and 1% of allocations going to a
 *   bounded pool of long-lived blocks (when it is full, a random old block is
 *   freed), so the live set stops growing while the stream goes on;
 * - in-stream symtab events now and then: new prototypes and reused trace
 *   numbers with a new start. */

#define LUA_PROTOS 40
#define LINES_PER_PROTO 6
#define C_FUNCTIONS 60
#define TRACES 100
#define SITES (LUA_PROTOS * LINES_PER_PROTO + C_FUNCTIONS + TRACES + 1)
#define SIZE_CLASSES 511  /* 16-byte classes to 4 KiB, then 4 KiB pages to 1 MiB */
#define SYMBOL_EVERY 50000

struct options {
  uint64_t events;
  size_t young;        /* short-lived working set */
  size_t old;          /* long-lived pool */
  uint64_t seed;
  const char *output;
};

struct diff_live_block {
  uint64_t address, size;
  const struct memprof_event *site;  /* where it was allocated */
};

struct pool {
  struct diff_live_block *blocks;
  size_t count, capacity;
};

struct free_list {
  uint64_t *addresses;
  size_t count, capacity;
};

struct generator {
  struct options options;
  uint64_t random_state;
  struct memprof_writer writer;
  FILE *file;
  struct memprof_event sites[SITES];
  double site_weights[SITES];   /* cumulative */
  struct pool young, old;
  struct free_list free_lists[SIZE_CLASSES];
  uint64_t next_address;
  uint64_t events, symbols;
  uint64_t same_site;           /* events from the same location as the one before */
  struct memprof_event previous; /* the location of the event before */
  uint64_t next_proto;          /* address of the next new prototype */
};

static uint64_t random_next(struct generator *g)
{
  uint64_t x = g->random_state;  /* xorshift64* */
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  g->random_state = x;
  return x * 0x2545F4914F6CDD1DULL;
}

static uint64_t random_below(struct generator *g, uint64_t bound)
{
  return (random_next(g) >> 11) % bound;
}

static double random_unit(struct generator *g)
{
  return (double)(random_next(g) >> 11) / 9007199254740992.0;
}

static int file_sink(void *context, const uint8_t *data, size_t size)
{
  return fwrite(data, 1, size, context) == size ? 0 : -1;
}

static void *checked_realloc(void *pointer, size_t size)
{
  void *bigger = realloc(pointer, size);
  if (!bigger) {
    fputs("gen_stream: out of memory\n", stderr);
    exit(1);
  }
  return bigger;
}

static uint64_t lua_proto_address(int proto)
{
  return 0x40000000u + (uint64_t)proto * 0x100;
}

static uint64_t c_function_address(int function)
{
  return 0x7f0000001000ull + (uint64_t)function * 0x1000;
}

static void write_symbol(struct generator *g, const struct memprof_symbol *symbol, int in_stream)
{
  int failed = in_stream ? memprof_writer_symbol_event(&g->writer, symbol)
                         : memprof_writer_symbol(&g->writer, symbol);
  if (failed) {
    fprintf(stderr, "gen_stream: cannot write %s\n", g->options.output);
    exit(1);
  }
  g->symbols += in_stream;
}

static void write_symtab(struct generator *g)
{
  char name[64];
  for (int p = 0; p < LUA_PROTOS; p++) {
    int length = snprintf(name, sizeof name, "@bench/module_%02d.lua", p);
    struct memprof_symbol symbol = {MEMPROF_SYMBOL_LUA, lua_proto_address(p), 1 + 20 * (uint64_t)p,
                                    0, name, (size_t)length};
    write_symbol(g, &symbol, 0);
  }
  for (int c = 0; c < C_FUNCTIONS; c++) {
    int length = snprintf(name, sizeof name, "bench_cfunc_%02d", c);
    struct memprof_symbol symbol = {MEMPROF_SYMBOL_C, c_function_address(c), 0, 0, name,
                                    (size_t)length};
    write_symbol(g, &symbol, 0);
  }
  for (int t = 0; t < TRACES; t++) {
    struct memprof_symbol symbol = {MEMPROF_SYMBOL_TRACE, lua_proto_address(t % LUA_PROTOS),
                                    3 + (uint64_t)t % 17, (uint64_t)t + 1, NULL, 0};
    write_symbol(g, &symbol, 0);
  }
}

static void init_sites(struct generator *g)
{
  int n = 0;
  for (int p = 0; p < LUA_PROTOS; p++)
    for (int l = 0; l < LINES_PER_PROTO; l++)
      g->sites[n++] = (struct memprof_event){.source = MEMPROF_SOURCE_LUA,
                                             .location = lua_proto_address(p),
                                             .line = 1 + 20 * (uint64_t)p + (uint64_t)l * 3};
  for (int c = 0; c < C_FUNCTIONS; c++)
    g->sites[n++] = (struct memprof_event){.source = MEMPROF_SOURCE_C,
                                           .location = c_function_address(c) + 0x10};
  for (int t = 0; t < TRACES; t++)
    g->sites[n++] = (struct memprof_event){.source = MEMPROF_SOURCE_TRACE,
                                           .location = (uint64_t)t + 1};
  g->sites[n++] = (struct memprof_event){.source = MEMPROF_SOURCE_INTERNAL};
  /* Hot sites first in a shuffled order: weight 1/rank. */
  int order[SITES];
  for (int i = 0; i < SITES; i++)
    order[i] = i;
  for (int i = SITES - 1; i > 0; i--) {
    int j = (int)random_below(g, (uint64_t)i + 1), swap = order[i];
    order[i] = order[j];
    order[j] = swap;
  }
  double weights[SITES], total = 0;
  for (int rank = 0; rank < SITES; rank++)
    total += weights[order[rank]] = 1.0 / (rank + 1);
  double sum = 0;
  for (int i = 0; i < SITES; i++)
    g->site_weights[i] = (sum += weights[i] / total);
}

static const struct memprof_event *pick_site(struct generator *g)
{
  double x = random_unit(g);
  int low = 0, high = SITES - 1;
  while (low < high) {
    int mid = (low + high) / 2;
    if (g->site_weights[mid] < x)
      low = mid + 1;
    else
      high = mid;
  }
  return &g->sites[low];
}

/* The one other site that grows or frees a site's blocks (code that fills a
 * table made elsewhere, a C function releasing a buffer). */
static const struct memprof_event *partner_site(struct generator *g,
                                                const struct memprof_event *site)
{
  size_t index = (size_t)(site - g->sites);
  return &g->sites[(index * 7 + 3) % SITES];
}

static uint64_t pick_size(struct generator *g)
{
  uint64_t roll = random_below(g, 1000);
  if (roll < 900)  /* small, skewed towards the bottom */
    return 16 + random_below(g, 1 + random_below(g, 241));
  if (roll < 990)
    return 257 + random_below(g, 4096 - 256);
  return 4097 + random_below(g, (1 << 20) - 4096);
}

/* Free-list class of a size: 16-byte steps to 4 KiB, then pages to 1 MiB;
 * -1 above that (such blocks get fresh addresses). */
static int size_class(uint64_t size)
{
  if (size <= 4096)
    return (int)((size + 15) / 16) - 1;  /* 0 .. 255 */
  uint64_t pages = (size + 4095) / 4096;  /* 2 .. 256 */
  return pages <= 256 ? (int)(254 + pages) : -1;
}

static uint64_t class_bytes(int class_index)
{
  return class_index < 256 ? (uint64_t)(class_index + 1) * 16
                           : (uint64_t)(class_index - 254) * 4096;
}

/* An address for size bytes: a freed one of the same class if there is one. */
static uint64_t take_address(struct generator *g, uint64_t size)
{
  int c = size_class(size);
  if (c >= 0 && g->free_lists[c].count)
    return g->free_lists[c].addresses[--g->free_lists[c].count];
  uint64_t address = g->next_address;
  g->next_address += c >= 0 ? class_bytes(c) : (size + 4095) / 4096 * 4096;
  return address;
}

static void give_address(struct generator *g, uint64_t address, uint64_t size)
{
  int c = size_class(size);
  if (c < 0)
    return;
  struct free_list *list = &g->free_lists[c];
  if (list->count == list->capacity) {
    list->capacity = list->capacity ? list->capacity * 2 : 64;
    list->addresses = checked_realloc(list->addresses, list->capacity * sizeof *list->addresses);
  }
  list->addresses[list->count++] = address;
}

static void emit(struct generator *g, struct memprof_event *event)
{
  if (memprof_writer_event(&g->writer, event)) {
    fprintf(stderr, "gen_stream: cannot write %s: %s\n", g->options.output, strerror(errno));
    exit(1);
  }
  g->events++;
  g->same_site += g->events > 1 && event->source == g->previous.source &&
                  event->location == g->previous.location && event->line == g->previous.line;
  g->previous = *event;
  if (g->events % SYMBOL_EVERY == 0) {
    /* A trace number comes back with a new start, or a new prototype loads. */
    uint64_t n = g->events / SYMBOL_EVERY;
    if (n % 2) {
      struct memprof_symbol symbol = {MEMPROF_SYMBOL_TRACE,
                                      lua_proto_address((int)(n % LUA_PROTOS)), 5 + n % 11,
                                      1 + n % TRACES, NULL, 0};
      write_symbol(g, &symbol, 1);
    } else {
      char name[64];
      int length = snprintf(name, sizeof name, "@bench/loaded_%" PRIu64 ".lua", n);
      struct memprof_symbol symbol = {MEMPROF_SYMBOL_LUA, g->next_proto, 1, 0, name,
                                      (size_t)length};
      g->next_proto += 0x100;
      write_symbol(g, &symbol, 1);
    }
  }
}

/* Frees block (by GC most of the time, as in LuaJIT). */
static void free_block(struct generator *g, struct diff_live_block block)
{
  struct memprof_event event = random_below(g, 100) < 95
                                   ? (struct memprof_event){.source = MEMPROF_SOURCE_INTERNAL}
                                   : *partner_site(g, block.site);
  event.kind = MEMPROF_EVENT_FREE;
  event.old_address = block.address;
  event.old_size = block.size;
  emit(g, &event);
  give_address(g, block.address, block.size);
}

static struct diff_live_block pool_remove_random(struct generator *g, struct pool *pool)
{
  size_t i = (size_t)random_below(g, pool->count);
  struct diff_live_block block = pool->blocks[i];
  pool->blocks[i] = pool->blocks[--pool->count];
  return block;
}

static void alloc_block(struct generator *g, const struct memprof_event *site)
{
  int long_lived = random_below(g, 100) == 0;
  struct pool *pool = long_lived ? &g->old : &g->young;
  if (pool->count == pool->capacity)
    free_block(g, pool_remove_random(g, pool));
  struct memprof_event event = *site;
  event.kind = MEMPROF_EVENT_ALLOC;
  event.new_size = pick_size(g);
  event.new_address = take_address(g, event.new_size);
  emit(g, &event);
  pool->blocks[pool->count++] = (struct diff_live_block){event.new_address, event.new_size, site};
}

static void realloc_block(struct generator *g)
{
  size_t i = (size_t)random_below(g, g->young.count);
  struct diff_live_block *block = &g->young.blocks[i];
  /* Mostly the site that made the block grows it (a table filling up). */
  const struct memprof_event *site =
      random_below(g, 100) < 85 ? block->site : partner_site(g, block->site);
  struct memprof_event event = *site;
  event.kind = MEMPROF_EVENT_REALLOC;
  event.old_address = block->address;
  event.old_size = block->size;
  event.new_size = block->size < (1 << 20) ? block->size * 2 : block->size / 2;
  event.new_address = take_address(g, event.new_size);
  emit(g, &event);
  give_address(g, block->address, block->size);
  block->address = event.new_address;
  block->size = event.new_size;
  block->site = site;
}

static int parse_count(const char *text, uint64_t *value)
{
  char *end;
  errno = 0;
  unsigned long long parsed = strtoull(text, &end, 10);
  if (errno || end == text || *end || !parsed)
    return -1;
  *value = parsed;
  return 0;
}

static void usage(FILE *out)
{
  fputs("usage: gen_stream [--events N] [--young N] [--old N] [--seed N] OUTPUT\n"
        "\n"
        "Writes a synthetic memprof stream of N allocation events (default 10000000)\n"
        "with a young set of short-lived blocks (default 50000) and a pool of\n"
        "long-lived blocks (default 20000) that takes 1% of the allocations.\n"
        "Prints the number of allocation events and symtab events written.\n",
        out);
}

int main(int argc, char **argv)
{
  struct options options = {10000000, 50000, 20000, 1, NULL};
  for (int i = 1; i < argc; i++) {
    uint64_t value = 0;
    if (!strcmp(argv[i], "--help")) {
      usage(stdout);
      return 0;
    }
    if (i + 1 < argc && (!strcmp(argv[i], "--events") || !strcmp(argv[i], "--young") ||
                         !strcmp(argv[i], "--old") || !strcmp(argv[i], "--seed"))) {
      if (parse_count(argv[i + 1], &value)) {
        fprintf(stderr, "gen_stream: %s needs a positive number\n", argv[i]);
        return 2;
      }
      if (!strcmp(argv[i], "--events"))
        options.events = value;
      else if (!strcmp(argv[i], "--young"))
        options.young = (size_t)value;
      else if (!strcmp(argv[i], "--old"))
        options.old = (size_t)value;
      else
        options.seed = value;
      i++;
    } else if (argv[i][0] != '-' && !options.output) {
      options.output = argv[i];
    } else {
      usage(stderr);
      return 2;
    }
  }
  if (!options.output) {
    usage(stderr);
    return 2;
  }

  static struct generator g;
  g.options = options;
  g.random_state = options.seed * 0x9E3779B97F4A7C15ULL | 1;
  g.next_address = 0x100000000ull;
  g.next_proto = 0x50000000u;
  g.young = (struct pool){checked_realloc(NULL, options.young * sizeof(struct diff_live_block)), 0,
                          options.young};
  g.old = (struct pool){checked_realloc(NULL, options.old * sizeof(struct diff_live_block)), 0,
                        options.old};
  g.file = fopen(options.output, "wb");
  if (!g.file) {
    fprintf(stderr, "gen_stream: cannot open %s: %s\n", options.output, strerror(errno));
    return 1;
  }
  static uint8_t buffer[1 << 20];
  memprof_writer_init(&g.writer, buffer, sizeof buffer, file_sink, g.file);
  init_sites(&g);
  if (memprof_writer_symtab_begin(&g.writer)) {
    fprintf(stderr, "gen_stream: cannot write %s\n", options.output);
    return 1;
  }
  write_symtab(&g);
  if (memprof_writer_symtab_end(&g.writer) || memprof_writer_events_begin(&g.writer)) {
    fprintf(stderr, "gen_stream: cannot write %s\n", options.output);
    return 1;
  }
  /* The program runs in bursts, as real streams show (in Tarantool's captures
   * 70-99% of events come from the same site as the one before): a loop
   * allocates several blocks at one site, or the GC sweeps several young
   * blocks away. Sweeps start when the young set is 90% full. */
  while (g.events < options.events) {
    uint64_t burst = 1 + random_below(&g, 16);
    if (g.young.count * 10 >= g.young.capacity * 9) {
      for (uint64_t i = 0; i < burst && g.young.count; i++)
        free_block(&g, pool_remove_random(&g, &g.young));
      continue;
    }
    const struct memprof_event *site = pick_site(&g);
    for (uint64_t i = 0; i < burst; i++) {
      if (random_below(&g, 100) < 12 && g.young.count)
        realloc_block(&g);
      else
        alloc_block(&g, site);
    }
  }
  if (memprof_writer_epilogue(&g.writer) || memprof_writer_flush(&g.writer) || fclose(g.file)) {
    fprintf(stderr, "gen_stream: cannot write %s\n", options.output);
    return 1;
  }
  printf("%" PRIu64 " events, %" PRIu64 " symtab events, %zu young and %zu long-lived blocks "
         "live at the end, %.1f%% of events from the same location as the one before\n",
         g.events, g.symbols, g.young.count, g.old.count,
         100.0 * (double)g.same_site / (double)g.events);
  free(g.young.blocks);
  free(g.old.blocks);
  for (int c = 0; c < SIZE_CLASSES; c++)
    free(g.free_lists[c].addresses);
  return 0;
}
