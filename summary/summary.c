/* summary/summary.c: the aggregation and report of Tarantool's luajit-parse-memprof, in constant memory per live block. */
#include "summary/summary.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#define XXH_INLINE_ALL  /* the 8- and 24-byte keys hash in a few inlined instructions */
#include <xxhash.h>

#include "format/decode.h"

#define NONE UINT32_MAX

/* For the per-event path, where a call's register saves cost more than the work. */
#define ALWAYS_INLINE inline __attribute__((always_inline))

/* Event kinds in the order the report prints them. */
enum { KIND_ALLOC, KIND_REALLOC, KIND_FREE, KIND_COUNT };

/* One location id: (address, line, trace number), as Tarantool keys it. */
struct site {
  uint64_t address, line, trace;
  enum memprof_source source;   /* of the first event seen here; used to name it */
  uint32_t version;             /* (site, name) under the current symbols, or NONE */
  uint64_t name_epoch;          /* symbol epoch in which it was computed */
  uint32_t entry[KIND_COUNT];   /* this id's entry per event kind, or NONE */
};

/* A distinct name; its bytes live in the summary's name arena. */
struct name {
  size_t offset, length;
};

/* One line of ALLOCATIONS, REALLOCATIONS or DEALLOCATIONS. */
struct entry {
  int kind;
  uint32_t name;                /* the id's name when the entry was made */
  uint32_t primary_count;       /* records in the primary table */
  uint64_t events, alloc_bytes, free_bytes;
};

/* The blocks an entry's reallocs or frees overrode, per allocating site. The
 * records sit in the slots of an open-addressing table (key EMPTY_KEY marks a
 * free slot), so an update touches one cache line. */
struct primary {
  uint64_t key;                 /* entry << 32 | allocating site */
  uint32_t name;                /* the allocating site's name when its first block was made */
  uint64_t allocated, freed, count;
};
#define EMPTY_KEY UINT64_MAX

struct primary_table {
  struct primary *slots;
  size_t mask, count;
};

/* A site under one name. Names change when symbols arrive, and a block keeps
 * the name its site had when the block was made: blocks record versions. */
struct version {
  uint32_t site, name;
  uint32_t primary_slot[KIND_COUNT];  /* per releasing kind, the slot of the primary
                                      * record last updated for these blocks: a
                                      * guess, checked by its key (here, not in the
                                      * site: one dependent load fewer per free) */
};

/* A live block in 16 bytes: packed = size << 24 | (version + 1); 0 marks an
 * empty slot, whose address is 0 too. A size of 2^40 - 1 or more is kept in the heap map's oversize
 * list instead. */
struct block {
  uint64_t address;
  uint64_t packed;
};

/* Three blocks and a counter in one 64-byte cache line. overflow counts the
 * blocks whose home is this bucket but which sit in a later one (it was full
 * when they came): a lookup stops at the first bucket with no overflow, and a
 * removal needs no shifting, only the counters on the way decremented. */
#define BUCKET_BLOCKS 3
struct bucket {
  _Alignas(64) struct block blocks[BUCKET_BLOCKS];
  uint64_t overflow;
};
#define BLOCK_VERSION_BITS 24
#define BLOCK_VERSION_LIMIT ((UINT32_C(1) << BLOCK_VERSION_BITS) - 1)
#define BLOCK_SIZE_ESCAPE ((UINT64_C(1) << (64 - BLOCK_VERSION_BITS)) - 1)

struct oversize_block {
  uint64_t address, size;
};

/* Open addressing over items kept in an array elsewhere; items are never
 * removed, so the table can be rebuilt from the hashes kept here. */
struct index_slot {
  uint32_t tag;                 /* high half of the item's hash */
  uint32_t index;               /* the item, or NONE */
};

struct index_table {
  struct index_slot *slots;
  size_t mask;
  uint64_t *hashes;             /* [count] hash of each item */
  size_t count, hashes_capacity;
};

/* Open addressing over buckets, probed linearly; at most half of the blocks
 * are used, so a lookup mostly reads one cache line. */
struct heap_map {
  struct bucket *buckets;
  size_t mask, count;           /* mask: buckets - 1 */
  size_t limit;                 /* the count that makes it grow: half of its slots */
  struct oversize_block *oversize;  /* never seen in practice: a plain list */
  size_t oversize_count, oversize_capacity;
};

struct summary {
  struct memprof_symtab *symtab;
  uint64_t symbol_epoch;        /* bumped by every symbol: names may have changed */
  uint64_t events;

  struct site *sites;
  size_t site_capacity;
  struct index_table site_index;

  char *name_bytes;
  size_t name_bytes_used, name_bytes_capacity;
  struct name *names;
  size_t name_capacity;
  struct index_table name_index;

  struct entry *entries;
  size_t entry_count, entry_capacity;

  struct primary_table primaries;

  uint32_t last_site;           /* the previous event's site, or NONE */
  enum memprof_source last_source;
  uint64_t last_location, last_line;

  struct heap_map heap;
  struct version *versions;
  size_t version_count, version_capacity;

  char *name_buffer;            /* scratch for memprof_symtab_name */
  size_t name_buffer_size;
};

/* ---- Small helpers -------------------------------------------------------- */

/* Grows *array so that it holds at least needed items. */
static int reserve(void **array, size_t *capacity, size_t needed, size_t item_size)
{
  if (needed <= *capacity)
    return 0;
  size_t grown = *capacity ? *capacity * 2 : 64;
  while (grown < needed)
    grown *= 2;
  void *bigger = realloc(*array, grown * item_size);
  if (!bigger)
    return -1;
  *array = bigger;
  *capacity = grown;
  return 0;
}

static uint64_t hash_u64(uint64_t value)
{
  return XXH3_64bits(&value, sizeof value);
}

/* ---- Index tables --------------------------------------------------------- */

static int index_table_init(struct index_table *table)
{
  table->slots = malloc(64 * sizeof *table->slots);
  if (!table->slots)
    return -1;
  for (size_t i = 0; i < 64; i++)
    table->slots[i].index = NONE;
  table->mask = 63;
  table->hashes = NULL;
  table->count = table->hashes_capacity = 0;
  return 0;
}

static void index_table_release(struct index_table *table)
{
  free(table->slots);
  free(table->hashes);
}

static void index_table_place(struct index_table *table, uint64_t hash, uint32_t index)
{
  size_t i = hash & table->mask;
  while (table->slots[i].index != NONE)
    i = (i + 1) & table->mask;
  table->slots[i].tag = (uint32_t)(hash >> 32);
  table->slots[i].index = index;
}

/* Makes room for one more item: keeps the load at most 1/2, and the hash array
 * large enough. */
static int index_table_make_room(struct index_table *table)
{
  if (table->count + 1 > NONE - 1)
    return -1;
  if (reserve((void **)&table->hashes, &table->hashes_capacity, table->count + 1,
              sizeof *table->hashes))
    return -1;
  size_t capacity = table->mask + 1;
  if ((table->count + 1) * 2 <= capacity)
    return 0;
  struct index_slot *bigger = malloc(2 * capacity * sizeof *bigger);
  if (!bigger)
    return -1;
  free(table->slots);
  table->slots = bigger;
  table->mask = 2 * capacity - 1;
  for (size_t i = 0; i <= table->mask; i++)
    table->slots[i].index = NONE;
  for (size_t i = 0; i < table->count; i++)
    index_table_place(table, table->hashes[i], (uint32_t)i);
  return 0;
}

static void index_table_insert(struct index_table *table, struct index_slot *slot, uint64_t hash)
{
  slot->tag = (uint32_t)(hash >> 32);
  slot->index = (uint32_t)table->count;
  table->hashes[table->count++] = hash;
}

/* ---- Heap map --------------------------------------------------------------- */

#define HUGE_PAGE ((size_t)2 << 20)

static struct bucket *buckets_new(size_t count)
{
  /* Zeroed memory is an empty map; cache-line alignment keeps a bucket in one
   * line. A large map is probed at random, one bucket per event: on 4 KiB
   * pages nearly every probe would also miss the TLB, so it asks for huge
   * pages (sizes from 2 MiB up are whole multiples of 2 MiB). */
  size_t bytes = count * sizeof(struct bucket);
  int huge = bytes >= HUGE_PAGE;
  struct bucket *buckets = aligned_alloc(huge ? HUGE_PAGE : 64, bytes);
  if (!buckets)
    return NULL;
#ifdef MADV_HUGEPAGE
  if (huge)
    (void)madvise(buckets, bytes, MADV_HUGEPAGE);  /* only advice: fine if refused */
#endif
  memset(buckets, 0, bytes);
  return buckets;
}

static int heap_map_init(struct heap_map *heap, size_t buckets)
{
  heap->buckets = buckets_new(buckets);
  if (!heap->buckets)
    return -1;
  heap->mask = buckets - 1;
  heap->limit = buckets * BUCKET_BLOCKS / 2;
  heap->count = 0;
  heap->oversize = NULL;
  heap->oversize_count = heap->oversize_capacity = 0;
  return 0;
}

static void heap_map_release(struct heap_map *heap)
{
  free(heap->buckets);
  free(heap->oversize);
}

/* Callers pass an address's hash (hash_u64) along with it: it is computed
 * once per event, when the event is read and its bucket prefetched. */

/* Starts fetching the bucket where an address would be, so that the lookup a
 * few events later finds it in cache. */
static void heap_map_prefetch(const struct heap_map *heap, uint64_t hash)
{
  __builtin_prefetch(&heap->buckets[hash & heap->mask]);
}

/* Bit k set when block k of bucket holds address, for an address other than
 * 0 (a free slot's address is 0): computed without branches, since which
 * slot holds a block is random and would be mispredicted. */
static inline unsigned bucket_match(const struct bucket *bucket, uint64_t address)
{
  const struct block *b = bucket->blocks;
  return (unsigned)(b[0].address == address) | (unsigned)(b[1].address == address) << 1 |
         (unsigned)(b[2].address == address) << 2;
}

/* Bit k set when block k of bucket is free. */
static inline unsigned bucket_free(const struct bucket *bucket)
{
  const struct block *b = bucket->blocks;
  return (unsigned)(b[0].packed == 0) | (unsigned)(b[1].packed == 0) << 1 |
         (unsigned)(b[2].packed == 0) << 2;
}
_Static_assert(BUCKET_BLOCKS == 3, "bucket_match and bucket_free test three blocks");

/* The block holding address, or NULL. */
static struct block *heap_map_find(const struct heap_map *heap, uint64_t address, uint64_t hash)
{
  size_t b = hash & heap->mask;
  for (;;) {
    struct bucket *bucket = &heap->buckets[b];
    for (int k = 0; k < BUCKET_BLOCKS; k++)
      if (bucket->blocks[k].address == address && bucket->blocks[k].packed)
        return &bucket->blocks[k];
    if (!bucket->overflow)
      return NULL;
    b = (b + 1) & heap->mask;
  }
}

/* Places a block known to be absent: in the first bucket from its home with
 * room, counting it as overflow in every full bucket passed. */
static void heap_map_place(struct heap_map *heap, uint64_t hash, const struct block *block)
{
  size_t b = hash & heap->mask;
  for (;;) {
    struct bucket *bucket = &heap->buckets[b];
    for (int k = 0; k < BUCKET_BLOCKS; k++)
      if (!bucket->blocks[k].packed) {
        bucket->blocks[k] = *block;
        return;
      }
    bucket->overflow++;
    b = (b + 1) & heap->mask;
  }
}

static int heap_map_grow(struct heap_map *heap)
{
  size_t count = 2 * (heap->mask + 1);
  struct bucket *buckets = buckets_new(count);
  if (!buckets)
    return -1;
  struct bucket *old = heap->buckets;
  size_t old_count = heap->mask + 1;
  heap->buckets = buckets;
  heap->mask = count - 1;
  heap->limit = count * BUCKET_BLOCKS / 2;
  for (size_t i = 0; i < old_count; i++)
    for (int k = 0; k < BUCKET_BLOCKS; k++)
      if (old[i].blocks[k].packed)
        heap_map_place(heap, hash_u64(old[i].blocks[k].address), &old[i].blocks[k]);
  free(old);
  return 0;
}

/* Removes address from the oversize list; returns its size. */
static uint64_t heap_map_oversize_take(struct heap_map *heap, uint64_t address)
{
  for (size_t i = 0; i < heap->oversize_count; i++)
    if (heap->oversize[i].address == address) {
      uint64_t size = heap->oversize[i].size;
      heap->oversize[i] = heap->oversize[--heap->oversize_count];
      return size;
    }
  return BLOCK_SIZE_ESCAPE;  /* unreachable: every escaped block is listed */
}

/* heap_map_put for a size kept in the oversize list or for address 0: the
 * rare path. */
static int heap_map_put_slow(struct heap_map *heap, uint64_t address, uint64_t hash,
                             uint64_t size, uint32_t version)
{
  if (size >= BLOCK_SIZE_ESCAPE &&
      reserve((void **)&heap->oversize, &heap->oversize_capacity, heap->oversize_count + 1,
              sizeof *heap->oversize))
    return -1;
  struct block *found = heap_map_find(heap, address, hash);
  if (found && found->packed >> BLOCK_VERSION_BITS == BLOCK_SIZE_ESCAPE)
    heap_map_oversize_take(heap, address);
  if (size >= BLOCK_SIZE_ESCAPE) {
    heap->oversize[heap->oversize_count++] = (struct oversize_block){address, size};
    size = BLOCK_SIZE_ESCAPE;
  }
  struct block block = {address, size << BLOCK_VERSION_BITS | (version + 1)};
  if (found) {
    *found = block;
    return 0;
  }
  heap_map_place(heap, hash, &block);
  heap->count++;
  return 0;
}

/* Empties the slot of block, found in bucket b; returns its size and version. */
static inline void heap_map_remove(struct heap_map *heap, uint64_t hash, size_t b,
                                   struct block *block, uint64_t *size, uint32_t *version)
{
  *version = (uint32_t)(block->packed & BLOCK_VERSION_LIMIT) - 1;
  *size = block->packed >> BLOCK_VERSION_BITS;
  if (__builtin_expect(*size == BLOCK_SIZE_ESCAPE, 0))
    *size = heap_map_oversize_take(heap, block->address);
  block->address = 0;  /* a free slot's address is 0: see bucket_match */
  block->packed = 0;
  heap->count--;
  /* It overflowed every bucket from its home to here. */
  for (size_t home = hash & heap->mask; home != b; home = (home + 1) & heap->mask)
    heap->buckets[home].overflow--;
}

/* heap_map_take for address 0: the rare path. */
static int heap_map_take_slow(struct heap_map *heap, uint64_t address, uint64_t hash,
                              uint64_t *size, uint32_t *version)
{
  struct block *found = heap_map_find(heap, address, hash);
  if (!found)
    return 0;
  size_t b = (size_t)((const char *)found - (const char *)heap->buckets) / sizeof *heap->buckets;
  heap_map_remove(heap, hash, b, found, size, version);
  return 1;
}

/* Maps address to (size, version), replacing what was there (as the parser
 * does). One pass: looks for the address along its chain of buckets and
 * remembers the first free slot on the way, where a new block goes. */
static ALWAYS_INLINE int heap_map_put(struct heap_map *heap, uint64_t address, uint64_t hash,
                                      uint64_t size, uint32_t version)
{
  if (__builtin_expect(heap->count >= heap->limit, 0) &&
      heap_map_grow(heap))
    return -1;
  if (__builtin_expect(size >= BLOCK_SIZE_ESCAPE || address == 0, 0))
    return heap_map_put_slow(heap, address, hash, size, version);
  uint64_t packed = size << BLOCK_VERSION_BITS | (version + 1);
  size_t home = hash & heap->mask, b = home;
  struct block *free_slot = NULL;
  size_t free_bucket = 0;
  for (;;) {
    struct bucket *bucket = &heap->buckets[b];
    unsigned match = bucket_match(bucket, address);
    if (__builtin_expect(match != 0, 0)) {
      struct block *block = &bucket->blocks[__builtin_ctz(match)];
      if (__builtin_expect(block->packed >> BLOCK_VERSION_BITS == BLOCK_SIZE_ESCAPE, 0))
        heap_map_oversize_take(heap, address);
      block->packed = packed;
      return 0;
    }
    unsigned free_mask = bucket_free(bucket);
    if (!free_slot && free_mask) {
      free_slot = &bucket->blocks[__builtin_ctz(free_mask)];
      free_bucket = b;
    }
    if (!bucket->overflow)
      break;
    b = (b + 1) & heap->mask;
  }
  struct block block = {address, packed};
  heap->count++;
  if (!free_slot) {  /* every bucket on the chain is full */
    heap_map_place(heap, hash, &block);
    return 0;
  }
  *free_slot = block;
  for (b = home; b != free_bucket; b = (b + 1) & heap->mask)
    heap->buckets[b].overflow++;
  return 0;
}

/* Removes address; returns 1 and its size and version if it was mapped. */
static ALWAYS_INLINE int heap_map_take(struct heap_map *heap, uint64_t address, uint64_t hash,
                                       uint64_t *size, uint32_t *version)
{
  if (__builtin_expect(address == 0, 0))
    return heap_map_take_slow(heap, address, hash, size, version);
  size_t b = hash & heap->mask;
  for (;;) {
    struct bucket *bucket = &heap->buckets[b];
    unsigned match = bucket_match(bucket, address);
    if (__builtin_expect(match != 0, 1)) {
      heap_map_remove(heap, hash, b, &bucket->blocks[__builtin_ctz(match)], size, version);
      return 1;
    }
    if (!bucket->overflow)
      return 0;
    b = (b + 1) & heap->mask;
  }
}

/* ---- Names ------------------------------------------------------------------ */

static const char *name_text(const struct summary *summary, uint32_t name, size_t *length)
{
  *length = summary->names[name].length;
  return summary->name_bytes + summary->names[name].offset;
}

/* The id of text in the name table, added if new; NONE when out of memory. */
static uint32_t name_intern(struct summary *summary, const char *text, size_t length)
{
  if (index_table_make_room(&summary->name_index))
    return NONE;
  uint64_t hash = XXH3_64bits(text, length);
  struct index_table *table = &summary->name_index;
  size_t i = hash & table->mask;
  for (;; i = (i + 1) & table->mask) {
    struct index_slot *slot = &table->slots[i];
    if (slot->index == NONE)
      break;
    if (slot->tag != (uint32_t)(hash >> 32))
      continue;
    size_t known_length;
    const char *known = name_text(summary, slot->index, &known_length);
    if (known_length == length && !memcmp(known, text, length))
      return slot->index;
  }
  size_t id = table->count;
  if (reserve((void **)&summary->names, &summary->name_capacity, id + 1, sizeof *summary->names) ||
      reserve((void **)&summary->name_bytes, &summary->name_bytes_capacity,
              summary->name_bytes_used + length + 1, 1))
    return NONE;
  memcpy(summary->name_bytes + summary->name_bytes_used, text, length);
  summary->names[id].offset = summary->name_bytes_used;
  summary->names[id].length = length;
  summary->name_bytes_used += length;
  index_table_insert(table, &table->slots[i], hash);
  return (uint32_t)id;
}

/* The version (site and name) a site has under the current symbols: its name
 * is computed once, and again only after new symbols arrive. */
static uint32_t site_version(struct summary *summary, uint32_t site_id)
{
  struct site *site = &summary->sites[site_id];
  if (site->version != NONE && site->name_epoch == summary->symbol_epoch)
    return site->version;
  struct memprof_event event = {.kind = MEMPROF_EVENT_ALLOC, .source = site->source};
  switch (site->source) {
  case MEMPROF_SOURCE_LUA:
    event.location = site->address;
    event.line = site->line;
    break;
  case MEMPROF_SOURCE_C:
    event.location = site->address;
    break;
  case MEMPROF_SOURCE_TRACE:
    event.location = site->trace;
    break;
  default:
    break;
  }
  size_t length = memprof_symtab_name(summary->symtab, &event, MEMPROF_NAMING_TARANTOOL,
                                      summary->name_buffer, summary->name_buffer_size);
  if (length >= summary->name_buffer_size) {
    char *bigger = realloc(summary->name_buffer, length + 1);
    if (!bigger)
      return NONE;
    summary->name_buffer = bigger;
    summary->name_buffer_size = length + 1;
    length = memprof_symtab_name(summary->symtab, &event, MEMPROF_NAMING_TARANTOOL,
                                 summary->name_buffer, summary->name_buffer_size);
  }
  uint32_t name = name_intern(summary, summary->name_buffer, length);
  if (name == NONE)
    return NONE;
  site = &summary->sites[site_id];
  site->name_epoch = summary->symbol_epoch;
  if (site->version != NONE && summary->versions[site->version].name == name)
    return site->version;
  if (summary->version_count >= BLOCK_VERSION_LIMIT - 1 ||
      reserve((void **)&summary->versions, &summary->version_capacity,
              summary->version_count + 1, sizeof *summary->versions))
    return NONE;
  summary->versions[summary->version_count] = (struct version){site_id, name, {0}};
  site->version = (uint32_t)summary->version_count++;
  return site->version;
}

/* ---- Sites, entries, primaries -------------------------------------------- */

/* The site of an event's location, added if new; NONE when out of memory. */
static uint32_t site_lookup(struct summary *summary, enum memprof_source source,
                            uint64_t location, uint64_t event_line)
{
  /* Address, line, trace: what the parser's id holds. Sources alternate
   * unpredictably (an allocating site, then the GC), so the key is made by
   * masks rather than a switch. The event's fields come as numbers: read
   * from the event in memory, just stored by the decoder, gcc loads two at
   * once and waits on those stores. */
  uint64_t is_lua = (uint64_t)0 - (source == MEMPROF_SOURCE_LUA);
  uint64_t is_c = (uint64_t)0 - (source == MEMPROF_SOURCE_C);
  uint64_t is_trace = (uint64_t)0 - (source == MEMPROF_SOURCE_TRACE);
  uint64_t address = location & (is_lua | is_c), line = event_line & is_lua,
           trace = location & is_trace;
  struct index_table *table = &summary->site_index;
  /* Eight bytes and a seed, in registers: a key built in memory and hashed
   * from there would wait on the stores that made it. Equality still
   * compares all three. */
  uint64_t folded = address ^ trace;
  uint64_t hash = XXH3_64bits_withSeed(&folded, sizeof folded, line);
  size_t i = hash & table->mask;
  for (;; i = (i + 1) & table->mask) {
    struct index_slot *slot = &table->slots[i];
    if (slot->index == NONE)
      break;
    const struct site *site = &summary->sites[slot->index];
    if (slot->tag == (uint32_t)(hash >> 32) && site->address == address && site->line == line &&
        site->trace == trace)
      return slot->index;
  }
  /* New site: make room first, then probe again (the table may have moved). */
  if (index_table_make_room(table) ||
      reserve((void **)&summary->sites, &summary->site_capacity, table->count + 1,
              sizeof *summary->sites))
    return NONE;
  i = hash & table->mask;
  while (table->slots[i].index != NONE)
    i = (i + 1) & table->mask;
  uint32_t id = (uint32_t)table->count;
  struct site *site = &summary->sites[id];
  site->address = address;
  site->line = line;
  site->trace = trace;
  site->source = source;
  site->version = NONE;
  site->name_epoch = 0;
  for (int k = 0; k < KIND_COUNT; k++)
    site->entry[k] = NONE;
  index_table_insert(table, &table->slots[i], hash);
  return id;
}

static uint32_t entry_new(struct summary *summary, int kind, uint32_t name)
{
  if (summary->entry_count >= NONE ||
      reserve((void **)&summary->entries, &summary->entry_capacity, summary->entry_count + 1,
              sizeof *summary->entries))
    return NONE;
  struct entry *entry = &summary->entries[summary->entry_count];
  memset(entry, 0, sizeof *entry);
  entry->kind = kind;
  entry->name = name;
  return (uint32_t)summary->entry_count++;
}

static int primary_table_init(struct primary_table *table, size_t capacity)
{
  table->slots = malloc(capacity * sizeof *table->slots);
  if (!table->slots)
    return -1;
  for (size_t i = 0; i < capacity; i++)
    table->slots[i].key = EMPTY_KEY;
  table->mask = capacity - 1;
  table->count = 0;
  return 0;
}

/* The record for key, or the empty slot where it would go. */
static struct primary *primary_table_probe(const struct primary_table *table, uint64_t key)
{
  size_t i = hash_u64(key) & table->mask;
  while (table->slots[i].key != EMPTY_KEY && table->slots[i].key != key)
    i = (i + 1) & table->mask;
  return &table->slots[i];
}

static int primary_table_grow(struct primary_table *table)
{
  struct primary_table bigger;
  if (primary_table_init(&bigger, 2 * (table->mask + 1)))
    return -1;
  for (size_t i = 0; i <= table->mask; i++)
    if (table->slots[i].key != EMPTY_KEY)
      *primary_table_probe(&bigger, table->slots[i].key) = table->slots[i];
  bigger.count = table->count;
  free(table->slots);
  *table = bigger;
  return 0;
}

/* Records that entry (of kind) overrode a block of old_size bytes, made by
 * version, with a block of new_size bytes (0 for a free). */
static ALWAYS_INLINE int primary_link(struct summary *summary, uint32_t entry_id, int kind,
                                      uint32_t version, uint64_t old_size, uint64_t new_size)
{
  struct primary_table *table = &summary->primaries;
  struct version *made_by = &summary->versions[version];
  uint64_t key = (uint64_t)entry_id << 32 | made_by->site;
  /* Most of a site's blocks are freed by one location (the GC) and
   * reallocated by one (often the site itself): per kind, the record the
   * site's last block went to is tried first. Slots only move when the table
   * grows, and the key check catches that. */
  struct primary *record = &table->slots[made_by->primary_slot[kind] & table->mask];
  if (__builtin_expect(record->key != key, 0)) {
    if ((table->count + 1) * 2 > table->mask + 1 && primary_table_grow(table))
      return -1;
    record = primary_table_probe(table, key);
    if (record->key == EMPTY_KEY) {
      *record = (struct primary){key, made_by->name, 0, 0, 0};
      table->count++;
      summary->entries[entry_id].primary_count++;
    }
    made_by->primary_slot[kind] = (uint32_t)(record - table->slots);
  }
  record->allocated += new_size;
  record->freed += old_size;
  record->count++;
  return 0;
}

/* ---- Feeding ---------------------------------------------------------------- */

struct summary *summary_new(void)
{
  struct summary *summary = calloc(1, sizeof *summary);
  if (!summary)
    return NULL;
  summary->symtab = memprof_symtab_new();
  summary->name_buffer_size = 256;
  summary->name_buffer = malloc(summary->name_buffer_size);
  int failed = !summary->symtab || !summary->name_buffer;
  failed |= index_table_init(&summary->site_index);
  failed |= index_table_init(&summary->name_index);
  failed |= primary_table_init(&summary->primaries, 64);
  failed |= heap_map_init(&summary->heap, 512);
  if (failed) {
    summary_free(summary);
    return NULL;
  }
  summary->symbol_epoch = 1;
  summary->last_site = NONE;
  return summary;
}

void summary_free(struct summary *summary)
{
  if (!summary)
    return;
  if (summary->symtab)
    memprof_symtab_free(summary->symtab);
  free(summary->sites);
  index_table_release(&summary->site_index);
  free(summary->name_bytes);
  free(summary->names);
  index_table_release(&summary->name_index);
  free(summary->entries);
  free(summary->primaries.slots);
  heap_map_release(&summary->heap);
  free(summary->versions);
  free(summary->name_buffer);
  free(summary);
}

int summary_add_symbol(struct summary *summary, const struct memprof_symbol *symbol)
{
  if (memprof_symtab_add(summary->symtab, symbol))
    return -1;
  summary->symbol_epoch++;  /* any site's name may differ now */
  return 0;
}

/* One event as the feeding loop keeps it: its site resolved, its kind as
 * the report orders kinds, the sizes a kind does not carry zero. */
struct pending_event {
  uint32_t kind;                /* KIND_ALLOC, KIND_REALLOC or KIND_FREE */
  uint32_t site;
  uint64_t old_address, old_size, new_address, new_size;
  uint64_t old_hash, new_hash;  /* of the addresses, for the kinds that carry them */
  uint64_t offset;              /* of the record, for error messages */
};

/* The site of an event: the previous event's site when the location is the
 * same (events come in runs from one site: a loop allocating, the GC
 * sweeping), else the site table's. NONE when out of memory. */
static inline uint32_t summary_event_site(struct summary *summary,
                                          const struct memprof_event *event)
{
  if (__builtin_expect(summary->last_site != NONE && event->source == summary->last_source &&
                           event->location == summary->last_location &&
                           event->line == summary->last_line,
                       1))
    return summary->last_site;
  uint32_t site_id = site_lookup(summary, event->source, event->location, event->line);
  if (site_id == NONE)
    return NONE;
  summary->last_site = site_id;
  summary->last_source = event->source;
  summary->last_location = event->location;
  summary->last_line = event->line;
  return site_id;
}

/* Fills pending from event; returns 0, 1 for a record that is no allocation
 * event, or -1 when out of memory. */
static inline int pending_fill(struct summary *summary, struct pending_event *pending,
                               const struct memprof_event *event)
{
  /* Report kinds by event kind; KIND_COUNT for symtab events (their
   * entries come as symbols) and anything else. */
  static const uint8_t kinds[4] = {
      [MEMPROF_EVENT_SYMTAB] = KIND_COUNT, [MEMPROF_EVENT_ALLOC] = KIND_ALLOC,
      [MEMPROF_EVENT_FREE] = KIND_FREE, [MEMPROF_EVENT_REALLOC] = KIND_REALLOC};
  unsigned kind = (unsigned)event->kind < 4 ? kinds[event->kind] : KIND_COUNT;
  if (__builtin_expect(kind == KIND_COUNT, 0))
    return 1;
  /* The reader leaves the fields a kind does not carry zero. */
  pending->kind = kind;
  pending->old_address = event->old_address;
  pending->old_size = event->old_size;
  pending->new_address = event->new_address;
  pending->new_size = event->new_size;
  uint32_t site_id = summary_event_site(summary, event);
  if (site_id == NONE)
    return -1;
  pending->site = site_id;
  return 0;
}

/* The entry of a site for a kind, made if new; NONE when out of memory. The
 * site's version is brought up to date first (symbols may have renamed it). */
static uint32_t site_entry_slow(struct summary *summary, uint32_t site_id, int kind)
{
  uint32_t version = site_version(summary, site_id);
  if (version == NONE)
    return NONE;
  uint32_t entry_id = summary->sites[site_id].entry[kind];
  if (entry_id == NONE) {
    entry_id = entry_new(summary, kind, summary->versions[version].name);
    if (entry_id == NONE)
      return NONE;
    summary->sites[site_id].entry[kind] = entry_id;
  }
  return entry_id;
}

/* Applies one event. Returns 0, or -1 when out of memory. */
static ALWAYS_INLINE int summary_apply(struct summary *summary,
                                       const struct pending_event *event)
{
  const struct site *site = &summary->sites[event->site];
  uint32_t entry_id = site->entry[event->kind];
  if (__builtin_expect(site->name_epoch != summary->symbol_epoch || entry_id == NONE, 0)) {
    entry_id = site_entry_slow(summary, event->site, (int)event->kind);
    if (entry_id == NONE)
      return -1;
    site = &summary->sites[event->site];
  }
  uint32_t version = site->version;
  struct entry *entry = &summary->entries[entry_id];
  entry->events++;
  entry->alloc_bytes += event->new_size;
  entry->free_bytes += event->old_size;
  if (event->kind != KIND_ALLOC) {
    uint64_t old_size;
    uint32_t old_version;
    if (heap_map_take(&summary->heap, event->old_address, event->old_hash, &old_size,
                      &old_version) &&
        primary_link(summary, entry_id, (int)event->kind, old_version, old_size,
                     event->new_size))
      return -1;
    if (event->kind == KIND_FREE)
      return 0;
  }
  return heap_map_put(&summary->heap, event->new_address, event->new_hash, event->new_size,
                      version);
}

int summary_add_event(struct summary *summary, const struct memprof_event *event)
{
  struct memprof_event normal = *event;
  if (normal.kind == MEMPROF_EVENT_ALLOC)
    normal.old_address = normal.old_size = 0;
  if (normal.kind == MEMPROF_EVENT_FREE)
    normal.new_address = normal.new_size = 0;
  struct pending_event pending;
  int filled = pending_fill(summary, &pending, &normal);
  if (filled)
    return filled < 0 ? -1 : 0;
  pending.old_hash = hash_u64(pending.old_address);
  pending.new_hash = hash_u64(pending.new_address);
  pending.offset = 0;
  summary->events++;
  return summary_apply(summary, &pending);
}

/* Events are read in batches: each event's heap slots are prefetched when it
 * is read and used after the rest of the batch has been read, so the cache
 * misses of a large heap map overlap instead of stalling one after another. */
#ifndef SUMMARY_BATCH
#define SUMMARY_BATCH 32
#endif

static void out_of_memory(struct memprof_error *err, const char *name, uint64_t offset)
{
  err->status = MEMPROF_IO;
  err->offset = offset;
  snprintf(err->message, sizeof err->message, "%s: byte %" PRIu64 ": out of memory", name,
           offset);
}

/* Applies batch[0 .. count), in order; on failure fills err. */
static int batch_apply(struct summary *summary, const struct pending_event *batch, size_t count,
                       const char *name, struct memprof_error *err)
{
  summary->events += count;
  for (size_t i = 0; i < count; i++)
    if (__builtin_expect(summary_apply(summary, &batch[i]), 0)) {
      out_of_memory(err, name, batch[i].offset);
      return -1;
    }
  return 0;
}

/* Queues one event for batch_apply, hashed and its slots prefetched; applies
 * the queue when it is full. Returns -1 when out of memory. */
static ALWAYS_INLINE int
batch_push(struct summary *summary, struct pending_event *batch, size_t *count,
           const struct memprof_event *event, uint64_t offset, const char *name,
           struct memprof_error *err)
{
  struct pending_event *next = &batch[*count];
  int filled = pending_fill(summary, next, event);
  if (__builtin_expect(filled != 0, 0)) {
    if (filled > 0)
      return 0;
    out_of_memory(err, name, offset);
    return -1;
  }
  next->offset = offset;
  /* One hash for an alloc or a free, the address picked without a branch;
   * a realloc's second address is hashed apart. */
  int is_alloc = next->kind == KIND_ALLOC;
  uint64_t first = hash_u64(is_alloc ? next->new_address : next->old_address);
  next->old_hash = next->new_hash = first;
  heap_map_prefetch(&summary->heap, first);
  if (next->kind == KIND_REALLOC) {
    next->new_hash = hash_u64(next->new_address);
    heap_map_prefetch(&summary->heap, next->new_hash);
  }
  if (++*count == SUMMARY_BATCH) {
    *count = 0;
    if (batch_apply(summary, batch, SUMMARY_BATCH, name, err))
      return -1;
  }
  return 0;
}

/* Feeds every record of reader, in order; name goes into out-of-memory
 * messages. Runs of events are decoded in place (decode.h), pext a constant,
 * so that each is decoded and queued in one pass; symbols, refills, the end
 * and errors come from memprof_reader_next. */
static ALWAYS_INLINE enum memprof_status
summary_read_loop(struct summary *summary, struct memprof_reader *reader, const char *name,
                  struct memprof_error *err, int pext)
{
  struct pending_event batch[SUMMARY_BATCH];
  size_t count = 0;
  struct memprof_record record;
  enum memprof_status status;
  for (;;) {
    const uint8_t *at;
    size_t span = memprof_reader_events_span(reader, &at), used = 0;
    int version = memprof_reader_events_version(reader);
    uint64_t base = memprof_reader_offset(reader);
    while (used < span) {
      struct memprof_event event;
      size_t length = memprof_decode_event(at + used, version, &event, pext);
      if (!length)
        break;
      if (batch_push(summary, batch, &count, &event, base + used, name, err))
        return MEMPROF_IO;
      used += length;
    }
    memprof_reader_consume(reader, used);
    status = memprof_reader_next(reader, &record);
    if (status != MEMPROF_OK)
      break;
    if (__builtin_expect(record.type == MEMPROF_RECORD_SYMBOL, 0)) {
      /* Symbols change names: apply the events before it first. */
      if (batch_apply(summary, batch, count, name, err))
        return MEMPROF_IO;
      count = 0;
      if (summary_add_symbol(summary, &record.symbol)) {
        out_of_memory(err, name, record.offset);
        return MEMPROF_IO;
      }
      continue;
    }
    if (batch_push(summary, batch, &count, &record.event, record.offset, name, err))
      return MEMPROF_IO;
  }
  if (batch_apply(summary, batch, count, name, err))
    return MEMPROF_IO;
  if (status == MEMPROF_END) {
    memset(err, 0, sizeof *err);
    return MEMPROF_END;
  }
  *err = *memprof_reader_error(reader);
  err->status = status;
  return status;
}

/* The loop where the reader decodes with pext, compiled for BMI1 and BMI2
 * (decode.h); called only where the CPU has them. */
MEMPROF_DECODE_BMI2 static enum memprof_status
summary_read_bmi2(struct summary *summary, struct memprof_reader *reader, const char *name,
                  struct memprof_error *err)
{
  return summary_read_loop(summary, reader, name, err, 1);
}

static enum memprof_status summary_read_records(struct summary *summary,
                                                struct memprof_reader *reader, const char *name,
                                                struct memprof_error *err)
{
  return memprof_reader_pext(reader) ? summary_read_bmi2(summary, reader, name, err)
                                     : summary_read_loop(summary, reader, name, err, 0);
}

enum memprof_status summary_read(struct summary *summary, struct memprof_reader *reader,
                                 struct memprof_error *err)
{
  return summary_read_records(summary, reader, "stream", err);
}

enum memprof_status summary_read_file(struct summary *summary, const char *path,
                                      struct memprof_error *err)
{
  memset(err, 0, sizeof *err);
  struct memprof_reader *reader = memprof_reader_open(path, err);
  if (!reader)
    return err->status != MEMPROF_OK ? err->status : MEMPROF_IO;
  enum memprof_status status = summary_read_records(summary, reader, path, err);
  memprof_reader_close(reader);
  return status;
}

uint64_t summary_event_count(const struct summary *summary)
{
  return summary->events;
}

/* ---- Printing --------------------------------------------------------------- */

size_t summary_format_bytes(uint64_t bytes, int human_readable, char *out, size_t size)
{
  static const char *const units[] = {"B", "KiB", "MiB", "GiB"};
  int written;
  if (!human_readable) {
    written = snprintf(out, size, "%" PRIu64 "B", bytes);
  } else {
    double value = (double)bytes;
    int unit = 0;
    while (value >= 1024 && unit < 3) {
      value /= 1024;
      unit++;
    }
    if (floor(value) == value)
      written = snprintf(out, size, "%" PRIu64 "%s", (uint64_t)value, units[unit]);
    else
      written = snprintf(out, size, "%.2f%s", value, units[unit]);
  }
  return written < 0 ? 0 : (size_t)written;
}

/* Byte order, a prefix first: how Lua compares strings. */
static int name_compare(const struct summary *summary, uint32_t a, uint32_t b)
{
  size_t length_a, length_b;
  const char *text_a = name_text(summary, a, &length_a);
  const char *text_b = name_text(summary, b, &length_b);
  int order = memcmp(text_a, text_b, length_a < length_b ? length_a : length_b);
  if (order)
    return order;
  return (length_a > length_b) - (length_a < length_b);
}

/* qsort has no context argument: the comparators read it from here. */
struct sort_context {
  const struct summary *summary;
  const int64_t *heap_bytes;
};
static _Thread_local struct sort_context sort_context;

static int compare_entries(const void *a, const void *b)
{
  uint32_t ia = *(const uint32_t *)a, ib = *(const uint32_t *)b;
  const struct entry *ea = &sort_context.summary->entries[ia];
  const struct entry *eb = &sort_context.summary->entries[ib];
  if (ea->events != eb->events)
    return ea->events > eb->events ? -1 : 1;
  return (ia > ib) - (ia < ib);  /* ties: first seen first */
}

static int compare_names(const void *a, const void *b)
{
  return name_compare(sort_context.summary, *(const uint32_t *)a, *(const uint32_t *)b);
}

static int compare_heap_bytes(const void *a, const void *b)
{
  uint32_t ia = *(const uint32_t *)a, ib = *(const uint32_t *)b;
  int64_t da = sort_context.heap_bytes[ia], db = sort_context.heap_bytes[ib];
  if (da != db)
    return da > db ? -1 : 1;
  return (ia > ib) - (ia < ib);
}

static void print_name(const struct summary *summary, uint32_t name, FILE *out)
{
  size_t length;
  const char *text = name_text(summary, name, &length);
  fwrite(text, 1, length, out);
}

/* The names in each entry's Overrides list: entry i's are
 * names[start[i] .. start[i + 1]), gathered from the primary table. */
struct overrides {
  size_t *start;
  uint32_t *names;
};

static int overrides_gather(const struct summary *summary, struct overrides *overrides)
{
  overrides->start = malloc((summary->entry_count + 1) * sizeof *overrides->start);
  overrides->names = malloc((summary->primaries.count + 1) * sizeof *overrides->names);
  size_t *filled = calloc(summary->entry_count + 1, sizeof *filled);
  if (!overrides->start || !overrides->names || !filled) {
    free(overrides->start);
    free(overrides->names);
    free(filled);
    return -1;
  }
  overrides->start[0] = 0;
  for (size_t i = 0; i < summary->entry_count; i++)
    overrides->start[i + 1] = overrides->start[i] + summary->entries[i].primary_count;
  for (size_t i = 0; i <= summary->primaries.mask; i++) {
    const struct primary *record = &summary->primaries.slots[i];
    if (record->key == EMPTY_KEY)
      continue;
    size_t entry = (size_t)(record->key >> 32);
    overrides->names[overrides->start[entry] + filled[entry]++] = record->name;
  }
  free(filled);
  return 0;
}

/* One section's entries, most events first, each with its Overrides list. */
static int print_entries(const struct summary *summary, const struct overrides *overrides,
                         int kind, int human_readable, FILE *out)
{
  size_t count = 0;
  for (size_t i = 0; i < summary->entry_count; i++)
    count += summary->entries[i].kind == kind;
  uint32_t *order = malloc((count ? count : 1) * sizeof *order);
  if (!order)
    return -1;
  count = 0;
  for (size_t i = 0; i < summary->entry_count; i++)
    if (summary->entries[i].kind == kind)
      order[count++] = (uint32_t)i;
  sort_context.summary = summary;
  qsort(order, count, sizeof *order, compare_entries);
  for (size_t i = 0; i < count; i++) {
    const struct entry *entry = &summary->entries[order[i]];
    char alloc_text[64], free_text[64];
    summary_format_bytes(entry->alloc_bytes, human_readable, alloc_text, sizeof alloc_text);
    summary_format_bytes(entry->free_bytes, human_readable, free_text, sizeof free_text);
    print_name(summary, entry->name, out);
    fprintf(out, ": %" PRIu64 " events\t+%s\t-%s\n", entry->events, alloc_text, free_text);
    if (!entry->primary_count)
      continue;
    uint32_t *overridden = overrides->names + overrides->start[order[i]];
    size_t n = entry->primary_count;
    qsort(overridden, n, sizeof *overridden, compare_names);
    fputs("\tOverrides:\n", out);
    for (size_t j = 0; j < n; j++) {
      fputs("\t\t", out);
      print_name(summary, overridden[j], out);
      fputc('\n', out);
    }
    fputc('\n', out);
  }
  free(order);
  return 0;
}

/* HEAP SUMMARY: the parser's heap delta, keyed by name. */
static int print_heap_summary(const struct summary *summary, int human_readable, FILE *out)
{
  size_t names = summary->name_index.count;
  int64_t *bytes = calloc(names ? names : 1, sizeof *bytes);
  uint64_t *allocs = calloc(names ? names : 1, sizeof *allocs);
  uint64_t *frees = calloc(names ? names : 1, sizeof *frees);
  uint32_t *order = malloc((names ? names : 1) * sizeof *order);
  if (!bytes || !allocs || !frees || !order) {
    free(bytes);
    free(allocs);
    free(frees);
    free(order);
    return -1;
  }
  for (size_t i = 0; i < summary->entry_count; i++) {
    const struct entry *entry = &summary->entries[i];
    if (entry->kind == KIND_ALLOC && entry->alloc_bytes > 0) {
      bytes[entry->name] += (int64_t)entry->alloc_bytes;
      allocs[entry->name] += entry->events;
    }
  }
  /* Primary records belong to realloc and free entries only. */
  for (size_t i = 0; i <= summary->primaries.mask; i++) {
    const struct primary *record = &summary->primaries.slots[i];
    if (record->key == EMPTY_KEY)
      continue;
    if (record->allocated > 0) {
      bytes[record->name] += (int64_t)record->allocated;
      allocs[record->name] += record->count;
    }
    if (record->freed > 0) {
      bytes[record->name] -= (int64_t)record->freed;
      frees[record->name] += record->count;
    }
  }
  size_t count = 0;
  for (size_t i = 0; i < names; i++)
    if (bytes[i] > 0)
      order[count++] = (uint32_t)i;
  sort_context.summary = summary;
  sort_context.heap_bytes = bytes;
  qsort(order, count, sizeof *order, compare_heap_bytes);
  fputs("HEAP SUMMARY:\n", out);
  for (size_t i = 0; i < count; i++) {
    char held[64];
    summary_format_bytes((uint64_t)bytes[order[i]], human_readable, held, sizeof held);
    print_name(summary, order[i], out);
    fprintf(out, " holds %s: %" PRIu64 " allocs, %" PRIu64 " frees\n", held, allocs[order[i]],
            frees[order[i]]);
  }
  fputc('\n', out);
  free(bytes);
  free(allocs);
  free(frees);
  free(order);
  return 0;
}

/* ALIASES: each chunk loaded from a string, its non-empty lines numbered. */
static void print_aliases(const struct summary *summary, FILE *out)
{
  size_t count = memprof_symtab_alias_count(summary->symtab);
  if (!count)
    return;
  fputs("ALIASES:\n", out);
  for (size_t i = 0; i < count; i++) {
    size_t length;
    const char *source = memprof_symtab_alias_source(summary->symtab, i, &length);
    fprintf(out, "function_alias_%zu:\n", i + 1);
    size_t number = 1;
    for (size_t start = 0; start < length;) {
      const char *newline = memchr(source + start, '\n', length - start);
      size_t end = newline ? (size_t)(newline - source) : length;
      if (end > start) {  /* empty lines are skipped and not numbered */
        fprintf(out, "%zu\t| ", number++);
        fwrite(source + start, 1, end - start, out);
        fputc('\n', out);
      }
      start = end + 1;
    }
    fputs("\n\n", out);
  }
}

int summary_print(const struct summary *summary, const struct summary_options *options,
                  FILE *out)
{
  static const char *const titles[KIND_COUNT] = {"ALLOCATIONS", "REALLOCATIONS", "DEALLOCATIONS"};
  if (!options->leak_only) {
    struct overrides overrides;
    if (overrides_gather(summary, &overrides))
      return -1;
    for (int kind = 0; kind < KIND_COUNT; kind++) {
      fprintf(out, "%s\n", titles[kind]);
      if (print_entries(summary, &overrides, kind, options->human_readable, out)) {
        free(overrides.start);
        free(overrides.names);
        return -1;
      }
      fputc('\n', out);
    }
    free(overrides.start);
    free(overrides.names);
  }
  if (print_heap_summary(summary, options->human_readable, out))
    return -1;
  print_aliases(summary, out);
  return ferror(out) ? -1 : 0;
}
