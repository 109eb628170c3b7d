/* format/snapshot_values.c: the values sidecar of a heap snapshot: its one writer and its one reader (docs/snapshot-format.md, "Values"). */
#include "format/snapshot_values.h"

#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "container/array.h"
#include "format/memprof.h"
#include "format/whole_file.h"

/* ---- Writer ------------------------------------------------------------------- */

void snapshot_values_writer_init(struct snapshot_values_writer *writer, uint8_t *buffer, size_t size,
                                 snapshot_values_sink sink, void *context)
{
  memset(writer, 0, sizeof *writer);
  memprof_writer_init(&writer->out, buffer, size, sink, context);
  writer->out.failed = size < SNAPSHOT_VALUES_RECORD_MAX;  /* a record might not fit */
}

/* Room for one more record: the buffer is handed to the sink when it might not fit. */
static uint8_t *writer_room(struct snapshot_values_writer *w)
{
  if (memprof_writer_reserve(&w->out, SNAPSHOT_VALUES_RECORD_MAX) != 0)
    return NULL;
  return w->out.buffer + w->out.used;
}

/* The record encoded from writer_room's pointer up to p, buffered and counted. */
static void writer_done(struct snapshot_values_writer *w, const uint8_t *p)
{
  size_t n = (size_t)(p - (w->out.buffer + w->out.used));
  w->out.used += n;
  w->out.bytes_written += n;
}

static uint8_t *put_uleb(uint8_t *p, uint64_t value)
{
  return p + memprof_uleb128_encode(p, value);
}

static uint8_t *put_text(uint8_t *p, const void *text, uint64_t length, uint32_t cap)
{
  uint32_t shown = length < cap ? (uint32_t)length : cap;
  p = put_uleb(p, length);
  p = put_uleb(p, shown);
  if (shown)
    memcpy(p, text, shown);
  return p + shown;
}

int snapshot_values_writer_begin(struct snapshot_values_writer *w, const struct snapshot_values_capture *who)
{
  uint8_t *p = writer_room(w);
  if (!p)
    return -1;
  w->shown = who->shown < SNAPSHOT_VALUES_SHOWN_MAX ? who->shown : SNAPSHOT_VALUES_SHOWN_MAX;
  w->keys = who->keys < SNAPSHOT_VALUES_KEYS_MAX ? who->keys : SNAPSHOT_VALUES_KEYS_MAX;
  memcpy(p, SNAPSHOT_VALUES_MAGIC, 4);
  p[4] = SNAPSHOT_VALUES_VERSION;
  p[5] = p[6] = p[7] = 0;
  p += SNAPSHOT_VALUES_HEADER_BYTES;
  *p++ = SNAPSHOT_VALUES_TAG_CAPTURE;
  p = put_uleb(p, who->pid);
  p = put_uleb(p, who->start_ms);
  p = put_uleb(p, who->boundary);
  p = put_uleb(p, w->shown);
  p = put_uleb(p, w->keys);
  writer_done(w, p);
  return 0;
}

int snapshot_values_writer_string(struct snapshot_values_writer *w, uint64_t address, const void *text,
                                  uint64_t length)
{
  uint8_t *p = writer_room(w);
  if (!p)
    return -1;
  *p++ = SNAPSHOT_VALUES_TAG_STRING;
  p = put_uleb(p, address);
  p = put_text(p, text, length, w->shown);
  writer_done(w, p);
  w->strings++;
  return 0;
}

int snapshot_values_writer_table(struct snapshot_values_writer *w, uint64_t address, uint64_t entries,
                                 const struct snapshot_values_key *keys, uint32_t key_count)
{
  uint8_t *p = writer_room(w);
  if (!p)
    return -1;
  if (key_count > w->keys)
    key_count = w->keys;
  *p++ = SNAPSHOT_VALUES_TAG_TABLE;
  p = put_uleb(p, address);
  p = put_uleb(p, entries);
  p = put_uleb(p, key_count);
  for (uint32_t i = 0; i < key_count; i++) {
    const struct snapshot_values_key *k = &keys[i];
    *p++ = (uint8_t)k->kind;
    switch (k->kind) {
    case SNAPSHOT_VALUES_KEY_STRING:
      p = put_text(p, k->text, k->length, w->shown);
      break;
    case SNAPSHOT_VALUES_KEY_NUMBER: {
      uint64_t bits;
      memcpy(&bits, &k->number, 8);
      for (int b = 0; b < 8; b++)
        *p++ = (uint8_t)(bits >> (8 * b));
      break;
    }
    case SNAPSHOT_VALUES_KEY_OBJECT:
      *p++ = (uint8_t)k->type;
      break;
    case SNAPSHOT_VALUES_KEY_FALSE:
    case SNAPSHOT_VALUES_KEY_TRUE:
      break;
    }
  }
  writer_done(w, p);
  w->tables++;
  return 0;
}

int snapshot_values_writer_end(struct snapshot_values_writer *w)
{
  uint8_t *p = writer_room(w);
  if (!p)
    return -1;
  *p++ = SNAPSHOT_VALUES_TAG_END;
  p = put_uleb(p, w->strings);
  p = put_uleb(p, w->tables);
  writer_done(w, p);
  return memprof_writer_flush(&w->out);
}

/* ---- Reader ------------------------------------------------------------------- */

struct reader {
  const uint8_t *data;
  size_t size, at;
  const char *name;
  struct format_error *error;
  int cut;                    /* the input ended inside the record being read */
};

static enum format_status reader_fail(struct reader *r, enum format_status status,
                                      uint64_t offset, const char *format, ...)
  __attribute__((format(printf, 4, 5)));
static enum format_status reader_fail(struct reader *r, enum format_status status,
                                      uint64_t offset, const char *format, ...)
{
  va_list args;
  va_start(args, format);
  format_error_at_va(r->error, status, r->name, offset, format, args);
  va_end(args);
  return status;
}

/* A ULEB at r->at: 0, or -1 (r->cut when the input ends inside it). */
static int get_uleb(struct reader *r, uint64_t *value)
{
  int n = memprof_uleb128_decode(r->data + r->at, r->size - r->at, value);
  if (n == 0)
    r->cut = 1;
  if (n <= 0)
    return -1;
  r->at += (size_t)n;
  return 0;
}

static int get_bytes(struct reader *r, size_t count, const uint8_t **bytes)
{
  if (r->size - r->at < count) {
    r->cut = 1;
    return -1;
  }
  *bytes = r->data + r->at;
  r->at += count;
  return 0;
}

/* length, shown and shown bytes; what is wrong in why. */
static int get_text(struct reader *r, uint64_t *length, uint32_t *shown, const char **text, const char **why)
{
  uint64_t n;
  const uint8_t *bytes;
  if (get_uleb(r, length) != 0 || get_uleb(r, &n) != 0) {
    *why = "a malformed number";
    return -1;
  }
  if (n > *length || n > SNAPSHOT_VALUES_SHOWN_MAX) {
    *why = n > *length ? "more bytes shown than the value has" : "more bytes shown than a record may hold";
    return -1;
  }
  if (get_bytes(r, (size_t)n, &bytes) != 0) {
    *why = "cut";
    return -1;
  }
  *shown = (uint32_t)n;
  *text = (const char *)bytes;
  return 0;
}

static int by_string_address(const void *a, const void *b)
{
  const struct snapshot_values_string *x = a, *y = b;
  return x->address < y->address ? -1 : x->address > y->address;
}

static int by_table_address(const void *a, const void *b)
{
  const struct snapshot_values_table *x = a, *y = b;
  return x->address < y->address ? -1 : x->address > y->address;
}

void snapshot_values_free(struct snapshot_values *values)
{
  free(values->strings);
  free(values->tables);
  free(values->keys);
  free(values->data);
  memset(values, 0, sizeof *values);
}

/* One TABLE record's body into values. 0, or -1 with why. */
static int read_table(struct reader *r, struct snapshot_values *v, size_t *key_capacity,
                      struct snapshot_values_table *t, const char **why)
{
  uint64_t count;
  if (get_uleb(r, &t->address) != 0 || get_uleb(r, &t->entries) != 0 || get_uleb(r, &count) != 0) {
    *why = "a malformed number";
    return -1;
  }
  if (count > SNAPSHOT_VALUES_KEYS_MAX) {
    *why = "more keys than a record may hold";
    return -1;
  }
  t->first_key = v->key_count;
  t->key_count = (uint32_t)count;
  for (uint64_t i = 0; i < count; i++) {
    if (array_reserve((void **)&v->keys, key_capacity, v->key_count + 1, sizeof *v->keys) != 0) {
      *why = NULL;  /* out of memory */
      return -1;
    }
    struct snapshot_values_key *k = &v->keys[v->key_count];
    memset(k, 0, sizeof *k);
    const uint8_t *bytes;
    if (get_bytes(r, 1, &bytes) != 0) {
      *why = "cut";
      return -1;
    }
    k->kind = (enum snapshot_values_key_kind)bytes[0];
    switch (bytes[0]) {
    case SNAPSHOT_VALUES_KEY_STRING:
      if (get_text(r, &k->length, &k->shown, &k->text, why) != 0)
        return -1;
      break;
    case SNAPSHOT_VALUES_KEY_NUMBER: {
      if (get_bytes(r, 8, &bytes) != 0) {
        *why = "cut";
        return -1;
      }
      uint64_t bits = 0;
      for (int b = 0; b < 8; b++)
        bits |= (uint64_t)bytes[b] << (8 * b);
      memcpy(&k->number, &bits, 8);
      break;
    }
    case SNAPSHOT_VALUES_KEY_OBJECT:
      if (get_bytes(r, 1, &bytes) != 0) {
        *why = "cut";
        return -1;
      }
      k->type = bytes[0];
      break;
    case SNAPSHOT_VALUES_KEY_FALSE:
    case SNAPSHOT_VALUES_KEY_TRUE:
      break;
    default:
      *why = "an unknown key kind";
      r->at--;
      return -1;
    }
    v->key_count++;
  }
  return 0;
}

/* The header: the magic, the version, the reserved bytes. */
static enum format_status read_header(struct reader *r, const uint8_t *head, size_t size)
{
  if (size < SNAPSHOT_VALUES_HEADER_BYTES) {
    if (size >= 4 && memcmp(head, SNAPSHOT_VALUES_MAGIC, 4))
      return reader_fail(r, FORMAT_BAD_INPUT, 0, "not a values sidecar (no \"%s\")", SNAPSHOT_VALUES_MAGIC);
    return reader_fail(r, FORMAT_BAD_INPUT, size, "cut in its header: no values");
  }
  if (memcmp(head, SNAPSHOT_VALUES_MAGIC, 4))
    return reader_fail(r, FORMAT_BAD_INPUT, 0, "not a values sidecar (no \"%s\")", SNAPSHOT_VALUES_MAGIC);
  if (head[4] != SNAPSHOT_VALUES_VERSION)
    return reader_fail(r, FORMAT_UNSUPPORTED, 4, "values sidecar version %u; this ljleak reads version %d",
                       head[4], SNAPSHOT_VALUES_VERSION);
  if (head[5] || head[6] || head[7])
    return reader_fail(r, FORMAT_BAD_INPUT, 5, "reserved header bytes are not zero");
  return FORMAT_OK;
}

/* Where the arrays of a values being read stand. */
struct values_reading {
  size_t string_capacity, table_capacity, key_capacity;
  int have_capture;
};

/* The CAPTURE record's fields, after its tag at start. 0, or 1 with *why (when not the default). */
static int read_capture_record(struct reader *r, struct snapshot_values_capture *c,
                               struct values_reading *reading, size_t start, const char **why)
{
  uint64_t shown, keys;
  if (reading->have_capture) {
    *why = "a second CAPTURE record";
    r->at = start;
    return 1;
  }
  if (get_uleb(r, &c->pid) || get_uleb(r, &c->start_ms) || get_uleb(r, &c->boundary) ||
      get_uleb(r, &shown) || get_uleb(r, &keys))
    return 1;
  if (shown > SNAPSHOT_VALUES_SHOWN_MAX || keys > SNAPSHOT_VALUES_KEYS_MAX) {
    *why = "its caps are past the format's";
    return 1;
  }
  c->shown = (uint32_t)shown;
  c->keys = (uint32_t)keys;
  reading->have_capture = 1;
  return 0;
}

/* The END record's totals, which must agree with what was read, and nothing after it. */
static int read_end_record(struct reader *r, struct snapshot_values *values, size_t start, const char **why)
{
  uint64_t strings, tables;
  if (get_uleb(r, &strings) != 0 || get_uleb(r, &tables) != 0)
    return 1;
  if (strings != values->string_count || tables != values->table_count) {
    *why = "the END record's totals disagree with the records";
    r->at = start;
    return 1;
  }
  if (r->at != r->size) {
    *why = "bytes after the END record";
    return 1;
  }
  values->complete = 1;
  return 0;
}

/* The record at start, its tag first. 0: read; 1: bad, *why says how when not a malformed
 * number; -1: out of memory. */
static int read_record(struct reader *r, struct snapshot_values *values, struct values_reading *reading,
                       size_t start, const char **why)
{
  uint8_t tag = r->data[r->at++];
  if (!reading->have_capture && tag != SNAPSHOT_VALUES_TAG_CAPTURE) {
    *why = "the first record is not CAPTURE";
    r->at = start;
    return 1;
  }
  if (tag == SNAPSHOT_VALUES_TAG_CAPTURE)
    return read_capture_record(r, &values->capture, reading, start, why);
  if (tag == SNAPSHOT_VALUES_TAG_STRING) {
    struct snapshot_values_string s = {0};
    s.offset = start;
    if (array_reserve((void **)&values->strings, &reading->string_capacity, values->string_count + 1, sizeof s) != 0)
      return -1;
    if (get_uleb(r, &s.address) != 0 || get_text(r, &s.length, &s.shown, &s.text, why) != 0)
      return 1;
    values->strings[values->string_count++] = s;
    return 0;
  }
  if (tag == SNAPSHOT_VALUES_TAG_TABLE) {
    struct snapshot_values_table t = {0};
    t.offset = start;
    size_t keys_before = values->key_count;
    if (array_reserve((void **)&values->tables, &reading->table_capacity, values->table_count + 1, sizeof t) != 0)
      return -1;
    if (read_table(r, values, &reading->key_capacity, &t, why) != 0) {
      values->key_count = keys_before;  /* a record is all or nothing */
      return *why ? 1 : -1;
    }
    values->tables[values->table_count++] = t;
    return 0;
  }
  if (tag == SNAPSHOT_VALUES_TAG_END)
    return read_end_record(r, values, start, why);
  *why = "an unknown record tag";
  r->at = start;
  return 1;
}

/* Sorts count records of size bytes by compare (by their uint64_t address member, at
 * address_at); two at one address are the same object twice, an error at the later record
 * (its uint64_t offset member at offset_at). FORMAT_OK or FORMAT_BAD_INPUT. */
static enum format_status sort_unique(struct reader *r, void *records, size_t count, size_t size,
                                               int (*compare)(const void *, const void *), size_t address_at,
                                               size_t offset_at, const char *what)
{
  if (count)
    qsort(records, count, size, compare);
  const unsigned char *bytes = records;
  for (size_t i = 1; i < count; i++) {
    uint64_t address, before, offset, before_offset;
    memcpy(&address, bytes + i * size + address_at, sizeof address);
    memcpy(&before, bytes + (i - 1) * size + address_at, sizeof before);
    if (address != before)
      continue;
    memcpy(&offset, bytes + i * size + offset_at, sizeof offset);
    memcpy(&before_offset, bytes + (i - 1) * size + offset_at, sizeof before_offset);
    return reader_fail(r, FORMAT_BAD_INPUT, offset > before_offset ? offset : before_offset,
                       "two %s at address 0x%" PRIx64, what, address);
  }
  return FORMAT_OK;
}

/* Strings and tables sorted by address, one record at an address. */
static enum format_status sort_by_address(struct reader *r, struct snapshot_values *values)
{
  enum format_status status =
      sort_unique(r, values->strings, values->string_count, sizeof *values->strings, by_string_address,
                  offsetof(struct snapshot_values_string, address), offsetof(struct snapshot_values_string, offset),
                  "strings");
  if (status != FORMAT_OK)
    return status;
  return sort_unique(r, values->tables, values->table_count, sizeof *values->tables, by_table_address,
                     offsetof(struct snapshot_values_table, address), offsetof(struct snapshot_values_table, offset),
                     "tables");
}

enum format_status snapshot_values_read_memory(struct snapshot_values *values, const void *data,
                                               size_t size, const char *name,
                                               struct format_error *error)
{
  memset(values, 0, sizeof *values);
  format_error_clear(error);
  struct reader r = {NULL, size, 0, name, error, 0};
  enum format_status status = read_header(&r, data, size);
  if (status != FORMAT_OK)
    return status;
  values->data = malloc(size);
  if (!values->data)
    return reader_fail(&r, FORMAT_NO_MEMORY, 0, "out of memory");
  memcpy(values->data, data, size);
  r.data = values->data;
  r.at = SNAPSHOT_VALUES_HEADER_BYTES;
  struct values_reading reading = {0, 0, 0, 0};
  while (!values->complete) {
    size_t start = r.at;
    const char *why = "a malformed number";
    if (r.at == size) {
      r.cut = 1;
      why = "cut";
    } else {
      int bad = read_record(&r, values, &reading, start, &why);
      if (bad < 0) {
        status = FORMAT_NO_MEMORY;
        break;
      }
      if (!bad)
        continue;
    }
    if (r.cut) {
      /* Cut inside a record: every complete one before it stands. */
      if (!reading.have_capture) {
        status = reader_fail(&r, FORMAT_BAD_INPUT, size, "cut before its CAPTURE record: no values");
        break;
      }
      status = reader_fail(&r, FORMAT_CUT, start, "cut: the values up to here are read, the rest is missing");
      break;
    }
    status = reader_fail(&r, FORMAT_BAD_INPUT, r.at, "%s", why);
    break;
  }
  if (status == FORMAT_NO_MEMORY)
    reader_fail(&r, FORMAT_NO_MEMORY, r.at, "out of memory");
  if ((status == FORMAT_OK || status == FORMAT_CUT) &&
      sort_by_address(&r, values) != FORMAT_OK)
    status = FORMAT_BAD_INPUT;
  if (status != FORMAT_OK && status != FORMAT_CUT)
    snapshot_values_free(values);
  return status;
}

enum format_status snapshot_values_read_file(struct snapshot_values *values, const char *path,
                                             enum input_file_how how, struct format_error *error)
{
  char *data;
  size_t size;
  memset(values, 0, sizeof *values);
  if (whole_file_read(path, how, &data, &size, error) != FORMAT_OK)
    return error->status;
  enum format_status status = snapshot_values_read_memory(values, data, size, path, error);
  free(data);
  return status;
}

/* The index of address in records sorted by address (each starting with its uint64_t address),
 * or count. */
static size_t values_search(const void *records, size_t count, size_t stride, uint64_t address)
{
  size_t low = 0, high = count;
  uint64_t at;
  while (low < high) {
    size_t mid = low + (high - low) / 2;
    memcpy(&at, (const char *)records + mid * stride, sizeof at);
    if (at < address)
      low = mid + 1;
    else
      high = mid;
  }
  if (low < count)
    memcpy(&at, (const char *)records + low * stride, sizeof at);
  return low < count && at == address ? low : count;
}

_Static_assert(offsetof(struct snapshot_values_string, address) == 0 &&
                 offsetof(struct snapshot_values_table, address) == 0,
               "records start with their address (values_search)");

const struct snapshot_values_string *snapshot_values_find_string(const struct snapshot_values *values,
                                                                 uint64_t address)
{
  size_t i = values_search(values->strings, values->string_count, sizeof *values->strings, address);
  return i < values->string_count ? &values->strings[i] : NULL;
}

const struct snapshot_values_table *snapshot_values_find_table(const struct snapshot_values *values,
                                                               uint64_t address)
{
  size_t i = values_search(values->tables, values->table_count, sizeof *values->tables, address);
  return i < values->table_count ? &values->tables[i] : NULL;
}
