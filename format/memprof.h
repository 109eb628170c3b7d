/* format/memprof.h: the memprof stream codec (ULEB128, reader, writer, symbols). */
#ifndef LJLEAK_FORMAT_MEMPROF_H
#define LJLEAK_FORMAT_MEMPROF_H

#include <stddef.h>
#include <stdint.h>

#include "format/error.h"
#include "format/input_file.h"

/* ---- Wire constants ---------------------------------------------------- */

#define MEMPROF_SYMTAB_MAGIC "ljs"
#define MEMPROF_EVENTS_MAGIC "ljm"
#define MEMPROF_VERSION 3          /* what the writer produces */
#define MEMPROF_EPILOGUE 0x80      /* final header byte of both parts */
#define MEMPROF_ULEB128_MAX 10     /* bytes of a 64-bit ULEB128 */

/* Event kinds: the EE bits of an event header. */
enum memprof_event_kind {
  MEMPROF_EVENT_SYMTAB = 0,
  MEMPROF_EVENT_ALLOC = 1,
  MEMPROF_EVENT_FREE = 2,
  MEMPROF_EVENT_REALLOC = 3
};

/* Allocation sources: the SSS bits of an event header. */
enum memprof_source {
  MEMPROF_SOURCE_INTERNAL = 1,
  MEMPROF_SOURCE_LUA = 2,
  MEMPROF_SOURCE_C = 3,
  MEMPROF_SOURCE_TRACE = 4
};

/* Symbol kinds: the TT bits of a symtab entry header. */
enum memprof_symbol_kind {
  MEMPROF_SYMBOL_LUA = 0,
  MEMPROF_SYMBOL_C = 1,
  MEMPROF_SYMBOL_TRACE = 2
};

/* ---- Records ------------------------------------------------------------ */

/* One symbol entry, from the symtab prologue or from an in-stream symtab event. */
struct memprof_symbol {
  enum memprof_symbol_kind kind;
  uint64_t address;   /* LUA: prototype; C: symbol; TRACE: prototype where it starts */
  uint64_t line;      /* LUA: first line of the function; TRACE: line where it starts */
  uint64_t trace;     /* TRACE: trace number */
  const char *name;   /* LUA: chunk name; C: symbol name; not NUL-terminated */
  size_t name_length; /* name may contain newlines and NULs */
};

/* One allocation event. Fields a kind does not carry are zero. */
struct memprof_event {
  enum memprof_event_kind kind;  /* ALLOC, FREE or REALLOC */
  enum memprof_source source;
  uint64_t location;      /* LUA: prototype address; C: function address; TRACE: trace number */
  uint64_t line;          /* LUA: current line */
  uint64_t old_address;   /* FREE, REALLOC */
  uint64_t old_size;
  uint64_t new_address;   /* ALLOC, REALLOC */
  uint64_t new_size;
};

enum memprof_record_type {
  MEMPROF_RECORD_SYMBOL,  /* a symbol entry; in_stream tells where it came from */
  MEMPROF_RECORD_EVENT
};

struct memprof_record {
  enum memprof_record_type type;
  int in_stream;          /* SYMBOL: 1 if from a symtab event, 0 if from the prologue */
  uint64_t offset;        /* byte offset of the record's first byte in the (decompressed) stream */
  struct memprof_symbol symbol;
  struct memprof_event event;
};

/* ---- Errors ------------------------------------------------------------- *
 * format/error.h's: FORMAT_OK (a record was returned), FORMAT_END (the
 * epilogue was read: the stream is complete), FORMAT_CUT (the input ended
 * before the epilogue: every complete record was returned), FORMAT_BAD_INPUT
 * (not a memprof stream at error.offset), FORMAT_UNSUPPORTED (the version
 * bytes are not 3/3 or 1/1), FORMAT_IO (the file could not be opened or read,
 * or gzip is damaged), FORMAT_NO_MEMORY (the window or a long name). The
 * message is "FILE: byte OFFSET: what is wrong". */

/* ---- ULEB128 ------------------------------------------------------------ */

/* Writes value to out (at least MEMPROF_ULEB128_MAX bytes); returns bytes written. */
size_t memprof_uleb128_encode(uint8_t *out, uint64_t value);

/* Reads a ULEB128 from [in, in + available). Returns bytes consumed; 0 if the
 * input ends first; -1 if it is longer than 10 bytes or overflows 64 bits. */
int memprof_uleb128_decode(const uint8_t *in, size_t available, uint64_t *value);

/* ---- Reader ------------------------------------------------------------- */

/* A streaming reader: one record per call, constant memory however long the
 * stream. Input is a plain file, a gzip file (recognised by its first bytes),
 * or stdin ("-"). */
struct memprof_reader;

/* Opens path ("-" for stdin), a name the user gave. Returns NULL and fills err on failure. */
struct memprof_reader *memprof_reader_open(const char *path, struct format_error *err);

/* memprof_reader_open of a name that how says whose it is: a segment found in a capture
 * directory is INPUT_FILE_FOUND, so only a regular file, not a link (format/input_file.h). */
struct memprof_reader *memprof_reader_open_as(const char *path, enum input_file_how how,
                                              struct format_error *err);

/* Reads from memory (not copied; must outlive the reader). name is used in messages. */
struct memprof_reader *memprof_reader_open_memory(const void *data, size_t size,
                                                  const char *name,
                                                  struct format_error *err);

/* Reads the next record. Returns FORMAT_OK with *record filled, or a final
 * status: FORMAT_END, or an error whose details memprof_reader_error gives.
 * Strings in the record stay valid until the next call. After a final status
 * every further call returns the same status. */
enum format_status memprof_reader_next(struct memprof_reader *reader,
                                       struct memprof_record *record);

/* Whether the CPU has pext and pdep (BMI2) and runs them fast: AMD before
 * Zen 3 runs them in microcode. LJLEAK_NO_PEXT=1 in the environment says
 * no, for the portable code. */
int memprof_cpu_fast_pext(void);

/* Events are decoded with the pext instruction where the CPU has a fast one
 * (checked when the reader opens). use = 0 turns that off, so tests and
 * benchmarks can run the portable decoder; use = 1 turns it back on where
 * the CPU allows. Either way the results are the same. */
void memprof_reader_use_pext(struct memprof_reader *reader, int use);

/* Inline decoding, for hot loops (format/decode.h). When the reader is among
 * events, sets *at to the next record and returns how many bytes from there
 * may start an event for memprof_decode_event (the rest of its bytes are
 * there); 0 otherwise. The bytes stay valid until the next call on reader. */
size_t memprof_reader_events_span(const struct memprof_reader *reader, const uint8_t **at);

/* Consumes bytes of whole events decoded from the span. */
void memprof_reader_consume(struct memprof_reader *reader, size_t bytes);

/* The pext argument for memprof_decode_event: what this reader decodes with. */
int memprof_reader_pext(const struct memprof_reader *reader);

const struct format_error *memprof_reader_error(const struct memprof_reader *reader);

/* Version bytes of the symtab and event parts (0 until they are read). */
int memprof_reader_symtab_version(const struct memprof_reader *reader);
int memprof_reader_events_version(const struct memprof_reader *reader);

/* Bytes of the (decompressed) stream consumed so far. */
uint64_t memprof_reader_offset(const struct memprof_reader *reader);

void memprof_reader_close(struct memprof_reader *reader);

/* ---- Writer ------------------------------------------------------------- */

/* Receives encoded bytes. Returns 0 on success, -1 on failure (the writer
 * then stops writing and reports FORMAT_IO from every later call). */
typedef int (*memprof_sink_fn)(void *context, const uint8_t *data, size_t size);

/* An encoder into a caller-owned buffer that it hands to the sink when full.
 * It never allocates, so the collector can use it inside an allocator hook. */
struct memprof_writer {
  uint8_t *buffer;
  size_t capacity;        /* at least 64 bytes */
  size_t used;
  memprof_sink_fn sink;
  void *sink_context;
  int failed;
  uint64_t bytes_written; /* bytes handed to the sink plus bytes buffered */
};

void memprof_writer_init(struct memprof_writer *writer, uint8_t *buffer, size_t capacity,
                         memprof_sink_fn sink, void *sink_context);

/* The parts of a stream, in this order: symtab_begin, symbol*, symtab_end,
 * events_begin, (event | symbol_event)*, epilogue. All return 0 or -1. */
int memprof_writer_symtab_begin(struct memprof_writer *writer);
int memprof_writer_symbol(struct memprof_writer *writer, const struct memprof_symbol *symbol);
int memprof_writer_symtab_end(struct memprof_writer *writer);
int memprof_writer_events_begin(struct memprof_writer *writer);
int memprof_writer_event(struct memprof_writer *writer, const struct memprof_event *event);
int memprof_writer_symbol_event(struct memprof_writer *writer, const struct memprof_symbol *symbol);
int memprof_writer_epilogue(struct memprof_writer *writer);

/* Hands buffered bytes to the sink. */
int memprof_writer_flush(struct memprof_writer *writer);
/* Makes room for size more bytes (at most the capacity): the buffer is handed to the sink when
 * they do not fit. 0, or -1 once the writer failed. For the encoders that buffer through this
 * writer (the stack sidecar's, the values sidecar's). */
int memprof_writer_reserve(struct memprof_writer *writer, size_t size);

/* ---- Symbols and names ---------------------------------------------------- */

/* The symbols seen so far in a stream (or in several, read in order), and the
 * names of locations as Tarantool's parser prints them. Addresses can be
 * reused: a later entry for the same address or trace number replaces the
 * earlier one, as in Tarantool's parser. */
struct memprof_symtab;

enum memprof_naming {
  MEMPROF_NAMING_TARANTOOL,  /* "TRACE [3] started at @a.lua:5", "malloc:0x7f..." */
  MEMPROF_NAMING_STABLE      /* the same without run-specific parts: "TRACE started at @a.lua:5", "malloc" */
};

struct memprof_symtab *memprof_symtab_new(void);
void memprof_symtab_free(struct memprof_symtab *symtab);

/* Adds a symbol; returns 0, or -1 when out of memory. */
int memprof_symtab_add(struct memprof_symtab *symtab, const struct memprof_symbol *symbol);

/* Writes the NUL-terminated name of an event's location into out (truncated to
 * size) and returns its full length. Chunk names with a newline are shown as
 * function_alias_N, numbered in order of first appearance. */
size_t memprof_symtab_name(const struct memprof_symtab *symtab, const struct memprof_event *event,
                           enum memprof_naming naming, char *out, size_t size);

/* Whether adding symbol (just added to symtab) can change the name of a
 * location: source and location as an event carries them (a trace's
 * number). What caches names per location forgets only those. */
int memprof_symtab_renames(const struct memprof_symtab *symtab, const struct memprof_symbol *symbol,
                           enum memprof_source source, uint64_t location);

/* Aliases in order of appearance: index 0 is function_alias_1. */
size_t memprof_symtab_alias_count(const struct memprof_symtab *symtab);
const char *memprof_symtab_alias_source(const struct memprof_symtab *symtab, size_t index,
                                        size_t *length);

#endif
