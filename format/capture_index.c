/* format/capture_index.c: the capture index's parser (docs/index-format.md): a whole index into its lines, with errors at their byte offset; the writer is capture_index_write.c. */
#include "format/capture_index.h"

#include "container/array.h"
#include "format/key_value.h"
#include "format/utf8.h"

#include <stddef.h>
#include <stdint.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Labels ------------------------------------------------------------- */

static int label_key_char(unsigned char c)
{
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '-' || c == '.';
}

static enum format_status label_fail(struct format_error *error, const char *format,
                                     size_t number, const char *text, size_t length)
{
  if (!error)
    return FORMAT_BAD_INPUT;
  return format_error_set(error, FORMAT_BAD_INPUT, format, number, (int)length, text);
}

enum format_status capture_index_labels_check(const char *labels, struct format_error *error)
{
  size_t count = 0;
  const char *at = labels;
  while (*at) {
    const char *end = strchr(at, ',');
    size_t length = end ? (size_t)(end - at) : strlen(at);
    const char *equals = memchr(at, '=', length);
    count++;
    if (count > CAPTURE_INDEX_LABEL_COUNT_MAX)
      return label_fail(error, "more than %zu labels%.*s",
                        CAPTURE_INDEX_LABEL_COUNT_MAX, "", 0);
    if (!equals)
      return label_fail(error, "label %zu: '%.*s' is not KEY=VALUE", count, at,
                        length > 64 ? 64 : length);
    size_t key_length = (size_t)(equals - at), value_length = length - key_length - 1;
    if (key_length == 0 || key_length > CAPTURE_INDEX_LABEL_KEY_MAX)
      return label_fail(error, "label %zu: the key must be 1 to 64 bytes%.*s",
                        count, "", 0);
    for (size_t i = 0; i < key_length; i++)
      if (!label_key_char((unsigned char)at[i]))
        return label_fail(error,
                          "label %zu: the key has a character other than letters, digits, "
                          "'_', '-' and '.'%.*s", count, "", 0);
    if (value_length == 0 || value_length > CAPTURE_INDEX_LABEL_VALUE_MAX)
      return label_fail(error, "label %zu: the value must be 1 to 128 bytes%.*s",
                        count, "", 0);
    const char *value = equals + 1;
    for (size_t i = 0; i < value_length;) {
      uint32_t c;
      size_t used = utf8_decode(value + i, value_length - i, &c);
      if ((c == 0xFFFD && used == 1 && (unsigned char)value[i] >= 0x80) || c < 0x20 || c == 0x7F ||
          (c >= 0x80 && c < 0xA0) || c == '\\' || c == 0x2028 || c == 0x2029)
        return label_fail(error,
                          "label %zu: the value has a control character, a backslash or "
                          "bytes that are not UTF-8%.*s", count, "", 0);
      i += used;
    }
    /* Each key once: a reader keeps one value per key. */
    for (const char *other = labels; other < at;) {
      const char *other_end = strchr(other, ',');
      const char *other_equals = memchr(other, '=', (size_t)(other_end - other));
      if ((size_t)(other_equals - other) == key_length && !memcmp(other, at, key_length))
        return label_fail(error, "label %zu: the key '%.*s' is given twice",
                          count, at, key_length);
      other = other_end + 1;
    }
    if (!end)
      break;
    at = end + 1;
    if (!*at)
      return label_fail(error, "label %zu: the list ends in ','%.*s", count, "",
                        0);
  }
  return FORMAT_OK;
}

int capture_index_labels_next(const char **cursor, struct capture_index_label *label)
{
  const char *at = *cursor;
  if (!at || !*at)
    return 0;
  const char *end = strchr(at, ',');
  size_t length = end ? (size_t)(end - at) : strlen(at);
  const char *equals = memchr(at, '=', length);
  if (!equals)
    return 0;
  label->key = at;
  label->key_length = (size_t)(equals - at);
  label->value = equals + 1;
  label->value_length = length - label->key_length - 1;
  *cursor = end ? end + 1 : at + length;
  return 1;
}

/* ---- Parser ------------------------------------------------------------- */

struct parser {
  struct capture_index *index;
  struct key_value_reader reader;
  const char *kind;           /* the line kind being read, for messages */
  char context[24];           /* "KIND line: ", before a field's messages */
  unsigned header_keys;       /* 1 once version was read */
  size_t segment_capacity;
  size_t boundary_capacity;
  size_t c_function_capacity;
  size_t snapshot_capacity;
};

#define KEY(record, member, bit, kind) {#member, bit, KEY_VALUE_##kind, offsetof(struct record, member)}
#define COUNT_OF(keys) (sizeof keys / sizeof keys[0])

static const struct key_value_key header_keys[] = {
  KEY(capture_index, version, 1, U64),
};

static const struct key_value_key capture_keys[] = {
  KEY(capture_index_capture, pid, CAPTURE_INDEX_CAPTURE_HAS_PID, LONG),
  KEY(capture_index_capture, host, CAPTURE_INDEX_CAPTURE_HAS_HOST, TEXT),
  KEY(capture_index_capture, command, CAPTURE_INDEX_CAPTURE_HAS_COMMAND, TEXT),
  KEY(capture_index_capture, luajit, CAPTURE_INDEX_CAPTURE_HAS_LUAJIT, TEXT),
  KEY(capture_index_capture, start, CAPTURE_INDEX_CAPTURE_HAS_START, DECIMAL),
  KEY(capture_index_capture, sample, CAPTURE_INDEX_CAPTURE_HAS_SAMPLE, U64),
  KEY(capture_index_capture, period, CAPTURE_INDEX_CAPTURE_HAS_PERIOD, DECIMAL),
  KEY(capture_index_capture, max_bytes, CAPTURE_INDEX_CAPTURE_HAS_MAX_BYTES, U64),
  KEY(capture_index_capture, gzip, CAPTURE_INDEX_CAPTURE_HAS_GZIP, FLAG),
  KEY(capture_index_capture, stacks, CAPTURE_INDEX_CAPTURE_HAS_STACKS, U64),
  KEY(capture_index_capture, exe, CAPTURE_INDEX_CAPTURE_HAS_EXE, TEXT),
  KEY(capture_index_capture, ppid, CAPTURE_INDEX_CAPTURE_HAS_PPID, LONG),
  KEY(capture_index_capture, labels, CAPTURE_INDEX_CAPTURE_HAS_LABELS, TEXT),
  KEY(capture_index_capture, luajit_flavour, CAPTURE_INDEX_CAPTURE_HAS_LUAJIT_FLAVOUR, TEXT),
  KEY(capture_index_capture, luajit_package, CAPTURE_INDEX_CAPTURE_HAS_LUAJIT_PACKAGE, TEXT),
  KEY(capture_index_capture, luajit_package_version, CAPTURE_INDEX_CAPTURE_HAS_LUAJIT_PACKAGE_VERSION,
      TEXT),
};

static const struct key_value_key segment_keys[] = {
  KEY(capture_index_segment, seq, CAPTURE_INDEX_SEGMENT_HAS_SEQ, U64),
  KEY(capture_index_segment, file, CAPTURE_INDEX_SEGMENT_HAS_FILE, TEXT),
  KEY(capture_index_segment, start, CAPTURE_INDEX_SEGMENT_HAS_START, DECIMAL),
  KEY(capture_index_segment, end, CAPTURE_INDEX_SEGMENT_HAS_END, DECIMAL),
  KEY(capture_index_segment, gc_cycles, CAPTURE_INDEX_SEGMENT_HAS_GC_CYCLES, U64),
  KEY(capture_index_segment, heap_bytes, CAPTURE_INDEX_SEGMENT_HAS_HEAP_BYTES, U64),
  KEY(capture_index_segment, events, CAPTURE_INDEX_SEGMENT_HAS_EVENTS, U64),
  KEY(capture_index_segment, bytes, CAPTURE_INDEX_SEGMENT_HAS_BYTES, U64),
  KEY(capture_index_segment, sample, CAPTURE_INDEX_SEGMENT_HAS_SAMPLE, U64),
  KEY(capture_index_segment, complete, CAPTURE_INDEX_SEGMENT_HAS_COMPLETE, FLAG),
  KEY(capture_index_segment, young_from, CAPTURE_INDEX_SEGMENT_HAS_YOUNG_FROM, U64),
  KEY(capture_index_segment, trace_events, CAPTURE_INDEX_SEGMENT_HAS_TRACE_EVENTS, U64),
  KEY(capture_index_segment, trace_lines, CAPTURE_INDEX_SEGMENT_HAS_TRACE_LINES, U64),
};

static const struct key_value_key snapshot_keys[] = {
  KEY(capture_index_snapshot, boundary, CAPTURE_INDEX_SNAPSHOT_HAS_BOUNDARY, U64),
  KEY(capture_index_snapshot, file, CAPTURE_INDEX_SNAPSHOT_HAS_FILE, TEXT),
  KEY(capture_index_snapshot, objects, CAPTURE_INDEX_SNAPSHOT_HAS_OBJECTS, U64),
  KEY(capture_index_snapshot, references, CAPTURE_INDEX_SNAPSHOT_HAS_REFERENCES, U64),
  KEY(capture_index_snapshot, object_bytes, CAPTURE_INDEX_SNAPSHOT_HAS_OBJECT_BYTES, U64),
  KEY(capture_index_snapshot, bytes, CAPTURE_INDEX_SNAPSHOT_HAS_BYTES, U64),
  KEY(capture_index_snapshot, pause_us, CAPTURE_INDEX_SNAPSHOT_HAS_PAUSE_US, U64),
  KEY(capture_index_snapshot, dropped, CAPTURE_INDEX_SNAPSHOT_HAS_DROPPED, FLAG),
};

static const struct key_value_key boundary_keys[] = {
  KEY(capture_index_boundary, seq, CAPTURE_INDEX_BOUNDARY_HAS_SEQ, U64),
  KEY(capture_index_boundary, segment, CAPTURE_INDEX_BOUNDARY_HAS_SEGMENT, U64),
  KEY(capture_index_boundary, events, CAPTURE_INDEX_BOUNDARY_HAS_EVENTS, U64),
  KEY(capture_index_boundary, time, CAPTURE_INDEX_BOUNDARY_HAS_TIME, DECIMAL),
  KEY(capture_index_boundary, gc_cycles, CAPTURE_INDEX_BOUNDARY_HAS_GC_CYCLES, U64),
  KEY(capture_index_boundary, heap_bytes, CAPTURE_INDEX_BOUNDARY_HAS_HEAP_BYTES, U64),
  KEY(capture_index_boundary, allocated, CAPTURE_INDEX_BOUNDARY_HAS_ALLOCATED, U64),
  KEY(capture_index_boundary, young_from, CAPTURE_INDEX_BOUNDARY_HAS_YOUNG_FROM, U64),
  KEY(capture_index_boundary, cause, CAPTURE_INDEX_BOUNDARY_HAS_CAUSE, TEXT),
};

static const struct key_value_key stop_keys[] = {
  KEY(capture_index_stop, time, CAPTURE_INDEX_STOP_HAS_TIME, DECIMAL),
  KEY(capture_index_stop, reason, CAPTURE_INDEX_STOP_HAS_REASON, TEXT),
};

static const struct key_value_key c_function_keys[] = {
  KEY(capture_index_c_function, name, CAPTURE_INDEX_C_FUNCTION_HAS_NAME, TEXT),
  KEY(capture_index_c_function, library, CAPTURE_INDEX_C_FUNCTION_HAS_LIBRARY, TEXT),
  KEY(capture_index_c_function, origin, CAPTURE_INDEX_C_FUNCTION_HAS_ORIGIN, TEXT),
};

#undef KEY

/* Reads one field of a line into record, with the line kind's keys. */
static int take_field(struct parser *p, const struct key_value_key *keys, size_t count, void *record,
                      unsigned *seen, struct key_value_field *f)
{
  const struct key_value_key *taken;
  if (key_value_take(&p->reader, p->context, keys, count, record, seen, f, &taken) != 0)
    return -1;
  return taken && taken->kind == KEY_VALUE_TEXT ? key_value_unescape(&p->reader, p->context, f) : 0;
}

enum line_kind {
  LINE_UNKNOWN, LINE_HEADER, LINE_CAPTURE, LINE_SEGMENT, LINE_BOUNDARY, LINE_STOP, LINE_C_FUNCTION,
  LINE_SNAPSHOT
};

static enum line_kind line_kind_of(const char *kind, size_t length)
{
  static const struct {
    const char *name;
    enum line_kind kind;
  } kinds[] = {
    {"ljleak-index", LINE_HEADER}, {"capture", LINE_CAPTURE}, {"segment", LINE_SEGMENT},
    {"boundary", LINE_BOUNDARY}, {"stop", LINE_STOP}, {"c_function", LINE_C_FUNCTION},
    {"snapshot", LINE_SNAPSHOT}
  };
  for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
    if (strlen(kinds[i].name) == length && !memcmp(kinds[i].name, kind, length))
      return kinds[i].kind;
  return LINE_UNKNOWN;
}

/* Lists a boundary line read whole; a cut one is dropped. */
static int boundary_add(struct parser *p, const struct capture_index_boundary *boundary, size_t offset,
                        int cut)
{
  struct capture_index *index = p->index;
  if (cut)
    return 0;
  if (!(boundary->keys & CAPTURE_INDEX_BOUNDARY_HAS_SEGMENT))
    return key_value_fail(&p->reader, offset, "boundary line: no segment");
  if (!(boundary->keys & CAPTURE_INDEX_BOUNDARY_HAS_EVENTS))
    return key_value_fail(&p->reader, offset, "boundary line: no events");
  if (boundary->young_from != CAPTURE_INDEX_YOUNG_FROM_NONE && boundary->young_from > boundary->events)
    return key_value_fail(&p->reader, offset, "boundary line: young_from is greater than events");
  if (array_reserve((void **)&index->boundaries, &p->boundary_capacity, index->boundary_count + 1,
                    sizeof *index->boundaries) != 0)
    return key_value_no_memory(&p->reader);
  index->boundaries[index->boundary_count++] = *boundary;
  return 0;
}

/* Lists a snapshot line read whole (a cut one is dropped: the file may not be finished), or
 * drops the one it says was removed. */
static int snapshot_add(struct parser *p, const struct capture_index_snapshot *snapshot, size_t offset,
                        int cut)
{
  struct capture_index *index = p->index;
  if (cut)
    return 0;
  if (!(snapshot->keys & CAPTURE_INDEX_SNAPSHOT_HAS_FILE) || !*snapshot->file)
    return key_value_fail(&p->reader, offset, "snapshot line: no file");
  if (snapshot->dropped) {
    for (size_t i = 0; i < index->snapshot_count; i++)
      if (!strcmp(index->snapshots[i].file, snapshot->file)) {
        memmove(&index->snapshots[i], &index->snapshots[i + 1],
                (index->snapshot_count - i - 1) * sizeof *index->snapshots);
        index->snapshot_count--;
        break;
      }
    return 0;
  }
  if (array_reserve((void **)&index->snapshots, &p->snapshot_capacity, index->snapshot_count + 1,
                    sizeof *index->snapshots) != 0)
    return key_value_no_memory(&p->reader);
  index->snapshots[index->snapshot_count++] = *snapshot;
  return 0;
}

/* Lists a segment line; one cut before its file is dropped. */
static int segment_add(struct parser *p, const struct capture_index_segment *segment, size_t offset,
                       int cut)
{
  struct capture_index *index = p->index;
  if (!(segment->keys & CAPTURE_INDEX_SEGMENT_HAS_FILE))
    return cut ? 0 : key_value_fail(&p->reader, offset, "segment line: no file");
  if (!*segment->file)
    return key_value_fail(&p->reader, offset, "segment line: the file is empty");
  if (array_reserve((void **)&index->segments, &p->segment_capacity, index->segment_count + 1,
                    sizeof *index->segments) != 0)
    return key_value_no_memory(&p->reader);
  index->segments[index->segment_count++] = *segment;
  return 0;
}

/* Lists a c_function line read whole; a cut one is dropped. Absent keys
 * read as "". */
static int c_function_add(struct parser *p, struct capture_index_c_function *function,
                          size_t offset, int cut)
{
  struct capture_index *index = p->index;
  if (cut)
    return 0;
  if (!(function->keys & CAPTURE_INDEX_C_FUNCTION_HAS_NAME))
    return key_value_fail(&p->reader, offset, "c_function line: no name");
  if (!function->library)
    function->library = "";
  if (!function->origin)
    function->origin = "";
  if (array_reserve((void **)&index->c_functions, &p->c_function_capacity, index->c_function_count + 1,
                    sizeof *index->c_functions) != 0)
    return key_value_no_memory(&p->reader);
  index->c_functions[index->c_function_count++] = *function;
  return 0;
}

/* The tab-separated fields of the line at offset from from to end, each taken into record. */
static int take_fields(struct parser *p, char *line, char *from, char *end, size_t offset,
                       const struct key_value_key *keys, size_t count, void *record, unsigned *seen)
{
  for (char *at = from; at < end;) {
    char *field_end = memchr(at, '\t', (size_t)(end - at));
    if (!field_end)
      field_end = end;
    char *next = field_end < end ? field_end + 1 : end;
    *field_end = '\0';
    size_t field_offset = offset + (size_t)(at - line);
    struct key_value_field f;
    if (field_end == at) {  /* an empty field */
      at = next;
      continue;
    }
    if (key_value_split(at, (size_t)(field_end - at), field_offset, &f) != 0)
      return key_value_fail(&p->reader, field_offset, "%sa field without '='", p->context);
    if (take_field(p, keys, count, record, seen, &f) != 0)
      return -1;
    at = next;
  }
  return 0;
}

/* Reads one line of length bytes at offset (its newline, or what follows a
 * cut line's last tab, not included; a NUL after them). */
static int parse_line(struct parser *p, char *line, size_t offset, size_t length, int cut)
{
  struct capture_index *index = p->index;
  char *end = line + length;
  char *tab = memchr(line, '\t', length);
  size_t kind_length = tab ? (size_t)(tab - line) : length;
  enum line_kind kind = line_kind_of(line, kind_length);
  if (offset == 0 && kind != LINE_HEADER)
    return key_value_fail(&p->reader, 0, "the first line is not the ljleak-index header");
  static const char *const kind_names[] = {"",         "ljleak-index", "capture",   "segment",
                                           "boundary", "stop",         "c_function", "snapshot"};
  p->kind = kind_names[kind];
  snprintf(p->context, sizeof p->context, "%s line: ", p->kind);
  struct capture_index_segment segment;
  memset(&segment, 0, sizeof segment);
  struct capture_index_boundary boundary;
  memset(&boundary, 0, sizeof boundary);
  struct capture_index_c_function function;
  memset(&function, 0, sizeof function);
  struct capture_index_snapshot snapshot;
  memset(&snapshot, 0, sizeof snapshot);
  const struct key_value_key *keys = NULL;
  size_t count = 0;
  void *record = NULL;
  unsigned *seen = NULL;
  switch (kind) {
  case LINE_UNKNOWN:
    return 0;
  case LINE_HEADER:
    if (index->has_header)
      return key_value_fail(&p->reader, offset, "a second ljleak-index line");
    index->has_header = 1;
    keys = header_keys, count = COUNT_OF(header_keys), record = index, seen = &p->header_keys;
    break;
  case LINE_CAPTURE:
    if (index->has_capture)
      return key_value_fail(&p->reader, offset, "a second capture line");
    index->has_capture = 1;
    keys = capture_keys, count = COUNT_OF(capture_keys);
    record = &index->capture, seen = &index->capture.keys;
    break;
  case LINE_SEGMENT:
    segment.young_from = CAPTURE_INDEX_YOUNG_FROM_NONE;
    keys = segment_keys, count = COUNT_OF(segment_keys), record = &segment, seen = &segment.keys;
    break;
  case LINE_BOUNDARY:
    boundary.young_from = CAPTURE_INDEX_YOUNG_FROM_NONE;
    boundary.offset = offset;
    keys = boundary_keys, count = COUNT_OF(boundary_keys), record = &boundary, seen = &boundary.keys;
    break;
  case LINE_SNAPSHOT:
    snapshot.offset = offset;
    keys = snapshot_keys, count = COUNT_OF(snapshot_keys), record = &snapshot, seen = &snapshot.keys;
    break;
  case LINE_STOP:
    if (index->has_stop)
      return key_value_fail(&p->reader, offset, "a second stop line");
    index->has_stop = 1, index->stop.offset = offset;
    keys = stop_keys, count = COUNT_OF(stop_keys), record = &index->stop, seen = &index->stop.keys;
    break;
  case LINE_C_FUNCTION:
    keys = c_function_keys, count = COUNT_OF(c_function_keys), record = &function;
    seen = &function.keys;
    break;
  }

  if (take_fields(p, line, tab ? tab + 1 : end, end, offset, keys, count, record, seen) != 0)
    return -1;
  struct format_error why;
  if (kind == LINE_CAPTURE && (index->capture.keys & CAPTURE_INDEX_CAPTURE_HAS_LABELS) &&
      capture_index_labels_check(index->capture.labels, &why) != FORMAT_OK)
    return key_value_fail(&p->reader, offset, "capture line: labels: %s", why.message);
  if (kind == LINE_BOUNDARY)
    return boundary_add(p, &boundary, offset, cut);
  if (kind == LINE_SEGMENT)
    return segment_add(p, &segment, offset, cut);
  if (kind == LINE_C_FUNCTION)
    return c_function_add(p, &function, offset, cut);
  if (kind == LINE_SNAPSHOT)
    return snapshot_add(p, &snapshot, offset, cut);
  return 0;
}

/* Reads the lines of the reader's text into index, which takes the text. */
static enum format_status parse_text(struct parser *p, struct format_error *error)
{
  struct capture_index *index = p->index;
  index->text = p->reader.text;
  int rc = 0;
  struct key_value_line line;
  while (rc == 0 && key_value_next_line(&p->reader, &line)) {
    if (!line.cut) {
      rc = parse_line(p, line.start, line.offset, line.length, 0);
      continue;
    }
    /* The last line, cut while it was written: only what precedes its last
     * tab is known to be whole. Without a tab even its kind may be cut. */
    index->last_line_cut = 1;
    index->last_line_offset = line.offset;
    char *last_tab = memrchr(line.start, '\t', line.length);
    if (last_tab) {
      *last_tab = '\0';
      rc = parse_line(p, line.start, line.offset, (size_t)(last_tab - line.start), 1);
    }
  }
  if (rc != 0) {
    capture_index_free(index);
    return error->status;
  }
  return FORMAT_OK;
}

static void parser_start(struct parser *p, struct capture_index *index,
                         struct format_error *error)
{
  memset(index, 0, sizeof *index);
  format_error_clear(error);
  memset(p, 0, sizeof *p);
  p->index = index;
  p->kind = "";
}

enum format_status capture_index_parse(struct capture_index *index, const char *data,
                                       size_t size, const char *name,
                                       struct format_error *error)
{
  struct parser p;
  parser_start(&p, index, error);
  if (key_value_reader_copy(&p.reader, data, size, name ? name : "index", error) != 0)
    return error->status;
  return parse_text(&p, error);
}

enum format_status capture_index_read_file(struct capture_index *index, const char *path,
                                           struct format_error *error)
{
  return capture_index_read_at(index, AT_FDCWD, path, path, error);
}

enum format_status capture_index_read_at(struct capture_index *index, int dir_fd, const char *name,
                                         const char *shown, struct format_error *error)
{
  struct parser p;
  parser_start(&p, index, error);
  if (key_value_reader_read_at(&p.reader, dir_fd, name, shown, error) != FORMAT_OK)
    return error->status;
  return parse_text(&p, error);
}

void capture_index_free(struct capture_index *index)
{
  free(index->text);
  free(index->segments);
  free(index->boundaries);
  free(index->c_functions);
  free(index->snapshots);
  memset(index, 0, sizeof *index);
}
