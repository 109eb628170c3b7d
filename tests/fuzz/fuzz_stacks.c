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

/* Writes the records of data again (strings, stacks by their string ids,
 * events); returns the final status of reading data. */
static enum memprof_status rewrite(const uint8_t *data, size_t size, struct bytes *out,
                                   uint64_t *events, size_t *nevents)
{
  struct memprof_error err;
  struct stacks_reader *r = stacks_reader_open_memory(data, size, "fuzz", &err);
  if (!r) {
    MUST(err.status != MEMPROF_OK && strncmp(err.message, "fuzz: ", 6) == 0);
    return err.status;
  }
  uint8_t buffer[STACKS_WRITER_MIN_CAPACITY];
  struct stacks_writer w;
  stacks_writer_init(&w, buffer, sizeof buffer, bytes_sink, out);
  MUST(stacks_writer_header(&w) == 0);
  static struct stacks_wire_frame frames[STACKS_MAX_FRAMES];
  /* String ids of the rewrite are the input's: strings are written in order. */
  const char **names = NULL;
  uint32_t nnames = 0;
  struct stacks_record rec;
  enum memprof_status s;
  while ((s = stacks_reader_next(r, &rec)) == MEMPROF_OK) {
    MUST(rec.offset < size);
    if (rec.type == STACKS_RECORD_STRING) {
      MUST(stacks_writer_string(&w, rec.string, rec.string_length) == rec.id);
      names = realloc(names, (rec.id + 1) * sizeof *names);
      names[rec.id] = rec.string;
      nnames = rec.id;
    } else if (rec.type == STACKS_RECORD_STACK) {
      for (uint32_t i = 0; i < rec.stack->frame_count; i++) {
        const struct stacks_frame *f = &rec.stack->frames[i];
        uint32_t name = 0;
        for (uint32_t k = 1; k <= nnames && !name; k++)
          if (names[k] == f->name)
            name = k;
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
  const struct memprof_error *e = stacks_reader_error(r);
  MUST(e->status == s && strncmp(e->message, "fuzz: byte ", 11) == 0);
  MUST(e->offset <= size || s == MEMPROF_END || s == MEMPROF_TRUNCATED || s == MEMPROF_CORRUPT);
  if (s == MEMPROF_END)
    MUST(stacks_writer_end(&w) == 0);
  MUST(stacks_writer_flush(&w) == 0);
  free(names);
  stacks_reader_close(r);
  return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  struct bytes once = {NULL, 0, 0}, twice = {NULL, 0, 0};
  uint64_t events[64], events2[64];
  size_t n1 = 0, n2 = 0;
  enum memprof_status s = rewrite(data, size, &once, events, &n1);
  if (once.size) {
    /* What was read, written again, reads the same and writes the same bytes. */
    enum memprof_status s2 = rewrite(once.data, once.size, &twice, events2, &n2);
    MUST(s2 == (s == MEMPROF_END ? MEMPROF_END : MEMPROF_TRUNCATED));
    MUST(twice.size == once.size && memcmp(twice.data, once.data, once.size) == 0);
    MUST(n1 == n2 && memcmp(events, events2, n1 * sizeof events[0]) == 0);
    /* The lockstep lookup finds each event's stack. */
    struct memprof_error err;
    struct stacks_reader *r = stacks_reader_open_memory(once.data, once.size, "fuzz", &err);
    MUST(r != NULL);
    for (size_t i = 0; i < n1; i++) {
      uint32_t id;
      MUST(stacks_reader_event(r, events[i], &id) == MEMPROF_OK && id != 0);
    }
    stacks_reader_close(r);
  }
  free(once.data);
  free(twice.data);
  return 0;
}
