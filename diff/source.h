/* diff/source.h: a capture as diff reads it (struct diff_source): its segments in order (from an index, a directory or a file list), its boundaries, and the pieces they cut the segments into. */
#ifndef LJLEAK_DIFF_SOURCE_H
#define LJLEAK_DIFF_SOURCE_H

#include <stddef.h>
#include <stdint.h>

#include "diff/diff.h"
#include "format/capture_files.h"
#include "format/capture_index.h"
#include "format/input_file.h"

#define DIFF_SOURCE_NO_BOUNDARY SIZE_MAX
#define DIFF_SOURCE_UNKNOWN UINT64_MAX  /* an event count the index does not give */
/* Boundary lines beyond this many are thinned before reading (source.c). */
#define DIFF_SOURCE_MAX_BOUNDARIES 512

struct diff_source_segment {
  char *path;
  uint64_t file_bytes;        /* size on disk, for progress */
  double end_time;            /* from the index; 0 if unknown */
  uint64_t gc_cycles, heap_bytes;
  uint64_t young_from;        /* events before the final GC cycle started; UINT64_MAX if unknown */
  int listed;                 /* described by an index line */
  enum input_file_how how;    /* INPUT_FILE_FOUND: a file of a capture directory (what is there
                               * is its owner's choice); NAMED: named on the command line */
  int partial;                /* a .part file: the segment being written when the process stopped */
  int cut_short;              /* ended on no GC cycle (complete=0, or a .part): its end is no boundary */
  uint64_t seq;               /* its segment line's seq; a .part takes the one after the last listed */
  uint64_t events;            /* events by its segment line, or DIFF_SOURCE_UNKNOWN */
  size_t first_piece, piece_count;  /* its pieces in capture->pieces, in stream order */
};

/* A boundary line of the index, placed in a segment's stream. */
struct diff_source_boundary {
  size_t segment;             /* in capture->segments */
  uint64_t events;            /* events of that segment before it */
  uint64_t young_from;        /* events of that segment before its GC cycle started, or UINT64_MAX */
  double time;
  uint64_t gc_cycles, heap_bytes, allocated;
  unsigned keys;              /* CAPTURE_INDEX_BOUNDARY_HAS_* (format/capture_index.h): what the line gave */
  int forced;                 /* its cause was a cycle the collector forced */
  size_t offset;              /* of its line in the index */
  size_t line;                /* its line's place among the index's boundary lines */
  int keep;                   /* a heap snapshot's: the reading keeps its blocks (diff/aggregate.h) */
};

/* A piece of a segment's stream, read after the one before it from the same
 * open stream and merged in order: the whole stream when the index has no
 * boundary lines, else the events from one boundary line to the next (or to
 * the stream's end). */
struct diff_source_piece {
  size_t segment;             /* in capture->segments */
  uint64_t start;             /* its first event's index in the segment's stream */
  uint64_t limit;             /* events to read; UINT64_MAX: up to the stream's end */
  uint64_t young_from;        /* blocks born at or after this event of the piece (0-based) and
                                 live at its end are young; UINT64_MAX: none */
  int boundary_end;           /* its end is a boundary */
  size_t boundary;            /* the boundary line it ends at (capture->boundaries), or DIFF_SOURCE_NO_BOUNDARY */
};

/* A C function the streams name, and the object that holds it. */
struct diff_source_c_function {
  char *name;
  char *library;
};

struct diff_source {
  struct diff_source_segment *segments;
  size_t count;
  uint64_t total_bytes;
  struct diff_capture info;   /* the metadata, without boundaries or events yet */
  char *index_path;           /* the index read, for messages about its lines; NULL if none */
  /* The index's boundary lines, in order. When there are any, they are the
   * capture's boundaries and no segment's end is one. */
  struct diff_source_boundary *boundaries;
  size_t boundary_count;
  size_t boundaries_thinned;     /* boundary lines before thinning, or 0 if none were left out */
  struct diff_source_piece *pieces;  /* every segment's pieces, in merge order */
  size_t piece_count;
  /* The index's c_function lines: each C function's library, by name. */
  struct diff_source_c_function *c_functions;
  size_t c_function_count;
  /* Boundary lines that point at a segment the capture does not have (the
   * one a killed process was finishing): dropped, with this warning; or NULL. */
  char *dropped_warning;
  /* A capture that stopped on a write error: its warning; or NULL. */
  char *stop_warning;
  int keep_blocks;               /* a reading keeps the blocks of the boundaries marked keep */
  /* A directory's files, its index and its heap snapshots, read once (format/capture_files.h);
   * zeroed for segment files given one by one. */
  struct capture_files files;
};

/* Lists the segments of paths: one directory, or segment files in order;
 * places the index's boundary lines in them and cuts them into pieces.
 * Returns FORMAT_OK, or an error with a message (a boundary line that points
 * at no segment, past its segment's events or before the boundary before
 * it: "DIR/index: byte N: boundary line: ..."). */
enum format_status diff_source_open(struct diff_source *capture, const char *const *paths, size_t count,
                                    struct format_error *err);

/* Keeps only the boundary lines of cycles the collector forced and cuts the
 * pieces again; a capture without boundary lines is left as it is. 0, or -1
 * when out of memory. */
int diff_source_keep_forced(struct diff_source *capture);

/* Where the heap snapshot files.snapshots[i] lies among the capture's boundaries: its index,
 * DIFF_SOURCE_AT_END for the exit boundary (after the last one), or DIFF_SOURCE_NOWHERE (its
 * boundary line is missing, was thinned out or left out by --forced-only). */
#define DIFF_SOURCE_AT_END SIZE_MAX
#define DIFF_SOURCE_NOWHERE (SIZE_MAX - 1)
size_t diff_source_snapshot_at(const struct diff_source *capture, size_t i);

void diff_source_release(struct diff_source *capture);

#endif
