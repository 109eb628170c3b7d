/* format/capture_layout.h: the names of a capture directory's files (docs/index-format.md): the
 * index, the segments, the one being written, each segment's stack sidecar, and heap snapshots. The one home of
 * these names, for the collector that writes them and every reader that finds them. */
#ifndef LJLEAK_FORMAT_CAPTURE_LAYOUT_H
#define LJLEAK_FORMAT_CAPTURE_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

/* The index's name in the directory. */
#define CAPTURE_LAYOUT_INDEX "index"
/* What a file being written ends in; renamed without it when finished. */
#define CAPTURE_LAYOUT_PART ".part"
/* Room for any name capture_layout_* writes (seq up to UINT64_MAX). */
#define CAPTURE_LAYOUT_NAME_MAX 64

/* What a name in a capture directory is. */
enum capture_layout_kind {
  CAPTURE_LAYOUT_OTHER,
  CAPTURE_LAYOUT_SEGMENT,     /* seg-NNNN.memprof[.gz]; from other tools, any *.memprof, *.bin
                                 (Tarantool's default) or *.gz */
  CAPTURE_LAYOUT_SEGMENT_PART, /* a segment being written: *.part that is not a sidecar */
  CAPTURE_LAYOUT_SIDECAR,     /* a stack sidecar: *.stacks[.gz][.part], read with its segment */
  CAPTURE_LAYOUT_SNAPSHOT,    /* a heap snapshot: *.heap[.part] (docs/snapshot-format.md) */
  CAPTURE_LAYOUT_VALUES       /* a heap snapshot's values sidecar: *.values[.part], written only
                                 with the values option (docs/snapshot-format.md, "Values") */
};

/* The collector's name of segment seq: seg-NNNN.memprof, or .memprof.gz with gzip. Its length,
 * or 0 if it does not fit in size. */
size_t capture_layout_segment_name(uint64_t seq, int gzip, char *out, size_t size);

/* name with CAPTURE_LAYOUT_PART appended. Its length, or 0 if it does not fit. */
size_t capture_layout_part_name(const char *name, char *out, size_t size);

/* The stack sidecar beside a segment: seg-0001.memprof.gz.part gives seg-0001.stacks.gz.part
 * (a path works as a name: only the end changes). Its length, or 0 if the name is no
 * *.memprof[.gz][.part] or the result does not fit. */
size_t capture_layout_sidecar_name(const char *segment, char *out, size_t size);

/* The heap snapshot taken at boundary seq: snap-NNNN.heap. Its length, or 0 if it does not fit. */
size_t capture_layout_snapshot_name(uint64_t seq, char *out, size_t size);

/* The values sidecar beside a heap snapshot: snap-0001.heap[.part] gives snap-0001.values[.part]
 * (a path works as a name: only the end changes). Its length, or 0 if the name is no
 * *.heap[.part] or the result does not fit. */
size_t capture_layout_values_name(const char *snapshot, char *out, size_t size);

/* What the file name is (no directory part), by its ending. */
enum capture_layout_kind capture_layout_classify(const char *name);

/* The directory of path ("." for a name alone, "/" for a file at the root) into out. Its
 * length, or 0 if it does not fit. */
size_t capture_layout_directory_of(const char *path, char *out, size_t size);

/* DIR/NAME into out (one '/' between them, none added after a DIR ending in '/'). Its length, or
 * 0 if it does not fit. */
size_t capture_layout_join(const char *dir, const char *name, char *out, size_t size);

#endif
