/* tests/fuzz/fuzz_index.c: libFuzzer target: parse any bytes as a capture index; an error is inside the input, what parses (segment and boundary lines included) is written back and reads back the same (a second rewrite gives the same bytes), and prefixes of it, as a killed process leaves them, read too. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/capture_index.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MUST(condition)                                                                  \
  do {                                                                                   \
    if (!(condition)) {                                                                  \
      fprintf(stderr, "fuzz_index: %s:%d: %s\n", __FILE__, __LINE__, #condition);        \
      abort();                                                                           \
    }                                                                                    \
  } while (0)

static int same_text(const char *a, const char *b)
{
  return !strcmp(a ? a : "", b ? b : "");
}

/* Writes index's lines into a new buffer; *size gets their bytes. */
static char *rewrite(const struct capture_index *index, size_t input_size, size_t *size)
{
  /* Escapes double a string; a number can grow from "1e308" to 300 digits. */
  size_t capacity = 2 * input_size + (index->segment_count + index->boundary_count + 4) * 2048;
  char *out = malloc(capacity);
  MUST(out != NULL);
  size_t used = 0, n;
  if (index->has_header) {
    MUST((n = capture_index_write_header(out, capacity)) > 0);
    used += n;
  }
  if (index->has_capture) {
    MUST((n = capture_index_write_capture(out + used, capacity - used, &index->capture)) > 0);
    used += n;
  }
  for (size_t i = 0; i < index->segment_count; i++) {
    MUST((n = capture_index_write_segment(out + used, capacity - used, &index->segments[i])) > 0);
    used += n;
  }
  for (size_t i = 0; i < index->boundary_count; i++) {
    MUST((n = capture_index_write_boundary(out + used, capacity - used, &index->boundaries[i])) > 0);
    used += n;
  }
  if (index->has_stop) {
    MUST((n = capture_index_write_stop(out + used, capacity - used, &index->stop)) > 0);
    used += n;
  }
  *size = used;
  return out;
}

/* What the rewrite keeps exactly: integers, flags and strings. */
static void same_index(const struct capture_index *a, const struct capture_index *b)
{
  MUST(a->has_header == b->has_header && a->has_capture == b->has_capture && a->has_stop == b->has_stop);
  MUST(!a->has_header || b->version == CAPTURE_INDEX_VERSION);
  if (a->has_capture) {
    MUST(a->capture.pid == b->capture.pid);
    MUST(same_text(a->capture.host, b->capture.host));
    MUST(same_text(a->capture.command, b->capture.command));
    MUST(same_text(a->capture.luajit, b->capture.luajit));
    MUST(a->capture.sample == b->capture.sample && a->capture.max_bytes == b->capture.max_bytes);
    MUST(a->capture.gzip == b->capture.gzip);
  }
  MUST(a->segment_count == b->segment_count);
  for (size_t i = 0; i < a->segment_count; i++) {
    const struct capture_index_segment *s = &a->segments[i], *t = &b->segments[i];
    MUST(s->seq == t->seq && same_text(s->file, t->file));
    MUST(s->gc_cycles == t->gc_cycles && s->heap_bytes == t->heap_bytes && s->events == t->events);
    MUST(s->bytes == t->bytes && s->sample == t->sample && s->complete == t->complete);
    MUST(t->young_from == (s->complete ? s->young_from : CAPTURE_INDEX_YOUNG_FROM_NONE));
  }
  MUST(a->boundary_count == b->boundary_count);
  for (size_t i = 0; i < a->boundary_count; i++) {
    const struct capture_index_boundary *s = &a->boundaries[i], *t = &b->boundaries[i];
    MUST(s->seq == t->seq && s->segment == t->segment && s->events == t->events);
    MUST(s->gc_cycles == t->gc_cycles && s->heap_bytes == t->heap_bytes && s->allocated == t->allocated);
    MUST(s->young_from == t->young_from);
    MUST((s->cause == NULL) == (t->cause == NULL) && same_text(s->cause, t->cause));
  }
  if (a->has_stop)
    MUST(same_text(a->stop.reason, b->stop.reason));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  const char *text = (const char *)data;
  struct capture_index index;
  struct format_error error;
  enum format_status status = capture_index_parse(&index, text, size, "fuzz", &error);
  if (status != FORMAT_OK) {
    MUST(status == FORMAT_BAD_INPUT);
    MUST(error.offset <= size);
    MUST(!strncmp(error.message, "fuzz: byte ", 11));
    MUST(index.text == NULL && index.segments == NULL);
    return 0;
  }
  MUST(index.last_line_cut == (size > 0 && data[size - 1] != '\n'));
  for (size_t i = 0; i < index.segment_count; i++)
    MUST(index.segments[i].file != NULL && index.segments[i].file[0] != '\0');
  /* A listed boundary was read whole, has its position, and its cycle began before it. */
  for (size_t i = 0; i < index.boundary_count; i++) {
    const struct capture_index_boundary *b = &index.boundaries[i];
    MUST((b->keys & CAPTURE_INDEX_BOUNDARY_HAS_SEGMENT) && (b->keys & CAPTURE_INDEX_BOUNDARY_HAS_EVENTS));
    MUST(b->young_from == CAPTURE_INDEX_YOUNG_FROM_NONE || b->young_from <= b->events);
    MUST(b->offset < size && !memcmp(text + b->offset, "boundary\t", 9));
    MUST(!index.last_line_cut || b->offset < index.last_line_offset);
    MUST(i == 0 || b->offset > index.boundaries[i - 1].offset);
  }

  size_t written_size;
  char *written = rewrite(&index, size, &written_size);
  struct capture_index again;
  MUST(capture_index_parse(&again, written, written_size, "rewrite", &error) == FORMAT_OK);
  same_index(&index, &again);
  size_t twice_size;
  char *twice = rewrite(&again, written_size, &twice_size);
  MUST(twice_size == written_size && !memcmp(twice, written, written_size));
  free(twice);
  capture_index_free(&again);
  free(written);

  /* Prefixes: what a process killed while writing this index leaves. */
  size_t cuts[3] = {size / 2, size ? size - 1 : 0, size ? (size_t)data[0] * size / 256 : 0};
  for (int i = 0; i < 3; i++) {
    struct capture_index prefix;
    MUST(capture_index_parse(&prefix, text, cuts[i], "prefix", &error) == FORMAT_OK);
    MUST(prefix.segment_count <= index.segment_count);
    MUST(prefix.boundary_count <= index.boundary_count);
    MUST(!prefix.has_capture || index.has_capture);
    MUST(!prefix.has_stop || index.has_stop);
    capture_index_free(&prefix);
  }
  capture_index_free(&index);
  return 0;
}
