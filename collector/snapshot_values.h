/* collector/snapshot_values.h: the values option: beside each heap snapshot, the first bytes of every live string and the first keys of every table (docs/snapshot-format.md, "Values"). */
#ifndef LJLEAK_COLLECTOR_SNAPSHOT_VALUES_H
#define LJLEAK_COLLECTOR_SNAPSHOT_VALUES_H

#include <stddef.h>

#include "collector/lj_private.h"

struct capture;

/* With c->opt.values (else nothing): writes the values sidecar (snap-NNNN.values) of the heap
 * snapshot just written as name, at the boundary just recorded, and removes the sidecars of
 * snapshots dropped since the last one. Runs where the snapshot's walk runs (between two
 * instructions, right after a full cycle); allocates nothing on the Lua heap, runs no Lua,
 * changes no GC state. The file is created as the snapshot is (.part, O_EXCL|O_NOFOLLOW on the
 * capture directory's handle, mode 0600) and renamed when complete. 0, or -1 with c->error's
 * kind of message in err. */
int snapshot_values_take(struct capture *c, lua_State *L, const char *name, char *err, size_t err_size);

/* Removes every values sidecar of the capture directory whose heap snapshot is gone (a
 * candidate of the middle of the run that a later one replaced): values can be secrets, and
 * none stays on disk without its snapshot. The capture calls it as it stops. */
void snapshot_values_prune(struct capture *c);

#endif
