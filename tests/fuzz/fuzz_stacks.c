/* tests/fuzz/fuzz_stacks.c: libFuzzer target: read any bytes as a stack sidecar; an error is inside the input and names it; what reads is written again and reads back the same, and the lockstep lookup agrees with the records. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/stacks.h"
#include "tests/bytes.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MUST(condition)                                                                  \
  do {                                                                                   \
    if (!(condition)) {                                                                  \
      fprintf(stderr, "fuzz_stacks: %s:%d: %s\n", __FILE__, __LINE__, #condition);       \
      abort();                                                                           \
    }                                                                                    \
  } while (0)

/* The string ids of an input by the address the reader gives each string's
 * bytes: a decoded frame's name is one of those pointers, or "" for none.
 * Open addressing, doubled at half full. The long run's inputs hold tens of
 * thousands of strings and thousand-frame stacks: a scan of every name per
 * frame and a realloc per string made one unit cost seconds (and, under
 * ASan, whose realloc always moves, gigabytes of copies). */
struct name_slot {
  const char *name;        /* NULL: free */
  uint32_t id;
};
struct name_ids {
  struct name_slot *slots;
  size_t mask, count;      /* mask + 1 slots, a power of two: 1 << (64 - shift) */
  unsigned shift;
};

/* Fibonacci hashing: the product's top bits. Its middle bits left the
 * addresses of equal-sized blocks clustered (14 probes an insert for a
 * million of them, against 0.1). */
static size_t name_ids_hash(const char *name, unsigned shift)
{
  return (size_t)(((uint64_t)(uintptr_t)name * 0x9e3779b97f4a7c15u) >> shift);
}

static void name_ids_put(struct name_slot *slots, size_t mask, unsigned shift, const char *name,
                         uint32_t id)
{
  size_t i = name_ids_hash(name, shift);
  while (slots[i].name)
    i = (i + 1) & mask;
  slots[i] = (struct name_slot){name, id};
}

static void name_ids_add(struct name_ids *map, const char *name, uint32_t id)
{
  if (2 * (map->count + 1) > map->mask + 1) {
    size_t size = map->slots ? 2 * (map->mask + 1) : 64;
    unsigned shift = map->slots ? map->shift - 1 : 64 - 6;
    struct name_slot *slots = calloc(size, sizeof *slots);
    MUST(slots != NULL);
    for (size_t i = 0; map->slots && i <= map->mask; i++)
      if (map->slots[i].name)
        name_ids_put(slots, size - 1, shift, map->slots[i].name, map->slots[i].id);
    free(map->slots);
    map->slots = slots;
    map->mask = size - 1;
    map->shift = shift;
  }
  name_ids_put(map->slots, map->mask, map->shift, name, id);
  map->count++;
}

/* The id of the string whose bytes are at name, or 0. */
static uint32_t name_ids_find(const struct name_ids *map, const char *name)
{
  if (!map->slots)
    return 0;
  for (size_t i = name_ids_hash(name, map->shift); map->slots[i].name; i = (i + 1) & map->mask)
    if (map->slots[i].name == name)
      return map->slots[i].id;
  return 0;
}

/* Writes the records of data again (strings, stacks by their string ids,
 * events); returns the final status of reading data. Keeps nothing from one
 * call to the next. */
static enum format_status rewrite(const uint8_t *data, size_t size, struct bytes *out,
                                  uint64_t *events, size_t *nevents)
{
  struct format_error err;
  struct stacks_reader *r = stacks_reader_open_memory(data, size, "fuzz", &err);
  if (!r) {
    MUST(err.status != FORMAT_OK && strncmp(err.message, "fuzz: ", 6) == 0);
    return err.status;
  }
  /* Offsets count the decompressed sidecar: only a plain input bounds them. */
  int plain = !(size >= 2 && data[0] == 0x1f && data[1] == 0x8b);
  uint8_t buffer[STACKS_WRITER_MIN_CAPACITY];
  struct stacks_writer w;
  stacks_writer_init(&w, buffer, sizeof buffer, bytes_sink, out);
  MUST(stacks_writer_header(&w) == 0);
  struct stacks_wire_frame frames[STACKS_MAX_FRAMES];
  /* String ids of the rewrite are the input's: strings are written in order. */
  struct name_ids names = {NULL, 0, 0, 0};
  struct stacks_record rec;
  enum format_status s;
  while ((s = stacks_reader_next(r, &rec)) == FORMAT_OK) {
    MUST(rec.offset < stacks_reader_offset(r) && (rec.offset < size || !plain));
    if (rec.type == STACKS_RECORD_STRING) {
      MUST(stacks_writer_string(&w, rec.string, rec.string_length) == rec.id);
      name_ids_add(&names, rec.string, rec.id);
    } else if (rec.type == STACKS_RECORD_STACK) {
      for (uint32_t i = 0; i < rec.stack->frame_count; i++) {
        const struct stacks_frame *f = &rec.stack->frames[i];
        uint32_t name = name_ids_find(&names, f->name);
        MUST(name || f->name_length == 0);
        frames[i] = (struct stacks_wire_frame){f->kind, name, f->defined, f->line};
      }
      MUST(stacks_writer_stack(&w, frames, rec.stack->frame_count, rec.stack->flags) == rec.id);
    } else {
      MUST(stacks_reader_stack(r, rec.stack_id) != NULL);
      MUST(stacks_writer_event(&w, rec.event, rec.stack_id) == 0);
      if (*nevents < 64)
        events[(*nevents)++] = rec.event;
    }
  }
  const struct format_error *e = stacks_reader_error(r);
  MUST(e->status == s && strncmp(e->message, "fuzz: byte ", 11) == 0);
  MUST(e->offset <= size || !plain || s == FORMAT_END || s == FORMAT_CUT ||
       s == FORMAT_BAD_INPUT);
  if (s == FORMAT_END)
    MUST(stacks_writer_end(&w) == 0);
  MUST(stacks_writer_flush(&w) == 0);
  free(names.slots);
  stacks_reader_close(r);
  return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  struct bytes once = {NULL, 0, 0}, twice = {NULL, 0, 0};
  uint64_t events[64], events2[64];
  size_t n1 = 0, n2 = 0;
  enum format_status s = rewrite(data, size, &once, events, &n1);
  if (once.size) {
    /* What was read, written again, reads the same and writes the same bytes. */
    enum format_status s2 = rewrite(once.data, once.size, &twice, events2, &n2);
    MUST(s2 == (s == FORMAT_END ? FORMAT_END : FORMAT_CUT));
    MUST(twice.size == once.size && memcmp(twice.data, once.data, once.size) == 0);
    MUST(n1 == n2 && memcmp(events, events2, n1 * sizeof events[0]) == 0);
    /* The lockstep lookup finds each event's stack. */
    struct format_error err;
    struct stacks_reader *r = stacks_reader_open_memory(once.data, once.size, "fuzz", &err);
    MUST(r != NULL);
    for (size_t i = 0; i < n1; i++) {
      uint32_t id;
      MUST(stacks_reader_event(r, events[i], &id) == FORMAT_OK && id != 0);
    }
    stacks_reader_close(r);
  }
  free(once.data);
  free(twice.data);
  return 0;
}
