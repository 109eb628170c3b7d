/* format/snapshot_read.c: the heap snapshot's one decoder (docs/snapshot-format.md): reads a file whole, chunk by chunk, and has snapshot_index.c sort its objects by address. Its arrays are sized once from the chunks' heads (and the end chunk's totals), so that a snapshot of a million objects is decoded without copies. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "container/array.h"
#include "format/decode.h"
#include "format/memprof.h"
#include "format/snapshot.h"
#include "format/snapshot_index.h"
#include "format/whole_file.h"

/* A chunk's body being decoded: where it is in the file, for messages. */
struct cursor {
  const uint8_t *data;
  size_t size, pos;
  uint64_t base;                /* the file offset of data[0] */
};

struct reading {
  struct snapshot *snapshot;
  const char *name;
  struct format_error *error;
  size_t object_capacity, block_capacity, reference_capacity, root_capacity, string_capacity;
  size_t pool_used, pool_capacity;  /* of snapshot->string_pool: never grown (pointers into it) */
  uint64_t end_totals[5];
  uint64_t *targets;            /* each reference's target address, until they are resolved */
  uint64_t *offsets;            /* each object's record in the file (by the order read), for the
                                 * message on two objects at one address */
  struct snapshot_wide *big;    /* INDEX references whose n needs more than 28 bits, in order */
  size_t big_count, big_capacity;
  size_t wide_count_capacity;   /* of snapshot->wide_counts */
};

static enum format_status fail(struct reading *r, enum format_status status, uint64_t offset,
                               const char *format, ...) __attribute__((format(printf, 4, 5)));
static enum format_status fail(struct reading *r, enum format_status status, uint64_t offset,
                               const char *format, ...)
{
  va_list args;
  va_start(args, format);
  format_error_at_va(r->error, status, r->name, offset, format, args);
  va_end(args);
  return status;
}

static int64_t unzigzag(uint64_t value)
{
  return (int64_t)(value >> 1) ^ -(int64_t)(value & 1);
}

static uint32_t get32(const uint8_t *in)
{
  return (uint32_t)in[0] | (uint32_t)in[1] << 8 | (uint32_t)in[2] << 16 | (uint32_t)in[3] << 24;
}

/* The next ULEB128 of the chunk; -1 at its end or on a bad one (the message says which). A
 * number of one byte (most of a snapshot's) is taken here, and a longer one (an address's
 * delta) from one 8-byte load where the chunk holds 10 bytes more. */
static inline __attribute__((always_inline)) int next_uleb(struct reading *r, struct cursor *c, uint64_t *value,
                                                         const char *what)
{
  if (c->pos < c->size && c->data[c->pos] < 0x80) {
    *value = c->data[c->pos++];
    return 0;
  }
  if (c->size - c->pos >= MEMPROF_ULEB128_MAX) {  /* a number's whole length is there */
    int bad = 0;
    const uint8_t *end = memprof_uleb_fast(c->data + c->pos, value, &bad, 0);
    if (!bad) {
      c->pos = (size_t)(end - c->data);
      return 0;
    }
  }
  int n = memprof_uleb128_decode(c->data + c->pos, c->size - c->pos, value);
  if (n <= 0) {
    fail(r, FORMAT_BAD_INPUT, c->base + c->pos, "%s: %s", what,
         n == 0 ? "the chunk ends inside it" : "bad number");
    return -1;
  }
  c->pos += (size_t)n;
  return 0;
}

static enum format_status no_memory(struct reading *r, uint64_t offset)
{
  return fail(r, FORMAT_NO_MEMORY, offset, "out of memory");
}

static enum format_status read_capture(struct reading *r, struct cursor *c)
{
  struct snapshot_capture *k = &r->snapshot->capture;
  uint64_t *fields[] = {&k->pid,     &k->start_ms, &k->boundary,   &k->segment,
                        &k->events,  &k->time_ms,  &k->heap_bytes, &k->flags};
  for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
    if (next_uleb(r, c, fields[i], "capture chunk") != 0)
      return r->error->status;
  return FORMAT_OK;  /* fields a later version appends are skipped */
}

/* The zero bytes among size at p. */
static size_t count_nuls(const uint8_t *p, size_t size)
{
  size_t n = 0;
  for (const uint8_t *z = memchr(p, 0, size); z; z = memchr(z + 1, 0, (size_t)(p + size - z - 1)))
    n++;
  return n;
}

/* One string record. */
static enum format_status read_string(struct reading *r, struct cursor *c)
{
  struct snapshot *s = r->snapshot;
  uint64_t length, at = c->base + c->pos;
  if (next_uleb(r, c, &length, "string") != 0)
    return r->error->status;
  if (length > c->size - c->pos)
    return fail(r, FORMAT_BAD_INPUT, at, "string of %" PRIu64 " bytes runs past its chunk", length);
  if (s->string_count >= SNAPSHOT_MAX_STRINGS)
    return fail(r, FORMAT_BAD_INPUT, at, "too many strings");
  if (array_reserve((void **)&s->strings, &r->string_capacity, (size_t)s->string_count + 2, sizeof *s->strings) != 0)
    return no_memory(r, at);
  /* A NUL in the text (a Lua key may hold one) is kept as "\0", as Lua writes it, so that the
   * label is not cut there: the pool has a byte more for each zero byte of the STRINGS bodies. */
  const uint8_t *from = c->data + c->pos;
  size_t nuls = count_nuls(from, (size_t)length);
  if (length + nuls + 1 > r->pool_capacity - r->pool_used)  /* the pool holds every STRINGS body */
    return fail(r, FORMAT_BAD_INPUT, at, "string of %" PRIu64 " bytes runs past its chunk", length);
  char *text = s->string_pool + r->pool_used, *to = text;
  if (!nuls) {
    memcpy(to, from, (size_t)length);
    to += length;
  } else {
    for (size_t i = 0; i < length; i++) {
      if (from[i])
        *to++ = (char)from[i];
      else
        *to++ = '\\', *to++ = '0';
    }
  }
  *to = '\0';
  r->pool_used += (size_t)(to - text) + 1;
  c->pos += (size_t)length;
  s->strings[++s->string_count] = text;
  return FORMAT_OK;
}

/* A label word: kind, weak bit, and a string id that must be defined already; INDEX's n in
 * *index (and in text when it is narrow: else text says it is kept aside). */
static inline enum format_status read_label(struct reading *r, uint64_t word, uint64_t at,
                                            struct snapshot_reference *ref, int64_t *index)
{
  /* Built here and stored whole: the array's bit fields set one by one would each read memory
   * the reader touches for the first time. */
  struct snapshot_reference built = {.object = SNAPSHOT_NO_OBJECT, .weak = word & 1};
  unsigned kind = (unsigned)(word >> 1) & 7;
  uint64_t payload = word >> 4;
  if (kind >= SNAPSHOT_REF_KIND_COUNT)
    return fail(r, FORMAT_BAD_INPUT, at, "reference of unknown kind %u", kind);
  built.kind = kind;
  *index = 0;
  if (kind == SNAPSHOT_REF_INDEX) {
    *index = unzigzag(payload);
    if (*index >= -SNAPSHOT_INDEX_NARROW && *index <= SNAPSHOT_INDEX_NARROW)
      built.text = (uint32_t)*index & SNAPSHOT_MAX_STRINGS;  /* 28-bit two's complement */
    else
      built.text = SNAPSHOT_INDEX_WIDE;
  } else {
    if (payload == 0 || payload > r->snapshot->string_count)
      return fail(r, FORMAT_BAD_INPUT, at, "label names string %" PRIu64 ", not defined before", payload);
    built.text = (uint32_t)payload;
  }
  *ref = built;
  return FORMAT_OK;
}

/* References up to the list's end (a 0), appended to the snapshot's. */
static enum format_status read_references(struct reading *r, struct cursor *c, uint64_t address,
                                          struct snapshot_object *owner)
{
  struct snapshot *s = r->snapshot;
  for (;;) {
    uint64_t word, delta, at = c->base + c->pos;
    if (next_uleb(r, c, &word, "reference") != 0)
      return r->error->status;
    if (word == 0)
      return FORMAT_OK;
    if (s->reference_count >= SNAPSHOT_MAX_RECORDS)
      return fail(r, FORMAT_BAD_INPUT, at, "more references than this reader takes");
    if (s->reference_count == r->reference_capacity) {  /* the end's total was short */
      size_t capacity = r->reference_capacity;
      if (array_reserve((void **)&s->references, &capacity, s->reference_count + 1, sizeof *s->references) != 0)
        return no_memory(r, at);
      if (array_resize((void **)&r->targets, capacity, sizeof *r->targets) != 0)
        return no_memory(r, at);
      r->reference_capacity = capacity;
    }
    struct snapshot_reference *ref = &s->references[s->reference_count];
    int64_t index;
    if (read_label(r, word, at, ref, &index) != FORMAT_OK || next_uleb(r, c, &delta, "reference") != 0)
      return r->error->status;
    if (ref->kind == SNAPSHOT_REF_INDEX && ref->text == SNAPSHOT_INDEX_WIDE) {
      if (array_reserve((void **)&r->big, &r->big_capacity, r->big_count + 1, sizeof *r->big) != 0)
        return no_memory(r, at);
      r->big[r->big_count++] = (struct snapshot_wide){(uint32_t)s->reference_count, 0, index};
    }
    r->targets[s->reference_count] = address + (uint64_t)unzigzag(delta);
    s->reference_count++;
    owner->reference_count++;
  }
}

static enum format_status read_object(struct reading *r, struct cursor *c, uint64_t *address)
{
  struct snapshot *s = r->snapshot;
  uint64_t at = c->base + c->pos;
  uint8_t head = c->data[c->pos++];
  unsigned type = head & 0xf, flags = head >> 4;
  uint64_t delta;
  if (next_uleb(r, c, &delta, "object") != 0)
    return r->error->status;
  *address += (uint64_t)unzigzag(delta);
  if (type == SNAPSHOT_CONTINUED) {
    struct snapshot_object *last = s->object_count ? &s->objects[s->object_count - 1] : NULL;
    if (!last || last->address != *address || last->first_reference + last->reference_count != s->reference_count)
      return fail(r, FORMAT_BAD_INPUT, at, "continued references of no object before them");
    return read_references(r, c, *address, last);
  }
  if (type >= SNAPSHOT_TYPE_COUNT)
    return fail(r, FORMAT_BAD_INPUT, at, "object of unknown type %u", type);
  if (s->object_count >= SNAPSHOT_MAX_RECORDS || s->block_count >= SNAPSHOT_MAX_RECORDS - SNAPSHOT_MAX_BLOCKS)
    return fail(r, FORMAT_BAD_INPUT, at, "more objects than this reader takes");
  if (s->object_count == r->object_capacity) {  /* the heads said fewer */
    size_t capacity = r->object_capacity;
    if (array_reserve((void **)&s->objects, &capacity, s->object_count + 1, sizeof *s->objects) != 0)
      return no_memory(r, at);
    if (array_resize((void **)&r->offsets, capacity, sizeof *r->offsets) != 0)
      return no_memory(r, at);
    r->object_capacity = capacity;
  }
  struct snapshot_object *o = &s->objects[s->object_count];
  memset(o, 0, sizeof *o);
  o->address = *address;
  o->type = (uint8_t)type;
  o->flags = (uint8_t)(flags & (SNAPSHOT_FLAG_WEAK_KEYS | SNAPSHOT_FLAG_WEAK_VALUES));
  r->offsets[s->object_count] = at;
  o->first_block = (uint32_t)s->block_count;
  o->first_reference = (uint32_t)s->reference_count;
  uint64_t count;
  if (next_uleb(r, c, &o->size, "object size") != 0 || next_uleb(r, c, &count, "object count") != 0)
    return r->error->status;
  o->count = count < SNAPSHOT_COUNT_WIDE ? (uint32_t)count : SNAPSHOT_COUNT_WIDE;
  if (count >= SNAPSHOT_COUNT_WIDE) {
    if (array_reserve((void **)&s->wide_counts, &r->wide_count_capacity, s->wide_count_count + 1,
                      sizeof *s->wide_counts) != 0)
      return no_memory(r, at);
    s->wide_counts[s->wide_count_count++] = (struct snapshot_wide_count){o->address, count};
  }
  uint64_t bytes = o->size;
  if (flags & SNAPSHOT_FLAG_BLOCKS) {
    uint64_t n;
    if (next_uleb(r, c, &n, "block count") != 0)
      return r->error->status;
    if (n == 0 || n > SNAPSHOT_MAX_BLOCKS)
      return fail(r, FORMAT_BAD_INPUT, at, "object with %" PRIu64 " blocks", n);
    for (uint64_t i = 0; i < n; i++) {
      uint64_t offset;
      if (array_reserve((void **)&s->blocks, &r->block_capacity, s->block_count + 1, sizeof *s->blocks) != 0)
        return no_memory(r, at);
      struct snapshot_block *b = &s->blocks[s->block_count];
      if (next_uleb(r, c, &offset, "block") != 0 || next_uleb(r, c, &b->size, "block") != 0)
        return r->error->status;
      b->address = o->address + (uint64_t)unzigzag(offset);
      bytes += b->size;
      s->block_count++;
    }
    o->block_count = (uint8_t)n;
  }
  if (flags & SNAPSHOT_FLAG_NAME) {
    uint64_t name;
    if (next_uleb(r, c, &name, "object name") != 0)
      return r->error->status;
    if (name == 0 || name > s->string_count)
      return fail(r, FORMAT_BAD_INPUT, at, "object named by string %" PRIu64 ", not defined before", name);
    o->name = (uint32_t)name;
  }
  s->object_count++;
  s->object_bytes += bytes;
  return read_references(r, c, o->address, o);
}

/* One root record. */
static enum format_status read_root(struct reading *r, struct cursor *c)
{
  struct snapshot *s = r->snapshot;
  uint64_t word, target, at = c->base + c->pos;
  struct snapshot_reference label = {0};
  int64_t index;
  if (next_uleb(r, c, &word, "root") != 0 || read_label(r, word, at, &label, &index) != FORMAT_OK ||
      next_uleb(r, c, &target, "root") != 0)
    return r->error->status;
  if (label.kind != SNAPSHOT_REF_OTHER)
    return fail(r, FORMAT_BAD_INPUT, at, "root without a text label");
  if (array_reserve((void **)&s->roots, &r->root_capacity, s->root_count + 1, sizeof *s->roots) != 0)
    return no_memory(r, at);
  s->roots[s->root_count++] = (struct snapshot_root){target, label.text, label.weak};
  return FORMAT_OK;
}

static enum format_status read_end(struct reading *r, struct cursor *c)
{
  struct snapshot *s = r->snapshot;
  static const char *const names[] = {"objects", "references", "roots", "strings", "object bytes"};
  const uint64_t have[] = {s->object_count, s->reference_count, s->root_count, s->string_count,
                           s->object_bytes};
  for (size_t i = 0; i < 5; i++) {
    uint64_t at = c->base + c->pos;
    if (next_uleb(r, c, &r->end_totals[i], "end chunk") != 0)
      return r->error->status;
    if (r->end_totals[i] != have[i])
      return fail(r, FORMAT_BAD_INPUT, at, "the end says %" PRIu64 " %s, the chunks hold %" PRIu64,
                  r->end_totals[i], names[i], have[i]);
  }
  /* The chunk table is for readers that seek; this one has read them all, and checks it. */
  uint64_t chunks, listed;
  if (next_uleb(r, c, &chunks, "end chunk") != 0 || next_uleb(r, c, &listed, "end chunk") != 0)
    return r->error->status;
  if (listed > chunks)
    return fail(r, FORMAT_BAD_INPUT, c->base, "the end lists %" PRIu64 " chunks of %" PRIu64, listed, chunks);
  for (uint64_t i = 0; i < listed; i++) {
    uint64_t offset, at = c->base + c->pos;
    if (c->pos >= c->size)
      return fail(r, FORMAT_BAD_INPUT, at, "end chunk: the chunk table ends early");
    c->pos++;  /* the chunk's tag */
    if (next_uleb(r, c, &offset, "end chunk") != 0)
      return r->error->status;
    if (offset + SNAPSHOT_CHUNK_HEAD_BYTES > c->base)
      return fail(r, FORMAT_BAD_INPUT, at, "end chunk: a chunk at byte %" PRIu64 ", past the end", offset);
  }
  return FORMAT_OK;
}

/* What a snapshot held before a record: a record of a cut chunk that does not decode is taken
 * back to it. */
struct mark {
  size_t objects, blocks, references, roots, last_references, position, pool, wide_counts;
  uint32_t strings;
  uint64_t bytes;
};

static struct mark mark_take(const struct reading *r, const struct cursor *c)
{
  const struct snapshot *s = r->snapshot;
  return (struct mark){s->object_count, s->block_count, s->reference_count, s->root_count,
                       s->object_count ? s->objects[s->object_count - 1].reference_count : 0, c->pos,
                       r->pool_used, s->wide_count_count, s->string_count, s->object_bytes};
}

static void mark_restore(struct reading *r, struct cursor *c, const struct mark *m)
{
  struct snapshot *s = r->snapshot;
  s->string_count = m->strings;
  r->pool_used = m->pool;
  s->object_count = m->objects;
  s->block_count = m->blocks;
  s->reference_count = m->references;
  s->root_count = m->roots;
  s->wide_count_count = m->wide_counts;
  if (s->object_count)
    s->objects[s->object_count - 1].reference_count = (uint32_t)m->last_references;
  s->object_bytes = m->bytes;
  c->pos = m->position;
}

/* A chunk's records. cut: the file ends inside this chunk (c holds what is there): the records
 * that decode are kept, up to the first that does not (it may be the one the cut went through);
 * c->pos is left after the last one kept. */
static enum format_status read_chunk(struct reading *r, enum snapshot_chunk_tag tag,
                                     struct cursor *c, uint32_t count, int cut)
{
  if (tag == SNAPSHOT_CHUNK_END && !cut)
    return read_end(r, c);
  if (tag != SNAPSHOT_CHUNK_STRINGS && tag != SNAPSHOT_CHUNK_OBJECTS && tag != SNAPSHOT_CHUNK_ROOTS) {
    c->pos = cut ? 0 : c->size;
    return FORMAT_OK;  /* a chunk a later version adds: skipped (or a cut end: nothing of it kept) */
  }
  uint64_t address = 0;
  uint32_t n = 0;
  while (c->pos < c->size) {
    struct mark m = mark_take(r, c);
    enum format_status st = tag == SNAPSHOT_CHUNK_STRINGS  ? read_string(r, c)
                            : tag == SNAPSHOT_CHUNK_OBJECTS ? read_object(r, c, &address)
                                                            : read_root(r, c);
    if (st != FORMAT_OK) {
      if (!cut || st == FORMAT_NO_MEMORY)
        return st;
      mark_restore(r, c, &m);
      memset(r->error, 0, sizeof *r->error);
      return FORMAT_OK;
    }
    n++;
  }
  if (!cut && n != count)
    return fail(r, FORMAT_BAD_INPUT, c->base - SNAPSHOT_CHUNK_HEAD_BYTES,
                "%s chunk says %" PRIu32 " records and holds %" PRIu32,
                tag == SNAPSHOT_CHUNK_STRINGS ? "strings" : tag == SNAPSHOT_CHUNK_OBJECTS ? "objects" : "roots",
                count, n);
  return FORMAT_OK;
}

/* Sizes the arrays from the chunks' heads, before a record is decoded: each record is at least
 * a byte or a few, so a head that says more records than its body can hold says too many, and
 * is believed only that far; the end chunk's totals, when it is there, say how many references
 * (else they grow as read). The string pool holds every STRINGS body and a NUL a record. */
static enum format_status size_arrays(struct reading *r, const uint8_t *in, size_t size)
{
  struct snapshot *s = r->snapshot;
  uint64_t strings = 0, string_bytes = 0, objects = 0, roots = 0, references = 0, object_bytes = 0;
  for (size_t pos = SNAPSHOT_HEADER_BYTES; pos < size && size - pos >= SNAPSHOT_CHUNK_HEAD_BYTES;) {
    uint8_t tag = in[pos];
    uint64_t length = get32(in + pos + 1), count = get32(in + pos + 5);
    size_t body = pos + SNAPSHOT_CHUNK_HEAD_BYTES;
    if (length > size - body)
      length = size - body;  /* cut here */
    if (count > length)
      count = length;
    if (tag == SNAPSHOT_CHUNK_STRINGS) {
      strings += count, string_bytes += length;
      string_bytes += count_nuls(in + body, (size_t)length);  /* a NUL is kept as two bytes */
    } else if (tag == SNAPSHOT_CHUNK_OBJECTS)
      objects += count, object_bytes += length;
    else if (tag == SNAPSHOT_CHUNK_ROOTS)
      roots += count;
    else if (tag == SNAPSHOT_CHUNK_END) {
      uint64_t totals[2];
      size_t at = body;
      for (int i = 0; i < 2; i++) {
        int k = memprof_uleb128_decode(in + at, (size_t)(body + length - at), &totals[i]);
        if (k <= 0)
          totals[i] = 0;
        at += k > 0 ? (size_t)k : 0;
      }
      references = totals[1];
      break;  /* the trailer follows: its offset's first byte may read as a tag */
    }
    pos = body + (size_t)length;
  }
  if (references > object_bytes / 2)  /* a reference is two numbers */
    references = object_bytes / 2;
  if (objects > SNAPSHOT_MAX_RECORDS)
    objects = SNAPSHOT_MAX_RECORDS;
  if (references > SNAPSHOT_MAX_RECORDS)
    references = SNAPSHOT_MAX_RECORDS;
  if (strings > UINT32_MAX - 2)
    strings = UINT32_MAX - 2;
  r->object_capacity = objects ? (size_t)objects : 1;
  r->reference_capacity = references ? (size_t)references : 64;
  r->root_capacity = roots ? (size_t)roots : 1;
  r->string_capacity = (size_t)strings + 1;
  r->pool_capacity = (size_t)(string_bytes + strings) + 1;
  r->block_capacity = 64;
  s->objects = malloc(r->object_capacity * sizeof *s->objects);
  s->references = malloc(r->reference_capacity * sizeof *s->references);
  r->targets = malloc(r->reference_capacity * sizeof *r->targets);
  r->offsets = malloc(r->object_capacity * sizeof *r->offsets);
  s->roots = malloc(r->root_capacity * sizeof *s->roots);
  s->strings = calloc(r->string_capacity, sizeof *s->strings);
  s->string_pool = malloc(r->pool_capacity);
  s->blocks = malloc(r->block_capacity * sizeof *s->blocks);
  if (!s->objects || !s->references || !r->targets || !r->offsets || !s->roots || !s->strings || !s->string_pool || !s->blocks)
    return no_memory(r, 0);
  return FORMAT_OK;
}

/* Objects by address, every owned block's owner, and each reference's object. The references
 * are resolved before the objects move when they can be (the targets freed before a second
 * array of objects is made), else after. Two objects at one address are an error. */
static enum format_status index_objects(struct reading *r)
{
  struct snapshot *s = r->snapshot;
  uint64_t address = 0, offset = 0;
  uint32_t *order;
  int resolved;
  enum format_status st = snapshot_index_order(s, &r->offsets, r->targets, &order, &resolved, &address, &offset);
  if (st == FORMAT_BAD_INPUT)
    return fail(r, FORMAT_BAD_INPUT, offset, "a second object at address 0x%" PRIx64, address);
  if (st == FORMAT_OK && resolved)
    st = snapshot_index_wide(s, r->targets, r->big, r->big_count);
  if (st == FORMAT_OK)
    st = snapshot_index_place(s, order);
  else
    free(order);
  if (st == FORMAT_OK && !resolved) {
    snapshot_index_resolve(s, r->targets);
    st = snapshot_index_wide(s, r->targets, r->big, r->big_count);
  }
  free(r->targets);
  r->targets = NULL;
  return st == FORMAT_NO_MEMORY ? no_memory(r, 0) : st;
}

/* The blocks' array's size, fitted. */
static size_t blocks_fitted(const struct snapshot *s)
{
  return s->block_count ? s->block_count : 1;
}

static void reading_free(struct reading *r)
{
  free(r->targets);
  free(r->big);
  free(r->offsets);
  r->offsets = NULL;
  r->targets = NULL;
  r->big = NULL;
}

/* The file's header: the magic (else not a snapshot, or one cut inside it) and the version. */
static enum format_status read_header(struct reading *r, const uint8_t *in, size_t size)
{
  if (size < SNAPSHOT_HEADER_BYTES || memcmp(in, SNAPSHOT_MAGIC, 4) != 0) {
    if (size < SNAPSHOT_HEADER_BYTES && !memcmp(in, SNAPSHOT_MAGIC, size < 4 ? size : 4))
      return fail(r, FORMAT_BAD_INPUT, size, "cut inside the header: no snapshot to read");
    return fail(r, FORMAT_BAD_INPUT, 0, "not a heap snapshot (no \"%s\" magic)", SNAPSHOT_MAGIC);
  }
  if (in[4] != SNAPSHOT_VERSION)
    return fail(r, FORMAT_UNSUPPORTED, 4, "heap snapshot version %u; this ljleak reads version %d",
                in[4], SNAPSHOT_VERSION);
  return FORMAT_OK;
}

/* The trailer after the end chunk, which ends at pos: all that follows it, pointing back at it. */
static enum format_status read_trailer(struct reading *r, const uint8_t *in, size_t size, size_t pos)
{
  uint64_t end_offset = 0;
  if (size - pos != SNAPSHOT_TRAILER_BYTES || memcmp(in + pos + 8, SNAPSHOT_TRAILER_MAGIC, 4) != 0)
    return fail(r, FORMAT_BAD_INPUT, pos, "the end chunk is not followed by the trailer alone");
  for (int i = 7; i >= 0; i--)
    end_offset = end_offset << 8 | in[pos + (size_t)i];
  if (end_offset + SNAPSHOT_CHUNK_HEAD_BYTES > pos)
    return fail(r, FORMAT_BAD_INPUT, pos, "the trailer points past the end chunk");
  return FORMAT_OK;
}

/* snapshot_read_memory; taken, when not NULL, is data's allocation, freed once the chunks are
 * decoded: the objects are put in order without the file beside them. */
static enum format_status read_snapshot(struct snapshot *snapshot, const void *data, size_t size,
                                        const char *name, struct format_error *error, void *taken)
{
  struct reading r = {.snapshot = snapshot, .name = name, .error = error};
  const uint8_t *in = data;
  memset(snapshot, 0, sizeof *snapshot);
  memset(error, 0, sizeof *error);
  enum format_status st = read_header(&r, in, size);
  if (st != FORMAT_OK) {
    free(taken);
    snapshot_free(snapshot);
    return st;
  }
  size_t pos = SNAPSHOT_HEADER_BYTES;
  int have_capture = 0, ended = 0;
  st = size_arrays(&r, in, size);
  if (st != FORMAT_OK) {
    free(taken);
    reading_free(&r);
    snapshot_free(snapshot);
    return st;
  }
  while (st == FORMAT_OK && !ended && pos < size) {
    if (size - pos < SNAPSHOT_CHUNK_HEAD_BYTES)
      break;  /* cut inside a chunk's head */
    enum snapshot_chunk_tag tag = (enum snapshot_chunk_tag)in[pos];
    uint32_t length = get32(in + pos + 1), count = get32(in + pos + 5);
    if (length > size - pos - SNAPSHOT_CHUNK_HEAD_BYTES) {
      /* Cut inside its body: the records that are whole are kept. */
      struct cursor c = {in + pos + SNAPSHOT_CHUNK_HEAD_BYTES, size - pos - SNAPSHOT_CHUNK_HEAD_BYTES, 0,
                         pos + SNAPSHOT_CHUNK_HEAD_BYTES};
      if (have_capture)
        st = read_chunk(&r, tag, &c, count, 1);
      if (c.pos)
        pos += SNAPSHOT_CHUNK_HEAD_BYTES + c.pos;
      break;
    }
    struct cursor c = {in + pos + SNAPSHOT_CHUNK_HEAD_BYTES, length, 0, pos + SNAPSHOT_CHUNK_HEAD_BYTES};
    if ((tag == SNAPSHOT_CHUNK_CAPTURE) == have_capture)
      st = fail(&r, FORMAT_BAD_INPUT, pos, have_capture ? "a second capture chunk" : "the first chunk is not the capture chunk");
    else if (tag == SNAPSHOT_CHUNK_CAPTURE)
      st = read_capture(&r, &c);
    else
      st = read_chunk(&r, tag, &c, count, 0);
    if (st == FORMAT_OK && tag != SNAPSHOT_CHUNK_CAPTURE && c.pos != c.size)
      st = fail(&r, FORMAT_BAD_INPUT, c.base + c.pos, "%zu bytes left over at the end of a chunk", c.size - c.pos);
    have_capture = 1;
    ended = tag == SNAPSHOT_CHUNK_END;
    pos += SNAPSHOT_CHUNK_HEAD_BYTES + (size_t)length;
  }
  int trailer_cut = ended && size - pos < SNAPSHOT_TRAILER_BYTES;
  if (st == FORMAT_OK && ended && trailer_cut) {
    ended = 0;  /* every record is there; the file was still cut */
  } else if (st == FORMAT_OK && ended) {
    st = read_trailer(&r, in, size, pos);
  }
  if (st == FORMAT_OK && !have_capture)
    st = fail(&r, FORMAT_BAD_INPUT, pos, "cut before the capture chunk: no snapshot to read");
  free(taken);
  if (st == FORMAT_OK && r.block_capacity > blocks_fitted(snapshot)) {  /* grown by doubling: no room left over */
    struct snapshot_block *fit = realloc(snapshot->blocks, blocks_fitted(snapshot) * sizeof *fit);
    snapshot->blocks = fit ? fit : snapshot->blocks;
  }
  if (st == FORMAT_OK)
    st = index_objects(&r);
  reading_free(&r);
  if (st != FORMAT_OK) {
    snapshot_free(snapshot);
    return st;
  }
  snapshot->complete = ended || trailer_cut;
  if (!ended)
    return fail(&r, FORMAT_CUT, pos,
                "the snapshot is cut here (%s): %zu objects and %zu references read",
                trailer_cut ? "in its trailer, after every record" : "its end is missing",
                snapshot->object_count, snapshot->reference_count);
  return FORMAT_OK;
}

enum format_status snapshot_read_memory(struct snapshot *snapshot, const void *data, size_t size,
                                        const char *name, struct format_error *error)
{
  return read_snapshot(snapshot, data, size, name, error, NULL);
}

enum format_status snapshot_read_file(struct snapshot *snapshot, const char *path, enum input_file_how how,
                                      struct format_error *error)
{
  char *data;
  size_t size;
  memset(snapshot, 0, sizeof *snapshot);
  if (whole_file_read(path, how, &data, &size, error) != FORMAT_OK)
    return error->status;
  return read_snapshot(snapshot, data, size, path, error, data);
}

enum format_status snapshot_check_capture(const struct snapshot *snapshot, const char *name,
                                          uint64_t pid, double start, struct format_error *error)
{
  /* The index writes start with %.3f: milliseconds, to within rounding. */
  double start_ms = start * 1000.0;
  double diff = (double)snapshot->capture.start_ms - start_ms;
  if (snapshot->capture.pid == pid && diff > -1.5 && diff < 1.5)
    return FORMAT_OK;
  return format_error_at(error, FORMAT_BAD_INPUT, name, SNAPSHOT_HEADER_BYTES + SNAPSHOT_CHUNK_HEAD_BYTES,
                         "belongs to another capture (pid %" PRIu64 ", started %.3f), not this one "
                         "(pid %" PRIu64 ", started %.3f)",
                         snapshot->capture.pid, (double)snapshot->capture.start_ms / 1000.0, pid, start);
}

const char *snapshot_type_name(enum snapshot_type type)
{
  static const char *const names[SNAPSHOT_TYPE_COUNT] = {
    "continued", "string", "table", "function", "C function", "prototype",
    "upvalue", "thread", "userdata", "cdata", "trace", "vm"};
  return (unsigned)type < SNAPSHOT_TYPE_COUNT ? names[type] : "?";
}

void snapshot_free_references(struct snapshot *snapshot)
{
  free(snapshot->references);
  free(snapshot->wide);
  snapshot->references = NULL;
  snapshot->wide = NULL;
  snapshot->reference_count = snapshot->wide_count = 0;
  for (size_t i = 0; i < snapshot->object_count; i++)
    snapshot->objects[i].first_reference = snapshot->objects[i].reference_count = 0;
}

void snapshot_free_index(struct snapshot *snapshot)
{
  free(snapshot->block_index);
  free(snapshot->find_start);
  snapshot->block_index = NULL;
  snapshot->find_start = NULL;
  snapshot->find_buckets = 0;
}

void snapshot_free(struct snapshot *snapshot)
{
  free(snapshot->strings);
  free(snapshot->string_pool);
  free(snapshot->objects);
  free(snapshot->blocks);
  free(snapshot->references);
  free(snapshot->roots);
  free(snapshot->wide);
  free(snapshot->wide_counts);
  free(snapshot->block_index);
  free(snapshot->find_start);
  memset(snapshot, 0, sizeof *snapshot);
}
