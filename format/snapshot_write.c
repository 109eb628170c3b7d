/* format/snapshot_write.c: the heap snapshot's one encoder (docs/snapshot-format.md), into caller-owned buffers; never allocates. */
#include <string.h>

#include "format/memprof.h"
#include "format/snapshot.h"

/* Most bytes of an object record without its references. */
#define OBJECT_HEAD_MAX (1 + 3 * MEMPROF_ULEB128_MAX + 1 + 2 * SNAPSHOT_MAX_BLOCKS * MEMPROF_ULEB128_MAX + 5)
/* Most bytes of a reference, and of the terminator and a CONTINUED record's head. */
#define REFERENCE_MAX (2 * MEMPROF_ULEB128_MAX)
#define CONTINUED_MAX (1 + MEMPROF_ULEB128_MAX)

static uint64_t zigzag(int64_t value)
{
  return ((uint64_t)value << 1) ^ (uint64_t)(value >> 63);
}

static void put32(uint8_t *out, uint32_t value)
{
  for (int i = 0; i < 4; i++)
    out[i] = (uint8_t)(value >> (8 * i));
}

void snapshot_writer_init(struct snapshot_writer *w, uint8_t *strings, uint8_t *objects,
                          size_t capacity, snapshot_sink_fn sink, void *sink_context)
{
  memset(w, 0, sizeof *w);
  w->strings = strings;
  w->objects = objects;
  w->capacity = capacity;
  w->sink = sink;
  w->sink_context = sink_context;
  w->strings_used = w->objects_used = SNAPSHOT_CHUNK_HEAD_BYTES;
  w->objects_tag = SNAPSHOT_CHUNK_OBJECTS;
  w->failed = capacity < SNAPSHOT_WRITER_MIN_CAPACITY;
}

static int emit(struct snapshot_writer *w, const uint8_t *data, size_t size)
{
  if (w->failed || w->sink(w->sink_context, data, size) != 0) {
    w->failed = 1;
    return -1;
  }
  w->offset += size;
  return 0;
}

/* Hands a chunk in the making to the sink (with its head filled) and empties it. */
static int emit_chunk(struct snapshot_writer *w, enum snapshot_chunk_tag tag, uint8_t *buffer,
                      size_t *used, uint32_t *count)
{
  if (*used == SNAPSHOT_CHUNK_HEAD_BYTES)
    return 0;
  buffer[0] = (uint8_t)tag;
  put32(buffer + 1, (uint32_t)(*used - SNAPSHOT_CHUNK_HEAD_BYTES));
  put32(buffer + 5, *count);
  if (w->chunk_count < sizeof w->chunk_tags) {
    w->chunk_offsets[w->chunk_count] = w->offset;
    w->chunk_tags[w->chunk_count] = (uint8_t)tag;
  }
  w->chunk_count++;
  int rc = emit(w, buffer, *used);
  *used = SNAPSHOT_CHUNK_HEAD_BYTES;
  *count = 0;
  return rc;
}

/* The strings first: an object chunk may use any string defined before it ends. */
static int flush_objects(struct snapshot_writer *w)
{
  if (emit_chunk(w, SNAPSHOT_CHUNK_STRINGS, w->strings, &w->strings_used, &w->strings_in_chunk) != 0 ||
      emit_chunk(w, w->objects_tag, w->objects, &w->objects_used, &w->objects_in_chunk) != 0)
    return -1;
  w->object_address = 0;  /* each chunk reads on its own */
  return 0;
}

static void put_uleb(uint8_t *buffer, size_t *used, uint64_t value)
{
  *used += memprof_uleb128_encode(buffer + *used, value);
}

int snapshot_writer_begin(struct snapshot_writer *w, const struct snapshot_capture *capture)
{
  uint8_t head[SNAPSHOT_HEADER_BYTES] = {'l', 'j', 'h', 's', SNAPSHOT_VERSION, 0, 0, 0};
  if (emit(w, head, sizeof head) != 0)
    return -1;
  uint8_t chunk[SNAPSHOT_CHUNK_HEAD_BYTES + 8 * MEMPROF_ULEB128_MAX];
  size_t used = SNAPSHOT_CHUNK_HEAD_BYTES;
  uint32_t one = 1;
  const uint64_t fields[] = {capture->pid,    capture->start_ms, capture->boundary,
                             capture->segment, capture->events,  capture->time_ms,
                             capture->heap_bytes, capture->flags};
  for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
    put_uleb(chunk, &used, fields[i]);
  return emit_chunk(w, SNAPSHOT_CHUNK_CAPTURE, chunk, &used, &one);
}

uint32_t snapshot_writer_string(struct snapshot_writer *w, const char *bytes, size_t length)
{
  static const char cut_mark[] = "...";
  int cut = length > SNAPSHOT_LABEL_MAX;
  size_t kept = cut ? SNAPSHOT_LABEL_MAX - (sizeof cut_mark - 1) : length;
  /* Not inside a UTF-8 character: back over its continuation bytes (at most three). */
  for (int back = 0; cut && back < 3 && kept > 0 && ((unsigned char)bytes[kept] & 0xc0) == 0x80; back++)
    kept--;
  size_t need = MEMPROF_ULEB128_MAX + SNAPSHOT_LABEL_MAX;
  if (w->failed)
    return 0;
  if (w->capacity - w->strings_used < need &&
      emit_chunk(w, SNAPSHOT_CHUNK_STRINGS, w->strings, &w->strings_used, &w->strings_in_chunk) != 0)
    return 0;
  put_uleb(w->strings, &w->strings_used, cut ? kept + sizeof cut_mark - 1 : length);
  memcpy(w->strings + w->strings_used, bytes, kept);
  w->strings_used += kept;
  if (cut) {
    memcpy(w->strings + w->strings_used, cut_mark, sizeof cut_mark - 1);
    w->strings_used += sizeof cut_mark - 1;
  }
  w->strings_in_chunk++;
  return ++w->string_ids;
}

/* Ends the open object's reference list. */
static void close_object(struct snapshot_writer *w)
{
  if (w->object_open)
    w->objects[w->objects_used++] = 0;
  w->object_open = 0;
}

/* Room for size more bytes in the objects chunk: the open object goes on in a CONTINUED record
 * of the next chunk. */
static int reserve(struct snapshot_writer *w, size_t size)
{
  if (w->failed)
    return -1;
  if (w->capacity - w->objects_used >= size + 1)
    return 0;
  int open = w->object_open;
  close_object(w);
  if (flush_objects(w) != 0)
    return -1;
  if (open) {
    w->objects[w->objects_used++] = SNAPSHOT_CONTINUED;
    put_uleb(w->objects, &w->objects_used, zigzag((int64_t)w->current));
    w->object_address = w->current;
    w->objects_in_chunk++;
    w->object_open = 1;
  }
  return 0;
}

int snapshot_writer_object(struct snapshot_writer *w, const struct snapshot_wire_object *o)
{
  if (o->block_count > SNAPSHOT_MAX_BLOCKS || o->type <= SNAPSHOT_CONTINUED || o->type >= SNAPSHOT_TYPE_COUNT) {
    w->failed = 1;
    return -1;
  }
  close_object(w);
  if (w->objects_tag != SNAPSHOT_CHUNK_OBJECTS || reserve(w, OBJECT_HEAD_MAX + CONTINUED_MAX) != 0)
    return -1;
  unsigned flags = o->flags & (SNAPSHOT_FLAG_WEAK_KEYS | SNAPSHOT_FLAG_WEAK_VALUES);
  if (o->block_count)
    flags |= SNAPSHOT_FLAG_BLOCKS;
  if (o->name)
    flags |= SNAPSHOT_FLAG_NAME;
  uint8_t *b = w->objects;
  size_t *used = &w->objects_used;
  b[(*used)++] = (uint8_t)(o->type | flags << 4);
  put_uleb(b, used, zigzag((int64_t)(o->address - w->object_address)));
  put_uleb(b, used, o->size);
  put_uleb(b, used, o->count);
  uint64_t bytes = o->size;
  if (o->block_count) {
    put_uleb(b, used, o->block_count);
    for (uint32_t i = 0; i < o->block_count; i++) {
      put_uleb(b, used, zigzag((int64_t)(o->blocks[i].address - o->address)));
      put_uleb(b, used, o->blocks[i].size);
      bytes += o->blocks[i].size;
    }
  }
  if (o->name)
    put_uleb(b, used, o->name);
  w->object_address = w->current = o->address;
  w->object_open = 1;
  w->objects_in_chunk++;
  w->object_records++;
  w->object_bytes += bytes;
  return 0;
}

/* A label's number: payload, kind and weak bit; never 0 (the list's end), since a text's id is
 * at least 1 and INDEX is kind 1. */
static uint64_t label_word(enum snapshot_ref_kind kind, int weak, uint64_t payload)
{
  return payload << 4 | (uint64_t)kind << 1 | (weak ? 1u : 0u);
}

int snapshot_writer_reference(struct snapshot_writer *w, enum snapshot_ref_kind kind, int weak,
                              uint32_t text, int64_t index, uint64_t target)
{
  if (!w->object_open || (kind != SNAPSHOT_REF_INDEX && text == 0) || kind >= SNAPSHOT_REF_KIND_COUNT ||
      (kind == SNAPSHOT_REF_INDEX && zigzag(index) > SNAPSHOT_INDEX_MAX_ZIGZAG)) {
    w->failed = 1;
    return -1;
  }
  if (reserve(w, REFERENCE_MAX) != 0)
    return -1;
  uint64_t payload = kind == SNAPSHOT_REF_INDEX ? zigzag(index) : text;
  put_uleb(w->objects, &w->objects_used, label_word(kind, weak, payload));
  put_uleb(w->objects, &w->objects_used, zigzag((int64_t)(target - w->current)));
  w->references++;
  return 0;
}

int snapshot_writer_root(struct snapshot_writer *w, uint32_t text, int weak, uint64_t target)
{
  if (w->objects_tag == SNAPSHOT_CHUNK_OBJECTS) {
    close_object(w);
    if (flush_objects(w) != 0)
      return -1;
    w->objects_tag = SNAPSHOT_CHUNK_ROOTS;
  }
  if (text == 0 || reserve(w, REFERENCE_MAX) != 0) {
    w->failed = 1;
    return -1;
  }
  put_uleb(w->objects, &w->objects_used, label_word(SNAPSHOT_REF_OTHER, weak, text));
  put_uleb(w->objects, &w->objects_used, target);
  w->objects_in_chunk++;
  w->roots++;
  return 0;
}

int snapshot_writer_end(struct snapshot_writer *w)
{
  close_object(w);
  if (flush_objects(w) != 0)
    return -1;
  /* END: totals, then the chunk table (those that fit in the writer's list). */
  uint64_t end_offset = w->offset;
  uint32_t listed = w->chunk_count < sizeof w->chunk_tags ? w->chunk_count : (uint32_t)sizeof w->chunk_tags;
  size_t used = SNAPSHOT_CHUNK_HEAD_BYTES, limit = w->capacity - 2 * MEMPROF_ULEB128_MAX;
  uint8_t *b = w->objects;
  uint32_t one = 1;
  const uint64_t totals[] = {w->object_records, w->references, w->roots, w->string_ids, w->object_bytes,
                             w->chunk_count};
  for (size_t i = 0; i < sizeof totals / sizeof totals[0]; i++)
    put_uleb(b, &used, totals[i]);
  uint32_t table = 0;
  size_t table_count_at = used;
  used += 5;  /* the count, written below as a fixed 5-byte ULEB */
  for (uint32_t i = 0; i < listed && used < limit; i++, table++) {
    b[used++] = w->chunk_tags[i];
    put_uleb(b, &used, w->chunk_offsets[i]);
  }
  for (int i = 0; i < 5; i++)
    b[table_count_at + (size_t)i] = (uint8_t)(((table >> (7 * i)) & 0x7f) | (i < 4 ? 0x80 : 0));
  if (emit_chunk(w, SNAPSHOT_CHUNK_END, b, &used, &one) != 0)
    return -1;
  uint8_t trailer[SNAPSHOT_TRAILER_BYTES];
  for (int i = 0; i < 8; i++)
    trailer[i] = (uint8_t)(end_offset >> (8 * i));
  memcpy(trailer + 8, SNAPSHOT_TRAILER_MAGIC, 4);
  return emit(w, trailer, sizeof trailer);
}
