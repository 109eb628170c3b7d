/* diff/holders_snapshots.h: what the holders' step and the growing containers' share: reading a capture's snapshot, and the blocks live at a boundary read again (diff/holders.c). */
#ifndef LJLEAK_DIFF_HOLDERS_SNAPSHOTS_H
#define LJLEAK_DIFF_HOLDERS_SNAPSHOTS_H

#include <stddef.h>

#include "diff/aggregate.h"
#include "diff/diff.h"
#include "diff/source.h"
#include "format/snapshot.h"

struct diff_holders;            /* diff/holders.h: the holders' step, which implements these */
struct diff_holders_snapshot;

/* options->warn's message, if it has one. */
void holders_warn(const struct diff_options *options, const char *message);

/* The capture read again up to its boundary at (every block live there, none after), into
 * aggregate: for a boundary the first reading did not keep. */
enum format_status holders_replay(struct diff_source *capture, size_t at, struct diff_aggregate *aggregate,
                                  const struct diff_options *options, struct format_error *err);

/* Reads entry's snapshot, refused (with a warning: no WHAT from it) when it is unreadable or
 * another capture's; a cut one is read, with a warning when warn_cut. 0 read, 1 refused, -1
 * out of memory. */
int holders_read(const struct diff_holders *holders, const struct diff_holders_snapshot *entry,
                 struct snapshot *snapshot, const char *what, int warn_cut, const struct diff_options *options);

#endif
