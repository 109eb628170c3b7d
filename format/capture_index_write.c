/* format/capture_index_write.c: the capture index's writer (docs/index-format.md): one line at a time into a caller's buffer, and the names of stop reasons and boundary causes. */
#include "format/capture_index.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const char *const capture_index_reason_names[] = {
  NULL, "stop", "duration", "signal", "max-total-bytes", "write-error", "exit"
};

const char *capture_index_stop_reason_name(enum capture_index_stop_reason reason)
{
  if ((int)reason < 1 ||
      (int)reason >= (int)(sizeof capture_index_reason_names / sizeof capture_index_reason_names[0]))
    return NULL;
  return capture_index_reason_names[reason];
}

static const char *const capture_index_cause_names[] = {
  NULL, "gc", "start", "stop", "every", "call", "period", "exit", "snapshot"
};

const char *capture_index_boundary_cause_name(int cause)
{
  if (cause < 1 || cause >= (int)(sizeof capture_index_cause_names / sizeof capture_index_cause_names[0]))
    return NULL;
  return capture_index_cause_names[cause];
}

int capture_index_boundary_cause_forced(const char *cause)
{
  return cause != NULL && strcmp(cause, "gc") != 0;
}

/* ---- Writer ------------------------------------------------------------- */

/* A line being formatted into a caller's buffer. Invariant while it fits:
 * data[length] is a NUL inside size. */
struct line {
  char *data;
  size_t size;
  size_t length;
  int full;       /* something did not fit: the line is unusable */
};

static void line_printf(struct line *line, const char *format, ...)
  __attribute__((format(printf, 2, 3)));
static void line_printf(struct line *line, const char *format, ...)
{
  if (line->full)
    return;
  size_t room = line->size - line->length;
  va_list args;
  va_start(args, format);
  int n = vsnprintf(line->data + line->length, room, format, args);
  va_end(args);
  if (n < 0 || (size_t)n >= room)
    line->full = 1;
  else
    line->length += (size_t)n;
}

static struct line line_begin(char *buffer, size_t size, const char *kind)
{
  struct line line = {buffer, size, 0, size == 0};
  line_printf(&line, "%s", kind);
  return line;
}

static size_t line_end(struct line *line)
{
  line_printf(line, "\n");
  return line->full ? 0 : line->length;
}

size_t capture_index_escape(char *buffer, size_t size, const char *value, size_t *used)
{
  size_t n = 0;
  const char *p = value;
  for (; *p && n + 2 < size; p++) {
    char escape = *p == '\\' ? '\\' : *p == '\t' ? 't' : *p == '\n' ? 'n' : 0;
    if (escape) {
      buffer[n++] = '\\';
      buffer[n++] = escape;
    } else {
      buffer[n++] = *p;
    }
  }
  if (size)
    buffer[n] = '\0';
  *used = (size_t)(p - value);
  return n;
}

/* Appends value escaped, while it leaves at least 2 bytes of room: the
 * collector's original rule, kept so that a cut command has the same bytes.
 * Returns 1 if all of value went in. */
static int line_put_escaped(struct line *line, const char *value, size_t room)
{
  char *out = line->data + line->length;
  size_t used;
  size_t n = capture_index_escape(out, room, value, &used);
  out[n] = '\0';  /* room 0 too: data[length] is inside the buffer */
  line->length += n;
  return value[used] == '\0';
}

static void line_u64(struct line *line, const char *key, uint64_t value)
{
  line_printf(line, "\t%s=%llu", key, (unsigned long long)value);
}

static void line_long(struct line *line, const char *key, long value)
{
  line_printf(line, "\t%s=%ld", key, value);
}

static void line_flag(struct line *line, const char *key, int value)
{
  line_printf(line, "\t%s=%d", key, value ? 1 : 0);
}

/* A Unix time, to the millisecond. */
static void line_time(struct line *line, const char *key, double value)
{
  line_printf(line, "\t%s=%.3f", key, value);
}

/* A number of seconds as short as it goes. */
static void line_seconds(struct line *line, const char *key, double value)
{
  line_printf(line, "\t%s=%g", key, value);
}

/* A text value, whole or not at all. */
static void line_text(struct line *line, const char *key, const char *value)
{
  line_printf(line, "\t%s=", key);
  if (!line->full && !line_put_escaped(line, value ? value : "", line->size - line->length))
    line->full = 1;
}

/* A text value cut, if need be, to leave tail_room bytes of the buffer. */
static void line_text_cut(struct line *line, const char *key, const char *value, size_t tail_room)
{
  line_printf(line, "\t%s=", key);
  if (line->full)
    return;
  size_t room = line->size - line->length;
  line_put_escaped(line, value ? value : "", room > tail_room ? room - tail_room : 0);
}

size_t capture_index_write_header(char *buffer, size_t size)
{
  struct line line = line_begin(buffer, size, "ljleak-index");
  line_u64(&line, "version", CAPTURE_INDEX_VERSION);
  return line_end(&line);
}

size_t capture_index_write_capture(char *buffer, size_t size, const struct capture_index_capture *capture)
{
  struct line line = line_begin(buffer, size, "capture");
  line_long(&line, "pid", capture->pid);
  line_text(&line, "host", capture->host);
  if (capture->exe) {
    line_text(&line, "exe", capture->exe);
    line_long(&line, "ppid", capture->ppid);
  }
  line_text_cut(&line, "command", capture->command, CAPTURE_INDEX_CAPTURE_TAIL_ROOM);
  line_text(&line, "luajit", capture->luajit);
  line_time(&line, "start", capture->start);
  line_u64(&line, "sample", capture->sample);
  line_seconds(&line, "period", capture->period);
  line_u64(&line, "max_bytes", capture->max_bytes);
  line_flag(&line, "gzip", capture->gzip);
  if (capture->stacks)
    line_u64(&line, "stacks", capture->stacks);
  if (capture->luajit_flavour) {
    line_text(&line, "luajit_flavour", capture->luajit_flavour);
    line_text(&line, "luajit_package", capture->luajit_package);
    line_text(&line, "luajit_package_version", capture->luajit_package_version);
  }
  return line_end(&line);
}

size_t capture_index_write_segment(char *buffer, size_t size, const struct capture_index_segment *segment)
{
  struct line line = line_begin(buffer, size, "segment");
  line_u64(&line, "seq", segment->seq);
  line_text(&line, "file", segment->file);
  line_time(&line, "start", segment->start);
  line_time(&line, "end", segment->end);
  line_u64(&line, "gc_cycles", segment->gc_cycles);
  line_u64(&line, "heap_bytes", segment->heap_bytes);
  line_u64(&line, "events", segment->events);
  line_u64(&line, "bytes", segment->bytes);
  line_u64(&line, "sample", segment->sample);
  line_flag(&line, "complete", segment->complete);
  if (segment->complete && segment->young_from != CAPTURE_INDEX_YOUNG_FROM_NONE)
    line_u64(&line, "young_from", segment->young_from);
  if (segment->trace_events) {
    line_u64(&line, "trace_events", segment->trace_events);
    line_u64(&line, "trace_lines", segment->trace_lines);
  }
  return line_end(&line);
}

size_t capture_index_write_snapshot(char *buffer, size_t size, const struct capture_index_snapshot *snapshot)
{
  struct line line = line_begin(buffer, size, "snapshot");
  line_u64(&line, "boundary", snapshot->boundary);
  line_text(&line, "file", snapshot->file);
  if (snapshot->dropped) {
    line_u64(&line, "dropped", 1);
    return line_end(&line);
  }
  line_u64(&line, "objects", snapshot->objects);
  line_u64(&line, "references", snapshot->references);
  line_u64(&line, "object_bytes", snapshot->object_bytes);
  line_u64(&line, "bytes", snapshot->bytes);
  line_u64(&line, "pause_us", snapshot->pause_us);
  return line_end(&line);
}

size_t capture_index_write_boundary(char *buffer, size_t size, const struct capture_index_boundary *boundary)
{
  struct line line = line_begin(buffer, size, "boundary");
  line_u64(&line, "seq", boundary->seq);
  line_u64(&line, "segment", boundary->segment);
  line_u64(&line, "events", boundary->events);
  line_time(&line, "time", boundary->time);
  line_u64(&line, "gc_cycles", boundary->gc_cycles);
  line_u64(&line, "heap_bytes", boundary->heap_bytes);
  line_u64(&line, "allocated", boundary->allocated);
  if (boundary->young_from != CAPTURE_INDEX_YOUNG_FROM_NONE)
    line_u64(&line, "young_from", boundary->young_from);
  if (boundary->cause)
    line_text(&line, "cause", boundary->cause);
  return line_end(&line);
}

size_t capture_index_write_stop(char *buffer, size_t size, const struct capture_index_stop *stop)
{
  struct line line = line_begin(buffer, size, "stop");
  line_time(&line, "time", stop->time);
  line_text(&line, "reason", stop->reason);
  return line_end(&line);
}
