/* tests/diff_fixture.h: writes small synthetic captures (segments and index) for the diff suites. */
#ifndef LJLEAK_TESTS_DIFF_FIXTURE_H
#define LJLEAK_TESTS_DIFF_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "format/memprof.h"

/* Every event is charged to one Lua prototype of chunk "@t.lua", so the site of
 * an event at line L is named "@t.lua:L". */
#define FIXTURE_PROTO 0x1000

struct fixture_segment {
  FILE *file;
  struct memprof_writer writer;
  uint8_t buffer[4096];
};

static inline int fixture_sink(void *context, const uint8_t *data, size_t size)
{
  return fwrite(data, 1, size, (FILE *)context) == size ? 0 : -1;
}

/* A segment whose prototype is of chunk (instead of "@t.lua"). */
static inline void fixture_begin_chunk(struct fixture_segment *s, const char *path, const char *chunk)
{
  s->file = fopen(path, "wb");
  if (!s->file)
    abort();
  memprof_writer_init(&s->writer, s->buffer, sizeof s->buffer, fixture_sink, s->file);
  struct memprof_symbol symbol = {MEMPROF_SYMBOL_LUA, FIXTURE_PROTO, 1, 0, chunk, strlen(chunk)};
  memprof_writer_symtab_begin(&s->writer);
  memprof_writer_symbol(&s->writer, &symbol);
  memprof_writer_symtab_end(&s->writer);
  memprof_writer_events_begin(&s->writer);
}

static inline void fixture_begin(struct fixture_segment *s, const char *path)
{
  fixture_begin_chunk(s, path, "@t.lua");
}

static inline void fixture_alloc(struct fixture_segment *s, uint64_t line, uint64_t address, uint64_t size)
{
  struct memprof_event e = {MEMPROF_EVENT_ALLOC, MEMPROF_SOURCE_LUA, FIXTURE_PROTO, line, 0, 0,
                            address, size};
  memprof_writer_event(&s->writer, &e);
}

static inline void fixture_free(struct fixture_segment *s, uint64_t line, uint64_t address, uint64_t size)
{
  struct memprof_event e = {MEMPROF_EVENT_FREE, MEMPROF_SOURCE_LUA, FIXTURE_PROTO, line, address,
                            size, 0, 0};
  memprof_writer_event(&s->writer, &e);
}

static inline void fixture_realloc(struct fixture_segment *s, uint64_t line, uint64_t old_address,
                            uint64_t old_size, uint64_t new_address, uint64_t new_size)
{
  struct memprof_event e = {MEMPROF_EVENT_REALLOC, MEMPROF_SOURCE_LUA, FIXTURE_PROTO, line,
                            old_address, old_size, new_address, new_size};
  memprof_writer_event(&s->writer, &e);
}

/* Ends the stream; with cut, leaves the file without its epilogue and half an event. */
static inline void fixture_end(struct fixture_segment *s, int cut)
{
  if (cut) {
    memprof_writer_flush(&s->writer);
    static const uint8_t half_event[] = {0x09, 0x80};  /* alloc header, Lua source, a cut ULEB128 */
    fwrite(half_event, 1, sizeof half_event, s->file);
  } else {
    memprof_writer_epilogue(&s->writer);
    memprof_writer_flush(&s->writer);
  }
  fclose(s->file);
}

/* A fresh directory in the temporary directory. */
static inline void fixture_directory(char *path, size_t size, const char *name)
{
  const char *tmp = getenv("TMPDIR");
  snprintf(path, size, "%s/ljleak-%s-XXXXXX", tmp && *tmp ? tmp : P_tmpdir, name);
  if (!mkdtemp(path))
    abort();
}

/* path/name into out. */
static inline const char *fixture_path(char *out, size_t size, const char *path, const char *name)
{
  snprintf(out, size, "%s/%s", path, name);
  return out;
}

static inline void fixture_remove(const char *path)
{
  char command[600];
  snprintf(command, sizeof command, "rm -rf '%s'", path);
  if (system(command) != 0)
    abort();
}

#endif
