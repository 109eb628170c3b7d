/* collector/snapshot.h: heap snapshots: the walk of every live GC object and reference at a boundary, written beside the segment (docs/snapshot-format.md). */
#ifndef LJLEAK_COLLECTOR_SNAPSHOT_H
#define LJLEAK_COLLECTOR_SNAPSHOT_H

#include <stdint.h>

#include "collector/addr_map.h"
#include "collector/lj_private.h"
#include "collector/seg_out.h"
#include "format/snapshot.h"

struct capture;

#define SNAPSHOT_BUFFER_SIZE (256 * 1024)  /* each of the writer's two chunk buffers */

/* A walk in progress. Its memory comes from mmap, never from the Lua allocator. */
struct snapshot_walk {
  struct capture *capture;
  global_State *g;
  uint8_t *buffer;              /* 2 * SNAPSHOT_BUFFER_SIZE, mmap'd */
  struct snapshot_writer writer;
  struct seg_out out;
  struct addr_map key_ids;      /* a string key (GCstr address) -> its label's string id */
  struct addr_map text_ids;     /* a label text's hash -> its string id */
  int failed;
};

/* What the last snapshot of a capture cost and wrote (status, the index, make bench). */
struct snapshot_result {
  uint64_t objects, references, object_bytes, file_bytes;
  uint64_t pause_ns;            /* the walk and the write, the program stopped */
};

/* Walks L's VM and writes snap-NNNN.heap for the boundary just recorded (c->boundaries), then its
 * index line. Runs where a boundary was taken (after boundary_collect, outside the hook: the VM
 * is between instructions); allocates nothing on the Lua heap, runs no Lua, changes no GC state.
 * 0, or -1 with c->error's kind of message in err. */
int snapshot_take(struct capture *c, lua_State *L, struct snapshot_result *result, char *err,
                  size_t err_size);

#endif
