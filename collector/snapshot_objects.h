/* collector/snapshot_objects.h: a heap snapshot's objects: the walk's state, each live GC object with its blocks and references, and the labels they carry (snapshot.c adds the roots and the VM's own blocks). */
#ifndef LJLEAK_COLLECTOR_SNAPSHOT_OBJECTS_H
#define LJLEAK_COLLECTOR_SNAPSHOT_OBJECTS_H

#include <stdint.h>

#include "collector/addr_map.h"
#include "collector/lj_private.h"
#include "collector/seg_out.h"
#include "format/snapshot.h"

/* A walk in progress. Its memory comes from mmap, never from the Lua allocator. */
struct coll_snapshot_walk {
  global_State *g;
  void *gg;                     /* the GG_State: the main thread's object stands for it */
  /* A main chunk's frame held after its return: its slots are named as the chunk's locals.
   * held_proto NULL: none. */
  const GCproto *held_proto;
  long held_base, held_end;
  uint8_t *buffer;              /* 2 * COLL_SNAPSHOT_BUFFER_SIZE, mmap'd */
  struct snapshot_writer writer;
  struct seg_out out;
  struct addr_map key_ids;      /* a string key (GCstr address) -> its label's string id */
  struct addr_map text_ids;     /* a label text's hash -> its string id */
  int failed;
};

/* The string id of a label text, written the first time it is seen (failed set if it cannot
 * be). */
uint32_t coll_snapshot_text_id(struct coll_snapshot_walk *w, const char *text, size_t length);
uint32_t coll_snapshot_text_idf(struct coll_snapshot_walk *w, const char *format, ...)
  __attribute__((format(printf, 2, 3)));

/* One object record: its type, flags, address, size, count, label and parts. */
void coll_snapshot_object(struct coll_snapshot_walk *w, enum snapshot_type type, unsigned flags,
                          const void *address, uint64_t size, uint64_t count, uint32_t name,
                          const struct snapshot_block *blocks, uint32_t block_count);

/* A GC object of the VM's lists with its references (o any type; strings have none). */
void coll_snapshot_walk_object(struct coll_snapshot_walk *w, GCobj *o);
/* A thread: its stack's slots by frame, named by the frames' locals. */
void coll_snapshot_walk_thread(struct coll_snapshot_walk *w, lua_State *th);
/* An upvalue, open (on the ring of open upvalues, on no list of the GC's) or closed. */
void coll_snapshot_walk_upvalue(struct coll_snapshot_walk *w, GCupval *uv);

#endif
