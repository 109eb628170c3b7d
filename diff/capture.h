/* diff/capture.h: what a capture is made of: its segments in order, from an index, a directory or a file list. */
#ifndef LJLEAK_DIFF_CAPTURE_H
#define LJLEAK_DIFF_CAPTURE_H

#include <stddef.h>
#include <stdint.h>

#include "diff/diff.h"

struct capture_segment {
  char *path;
  uint64_t file_bytes;        /* size on disk, for progress */
  double end_time;            /* from the index; 0 if unknown */
  uint64_t gc_cycles, heap_bytes;
  uint64_t young_from;        /* events before the final GC cycle started; UINT64_MAX if unknown */
  int listed;                 /* described by an index line */
  int partial;                /* a .part file: the segment being written when the process stopped */
  int cut_short;              /* ended on no GC cycle (complete=0, or a .part): its end is no boundary */
};

struct capture {
  struct capture_segment *segments;
  size_t count;
  uint64_t total_bytes;
  struct diff_capture info;   /* the metadata, without boundaries or events yet */
};

/* Lists the segments of paths: one directory, or segment files in order.
 * Returns DIFF_OK, or an error with a message. */
enum diff_status capture_open(struct capture *capture, const char *const *paths, size_t count,
                              struct diff_error *err);

void capture_release(struct capture *capture);

#endif
