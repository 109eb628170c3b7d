/* diff/source.c: lists a capture's segments (from its index, format/capture_index.h, or its segment files), places its boundary lines, cuts the segments into pieces. */
#include "diff/source.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "container/array.h"
#include "format/capture_index.h"
#include "format/capture_layout.h"

static char *source_strdup(const char *text)
{
  size_t length = strlen(text);
  char *copy = malloc(length + 1);
  if (copy)
    memcpy(copy, text, length + 1);
  return copy;
}

/* The LuaJIT as reports name it: the running VM's version and, from newer
 * indexes, the package the collector was built for, e.g.
 * "LuaJIT 2.1.0-beta3 (openresty: libluajit2-5.1-2 2.1-20230119-1)". */
static char *source_luajit_name(const struct capture_index_capture *line)
{
  if (!line->luajit_flavour || !line->luajit_package || !*line->luajit_package)
    return source_strdup(line->luajit);
  const char *version = line->luajit_package_version ? line->luajit_package_version : "";
  size_t size = strlen(line->luajit) + strlen(line->luajit_flavour) + strlen(line->luajit_package) +
                strlen(version) + 8;
  char *name = malloc(size);
  if (name)
    snprintf(name, size, "%s (%s: %s %s)", line->luajit, line->luajit_flavour, line->luajit_package,
             version);
  return name;
}

/* The command as reports name it: the program (exe) first when the
 * command line does not start with it (a rewritten process title, as
 * nginx's "nginx: worker process"), with the parent's pid, e.g.
 * "/usr/sbin/nginx [nginx: worker process] (parent 4200)". */
static char *source_command_name(const struct capture_index_capture *line)
{
  const char *command = line->command ? line->command : "";
  if (!line->exe || !*line->exe)
    return source_strdup(command);
  size_t exe_length = strlen(line->exe);
  int same = !strncmp(command, line->exe, exe_length) &&
             (command[exe_length] == ' ' || command[exe_length] == '\0');
  size_t size = strlen(command) + exe_length + 48;
  char *name = malloc(size);
  if (!name)
    return NULL;
  if (same)
    snprintf(name, size, "%s", command);
  else
    snprintf(name, size, "%s [%s] (parent %ld)", line->exe, command, line->ppid);
  return name;
}

static int source_add(struct diff_source *capture, size_t *capacity, char *path)
{
  if (!path)
    return -1;
  if (array_reserve((void **)&capture->segments, capacity, capture->count + 1, sizeof *capture->segments) != 0) {
    free(path);
    return -1;
  }
  struct diff_source_segment *segment = &capture->segments[capture->count++];
  memset(segment, 0, sizeof *segment);
  segment->path = path;
  segment->young_from = UINT64_MAX;  /* no young_from key: every live block counts */
  segment->events = DIFF_SOURCE_UNKNOWN;
  return 0;
}

/* The warning of a capture that stopped on a write error (a full disk, say): the process ran
 * on, unrecorded, so the evidence ends at the stop. 0, or -1 when out of memory. */
static int source_stop_warning(struct diff_source *capture, const struct capture_index_stop *stop)
{
  if (!stop->reason || strcmp(stop->reason, capture_index_stop_reason_name(CAPTURE_INDEX_REASON_WRITE_ERROR)))
    return 0;
  struct format_error warning;
  format_error_at(&warning, FORMAT_CUT, capture->index_path, stop->offset,
                  "the capture stopped early: the collector could not write (stop reason write-error), "
                  "and the process ran on unrecorded: its verdicts judge only what came before");
  return (capture->stop_warning = source_strdup(warning.message)) ? 0 : -1;
}

/* Lists the segments the index describes, in its order, and takes the
 * capture's metadata from it. 0, or -1 when out of memory. */
static int source_list_index(struct diff_source *capture, size_t *capacity, const struct capture_files *files)
{
  const struct capture_index *index = &files->index;
  struct diff_capture *info = &capture->info;
  const struct capture_index_capture *line = &index->capture;
  info->pid = line->pid;
  info->start_time = line->start;
  info->sample_bytes = line->sample;
  if ((line->host && !(info->host = source_strdup(line->host))) ||
      ((line->command || line->exe) && !(info->command = source_command_name(line))) ||
      (line->luajit && !(info->luajit_version = source_luajit_name(line))) ||
      (line->exe && *line->exe && !(info->exe = source_strdup(line->exe))))
    return -1;
  if (index->c_function_count &&
      !(capture->c_functions = calloc(index->c_function_count, sizeof *capture->c_functions)))
    return -1;
  for (size_t i = 0; i < index->c_function_count; i++) {
    const struct capture_index_c_function *function = &index->c_functions[i];
    struct diff_source_c_function *kept = &capture->c_functions[capture->c_function_count++];
    if (!(kept->name = source_strdup(function->name)) ||
        !(kept->library = source_strdup(function->library)))
      return -1;
  }
  if (index->has_stop) {
    info->stop_time = index->stop.time;
    if (index->stop.reason && *index->stop.reason && !(info->stop_reason = source_strdup(index->stop.reason)))
      return -1;
    if (source_stop_warning(capture, &index->stop) != 0)
      return -1;
  }
  struct capture_index_label label;
  for (const char *at = line->labels; capture_index_labels_next(&at, &label);)
    if (diff_capture_add_label(info, label.key, label.key_length, label.value, label.value_length) != 0)
      return -1;
  for (size_t i = 0; i < files->segment_count; i++) {  /* the index's, in the directory */
    const struct capture_index_segment *listed = files->segment_lines[i];
    if (source_add(capture, capacity, source_strdup(files->segments[i])) < 0)
      return -1;
    struct diff_source_segment *segment = &capture->segments[capture->count - 1];
    segment->listed = 1;
    segment->seq = listed->seq;
    if (listed->keys & CAPTURE_INDEX_SEGMENT_HAS_EVENTS)
      segment->events = listed->events;
    segment->end_time = listed->end;
    segment->gc_cycles = listed->gc_cycles;
    segment->heap_bytes = listed->heap_bytes;
    segment->young_from = listed->young_from;
    /* A segment cut short (stop, exit, write error) did not end on a GC
     * cycle: nothing born in it has survived one yet. */
    if ((listed->keys & CAPTURE_INDEX_SEGMENT_HAS_COMPLETE) && !listed->complete) {
      segment->young_from = 0;
      segment->cut_short = 1;
    }
    if ((listed->keys & CAPTURE_INDEX_SEGMENT_HAS_SAMPLE) && !info->sample_bytes)
      info->sample_bytes = listed->sample;
  }
  return 0;
}

/* An input error at a boundary line of the index. */
static enum format_status source_line_fail(struct format_error *err, const struct diff_source *capture,
                                           size_t offset, const char *format, ...)
  __attribute__((format(printf, 4, 5)));
static enum format_status source_line_fail(struct format_error *err, const struct diff_source *capture,
                                           size_t offset, const char *format, ...)
{
  va_list args;
  va_start(args, format);
  format_error_set_va(err, FORMAT_BAD_INPUT, format, args);
  va_end(args);
  return format_error_at(err, FORMAT_BAD_INPUT, capture->index_path, offset, "boundary line: %s", err->message);
}

/* The segment (from `from` on) whose stream a boundary line points into, or capture->count. */
static size_t source_find_segment(const struct diff_source *capture, size_t from, uint64_t seq)
{
  while (from < capture->count && (seq == 0 || capture->segments[from].seq != seq))
    from++;
  return from;
}

/* The boundary of index line i, in segment s, appended to the capture's. */
static void source_add_boundary(struct diff_source *capture, const struct capture_index_boundary *line,
                                size_t s, size_t i)
{
  capture->boundaries[capture->boundary_count++] = (struct diff_source_boundary){
      .segment = s, .events = line->events, .young_from = line->young_from, .time = line->time,
      .gc_cycles = line->gc_cycles, .heap_bytes = line->heap_bytes, .allocated = line->allocated,
      .keys = line->keys, .forced = capture_index_boundary_cause_forced(line->cause), .offset = line->offset,
      .line = i};
}

/* Places the index's boundary lines in the segments' streams: each in the
 * listed segment (or the .part) its segment key names, at or after the
 * boundary before it. Lines that point past the last listed segment of an
 * index without a stop line, where no stream is (the process was killed
 * while it finished that segment), are dropped with a warning; any other
 * line out of place is an error at its offset. A cycle forced after the
 * program ended (cause exit) is checked but is no boundary: the main
 * chunk's locals were gone, so what they held would show as freed. */
static enum format_status source_place_boundaries(struct diff_source *capture,
                                                  const struct capture_index *index,
                                                  struct format_error *err)
{
  if (!index->boundary_count)
    return FORMAT_OK;
  capture->boundaries = calloc(index->boundary_count, sizeof *capture->boundaries);
  if (!capture->boundaries) {
    format_error_set(err, FORMAT_NO_MEMORY, "%s: out of memory", capture->index_path);
    return err->status;
  }
  uint64_t last_listed = 0, last_seq = 0;
  for (size_t i = 0; i < capture->count; i++)
    if (capture->segments[i].listed)
      last_listed = capture->segments[i].seq;
  size_t at = 0, dropped_from = 0;
  uint64_t at_events = 0;      /* the place of the line before */
  int has_seq = 0, has_place = 0;
  const char *exit_cause = capture_index_boundary_cause_name(CAPTURE_INDEX_CAUSE_EXIT);
  for (size_t i = 0; i < index->boundary_count; i++) {
    const struct capture_index_boundary *line = &index->boundaries[i];
    if (line->keys & CAPTURE_INDEX_BOUNDARY_HAS_SEQ) {
      if (has_seq && line->seq <= last_seq)
        return source_line_fail(err, capture, line->offset, "seq %llu does not follow seq %llu",
                                 (unsigned long long)line->seq, (unsigned long long)last_seq);
      has_seq = 1;
      last_seq = line->seq;
    }
    size_t s = source_find_segment(capture, at, line->segment);
    if (s == capture->count && source_find_segment(capture, 0, line->segment) < at)
      return source_line_fail(err, capture, line->offset,
                               "segment %llu comes before the segment of the boundary before it",
                               (unsigned long long)line->segment);
    if (s == capture->count && !index->has_stop && line->segment > last_listed) {
      dropped_from = i;
      break;
    }
    if (s == capture->count)
      return source_line_fail(err, capture, line->offset, "segment %llu is not in the capture",
                               (unsigned long long)line->segment);
    const struct diff_source_segment *segment = &capture->segments[s];
    if (has_place && at == s && line->events < at_events)
      return source_line_fail(err, capture, line->offset,
                               "event %llu of segment %llu is before the boundary before it (event %llu)",
                               (unsigned long long)line->events, (unsigned long long)line->segment,
                               (unsigned long long)at_events);
    if (segment->events != DIFF_SOURCE_UNKNOWN && line->events > segment->events)
      return source_line_fail(err, capture, line->offset,
                               "event %llu is past the end of segment %llu (%llu events)",
                               (unsigned long long)line->events, (unsigned long long)line->segment,
                               (unsigned long long)segment->events);
    at = s;
    at_events = line->events;
    has_place = 1;
    dropped_from = i + 1;
    if ((line->keys & CAPTURE_INDEX_BOUNDARY_HAS_ALLOCATED) &&
        line->allocated > capture->info.run_allocated)
      capture->info.run_allocated = line->allocated;  /* the run's work, the exit's line too */
    if (line->cause && !strcmp(line->cause, exit_cause))
      continue;
    source_add_boundary(capture, line, s, i);
  }
  if (dropped_from < index->boundary_count) {
    const struct capture_index_boundary *line = &index->boundaries[dropped_from];
    struct format_error warning;  /* kept as a warning: the boundaries before it stand */
    format_error_at(&warning, FORMAT_CUT, capture->index_path, line->offset,
                    "boundary line: segment %llu is not in the capture (the process stopped while it "
                    "finished it): boundaries %zu to %zu are dropped",
                    (unsigned long long)line->segment, capture->boundary_count + 1,
                    capture->boundary_count + index->boundary_count - dropped_from);
    if (!(capture->dropped_warning = source_strdup(warning.message))) {
      format_error_set(err, FORMAT_NO_MEMORY, "%s: out of memory", capture->index_path);
      return err->status;
    }
  }
  return FORMAT_OK;
}

/* Marks in keep, among the boundaries not yet kept whose forced flag is
 * forced, want of them evenly spaced by their order (the first and the last
 * included). */
static size_t source_pick(const struct diff_source *capture, unsigned char *keep, int forced,
                           size_t want)
{
  size_t total = 0;
  for (size_t i = 0; i < capture->boundary_count; i++)
    total += !keep[i] && (capture->boundaries[i].forced != 0) == forced;
  if (want > total)
    want = total;
  size_t seen = 0, next = 0, picked = 0;
  for (size_t i = 0; i < capture->boundary_count && picked < want; i++) {
    if (keep[i] || (capture->boundaries[i].forced != 0) != forced)
      continue;
    /* the j-th pick is the (j (total - 1) / (want - 1))-th of the class */
    size_t target = want == 1 ? total - 1 : next * (total - 1) / (want - 1);
    if (seen++ == target) {
      keep[i] = 1;
      picked++;
      next++;
    }
  }
  return picked;
}

/* At most DIFF_SOURCE_MAX_BOUNDARIES boundaries become points of the series:
 * with one at every GC cycle, a long capture has tens of thousands, and
 * the trend tests (quadratic in the points) and the series (sites x
 * points) would grow with its length, for no more power. The heap
 * snapshots' boundaries are kept first, then the forced ones (exact, and
 * placed by work alike in two builds), evenly spaced if they alone are too
 * many; the program's own fill the rest, evenly spaced. A boundary left out merges the pieces on its two sides:
 * its events count, it adds no point. 0, or -1 when out of memory. */
static int source_thin_boundaries(struct diff_source *capture)
{
  size_t count = capture->boundary_count;
  if (count <= DIFF_SOURCE_MAX_BOUNDARIES)
    return 0;
  unsigned char *keep = calloc(count, 1);
  if (!keep)
    return -1;
  /* A heap snapshot's boundary stays a point: the holders join its objects with the blocks
   * live there (with --every a capture's forced boundaries alone can be thinned). */
  size_t kept = 0;
  for (size_t n = 0; n < capture->files.snapshot_count && kept < DIFF_SOURCE_MAX_BOUNDARIES; n++)
    for (size_t i = 0; i < count; i++)
      if (!keep[i] && capture->files.snapshots[n].boundary != CAPTURE_FILES_NONE &&
          capture->boundaries[i].line == capture->files.snapshots[n].boundary) {
        keep[i] = 1;
        kept++;
      }
  kept += source_pick(capture, keep, 1, DIFF_SOURCE_MAX_BOUNDARIES - kept);
  source_pick(capture, keep, 0, DIFF_SOURCE_MAX_BOUNDARIES - kept);
  size_t out = 0;
  for (size_t i = 0; i < count; i++)
    if (keep[i])
      capture->boundaries[out++] = capture->boundaries[i];
  free(keep);
  capture->boundary_count = out;
  capture->boundaries_thinned = count;
  return 0;
}

/* Cuts every segment into pieces: at its boundary lines, then from the last
 * one to its end; a segment without boundary lines is one piece, whose end
 * is a boundary (when the index has none at all, and it ended on a GC
 * cycle) or not. 0, or -1 when out of memory. */
static int source_cut_pieces(struct diff_source *capture)
{
  capture->pieces = calloc(capture->count + capture->boundary_count, sizeof *capture->pieces);
  if (!capture->pieces)
    return -1;
  size_t b = 0;
  for (size_t i = 0; i < capture->count; i++) {
    struct diff_source_segment *segment = &capture->segments[i];
    segment->first_piece = capture->piece_count;
    uint64_t start = 0;
    for (; b < capture->boundary_count && capture->boundaries[b].segment == i; b++) {
      const struct diff_source_boundary *boundary = &capture->boundaries[b];
      struct diff_source_piece *piece = &capture->pieces[capture->piece_count++];
      piece->segment = i;
      piece->start = start;
      piece->limit = boundary->events - start;
      /* a cycle never starts before the boundary before it: if a line says
       * otherwise, every block born in the piece is young */
      piece->young_from = boundary->young_from == CAPTURE_INDEX_YOUNG_FROM_NONE ? UINT64_MAX
                          : boundary->young_from > start                    ? boundary->young_from - start
                                                                            : 0;
      piece->boundary_end = 1;
      piece->boundary = b;
      start = boundary->events;
    }
    struct diff_source_piece *rest = &capture->pieces[capture->piece_count++];
    rest->segment = i;
    rest->start = start;
    rest->limit = UINT64_MAX;
    rest->boundary = DIFF_SOURCE_NO_BOUNDARY;
    if (capture->boundary_count) {
      rest->young_from = UINT64_MAX;  /* no boundary at its end: nothing is young */
      rest->boundary_end = 0;
    } else {
      rest->young_from = segment->young_from;
      rest->boundary_end = !segment->cut_short;
    }
    segment->piece_count = capture->piece_count - segment->first_piece;
  }
  return 0;
}

static enum format_status source_open_directory(struct diff_source *capture, size_t *capacity,
                                                const char *directory, struct format_error *err)
{
  struct capture_files *files = &capture->files;
  struct format_error files_error;
  enum format_status opened = capture_files_open(files, directory, &files_error);
  if (opened == FORMAT_NO_MEMORY)
    goto out_of_memory;
  if (opened != FORMAT_OK) {
    *err = files_error;
    return err->status;
  }
  if (files->has_index) {
    if (!(capture->index_path = source_strdup(files->index_path)) ||  /* for messages about its lines */
        source_list_index(capture, capacity, files) < 0)
      goto out_of_memory;
  } else {  /* no index to read: the segment files, in name order */
    for (size_t i = 0; i < files->segment_count; i++)
      if (source_add(capture, capacity, source_strdup(files->segments[i])) < 0)
        goto out_of_memory;
  }
  /* A .part is the segment the process was writing when it stopped: the last
   * one, whose seq follows the last listed one (after a segment finished but not
   * listed, which capture_files puts first). */
  uint64_t part_seq = 1;
  for (size_t i = 0; i < capture->count; i++)
    part_seq = capture->segments[i].seq + 1;
  for (size_t i = 0; i < files->part_count; i++) {
    if (source_add(capture, capacity, source_strdup(files->parts[i])) < 0)
      goto out_of_memory;
    struct diff_source_segment *part = &capture->segments[capture->count - 1];
    part->partial = 1;
    part->young_from = 0;  /* it ended on no GC cycle */
    part->cut_short = 1;
    part->seq = part_seq + i;
  }
  for (size_t i = 0; i < capture->count; i++)
    capture->segments[i].how = INPUT_FILE_FOUND;
  return files->has_index ? source_place_boundaries(capture, &files->index, err) : FORMAT_OK;
out_of_memory:
  format_error_set(err, FORMAT_NO_MEMORY, "%s: out of memory", directory);
  return err->status;
}

size_t diff_source_snapshot_at(const struct diff_source *capture, size_t i)
{
  const struct capture_files *files = &capture->files;
  if (i >= files->snapshot_count || files->snapshots[i].boundary == CAPTURE_FILES_NONE)
    return DIFF_SOURCE_NOWHERE;
  size_t k = files->snapshots[i].boundary;
  const char *cause = files->index.boundaries[k].cause;
  if (cause && !strcmp(cause, capture_index_boundary_cause_name(CAPTURE_INDEX_CAUSE_EXIT)))
    return DIFF_SOURCE_AT_END;
  for (size_t c = 0; c < capture->boundary_count; c++)
    if (capture->boundaries[c].line == k)
      return c;
  return DIFF_SOURCE_NOWHERE;
}

int diff_source_keep_forced(struct diff_source *capture)
{
  if (!capture->boundary_count)
    return 0;
  size_t out = 0;
  for (size_t i = 0; i < capture->boundary_count; i++)
    if (capture->boundaries[i].forced)
      capture->boundaries[out++] = capture->boundaries[i];
  capture->boundary_count = out;
  free(capture->pieces);
  capture->pieces = NULL;
  capture->piece_count = 0;
  return source_cut_pieces(capture);
}

enum format_status diff_source_open(struct diff_source *capture, const char *const *paths, size_t count,
                                    struct format_error *err)
{
  memset(capture, 0, sizeof *capture);
  format_error_clear(err);
  size_t capacity = 0;
  if (!count) {
    format_error_set(err, FORMAT_USAGE, "no capture given%s", "");
    return err->status;
  }
  capture->info.path = source_strdup(paths[0]);
  if (!capture->info.path) {
    format_error_set(err, FORMAT_NO_MEMORY, "out of memory%s", "");
    return err->status;
  }
  struct stat st;
  if (count == 1 && stat(paths[0], &st) == 0 && S_ISDIR(st.st_mode)) {
    if (source_open_directory(capture, &capacity, paths[0], err) != FORMAT_OK) {
      diff_source_release(capture);
      return err->status;
    }
  } else {
    for (size_t i = 0; i < count; i++)
      if (source_add(capture, &capacity, source_strdup(paths[i])) < 0) {
        diff_source_release(capture);
        format_error_set(err, FORMAT_NO_MEMORY, "out of memory%s", "");
        return err->status;
      }
  }
  if (!capture->count) {
    format_error_set(err, FORMAT_BAD_INPUT, "%s: no segments (no index, no *.bin, *.memprof or *.gz files)",
                     paths[0]);
    diff_source_release(capture);
    return err->status;
  }
  for (size_t i = 0; i < capture->count; i++) {
    struct diff_source_segment *segment = &capture->segments[i];
    if (stat(segment->path, &st) != 0) {
      err->system_error = errno;
      format_error_set(err, FORMAT_IO, "%s: %s", segment->path, strerror(errno));
      diff_source_release(capture);
      return err->status;
    }
    segment->file_bytes = (uint64_t)st.st_size;
    capture->total_bytes += segment->file_bytes;
  }
  if (source_thin_boundaries(capture) < 0 || source_cut_pieces(capture) < 0) {
    diff_source_release(capture);
    format_error_set(err, FORMAT_NO_MEMORY, "out of memory%s", "");
    return err->status;
  }
  return FORMAT_OK;
}

void diff_source_release(struct diff_source *capture)
{
  for (size_t i = 0; i < capture->count; i++)
    free(capture->segments[i].path);
  free(capture->segments);
  free(capture->boundaries);
  free(capture->pieces);
  free(capture->index_path);
  free(capture->dropped_warning);
  free(capture->stop_warning);
  for (size_t i = 0; i < capture->c_function_count; i++) {
    free(capture->c_functions[i].name);
    free(capture->c_functions[i].library);
  }
  free(capture->c_functions);
  diff_capture_free(&capture->info);
  capture_files_free(&capture->files);
  memset(capture, 0, sizeof *capture);
}
