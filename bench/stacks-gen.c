/* bench/stacks-gen.c: gives every segment of a capture a stack sidecar (each allocation one of a few stacks by its location), so the diff benchmark can measure what stacks cost. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/capture_layout.h"
#include "format/memprof.h"
#include "format/stacks.h"

#define STACKS_PER_LOCATION 4  /* callers per allocating line: a stack is (location, event mod this) */
#define LOCATIONS 64

static int file_sink(void *context, const uint8_t *data, size_t size)
{
  return fwrite(data, 1, size, (FILE *)context) == size ? 0 : -1;
}

/* Writes SEGMENT's sidecar; returns 0 or -1 with a message printed. */
static int make_sidecar(const char *segment)
{
  char path[4096];
  if (!capture_layout_sidecar_name(segment, path, sizeof path)) {
    fprintf(stderr, "stacks-gen: %s: not a .memprof segment\n", segment);
    return -1;
  }
  struct format_error err;
  struct memprof_reader *reader = memprof_reader_open(segment, &err);
  FILE *out = fopen(path, "wb");
  if (!reader || !out) {
    fprintf(stderr, "stacks-gen: %s: %s\n", reader ? path : segment, reader ? "cannot write" : err.message);
    if (reader)
      memprof_reader_close(reader);
    if (out)
      fclose(out);
    return -1;
  }
  static uint8_t buffer[1 << 16];
  struct stacks_writer w;
  stacks_writer_init(&w, buffer, sizeof buffer, file_sink, out);
  stacks_writer_header(&w);
  uint32_t chunk = stacks_writer_string(&w, "@bench.lua", 10);
  uint32_t ids[LOCATIONS][STACKS_PER_LOCATION] = {{0}};
  struct memprof_record record;
  uint64_t event = 0;
  enum format_status status;
  while ((status = memprof_reader_next(reader, &record)) == FORMAT_OK) {
    if (record.type != MEMPROF_RECORD_EVENT)
      continue;
    const struct memprof_event *e = &record.event;
    if (e->kind != MEMPROF_EVENT_FREE && e->new_size) {
      size_t l = (size_t)((e->location ^ e->line) % LOCATIONS), c = (size_t)(event % STACKS_PER_LOCATION);
      if (!ids[l][c]) {  /* helper <- caller c <- main, defined before its first event */
        struct stacks_wire_frame frames[3] = {
            {STACKS_FRAME_LUA, chunk, 10 + l * 10, 11 + l * 10},
            {STACKS_FRAME_LUA, chunk, 1000 + c * 10, 1001 + c * 10},
            {STACKS_FRAME_LUA, chunk, 0, 2000}};
        ids[l][c] = stacks_writer_stack(&w, frames, 3, 0);
      }
      stacks_writer_event(&w, event, ids[l][c]);
    }
    event++;
  }
  stacks_writer_end(&w);
  int failed = stacks_writer_flush(&w) < 0 || w.out.failed || status != FORMAT_END;
  memprof_reader_close(reader);
  if (fclose(out) != 0 || failed) {
    fprintf(stderr, "stacks-gen: %s: could not be written in full\n", path);
    return -1;
  }
  return 0;
}

int main(int argc, char **argv)
{
  if (argc < 2) {
    fputs("usage: stacks-gen SEGMENT.memprof...\n", stderr);
    return 2;
  }
  for (int i = 1; i < argc; i++)
    if (make_sidecar(argv[i]) < 0)
      return 1;
  return 0;
}
