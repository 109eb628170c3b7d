/* collector/segments.c: the capture's segment files, their rotation, and the lines of its index (docs/index-format.md). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "collector/boundary.h"
#include "collector/segments.h"
#include "collector/symbols.h"

static const char *const reason_names[] = {
  "", "stop", "duration", "signal", "max-total-bytes", "write-error", "exit"
};

static int segment_sink(void *context, const uint8_t *data, size_t size)
{
  struct capture *c = context;
  if (seg_out_write(&c->out, data, size) != 0)
    return -1;
  if (c->opt.max_total_bytes && c->disk_done + c->out.disk_bytes >= c->opt.max_total_bytes &&
      c->pending_stop == REASON_NONE)
    c->pending_stop = REASON_MAX_TOTAL;
  return 0;
}

static void segment_path(const struct capture *c, char *out, size_t size, int part)
{
  snprintf(out, size, "%s/%s%s", c->dir, c->segment_name, part ? ".part" : "");
}

void segments_write_error(struct capture *c, const char *what, int err)
{
  if (c->error[0])
    return;
  char path[PATH_MAX + 80];
  segment_path(c, path, sizeof path, 1);
  char msg[sizeof path + 256];
  snprintf(msg, sizeof msg, "%s %s: %s", what, path, strerror(err ? err : EIO));
  capture_copy_text(c->error, sizeof c->error, msg);
  fprintf(stderr, "ljleak: capture stopped: %s\n", c->error);
}

/* Appends value to dst with the index escapes for backslash, tab and newline. */
static size_t escape_into(char *dst, size_t cap_left, const char *value)
{
  size_t n = 0;
  for (const char *p = value; *p && n + 2 < cap_left; p++) {
    char e = *p == '\\' ? '\\' : *p == '\t' ? 't' : *p == '\n' ? 'n' : 0;
    if (e) {
      dst[n++] = '\\';
      dst[n++] = e;
    } else {
      dst[n++] = *p;
    }
  }
  dst[n] = '\0';
  return n;
}

/* Appends one line to the index. 0 or -1. */
static int index_append(struct capture *c, const char *line)
{
  if (c->index_fd < 0)
    return -1;
  size_t len = strlen(line);
  while (len > 0) {
    ssize_t n = write(c->index_fd, line, len);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return -1;
    line += n;
    len -= (size_t)n;
  }
  return 0;
}

int segments_index_open(struct capture *c, char *err, size_t err_size)
{
  char path[PATH_MAX + 8];
  snprintf(path, sizeof path, "%s/index", c->dir);
  c->index_fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_TRUNC | O_CLOEXEC, 0644);
  if (c->index_fd < 0) {
    capture_set_error(err, err_size, "cannot create %s: %s", path, strerror(errno));
    return -1;
  }
  const struct ljleak_collector_options *opt = &c->opt;
  char host[256] = "";
  gethostname(host, sizeof host - 1);
  double start = capture_wall_time();
  char line[16384], *p = line;
  size_t left = sizeof line;
  int n = snprintf(p, left, "ljleak-index\tversion=1\ncapture\tpid=%ld\thost=", (long)getpid());
  p += n, left -= (size_t)n;
  n = (int)escape_into(p, left, host);
  p += n, left -= (size_t)n;
  n = snprintf(p, left, "\tcommand=");
  p += n, left -= (size_t)n;
  n = (int)escape_into(p, left - 256, c->command);
  p += n, left -= (size_t)n;
  n = snprintf(p, left, "\tluajit=");
  p += n, left -= (size_t)n;
  n = (int)escape_into(p, left, c->luajit_version);
  p += n, left -= (size_t)n;
  snprintf(p, left, "\tstart=%.3f\tsample=%llu\tperiod=%g\tmax_bytes=%llu\tgzip=%d\n", start,
           (unsigned long long)opt->sample, opt->period, (unsigned long long)opt->max_bytes,
           opt->gzip ? 1 : 0);
  if (index_append(c, line) != 0) {
    capture_set_error(err, err_size, "cannot write %s: %s", path, strerror(errno));
    close(c->index_fd);
    c->index_fd = -1;
    return -1;
  }
  return 0;
}

void segments_index_close(struct capture *c, enum capture_stop_reason reason)
{
  char line[128];
  snprintf(line, sizeof line, "stop\ttime=%.3f\treason=%s\n", capture_wall_time(),
           reason_names[reason]);
  index_append(c, line);
  if (c->index_fd >= 0)
    close(c->index_fd);
  c->index_fd = -1;
}

int segments_begin(struct capture *c)
{
  char path[PATH_MAX + 80];
  c->seq++;
  snprintf(c->segment_name, sizeof c->segment_name, "seg-%04llu.memprof%s",
           (unsigned long long)c->seq, c->opt.gzip ? ".gz" : "");
  segment_path(c, path, sizeof path, 1);
  if (seg_out_open(&c->out, path, c->opt.gzip, c->buffer + CAPTURE_BUFFER_SIZE,
                   CAPTURE_ZBUFFER_SIZE) != 0) {
    segments_write_error(c, "cannot create", c->out.error);
    return -1;
  }
  c->segment_open = 1;
  memprof_writer_init(&c->writer, c->buffer, CAPTURE_BUFFER_SIZE, segment_sink, c);
  c->quick_until = 0;  /* the writer counts from 0 again: hook_full sets these anew */
  c->tick_at = 0;
  symbols_reset(c);
  c->segment_start_wall = capture_wall_time();
  c->segment_start_ns = capture_mono_ns();
  c->last_flush_ns = c->segment_start_ns;
  c->segment_events = 0;
  c->cycle_start_events = 0;
  c->boundary_due = 0;
  if (memprof_writer_symtab_begin(&c->writer) || memprof_writer_symtab_end(&c->writer) ||
      memprof_writer_events_begin(&c->writer) || memprof_writer_flush(&c->writer)) {
    segments_write_error(c, "cannot write", c->out.error);
    return -1;
  }
  return 0;
}

int segments_end(struct capture *c, int complete)
{
  char part[PATH_MAX + 80], final[PATH_MAX + 80];
  if (!c->segment_open)
    return 0;
  c->segment_open = 0;
  c->events += c->segment_events;
  if (c->g)
    c->last_heap = (uint64_t)c->g->gc.total;
  if (memprof_writer_epilogue(&c->writer) || memprof_writer_flush(&c->writer) ||
      seg_out_finish(&c->out) != 0) {
    segments_write_error(c, "cannot write", c->out.error);
    seg_out_abandon(&c->out);
    return -1;
  }
  segment_path(c, part, sizeof part, 1);
  segment_path(c, final, sizeof final, 0);
  if (rename(part, final) != 0) {
    segments_write_error(c, "cannot rename", errno);
    return -1;
  }
  c->segments++;
  c->stream_done += c->writer.bytes_written;
  c->disk_done += c->out.disk_bytes;
  char line[512];
  snprintf(line, sizeof line,
           "segment\tseq=%llu\tfile=%s\tstart=%.3f\tend=%.3f\tgc_cycles=%llu\theap_bytes=%llu"
           "\tevents=%llu\tbytes=%llu\tsample=%llu\tcomplete=%d",
           (unsigned long long)c->seq, c->segment_name, c->segment_start_wall,
           capture_wall_time(), (unsigned long long)c->gc_cycles,
           (unsigned long long)c->last_heap, (unsigned long long)c->segment_events,
           (unsigned long long)c->writer.bytes_written, (unsigned long long)c->opt.sample,
           complete);
  size_t used = strlen(line);
  if (complete)
    snprintf(line + used, sizeof line - used, "\tyoung_from=%llu\n",
             (unsigned long long)c->cycle_start_events);
  else
    snprintf(line + used, sizeof line - used, "\n");
  if (index_append(c, line) != 0) {
    segments_write_error(c, "cannot append to the index in", errno);
    return -1;
  }
  return 0;
}

void segments_rotate(struct capture *c)
{
  boundary_force_disarm(c);
  if (segments_end(c, 1) != 0 || segments_begin(c) != 0)
    c->pending_stop = REASON_WRITE_ERROR;
}
