/* format/capture_index.c: the capture index's parser (docs/index-format.md): a whole index into its lines, with errors at their byte offset; the writer is capture_index_write.c. */
#include "format/capture_index.h"
#include "format/message.h"
#include "format/whole_file.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Parser ------------------------------------------------------------- */

struct parser {
  struct capture_index *index;
  const char *name;
  struct capture_index_error *error;
  const char *kind;           /* the line kind being read, for messages */
  unsigned header_keys;       /* 1 once version was read */
  size_t segment_capacity;
  size_t boundary_capacity;
};

/* One key=value field of a line, NUL-terminated in the index's copy. */
struct field {
  const char *key;
  size_t key_length;
  char *value;
  size_t value_length;
  size_t offset;              /* of the field's first byte in the index */
};

static enum capture_index_status parse_fail(struct parser *p, size_t offset, const char *format, ...)
  __attribute__((format(printf, 3, 4)));
static enum capture_index_status parse_fail(struct parser *p, size_t offset, const char *format, ...)
{
  struct capture_index_error *e = p->error;
  e->status = CAPTURE_INDEX_MALFORMED;
  e->offset = offset;
  va_list args;
  va_start(args, format);
  format_message_at(e->message, sizeof e->message, p->name, offset, format, args);
  va_end(args);
  return e->status;
}

static enum capture_index_status parse_no_memory(struct parser *p)
{
  p->error->status = CAPTURE_INDEX_NO_MEMORY;
  snprintf(p->error->message, sizeof p->error->message, "%s: out of memory", p->name);
  return p->error->status;
}

static int field_is(const struct field *f, const char *key)
{
  return f->key_length == strlen(key) && !memcmp(f->key, key, f->key_length);
}

/* Marks key bit as read; a key read twice is an error. */
static enum capture_index_status take_key(struct parser *p, const struct field *f, unsigned *keys,
                                          unsigned bit)
{
  if (*keys & bit)
    return parse_fail(p, f->offset, "%s line: %s given twice", p->kind, f->key);
  *keys |= bit;
  if (memchr(f->value, '\0', f->value_length))
    return parse_fail(p, f->offset, "%s line: %s has a NUL byte", p->kind, f->key);
  return CAPTURE_INDEX_OK;
}

static enum capture_index_status take_u64(struct parser *p, const struct field *f, uint64_t *out,
                                          unsigned *keys, unsigned bit)
{
  enum capture_index_status status = take_key(p, f, keys, bit);
  if (status != CAPTURE_INDEX_OK)
    return status;
  uint64_t value = 0;
  for (size_t i = 0; i < f->value_length; i++) {
    unsigned digit = (unsigned)(f->value[i] - '0');
    if (digit > 9 || value > (UINT64_MAX - digit) / 10)
      return parse_fail(p, f->offset, "%s line: %s is not a whole number", p->kind, f->key);
    value = value * 10 + digit;
  }
  if (f->value_length == 0)
    return parse_fail(p, f->offset, "%s line: %s is not a whole number", p->kind, f->key);
  *out = value;
  return CAPTURE_INDEX_OK;
}

static enum capture_index_status take_long(struct parser *p, const struct field *f, long *out,
                                           unsigned *keys, unsigned bit)
{
  enum capture_index_status status = take_key(p, f, keys, bit);
  if (status != CAPTURE_INDEX_OK)
    return status;
  int negative = f->value[0] == '-';
  unsigned long limit = negative ? (unsigned long)LONG_MAX + 1 : (unsigned long)LONG_MAX;
  unsigned long magnitude = 0;
  size_t count = f->value_length - (size_t)negative;
  for (size_t i = 0; i < count; i++) {
    unsigned digit = (unsigned)(f->value[negative + i] - '0');
    if (digit > 9 || magnitude > (limit - digit) / 10)
      return parse_fail(p, f->offset, "%s line: %s is not a whole number", p->kind, f->key);
    magnitude = magnitude * 10 + digit;
  }
  if (count == 0)
    return parse_fail(p, f->offset, "%s line: %s is not a whole number", p->kind, f->key);
  *out = negative ? -(long)(magnitude - 1) - 1 : (long)magnitude;
  return CAPTURE_INDEX_OK;
}

/* A time or a number of seconds: what strtod reads (in the C locale) from the
 * whole value, but no leading space; a decimal comma is read as a point, since
 * the collector formats with the process's LC_NUMERIC. */
static enum capture_index_status take_double(struct parser *p, const struct field *f, double *out,
                                             unsigned *keys, unsigned bit)
{
  enum capture_index_status status = take_key(p, f, keys, bit);
  if (status != CAPTURE_INDEX_OK)
    return status;
  for (size_t i = 0; i < f->value_length; i++)
    if (f->value[i] == ',')
      f->value[i] = '.';
  char *end = f->value;
  double value = 0;
  if (f->value_length && !isspace((unsigned char)f->value[0]))
    value = strtod(f->value, &end);
  if (!f->value_length || end != f->value + f->value_length)
    return parse_fail(p, f->offset, "%s line: %s is not a number", p->kind, f->key);
  *out = value;
  return CAPTURE_INDEX_OK;
}

static enum capture_index_status take_flag(struct parser *p, const struct field *f, int *out,
                                           unsigned *keys, unsigned bit)
{
  enum capture_index_status status = take_key(p, f, keys, bit);
  if (status != CAPTURE_INDEX_OK)
    return status;
  if (f->value_length != 1 || (f->value[0] != '0' && f->value[0] != '1'))
    return parse_fail(p, f->offset, "%s line: %s is not 0 or 1", p->kind, f->key);
  *out = f->value[0] - '0';
  return CAPTURE_INDEX_OK;
}

/* A text value: its escapes undone in place. */
static enum capture_index_status take_text(struct parser *p, const struct field *f, const char **out,
                                           unsigned *keys, unsigned bit)
{
  enum capture_index_status status = take_key(p, f, keys, bit);
  if (status != CAPTURE_INDEX_OK)
    return status;
  char *to = f->value;
  for (size_t i = 0; i < f->value_length; i++) {
    char c = f->value[i];
    if (c == '\\') {
      char next = i + 1 < f->value_length ? f->value[i + 1] : '\0';
      c = next == '\\' ? '\\' : next == 't' ? '\t' : next == 'n' ? '\n' : '\0';
      if (!c)
        return parse_fail(p, f->offset + f->key_length + 1 + i,
                          "%s line: %s has an unknown escape", p->kind, f->key);
      i++;
    }
    *to++ = c;
  }
  *to = '\0';
  *out = f->value;
  return CAPTURE_INDEX_OK;
}

static enum capture_index_status header_field(struct parser *p, const struct field *f)
{
  if (field_is(f, "version"))
    return take_u64(p, f, &p->index->version, &p->header_keys, 1);
  return CAPTURE_INDEX_OK;
}

static enum capture_index_status capture_field(struct parser *p, const struct field *f)
{
  struct capture_index_capture *c = &p->index->capture;
  unsigned *k = &c->keys;
  if (field_is(f, "pid"))
    return take_long(p, f, &c->pid, k, CAPTURE_INDEX_CAPTURE_HAS_PID);
  if (field_is(f, "host"))
    return take_text(p, f, &c->host, k, CAPTURE_INDEX_CAPTURE_HAS_HOST);
  if (field_is(f, "command"))
    return take_text(p, f, &c->command, k, CAPTURE_INDEX_CAPTURE_HAS_COMMAND);
  if (field_is(f, "luajit"))
    return take_text(p, f, &c->luajit, k, CAPTURE_INDEX_CAPTURE_HAS_LUAJIT);
  if (field_is(f, "start"))
    return take_double(p, f, &c->start, k, CAPTURE_INDEX_CAPTURE_HAS_START);
  if (field_is(f, "sample"))
    return take_u64(p, f, &c->sample, k, CAPTURE_INDEX_CAPTURE_HAS_SAMPLE);
  if (field_is(f, "period"))
    return take_double(p, f, &c->period, k, CAPTURE_INDEX_CAPTURE_HAS_PERIOD);
  if (field_is(f, "max_bytes"))
    return take_u64(p, f, &c->max_bytes, k, CAPTURE_INDEX_CAPTURE_HAS_MAX_BYTES);
  if (field_is(f, "gzip"))
    return take_flag(p, f, &c->gzip, k, CAPTURE_INDEX_CAPTURE_HAS_GZIP);
  if (field_is(f, "stacks"))
    return take_u64(p, f, &c->stacks, k, CAPTURE_INDEX_CAPTURE_HAS_STACKS);
  if (field_is(f, "exe"))
    return take_text(p, f, &c->exe, k, CAPTURE_INDEX_CAPTURE_HAS_EXE);
  if (field_is(f, "ppid"))
    return take_long(p, f, &c->ppid, k, CAPTURE_INDEX_CAPTURE_HAS_PPID);
  if (field_is(f, "luajit_flavour"))
    return take_text(p, f, &c->luajit_flavour, k, CAPTURE_INDEX_CAPTURE_HAS_LUAJIT_FLAVOUR);
  if (field_is(f, "luajit_package"))
    return take_text(p, f, &c->luajit_package, k, CAPTURE_INDEX_CAPTURE_HAS_LUAJIT_PACKAGE);
  if (field_is(f, "luajit_package_version"))
    return take_text(p, f, &c->luajit_package_version, k,
                     CAPTURE_INDEX_CAPTURE_HAS_LUAJIT_PACKAGE_VERSION);
  return CAPTURE_INDEX_OK;
}

static enum capture_index_status segment_field(struct parser *p, const struct field *f,
                                               struct capture_index_segment *s)
{
  unsigned *k = &s->keys;
  if (field_is(f, "seq"))
    return take_u64(p, f, &s->seq, k, CAPTURE_INDEX_SEGMENT_HAS_SEQ);
  if (field_is(f, "file"))
    return take_text(p, f, &s->file, k, CAPTURE_INDEX_SEGMENT_HAS_FILE);
  if (field_is(f, "start"))
    return take_double(p, f, &s->start, k, CAPTURE_INDEX_SEGMENT_HAS_START);
  if (field_is(f, "end"))
    return take_double(p, f, &s->end, k, CAPTURE_INDEX_SEGMENT_HAS_END);
  if (field_is(f, "gc_cycles"))
    return take_u64(p, f, &s->gc_cycles, k, CAPTURE_INDEX_SEGMENT_HAS_GC_CYCLES);
  if (field_is(f, "heap_bytes"))
    return take_u64(p, f, &s->heap_bytes, k, CAPTURE_INDEX_SEGMENT_HAS_HEAP_BYTES);
  if (field_is(f, "events"))
    return take_u64(p, f, &s->events, k, CAPTURE_INDEX_SEGMENT_HAS_EVENTS);
  if (field_is(f, "bytes"))
    return take_u64(p, f, &s->bytes, k, CAPTURE_INDEX_SEGMENT_HAS_BYTES);
  if (field_is(f, "sample"))
    return take_u64(p, f, &s->sample, k, CAPTURE_INDEX_SEGMENT_HAS_SAMPLE);
  if (field_is(f, "complete"))
    return take_flag(p, f, &s->complete, k, CAPTURE_INDEX_SEGMENT_HAS_COMPLETE);
  if (field_is(f, "young_from"))
    return take_u64(p, f, &s->young_from, k, CAPTURE_INDEX_SEGMENT_HAS_YOUNG_FROM);
  if (field_is(f, "trace_events"))
    return take_u64(p, f, &s->trace_events, k, CAPTURE_INDEX_SEGMENT_HAS_TRACE_EVENTS);
  if (field_is(f, "trace_lines"))
    return take_u64(p, f, &s->trace_lines, k, CAPTURE_INDEX_SEGMENT_HAS_TRACE_LINES);
  return CAPTURE_INDEX_OK;
}

static enum capture_index_status boundary_field(struct parser *p, const struct field *f,
                                                struct capture_index_boundary *b)
{
  unsigned *k = &b->keys;
  if (field_is(f, "seq"))
    return take_u64(p, f, &b->seq, k, CAPTURE_INDEX_BOUNDARY_HAS_SEQ);
  if (field_is(f, "segment"))
    return take_u64(p, f, &b->segment, k, CAPTURE_INDEX_BOUNDARY_HAS_SEGMENT);
  if (field_is(f, "events"))
    return take_u64(p, f, &b->events, k, CAPTURE_INDEX_BOUNDARY_HAS_EVENTS);
  if (field_is(f, "time"))
    return take_double(p, f, &b->time, k, CAPTURE_INDEX_BOUNDARY_HAS_TIME);
  if (field_is(f, "gc_cycles"))
    return take_u64(p, f, &b->gc_cycles, k, CAPTURE_INDEX_BOUNDARY_HAS_GC_CYCLES);
  if (field_is(f, "heap_bytes"))
    return take_u64(p, f, &b->heap_bytes, k, CAPTURE_INDEX_BOUNDARY_HAS_HEAP_BYTES);
  if (field_is(f, "allocated"))
    return take_u64(p, f, &b->allocated, k, CAPTURE_INDEX_BOUNDARY_HAS_ALLOCATED);
  if (field_is(f, "young_from"))
    return take_u64(p, f, &b->young_from, k, CAPTURE_INDEX_BOUNDARY_HAS_YOUNG_FROM);
  if (field_is(f, "cause"))
    return take_text(p, f, &b->cause, k, CAPTURE_INDEX_BOUNDARY_HAS_CAUSE);
  return CAPTURE_INDEX_OK;
}

static enum capture_index_status stop_field(struct parser *p, const struct field *f)
{
  struct capture_index_stop *s = &p->index->stop;
  if (field_is(f, "time"))
    return take_double(p, f, &s->time, &s->keys, CAPTURE_INDEX_STOP_HAS_TIME);
  if (field_is(f, "reason"))
    return take_text(p, f, &s->reason, &s->keys, CAPTURE_INDEX_STOP_HAS_REASON);
  return CAPTURE_INDEX_OK;
}

enum line_kind { LINE_UNKNOWN, LINE_HEADER, LINE_CAPTURE, LINE_SEGMENT, LINE_BOUNDARY, LINE_STOP };

static enum line_kind line_kind_of(const char *kind, size_t length)
{
  static const struct {
    const char *name;
    enum line_kind kind;
  } kinds[] = {
    {"ljleak-index", LINE_HEADER}, {"capture", LINE_CAPTURE}, {"segment", LINE_SEGMENT},
    {"boundary", LINE_BOUNDARY}, {"stop", LINE_STOP}
  };
  for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
    if (strlen(kinds[i].name) == length && !memcmp(kinds[i].name, kind, length))
      return kinds[i].kind;
  return LINE_UNKNOWN;
}

/* Lists a boundary line read whole; a cut one is dropped. */
static enum capture_index_status boundary_add(struct parser *p, const struct capture_index_boundary *boundary,
                                              size_t offset, int cut)
{
  struct capture_index *index = p->index;
  if (cut)
    return CAPTURE_INDEX_OK;
  if (!(boundary->keys & CAPTURE_INDEX_BOUNDARY_HAS_SEGMENT))
    return parse_fail(p, offset, "boundary line: no segment");
  if (!(boundary->keys & CAPTURE_INDEX_BOUNDARY_HAS_EVENTS))
    return parse_fail(p, offset, "boundary line: no events");
  if (boundary->young_from != CAPTURE_INDEX_YOUNG_FROM_NONE && boundary->young_from > boundary->events)
    return parse_fail(p, offset, "boundary line: young_from is greater than events");
  if (index->boundary_count == p->boundary_capacity) {
    size_t capacity = p->boundary_capacity ? p->boundary_capacity * 2 : 16;
    struct capture_index_boundary *grown = realloc(index->boundaries, capacity * sizeof *grown);
    if (!grown)
      return parse_no_memory(p);
    index->boundaries = grown;
    p->boundary_capacity = capacity;
  }
  index->boundaries[index->boundary_count++] = *boundary;
  return CAPTURE_INDEX_OK;
}

/* Reads one line of length bytes at offset (its newline, or what follows a
 * cut line's last tab, not included). */
static enum capture_index_status parse_line(struct parser *p, char *text, size_t offset, size_t length,
                                            int cut)
{
  struct capture_index *index = p->index;
  char *line = text + offset, *end = line + length;
  char *tab = memchr(line, '\t', length);
  size_t kind_length = tab ? (size_t)(tab - line) : length;
  enum line_kind kind = line_kind_of(line, kind_length);
  if (offset == 0 && kind != LINE_HEADER)
    return parse_fail(p, 0, "the first line is not the ljleak-index header");
  static const char *const kind_names[] = {"", "ljleak-index", "capture", "segment", "boundary", "stop"};
  p->kind = kind_names[kind];
  struct capture_index_segment segment;
  memset(&segment, 0, sizeof segment);
  struct capture_index_boundary boundary;
  memset(&boundary, 0, sizeof boundary);
  switch (kind) {
  case LINE_UNKNOWN:
    return CAPTURE_INDEX_OK;
  case LINE_HEADER:
    if (index->has_header)
      return parse_fail(p, offset, "a second ljleak-index line");
    index->has_header = 1;
    break;
  case LINE_CAPTURE:
    if (index->has_capture)
      return parse_fail(p, offset, "a second capture line");
    index->has_capture = 1;
    break;
  case LINE_SEGMENT:
    segment.young_from = CAPTURE_INDEX_YOUNG_FROM_NONE;
    break;
  case LINE_BOUNDARY:
    boundary.young_from = CAPTURE_INDEX_YOUNG_FROM_NONE;
    boundary.offset = offset;
    break;
  case LINE_STOP:
    if (index->has_stop)
      return parse_fail(p, offset, "a second stop line");
    index->has_stop = 1;
    break;
  }

  for (char *at = tab ? tab + 1 : end; at < end;) {
    char *field_end = memchr(at, '\t', (size_t)(end - at));
    if (!field_end)
      field_end = end;
    struct field f = {at, 0, NULL, 0, (size_t)(at - text)};
    char *next = field_end < end ? field_end + 1 : end;
    *field_end = '\0';
    if (field_end == at) {  /* an empty field */
      at = next;
      continue;
    }
    char *equals = memchr(at, '=', (size_t)(field_end - at));
    if (!equals)
      return parse_fail(p, f.offset, "%s line: a field without '='", p->kind);
    *equals = '\0';
    f.key_length = (size_t)(equals - at);
    f.value = equals + 1;
    f.value_length = (size_t)(field_end - f.value);
    enum capture_index_status status = CAPTURE_INDEX_OK;
    switch (kind) {
    case LINE_HEADER:
      status = header_field(p, &f);
      break;
    case LINE_CAPTURE:
      status = capture_field(p, &f);
      break;
    case LINE_SEGMENT:
      status = segment_field(p, &f, &segment);
      break;
    case LINE_BOUNDARY:
      status = boundary_field(p, &f, &boundary);
      break;
    case LINE_STOP:
      status = stop_field(p, &f);
      break;
    case LINE_UNKNOWN:
      break;
    }
    if (status != CAPTURE_INDEX_OK)
      return status;
    at = next;
  }

  if (kind == LINE_BOUNDARY)
    return boundary_add(p, &boundary, offset, cut);
  if (kind != LINE_SEGMENT)
    return CAPTURE_INDEX_OK;
  if (!(segment.keys & CAPTURE_INDEX_SEGMENT_HAS_FILE))
    return cut ? CAPTURE_INDEX_OK : parse_fail(p, offset, "segment line: no file");
  if (!*segment.file)
    return parse_fail(p, offset, "segment line: the file is empty");
  if (index->segment_count == p->segment_capacity) {
    size_t capacity = p->segment_capacity ? p->segment_capacity * 2 : 16;
    struct capture_index_segment *grown = realloc(index->segments, capacity * sizeof *grown);
    if (!grown)
      return parse_no_memory(p);
    index->segments = grown;
    p->segment_capacity = capacity;
  }
  index->segments[index->segment_count++] = segment;
  return CAPTURE_INDEX_OK;
}

enum capture_index_status capture_index_parse(struct capture_index *index, const char *data,
                                              size_t size, const char *name,
                                              struct capture_index_error *error)
{
  memset(index, 0, sizeof *index);
  memset(error, 0, sizeof *error);
  struct parser p = {index, name ? name : "index", error, "", 0, 0, 0};
  index->text = size < SIZE_MAX ? malloc(size + 1) : NULL;
  if (!index->text)
    return parse_no_memory(&p);
  if (size)
    memcpy(index->text, data, size);
  index->text[size] = '\0';

  enum capture_index_status status = CAPTURE_INDEX_OK;
  for (size_t offset = 0; offset < size && status == CAPTURE_INDEX_OK;) {
    char *line = index->text + offset;
    char *newline = memchr(line, '\n', size - offset);
    if (newline) {
      size_t length = (size_t)(newline - line);
      *newline = '\0';
      status = parse_line(&p, index->text, offset, length, 0);
      offset += length + 1;
      continue;
    }
    /* The last line, cut while it was written: only what precedes its last
     * tab is known to be whole. Without a tab even its kind may be cut. */
    index->last_line_cut = 1;
    index->last_line_offset = offset;
    char *last_tab = memrchr(line, '\t', size - offset);
    if (last_tab) {
      *last_tab = '\0';
      status = parse_line(&p, index->text, offset, (size_t)(last_tab - line), 1);
    }
    break;
  }
  if (status != CAPTURE_INDEX_OK) {
    capture_index_free(index);
    return status;
  }
  return CAPTURE_INDEX_OK;
}

enum capture_index_status capture_index_read_file(struct capture_index *index, const char *path,
                                                  struct capture_index_error *error)
{
  memset(index, 0, sizeof *index);
  memset(error, 0, sizeof *error);
  char *data;
  size_t size;
  enum whole_file_status read = whole_file_read(path, &data, &size, &error->system_error,
                                                error->message, sizeof error->message);
  if (read != WHOLE_FILE_OK) {
    error->status = read == WHOLE_FILE_NO_MEMORY ? CAPTURE_INDEX_NO_MEMORY : CAPTURE_INDEX_UNREADABLE;
    return error->status;
  }
  enum capture_index_status status = capture_index_parse(index, data, size, path, error);
  free(data);
  return status;
}

void capture_index_free(struct capture_index *index)
{
  free(index->text);
  free(index->segments);
  free(index->boundaries);
  memset(index, 0, sizeof *index);
}
