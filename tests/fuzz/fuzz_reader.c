/* tests/fuzz/fuzz_reader.c: libFuzzer target: read any bytes as a memprof stream, name every event, check a rewrite reads back the same, a gzip of the bytes reads the same through the (small, in this build) window, and inline decoding (decode.h, with and without pext) reads the same. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "format/decode.h"
#include "format/memprof.h"
#include "tests/bytes.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

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

/* Reads one with memprof_reader_next and two with next_two, in step, to
 * their final statuses; aborts on any difference in status, offset or record. */
static void same_records(struct memprof_reader *one, struct memprof_reader *two,
                         enum format_status (*next_two)(struct memprof_reader *,
                                                        struct memprof_record *))
{
  struct memprof_record a, b;
  for (;;) {
    enum format_status sa = memprof_reader_next(one, &a);
    enum format_status sb = next_two(two, &b);
    if (sa != sb)
      abort();
    if (sa != FORMAT_OK)
      break;
    if (a.offset != b.offset)
      abort();
    same_or_abort(&a, &b);
  }
}

/* Gzips data into a new buffer; returns NULL on failure. */
static uint8_t *gzip_of(const uint8_t *data, size_t size, size_t *out_size)
{
  z_stream z;
  memset(&z, 0, sizeof z);
  if (deflateInit2(&z, 1, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    return NULL;
  size_t capacity = deflateBound(&z, size) + 64;
  uint8_t *out = malloc(capacity);
  z.next_in = (Bytef *)(uintptr_t)data;
  z.avail_in = (uInt)size;
  z.next_out = out;
  z.avail_out = (uInt)capacity;
  if (out == NULL || deflate(&z, Z_FINISH) != Z_STREAM_END) {
    free(out);
    deflateEnd(&z);
    return NULL;
  }
  *out_size = capacity - z.avail_out;
  deflateEnd(&z);
  return out;
}

/* Plain bytes read in place and their gzip read through the window agree exactly. */
static void check_windowed_read(const uint8_t *data, size_t size)
{
  size_t gz_size;
  uint8_t *gz = gzip_of(data, size, &gz_size);
  if (gz == NULL)
    return;
  struct format_error err;
  struct memprof_reader *plain = memprof_reader_open_memory(data, size, "fuzz", &err);
  struct memprof_reader *windowed = memprof_reader_open_memory(gz, gz_size, "fuzz", &err);
  if (plain == NULL || windowed == NULL)
    abort();
  same_records(plain, windowed, memprof_reader_next);
  const struct format_error *ea = memprof_reader_error(plain), *eb = memprof_reader_error(windowed);
  if (ea->offset != eb->offset || strcmp(ea->message, eb->message) != 0)
    abort();
  memprof_reader_close(plain);
  memprof_reader_close(windowed);
  free(gz);
}

/* The next record through inline decoding, as the hot loops read: an event
 * decoded from the span, else whatever memprof_reader_next gives. */
static enum format_status inline_next(struct memprof_reader *r, struct memprof_record *rec)
{
  const uint8_t *at;
  if (memprof_reader_events_span(r, &at) > 0) {
    int version = memprof_reader_events_version(r);
    size_t length = memprof_reader_pext(r) ? memprof_decode_event(at, version, &rec->event, 1)
                                           : memprof_decode_event(at, version, &rec->event, 0);
    if (length > 0) {
      rec->type = MEMPROF_RECORD_EVENT;
      rec->in_stream = 1;
      rec->offset = memprof_reader_offset(r);
      memprof_reader_consume(r, length);
      return FORMAT_OK;
    }
  }
  return memprof_reader_next(r, rec);
}

/* Inline decoding, with the CPU's choice of decoder and with the portable
 * one, gives what memprof_reader_next gives, record for record. */
static void check_inline_decoding(const uint8_t *data, size_t size)
{
  for (int pext = 0; pext < 2; pext++) {
    struct format_error err;
    struct memprof_reader *one = memprof_reader_open_memory(data, size, "fuzz", &err);
    struct memprof_reader *two = memprof_reader_open_memory(data, size, "fuzz", &err);
    if (one == NULL || two == NULL)
      abort();
    memprof_reader_use_pext(two, pext);
    same_records(one, two, inline_next);
    if (memprof_reader_offset(one) != memprof_reader_offset(two) ||
        strcmp(memprof_reader_error(one)->message, memprof_reader_error(two)->message) != 0)
      abort();
    memprof_reader_close(one);
    memprof_reader_close(two);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  check_inline_decoding(data, size);
  if (!(size >= 2 && data[0] == 0x1f && data[1] == 0x8b))
    check_windowed_read(data, size);
  struct format_error err;
  struct memprof_reader *r = memprof_reader_open_memory(data, size, "fuzz", &err);
  if (r == NULL)
    return 0;
  struct memprof_symtab *symtab = memprof_symtab_new();
  struct bytes out = {NULL, 0, 0};
  uint8_t buffer[64];
  struct memprof_writer w;
  memprof_writer_init(&w, buffer, sizeof buffer, bytes_sink, &out);
  memprof_writer_symtab_begin(&w);
  struct memprof_record rec;
  enum format_status status;
  size_t records = 0;
  int in_events = 0;
  char name[256];
  while ((status = memprof_reader_next(r, &rec)) == FORMAT_OK) {
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
  if (status != FORMAT_END && memprof_reader_error(r)->message[0] == '\0')
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
    while (compared < records && memprof_reader_next(r, &a) == FORMAT_OK) {
      if (memprof_reader_symtab_version(r) != 3)
        break;
      if (memprof_reader_next(again, &b) != FORMAT_OK)
        abort();
      same_or_abort(&a, &b);
      compared++;
    }
    if (compared == records && memprof_reader_next(again, &b) != FORMAT_END)
      abort();
  }
  memprof_reader_close(r);
  memprof_reader_close(again);
  free(out.data);
  memprof_symtab_free(symtab);
  return 0;
}
