/* collector/cname.h: the names of C functions: the Lua names code calls them by (a walk of the VM's tables), else their ELF symbol, else object+0xOFFSET. */
#ifndef LJLEAK_COLLECTOR_CNAME_H
#define LJLEAK_COLLECTOR_CNAME_H

#include <stddef.h>
#include <stdint.h>

#include "collector/addr_map.h"
#include "collector/lj_private.h"

/* Where a C function's name came from, best first. */
enum cname_origin {
  CNAME_LUA,                 /* a Lua name: "cjson.decode", "string.format" */
  CNAME_HOST,                /* the name its host gave it (ljleak_collector_name_function) */
  CNAME_SYMTAB,              /* its library's .symtab */
  CNAME_DYNSYM,              /* its library's .dynsym */
  CNAME_DEBUG_FILE,          /* the .symtab of its library's debug file (build-id) */
  CNAME_PROGRAM,             /* the host program, no symbol: "[C] nginx" */
  CNAME_OFFSET,              /* "cjson.so+0x3cc0" */
  CNAME_ADDRESS,             /* "0x7f0012345678": in no object dladdr knows */
  CNAME_VM                   /* one of the VM's own sites: "VM: string table" (attrib.h) */
};

/* The origin's word in the index: lua, host, symtab, dynsym, debug-file,
 * program, offset, address. */
const char *coll_cname_origin_name(enum cname_origin origin);

/* A C function's name, in the state's memory (valid until coll_cname_free). */
struct cname_entry {
  const char *name;
  size_t name_length;
  const char *library;       /* the object's file name without its directory; "" if none */
  size_t library_length;
  enum cname_origin origin;
  int indexed;               /* the index has its c_function line (segments.c) */
};

/* What the collector knows of C function names during one capture. Memory
 * from mmap, never the Lua allocator. */
struct cname_state {
  struct addr_map names;     /* function address -> record index + 1 */
  struct cname_record *records;
  uint32_t record_count;
  char *arena;               /* the names' and libraries' text */
  size_t arena_used;
  uint32_t walk;             /* walks made; a record's walk is the one that named it */
  const void *skip;          /* the block the running allocator call freed or resized */
  uint64_t walk_ns;          /* time spent walking (status, bench) */
  char debug_dir[256];       /* where separate debug files are looked for */
};

/* Maps the state's memory and forgets every name. 0, or -1 (errno). */
int coll_cname_begin(struct cname_state *s);

/* Unmaps it. */
void coll_cname_free(struct cname_state *s);

/* Walks the VM of g for the Lua names of its C functions: the fields of the
 * package.loaded modules and of the tables in them, the globals and the
 * fields of the tables among them, the fields of the string metatable's
 * __index (named "string.K"), the fields of the registry's tables
 * (metatables: "lpeg-pattern.__mul"); array parts as "T[N]"
 * (package.loaders[2]). A function reachable under several names gets
 * the best (cname.c says the rule); a name given by an earlier walk is
 * kept. Reads only private state, skips any table whose parts are s->skip,
 * never allocates through the VM. Returns the C functions it named. */
uint32_t coll_cname_walk(struct cname_state *s, global_State *g);

/* The name of the C function at address, learnt the first time it is
 * asked: a walk (if no walk has named it since it was last asked), then the
 * fallbacks. Never fails: out of memory, it names the address into the
 * caller's scratch (size bytes) and leaves it unknown. */
void coll_cname_lookup(struct cname_state *s, global_State *g, uint64_t address,
                       struct cname_entry *entry, char *scratch, size_t size);

/* Marks the entry of address as written to the index. */
void coll_cname_set_indexed(struct cname_state *s, uint64_t address);

/* A name the host gives one of its C functions (ljleak_collector_name_function). */
int coll_cname_register(uint64_t address, const char *name);

/* The name of the C function at address as sites and stacks show it: one of the VM's own sites
 * (attrib.h) by its name, else what coll_cname_lookup finds. */
void coll_cname_name(struct cname_state *s, global_State *g, uint64_t address, struct cname_entry *entry,
                     char *scratch, size_t size);

#endif
