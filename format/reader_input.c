/* format/reader_input.c: the memprof reader's input (a file, stdin or memory, plain or gzip) into its window, and its errors. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "format/reader_internal.h"

/* ---- Errors --------------------------------------------------------------- */

/* Records a final status; returns it so callers can `return reader_fail(...)`. */
enum format_status reader_fail(struct memprof_reader *r, enum format_status status,
                               uint64_t offset, const char *format, ...)
{
  va_list args;
  va_start(args, format);
  format_error_at_va(&r->error, status, r->name, offset, format, args);
  va_end(args);
  r->phase = PHASE_DONE;
  return status;
}

/* The input failed after `offset` decoded bytes; parsing goes on up to there. */
static void source_fail(struct memprof_reader *r, uint64_t offset, enum format_status status,
                        const char *format, ...)
{
  va_list args;
  va_start(args, format);
  format_error_at_va(&r->source_error, status, r->name, offset, format, args);
  va_end(args);
  r->source_failed = 1;
  r->source_eof = 1;
}

/* The input ends inside the record starting at `offset` (or exactly at it). */
enum format_status reader_cut(struct memprof_reader *r, uint64_t offset, const char *what)
{
  if (r->source_failed) {
    r->error = r->source_error;
    r->phase = PHASE_DONE;
    return r->error.status;
  }
  uint64_t stream_end = r->base + r->end;
  return reader_fail(r, FORMAT_CUT, offset,
                     "stream ends without its epilogue (%s); every complete event before it was read",
                     offset == stream_end ? "cut between records" : what);
}

/* The input ends inside a string whose length says it goes on. */
enum format_status reader_fail_cut_string(struct memprof_reader *r, uint64_t offset,
                                          uint64_t length, uint64_t left)
{
  if (r->source_failed)
    return reader_cut(r, offset, "");
  return reader_fail(r, FORMAT_CUT, offset,
                     "string length %llu runs past the end of the input (%llu bytes left); "
                     "stream ends without its epilogue (cut mid-record); every complete event "
                     "before it was read",
                     (unsigned long long)length, (unsigned long long)left);
}

/* ---- Raw and decoded input ----------------------------------------------- */

/* Reads raw bytes into out; returns the count, 0 at the end or on error. */
static size_t raw_read(struct memprof_reader *r, uint8_t *out, size_t size)
{
  if (r->raw_eof)
    return 0;
  if (r->memory) {
    size_t n = r->memory_size - r->memory_used;
    if (n > size)
      n = size;
    memcpy(out, r->memory + r->memory_used, n);
    r->memory_used += n;
    if (r->memory_used == r->memory_size)
      r->raw_eof = 1;
    return n;
  }
  for (;;) {
    ssize_t n = read(r->fd, out, size);
    if (n > 0)
      return (size_t)n;
    if (n == 0) {
      r->raw_eof = 1;
      return 0;
    }
    if (errno == EINTR)
      continue;
    source_fail(r, r->decoded, FORMAT_IO, "read error: %s", strerror(errno));
    r->raw_eof = 1;
    return 0;
  }
}

/* Feeds zlib more compressed input if it has none; returns 0 when there is no more. */
static int gzip_feed(struct memprof_reader *r)
{
  if (r->zs.avail_in > 0)
    return 1;
  if (r->memory) {
    /* Memory is inflated in place, in pieces that fit zlib's 32-bit counters. */
    size_t n = r->memory_size - r->memory_used;
    if (n == 0) {
      r->raw_eof = 1;
      return 0;
    }
    if (n > (1u << 30))
      n = 1u << 30;
    r->zs.next_in = (Bytef *)(uintptr_t)(r->memory + r->memory_used);
    r->zs.avail_in = (uInt)n;
    r->memory_used += n;
    return 1;
  }
  size_t n = raw_read(r, r->raw, READER_RAW);
  r->zs.next_in = r->raw;
  r->zs.avail_in = (uInt)n;
  return n > 0;
}

/* After one gzip member ends: another member may follow (as `gzip` concatenates). */
static int gzip_next_member(struct memprof_reader *r)
{
  if (!gzip_feed(r))
    return 0;
  if (r->zs.next_in[0] != 0x1f)
    return 0;  /* bytes after the last member are ignored, as gzip(1) does */
  if (inflateReset(&r->zs) != Z_OK)
    return 0;
  return 1;
}

/* Inflates into out; returns the count, 0 at the end or on error. */
static size_t gzip_read(struct memprof_reader *r, uint8_t *out, size_t size)
{
  if (r->gzip_live == 0)
    return 0;
  r->zs.next_out = out;
  r->zs.avail_out = (uInt)size;
  while (r->zs.avail_out == size) {
    int have_input = gzip_feed(r);
    if (r->source_failed)
      break;  /* a read error: what was inflated so far still counts */
    int rc = inflate(&r->zs, Z_NO_FLUSH);
    if (rc == Z_STREAM_END) {
      if (!gzip_next_member(r)) {
        r->gzip_live = 0;
        break;
      }
      continue;
    }
    if (rc == Z_BUF_ERROR && !have_input) {
      r->gzip_live = 0;
      r->gzip_cut = 1;
      break;
    }
    if (rc != Z_OK && rc != Z_BUF_ERROR) {
      /* What was inflated before the damage is still handed out. */
      source_fail(r, r->decoded + (size - r->zs.avail_out), FORMAT_IO,
                  "gzip data is damaged (%s)", r->zs.msg ? r->zs.msg : "inflate failed");
      r->gzip_live = 0;
      break;
    }
  }
  return size - r->zs.avail_out;
}

static size_t source_read(struct memprof_reader *r, uint8_t *out, size_t size)
{
  size_t n = r->gzip ? gzip_read(r, out, size) : raw_read(r, out, size);
  r->decoded += n;
  if (n == 0)
    r->source_eof = 1;
  return n;
}

/* Keeps the unparsed bytes and fills the rest of the window (to the end of input). */
void reader_window_refill(struct memprof_reader *r)
{
  if (r->source_eof || r->storage == NULL)
    return;
  size_t keep = r->end - r->pos;
  if (r->pos > 0) {
    memmove(r->storage, r->storage + r->pos, keep);
    r->base += r->pos;
    r->pos = 0;
    r->end = keep;
  }
  while (r->end < r->capacity && !r->source_eof)
    r->end += source_read(r, r->storage + r->end, r->capacity - r->end);
}

/* After the epilogue: a gzip's remaining data and trailer are still checked (damage is
 * FORMAT_IO, a trailer cut off FORMAT_CUT). */
enum format_status reader_finish(struct memprof_reader *r)
{
  r->phase = PHASE_DONE;
  format_error_clear(&r->error);
  r->error.status = FORMAT_END;
  r->error.offset = r->base + r->pos;
  if (!r->gzip)
    return FORMAT_END;
  /* Bytes after the epilogue are ignored (as Tarantool's parser does), but
   * they are inflated so that a damaged trailer is still reported. */
  while (!r->source_eof)
    source_read(r, r->storage, r->capacity);
  if (r->source_failed) {
    r->error = r->source_error;
    return r->error.status;
  }
  /* The file was cut after the stream's last byte: every event is there, as in any cut. */
  if (r->gzip_cut)
    return reader_fail(r, FORMAT_CUT, r->decoded,
                       "gzip data ends before its trailer (every event was read; its checksum was not)");
  return FORMAT_END;
}

int reader_input_start(struct memprof_reader *r, struct format_error *err)
{
  r->capacity = READER_WINDOW;
  r->storage = malloc(r->capacity);
  if (r->storage == NULL)
    goto out_of_memory;
  r->window = r->storage;
  /* Two bytes decide: gzip's magic is 1f 8b. */
  size_t got = 0;
  while (got < 2 && !r->raw_eof)
    got += raw_read(r, r->storage + got, 2 - got);
  if (got == 2 && r->storage[0] == 0x1f && r->storage[1] == 0x8b) {
    r->raw = malloc(READER_RAW);
    if (r->raw == NULL)
      goto out_of_memory;
    if (r->memory) {
      r->memory_used = 0;  /* inflate the memory from its start, in place */
      r->raw_eof = 0;
    } else {
      memcpy(r->raw, r->storage, 2);
      r->zs.next_in = r->raw;
      r->zs.avail_in = 2;
    }
    if (inflateInit2(&r->zs, 16 + MAX_WBITS) != Z_OK)
      goto out_of_memory;
    r->gzip = 1;
    r->gzip_live = 1;
  } else {
    r->end = got;
    r->decoded = got;
  }
  if (r->source_failed) {
    *err = r->source_error;
    return -1;
  }
  reader_window_refill(r);
  return 0;
out_of_memory:
  format_error_clear(err);
  format_error_set(err, FORMAT_NO_MEMORY, "%s: out of memory", r->name);
  return -1;
}
