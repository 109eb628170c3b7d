/* format/reader.c: streaming memprof reader (plain, gzip by content, stdin, memory) in constant memory. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "format/decode.h"
#include "format/memprof.h"

#include "format/reader_internal.h"

/* ---- Decoding ------------------------------------------------------------- */

/* A bounds-checked cursor over the window. */
struct reader_cursor {
  const uint8_t *at;
  const uint8_t *end;
};

/* 1 read, 0 short, -1 over-long or overflowing. */
static int cursor_uleb(struct reader_cursor *c, uint64_t *value)
{
  int n = memprof_uleb128_decode(c->at, (size_t)(c->end - c->at), value);
  if (n > 0) {
    c->at += n;
    return 1;
  }
  return n;
}

int memprof_cpu_fast_pext(void)
{
  const char *off = getenv("LJLEAK_NO_PEXT");
  if (off && *off && strcmp(off, "0") != 0)
    return 0;
#if defined(__x86_64__) && defined(__GNUC__)
  __builtin_cpu_init();
  return __builtin_cpu_supports("bmi2") && !__builtin_cpu_is("amdfam15h") &&
         !__builtin_cpu_is("amdfam17h");
#else
  return 0;
#endif
}

static enum format_status bad_uleb(struct memprof_reader *r, uint64_t record_offset,
                                   uint64_t at)
{
  return reader_fail(r, FORMAT_BAD_INPUT, record_offset,
                     "over-long or overflowing ULEB128 at byte %llu", (unsigned long long)at);
}

/* Decodes an event from the window with no bounds checks (decode.h). */
static inline __attribute__((always_inline)) enum decode_result
decode_event_fast(struct memprof_reader *r, struct memprof_event *e, int pext)
{
  size_t length = memprof_decode_event(r->window + r->pos, r->events_version, e, pext);
  if (!length)
    return DECODE_BAD;
  r->pos += length;
  return DECODE_OK;
}

/* The same with bounds checks, near the end of the input. */
static enum decode_result decode_event_checked(struct memprof_reader *r, uint8_t header,
                                               struct memprof_record *record)
{
  struct reader_cursor c = {r->window + r->pos + 1, r->window + r->end};
  uint64_t v[6] = {0, 0, 0, 0, 0, 0};
  unsigned source = header >> 2, kind = header & 3;
  int fields = source == MEMPROF_SOURCE_LUA ? 2 : source == MEMPROF_SOURCE_INTERNAL ? 0 : 1;
  int first_body = 2;
  int total = first_body + (kind == MEMPROF_EVENT_REALLOC ? 4 : 2);
  for (int i = 0; i < total; i++) {
    if (i < first_body && i >= fields)
      continue;
    int rc = cursor_uleb(&c, &v[i]);
    if (rc == 0)
      return DECODE_SHORT;
    if (rc < 0) {
      bad_uleb(r, r->base + r->pos, r->base + (uint64_t)(c.at - r->window));
      return DECODE_BAD;
    }
  }
  struct memprof_event *e = &record->event;
  e->kind = (enum memprof_event_kind)kind;
  e->source = (enum memprof_source)source;
  e->location = v[0];
  e->line = v[1];
  if (kind == MEMPROF_EVENT_ALLOC) {
    e->old_address = 0;
    e->old_size = 0;
    e->new_address = v[2];
    e->new_size = v[3];
  } else {
    e->old_address = v[2];
    e->old_size = v[3];
    e->new_address = v[4];
    e->new_size = v[5];
  }
  r->pos = (size_t)(c.at - r->window);
  return DECODE_OK;
}

/* Where a symbol body's string is, when the window ends inside it. */
struct pending_string {
  uint64_t length;
  const uint8_t *payload;  /* first byte of the string in the window */
};

/* Decodes a symbol body (after its header) from [c->at, c->end). */
static enum decode_result decode_symbol_body(struct memprof_reader *r, uint64_t record_offset,
                                             struct reader_cursor *c, struct memprof_symbol *s,
                                             int with_trace_mcode, struct pending_string *pending)
{
  uint64_t ignored;
  int rc;
  s->address = s->line = s->trace = 0;
  s->name = NULL;
  s->name_length = 0;
#define FIELD(dst)                                                                  \
  do {                                                                              \
    rc = cursor_uleb(c, (dst));                                                     \
    if (rc == 0)                                                                    \
      return DECODE_SHORT;                                                          \
    if (rc < 0) {                                                                   \
      bad_uleb(r, record_offset, r->base + (uint64_t)(c->at - r->window));          \
      return DECODE_BAD;                                                            \
    }                                                                               \
  } while (0)
  if (s->kind == MEMPROF_SYMBOL_TRACE) {
    FIELD(&s->trace);
    if (with_trace_mcode)
      FIELD(&ignored);  /* version 2: the trace's machine-code address */
    FIELD(&s->address);
    FIELD(&s->line);
    return DECODE_OK;
  }
  FIELD(&s->address);
  uint64_t length;
  FIELD(&length);
  if (length > READER_STRING_MAX) {
    reader_fail(r, FORMAT_BAD_INPUT, record_offset,
                "string length %llu exceeds the limit of %u bytes",
                (unsigned long long)length, READER_STRING_MAX);
    return DECODE_BAD;
  }
  pending->length = length;
  pending->payload = c->at;
  if ((uint64_t)(c->end - c->at) < length)
    return DECODE_SHORT;
  s->name = (const char *)c->at;
  s->name_length = (size_t)length;
  c->at += length;
  if (s->kind == MEMPROF_SYMBOL_LUA)
    FIELD(&s->line);
#undef FIELD
  return DECODE_OK;
}

/* A name longer than the window: gather it in r->strings, then read what follows. */
static enum format_status read_long_symbol(struct memprof_reader *r, uint64_t record_offset,
                                           struct pending_string *pending,
                                           struct memprof_record *record)
{
  struct memprof_symbol *s = &record->symbol;
  size_t length = (size_t)pending->length;
  if (r->strings_capacity < length) {
    uint8_t *grown = realloc(r->strings, length);
    if (grown == NULL)
      return reader_fail(r, FORMAT_NO_MEMORY, record_offset, "out of memory for a %zu-byte name",
                         length);
    r->strings = grown;
    r->strings_capacity = length;
  }
  r->pos = (size_t)(pending->payload - r->window);
  size_t copied = 0;
  while (copied < length) {
    size_t available = r->end - r->pos;
    if (available == 0) {
      reader_window_refill(r);
      available = r->end - r->pos;
      if (available == 0)
        return reader_fail_cut_string(r, record_offset, length, copied);
    }
    size_t n = length - copied < available ? length - copied : available;
    memcpy(r->strings + copied, r->window + r->pos, n);
    copied += n;
    r->pos += n;
  }
  s->name = (const char *)r->strings;
  s->name_length = length;
  if (s->kind == MEMPROF_SYMBOL_LUA) {
    if (r->end - r->pos < MEMPROF_ULEB128_MAX)
      reader_window_refill(r);
    struct reader_cursor c = {r->window + r->pos, r->window + r->end};
    int rc = cursor_uleb(&c, &s->line);
    if (rc == 0)
      return reader_cut(r, record_offset, "cut mid-record");
    if (rc < 0)
      return bad_uleb(r, record_offset, r->base + r->pos);
    r->pos = (size_t)(c.at - r->window);
  }
  return FORMAT_OK;
}

/* Decodes a symbol record (prologue entry or symtab event) whose header is at pos. */
static enum format_status read_symbol(struct memprof_reader *r, enum memprof_symbol_kind kind,
                                      int in_stream, struct memprof_record *record)
{
  uint64_t record_offset = r->base + r->pos;
  int mcode = r->symtab_version == 2;
  record->type = MEMPROF_RECORD_SYMBOL;
  record->in_stream = in_stream;
  record->symbol.kind = kind;
  for (int attempt = 0;; attempt++) {
    struct reader_cursor c = {r->window + r->pos + 1, r->window + r->end};
    struct pending_string pending = {0, NULL};
    enum decode_result result = decode_symbol_body(r, record_offset, &c, &record->symbol, mcode,
                                                   &pending);
    if (result == DECODE_BAD)
      return r->error.status;
    if (result == DECODE_OK) {
      r->pos = (size_t)(c.at - r->window);
      record->offset = record_offset;
      return FORMAT_OK;
    }
    if (r->source_eof) {
      if (pending.payload != NULL &&
          pending.length > (uint64_t)(r->window + r->end - pending.payload))
        return reader_fail_cut_string(r, record_offset, pending.length,
                                      (uint64_t)(r->window + r->end - pending.payload));
      return reader_cut(r, record_offset, "cut mid-record");
    }
    if (attempt > 0) {
      /* The window is full and the record is longer: its name must be. */
      record->offset = record_offset;
      if (pending.payload == NULL)
        return reader_cut(r, record_offset, "cut mid-record");
      return read_long_symbol(r, record_offset, &pending, record);
    }
    reader_window_refill(r);
    record_offset = r->base + r->pos;
  }
}

/* ---- Parts of the stream --------------------------------------------------- */

static void quote_bytes(char *out, size_t size, const uint8_t *bytes, size_t count)
{
  size_t n = 0;
  out[0] = '\0';
  for (size_t i = 0; i < count && n + 5 < size; i++) {
    if (bytes[i] >= 0x20 && bytes[i] < 0x7f && bytes[i] != '"' && bytes[i] != '\\')
      out[n++] = (char)bytes[i];
    else
      n += (size_t)snprintf(out + n, size - n, "\\x%02x", bytes[i]);
  }
  out[n] = '\0';
}

/* Checks the 7-byte header of a part; returns FORMAT_OK or a final status. */
static enum format_status read_part_header(struct memprof_reader *r, const char *magic,
                                           const char *part)
{
  uint64_t offset = r->base + r->pos;
  size_t available = r->end - r->pos;
  const uint8_t *h = r->window + r->pos;
  size_t magic_seen = available < 3 ? available : 3;
  if (memcmp(h, magic, magic_seen) != 0) {
    char quoted[32];
    quote_bytes(quoted, sizeof quoted, h, magic_seen);
    return reader_fail(r, FORMAT_BAD_INPUT, offset,
                       "not a memprof stream: %s magic is \"%s\", expected \"%s\"", part, quoted,
                       magic);
  }
  if (available < HEADER_BYTES)
    return reader_cut(r, offset, "cut inside a header");
  return FORMAT_OK;
}

static enum format_status read_symtab_header(struct memprof_reader *r)
{
  if (r->end == 0 && r->base == 0) {
    if (r->source_failed)
      return reader_cut(r, 0, "");  /* damaged gzip data before the stream's first byte: its error */
    if (r->gzip_cut)
      return reader_fail(r, FORMAT_CUT, 0, "gzip data ends before the stream's first byte");
    return reader_fail(r, FORMAT_BAD_INPUT, 0, "empty input: not a memprof stream");
  }
  enum format_status status = read_part_header(r, MEMPROF_SYMTAB_MAGIC, "symtab");
  if (status != FORMAT_OK)
    return status;
  int version = r->window[r->pos + 3];
  r->symtab_version = version;
  if (version < 1 || version > 3)
    return reader_fail(r, FORMAT_UNSUPPORTED, r->base + r->pos,
                       "unsupported memprof version: symtab %d (events version not reached; "
                       "ljleak reads 3/3 and 1/1)", version);
  r->pos += HEADER_BYTES;
  r->phase = PHASE_SYMTAB;
  return FORMAT_OK;
}

static enum format_status read_events_header(struct memprof_reader *r)
{
  enum format_status status = read_part_header(r, MEMPROF_EVENTS_MAGIC, "events");
  if (status != FORMAT_OK)
    return status;
  int version = r->window[r->pos + 3];
  r->events_version = version;
  if (!((r->symtab_version == 3 && version == 3) || (r->symtab_version == 1 && version == 1)))
    return reader_fail(r, FORMAT_UNSUPPORTED, r->base + r->pos,
                       "unsupported memprof version: symtab %d, events %d (ljleak reads 3/3 and 1/1)",
                       r->symtab_version, version);
  r->pos += HEADER_BYTES;
  r->phase = PHASE_EVENTS;
  return FORMAT_OK;
}

/* Symbol kind of a prologue entry type, by symtab version; -1 if it has none. */
static int prologue_symbol_kind(int version, unsigned type)
{
  if (type == 0)
    return MEMPROF_SYMBOL_LUA;
  if (version == 3 && type <= 2)
    return (int)type;  /* 1 = C symbol, 2 = trace */
  if (version == 2 && type == 1)
    return MEMPROF_SYMBOL_TRACE;  /* version 2 had traces as type 1 and no C symbols */
  return -1;
}

/* One prologue entry, or the end of the prologue. */
static enum format_status read_symtab_entry(struct memprof_reader *r,
                                            struct memprof_record *record, int *entry_done)
{
  uint8_t header = r->window[r->pos];
  *entry_done = 0;
  if (header & MEMPROF_EPILOGUE) {
    r->pos++;
    r->phase = PHASE_EVENTS_HEADER;
    return FORMAT_OK;
  }
  int kind = prologue_symbol_kind(r->symtab_version, header & 3u);
  if (kind < 0)
    return reader_fail(r, FORMAT_BAD_INPUT, r->base + r->pos,
                       "invalid symtab entry header byte 0x%02x (type %u in symtab version %d)",
                       header, header & 3u, r->symtab_version);
  *entry_done = 1;
  return read_symbol(r, (enum memprof_symbol_kind)kind, 0, record);
}

static enum format_status read_event(struct memprof_reader *r, struct memprof_record *record)
{
  uint8_t header = r->window[r->pos];
  if (header == MEMPROF_EPILOGUE) {
    r->pos++;
    return reader_finish(r);
  }
  if (!memprof_event_header_is_valid(header, r->events_version))
    return reader_fail(r, FORMAT_BAD_INPUT, r->base + r->pos,
                       "invalid event header byte 0x%02x", header);
  if ((header & 3) == MEMPROF_EVENT_SYMTAB) {
    static const enum memprof_symbol_kind by_source[] = {
        [MEMPROF_SOURCE_LUA] = MEMPROF_SYMBOL_LUA,
        [MEMPROF_SOURCE_C] = MEMPROF_SYMBOL_C,
        [MEMPROF_SOURCE_TRACE] = MEMPROF_SYMBOL_TRACE,
    };
    return read_symbol(r, by_source[header >> 2], 1, record);
  }
  uint64_t offset = r->base + r->pos;
  enum decode_result result;
  if (r->end - r->pos >= READER_FAST_BYTES) {
    result = r->pext ? decode_event_fast(r, &record->event, 1)
                     : decode_event_fast(r, &record->event, 0);
    if (result == DECODE_BAD) {
      /* Re-decode with checks to name the bad byte. */
      result = decode_event_checked(r, header, record);
    }
  } else {
    result = decode_event_checked(r, header, record);
  }
  if (result == DECODE_BAD)
    return r->error.status;
  if (result == DECODE_SHORT)
    return reader_cut(r, offset, "cut mid-record");
  record->type = MEMPROF_RECORD_EVENT;
  record->in_stream = 1;
  record->offset = offset;
  return FORMAT_OK;
}

/* ---- Public API ------------------------------------------------------------ */

enum format_status memprof_reader_next(struct memprof_reader *r, struct memprof_record *record)
{
  for (;;) {
    if (r->phase == PHASE_DONE)
      return r->error.status;
    if (r->end - r->pos < READER_FAST_BYTES && !r->source_eof)
      reader_window_refill(r);
    if (r->pos == r->end && r->phase != PHASE_SYMTAB_HEADER)
      return reader_cut(r, r->base + r->pos, "cut between records");
    enum format_status status;
    switch (r->phase) {
    case PHASE_EVENTS:
      return read_event(r, record);
    case PHASE_SYMTAB: {
      int entry_done;
      status = read_symtab_entry(r, record, &entry_done);
      if (status != FORMAT_OK || entry_done)
        return status;
      break;
    }
    case PHASE_SYMTAB_HEADER:
      status = read_symtab_header(r);
      if (status != FORMAT_OK)
        return status;
      break;
    case PHASE_EVENTS_HEADER:
      status = read_events_header(r);
      if (status != FORMAT_OK)
        return status;
      break;
    case PHASE_DONE:
      break;
    }
  }
}

void memprof_reader_use_pext(struct memprof_reader *r, int use)
{
  r->pext = use && memprof_cpu_fast_pext();
}

int memprof_reader_pext(const struct memprof_reader *r)
{
  return r->pext;
}

size_t memprof_reader_events_span(const struct memprof_reader *r, const uint8_t **at)
{
  *at = r->window + r->pos;
  if (r->phase != PHASE_EVENTS || r->end - r->pos < READER_FAST_BYTES)
    return 0;
  return r->end - r->pos - (READER_FAST_BYTES - 1);
}

void memprof_reader_consume(struct memprof_reader *r, size_t bytes)
{
  r->pos += bytes;
}

static struct memprof_reader *reader_new(const char *name, struct format_error *err)
{
  struct memprof_reader *r = calloc(1, sizeof *r);
  if (r != NULL)
    r->name = strdup(name);
  if (r == NULL || r->name == NULL) {
    free(r);
    format_error_clear(err);
    format_error_set(err, FORMAT_NO_MEMORY, "%s: out of memory", name);
    return NULL;
  }
  r->fd = -1;
  r->phase = PHASE_SYMTAB_HEADER;
  r->pext = memprof_cpu_fast_pext();
  format_error_clear(&r->error);
  return r;
}

/* Looks at the first bytes and sets up plain or gzip decoding. */

struct memprof_reader *memprof_reader_open(const char *path, struct format_error *err)
{
  return memprof_reader_open_as(path, INPUT_FILE_NAMED, err);
}

struct memprof_reader *memprof_reader_open_as(const char *path, enum input_file_how how,
                                              struct format_error *err)
{
  int is_stdin = strcmp(path, "-") == 0;
  struct memprof_reader *r = reader_new(is_stdin ? "stdin" : path, err);
  if (r == NULL)
    return NULL;
  if (is_stdin) {
    r->fd = STDIN_FILENO;
  } else {
    r->fd = input_file_open(AT_FDCWD, path, r->name, how, err);
    if (r->fd < 0) {
      memprof_reader_close(r);
      return NULL;
    }
    r->owns_fd = 1;
  }
  if (reader_input_start(r, err) != 0) {
    memprof_reader_close(r);
    return NULL;
  }
  return r;
}

struct memprof_reader *memprof_reader_open_memory(const void *data, size_t size,
                                                  const char *name, struct format_error *err)
{
  struct memprof_reader *r = reader_new(name, err);
  if (r == NULL)
    return NULL;
  const uint8_t *bytes = data;
  if (size >= 2 && bytes[0] == 0x1f && bytes[1] == 0x8b) {
    r->memory = bytes;
    r->memory_size = size;
    if (reader_input_start(r, err) != 0) {
      memprof_reader_close(r);
      return NULL;
    }
    return r;
  }
  /* Plain memory is parsed in place: the window is the whole input. */
  static const uint8_t nothing[1] = {0};
  r->window = size > 0 ? bytes : nothing;
  r->end = size;
  r->decoded = size;
  r->capacity = size;
  r->source_eof = 1;
  r->raw_eof = 1;
  return r;
}

const struct format_error *memprof_reader_error(const struct memprof_reader *r)
{
  return &r->error;
}

int memprof_reader_symtab_version(const struct memprof_reader *r)
{
  return r->symtab_version;
}

int memprof_reader_events_version(const struct memprof_reader *r)
{
  return r->events_version;
}

uint64_t memprof_reader_offset(const struct memprof_reader *r)
{
  return r->base + r->pos;
}

void memprof_reader_close(struct memprof_reader *r)
{
  if (r == NULL)
    return;
  if (r->owns_fd && r->fd >= 0)
    close(r->fd);
  if (r->gzip)
    inflateEnd(&r->zs);
  free(r->raw);
  free(r->storage);
  free(r->strings);
  free(r->name);
  free(r);
}
