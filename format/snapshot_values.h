/* format/snapshot_values.h: a heap snapshot's values sidecar: the first bytes of each live string and the first keys of each table, written only on request (docs/snapshot-format.md, "Values").
 *
 * API for diff/: stable. The reader (snapshot_values_read*, snapshot_values_find_*) is what
 * diff/values.c codes against; the writer is the collector's (collector/snapshot_values.c).
 *
 * Values can be secrets (tokens, passwords, personal data): the collector writes this file only
 * with the values option, and ljleak shows what is in it only with --values. A file is a header
 * and a sequence of records, each a tag byte and its fields: CAPTURE (first, once) says whose
 * snapshot it goes with, STRING and TABLE carry the values, END (last) the totals. Every record
 * is at most SNAPSHOT_VALUES_RECORD_MAX bytes, so a file cut anywhere reads up to its last
 * complete record. */
#ifndef LJLEAK_FORMAT_SNAPSHOT_VALUES_H
#define LJLEAK_FORMAT_SNAPSHOT_VALUES_H

#include <stddef.h>
#include <stdint.h>

#include "format/error.h"
#include "format/input_file.h"
#include "format/memprof.h"

/* ---- Wire constants ------------------------------------------------------- */

#define SNAPSHOT_VALUES_MAGIC "ljhv"
#define SNAPSHOT_VALUES_VERSION 1
#define SNAPSHOT_VALUES_HEADER_BYTES 8   /* magic, version, three reserved zero bytes */
#define SNAPSHOT_VALUES_SHOWN_MAX 256    /* most bytes of a string or a key a record may hold */
#define SNAPSHOT_VALUES_KEYS_MAX 64      /* most keys of a table a record may hold */
/* The longest record: a TABLE of SNAPSHOT_VALUES_KEYS_MAX string keys of SHOWN_MAX bytes. */
#define SNAPSHOT_VALUES_RECORD_MAX (1 + 3 * 10 + SNAPSHOT_VALUES_KEYS_MAX * (1 + 2 * 10 + SNAPSHOT_VALUES_SHOWN_MAX))

/* What the collector keeps (the CAPTURE record says what a file holds). */
#define SNAPSHOT_VALUES_DEFAULT_SHOWN 48
#define SNAPSHOT_VALUES_DEFAULT_KEYS 8

enum snapshot_values_tag {
  SNAPSHOT_VALUES_TAG_CAPTURE = 1,
  SNAPSHOT_VALUES_TAG_STRING = 2,
  SNAPSHOT_VALUES_TAG_TABLE = 3,
  SNAPSHOT_VALUES_TAG_END = 4
};

/* What a table's key is (a key record's first byte). */
enum snapshot_values_key_kind {
  SNAPSHOT_VALUES_KEY_STRING = 1,  /* its length and first bytes */
  SNAPSHOT_VALUES_KEY_NUMBER = 2,  /* an IEEE double, 8 bytes little-endian */
  SNAPSHOT_VALUES_KEY_FALSE = 3,
  SNAPSHOT_VALUES_KEY_TRUE = 4,
  SNAPSHOT_VALUES_KEY_OBJECT = 5   /* a GC object or a light userdata: its type byte
                                      (format/snapshot.h's enum snapshot_type; 0: light
                                      userdata) */
};

/* Whose snapshot a file goes with: the heap snapshot's CAPTURE fields that tie it to its capture
 * and boundary, and how much of each value the writer kept. */
struct snapshot_values_capture {
  uint64_t pid;
  uint64_t start_ms;          /* the capture's start, Unix milliseconds */
  uint64_t boundary;          /* the seq of the snapshot's boundary */
  uint32_t shown;             /* the most bytes of a string or a key kept (at most SHOWN_MAX) */
  uint32_t keys;              /* the most keys of a table kept (at most KEYS_MAX) */
};

/* ---- Decoded records -------------------------------------------------------- */

struct snapshot_values_string {
  uint64_t address;           /* the GCstr's, as the heap snapshot's object */
  uint64_t length;            /* its whole length in bytes */
  const char *text;           /* its first `shown` bytes (not terminated; may hold NULs) */
  uint32_t shown;
  uint64_t offset;            /* the record's byte offset in the file */
};

struct snapshot_values_key {
  enum snapshot_values_key_kind kind;
  uint64_t length;            /* STRING: its whole length */
  const char *text;           /* STRING: its first `shown` bytes */
  uint32_t shown;
  double number;              /* NUMBER */
  unsigned type;              /* OBJECT: its type */
};

struct snapshot_values_table {
  uint64_t address;
  uint64_t entries;           /* its non-nil entries */
  size_t first_key;           /* its keys: keys[first_key .. first_key + key_count) */
  uint32_t key_count;
  uint64_t offset;
};

struct snapshot_values {
  struct snapshot_values_capture capture;
  struct snapshot_values_string *strings;   /* sorted by address */
  size_t string_count;
  struct snapshot_values_table *tables;     /* sorted by address */
  size_t table_count;
  struct snapshot_values_key *keys;
  size_t key_count;
  int complete;               /* the END record was read */
  uint8_t *data;              /* the file's copy that the texts point into */
};

/* Errors are format/error.h's: FORMAT_CUT (the file ends early: every complete record was
 * read), FORMAT_BAD_INPUT (not a values sidecar at error.offset), FORMAT_UNSUPPORTED,
 * FORMAT_IO, FORMAT_NO_MEMORY; the message is "FILE: byte OFFSET: what is wrong". */

/* ---- Reader (API for diff/: stable) ------------------------------------------ */

/* Reads size bytes (copied) into *values; name is what messages call the input.
 * FORMAT_OK; FORMAT_CUT with every complete record and a message saying where
 * it stops; or an error with *values empty. Release with snapshot_values_free either way. */
enum format_status snapshot_values_read_memory(struct snapshot_values *values, const void *data,
                                               size_t size, const char *name,
                                               struct format_error *error);

/* Reads the file at path, as snapshot_values_read_memory; how as snapshot_read_file's. */
enum format_status snapshot_values_read_file(struct snapshot_values *values, const char *path,
                                             enum input_file_how how, struct format_error *error);

/* The string or the table at address, or NULL. */
const struct snapshot_values_string *snapshot_values_find_string(const struct snapshot_values *values,
                                                                 uint64_t address);
const struct snapshot_values_table *snapshot_values_find_table(const struct snapshot_values *values,
                                                               uint64_t address);

void snapshot_values_free(struct snapshot_values *values);

/* ---- Writer (the collector's) -------------------------------------------------- */

/* Where the writer's bytes go: 0, or -1 (the writer stops, failed). */
typedef memprof_sink_fn snapshot_values_sink;

/* Records are encoded into a caller's buffer of at least SNAPSHOT_VALUES_RECORD_MAX bytes (the
 * collector's is mmap'd: it allocates nothing) and handed to the sink as it fills. */
struct snapshot_values_writer {
  struct memprof_writer out;  /* the buffering, as memprof's writer does it: failed, bytes_written */
  uint32_t shown, keys;       /* from the CAPTURE record */
  uint64_t strings, tables;   /* records written */
};

void snapshot_values_writer_init(struct snapshot_values_writer *writer, uint8_t *buffer, size_t size,
                                 snapshot_values_sink sink, void *context);
/* The header and the CAPTURE record (who->shown and who->keys past their maxima are lowered to
 * them). 0, or -1. */
int snapshot_values_writer_begin(struct snapshot_values_writer *writer,
                                 const struct snapshot_values_capture *who);
/* A string of length bytes at text: its first who->shown bytes are kept. 0, or -1. */
int snapshot_values_writer_string(struct snapshot_values_writer *writer, uint64_t address,
                                  const void *text, uint64_t length);
/* A table with entries non-nil entries and its first keys (at most who->keys are kept, and of a
 * string key its first who->shown bytes). 0, or -1. */
int snapshot_values_writer_table(struct snapshot_values_writer *writer, uint64_t address,
                                 uint64_t entries, const struct snapshot_values_key *keys,
                                 uint32_t key_count);
/* The END record, and the last bytes to the sink. 0, or -1. */
int snapshot_values_writer_end(struct snapshot_values_writer *writer);

#endif
