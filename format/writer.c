/* format/writer.c: memprof stream encoder into a caller-owned buffer; never allocates. */
#include <string.h>

#include "format/memprof.h"

#define WRITER_RECORD_MAX 64   /* an event or a symbol without its name fits in this */

static const uint8_t symtab_header[] = {'l', 'j', 's', MEMPROF_VERSION, 0, 0, 0};
static const uint8_t events_header[] = {'l', 'j', 'm', MEMPROF_VERSION, 0, 0, 0};

void memprof_writer_init(struct memprof_writer *w, uint8_t *buffer, size_t capacity,
                         memprof_sink_fn sink, void *sink_context)
{
  w->buffer = buffer;
  w->capacity = capacity;
  w->used = 0;
  w->sink = sink;
  w->sink_context = sink_context;
  w->failed = capacity < WRITER_RECORD_MAX;
  w->bytes_written = 0;
}

static int writer_pass(struct memprof_writer *w, const uint8_t *data, size_t size)
{
  if (size == 0)
    return 0;
  if (w->sink(w->sink_context, data, size) != 0) {
    w->failed = 1;
    return -1;
  }
  return 0;
}

int memprof_writer_flush(struct memprof_writer *w)
{
  if (w->failed)
    return -1;
  size_t used = w->used;
  w->used = 0;
  return writer_pass(w, w->buffer, used);
}

int memprof_writer_reserve(struct memprof_writer *w, size_t size)
{
  if (w->failed)
    return -1;
  if (w->capacity - w->used < size)
    return memprof_writer_flush(w);
  return 0;
}

static void put_byte(struct memprof_writer *w, uint8_t byte)
{
  w->buffer[w->used++] = byte;
  w->bytes_written++;
}

static void put_uleb(struct memprof_writer *w, uint64_t value)
{
  size_t n = memprof_uleb128_encode(w->buffer + w->used, value);
  w->used += n;
  w->bytes_written += n;
}

static int put_bytes(struct memprof_writer *w, const uint8_t *data, size_t size)
{
  if (w->failed)
    return -1;
  if (w->capacity - w->used < size && memprof_writer_flush(w) != 0)
    return -1;
  if (size > w->capacity) {
    /* Longer than the whole buffer: straight to the sink. */
    if (writer_pass(w, data, size) != 0)
      return -1;
  } else {
    memcpy(w->buffer + w->used, data, size);
    w->used += size;
  }
  w->bytes_written += size;
  return 0;
}

/* A symbol body (after its header byte): the same in the prologue and in a symtab event. */
static int put_symbol(struct memprof_writer *w, uint8_t header, const struct memprof_symbol *s)
{
  if (memprof_writer_reserve(w, WRITER_RECORD_MAX) != 0)
    return -1;
  put_byte(w, header);
  switch (s->kind) {
  case MEMPROF_SYMBOL_TRACE:
    put_uleb(w, s->trace);
    put_uleb(w, s->address);
    put_uleb(w, s->line);
    return 0;
  case MEMPROF_SYMBOL_LUA:
  case MEMPROF_SYMBOL_C:
    put_uleb(w, s->address);
    put_uleb(w, (uint64_t)s->name_length);
    if (put_bytes(w, (const uint8_t *)s->name, s->name_length) != 0)
      return -1;
    if (s->kind == MEMPROF_SYMBOL_LUA) {
      if (memprof_writer_reserve(w, MEMPROF_ULEB128_MAX) != 0)
        return -1;
      put_uleb(w, s->line);
    }
    return 0;
  }
  return -1;
}

static int symbol_kind_is_valid(const struct memprof_symbol *s)
{
  return s->kind == MEMPROF_SYMBOL_LUA || s->kind == MEMPROF_SYMBOL_C ||
         s->kind == MEMPROF_SYMBOL_TRACE;
}

int memprof_writer_symtab_begin(struct memprof_writer *w)
{
  return put_bytes(w, symtab_header, sizeof symtab_header);
}

int memprof_writer_symbol(struct memprof_writer *w, const struct memprof_symbol *s)
{
  if (!symbol_kind_is_valid(s))
    return -1;
  return put_symbol(w, (uint8_t)s->kind, s);  /* prologue entry header: the type */
}

int memprof_writer_symtab_end(struct memprof_writer *w)
{
  if (memprof_writer_reserve(w, 1) != 0)
    return -1;
  put_byte(w, MEMPROF_EPILOGUE);
  return 0;
}

int memprof_writer_events_begin(struct memprof_writer *w)
{
  return put_bytes(w, events_header, sizeof events_header);
}

int memprof_writer_event(struct memprof_writer *w, const struct memprof_event *e)
{
  if (e->kind < MEMPROF_EVENT_ALLOC || e->kind > MEMPROF_EVENT_REALLOC ||
      e->source < MEMPROF_SOURCE_INTERNAL || e->source > MEMPROF_SOURCE_TRACE)
    return -1;
  if (memprof_writer_reserve(w, WRITER_RECORD_MAX) != 0)
    return -1;
  put_byte(w, (uint8_t)((unsigned)e->source << 2 | (unsigned)e->kind));
  if (e->source == MEMPROF_SOURCE_LUA) {
    put_uleb(w, e->location);
    put_uleb(w, e->line);
  } else if (e->source != MEMPROF_SOURCE_INTERNAL) {
    put_uleb(w, e->location);
  }
  if (e->kind != MEMPROF_EVENT_ALLOC) {
    put_uleb(w, e->old_address);
    put_uleb(w, e->old_size);
  }
  if (e->kind != MEMPROF_EVENT_FREE) {
    put_uleb(w, e->new_address);
    put_uleb(w, e->new_size);
  }
  return 0;
}

int memprof_writer_symbol_event(struct memprof_writer *w, const struct memprof_symbol *s)
{
  if (!symbol_kind_is_valid(s))
    return -1;
  /* The source bits name the symbol: 2 Lua, 3 C, 4 trace; the kind bits are 0. */
  return put_symbol(w, (uint8_t)(((unsigned)s->kind + MEMPROF_SOURCE_LUA) << 2), s);
}

int memprof_writer_epilogue(struct memprof_writer *w)
{
  if (memprof_writer_reserve(w, 1) != 0)
    return -1;
  put_byte(w, MEMPROF_EPILOGUE);
  return memprof_writer_flush(w);
}
