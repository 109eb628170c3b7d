/* report/pprof.c: a gzipped profile.proto (pprof's format) of live and growing bytes by stack, encoded by hand: varints (format's ULEB128) and length-delimited fields. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "container/index_table.h"
#include "format/memprof.h"
#include "format/utf8.h"
#include "report/common.h"

/* The profile.proto field numbers used here. */
enum {
  PROFILE_SAMPLE_TYPE = 1, PROFILE_SAMPLE = 2, PROFILE_LOCATION = 4, PROFILE_FUNCTION = 5,
  PROFILE_STRING_TABLE = 6, PROFILE_COMMENT = 13, PROFILE_DEFAULT_SAMPLE_TYPE = 14,
  VALUE_TYPE_TYPE = 1, VALUE_TYPE_UNIT = 2,
  SAMPLE_LOCATION_ID = 1, SAMPLE_VALUE = 2, SAMPLE_LABEL = 3,
  LABEL_KEY = 1, LABEL_STR = 2,
  LOCATION_ID = 1, LOCATION_LINE = 4,
  LINE_FUNCTION_ID = 1, LINE_LINE = 2,
  FUNCTION_ID = 1, FUNCTION_NAME = 2, FUNCTION_SYSTEM_NAME = 3, FUNCTION_FILENAME = 4,
  FUNCTION_START_LINE = 5
};

#define WIRE_VARINT 0
#define WIRE_BYTES 2

/* A growable byte buffer; failed is set once an allocation fails, and
 * every later write is then dropped. */
struct pprof_buffer {
  uint8_t *data;
  size_t size, capacity;
  int failed;
};

static void buffer_put(struct pprof_buffer *b, const void *bytes, size_t n)
{
  if (b->failed)
    return;
  if (b->size + n > b->capacity) {
    size_t capacity = b->capacity ? b->capacity : 256;
    while (capacity < b->size + n)
      capacity *= 2;
    uint8_t *bigger = realloc(b->data, capacity);
    if (!bigger) {
      b->failed = 1;
      return;
    }
    b->data = bigger;
    b->capacity = capacity;
  }
  memcpy(b->data + b->size, bytes, n);
  b->size += n;
}

/* A protobuf varint: ULEB128, as in memprof streams. */
static void put_varint(struct pprof_buffer *b, uint64_t value)
{
  uint8_t bytes[MEMPROF_ULEB128_MAX];
  buffer_put(b, bytes, memprof_uleb128_encode(bytes, value));
}

static void put_tag(struct pprof_buffer *b, unsigned field, unsigned wire)
{
  put_varint(b, (uint64_t)field << 3 | wire);
}

/* A varint field; int64 fields go as their two's complement (ten bytes when negative). */
static void put_uint_field(struct pprof_buffer *b, unsigned field, uint64_t value)
{
  put_tag(b, field, WIRE_VARINT);
  put_varint(b, value);
}

static void put_bytes_field(struct pprof_buffer *b, unsigned field, const void *bytes, size_t n)
{
  put_tag(b, field, WIRE_BYTES);
  put_varint(b, n);
  buffer_put(b, bytes, n);
}

/* A sub-message, built in message and then emptied. */
static void put_message(struct pprof_buffer *b, unsigned field, struct pprof_buffer *message)
{
  if (message->failed)
    b->failed = 1;
  put_bytes_field(b, field, message->data, message->size);
  message->size = 0;
}

/* ---- Strings, functions, locations (deduplicated) -------------------------------- */

struct pprof_entry {
  char *key;                  /* strings: the string; functions: name; locations: "function:line" */
  uint64_t id;
};

/* A set of keys numbered from `first` in the order they were added. */
struct pprof_table {
  struct pprof_entry *entries;
  size_t count, capacity;
  struct index_table index;   /* the entries by pprof_hash; made on first use */
};

static uint64_t pprof_hash(const char *key)
{
  uint64_t h = 1469598103934665603u;  /* FNV-1a */
  for (; *key; key++)
    h = (h ^ (unsigned char)*key) * 1099511628211u;
  return h;
}

static void table_release(struct pprof_table *t)
{
  for (size_t i = 0; i < t->count; i++)
    free(t->entries[i].key);
  free(t->entries);
  index_table_release(&t->index);
  memset(t, 0, sizeof *t);
}

/* A key being looked up: what the probe compares. */
struct table_key {
  const struct pprof_table *table;
  const char *key;
};

static int table_equal(const void *context, uint32_t index)
{
  const struct table_key *key = context;
  return !strcmp(key->table->entries[index].key, key->key);
}

/* The entry of key, added with id count + first when new (*added set);
 * NULL when out of memory. */
static struct pprof_entry *table_intern(struct pprof_table *t, const char *key, uint64_t first,
                                        int *added)
{
  *added = 0;
  if (!t->index.slots && index_table_init(&t->index) < 0)
    return NULL;
  uint64_t hash = pprof_hash(key);
  struct table_key probe = {t, key};
  uint32_t found = index_table_probe(&t->index, hash, table_equal, &probe)->index;
  if (found != INDEX_TABLE_NONE)
    return &t->entries[found];
  if (t->count == t->capacity) {
    size_t capacity = t->capacity ? t->capacity * 2 : 64;
    struct pprof_entry *bigger = realloc(t->entries, capacity * sizeof *bigger);
    if (!bigger)
      return NULL;
    t->entries = bigger;
    t->capacity = capacity;
  }
  struct pprof_entry *entry = &t->entries[t->count];
  if (!(entry->key = strdup(key)))
    return NULL;
  if (index_table_add(&t->index, hash) == INDEX_TABLE_NONE) {
    free(entry->key);
    return NULL;
  }
  entry->id = t->count + first;
  t->count++;
  *added = 1;
  return entry;
}

struct pprof_state {
  struct pprof_buffer out;      /* the Profile message */
  struct pprof_buffer scratch, inner;
  struct pprof_table strings;   /* ids are string table indices, "" first */
  struct pprof_table functions; /* ids from 1 */
  struct pprof_table locations; /* ids from 1 */
  int failed;
};

/* The string table index of s (written to the profile when new), cleaned
 * as a name (names come from the captured program): a proto3 string is
 * valid UTF-8, and go tool pprof prints it raw to a terminal. */
static uint64_t pprof_string(struct pprof_state *p, const char *s)
{
  int added;
  size_t length = s ? strlen(s) : 0, size = utf8_name_text(NULL, 0, s, length, 0) + 1;
  char *clean = malloc(size);
  if (clean)
    utf8_name_text(clean, size, s, length, 0);
  struct pprof_entry *entry = clean ? table_intern(&p->strings, clean, 0, &added) : NULL;
  free(clean);
  if (!entry) {
    p->failed = 1;
    return 0;
  }
  if (added)
    put_bytes_field(&p->out, PROFILE_STRING_TABLE, entry->key, strlen(entry->key));
  return entry->id;
}

/* The id of a function (written when new): a Lua function is named by its
 * chunk and first line ("@app.lua:10"), with its file and start line. */
static uint64_t pprof_function(struct pprof_state *p, const char *name, const char *file,
                               uint64_t start_line)
{
  int added;
  struct pprof_entry *entry = table_intern(&p->functions, name, 1, &added);
  if (!entry) {
    p->failed = 1;
    return 0;
  }
  if (added) {
    struct pprof_buffer *f = &p->scratch;
    put_uint_field(f, FUNCTION_ID, entry->id);
    put_uint_field(f, FUNCTION_NAME, pprof_string(p, name));
    put_uint_field(f, FUNCTION_SYSTEM_NAME, pprof_string(p, name));
    put_uint_field(f, FUNCTION_FILENAME, pprof_string(p, file));
    put_uint_field(f, FUNCTION_START_LINE, start_line);
    put_message(&p->out, PROFILE_FUNCTION, f);
  }
  return entry->id;
}

/* The id of the location (function, line), written when new. */
static uint64_t pprof_location(struct pprof_state *p, uint64_t function, uint64_t line)
{
  char key[64];
  snprintf(key, sizeof key, "%" PRIu64 ":%" PRIu64, function, line);
  int added;
  struct pprof_entry *entry = table_intern(&p->locations, key, 1, &added);
  if (!entry) {
    p->failed = 1;
    return 0;
  }
  if (added) {
    struct pprof_buffer *l = &p->scratch, *line_message = &p->inner;
    put_uint_field(l, LOCATION_ID, entry->id);
    put_uint_field(line_message, LINE_FUNCTION_ID, function);
    put_uint_field(line_message, LINE_LINE, line);
    put_message(l, LOCATION_LINE, line_message);
    put_message(&p->out, PROFILE_LOCATION, l);
  }
  return entry->id;
}

/* The location of a frame. */
static uint64_t pprof_frame(struct pprof_state *p, const struct diff_frame *frame)
{
  if (frame->kind != STACKS_FRAME_LUA)
    return pprof_location(p, pprof_function(p, frame->name, "", 0), 0);
  /* Its function is named as its label at its first line: cleaned, cut between characters. */
  struct diff_frame first = *frame;
  first.line = frame->defined;
  char name[512];
  diff_frame_label(&first, name, sizeof name);
  const char *file = frame->name[0] == '@' ? frame->name + 1 : frame->name;
  return pprof_location(p, pprof_function(p, name, file, frame->defined), frame->line);
}

/* The location of a row's site, named as the site ("@app.lua:42", "INTERNAL"). */
static uint64_t pprof_site(struct pprof_state *p, const struct diff_site *row, const char *name)
{
  return pprof_location(p, pprof_function(p, name, row->source_file, 0), row->source_line);
}

/* One sample: the row's locations leaf first, its four values, its verdict. */
static void pprof_sample(struct pprof_state *p, const struct diff_site *row, const int64_t *values)
{
  struct pprof_buffer ids = {0}, packed = {0};
  char label[512];
  if (!row->frame_count) {
    put_varint(&ids, pprof_site(p, row, row->name));
  } else {
    /* A stack's name ends with its site's when the leaf frame is not it
     * (an allocation by the VM, INTERNAL, under a Lua stack): the site first.
     * No label holds a ';', so the part after the last is the site's. */
    const char *leaf = strrchr(row->name, ';');
    diff_frame_label(&row->frames[0], label, sizeof label);
    if (leaf && strcmp(leaf + 1, label))
      put_varint(&ids, pprof_site(p, row, leaf + 1));
    for (size_t i = 0; i < row->frame_count; i++)
      put_varint(&ids, pprof_frame(p, &row->frames[i]));
  }
  for (int i = 0; i < 4; i++)
    put_varint(&packed, (uint64_t)values[i]);
  struct pprof_buffer *s = &p->scratch, *l = &p->inner;
  put_bytes_field(s, SAMPLE_LOCATION_ID, ids.data, ids.size);
  put_bytes_field(s, SAMPLE_VALUE, packed.data, packed.size);
  put_uint_field(l, LABEL_KEY, pprof_string(p, "verdict"));
  put_uint_field(l, LABEL_STR, pprof_string(p, diff_verdict_name(row->verdict)));
  put_message(s, SAMPLE_LABEL, l);
  put_message(&p->out, PROFILE_SAMPLE, s);
  if (ids.failed || packed.failed)
    p->failed = 1;
  free(ids.data);
  free(packed.data);
}

static void pprof_value_type(struct pprof_state *p, const char *type, const char *unit)
{
  struct pprof_buffer *v = &p->scratch;
  put_uint_field(v, VALUE_TYPE_TYPE, pprof_string(p, type));
  put_uint_field(v, VALUE_TYPE_UNIT, pprof_string(p, unit));
  put_message(&p->out, PROFILE_SAMPLE_TYPE, v);
}

/* gzip of data to out. */
static int pprof_gzip(const uint8_t *data, size_t size, FILE *out, struct format_error *error)
{
  z_stream z;
  memset(&z, 0, sizeof z);
  if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    format_error_set(error, FORMAT_NO_MEMORY, "out of memory");
    return -1;
  }
  uint8_t chunk[16384];
  z.next_in = (Bytef *)data;
  z.avail_in = (uInt)size;  /* a profile is far below 4 GiB */
  int status;
  do {
    z.next_out = chunk;
    z.avail_out = sizeof chunk;
    status = deflate(&z, Z_FINISH);
    fwrite(chunk, 1, sizeof chunk - z.avail_out, out);
  } while (status == Z_OK || (status == Z_BUF_ERROR && z.avail_out == 0));
  deflateEnd(&z);
  if (status != Z_STREAM_END) {
    format_error_set(error, FORMAT_UNWRITABLE, "cannot compress the profile");
    return -1;
  }
  return 0;
}

int report_render_pprof(const struct diff_result *result, const struct report_options *options,
                        FILE *out, struct format_error *error)
{
  size_t from, to, count;
  if (report_stack_boundaries(result, options, &from, &to, error) < 0)
    return -1;
  struct pprof_state p;
  memset(&p, 0, sizeof p);
  pprof_string(&p, "");  /* string 0 is "" */
  pprof_value_type(&p, "inuse_space", "bytes");
  pprof_value_type(&p, "inuse_objects", "count");
  pprof_value_type(&p, "growth_space", "bytes");
  pprof_value_type(&p, "growth_objects", "count");
  const struct diff_site *rows = report_stack_rows(result, &count);
  for (size_t i = 0; to && i < count; i++) {
    const struct diff_site *row = &rows[i];
    int64_t values[4];
    values[0] = (int64_t)report_stack_at(row->live_bytes, row->count, to);
    values[1] = (int64_t)report_stack_at(row->live_blocks, row->count, to);
    values[2] = values[0] - (int64_t)report_stack_at(row->live_bytes, row->count, from);
    values[3] = values[1] - (int64_t)report_stack_at(row->live_blocks, row->count, from);
    if (values[0] || values[1] || values[2] || values[3])
      pprof_sample(&p, row, values);
  }
  char comment[160];
  snprintf(comment, sizeof comment,
           "ljleak: inuse at boundary %zu; growth from boundary %zu to %zu", to, from, to);
  put_uint_field(&p.out, PROFILE_COMMENT, pprof_string(&p, comment));
  put_uint_field(&p.out, PROFILE_DEFAULT_SAMPLE_TYPE,
                 pprof_string(&p, options->growth ? "growth_space" : "inuse_space"));
  int status = 0;
  if (p.failed || p.out.failed || p.scratch.failed || p.inner.failed) {
    format_error_set(error, FORMAT_NO_MEMORY, "out of memory");
    status = -1;
  } else {
    status = pprof_gzip(p.out.data, p.out.size, out, error);
  }
  free(p.out.data);
  free(p.scratch.data);
  free(p.inner.data);
  table_release(&p.strings);
  table_release(&p.functions);
  table_release(&p.locations);
  return status;
}
