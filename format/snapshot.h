/* format/snapshot.h: heap snapshots: the object graph of a LuaJIT heap at a boundary (docs/snapshot-format.md).
 *
 * API for diff/: stable. The reader (snapshot_read*, snapshot_find*, snapshot_label) is what the
 * holder analysis codes against; the writer is the collector's.
 *
 * A file is a header and a sequence of chunks. Each chunk is a tag byte, its body's length and
 * its record count (4-byte little-endian each), then the body: so a reader can skip a chunk, or
 * hand chunks to threads, without decoding it. CAPTURE (once, first) says whose boundary it is;
 * STRINGS interns the labels' texts (ids 1, 2, ... across the file, each defined before use);
 * OBJECTS holds object records, each with its owned blocks and its references; ROOTS the GC's
 * roots; END the totals and a table of every chunk's offset, found from the file's last 12 bytes.
 * A file cut anywhere reads up to its last complete chunk. */
#ifndef LJLEAK_FORMAT_SNAPSHOT_H
#define LJLEAK_FORMAT_SNAPSHOT_H

#include <stddef.h>
#include <stdint.h>

#include "format/error.h"
#include "format/input_file.h"

/* ---- Wire constants ------------------------------------------------------- */

#define SNAPSHOT_MAGIC "ljhs"
#define SNAPSHOT_TRAILER_MAGIC "ljhe"
#define SNAPSHOT_VERSION 1
#define SNAPSHOT_HEADER_BYTES 8         /* magic, version, three reserved zero bytes */
#define SNAPSHOT_CHUNK_HEAD_BYTES 9     /* tag, body length, record count */
#define SNAPSHOT_TRAILER_BYTES 12       /* END's offset (8 bytes LE), SNAPSHOT_TRAILER_MAGIC */
#define SNAPSHOT_LABEL_MAX 200          /* longest label text the writer keeps (cut with "...") */

enum snapshot_chunk_tag {
  SNAPSHOT_CHUNK_CAPTURE = 1,
  SNAPSHOT_CHUNK_STRINGS = 2,
  SNAPSHOT_CHUNK_OBJECTS = 3,
  SNAPSHOT_CHUNK_ROOTS = 4,
  SNAPSHOT_CHUNK_END = 5
};

/* What an object is. A value fits the low 4 bits of a record's first byte. */
enum snapshot_type {
  SNAPSHOT_CONTINUED = 0,       /* wire only: more references of the previous object */
  SNAPSHOT_STRING = 1,
  SNAPSHOT_TABLE = 2,
  SNAPSHOT_LUA_FUNCTION = 3,
  SNAPSHOT_C_FUNCTION = 4,
  SNAPSHOT_PROTOTYPE = 5,
  SNAPSHOT_UPVALUE = 6,
  SNAPSHOT_THREAD = 7,
  SNAPSHOT_USERDATA = 8,
  SNAPSHOT_CDATA = 9,
  SNAPSHOT_TRACE = 10,
  SNAPSHOT_VM = 11,             /* a block of the VM's own (its global state, the string table) */
  SNAPSHOT_TYPE_COUNT = 12
};

/* An object record's flags (the high 4 bits of its first byte). */
#define SNAPSHOT_FLAG_WEAK_KEYS 0x1u    /* a table whose keys are weak (__mode "k") */
#define SNAPSHOT_FLAG_WEAK_VALUES 0x2u  /* a table whose values are weak (__mode "v") */
#define SNAPSHOT_FLAG_BLOCKS 0x4u       /* the record lists blocks the object owns */
#define SNAPSHOT_FLAG_NAME 0x8u         /* the record names the object (a string id) */

/* How a reference reads (docs/snapshot-format.md, "Labels"). */
enum snapshot_ref_kind {
  SNAPSHOT_REF_FIELD = 0,       /* a value under a string key: the label is the key's text */
  SNAPSHOT_REF_INDEX = 1,       /* an array slot or an integer key: "[n]" (index holds n) */
  SNAPSHOT_REF_KEYED = 2,       /* a value under another key: the label says the key ("[table]") */
  SNAPSHOT_REF_KEY = 3,         /* a hash part's key object itself: "key [table]" */
  SNAPSHOT_REF_OTHER = 4        /* the label is the text: "metatable", "upvalue NAME", ... */
};
#define SNAPSHOT_REF_KIND_COUNT 5

/* ---- Decoded snapshot ------------------------------------------------------ */

/* Whose boundary a snapshot is: the capture (pid and start, as its index's capture line says
 * them) and the boundary. */
struct snapshot_capture {
  uint64_t pid;
  uint64_t start_ms;            /* the capture's start, Unix time in milliseconds */
  uint64_t boundary;            /* the boundary's seq in the index */
  uint64_t segment;             /* the segment the boundary lies in ... */
  uint64_t events;              /* ... and its events before it (as the index's boundary line) */
  uint64_t time_ms;             /* when the walk ran, Unix milliseconds */
  uint64_t heap_bytes;          /* the Lua heap (collectgarbage("count") in bytes) at the walk */
  uint64_t flags;               /* SNAPSHOT_CAPTURE_JIT: compiled traces were walked */
};
#define SNAPSHOT_CAPTURE_JIT 0x1u

/* A block an object owns beside its own: a table's array and hash parts, a thread's stack. */
struct snapshot_block {
  uint64_t address;
  uint64_t size;
};

/* Compact (8 bytes): a snapshot of a million objects holds several million references. The
 * target is resolved to its object when the snapshot is read; a target that is no object of
 * the snapshot (object is SNAPSHOT_NO_OBJECT), and an INDEX n outside SNAPSHOT_INDEX_NARROW
 * (text is SNAPSHOT_INDEX_WIDE), are kept aside (wide). Read them with
 * snapshot_reference_target and snapshot_reference_index. */
struct snapshot_reference {
  uint32_t object;              /* the object referred to (in snapshot.objects), or
                                 * SNAPSHOT_NO_OBJECT: its address is no object's */
  uint32_t text : 28;           /* FIELD, KEYED, KEY, OTHER: the label's string id (at most
                                 * SNAPSHOT_MAX_STRINGS); INDEX: n as a 28-bit two's complement,
                                 * or SNAPSHOT_INDEX_WIDE: n is kept aside */
  uint32_t kind : 3;            /* enum snapshot_ref_kind */
  uint32_t weak : 1;            /* 1: a weak table's key or value: it does not keep target alive */
};
#define SNAPSHOT_NO_OBJECT UINT32_MAX
#define SNAPSHOT_MAX_STRINGS ((UINT32_C(1) << 28) - 1)  /* string ids a reader takes */
#define SNAPSHOT_INDEX_NARROW ((INT64_C(1) << 27) - 1)  /* INDEX n in -this .. this are inline */
#define SNAPSHOT_INDEX_WIDE (UINT32_C(1) << 27)         /* text of an INDEX whose n is aside */

/* What a wide reference keeps aside (its target, when no object's, and INDEX's n outside
 * SNAPSHOT_INDEX_NARROW): sorted by reference. */
struct snapshot_wide {
  uint32_t reference;           /* in snapshot.references */
  uint64_t target;
  int64_t index;
};

/* Indices are 32-bit: the reader refuses a snapshot of more objects, blocks or references.
 * 40 bytes: a count that does not fit 32 bits is kept aside (read it with
 * snapshot_object_count). */
struct snapshot_object {
  uint64_t address;             /* its own block: LuaJIT never moves an object */
  uint64_t size;                /* bytes of that block */
  uint32_t count;               /* tables: entries (non-nil values); strings: length; functions:
                                 * upvalues; threads: stack slots in use; userdata: payload bytes;
                                 * SNAPSHOT_COUNT_WIDE: 2^32 - 1 or more, kept aside */
  uint32_t name;                /* a string id (prototypes: "function@FILE:LINE"; traces:
                                 * "trace N"); 0 for none */
  uint32_t first_block;         /* in snapshot.blocks */
  uint32_t first_reference;     /* in snapshot.references */
  uint32_t reference_count;
  uint8_t type;                 /* enum snapshot_type */
  uint8_t flags;                /* SNAPSHOT_FLAG_WEAK_* */
  uint8_t block_count;          /* at most SNAPSHOT_MAX_BLOCKS */
};
#define SNAPSHOT_MAX_RECORDS (UINT32_MAX - 1)  /* objects, blocks or references a reader takes */
#define SNAPSHOT_COUNT_WIDE UINT32_MAX

/* An object's count that does not fit 32 bits: sorted by address. */
struct snapshot_wide_count {
  uint64_t address;
  uint64_t count;
};

struct snapshot_root {
  uint64_t target;
  uint32_t text;                /* the root's label: "registry", "main thread", "globals", ... */
  int weak;                     /* 1: listed, but keeps nothing alive (compiled traces) */
};

/* A snapshot read whole. objects are sorted by address; an object's blocks and references
 * are ranges of blocks and references. */
struct snapshot {
  struct snapshot_capture capture;
  struct snapshot_object *objects;
  size_t object_count;
  struct snapshot_block *blocks;
  size_t block_count;
  struct snapshot_reference *references;
  size_t reference_count;
  struct snapshot_root *roots;
  size_t root_count;
  struct snapshot_wide *wide;   /* the wide references' targets and indices, by reference */
  size_t wide_count;
  struct snapshot_wide_count *wide_counts;  /* the objects' counts past 32 bits, by address */
  size_t wide_count_count;
  char **strings;               /* [1 .. string_count], NUL-terminated ([0] is NULL) */
  uint32_t string_count;
  uint64_t object_bytes;        /* the objects' sizes and their blocks' */
  int complete;                 /* the END chunk was read: nothing is missing */
  /* Private: the texts strings points into (one allocation), and the owned blocks' addresses
   * sorted, for snapshot_find_block. */
  char *string_pool;
  struct snapshot_block_owner *block_index;
  /* Private: where snapshot_find starts: bucket k of the addresses from the first object's
   * (each 2^find_shift bytes; all of them when find_shift is 64) begins at objects[find_start[k]]. */
  uint32_t *find_start;
  uint32_t find_buckets;
  unsigned find_shift;
};

struct snapshot_block_owner {
  uint64_t address;
  uint32_t object;
};

/* Errors are format/error.h's: FORMAT_CUT (the file ends early: every complete chunk was read,
 * a warning), FORMAT_BAD_INPUT (not a snapshot at error.offset, or another capture's),
 * FORMAT_UNSUPPORTED (a version this reader does not know), FORMAT_IO, FORMAT_NO_MEMORY;
 * the message is "FILE: byte OFFSET: what is wrong". */

/* ---- Reader (API for diff/: stable) --------------------------------------------- */

/* Reads size bytes (not kept) into *snapshot; name is what messages call the input. FORMAT_OK;
 * FORMAT_CUT with *snapshot holding every complete chunk and error saying where it was cut;
 * or an error with *snapshot empty. Release with snapshot_free either way. */
enum format_status snapshot_read_memory(struct snapshot *snapshot, const void *data, size_t size,
                                        const char *name, struct format_error *error);

/* Reads the file at path, as snapshot_read_memory; how says whose name it is (a FOUND one
 * must be a regular file, not a link: format/input_file.h). */
enum format_status snapshot_read_file(struct snapshot *snapshot, const char *path, enum input_file_how how,
                                      struct format_error *error);

/* Whether the snapshot belongs to the capture whose index says pid and start (Unix seconds):
 * FORMAT_OK, or FORMAT_BAD_INPUT with a message naming name and both captures. */
enum format_status snapshot_check_capture(const struct snapshot *snapshot, const char *name,
                                          uint64_t pid, double start,
                                          struct format_error *error);

/* The object at address, or NULL. */
const struct snapshot_object *snapshot_find(const struct snapshot *snapshot, uint64_t address);

/* The object that owns the block at address (its own block or one of its blocks), or NULL:
 * how a live block of the event stream finds its object. */
const struct snapshot_object *snapshot_find_block(const struct snapshot *snapshot,
                                                  uint64_t address);

/* The label of a reference as a person reads it ("tokens", "[3]", "[table]", "key [table]",
 * "upvalue handlers", "local pending in function@jobs.lua:2", "metatable") into out,
 * NUL-terminated; returns out. */
const char *snapshot_label(const struct snapshot *snapshot, const struct snapshot_reference *ref,
                           char *out, size_t size);

/* An object's count (its entries, length, ...: struct snapshot_object). */
uint64_t snapshot_object_count(const struct snapshot *snapshot, const struct snapshot_object *object);

/* A reference's target address, and INDEX's n (0 for other kinds). */
uint64_t snapshot_reference_target(const struct snapshot *snapshot, const struct snapshot_reference *ref);
int64_t snapshot_reference_index(const struct snapshot *snapshot, const struct snapshot_reference *ref);

/* The string with id, or "" for 0 or an id the snapshot does not have. */
const char *snapshot_string(const struct snapshot *snapshot, uint32_t id);

/* "table", "string", ... */
const char *snapshot_type_name(enum snapshot_type type);

void snapshot_free(struct snapshot *snapshot);

/* Frees the references (and what is kept aside of them) of a snapshot read, for a reader done
 * with them before it is with the objects: every object has none after it. */
void snapshot_free_references(struct snapshot *snapshot);

/* Frees what speeds up snapshot_find and snapshot_find_block, for a reader done with look-ups
 * by address but for a few: snapshot_find then searches every object, and snapshot_find_block
 * finds objects by their own block only. */
void snapshot_free_index(struct snapshot *snapshot);

/* ---- Writer (the collector's) ------------------------------------------------------ */

/* Where finished chunks go: 0, or -1 to fail. */
typedef int (*snapshot_sink_fn)(void *context, const uint8_t *data, size_t size);

/* An object as the writer takes it; its references follow with snapshot_writer_reference. */
struct snapshot_wire_object {
  enum snapshot_type type;
  unsigned flags;               /* SNAPSHOT_FLAG_WEAK_*; BLOCKS and NAME are set by the writer */
  uint64_t address, size, count;
  uint32_t name;                /* string id or 0 */
  const struct snapshot_block *blocks;
  uint32_t block_count;         /* at most SNAPSHOT_MAX_BLOCKS */
};
#define SNAPSHOT_MAX_BLOCKS 4

/* An encoder into two caller-owned buffers (strings and objects, each a chunk in the making)
 * that hands whole chunks to the sink. It never allocates. */
struct snapshot_writer {
  uint8_t *strings;             /* the STRINGS chunk being built */
  uint8_t *objects;             /* the OBJECTS (or ROOTS) chunk being built */
  size_t capacity;              /* of each, at least SNAPSHOT_WRITER_MIN_CAPACITY */
  size_t strings_used, objects_used;
  uint32_t strings_in_chunk, objects_in_chunk;
  enum snapshot_chunk_tag objects_tag;
  uint64_t object_address;      /* the address the next object's delta is from */
  uint64_t current;             /* the open object's address */
  int object_open;              /* an object record awaits its references' end */
  snapshot_sink_fn sink;
  void *sink_context;
  int failed;
  uint64_t offset;              /* bytes handed to the sink */
  uint32_t string_ids;          /* the last id given */
  uint64_t object_records, references, roots, object_bytes;  /* written so far */
  uint64_t chunk_offsets[1024]; /* the END table: offsets of the first chunks (more are skipped) */
  uint8_t chunk_tags[1024];
  uint32_t chunk_count;
};

#define SNAPSHOT_WRITER_MIN_CAPACITY 4096

void snapshot_writer_init(struct snapshot_writer *writer, uint8_t *strings, uint8_t *objects,
                          size_t capacity, snapshot_sink_fn sink, void *sink_context);

/* The header and the CAPTURE chunk; first. 0 or -1. */
int snapshot_writer_begin(struct snapshot_writer *writer, const struct snapshot_capture *capture);

/* Interns nothing: writes the string and returns its new id (0 on failure). Longer texts than
 * SNAPSHOT_LABEL_MAX are cut. */
uint32_t snapshot_writer_string(struct snapshot_writer *writer, const char *bytes, size_t length);

/* Starts an object record. 0 or -1. */
int snapshot_writer_object(struct snapshot_writer *writer, const struct snapshot_wire_object *object);

/* A reference of the open object. text is a string id (kinds but INDEX), index INDEX's n:
 * -2^59 to 2^59 - 1, whose zigzag fits a label word beside the kind (the collector's keys are
 * within 2^53); another n fails the writer. */
#define SNAPSHOT_INDEX_MAX_ZIGZAG ((UINT64_C(1) << 60) - 1)
int snapshot_writer_reference(struct snapshot_writer *writer, enum snapshot_ref_kind kind, int weak,
                              uint32_t text, int64_t index, uint64_t target);

/* A root (after the last object). 0 or -1. */
int snapshot_writer_root(struct snapshot_writer *writer, uint32_t text, int weak, uint64_t target);

/* The last chunks, the END chunk and the trailer. 0 or -1. */
int snapshot_writer_end(struct snapshot_writer *writer);

#endif
