/* format/symtab.c: the symbols of a memprof stream and the names Tarantool's parser gives locations. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "container/array.h"
#include "container/index_table.h"
#include "format/memprof.h"

#define ARENA_BLOCK (64u * 1024u)

/* Copies of names, kept until the table is freed. */
struct arena_block {
  struct arena_block *next;
  size_t used, capacity;
  char data[];
};

/* A distinct chunk name; alias is its function_alias_N number, or 0. */
struct chunk {
  const char *text;
  size_t length;
  uint64_t hash;
  uint32_t alias;
};

struct lua_symbol {
  uint64_t address;  /* the prototype's: the key */
  uint32_t chunk;
  uint64_t first_line;
};

struct trace_symbol {
  uint64_t number;   /* the key */
  uint64_t address;
  uint64_t line;
};

struct c_symbol {
  uint64_t address;
  uint64_t order;  /* order of addition: a later symbol at the same address wins */
  const char *name;
  size_t name_length;
};

struct memprof_symtab {
  struct arena_block *arena;

  struct chunk *chunks;
  size_t chunk_count, chunk_capacity;
  struct index_table chunk_index;   /* the chunks by XXH3 of their text; made on first use */
  uint32_t *aliases;                /* chunk index of function_alias_1, _2, ... */
  size_t alias_count, alias_capacity;

  struct lua_symbol *lua;
  size_t lua_count, lua_capacity;
  struct index_table lua_index;     /* by address; made on first use */

  struct trace_symbol *traces;
  size_t trace_count, trace_capacity;
  struct index_table trace_index;   /* by number; made on first use */

  /* C symbols: [0, c_sorted) sorted by address without duplicates; the rest
   * appended since. Lookups sort lazily, so adding n symbols costs n log n. */
  struct c_symbol *c;
  size_t c_count, c_sorted, c_capacity;
  uint64_t c_order;
};

/* ---- Small helpers ------------------------------------------------------------ */

static const char *arena_copy(struct memprof_symtab *t, const char *text, size_t length)
{
  struct arena_block *b = t->arena;
  if (b == NULL || b->capacity - b->used < length + 1) {
    size_t capacity = length + 1 > ARENA_BLOCK ? length + 1 : ARENA_BLOCK;
    b = malloc(sizeof *b + capacity);
    if (b == NULL)
      return NULL;
    b->used = 0;
    b->capacity = capacity;
    /* A block made for one big string goes behind the current one, which keeps its room. */
    if (t->arena != NULL && capacity > ARENA_BLOCK) {
      b->next = t->arena->next;
      t->arena->next = b;
    } else {
      b->next = t->arena;
      t->arena = b;
    }
  }
  char *copy = b->data + b->used;
  if (length > 0)
    memcpy(copy, text, length);
  copy[length] = '\0';
  b->used += length + 1;
  return copy;
}

static uint64_t hash_key(uint64_t key)
{
  return XXH3_64bits(&key, sizeof key);
}

/* A Lua or trace symbol's key being looked up: what the probes compare. */
struct symbol_key {
  const struct memprof_symtab *table;
  uint64_t key;
};

static int lua_equal(const void *context, uint32_t index)
{
  const struct symbol_key *key = context;
  return key->table->lua[index].address == key->key;
}

static int trace_equal(const void *context, uint32_t index)
{
  const struct symbol_key *key = context;
  return key->table->traces[index].number == key->key;
}

/* The index of the symbol with key in index (equal compares), or -1. */
static int64_t symbol_find(const struct memprof_symtab *t, const struct index_table *index,
                           int (*equal)(const void *context, uint32_t index), uint64_t key)
{
  if (index->slots == NULL)
    return -1;
  struct symbol_key probe = {t, key};
  uint32_t found = index_table_probe(index, hash_key(key), equal, &probe)->index;
  return found == INDEX_TABLE_NONE ? -1 : (int64_t)found;
}

/* Indexes a new symbol (the next of its array) by key; 0, or -1 when out of memory. */
static int symbol_index(struct index_table *index, uint64_t key)
{
  if (index->slots == NULL && index_table_init(index) != 0)
    return -1;
  return index_table_add(index, hash_key(key)) == INDEX_TABLE_NONE ? -1 : 0;
}

/* ---- Chunks and aliases ------------------------------------------------------- */

/* A chunk name being looked up: what the probe compares. */
struct chunk_key {
  const struct memprof_symtab *table;
  uint64_t hash;
  const char *text;
  size_t length;
};

static int chunk_equal(const void *context, uint32_t index)
{
  const struct chunk_key *key = context;
  const struct chunk *c = &key->table->chunks[index];
  return c->hash == key->hash && c->length == key->length &&
         memcmp(c->text, key->text, key->length) == 0;
}

/* The chunk index of text, added if new; -1 when out of memory. */
static int64_t chunk_intern(struct memprof_symtab *t, const char *text, size_t length)
{
  struct index_table *index_table = &t->chunk_index;
  if (index_table->slots == NULL && index_table_init(index_table) != 0)
    return -1;
  uint64_t hash = XXH3_64bits(text, length);
  struct chunk_key key = {t, hash, text, length};
  uint32_t found = index_table_probe(index_table, hash, chunk_equal, &key)->index;
  if (found != INDEX_TABLE_NONE)
    return found;
  if (array_reserve((void **)&t->chunks, &t->chunk_capacity, t->chunk_count + 1, sizeof *t->chunks) != 0)
    return -1;
  const char *copy = arena_copy(t, text, length);
  if (copy == NULL)
    return -1;
  if (index_table_add(index_table, hash) == INDEX_TABLE_NONE)
    return -1;
  uint32_t index = (uint32_t)t->chunk_count;
  struct chunk *c = &t->chunks[t->chunk_count++];
  c->text = copy;
  c->length = length;
  c->hash = hash;
  c->alias = 0;
  /* Code loaded from a string has its source as chunk name: it gets an alias. */
  if (memchr(text, '\n', length) != NULL) {
    if (array_reserve((void **)&t->aliases, &t->alias_capacity, t->alias_count + 1, sizeof *t->aliases) != 0)
      return -1;
    t->aliases[t->alias_count++] = index;
    c->alias = (uint32_t)t->alias_count;
  }
  return index;
}

/* ---- Adding symbols -------------------------------------------------------------- */

struct memprof_symtab *memprof_symtab_new(void)
{
  return calloc(1, sizeof(struct memprof_symtab));
}

void memprof_symtab_free(struct memprof_symtab *t)
{
  if (t == NULL)
    return;
  while (t->arena != NULL) {
    struct arena_block *next = t->arena->next;
    free(t->arena);
    t->arena = next;
  }
  free(t->chunks);
  index_table_release(&t->chunk_index);
  free(t->aliases);
  free(t->lua);
  index_table_release(&t->lua_index);
  free(t->traces);
  index_table_release(&t->trace_index);
  free(t->c);
  free(t);
}

static int add_lua(struct memprof_symtab *t, const struct memprof_symbol *s)
{
  int64_t chunk = chunk_intern(t, s->name ? s->name : "", s->name_length);
  if (chunk < 0)
    return -1;
  int64_t existing = symbol_find(t, &t->lua_index, lua_equal, s->address);
  if (existing >= 0) {
    t->lua[existing].chunk = (uint32_t)chunk;
    t->lua[existing].first_line = s->line;
    return 0;
  }
  if (array_reserve((void **)&t->lua, &t->lua_capacity, t->lua_count + 1, sizeof *t->lua) != 0)
    return -1;
  if (symbol_index(&t->lua_index, s->address) != 0)
    return -1;
  t->lua[t->lua_count].address = s->address;
  t->lua[t->lua_count].chunk = (uint32_t)chunk;
  t->lua[t->lua_count].first_line = s->line;
  t->lua_count++;
  return 0;
}

static int add_trace(struct memprof_symtab *t, const struct memprof_symbol *s)
{
  int64_t existing = symbol_find(t, &t->trace_index, trace_equal, s->trace);
  if (existing >= 0) {
    t->traces[existing].address = s->address;
    t->traces[existing].line = s->line;
    return 0;
  }
  if (array_reserve((void **)&t->traces, &t->trace_capacity, t->trace_count + 1, sizeof *t->traces) != 0)
    return -1;
  if (symbol_index(&t->trace_index, s->trace) != 0)
    return -1;
  t->traces[t->trace_count].number = s->trace;
  t->traces[t->trace_count].address = s->address;
  t->traces[t->trace_count].line = s->line;
  t->trace_count++;
  return 0;
}

static int add_c(struct memprof_symtab *t, const struct memprof_symbol *s)
{
  if (array_reserve((void **)&t->c, &t->c_capacity, t->c_count + 1, sizeof *t->c) != 0)
    return -1;
  const char *name = arena_copy(t, s->name ? s->name : "", s->name_length);
  if (name == NULL)
    return -1;
  struct c_symbol *c = &t->c[t->c_count++];
  c->address = s->address;
  c->order = t->c_order++;
  c->name = name;
  c->name_length = s->name_length;
  return 0;
}

int memprof_symtab_add(struct memprof_symtab *t, const struct memprof_symbol *s)
{
  if (s->name_length > UINT32_MAX)
    return -1;
  switch (s->kind) {
  case MEMPROF_SYMBOL_LUA:
    return add_lua(t, s);
  case MEMPROF_SYMBOL_C:
    return add_c(t, s);
  case MEMPROF_SYMBOL_TRACE:
    return add_trace(t, s);
  }
  return -1;
}

/* ---- C symbol order ------------------------------------------------------------------ */

static int c_symbol_compare(const void *a, const void *b)
{
  const struct c_symbol *x = a, *y = b;
  if (x->address != y->address)
    return x->address < y->address ? -1 : 1;
  return x->order < y->order ? -1 : x->order > y->order;
}

/* Sorts the appended tail, merges it into the sorted part, keeps the latest per address. */
static void c_symbols_settle(struct memprof_symtab *t)
{
  if (t->c_sorted == t->c_count)
    return;
  size_t tail = t->c_count - t->c_sorted;
  qsort(t->c + t->c_sorted, tail, sizeof *t->c, c_symbol_compare);
  struct c_symbol *merged = malloc(t->c_count * sizeof *merged);
  if (merged == NULL) {
    /* Without memory for the merge, sort everything in place instead. */
    qsort(t->c, t->c_count, sizeof *t->c, c_symbol_compare);
  } else {
    size_t i = 0, j = t->c_sorted, n = 0;
    while (i < t->c_sorted || j < t->c_count) {
      if (j == t->c_count || (i < t->c_sorted && c_symbol_compare(&t->c[i], &t->c[j]) <= 0))
        merged[n++] = t->c[i++];
      else
        merged[n++] = t->c[j++];
    }
    memcpy(t->c, merged, n * sizeof *merged);
    free(merged);
  }
  /* Equal addresses are now adjacent, oldest first: keep the last of each run. */
  size_t kept = 0;
  for (size_t k = 0; k < t->c_count; k++) {
    if (k + 1 < t->c_count && t->c[k + 1].address == t->c[k].address)
      continue;
    t->c[kept++] = t->c[k];
  }
  t->c_count = kept;
  t->c_sorted = kept;
}

/* The C symbol at or below address (as an AVL floor would find), or NULL. */
static const struct c_symbol *c_symbol_floor(const struct memprof_symtab *t, uint64_t address)
{
  /* Lookups settle the order lazily; the table is never a const object. */
  c_symbols_settle((struct memprof_symtab *)(uintptr_t)t);
  size_t low = 0, high = t->c_count;
  while (low < high) {
    size_t middle = low + (high - low) / 2;
    if (t->c[middle].address <= address)
      low = middle + 1;
    else
      high = middle;
  }
  return low > 0 ? &t->c[low - 1] : NULL;
}

/* ---- Names ------------------------------------------------------------------------------- */

/* Appends to out like snprintf, always counting the full length. */
struct name_buffer {
  char *out;
  size_t size;
  size_t length;
};

static void put_text(struct name_buffer *b, const char *text, size_t length)
{
  if (b->length < b->size) {
    size_t room = b->size - 1 - b->length;
    memcpy(b->out + b->length, text, length < room ? length : room);
  }
  b->length += length;
}

static void put_format(struct name_buffer *b, const char *format, ...)
{
  char text[64];
  va_list args;
  va_start(args, format);
  int n = vsnprintf(text, sizeof text, format, args);
  va_end(args);
  if (n > 0)
    put_text(b, text, (size_t)n);
}

/* Tarantool prints addresses with Lua's %#x: 0 as "0", others as 0x... */
static void put_hex(struct name_buffer *b, uint64_t value)
{
  put_format(b, "%#" PRIx64, value);
}

static void name_lua_or_c(const struct memprof_symtab *t, uint64_t address, uint64_t line,
                          enum memprof_naming naming, struct name_buffer *b)
{
  if (address == 0) {
    put_text(b, "INTERNAL", 8);
    return;
  }
  int64_t lua = symbol_find(t, &t->lua_index, lua_equal, address);
  if (lua >= 0) {
    const struct chunk *c = &t->chunks[t->lua[lua].chunk];
    if (c->alias && naming == MEMPROF_NAMING_TARANTOOL)
      put_format(b, "function_alias_%" PRIu32, c->alias);
    else if (c->alias)  /* N counts in order of appearance: the source's hash does not */
      put_format(b, "function_alias_%016" PRIx64, c->hash);
    else
      put_text(b, c->text, c->length);
    put_format(b, ":%" PRIu64, line);
    return;
  }
  /* Not a known prototype: Tarantool looks for a C symbol, whatever the source. */
  const struct c_symbol *symbol = c_symbol_floor(t, address);
  if (symbol != NULL) {
    put_text(b, symbol->name, symbol->name_length);
    if (naming == MEMPROF_NAMING_TARANTOOL) {
      put_text(b, ":", 1);
      put_hex(b, symbol->address);
    }
    return;
  }
  if (naming == MEMPROF_NAMING_TARANTOOL) {
    put_text(b, "CFUNC ", 6);
    put_hex(b, address);
  } else {
    put_text(b, "CFUNC", 5);
  }
}

size_t memprof_symtab_name(const struct memprof_symtab *t, const struct memprof_event *e,
                           enum memprof_naming naming, char *out, size_t size)
{
  struct name_buffer b = {out, size, 0};
  switch (e->source) {
  case MEMPROF_SOURCE_LUA:
    name_lua_or_c(t, e->location, e->line, naming, &b);
    break;
  case MEMPROF_SOURCE_C:
    name_lua_or_c(t, e->location, 0, naming, &b);
    break;
  case MEMPROF_SOURCE_TRACE: {
    if (e->location == 0) {
      put_text(&b, "INTERNAL", 8);  /* trace number 0 is no trace: Tarantool falls to address 0 */
      break;
    }
    int64_t trace = symbol_find(t, &t->trace_index, trace_equal, e->location);
    if (naming == MEMPROF_NAMING_TARANTOOL)
      put_format(&b, "TRACE [%" PRIu64 "]", e->location);
    else
      put_text(&b, "TRACE", 5);
    if (trace >= 0) {
      put_text(&b, " started at ", 12);
      name_lua_or_c(t, t->traces[trace].address, t->traces[trace].line, naming, &b);
    }
    break;
  }
  default:
    put_text(&b, "INTERNAL", 8);
    break;
  }
  if (size > 0)
    out[b.length < size ? b.length : size - 1] = '\0';
  return b.length;
}

/* By what memprof_symtab_name looks up: a Lua or C location the prototype
 * at its address, else the C symbol at or below it; a trace its own symbol,
 * then the location where it starts as a Lua or C one. */
int memprof_symtab_renames(const struct memprof_symtab *t, const struct memprof_symbol *s,
                           enum memprof_source source, uint64_t location)
{
  if (source == MEMPROF_SOURCE_TRACE) {
    if (s->kind == MEMPROF_SYMBOL_TRACE)
      return location == s->trace;
    int64_t trace = location ? symbol_find(t, &t->trace_index, trace_equal, location) : -1;
    if (trace < 0)
      return 0;  /* "TRACE" alone, or INTERNAL */
    location = t->traces[trace].address;
  } else if (source != MEMPROF_SOURCE_LUA && source != MEMPROF_SOURCE_C) {
    return 0;  /* INTERNAL */
  }
  switch (s->kind) {
  case MEMPROF_SYMBOL_LUA:
    return location == s->address;
  case MEMPROF_SYMBOL_C:  /* the floor of every address from its own up (a prototype's too: conservative) */
    return location >= s->address;
  default:
    return 0;
  }
}

size_t memprof_symtab_alias_count(const struct memprof_symtab *t)
{
  return t->alias_count;
}

const char *memprof_symtab_alias_source(const struct memprof_symtab *t, size_t index,
                                        size_t *length)
{
  if (index >= t->alias_count)
    return NULL;
  const struct chunk *c = &t->chunks[t->aliases[index]];
  if (length != NULL)
    *length = c->length;
  return c->text;
}
