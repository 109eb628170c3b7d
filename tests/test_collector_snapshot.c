/* tests/test_collector_snapshot.c: every block the allocator gave out is one object (or object part) of a heap snapshot, at its address and with its exact size: the memprof stream's live blocks at the snapshot's boundary, the snapshot's objects and a tracking allocator under the collector agree, by kind, JIT on and off. */
#include <check.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector/ljleak_collector.h"
#include "format/capture_index.h"
#include "format/memprof.h"
#include "format/snapshot.h"
#include "lauxlib.h"
#include "lj_arch.h"
#include "luajit.h"
#include "lua.h"
#include "lualib.h"
#include "tests/check_run.h"

/* ---- An address map (linear probing, backward-shift deletion) -------------------- */

struct block_entry {
  uint64_t address;             /* 0: an empty slot */
  uint64_t size;
  uint32_t tag;                 /* what the map's user keeps beside the size */
};

struct block_map {
  struct block_entry *slots;
  size_t capacity, count;       /* capacity: a power of two */
};

static size_t block_home(const struct block_map *m, uint64_t address)
{
  return (size_t)((address * 0x9e3779b97f4a7c15ull) >> 17) & (m->capacity - 1);
}

static struct block_entry *block_find(const struct block_map *m, uint64_t address)
{
  if (!m->capacity)
    return NULL;
  for (size_t i = block_home(m, address);; i = (i + 1) & (m->capacity - 1)) {
    if (m->slots[i].address == address)
      return &m->slots[i];
    if (!m->slots[i].address)
      return NULL;
  }
}

/* Puts address (a new one, or replaces its entry). The allocator below calls it: no Check
 * assertion here (it would jump across the VM's frames); an allocation failure aborts. */
static void block_put(struct block_map *m, uint64_t address, uint64_t size, uint32_t tag)
{
  if ((m->count + 1) * 2 > m->capacity) {
    struct block_map grown = {calloc(m->capacity ? m->capacity * 2 : 4096, sizeof *m->slots),
                              m->capacity ? m->capacity * 2 : 4096, 0};
    if (!grown.slots)
      abort();
    for (size_t i = 0; i < m->capacity; i++)
      if (m->slots[i].address)
        block_put(&grown, m->slots[i].address, m->slots[i].size, m->slots[i].tag);
    free(m->slots);
    *m = grown;
  }
  size_t i = block_home(m, address);
  while (m->slots[i].address && m->slots[i].address != address)
    i = (i + 1) & (m->capacity - 1);
  if (!m->slots[i].address)
    m->count++;
  m->slots[i] = (struct block_entry){address, size, tag};
}

static int block_remove(struct block_map *m, uint64_t address)
{
  struct block_entry *e = block_find(m, address);
  if (!e)
    return 0;
  size_t hole = (size_t)(e - m->slots), mask = m->capacity - 1;
  for (size_t j = (hole + 1) & mask; m->slots[j].address; j = (j + 1) & mask) {
    size_t home = block_home(m, m->slots[j].address);
    /* Moves j into the hole unless its home lies cyclically in (hole, j]. */
    if (((j - home) & mask) >= ((j - hole) & mask)) {
      m->slots[hole] = m->slots[j];
      hole = j;
    }
  }
  m->slots[hole].address = 0;
  m->count--;
  return 1;
}

static void block_map_free(struct block_map *m)
{
  free(m->slots);
  memset(m, 0, sizeof *m);
}

/* ---- The tracking allocator: every block of the VM, from its first ------------------- */

#define BORN_BEFORE_CAPTURE 1u

struct tracker {
  struct block_map live;
  int capturing;                /* set once ljleak_collector_start returned */
  uint64_t wrong_old_sizes;     /* a free or realloc whose old size is not the block's */
};

/* A block given back is freed at once: the collector reads the running thread's frames from its
 * old stack while a realloc moves that stack (coll_hook_move_stack), and valgrind reports any read of
 * it after the free. */
static void tracker_release(struct tracker *t, void *ptr)
{
  (void)t;
  free(ptr);
}

static void *tracker_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
  struct tracker *t = ud;
  tracker_release(t, NULL);
  if (ptr) {
    struct block_entry *e = block_find(&t->live, (uint64_t)(uintptr_t)ptr);
    if (!e || e->size != osize)
      t->wrong_old_sizes++;
  }
  if (nsize == 0) {
    if (ptr)
      block_remove(&t->live, (uint64_t)(uintptr_t)ptr);
    tracker_release(t, ptr);
    return NULL;
  }
  void *p = malloc(nsize);
  if (!p)
    return NULL;  /* the VM raises its memory error; ptr is still its block */
  if (ptr) {
    memcpy(p, ptr, osize < nsize ? osize : nsize);
    block_remove(&t->live, (uint64_t)(uintptr_t)ptr);
    tracker_release(t, ptr);
  }
  block_put(&t->live, (uint64_t)(uintptr_t)p, nsize, t->capturing ? 0 : BORN_BEFORE_CAPTURE);
  return p;
}

/* ---- Host functions the program uses (testdata/snapshot/sizes.lua) -------------------- */

static int host_cclosure_body(lua_State *L)
{
  lua_pushinteger(L, 0);
  return 1;
}

static int host_cclosure(lua_State *L)
{
  int n = (int)luaL_checkinteger(L, 1);
  for (int i = 0; i < n; i++)
    lua_pushinteger(L, i);
  lua_pushcclosure(L, host_cclosure_body, n);
  return 1;
}

static int host_udata(lua_State *L)
{
  size_t n = (size_t)luaL_checkinteger(L, 1);
  memset(lua_newuserdata(L, n), 0xab, n);
  return 1;
}

/* Light userdata, each in a segment of its own (the address's bits above the low 39): the VM
 * keeps a list of the segments it saw, grown by doubling. */
static int host_lightud(lua_State *L)
{
  uint64_t i = (uint64_t)luaL_checkinteger(L, 1);
  lua_pushlightuserdata(L, (void *)(uintptr_t)((i + 1) << 39 | 0x10));
  return 1;
}

/* ---- The capture's live blocks at a boundary --------------------------------------------- */

/* The stream's live blocks after the event of the boundary (segment, events): allocations
 * minus frees, by address, read from the capture's first segment on. */
static void stream_live(const char *dir, const struct capture_index *index, uint64_t segment,
                        uint64_t events, struct block_map *live)
{
  for (size_t s = 0; s < index->segment_count && index->segments[s].seq <= segment; s++) {
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", dir, index->segments[s].file);
    struct format_error err;
    struct memprof_reader *r = memprof_reader_open(path, &err);
    ck_assert_msg(r != NULL, "%s", err.message);
    struct memprof_record rec;
    uint64_t seen = 0;
    int last = index->segments[s].seq == segment;
    while ((!last || seen < events) && memprof_reader_next(r, &rec) == FORMAT_OK) {
      if (rec.type != MEMPROF_RECORD_EVENT)
        continue;
      seen++;
      const struct memprof_event *e = &rec.event;
      if (e->kind == MEMPROF_EVENT_FREE || e->kind == MEMPROF_EVENT_REALLOC)
        block_remove(live, e->old_address);  /* a block born before the capture is not there */
      if ((e->kind == MEMPROF_EVENT_ALLOC || e->kind == MEMPROF_EVENT_REALLOC) && e->new_address)
        block_put(live, e->new_address, e->new_size, 0);
    }
    ck_assert_msg(!last || seen == events, "%s: %llu events before the boundary, %llu read", path,
                  (unsigned long long)events, (unsigned long long)seen);
    memprof_reader_close(r);
  }
}

/* ---- Kinds: what the figures are counted by ------------------------------------------------ */

#define KIND_MAX 64

struct kinds {
  char name[KIND_MAX][48];
  uint64_t matched[KIND_MAX];
  uint32_t count;
};

static uint32_t kind_id(struct kinds *k, const char *name)
{
  for (uint32_t i = 0; i < k->count; i++)
    if (!strcmp(k->name[i], name))
      return i;
  ck_assert_uint_lt(k->count, KIND_MAX);
  snprintf(k->name[k->count], sizeof k->name[0], "%s", name);
  return k->count++;
}

static uint64_t kind_matched(const struct kinds *k, const char *name)
{
  for (uint32_t i = 0; i < k->count; i++)
    if (!strcmp(k->name[i], name))
      return k->matched[i];
  return 0;
}

/* The kind of an object's own block, or of its part: strings by their length mod 4, the VM's
 * blocks by their names, parts after their object's type. */
static uint32_t part_kind(struct kinds *k, const struct snapshot *s, const struct snapshot_object *o, int part)
{
  char name[48];
  const char *type = snapshot_type_name((enum snapshot_type)o->type);
  if (o->type == SNAPSHOT_VM)
    snprintf(name, sizeof name, "vm %s", snapshot_string(s, o->name));
  else if (o->type == SNAPSHOT_STRING)
    snprintf(name, sizeof name, "string length %%4=%u", (unsigned)(o->count % 4));
  else if (part)
    snprintf(name, sizeof name, "%s part", type);
  else
    snprintf(name, sizeof name, "%s", type);
  return kind_id(k, name);
}

/* ---- The test ------------------------------------------------------------------------------- */

static const char *scratch_dir(const char *name)
{
  static char path[1024];
  const char *b = getenv("BUILD");
  snprintf(path, sizeof path, "%s/tests/collector-snapshot-tmp/%s", b && *b ? b : "build", name);
  char cmd[2200];
  ck_assert_int_lt(snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", path, path), (int)sizeof cmd);
  ck_assert_int_eq(system(cmd), 0);
  return path;
}

/* A mismatch, listed in the failure's message (the first few of each check). */
static void note(char *out, size_t size, uint64_t *count, const char *format, ...)
  __attribute__((format(printf, 4, 5)));
static void note(char *out, size_t size, uint64_t *count, const char *format, ...)
{
  if ((*count)++ >= 8)
    return;
  size_t used = strlen(out);
  va_list args;
  va_start(args, format);
  if (used < size)
    vsnprintf(out + used, size - used, format, args);
  va_end(args);
}

/* The kinds' figures, by name: "string length %4=0 1686, table 552, ...". */
static void kinds_text(const struct kinds *k, char *out, size_t size)
{
  uint32_t order[KIND_MAX];
  for (uint32_t i = 0; i < k->count; i++) {
    uint32_t j = i;
    for (; j > 0 && strcmp(k->name[order[j - 1]], k->name[i]) > 0; j--)
      order[j] = order[j - 1];
    order[j] = i;
  }
  size_t used = 0;
  out[0] = 0;
  for (uint32_t i = 0; i < k->count && used < size; i++) {
    int n = snprintf(out + used, size - used, "%s%s %llu", i ? ", " : "", k->name[order[i]],
                     (unsigned long long)k->matched[order[i]]);
    if (n < 0)
      break;
    used += (size_t)n;
  }
}

/* The program of testdata/snapshot/sizes.lua holds objects of every kind and size; a snapshot
 * of it (ljleak_collector_snapshot) is compared with the stream's live blocks at its boundary
 * and with the allocator's (a tracking allocator under the collector's hook, from the state's
 * first block: it knows the blocks born before the capture, which no stream has). Every live
 * block of the stream is one object's own block or one of its parts, at its address, with its
 * size (100 %, by kind); every object and part is a live block of the stream, or a block the
 * allocator gave out before the capture started; every block of the allocator is an object or
 * a part; and the objects' bytes are the heap's (collectgarbage("count")) to the byte. */
START_TEST(test_snapshot_objects_have_their_allocations_sizes)
{
  int jit = _i == 0;
  struct tracker tracker;
  memset(&tracker, 0, sizeof tracker);
  lua_State *L = lua_newstate(tracker_alloc, &tracker);
  ck_assert_ptr_nonnull(L);
  luaL_openlibs(L);
  if (!jit)
    ck_assert_int_eq(luaJIT_setmode(L, 0, LUAJIT_MODE_ENGINE | LUAJIT_MODE_OFF), 1);
  lua_register(L, "host_cclosure", host_cclosure);
  lua_register(L, "host_udata", host_udata);
  lua_register(L, "host_lightud", host_lightud);

  const char *dir = scratch_dir(jit ? "jit-on" : "jit-off");
  struct ljleak_collector_options o;
  ljleak_collector_options_init(&o);
  o.dir = dir;
  char err[512];
  ck_assert_msg(ljleak_collector_start(L, &o, err, sizeof err) == 0, "%s", err);
  tracker.capturing = 1;
  if (luaL_dofile(L, "testdata/snapshot/sizes.lua") != 0)
    ck_abort_msg("sizes.lua: %s", lua_tostring(L, -1));
  ck_assert_msg(ljleak_collector_snapshot(L, err, sizeof err) == 0, "%s", err);
  /* The allocator's blocks as the walk saw them: nothing ran since. */
  struct block_map allocator = {0};
  for (size_t i = 0; i < tracker.live.capacity; i++)
    if (tracker.live.slots[i].address)
      block_put(&allocator, tracker.live.slots[i].address, tracker.live.slots[i].size,
                tracker.live.slots[i].tag);
  ck_assert_msg(ljleak_collector_stop(L, err, sizeof err) == 0, "%s", err);

  char path[1200];
  snprintf(path, sizeof path, "%s/index", dir);
  struct capture_index index;
  struct format_error ierr;
  ck_assert_int_eq(capture_index_read_file(&index, path, &ierr), FORMAT_OK);
  ck_assert_uint_eq(index.snapshot_count, 1);
  const struct capture_index_boundary *at = NULL;
  for (size_t i = 0; i < index.boundary_count; i++)
    if (index.boundaries[i].seq == index.snapshots[0].boundary)
      at = &index.boundaries[i];
  ck_assert_ptr_nonnull(at);
  struct block_map stream = {0};
  stream_live(dir, &index, at->segment, at->events, &stream);

  snprintf(path, sizeof path, "%s/%s", dir, index.snapshots[0].file);
  struct snapshot snap;
  struct format_error serr;
  ck_assert_msg(snapshot_read_file(&snap, path, INPUT_FILE_FOUND, &serr) == FORMAT_OK, "%s", serr.message);

  /* The snapshot's blocks: each object's own (a variable-length cdata has none: its one block
   * is a part) and its parts, each at an address of its own. */
  struct kinds kinds;
  memset(&kinds, 0, sizeof kinds);
  struct block_map parts = {0};
  uint64_t duplicates = 0, part_bytes = 0;
  for (size_t i = 0; i < snap.object_count; i++) {
    const struct snapshot_object *ob = &snap.objects[i];
    for (uint32_t b = 0; b <= ob->block_count; b++) {
      uint64_t address = b ? snap.blocks[ob->first_block + b - 1].address : ob->address;
      uint64_t size = b ? snap.blocks[ob->first_block + b - 1].size : ob->size;
      if (!b && !size)
        continue;
      duplicates += block_find(&parts, address) != NULL;
      block_put(&parts, address, size, part_kind(&kinds, &snap, ob, b != 0));
      part_bytes += size;
    }
  }

  char why[4096] = "";
  uint64_t unmatched = 0, not_allocated = 0, not_in_stream = 0, not_in_snapshot = 0, stream_wrong = 0;
  /* Every live block of the stream: the allocator's, and one object or part with its size. */
  for (size_t i = 0; i < stream.capacity; i++) {
    const struct block_entry *e = &stream.slots[i];
    if (!e->address)
      continue;
    const struct block_entry *a = block_find(&allocator, e->address);
    if (!a || a->size != e->size)
      note(why, sizeof why, &stream_wrong, "stream block 0x%llx of %llu bytes is the allocator's of %llu\n",
           (unsigned long long)e->address, (unsigned long long)e->size,
           (unsigned long long)(a ? a->size : 0));
    const struct block_entry *p = block_find(&parts, e->address);
    if (p && p->size == e->size)
      kinds.matched[p->tag]++;
    else
      note(why, sizeof why, &unmatched, "live block 0x%llx of %llu bytes: the snapshot has %llu (%s)\n",
           (unsigned long long)e->address, (unsigned long long)e->size,
           (unsigned long long)(p ? p->size : 0), p ? kinds.name[p->tag] : "no object");
  }
  /* The reverse: every object and part is a block of the allocator, with its size, and a live
   * block of the stream unless the allocator gave it out before the capture started. */
  uint64_t before = 0;
  for (size_t i = 0; i < parts.capacity; i++) {
    const struct block_entry *p = &parts.slots[i];
    if (!p->address)
      continue;
    const struct block_entry *a = block_find(&allocator, p->address);
    if (!a || a->size != p->size) {
      note(why, sizeof why, &not_allocated, "snapshot part 0x%llx of %llu bytes: the allocator's has %llu (%s)\n",
           (unsigned long long)p->address, (unsigned long long)p->size,
           (unsigned long long)(a ? a->size : 0), kinds.name[p->tag]);
      continue;
    }
    const struct block_entry *e = block_find(&stream, p->address);
    if (a->tag & BORN_BEFORE_CAPTURE)
      before++;
    else if (!e || e->size != p->size)
      note(why, sizeof why, &not_in_stream, "snapshot part 0x%llx of %llu bytes is no live block of the stream (%llu) (%s)\n",
           (unsigned long long)p->address, (unsigned long long)p->size,
           (unsigned long long)(e ? e->size : 0), kinds.name[p->tag]);
  }
  /* Every block of the allocator is an object or a part. */
  uint64_t allocator_bytes = 0;
  for (size_t i = 0; i < allocator.capacity; i++) {
    const struct block_entry *a = &allocator.slots[i];
    if (!a->address)
      continue;
    allocator_bytes += a->size;
    if (!block_find(&parts, a->address))
      note(why, sizeof why, &not_in_snapshot, "allocator block 0x%llx of %llu bytes%s is in no object\n",
           (unsigned long long)a->address, (unsigned long long)a->size,
           a->tag & BORN_BEFORE_CAPTURE ? " (born before the capture)" : "");
  }

  char figures[4096], by_kind[3072];
  kinds_text(&kinds, by_kind, sizeof by_kind);
  snprintf(figures, sizeof figures, "JIT %s: %zu live blocks of the stream, %llu matched, %llu not; "
           "%zu objects and parts (%llu born before the capture), %zu blocks of the allocator; "
           "matched by kind: %s", jit ? "on" : "off", stream.count,
           (unsigned long long)(stream.count - unmatched), (unsigned long long)unmatched, parts.count,
           (unsigned long long)before, allocator.count, by_kind);
  printf("%s\n", figures);

  ck_assert_msg(tracker.wrong_old_sizes == 0, "%llu frees with a wrong old size", (unsigned long long)tracker.wrong_old_sizes);
  ck_assert_msg(duplicates == 0, "%llu blocks in two objects", (unsigned long long)duplicates);
  ck_assert_msg(stream_wrong + unmatched + not_allocated + not_in_stream + not_in_snapshot == 0,
                "%s\n%llu stream blocks not the allocator's, %llu unmatched, %llu parts not allocated, "
                "%llu parts not in the stream, %llu allocator blocks in no object:\n%s",
                figures, (unsigned long long)stream_wrong, (unsigned long long)unmatched,
                (unsigned long long)not_allocated, (unsigned long long)not_in_stream,
                (unsigned long long)not_in_snapshot, why);
  ck_assert_uint_eq(part_bytes, snap.object_bytes);
  ck_assert_uint_eq(snap.object_bytes, allocator_bytes);
  ck_assert_uint_eq(snap.object_bytes, snap.capture.heap_bytes);

  /* Every kind the program makes was matched from the stream. */
  static const char *const made[] = {
    "string length %4=0", "string length %4=1", "string length %4=2", "string length %4=3",
    "table", "table part", "function", "C function", "prototype", "upvalue", "thread",
    "thread part", "userdata", "cdata", "cdata part", "vm lightuserdata segments", "vm ffi callback ids"};
  for (size_t i = 0; i < sizeof made / sizeof made[0]; i++)
    ck_assert_msg(kind_matched(&kinds, made[i]) > 0, "no %s matched: %s", made[i], figures);
#if LJ_HASBUFFER
  ck_assert_msg(kind_matched(&kinds, "userdata part") > 0, "no string buffer's contents: %s", figures);
  /* A buffer set to a string shares it: it has no part, and holds the string. */
  int shared = 0;
  for (size_t i = 0; i < snap.object_count; i++)
    for (uint32_t r = 0; r < snap.objects[i].reference_count; r++) {
      const struct snapshot_reference *ref = &snap.references[snap.objects[i].first_reference + r];
      const struct snapshot_object *target = snapshot_find(&snap, snapshot_reference_target(&snap, ref));
      shared |= snap.objects[i].type == SNAPSHOT_USERDATA && !snap.objects[i].block_count &&
                !strcmp(snapshot_string(&snap, ref->text), "copy-on-write contents") && target &&
                target->type == SNAPSHOT_STRING && target->count == strlen("a borrowed string");
    }
  ck_assert_msg(shared, "no string buffer holds the string it was set to");
#endif
  static const char *const compiler[] = {"trace", "vm JIT IR buffer", "vm JIT snapshot buffer",
                                          "vm JIT snapshot map buffer", "vm trace list"};
  for (size_t i = 0; i < sizeof compiler / sizeof compiler[0]; i++)
    ck_assert_msg(jit ? kind_matched(&kinds, compiler[i]) > 0 : kind_matched(&kinds, compiler[i]) == 0,
                  "%s: %s", compiler[i], figures);

  snapshot_free(&snap);
  capture_index_free(&index);
  block_map_free(&parts);
  block_map_free(&stream);
  block_map_free(&allocator);
  lua_close(L);
  /* lua_close gave every block back, the global state's last. */
  ck_assert_uint_eq(tracker.live.count, 0);
  ck_assert_uint_eq(tracker.wrong_old_sizes, 0);
  block_map_free(&tracker.live);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("collector_snapshot");
  TCase *tc = tcase_create("sizes");
  tcase_set_timeout(tc, 120);
  tcase_add_loop_test(tc, test_snapshot_objects_have_their_allocations_sizes, 0, 2);
  suite_add_tcase(s, tc);
  return check_run(s);
}
