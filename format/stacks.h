/* format/stacks.h: the stack sidecar of a segment: the Lua call stacks of its events, interned (docs/stacks-format.md).
 *
 * API for diff/: stable. The reader part (stacks_reader_*; the sidecar's name is capture_layout_sidecar_name)
 * is what diff/ codes against; the writer part is the collector's.
 *
 * A segment seg-0001.memprof[.gz] has the sidecar seg-0001.stacks[.gz]: a
 * sequence of records, STRING (interned names), STACK (a stack's frames,
 * defined once per sidecar before any event refers to it), EVENT (event n of
 * the segment has stack s) and END. Events are numbered from 0 in the order
 * of the segment's memprof stream, counting every ALLOC, REALLOC and FREE
 * event (not symbol entries): the numbering of the index's `events` and a
 * boundary's `events`. Only ALLOC and REALLOC events get a stack; an event
 * with no EVENT record has none (stack id 0). Ids are per sidecar: the same
 * stack in two segments may have two ids, but has the same hash. */
#ifndef LJLEAK_FORMAT_STACKS_H
#define LJLEAK_FORMAT_STACKS_H

#include <stddef.h>
#include <stdint.h>

#include "format/memprof.h"

/* ---- Wire constants ---------------------------------------------------- */

#define STACKS_MAGIC "ljst"
#define STACKS_VERSION 1
#define STACKS_HEADER_BYTES 8      /* magic, version, three reserved zero bytes */
#define STACKS_MAX_FRAMES 1024     /* most frames a stack may have (the collector's depth is less) */

enum stacks_record_tag {
  STACKS_TAG_END = 0,
  STACKS_TAG_STRING = 1,
  STACKS_TAG_STACK = 2,
  STACKS_TAG_EVENT = 3
};

enum stacks_frame_kind {
  STACKS_FRAME_LUA = 0,        /* a Lua function: chunk name, defining line, current line */
  STACKS_FRAME_C = 1,          /* a C function, named as memprof names C sites (dladdr) */
  STACKS_FRAME_INTERNAL = 2,   /* a frame the collector could not read further ("?") */
  STACKS_FRAME_COROUTINE = 3   /* the bottom of a coroutine's stack: its resumer is not walked */
};

#define STACKS_FLAG_TRUNCATED 1u   /* a STACK's flags: frames beyond the depth were left out */

/* ---- Decoded records ----------------------------------------------------- */

/* One frame of a decoded stack. */
struct stacks_frame {
  enum stacks_frame_kind kind;
  const char *name;          /* NUL-terminated (may hold NULs before name_length: chunk names can) */
  size_t name_length;        /* LUA: chunk name ("@app.lua"); C: symbol; COROUTINE: "coroutine" */
  uint64_t defined;          /* LUA: the function's first line (0 for a main chunk); else 0 */
  uint64_t line;             /* LUA: the current line in it; else 0 */
};

/* One decoded stack. frames[0] is the function that allocated (the leaf,
 * the site memprof names), frames[1] its caller, and so on outward. */
struct stacks_stack {
  uint32_t id;               /* 1, 2, ... in the order of definition */
  uint32_t flags;            /* STACKS_FLAG_TRUNCATED */
  uint32_t frame_count;
  const struct stacks_frame *frames;
  uint64_t hash;             /* XXH3 of the frames' kinds, names and lines: the same stack has the
                              * same hash in every segment, run and build */
};

enum stacks_record_type {
  STACKS_RECORD_STRING,
  STACKS_RECORD_STACK,
  STACKS_RECORD_EVENT
};

/* What stacks_reader_next returns. */
struct stacks_record {
  enum stacks_record_type type;
  uint64_t offset;           /* byte offset of the record's tag in the (decompressed) sidecar */
  uint32_t id;               /* STRING, STACK: its id */
  const char *string;        /* STRING: the bytes, NUL-terminated; valid until the reader closes */
  size_t string_length;
  const struct stacks_stack *stack; /* STACK: valid until the reader closes */
  uint64_t event;            /* EVENT: the event's number in the segment */
  uint32_t stack_id;         /* EVENT: its stack */
};

/* ---- Reader (API for diff/: stable) -------------------------------------- */

/* Reads a sidecar record by record, in constant memory but for the strings
 * and stacks it defines (which stay until it closes). Plain or gzip (by the
 * first bytes), a file or memory. Errors use memprof's status and error:
 * FORMAT_END after the END record; FORMAT_CUT when the input ends
 * before it (every complete record was returned: a killed capture's
 * sidecar); FORMAT_BAD_INPUT, FORMAT_UNSUPPORTED, FORMAT_IO and
 * FORMAT_NO_MEMORY with a message "FILE: byte OFFSET: what is wrong". */
struct stacks_reader;

/* Opens path, a sidecar found beside its segment: only a regular file, not a link
 * (format/input_file.h). Returns NULL and fills err if it cannot be opened or its
 * header is not a sidecar's. */
struct stacks_reader *stacks_reader_open(const char *path, struct format_error *err);

/* Reads size bytes of data (not copied; they must outlive the reader);
 * name is what messages call the input. NULL with err as above. */
struct stacks_reader *stacks_reader_open_memory(const void *data, size_t size, const char *name,
                                                struct format_error *err);

/* The next record: FORMAT_OK with *record filled, or a final status (the
 * same on every later call; stacks_reader_error says more). */
enum format_status stacks_reader_next(struct stacks_reader *reader, struct stacks_record *record);

/* Lockstep with the memprof reader: the stack of the segment's event number
 * `event` (counting ALLOC, REALLOC and FREE events from 0). Numbers must
 * not decrease from one call to the next. Reads records up to that event's
 * (defining the stacks they bring). Returns FORMAT_OK with *stack_id the
 * event's stack, or 0 when the sidecar says it has none; or the final
 * status reached before the event's record could be seen (FORMAT_END: the
 * sidecar is complete and the event has no stack; FORMAT_CUT: cut
 * before it, the stack is unknown; an error), with *stack_id 0. */
enum format_status stacks_reader_event(struct stacks_reader *reader, uint64_t event,
                                       uint32_t *stack_id);

/* The stack with this id, or NULL if none with it was read yet. The
 * pointer stays valid until the reader closes. */
const struct stacks_stack *stacks_reader_stack(const struct stacks_reader *reader, uint32_t id);

/* How many stacks were read so far (their ids are 1 .. that count). */
uint32_t stacks_reader_stack_count(const struct stacks_reader *reader);

/* The final status's details (status FORMAT_OK while none was reached). */
const struct format_error *stacks_reader_error(const struct stacks_reader *reader);

/* Bytes of the (decompressed) sidecar consumed so far. */
uint64_t stacks_reader_offset(const struct stacks_reader *reader);

void stacks_reader_close(struct stacks_reader *reader);

/* The hash of a stack's frames (what stacks_stack.hash holds). */
uint64_t stacks_hash(const struct stacks_frame *frames, uint32_t frame_count);

/* ---- Writer (the collector's) -------------------------------------------- */

/* One frame as the writer takes it: the name is a STRING id written before. */
struct stacks_wire_frame {
  enum stacks_frame_kind kind;
  uint32_t name;             /* a string id, 0 for none */
  uint64_t defined;
  uint64_t line;
};

/* An encoder into a caller-owned buffer that it hands to the sink when full
 * (memprof_sink_fn: 0, or -1 to fail). It never allocates, so the
 * collector's allocator hook can use it. Ids are numbered by the writer. */
struct stacks_writer {
  struct memprof_writer out; /* the buffering (capacity at least STACKS_WRITER_MIN_CAPACITY), as
                                memprof's writer does it: failed, bytes_written */
  uint32_t strings;          /* strings written: the last id */
  uint32_t stacks;           /* stacks written: the last id */
  uint64_t next_event;       /* the event number after the last EVENT record's */
};

#define STACKS_WRITER_MIN_CAPACITY 1024

void stacks_writer_init(struct stacks_writer *writer, uint8_t *buffer, size_t capacity,
                        memprof_sink_fn sink, void *sink_context);

/* The header; first. 0 or -1. */
int stacks_writer_header(struct stacks_writer *writer);

/* A STRING record; returns its id, or 0 on failure. */
uint32_t stacks_writer_string(struct stacks_writer *writer, const char *bytes, size_t length);

/* A STACK record of frame_count frames (at most STACKS_MAX_FRAMES; frames[0]
 * the leaf); returns its id, or 0 on failure. */
uint32_t stacks_writer_stack(struct stacks_writer *writer, const struct stacks_wire_frame *frames,
                             uint32_t frame_count, uint32_t flags);

/* An EVENT record: event number `event` (greater than the last one written)
 * has stack stack_id. 0 or -1. */
int stacks_writer_event(struct stacks_writer *writer, uint64_t event, uint32_t stack_id);

/* The END record. 0 or -1. */
int stacks_writer_end(struct stacks_writer *writer);

/* Hands buffered bytes to the sink. 0 or -1. */
int stacks_writer_flush(struct stacks_writer *writer);

#endif
