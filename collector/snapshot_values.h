/* collector/snapshot_values.h: the values option: beside each heap snapshot, the first bytes of every live string and the first keys of every table (docs/snapshot-format.md, "Values"). */
#ifndef LJLEAK_COLLECTOR_SNAPSHOT_VALUES_H
#define LJLEAK_COLLECTOR_SNAPSHOT_VALUES_H

#include <stddef.h>
#include <stdint.h>

#include "collector/lj_private.h"

#include "collector/capture_dir.h"

/* Writes the values sidecar (snap-NNNN.values) of the heap
 * snapshot just written as name in dir, at boundary (of the capture started at start_wall), and removes the sidecars of
 * snapshots dropped since the last one. Runs where the snapshot's walk runs (between two
 * instructions, right after a full cycle); allocates nothing on the Lua heap, runs no Lua,
 * changes no GC state. The file is created as the snapshot is (.part, O_EXCL|O_NOFOLLOW on the
 * capture directory's handle, mode 0600) and renamed when complete. 0, or -1 with a message
 * in err. */
int coll_snapshot_values_take(const struct coll_capture_dir *dir, double start_wall, uint64_t boundary,
                              lua_State *L, const char *name, char *err, size_t err_size);

/* Removes every values sidecar of the capture directory dir whose heap snapshot is gone (a
 * candidate of the middle of the run that a later one replaced): values can be secrets, and
 * none stays on disk without its snapshot. The capture calls it as it stops. */
void coll_snapshot_values_prune(const struct coll_capture_dir *dir);

#endif
