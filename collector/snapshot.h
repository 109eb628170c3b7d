/* collector/snapshot.h: heap snapshots: the walk of every live GC object and reference at a boundary, written beside the segment (docs/snapshot-format.md). */
#ifndef LJLEAK_COLLECTOR_SNAPSHOT_H
#define LJLEAK_COLLECTOR_SNAPSHOT_H

#include <stdint.h>

#include "collector/lj_private.h"
#include "collector/ljleak_collector.h"
#include "collector/capture_dir.h"
#include "format/snapshot.h"


#define COLL_SNAPSHOT_BUFFER_SIZE (256 * 1024)  /* each of the writer's two chunk buffers */

/* What to take: where, and what the snapshot says of its capture and of the boundary it is at
 * (the sequencer, boundary.c, fills it from the capture's state). */
struct coll_snapshot_request {
  const struct coll_capture_dir *dir;
  void *gg;                     /* the GG_State: the main thread's object stands for it */
  double start_wall;            /* the capture's start, which names it with the pid */
  uint64_t boundary, segment, events;
  /* A main chunk's frame held after its return (ljleak_collector_frame_hold): its slots are
   * named as the chunk's locals. held_proto NULL: none. */
  const GCproto *held_proto;
  long held_base, held_end;
  int values;                   /* the values option: snap-NNNN.values beside it */
};

/* What the last snapshot of a capture cost and wrote (status, the index, make bench). */
struct coll_snapshot_result {
  uint64_t objects, references, object_bytes, file_bytes;
  uint64_t pause_ns;            /* the walk and the write, the program stopped */
};

/* Walks L's VM and writes snap-NNNN.heap for rq's boundary (and its values sidecar if asked),
 * its file name into name. Runs where a boundary was taken (after coll_boundary_collect, outside the
 * hook: the VM is between instructions); allocates nothing on the Lua heap, runs no Lua, changes
 * no GC state. The index line is the caller's. 0, or -1 with a message in err. */
int coll_snapshot_take(const struct coll_snapshot_request *rq, lua_State *L, char *name, size_t name_size,
                       struct coll_snapshot_result *result, char *err, size_t err_size);

#endif
