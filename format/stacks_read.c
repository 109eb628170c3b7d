/* format/stacks_read.c: the stack sidecar's one decoder (docs/stacks-format.md): a streaming reader, plain or gzip, file or memory. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xxhash.h>
#include <zlib.h>

#include "container/array.h"
#include "format/stacks.h"

#ifndef STACKS_READER_CHUNK
#define STACKS_READER_CHUNK (64u * 1024u)   /* bytes read or inflated at once; the fuzz build makes it small */
#endif
#define STRING_MAX (64u << 20)              /* longest name accepted */

struct stacks_reader {
  char *name;
  int fd;                      /* -1 for memory */
  const uint8_t *memory;
  size_t memory_size, memory_used;
  int raw_eof;
  uint8_t prefix[2];           /* the first bytes, read to recognise gzip, served again */
  size_t prefix_size, prefix_used;
  int gzip, gzip_live;
  z_stream zs;
  uint8_t *raw;                /* compressed input (gzip from a file) */

  uint8_t *buf;                /* decoded bytes; buf[pos, end) not yet parsed; buf[0] is byte base */
  size_t capacity, pos, end;
  uint64_t base;
  int source_eof;
  int source_failed;           /* the input failed (source_error says where): the bytes decoded
                                * before it are parsed, and a record that needs more gets it */
  struct format_error source_error;

  char **strings;              /* [1 .. string_count] */
  size_t *string_lengths;
  uint32_t string_count;
  size_t string_capacity;
  struct stacks_stack **stacks;  /* [1 .. stack_count] */
  uint32_t stack_count;
  size_t stack_capacity;
  uint64_t next_event;

  int has_pending;             /* an EVENT record read but not yet asked for */
  uint64_t pending_event;
  uint32_t pending_stack;

  struct format_error error;
};

static enum format_status fail(struct stacks_reader *r, enum format_status status,
                               uint64_t offset, const char *format, ...)
    __attribute__((format(printf, 4, 5)));

static enum format_status fail(struct stacks_reader *r, enum format_status status,
                               uint64_t offset, const char *format, ...)
{
  if (r->error.status != FORMAT_OK)
    return r->error.status;
  va_list args;
  va_start(args, format);
  format_error_at_va(&r->error, status, r->name, offset, format, args);
  va_end(args);
  return status;
}

/* Reads raw bytes into out; returns the count, 0 at the end, -1 on error. */
static ssize_t raw_read(struct stacks_reader *r, uint8_t *out, size_t size)
{
  if (r->prefix_used < r->prefix_size && size > 0) {
    size_t n = r->prefix_size - r->prefix_used;
    if (n > size)
      n = size;
    memcpy(out, r->prefix + r->prefix_used, n);
    r->prefix_used += n;
    return (ssize_t)n;
  }
  if (r->fd < 0) {
    size_t n = r->memory_size - r->memory_used;
    if (n > size)
      n = size;
    memcpy(out, r->memory + r->memory_used, n);
    r->memory_used += n;
    return (ssize_t)n;
  }
  for (;;) {
    ssize_t n = read(r->fd, out, size);
    if (n < 0 && errno == EINTR)
      continue;
    return n;
  }
}

/* The input failed after the decoded byte offset: kept in source_error until a record needs
 * what would have followed. */
static void source_fail(struct stacks_reader *r, uint64_t offset, const char *why)
{
  format_error_at(&r->source_error, FORMAT_IO, r->name, offset, "cannot read: %s", why);
  r->source_failed = 1;
}

/* source_fail for the gzip stream, which gives nothing more. */
static void gzip_fail(struct stacks_reader *r, uint64_t offset, const char *why)
{
  source_fail(r, offset, why);
  r->gzip_live = 0;
}

/* The compressed input, fed when inflate has used it up (and not at its end). -1 when reading
 * fails. */
static int gzip_feed(struct stacks_reader *r)
{
  if (r->zs.avail_in > 0 || r->raw_eof)
    return 0;
  ssize_t n = raw_read(r, r->raw, STACKS_READER_CHUNK);
  if (n < 0)
    return -1;
  if (n == 0)
    r->raw_eof = 1;
  r->zs.next_in = r->raw;
  r->zs.avail_in = (uInt)n;
  return 0;
}

/* Decodes up to size bytes into out, decoded of them before (for the offset of a failure): the
 * count, 0 at the end of input or after a failure (source_fail: what was decoded before it is
 * still returned). One gzip member may follow another, as gzip(1) concatenates them. */
static size_t source_read(struct stacks_reader *r, uint8_t *out, size_t size, uint64_t decoded)
{
  if (!r->gzip) {
    ssize_t n = raw_read(r, out, size);
    if (n < 0)
      source_fail(r, decoded, strerror(errno));
    return n > 0 ? (size_t)n : 0;
  }
  r->zs.next_out = out;
  r->zs.avail_out = (uInt)size;
  while (r->zs.avail_out == size && r->gzip_live) {
    if (gzip_feed(r) != 0) {
      gzip_fail(r, decoded, strerror(errno));
      break;
    }
    int rc = inflate(&r->zs, Z_NO_FLUSH);
    if (rc == Z_STREAM_END) {
      /* Bytes after the last member are ignored, as gzip(1) does. */
      if (gzip_feed(r) != 0)
        gzip_fail(r, decoded + (size - r->zs.avail_out), strerror(errno));
      else if (r->zs.avail_in == 0 || r->zs.next_in[0] != 0x1f || inflateReset(&r->zs) != Z_OK)
        r->gzip_live = 0;
    } else if (rc == Z_BUF_ERROR && r->raw_eof && r->zs.avail_in == 0) {
      r->gzip_live = 0;          /* cut before its trailer: what inflated so far is all */
    } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
      gzip_fail(r, decoded + (size - r->zs.avail_out), "damaged gzip data");
    }
  }
  return size - r->zs.avail_out;
}

/* The input's failure as the reader's error, once a record needs what followed it. */
static enum format_status source_failure(struct stacks_reader *r)
{
  if (r->error.status == FORMAT_OK)
    r->error = r->source_error;
  return r->error.status;
}

/* The input ended where a record at offset needed more: its failure, else a cut (what). */
static enum format_status input_ended(struct stacks_reader *r, uint64_t offset, const char *what)
{
  return r->source_failed ? source_failure(r) : fail(r, FORMAT_CUT, offset, "the sidecar ends %s", what);
}

/* Keeps buf[pos, end) and reads more after it, so that at least want bytes
 * are unparsed, or the input ends. 0, or -1 (error set). */
static int refill(struct stacks_reader *r, size_t want)
{
  if (r->pos > 0) {
    memmove(r->buf, r->buf + r->pos, r->end - r->pos);
    r->base += r->pos;
    r->end -= r->pos;
    r->pos = 0;
  }
  if (want < STACKS_READER_CHUNK)
    want = STACKS_READER_CHUNK;
  if (want > r->capacity) {
    uint8_t *grown = realloc(r->buf, want);
    if (!grown) {
      fail(r, FORMAT_NO_MEMORY, r->base, "out of memory");
      return -1;
    }
    r->buf = grown;
    r->capacity = want;
  }
  while (!r->source_eof && r->end < r->capacity) {
    size_t n = source_read(r, r->buf + r->end, r->capacity - r->end, r->base + r->end);
    if (n == 0 || r->source_failed)
      r->source_eof = 1;
    r->end += n;
  }
  return 0;
}

static struct stacks_reader *reader_new(const char *name)
{
  struct stacks_reader *r = calloc(1, sizeof *r);
  if (!r)
    return NULL;
  r->fd = -1;
  r->name = strdup(name);
  if (!r->name) {
    free(r);
    return NULL;
  }
  return r;
}

/* Recognises gzip, checks the header. 0, or -1 with err filled. */
static int reader_start(struct stacks_reader *r, struct format_error *err)
{
  size_t got = 0;
  while (got < 2) {
    ssize_t n = raw_read(r, r->prefix + got, 2 - got);
    if (n <= 0)
      break;
    got += (size_t)n;
  }
  r->prefix_size = got;
  if (got == 2 && r->prefix[0] == 0x1f && r->prefix[1] == 0x8b) {
    r->gzip = r->gzip_live = 1;
    r->raw = malloc(STACKS_READER_CHUNK);
    if (!r->raw || inflateInit2(&r->zs, 15 + 16) != Z_OK) {
      free(r->raw);
      r->raw = NULL;
      r->gzip = 0;
      fail(r, FORMAT_NO_MEMORY, 0, "out of memory");
      *err = r->error;
      return -1;
    }
  }
  if (refill(r, STACKS_HEADER_BYTES) != 0 || (r->source_failed && r->end < STACKS_HEADER_BYTES)) {
    source_failure(r);
    *err = r->error;
    return -1;
  }
  size_t have = r->end;
  if (have < STACKS_HEADER_BYTES &&
      memcmp(r->buf, STACKS_MAGIC, have < 4 ? have : 4) == 0) {
    fail(r, FORMAT_CUT, 0, "the sidecar ends inside its header");
    *err = r->error;
    return -1;
  }
  if (have < 4 || memcmp(r->buf, STACKS_MAGIC, 4) != 0) {
    fail(r, FORMAT_BAD_INPUT, 0, "not a stack sidecar (no \"ljst\" magic)");
    *err = r->error;
    return -1;
  }
  if (r->buf[4] != STACKS_VERSION) {
    fail(r, FORMAT_UNSUPPORTED, 4, "sidecar version %u, this reader knows %u", r->buf[4],
         STACKS_VERSION);
    *err = r->error;
    return -1;
  }
  if (r->buf[5] || r->buf[6] || r->buf[7]) {
    fail(r, FORMAT_BAD_INPUT, 5, "reserved header bytes are not zero");
    *err = r->error;
    return -1;
  }
  r->pos = STACKS_HEADER_BYTES;
  return 0;
}

struct stacks_reader *stacks_reader_open(const char *path, struct format_error *err)
{
  format_error_clear(err);
  struct stacks_reader *r = reader_new(path);
  if (!r) {
    format_error_set(err, FORMAT_NO_MEMORY, "%s: out of memory", path);
    return NULL;
  }
  r->fd = input_file_open(AT_FDCWD, path, path, INPUT_FILE_FOUND, err);
  if (r->fd < 0) {
    stacks_reader_close(r);
    return NULL;
  }
  if (reader_start(r, err) != 0) {
    stacks_reader_close(r);
    return NULL;
  }
  return r;
}

struct stacks_reader *stacks_reader_open_memory(const void *data, size_t size, const char *name,
                                                struct format_error *err)
{
  format_error_clear(err);
  struct stacks_reader *r = reader_new(name);
  if (!r) {
    format_error_set(err, FORMAT_NO_MEMORY, "%s: out of memory", name);
    return NULL;
  }
  r->memory = data;
  r->memory_size = size;
  if (reader_start(r, err) != 0) {
    stacks_reader_close(r);
    return NULL;
  }
  return r;
}

void stacks_reader_close(struct stacks_reader *r)
{
  if (!r)
    return;
  if (r->fd >= 0)
    close(r->fd);
  if (r->gzip)
    inflateEnd(&r->zs);
  free(r->raw);
  free(r->buf);
  for (uint32_t i = 1; i <= r->string_count; i++)
    free(r->strings[i]);
  free(r->strings);
  free(r->string_lengths);
  for (uint32_t i = 1; i <= r->stack_count; i++)
    free(r->stacks[i]);
  free(r->stacks);
  free(r->name);
  free(r);
}

/* A cursor over buf[pos, end) for one record. */
struct stacks_cursor {
  const uint8_t *at, *end;
  int bad;                 /* an over-long ULEB128 */
};

/* 1 with *value, 0 if the bytes end first (or bad is set). */
static int take_uleb(struct stacks_cursor *c, uint64_t *value)
{
  int n = memprof_uleb128_decode(c->at, (size_t)(c->end - c->at), value);
  if (n < 0)
    c->bad = 1;
  if (n <= 0)
    return 0;
  c->at += n;
  return 1;
}

enum parse { PARSE_OK, PARSE_SHORT, PARSE_BAD };

static enum parse parse_string(struct stacks_reader *r, struct stacks_cursor *c, uint64_t offset,
                               struct stacks_record *rec)
{
  uint64_t length;
  if (!take_uleb(c, &length))
    return c->bad ? (fail(r, FORMAT_BAD_INPUT, offset, "bad string length"), PARSE_BAD) : PARSE_SHORT;
  if (length > STRING_MAX)
    return fail(r, FORMAT_BAD_INPUT, offset, "string of %llu bytes, more than the %u accepted",
                (unsigned long long)length, STRING_MAX), PARSE_BAD;
  if ((uint64_t)(c->end - c->at) < length)
    return PARSE_SHORT;
  if ((size_t)r->string_count + 1 >= r->string_capacity) {  /* [0] unused: room for [count + 1] */
    size_t capacity = r->string_capacity;
    if (array_reserve((void **)&r->strings, &capacity, (size_t)r->string_count + 2, sizeof *r->strings) != 0 ||
        array_resize((void **)&r->string_lengths, capacity, sizeof *r->string_lengths) != 0)
      return fail(r, FORMAT_NO_MEMORY, offset, "out of memory"), PARSE_BAD;
    r->string_capacity = capacity;
  }
  char *copy = malloc((size_t)length + 1);
  if (!copy)
    return fail(r, FORMAT_NO_MEMORY, offset, "out of memory"), PARSE_BAD;
  memcpy(copy, c->at, (size_t)length);
  copy[length] = '\0';
  c->at += length;
  uint32_t id = ++r->string_count;
  r->strings[id] = copy;
  r->string_lengths[id] = (size_t)length;
  *rec = (struct stacks_record){.type = STACKS_RECORD_STRING, .id = id, .string = copy,
                                .string_length = (size_t)length};
  return PARSE_OK;
}

static enum parse parse_stack(struct stacks_reader *r, struct stacks_cursor *c, uint64_t offset,
                              struct stacks_record *rec)
{
  uint64_t flags, count;
  if (!take_uleb(c, &flags) || !take_uleb(c, &count))
    return c->bad ? (fail(r, FORMAT_BAD_INPUT, offset, "bad stack header"), PARSE_BAD) : PARSE_SHORT;
  if (flags & ~(uint64_t)STACKS_FLAG_TRUNCATED)
    return fail(r, FORMAT_BAD_INPUT, offset, "unknown stack flags 0x%llx",
                (unsigned long long)flags), PARSE_BAD;
  if (count > STACKS_MAX_FRAMES)
    return fail(r, FORMAT_BAD_INPUT, offset, "a stack of %llu frames, more than %u",
                (unsigned long long)count, STACKS_MAX_FRAMES), PARSE_BAD;
  /* Every frame is decoded before anything is kept: a short record is read again. */
  struct stacks_frame frames[STACKS_MAX_FRAMES];
  for (uint64_t i = 0; i < count; i++) {
    if (c->at >= c->end)
      return PARSE_SHORT;
    uint8_t kind = *c->at++;
    uint64_t name, defined, line;
    if (!take_uleb(c, &name) || !take_uleb(c, &defined) || !take_uleb(c, &line))
      return c->bad ? (fail(r, FORMAT_BAD_INPUT, offset, "bad frame %llu", (unsigned long long)i),
                       PARSE_BAD) : PARSE_SHORT;
    if (kind > STACKS_FRAME_COROUTINE)
      return fail(r, FORMAT_BAD_INPUT, offset, "frame %llu has unknown kind %u",
                  (unsigned long long)i, kind), PARSE_BAD;
    if (name > r->string_count)
      return fail(r, FORMAT_BAD_INPUT, offset, "frame %llu names string %llu, not defined before",
                  (unsigned long long)i, (unsigned long long)name), PARSE_BAD;
    frames[i] = (struct stacks_frame){
      .kind = (enum stacks_frame_kind)kind,
      .name = name ? r->strings[name] : "",
      .name_length = name ? r->string_lengths[name] : 0,
      .defined = defined,
      .line = line,
    };
  }
  if (array_reserve((void **)&r->stacks, &r->stack_capacity, (size_t)r->stack_count + 2, sizeof *r->stacks) != 0)
    return fail(r, FORMAT_NO_MEMORY, offset, "out of memory"), PARSE_BAD;
  struct stacks_stack *st = malloc(sizeof *st + (size_t)count * sizeof frames[0]);
  if (!st)
    return fail(r, FORMAT_NO_MEMORY, offset, "out of memory"), PARSE_BAD;
  struct stacks_frame *kept = (struct stacks_frame *)(st + 1);
  memcpy(kept, frames, (size_t)count * sizeof frames[0]);
  st->id = ++r->stack_count;
  st->flags = (uint32_t)flags;
  st->frame_count = (uint32_t)count;
  st->frames = kept;
  st->hash = stacks_hash(kept, (uint32_t)count);
  r->stacks[st->id] = st;
  *rec = (struct stacks_record){.type = STACKS_RECORD_STACK, .id = st->id, .stack = st};
  return PARSE_OK;
}

static enum parse parse_event(struct stacks_reader *r, struct stacks_cursor *c, uint64_t offset,
                              struct stacks_record *rec)
{
  uint64_t skip, stack;
  if (!take_uleb(c, &skip) || !take_uleb(c, &stack))
    return c->bad ? (fail(r, FORMAT_BAD_INPUT, offset, "bad event record"), PARSE_BAD) : PARSE_SHORT;
  if (stack == 0 || stack > r->stack_count)
    return fail(r, FORMAT_BAD_INPUT, offset, "event names stack %llu, not defined before",
                (unsigned long long)stack), PARSE_BAD;
  /* next_event is UINT64_MAX after an event numbered UINT64_MAX - 1: no event can follow
   * (the bound below would wrap). */
  if (r->next_event == UINT64_MAX || skip > UINT64_MAX - 1 - r->next_event)
    return fail(r, FORMAT_BAD_INPUT, offset, "event number overflows"), PARSE_BAD;
  *rec = (struct stacks_record){.type = STACKS_RECORD_EVENT, .event = r->next_event + skip,
                                .stack_id = (uint32_t)stack};
  r->next_event = rec->event + 1;
  return PARSE_OK;
}

/* After the END record: nothing may follow. */
static enum format_status reader_end(struct stacks_reader *r, uint64_t offset)
{
  if (r->pos == r->end && refill(r, 1) != 0)
    return r->error.status;
  if (r->pos != r->end)
    return fail(r, FORMAT_BAD_INPUT, r->base + r->pos, "bytes after the end record");
  if (r->source_failed)
    return source_failure(r);  /* a damaged gzip trailer */
  return fail(r, FORMAT_END, offset, "end of the sidecar");
}

enum format_status stacks_reader_next(struct stacks_reader *r, struct stacks_record *rec)
{
  if (r->error.status != FORMAT_OK)
    return r->error.status;
  memset(rec, 0, sizeof *rec);
  for (size_t want = 1;;) {
    if (r->end - r->pos < want && !r->source_eof && refill(r, want) != 0)
      return r->error.status;
    uint64_t offset = r->base + r->pos;
    if (r->pos == r->end)
      return input_ended(r, offset, "without its end record");
    struct stacks_cursor c = {r->buf + r->pos + 1, r->buf + r->end, 0};
    enum parse p;
    switch (r->buf[r->pos]) {
    case STACKS_TAG_END:
      r->pos++;
      return reader_end(r, offset);
    case STACKS_TAG_STRING: p = parse_string(r, &c, offset, rec); break;
    case STACKS_TAG_STACK: p = parse_stack(r, &c, offset, rec); break;
    case STACKS_TAG_EVENT: p = parse_event(r, &c, offset, rec); break;
    default:
      return fail(r, FORMAT_BAD_INPUT, offset, "unknown record tag %u", r->buf[r->pos]);
    }
    if (p == PARSE_BAD)
      return r->error.status;
    if (p == PARSE_OK) {
      rec->offset = offset;
      r->pos = (size_t)(c.at - r->buf);
      return FORMAT_OK;
    }
    if (r->source_eof)
      return input_ended(r, offset, "inside a record");
    /* Short: read until the record fits (a long string may need a bigger buffer). */
    size_t have = r->end - r->pos;
    want = have < r->capacity ? r->capacity : have * 2;
  }
}

enum format_status stacks_reader_event(struct stacks_reader *r, uint64_t event,
                                       uint32_t *stack_id)
{
  *stack_id = 0;
  for (;;) {
    if (r->has_pending) {
      if (r->pending_event == event) {
        r->has_pending = 0;
        *stack_id = r->pending_stack;
        return FORMAT_OK;
      }
      if (r->pending_event > event)
        return FORMAT_OK;   /* the record is a later event's: this one has none */
      r->has_pending = 0;    /* an event the caller did not ask for */
    }
    struct stacks_record rec;
    enum format_status s = stacks_reader_next(r, &rec);
    if (s != FORMAT_OK)
      return s;
    if (rec.type == STACKS_RECORD_EVENT) {
      r->has_pending = 1;
      r->pending_event = rec.event;
      r->pending_stack = rec.stack_id;
    }
  }
}

const struct stacks_stack *stacks_reader_stack(const struct stacks_reader *r, uint32_t id)
{
  return id >= 1 && id <= r->stack_count ? r->stacks[id] : NULL;
}

uint32_t stacks_reader_stack_count(const struct stacks_reader *r)
{
  return r->stack_count;
}

const struct format_error *stacks_reader_error(const struct stacks_reader *r)
{
  return &r->error;
}

uint64_t stacks_reader_offset(const struct stacks_reader *r)
{
  return r->base + r->pos;
}

uint64_t stacks_hash(const struct stacks_frame *frames, uint32_t frame_count)
{
  /* Chained: each piece seeds the next. */
  uint64_t h = 0x6c6a7374u;
  for (uint32_t i = 0; i < frame_count; i++) {
    uint64_t head[4] = {(uint64_t)frames[i].kind, frames[i].defined, frames[i].line,
                        (uint64_t)frames[i].name_length};
    h = XXH3_64bits_withSeed(head, sizeof head, h);
    h = XXH3_64bits_withSeed(frames[i].name, frames[i].name_length, h);
  }
  return h;
}

