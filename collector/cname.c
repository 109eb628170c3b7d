/* collector/cname.c: the names of C functions: the Lua names code calls them by, learnt by walking the VM's tables from its private state; else their ELF symbol; else object+0xOFFSET. */
#include "collector/cname.h"

#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <time.h>

#include "collector/attrib.h"
#include "collector/elf_symbols.h"

#define CNAME_RECORDS (1u << 18)           /* C functions named per capture, at most */
#define CNAME_ARENA_SIZE (16u << 20)       /* their text */
#define CNAME_NAME_MAX 240                 /* a longer Lua name is not used */
#define CNAME_KEY_MAX 64                   /* a longer key is no name */
/* A table with a larger hash part is data, not a library: not walked (the
 * walk stays short however much a program keeps in its globals). */
#define CNAME_MAX_HMASK ((1u << 16) - 1)
#define CNAME_MAX_ARRAY 64                 /* array slots looked at: package.loaders[1..4] */
#define CNAME_NO_LIBRARY UINT32_MAX
#define CNAME_HOST_NAMES 16

/* One C function's name. Its library is looked up the first time the name
 * is used (dladdr for every function a walk names would cost the walk). */
struct cname_record {
  uint32_t name;             /* arena offset */
  uint32_t library;          /* arena offset, or CNAME_NO_LIBRARY: not looked up yet */
  uint16_t name_length;
  uint16_t library_length;
  uint8_t origin;            /* enum cname_origin */
  uint8_t rank;              /* CNAME_LUA: the rank of the place that gave the name */
  uint8_t indexed;
  uint8_t unused;
  uint32_t walk;             /* the walk that named it (0: a fallback) */
};

/* The host's own names (ljleak_collector_name_function): set before a
 * capture, read by the hook. */
static struct {
  uint64_t address;
  char name[64];
} cname_host[CNAME_HOST_NAMES];

int coll_cname_register(uint64_t address, const char *name)
{
  if (!address || !name || !*name || strlen(name) >= sizeof cname_host[0].name ||
      strchr(name, ';'))
    return -1;
  for (size_t i = 0; i < CNAME_HOST_NAMES; i++) {
    if (cname_host[i].address == address || cname_host[i].address == 0) {
      snprintf(cname_host[i].name, sizeof cname_host[i].name, "%s", name);
      cname_host[i].address = address;
      return 0;
    }
  }
  return -1;
}

const char *coll_cname_origin_name(enum cname_origin origin)
{
  static const char *const names[] = {"lua",     "host",       "symtab", "dynsym",
                                      "debug-file", "program", "offset", "address",
                                      "vm"};
  return (unsigned)origin < sizeof names / sizeof names[0] ? names[origin] : "";
}

static void *pages(size_t size)
{
  void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                 -1, 0);
  return p == MAP_FAILED ? NULL : p;
}

int coll_cname_begin(struct cname_state *s)
{
  if (!s->records) {
    s->records = pages(CNAME_RECORDS * sizeof *s->records);
    s->arena = pages(CNAME_ARENA_SIZE);
    if (!s->records || !s->arena || coll_addr_map_init(&s->names, 1024) != 0) {
      coll_cname_free(s);
      errno = ENOMEM;
      return -1;
    }
  } else {
    coll_addr_map_clear(&s->names);
  }
  s->record_count = 0;
  s->arena_used = 0;
  s->walk = 0;
  s->skip = NULL;
  s->walk_ns = 0;
  const char *dir = getenv("LJLEAK_DEBUG_DIR");
  snprintf(s->debug_dir, sizeof s->debug_dir, "%s", dir && *dir ? dir : ELF_SYMBOLS_DEBUG_DIR);
  return 0;
}

void coll_cname_free(struct cname_state *s)
{
  if (s->records)
    munmap(s->records, CNAME_RECORDS * sizeof *s->records);
  if (s->arena)
    munmap(s->arena, CNAME_ARENA_SIZE);
  coll_addr_map_free(&s->names);
  memset(s, 0, sizeof *s);
}

/* Copies text into the arena (NUL-terminated); its offset, or -1 when full. */
static int64_t arena_put(struct cname_state *s, const char *text, size_t length)
{
  if (length + 1 > CNAME_ARENA_SIZE - s->arena_used)
    return -1;
  size_t at = s->arena_used;
  memcpy(s->arena + at, text, length);
  s->arena[at + length] = '\0';
  s->arena_used += length + 1;
  return (int64_t)at;
}

/* A new record for address named name; NULL when memory is full. */
static struct cname_record *record_add(struct cname_state *s, uint64_t address, const char *name,
                                       size_t length, enum cname_origin origin, uint8_t rank)
{
  if (s->record_count >= CNAME_RECORDS)
    return NULL;
  int64_t at = arena_put(s, name, length);
  if (at < 0 || coll_addr_map_put(&s->names, address, (uint64_t)s->record_count + 1) != 0)
    return NULL;
  struct cname_record *r = &s->records[s->record_count++];
  *r = (struct cname_record){(uint32_t)at, CNAME_NO_LIBRARY, (uint16_t)length, 0,
                             (uint8_t)origin, rank, 0, 0, s->walk};
  return r;
}

static struct cname_record *record_find(const struct cname_state *s, uint64_t address)
{
  uint64_t *v = address ? coll_addr_map_find(&s->names, address) : NULL;
  return v ? &s->records[*v - 1] : NULL;
}

/* ---- The walk ----------------------------------------------------------------
 *
 * Where a C function is reachable, by rank (lower is better):
 *
 *   0  a field of a module in package.loaded     cjson.decode
 *   1  a field of a table in such a module       socket.core.dns.toip  (M.K.K2)
 *   2  a global                                  print
 *   3  a field of a table among the globals      string.format, lpeg.match
 *   4  a field of the string metatable's __index string.K
 *   5  a field of a table in the registry         lpeg-pattern.__mul
 *      under a string key (luaL_newmetatable's metatables)
 *
 * One function reachable under several names gets the one of the lowest
 * rank, then the shortest, then the first in byte order: a rule on the
 * names alone, so that it does not depend on the order of the VM's hash
 * tables, and the same program names its functions the same in every run.
 * package.loaded._G is the globals (rank 2, not "_G.print"). Keys are
 * strings of 1 to 64 printable bytes, neither space nor ';' (which splits
 * the frames of a folded stack). */

enum {
  RANK_MODULE, RANK_MODULE_TABLE, RANK_GLOBAL, RANK_GLOBAL_TABLE, RANK_STRING_INDEX, RANK_REGISTRY
};

struct walker {
  struct cname_state *s;
  GCtab *globals;
  uint32_t named;
};

/* Root t if it may be read now: a table whose parts are not the block
 * the running allocator call just freed or moved (lj_tab_resize calls the
 * allocator before it stores the new part). */
static GCtab *readable_root(const struct walker *w, GCtab *t)
{
  if (!t || t->gct != ~LJ_TTAB)
    return NULL;
  const void *skip = w->s->skip;
  if (skip && (mref(t->node, void) == skip || mref(t->array, void) == skip))
    return NULL;
  return t;
}

/* t if it may be read now and is no larger than a library's table. */
static GCtab *readable(const struct walker *w, GCtab *t)
{
  t = readable_root(w, t);
  return t && t->hmask <= CNAME_MAX_HMASK ? t : NULL;
}

/* v's table if it may be read now, no larger than a library's. */
static GCtab *readable_value(const struct walker *w, cTValue *v)
{
  return tvistab(v) ? readable(w, tabV(v)) : NULL;
}

static int key_usable(cTValue *key)
{
  if (!tvisstr(key))
    return 0;
  const GCstr *k = strV(key);
  if (k->len == 0 || k->len > CNAME_KEY_MAX)
    return 0;
  const unsigned char *p = (const unsigned char *)strdata(k);
  for (MSize i = 0; i < k->len; i++)
    if (p[i] <= ' ' || p[i] > '~' || p[i] == ';')
      return 0;
  return 1;
}

/* Whether name (rank) is better than r's. */
static int better(const struct cname_state *s, const struct cname_record *r, uint8_t rank,
                  const char *name, size_t length)
{
  if (rank != r->rank)
    return rank < r->rank;
  if (length != r->name_length)
    return length < r->name_length;
  return memcmp(name, s->arena + r->name, length) < 0;
}

/* Offers name for function fn. */
static void offer(struct walker *w, GCfunc *fn, uint8_t rank, const char *name, size_t length)
{
  if (isluafunc(fn) || !fn->c.f)
    return;
  struct cname_state *s = w->s;
  uint64_t address = (uint64_t)(uintptr_t)fn->c.f;
  struct cname_record *r = record_find(s, address);
  if (!r) {
    if (record_add(s, address, name, length, CNAME_LUA, rank))
      w->named++;
    return;
  }
  /* Names given by an earlier walk, or a fallback, stay: segments written
   * since have used them. */
  if (r->walk != s->walk || r->origin != CNAME_LUA || !better(s, r, rank, name, length))
    return;
  int64_t at = arena_put(s, name, length);
  if (at < 0)
    return;
  r->name = (uint32_t)at;
  r->name_length = (uint16_t)length;
  r->rank = rank;
}

/* Appends ".KEY" (or "KEY" to an empty name) to name of *length bytes. */
static int append_key(char *name, size_t *length, const GCstr *key)
{
  size_t dot = *length ? 1 : 0;
  if (*length + dot + key->len > CNAME_NAME_MAX)
    return 0;
  if (dot)
    name[(*length)++] = '.';
  memcpy(name + *length, strdata(key), key->len);
  *length += key->len;
  return 1;
}

/* Offers each function among t's string keys as PREFIX.KEY (name holds
 * the prefix, length bytes), and in its array part as PREFIX[N] (a
 * prefix there is); with below, each function of each table among its
 * string keys likewise, at rank + 1 (package.loaders[2]). */
static void walk_fields(struct walker *w, GCtab *t, uint8_t rank, char *name, size_t length,
                        int below)
{
  TValue *array = tvref(t->array);
  for (uint32_t i = 1; length && array && i < t->asize && i <= CNAME_MAX_ARRAY; i++) {
    if (!tvisfunc(&array[i]))
      continue;
    int n = snprintf(name + length, CNAME_NAME_MAX + 1 - length, "[%u]", (unsigned)i);
    if (n > 0 && (size_t)n <= CNAME_NAME_MAX - length)
      offer(w, funcV(&array[i]), rank, name, length + (size_t)n);
  }
  Node *node = noderef(t->node);
  for (uint32_t i = 0; i <= t->hmask; i++) {
    Node *n = &node[i];
    if (tvisnil(&n->val) || !key_usable(&n->key))
      continue;
    size_t grown = length;
    if (!append_key(name, &grown, strV(&n->key)))
      continue;
    if (tvisfunc(&n->val)) {
      offer(w, funcV(&n->val), rank, name, grown);
    } else if (below) {
      GCtab *sub = readable_value(w, &n->val);
      if (sub && sub != w->globals && sub != t)
        walk_fields(w, sub, (uint8_t)(rank + 1), name, grown, 0);
    }
  }
}

/* The value of t's string key text, or NULL. */
static cTValue *field(GCtab *t, const char *text)
{
  size_t length = strlen(text);
  Node *node = noderef(t->node);
  for (uint32_t i = 0; i <= t->hmask; i++) {
    Node *n = &node[i];
    if (!tvisnil(&n->val) && tvisstr(&n->key) && strV(&n->key)->len == length &&
        !memcmp(strdata(strV(&n->key)), text, length))
      return &n->val;
  }
  return NULL;
}

uint32_t coll_cname_walk(struct cname_state *s, global_State *g)
{
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  s->walk++;
  struct walker w = {s, NULL, 0};
  char name[CNAME_NAME_MAX + 1];
  lua_State *main = mainthread(g);
  if (main && main->gct == ~LJ_TTHREAD)
    w.globals = readable_root(&w, tabref(main->env));
  GCtab *registry = tvistab(&g->registrytv) ? readable_root(&w, tabV(&g->registrytv)) : NULL;
  cTValue *loaded_value = registry ? field(registry, "_LOADED") : NULL;
  GCtab *loaded = loaded_value && tvistab(loaded_value) ? readable_root(&w, tabV(loaded_value)) : NULL;
  if (loaded) {
    Node *node = noderef(loaded->node);
    for (uint32_t i = 0; i <= loaded->hmask; i++) {
      Node *n = &node[i];
      GCtab *module = key_usable(&n->key) ? readable_value(&w, &n->val) : NULL;
      if (!module || module == w.globals || module == loaded)
        continue;
      size_t length = 0;
      if (append_key(name, &length, strV(&n->key)))
        walk_fields(&w, module, RANK_MODULE, name, length, 1);
    }
  }
  if (w.globals)
    walk_fields(&w, w.globals, RANK_GLOBAL, name, 0, 1);
  GCobj *string_mt = gcref(basemt_it(g, LJ_TSTR));
  GCtab *mt = string_mt && string_mt->gch.gct == ~LJ_TTAB ? readable(&w, &string_mt->tab) : NULL;
  cTValue *index = mt ? field(mt, "__index") : NULL;
  GCtab *methods = index ? readable_value(&w, index) : NULL;
  if (methods) {
    memcpy(name, "string", 6);
    walk_fields(&w, methods, RANK_STRING_INDEX, name, 6, 0);
  }
  if (registry) {
    Node *node = noderef(registry->node);
    for (uint32_t i = 0; i <= registry->hmask; i++) {
      Node *n = &node[i];
      GCtab *t = key_usable(&n->key) ? readable_value(&w, &n->val) : NULL;
      size_t length = 0;
      if (t && t != loaded && t != w.globals && append_key(name, &length, strV(&n->key)))
        walk_fields(&w, t, RANK_REGISTRY, name, length, 0);
    }
  }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  s->walk_ns += (uint64_t)(t1.tv_sec - t0.tv_sec) * 1000000000ull + (uint64_t)t1.tv_nsec -
                (uint64_t)t0.tv_nsec;
  return w.named;
}

/* ---- Fallbacks ---------------------------------------------------------- */

/* The address at which the host program is mapped (its ELF header), from
 * its program headers as the kernel gave them. */
static uint64_t program_base(void)
{
  static uint64_t base;
  static int known;
  if (known)
    return base;
  const Elf64_Phdr *phdr = (const Elf64_Phdr *)getauxval(AT_PHDR);
  unsigned long count = getauxval(AT_PHNUM);
  uint64_t bias = 0, lowest = UINT64_MAX;
  for (unsigned long i = 0; phdr && i < count; i++)
    if (phdr[i].p_type == PT_PHDR)
      bias = (uint64_t)(uintptr_t)phdr - phdr[i].p_vaddr;
  for (unsigned long i = 0; phdr && i < count; i++)
    if (phdr[i].p_type == PT_LOAD && phdr[i].p_vaddr - phdr[i].p_offset < lowest)
      lowest = phdr[i].p_vaddr - phdr[i].p_offset;
  base = lowest == UINT64_MAX ? 0 : bias + lowest;
  known = 1;
  return base;
}

static const char *file_name(const char *path)
{
  const char *slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}

/* Names address without a Lua name into name (size bytes): its origin. */
static enum cname_origin fallback(const struct cname_state *s, uint64_t address, char *name,
                                  size_t size)
{
  Dl_info info;
  memset(&info, 0, sizeof info);
  if (!dladdr((void *)(uintptr_t)address, &info) || !info.dli_fname || !info.dli_fbase) {
    snprintf(name, size, "0x%llx", (unsigned long long)address);
    return CNAME_ADDRESS;
  }
  uint64_t base = (uint64_t)(uintptr_t)info.dli_fbase;
  int program = base == program_base();
  const char *path = program ? "/proc/self/exe" : info.dli_fname;
  char symbol[CNAME_NAME_MAX + 1];
  enum elf_symbols_table table =
    coll_elf_symbols_find(path, base, address, s->debug_dir, symbol, sizeof symbol);
  if (table == ELF_SYMBOLS_NONE && info.dli_sname && *info.dli_sname &&
      (uint64_t)(uintptr_t)info.dli_saddr == address) {
    snprintf(symbol, sizeof symbol, "%s", info.dli_sname);   /* a file that cannot be read */
    table = ELF_SYMBOLS_DYNSYM;
  }
  /* The host program's functions read "[C] ...": the frame that runs the
   * Lua code is the host's, never a raw address of it. */
  if (table != ELF_SYMBOLS_NONE)
    snprintf(name, size, program ? "[C] %s" : "%s", symbol);
  else if (program)
    snprintf(name, size, "[C] %s", file_name(info.dli_fname));
  else
    snprintf(name, size, "%s+0x%llx", file_name(info.dli_fname),
             (unsigned long long)(address - base));
  switch (table) {
  case ELF_SYMBOLS_SYMTAB:
    return CNAME_SYMTAB;
  case ELF_SYMBOLS_DYNSYM:
    return CNAME_DYNSYM;
  case ELF_SYMBOLS_DEBUG_FILE:
    return CNAME_DEBUG_FILE;
  default:
    return program ? CNAME_PROGRAM : CNAME_OFFSET;
  }
}

/* Fills r's library (dladdr) if not yet known. */
static void find_library(struct cname_state *s, struct cname_record *r, uint64_t address)
{
  if (r->library != CNAME_NO_LIBRARY)
    return;
  Dl_info info;
  memset(&info, 0, sizeof info);
  const char *library = "";
  if (dladdr((void *)(uintptr_t)address, &info) && info.dli_fname)
    library = file_name(info.dli_fname);
  size_t length = strnlen(library, 255);
  int64_t at = arena_put(s, library, length);
  if (at >= 0) {
    r->library = (uint32_t)at;
    r->library_length = (uint16_t)length;
  }
}

static void fill(const struct cname_state *s, const struct cname_record *r,
                 struct cname_entry *entry)
{
  entry->name = s->arena + r->name;
  entry->name_length = r->name_length;
  entry->library = r->library == CNAME_NO_LIBRARY ? "" : s->arena + r->library;
  entry->library_length = r->library == CNAME_NO_LIBRARY ? 0 : r->library_length;
  entry->origin = (enum cname_origin)r->origin;
  entry->indexed = r->indexed;
}

void coll_cname_lookup(struct cname_state *s, global_State *g, uint64_t address,
                       struct cname_entry *entry, char *scratch, size_t size)
{
  for (size_t i = 0; i < CNAME_HOST_NAMES && cname_host[i].address; i++) {
    if (cname_host[i].address == address) {
      *entry = (struct cname_entry){cname_host[i].name, strlen(cname_host[i].name), "", 0,
                                    CNAME_HOST, 1};
      return;
    }
  }
  struct cname_record *r = s->records ? record_find(s, address) : NULL;
  if (!r && s->records && g) {
    /* A function not seen yet: a module loaded since the last walk may
     * hold it. Each address costs one walk at most (it is named below). */
    coll_cname_walk(s, g);
    r = record_find(s, address);
  }
  if (!r && s->records) {
    char name[CNAME_NAME_MAX + 64];
    enum cname_origin origin = fallback(s, address, name, sizeof name);
    r = record_add(s, address, name, strlen(name), origin, 0);  /* no walk replaces it */
  }
  if (r) {
    find_library(s, r, address);
    fill(s, r, entry);
    return;
  }
  enum cname_origin origin = fallback(s, address, scratch, size);
  *entry = (struct cname_entry){scratch, strlen(scratch), "", 0, origin, 1};
}

void coll_cname_set_indexed(struct cname_state *s, uint64_t address)
{
  struct cname_record *r = s->records ? record_find(s, address) : NULL;
  if (r)
    r->indexed = 1;
}

void coll_cname_name(struct cname_state *s, global_State *g, uint64_t address, struct cname_entry *entry,
                     char *scratch, size_t size)
{
  const char *vm = coll_attrib_vm_name(address);
  if (vm) {   /* one of the VM's own sites: a pseudo address, named by attrib.c, never indexed */
    *entry = (struct cname_entry){vm, strlen(vm), "", 0, CNAME_VM, 1};
    return;
  }
  coll_cname_lookup(s, g, address, entry, scratch, size);
}
