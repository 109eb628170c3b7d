/* format/capture_files.h: a capture directory read once (docs/index-format.md): from one handle on the directory, its index, its segments in order, the segment being written, and its heap snapshots with their values sidecars and the boundary lines they belong to. Every reader of a capture (diff, its holders and values, info, snapshot) takes them from here, so no two of them read a capture differently. */
#ifndef LJLEAK_FORMAT_CAPTURE_FILES_H
#define LJLEAK_FORMAT_CAPTURE_FILES_H

#include <stddef.h>

#include "format/capture_index.h"

#define CAPTURE_FILES_NONE ((size_t)-1)

/* A heap snapshot the index lists whose file is a name in the directory. */
struct capture_files_snapshot {
  const struct capture_index_snapshot *line;  /* its line in the index */
  char *path;                 /* DIR/snap-NNNN.heap */
  char *values_path;          /* DIR/snap-NNNN.values when the directory has it, else NULL */
  size_t boundary;            /* the index's boundary line of its boundary (index.boundaries),
                                 or CAPTURE_FILES_NONE when no line has its seq */
};

struct capture_files {
  char *directory;            /* as given */
  int has_index;              /* 0: the directory has no readable index (segments by name) */
  struct format_error index_error;  /* !has_index: why ("DIR/index: cannot open: ..."); else FORMAT_OK */
  char *index_path;           /* DIR/index, for messages about its lines */
  struct capture_index index; /* when has_index */
  char **segments;            /* paths: the index's segments in its order (files in the
                                 directory, no others), else the directory's segment files by name */
  size_t segment_count;
  const struct capture_index_segment **segment_lines;  /* with an index: each path's line in it */
  char **parts;               /* paths of the segments being written (*.part), by name; first,
                               * with an index, the segment after the last listed one when it is
                               * finished but not listed (stopped before its line was written) */
  size_t part_count;
  struct capture_files_snapshot *snapshots;  /* in the index's order (oldest first) */
  size_t snapshot_count;
};

/* Reads the capture directory at directory into *files (release it with capture_files_free,
 * whatever the status). A missing index is no index; one that is not an index is an error
 * (FORMAT_BAD_INPUT, "DIR/index: byte N: ..."), and so is one there that cannot be read, or is
 * no regular file (FORMAT_IO, "DIR/index: not a regular file (a FIFO): refused"), as are a
 * directory that cannot be opened or listed ("DIR: cannot list the directory: ..."). Every
 * file found here is read as INPUT_FILE_FOUND (format/input_file.h). */
enum format_status capture_files_open(struct capture_files *files, const char *directory,
                                      struct format_error *error);

void capture_files_free(struct capture_files *files);

#endif
