/* collector/snapshot.h: heap snapshots: the walk of every live GC object and reference at a boundary, written beside the segment (docs/snapshot-format.md). */
#ifndef LJLEAK_COLLECTOR_SNAPSHOT_H
#define LJLEAK_COLLECTOR_SNAPSHOT_H

#include <stdint.h>

#include "collector/addr_map.h"
#include "collector/lj_private.h"
#include "collector/ljleak_collector.h"
#include "collector/seg_out.h"
#include "collector/snapshot_values.h"
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

/* The snapshots of the middle of a run (the snapshots option, N): the run's length is not known
 * while it runs, so a candidate is taken at the first boundary after the bytes allocated pass
 * 1 MiB, 2 MiB, 4 MiB, ... and the N + 1 newest are kept (older files removed, their index lines
 * followed by a dropped line). When the capture stops, one more goes: the newest when it lies in
 * the last quarter of the run's allocation, else the oldest; so the N kept lie between a quarter
 * and three quarters of the run's work, the newest nearest its middle. A candidate is taken at a
 * safe point: a count hook (lua_sethook) runs at the next instruction the interpreter executes,
 * gives the program its own hook back, forces a full cycle there (cause "snapshot") and walks. */
#define SNAPSHOT_SCHEDULE_FIRST (1u << 20)  /* bytes allocated at the first candidate */

struct snapshot_candidate {
  char file[32];
  uint64_t boundary;
  uint64_t allocated;
};

struct snapshot_schedule {
  uint64_t next_at;             /* allocated bytes at which the next candidate is due */
  int armed;                    /* the count hook is set: the program's hook is saved below */
  int middle;                   /* the snapshot being taken is a candidate */
  lua_Hook saved_hook;
  int saved_mask, saved_count;
  struct snapshot_candidate kept[LJLEAK_COLLECTOR_MAX_SNAPSHOTS + 1];
  uint32_t kept_count;
};

/* At each boundary (in the hook too): arms the safe point when a candidate is due. */
void snapshot_schedule_boundary(struct capture *c);

/* After a snapshot was written (file, at the last boundary): a candidate is listed, and the
 * oldest dropped past N + 1. */
void snapshot_schedule_written(struct capture *c, const char *file);

/* The capture stops: the hook is given back and the candidates come down to N. */
void snapshot_schedule_stop(struct capture *c);

/* Walks L's VM and writes snap-NNNN.heap for the boundary just recorded (c->boundaries), then its
 * index line. Runs where a boundary was taken (after boundary_collect, outside the hook: the VM
 * is between instructions); allocates nothing on the Lua heap, runs no Lua, changes no GC state.
 * 0, or -1 with c->error's kind of message in err. */
int snapshot_take(struct capture *c, lua_State *L, struct snapshot_result *result, char *err,
                  size_t err_size);

#endif
