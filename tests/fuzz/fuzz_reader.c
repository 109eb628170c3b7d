/* tests/fuzz/fuzz_reader.c: libFuzzer target: read any bytes as a memprof stream, name every event, and check a rewrite reads back the same. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "format/memprof.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct growing {
  uint8_t *data;
  size_t size, capacity;
};

static int growing_sink(void *context, const uint8_t *bytes, size_t size)
{
  struct growing *g = context;
  if (g->size + size > g->capacity) {
    size_t capacity = g->capacity ? g->capacity : 4096;
    while (capacity < g->size + size)
      capacity *= 2;
    uint8_t *grown = realloc(g->data, capacity);
    if (grown == NULL)
      return -1;
    g->data = grown;
    g->capacity = capacity;
  }
  memcpy(g->data + g->size, bytes, size);
  g->size += size;
  return 0;
}

/* Writes one record where the writer expects it. */
static void rewrite_record(struct memprof_writer *w, const struct memprof_record *rec, int *in_events)
{
  if (!*in_events && (rec->type == MEMPROF_RECORD_EVENT || rec->in_stream)) {
    memprof_writer_symtab_end(w);
    memprof_writer_events_begin(w);
    *in_events = 1;
  }
  if (rec->type == MEMPROF_RECORD_EVENT)
    memprof_writer_event(w, &rec->event);
  else if (rec->in_stream)
    memprof_writer_symbol_event(w, &rec->symbol);
  else
    memprof_writer_symbol(w, &rec->symbol);
}

static void same_or_abort(const struct memprof_record *a, const struct memprof_record *b)
{
  if (a->type != b->type || a->in_stream != b->in_stream)
    abort();
  if (a->type == MEMPROF_RECORD_EVENT) {
    if (memcmp(&a->event, &b->event, sizeof a->event) != 0)
      abort();
    return;
  }
  const struct memprof_symbol *x = &a->symbol, *y = &b->symbol;
  if (x->kind != y->kind || x->address != y->address || x->line != y->line ||
      x->trace != y->trace || x->name_length != y->name_length)
    abort();
  if (x->name_length > 0 && memcmp(x->name, y->name, x->name_length) != 0)
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  struct memprof_error err;
  struct memprof_reader *r = memprof_reader_open_memory(data, size, "fuzz", &err);
  if (r == NULL)
    return 0;
  struct memprof_symtab *symtab = memprof_symtab_new();
  struct growing out = {NULL, 0, 0};
  uint8_t buffer[64];
  struct memprof_writer w;
  memprof_writer_init(&w, buffer, sizeof buffer, growing_sink, &out);
  memprof_writer_symtab_begin(&w);
  struct memprof_record rec;
  enum memprof_status status;
  size_t records = 0;
  int in_events = 0;
  char name[256];
  while ((status = memprof_reader_next(r, &rec)) == MEMPROF_OK) {
    records++;
    if (rec.offset >= memprof_reader_offset(r))
      abort();  /* every record takes bytes */
    if (rec.type == MEMPROF_RECORD_SYMBOL) {
      memprof_symtab_add(symtab, &rec.symbol);
    } else {
      size_t length = memprof_symtab_name(symtab, &rec.event, MEMPROF_NAMING_TARANTOOL, name,
                                          sizeof name);
      if (name[length < sizeof name ? length : sizeof name - 1] != '\0')
        abort();  /* names may hold NULs, but end where the length says */
      memprof_symtab_name(symtab, &rec.event, MEMPROF_NAMING_STABLE, name, sizeof name);
    }
    rewrite_record(&w, &rec, &in_events);
  }
  if (memprof_reader_next(r, &rec) != status || memprof_reader_error(r)->status != status)
    abort();  /* final statuses repeat */
  if (status != MEMPROF_END && memprof_reader_error(r)->message[0] == '\0')
    abort();  /* every error says what happened */
  for (size_t i = 0; i < memprof_symtab_alias_count(symtab); i++) {
    size_t length;
    if (memprof_symtab_alias_source(symtab, i, &length) == NULL)
      abort();
  }
  memprof_reader_close(r);
  if (!in_events) {
    memprof_writer_symtab_end(&w);
    memprof_writer_events_begin(&w);
  }
  memprof_writer_epilogue(&w);

  /* The rewrite reads back as the same records (version 3 only: the writer writes 3/3). */
  r = memprof_reader_open_memory(data, size, "fuzz", &err);
  struct memprof_reader *again = memprof_reader_open_memory(out.data, out.size, "rewrite", &err);
  if (r != NULL && again != NULL && memprof_reader_symtab_version(r) == 0) {
    struct memprof_record a, b;
    size_t compared = 0;
    while (compared < records && memprof_reader_next(r, &a) == MEMPROF_OK) {
      if (memprof_reader_symtab_version(r) != 3)
        break;
      if (memprof_reader_next(again, &b) != MEMPROF_OK)
        abort();
      same_or_abort(&a, &b);
      compared++;
    }
    if (compared == records && memprof_reader_next(again, &b) != MEMPROF_END)
      abort();
  }
  memprof_reader_close(r);
  memprof_reader_close(again);
  free(out.data);
  memprof_symtab_free(symtab);
  return 0;
}
