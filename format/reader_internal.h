/* format/reader_internal.h: the memprof reader's state, shared by its parts (reader.c, reader_input.c). */
#ifndef LJLEAK_FORMAT_READER_INTERNAL_H
#define LJLEAK_FORMAT_READER_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <zlib.h>

#include "format/memprof.h"

#ifndef MEMPROF_READER_WINDOW
#define MEMPROF_READER_WINDOW (512u * 1024u)  /* decoded bytes held at once; the fuzz build makes it small */
#endif
#define READER_WINDOW MEMPROF_READER_WINDOW
#define READER_RAW (64u * 1024u)           /* compressed bytes held at once */
#define READER_STRING_MAX (64u << 20)      /* longest chunk or symbol name accepted */
#define READER_FAST_BYTES MEMPROF_DECODE_SLACK
#define HEADER_BYTES 7                     /* magic, version, three reserved bytes */

enum reader_phase {
  PHASE_SYMTAB_HEADER,
  PHASE_SYMTAB,
  PHASE_EVENTS_HEADER,
  PHASE_EVENTS,
  PHASE_DONE
};

/* Outcome of decoding one record from the window. */
enum decode_result {
  DECODE_OK,
  DECODE_SHORT,   /* the window ends inside the record */
  DECODE_BAD      /* the error is already set */
};

struct memprof_reader {
  char *name;

  /* Raw input: a file descriptor or memory. */
  int fd;
  int owns_fd;
  const uint8_t *memory;
  size_t memory_size;
  size_t memory_used;
  int raw_eof;

  /* gzip, recognised by its first two bytes. */
  int gzip;
  int gzip_live;          /* inflate may still produce bytes */
  int gzip_cut;           /* the compressed data ended before its trailer */
  z_stream zs;
  uint8_t *raw;

  /* Decoded bytes: window[pos, end) not yet parsed; window[0] is stream byte base. */
  uint8_t *storage;       /* NULL when reading plain memory in place */
  size_t capacity;
  const uint8_t *window;
  size_t pos, end;
  uint64_t base;
  uint64_t decoded;       /* decoded bytes produced so far */
  int source_eof;         /* no more decoded bytes will come */
  int source_failed;      /* source_error holds why */
  struct format_error source_error;

  /* Names longer than the window are gathered here. */
  uint8_t *strings;
  size_t strings_capacity;

  enum reader_phase phase;
  int pext;               /* decode with the pext instruction */
  int symtab_version;
  int events_version;
  struct format_error error;
};

/* Records a final status; returns it so callers can `return reader_fail(...)`. */
enum format_status reader_fail(struct memprof_reader *r, enum format_status status,
                               uint64_t offset, const char *format, ...)
    __attribute__((format(printf, 4, 5)));

/* The input ends inside the record starting at `offset` (or exactly at it). */
enum format_status reader_cut(struct memprof_reader *r, uint64_t offset, const char *what);

/* The input ends inside a string whose length says it goes on. */
enum format_status reader_fail_cut_string(struct memprof_reader *r, uint64_t offset,
                                          uint64_t length, uint64_t left);

/* Reads the first bytes of the input: gzip by its magic, or plain; then
 * fills the window. 0, or -1 with err. */
int reader_input_start(struct memprof_reader *r, struct format_error *err);

/* Keeps the unparsed bytes and fills the rest of the window (to the end of input). */
void reader_window_refill(struct memprof_reader *r);

/* After the epilogue: a gzip's remaining data and trailer are still checked. */
enum format_status reader_finish(struct memprof_reader *r);

#endif
