/* collector/segments.c: the capture's segment files, their rotation, and the lines of its index (docs/index-format.md). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "collector/capture_dir.h"
#include "collector/index.h"
#include "collector/layout.h"
#include "collector/segments.h"
#include "collector/snapshot.h"
#include "collector/symbols.h"
#include "collector/text.h"
#include "format/capture_index.h"
#include "format/capture_layout.h"

static int segment_sink(void *context, const uint8_t *data, size_t size)
{
  struct coll_capture *c = context;
  /* The stacks of these events go to disk first (docs/stacks-format.md). */
  if (coll_callstack_flush(&c->stacks) != 0 || coll_seg_out_write(&c->out, data, size) != 0)
    return -1;
  uint64_t disk = c->disk_done + c->out.disk_bytes + c->stacks.disk_done + c->stacks.out.disk_bytes;
  if (c->opt.max_total_bytes && disk >= c->opt.max_total_bytes &&
      c->pending_stop == CAPTURE_INDEX_REASON_NONE)
    c->pending_stop = CAPTURE_INDEX_REASON_MAX_TOTAL_BYTES;
  return 0;
}

/* The open segment's .part path, for messages. */
static void segment_path(const struct coll_capture *c, char *out, size_t size)
{
  char part[CAPTURE_LAYOUT_NAME_MAX];
  capture_layout_part_name(c->segment_name, part, sizeof part);
  capture_layout_join(c->dir.path, part, out, size);
}

void coll_segments_say_stop(const struct coll_capture *c)
{
  fprintf(stderr, "ljleak: capture stopped: %s\n", c->error);
}

/* The capture's first write error, on the file at path: kept and said. */
static void segments_error(struct coll_capture *c, const char *what, const char *path, int err)
{
  if (c->error[0])
    return;
  char msg[PATH_MAX + 400];
  snprintf(msg, sizeof msg, "%s %s: %s", what, path, strerror(err ? err : EIO));
  coll_text_copy(c->error, sizeof c->error, msg);
  coll_segments_say_stop(c);
}

void coll_segments_write_error(struct coll_capture *c, const char *what, int err)
{
  char path[PATH_MAX + 80];
  segment_path(c, path, sizeof path);
  segments_error(c, what, path, err);
}

/* A line the index refused: its path, not the segment's. */
static void index_error(struct coll_capture *c, int err)
{
  char path[PATH_MAX + 8];
  capture_layout_join(c->dir.path, CAPTURE_LAYOUT_INDEX, path, sizeof path);
  segments_error(c, "cannot append to", path, err);
}

int coll_segments_index_flush(struct coll_capture *c)
{
  if (!c->index.held || coll_index_flush(&c->index) == 0)
    return 0;
  index_error(c, errno);
  return -1;
}

int coll_segments_index_open(struct coll_capture *c, char *err, size_t err_size)
{
  char path[PATH_MAX + 8];
  capture_layout_join(c->dir.path, CAPTURE_LAYOUT_INDEX, path, sizeof path);
  int fd = coll_capture_dir_create(&c->dir, CAPTURE_LAYOUT_INDEX, 1);
  if (fd < 0) {
    coll_text_error(err, err_size, "cannot create %s: %s", path, strerror(errno));
    return -1;
  }
  char host[256] = "", exe[PATH_MAX] = "";
  gethostname(host, sizeof host - 1);
  ssize_t exe_length = readlink("/proc/self/exe", exe, sizeof exe - 1);
  exe[exe_length > 0 ? exe_length : 0] = '\0';
  struct capture_index_capture line = {
    .pid = (long)getpid(),
    .host = host,
    .exe = exe,
    .ppid = (long)getppid(),
    .command = c->command,
    .labels = c->labels,
    .luajit = c->luajit_version,
    .start = c->start_wall = coll_now_wall_time(),
    .sample = c->opt.sample,
    .period = c->opt.period,
    .max_bytes = c->opt.max_bytes,
    .gzip = c->opt.gzip ? 1 : 0,
    .stacks = (uint64_t)c->opt.stack_depth,
    .luajit_flavour = coll_layout_built_for()->flavour,
    .luajit_package = coll_layout_built_for()->package,
    .luajit_package_version = coll_layout_built_for()->package_version,
  };
  char text[16384];
  size_t header = capture_index_write_header(text, sizeof text);
  size_t written = capture_index_write_capture(text + header, sizeof text - header, &line);
  if (!header || !written) {
    coll_text_error(err, err_size, "cannot write %s: %s", path, "the capture line does not fit");
    close(fd);
    return -1;
  }
  coll_index_open(&c->index, fd);
  if (coll_index_append(&c->index, text) != 0) {
    coll_text_error(err, err_size, "cannot write %s: %s", path, strerror(errno));
    coll_index_drop(&c->index);
    return -1;
  }
  return 0;
}

int coll_segments_index_boundary(struct coll_capture *c, enum capture_index_boundary_cause cause)
{
  struct capture_index_boundary line = {
    .seq = c->boundaries,
    .segment = c->seq,
    .events = c->segment_events,
    .time = coll_now_wall_time(),
    .gc_cycles = c->gc_cycles,
    .heap_bytes = (uint64_t)c->g->gc.total,
    .allocated = c->allocated,
    .young_from = c->cycle_start_events,
    .cause = capture_index_boundary_cause_name((int)cause),
  };
  char text[512];
  if (!capture_index_write_boundary(text, sizeof text, &line) ||
      coll_index_hold(&c->index, text, coll_now_mono_ns()) != 0) {
    index_error(c, errno);
    return -1;
  }
  return 0;
}

int coll_segments_index_snapshot(struct coll_capture *c, const char *file, const struct coll_snapshot_result *result)
{
  struct capture_index_snapshot line = {
    .boundary = c->boundaries,
    .file = file,
    .objects = result->objects,
    .references = result->references,
    .object_bytes = result->object_bytes,
    .bytes = result->file_bytes,
    .pause_us = result->pause_ns / 1000,
  };
  char text[512];
  if (!capture_index_write_snapshot(text, sizeof text, &line) || coll_index_append(&c->index, text) != 0) {
    index_error(c, errno);
    return -1;
  }
  return 0;
}

void coll_segments_index_close(struct coll_capture *c, enum capture_index_stop_reason reason)
{
  struct capture_index_stop line = {
    .time = coll_now_wall_time(),
    .reason = capture_index_stop_reason_name(reason),
  };
  char text[128];
  if (capture_index_write_stop(text, sizeof text, &line))
    coll_index_append(&c->index, text);
  coll_index_close(&c->index);
}

int coll_segments_begin(struct coll_capture *c)
{
  char part[CAPTURE_LAYOUT_NAME_MAX];
  c->seq++;
  capture_layout_segment_name(c->seq, c->opt.gzip, c->segment_name, sizeof c->segment_name);
  capture_layout_part_name(c->segment_name, part, sizeof part);
  if (coll_seg_out_open(&c->out, coll_capture_dir_create(&c->dir, part, 0), c->opt.gzip,
                        c->buffer + COLL_CAPTURE_BUFFER_SIZE, COLL_CAPTURE_ZBUFFER_SIZE) != 0) {
    coll_segments_write_error(c, "cannot create", c->out.error);
    return -1;
  }
  if (coll_callstack_open(&c->stacks, &c->dir, part, c->opt.gzip, c->opt.stack_depth) != 0) {
    coll_seg_out_abandon(&c->out);
    coll_segments_write_error(c, "cannot create the stack sidecar of", c->stacks.out.error);
    return -1;
  }
  c->stacks_on = c->stacks.open;
  c->segment_open = 1;
  memprof_writer_init(&c->writer, c->buffer, COLL_CAPTURE_BUFFER_SIZE, segment_sink, c);
  c->quick_until = 0;  /* the writer counts from 0 again: hook_full sets these anew */
  c->tick_at = 0;
  coll_symbols_reset(c);
  c->segment_start_wall = coll_now_wall_time();
  c->segment_start_ns = coll_now_mono_ns();
  c->last_flush_ns = c->segment_start_ns;
  c->segment_events = 0;
  c->cycle_start_events = 0;
  c->boundary_due = 0;
  if (memprof_writer_symtab_begin(&c->writer) || memprof_writer_symtab_end(&c->writer) ||
      memprof_writer_events_begin(&c->writer) || memprof_writer_flush(&c->writer)) {
    coll_segments_write_error(c, "cannot write", c->out.error);
    return -1;
  }
  return 0;
}

/* A finished segment whose line the index did not take goes back to its .part name, and its
 * sidecar after it: a reader takes it as the segment being written, whatever the index holds
 * after this (an unlisted finished segment is read only when no stop line follows). */
static void segment_unlisted(struct coll_capture *c, const char *part)
{
  char sidecar[CAPTURE_LAYOUT_NAME_MAX], sidecar_part[CAPTURE_LAYOUT_NAME_MAX];
  if (coll_capture_dir_rename(&c->dir, c->segment_name, part) != 0)
    return;
  if (c->stacks.depth > 0 && capture_layout_sidecar_name(c->segment_name, sidecar, sizeof sidecar) &&
      capture_layout_sidecar_name(part, sidecar_part, sizeof sidecar_part))
    coll_capture_dir_rename(&c->dir, sidecar, sidecar_part);
}

int coll_segments_end(struct coll_capture *c, int complete)
{
  char part[CAPTURE_LAYOUT_NAME_MAX];
  if (!c->segment_open)
    return 0;
  c->segment_open = 0;
  c->stacks_on = 0;
  c->events += c->segment_events;
  if (c->g)
    c->last_heap = (uint64_t)c->g->gc.total;
  if (memprof_writer_epilogue(&c->writer) || memprof_writer_flush(&c->writer) ||
      coll_seg_out_finish(&c->out) != 0) {
    coll_segments_write_error(c, "cannot write", c->out.error);
    coll_seg_out_abandon(&c->out);
    coll_callstack_abandon(&c->stacks);
    return -1;
  }
  capture_layout_part_name(c->segment_name, part, sizeof part);
  /* The sidecar is renamed first: a finished segment has a finished sidecar. */
  if (coll_callstack_close(&c->stacks, &c->dir, part, c->segment_name) != 0) {
    coll_segments_write_error(c, "cannot write the stack sidecar of", c->stacks.out.error);
    return -1;
  }
  if (coll_capture_dir_rename(&c->dir, part, c->segment_name) != 0) {
    coll_segments_write_error(c, "cannot rename", errno);
    return -1;
  }
  c->segments++;
  c->stream_done += c->writer.bytes_written;
  c->disk_done += c->out.disk_bytes;
  struct capture_index_segment line = {
    .seq = c->seq,
    .file = c->segment_name,
    .start = c->segment_start_wall,
    .end = coll_now_wall_time(),
    .gc_cycles = c->gc_cycles,
    .heap_bytes = c->last_heap,
    .events = c->segment_events,
    .bytes = c->writer.bytes_written,
    .sample = c->opt.sample,
    .complete = complete,
    .young_from = c->cycle_start_events,
  };
  coll_trace_line_fold(&c->lines);
  line.trace_events = c->lines.segment_events;
  line.trace_lines = c->lines.segment_lines;
  c->lines.events += c->lines.segment_events;
  c->lines.lines += c->lines.segment_lines;
  c->lines.segment_events = c->lines.segment_lines = 0;
  char text[512];
  if (!capture_index_write_segment(text, sizeof text, &line) || coll_index_append(&c->index, text) != 0) {
    index_error(c, errno);
    segment_unlisted(c, part);
    return -1;
  }
  return 0;
}

void coll_segments_rotate(struct coll_capture *c, int complete)
{
  if (coll_segments_end(c, complete) != 0 || coll_segments_begin(c) != 0)
    c->pending_stop = CAPTURE_INDEX_REASON_WRITE_ERROR;
}
