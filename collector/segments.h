/* collector/segments.h: the capture's segment files, their rotation, and the lines of its index. */
#ifndef LJLEAK_COLLECTOR_SEGMENTS_H
#define LJLEAK_COLLECTOR_SEGMENTS_H

#include "collector/state.h"

/* Opens the next segment (NAME.part) and writes its stream's header. 0 or
 * -1 (the error recorded in c->error). */
int coll_segments_begin(struct coll_capture *c);

/* Ends the open segment: epilogue, flush, close, rename, index line (a finished segment the
 * index does not list keeps its .part name). complete: it ends right after a full GC cycle. 0
 * or -1. */
int coll_segments_end(struct coll_capture *c, int complete);

/* Ends the open segment and opens the next (complete: right after a full
 * GC cycle; else where its period or size fell due). A cycle forced
 * meanwhile stays armed. A stop is due if either fails. */
void coll_segments_rotate(struct coll_capture *c, int complete);

/* Records a write error on the open segment (the first one only) and says
 * so on stderr. */
void coll_segments_write_error(struct coll_capture *c, const char *what, int err);

/* Says on stderr that the capture stopped, and why (c->error). */
void coll_segments_say_stop(const struct coll_capture *c);

/* Writes the index's held boundary lines (collector/index.h): 0, or -1 with the error said. */
int coll_segments_index_flush(struct coll_capture *c);

/* Creates the index in c->dir.path and writes its header and capture lines. 0,
 * or -1 with err (no index is left open). */
int coll_segments_index_open(struct coll_capture *c, char *err, size_t err_size);

/* Appends a boundary line: the state right after a full GC cycle, at the
 * open segment's current event, for cause. 0 or -1 (the error recorded). */
int coll_segments_index_boundary(struct coll_capture *c, enum capture_index_boundary_cause cause);

struct coll_snapshot_result;
/* Appends a snapshot line for file, taken at the last boundary. 0 or -1 (the error recorded). */
int coll_segments_index_snapshot(struct coll_capture *c, const char *file, const struct coll_snapshot_result *result);

/* Appends the stop line and closes the index. */
void coll_segments_index_close(struct coll_capture *c, enum capture_index_stop_reason reason);

#endif
