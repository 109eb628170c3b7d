/* format/key_value.h: reading the text files of KEY=VALUE lines (the capture index, the control files): lines, fields, numbers and errors at a byte offset. */
#ifndef LJLEAK_FORMAT_KEY_VALUE_H
#define LJLEAK_FORMAT_KEY_VALUE_H

#include <stddef.h>
#include <stdint.h>

#include "format/whole_file.h"

/* ---- Reader ----------------------------------------------------------------
 * An input held whole and NUL-terminated, read a line at a time. Each
 * format keeps its own rules (what a cut last line means, which lines and
 * keys it knows); this is what they share. An error goes to the caller's
 * format_error: FORMAT_BAD_INPUT at its offset, "NAME: byte OFFSET: what is
 * wrong", or FORMAT_NO_MEMORY, "NAME: out of memory". */

struct key_value_reader {
  char *text;                 /* the input and a NUL after it; a copy is the caller's to free */
  size_t size;
  size_t next;                /* the offset of the next line */
  const char *name;           /* what messages call the input */
  struct format_error *error; /* the caller's, for an error */
};

/* Reads a copy of size bytes of data. Returns 0, or -1 when out of memory
 * (FORMAT_NO_MEMORY, text NULL). */
int key_value_reader_copy(struct key_value_reader *reader, const char *data, size_t size,
                          const char *name, struct format_error *error);

/* Reads the file at path whole (format/whole_file.h), named by its path. */
enum format_status key_value_reader_read_file(struct key_value_reader *reader, const char *path,
                                              struct format_error *error);

/* Reads name in the directory of the handle dir_fd whole (whole_file_read_at), named shown. */
enum format_status key_value_reader_read_at(struct key_value_reader *reader, int dir_fd, const char *name,
                                            const char *shown, struct format_error *error);

/* Reads text in place: size bytes and a NUL after them. No allocation. */
void key_value_reader_in_place(struct key_value_reader *reader, char *text, size_t size,
                               const char *name, struct format_error *error);

/* One line: length bytes at start (offset in the input), without its
 * newline, which is replaced by a NUL. cut: the input ends before a
 * newline (a file cut while it was written, or a last line without one). */
struct key_value_line {
  char *start;
  size_t offset;
  size_t length;
  int cut;
};

/* The next line into *line: 1, or 0 at the end of the input. */
int key_value_next_line(struct key_value_reader *reader, struct key_value_line *line);

/* Records bad input at offset (FORMAT_BAD_INPUT); returns -1. */
int key_value_fail(struct key_value_reader *reader, size_t offset, const char *format, ...)
  __attribute__((format(printf, 3, 4)));
/* Records a failed allocation; returns -1. */
int key_value_no_memory(struct key_value_reader *reader);

/* ---- Fields ---------------------------------------------------------------- */

/* A KEY=VALUE field: the key and the value NUL-terminated in place. */
struct key_value_field {
  const char *key;
  size_t key_length;
  char *value;
  size_t value_length;
  size_t offset;              /* of the field's first byte in the input */
};

/* Splits length bytes of text, a NUL after them (offset in the input), at
 * their first '=', which becomes a NUL. Returns 0, or -1 when there is none. */
int key_value_split(char *text, size_t length, size_t offset, struct key_value_field *field);

/* Decimal digits only, at least one, no more than limit: 0 with *out set, or -1. */
int key_value_parse_u64(const char *text, size_t length, uint64_t limit, uint64_t *out);
/* The same with a '-' allowed first, within a long. */
int key_value_parse_long(const char *text, size_t length, long *out);
/* What strtod reads (in the C locale) from the whole text, but no leading
 * space; a decimal comma is read as a point (a writer that formats with its
 * LC_NUMERIC writes one): the comma is changed in place. 0 or -1. */
int key_value_parse_decimal(char *text, size_t length, double *out);

/* ---- Known keys -------------------------------------------------------------
 * A format lists its keys for a record (a struct): each key's name, a bit
 * for the record's set of keys read, how its value is read and where it
 * goes. */

enum key_value_kind {
  KEY_VALUE_LONG,             /* long: a whole number, maybe negative */
  KEY_VALUE_U64,              /* uint64_t: a whole number */
  KEY_VALUE_DECIMAL,          /* double: key_value_parse_decimal */
  KEY_VALUE_FLAG,             /* int: 0 or 1 */
  KEY_VALUE_TEXT              /* const char *: the value as it stands */
};

struct key_value_key {
  const char *key;
  unsigned bit;
  enum key_value_kind kind;
  size_t offset;              /* of the member in the record */
};

/* Stores field into record when its key is one of the count keys, setting
 * its bit in *seen, and sets *taken to that key (NULL for a key not listed,
 * which is skipped). Errors at the field's offset, each message after
 * context (the line, "segment line: ", or ""): a key given twice, a NUL
 * byte in the value, a bad number or flag. Returns 0 or -1. */
int key_value_take(struct key_value_reader *reader, const char *context,
                   const struct key_value_key *keys, size_t count, void *record, unsigned *seen,
                   const struct key_value_field *field, const struct key_value_key **taken);

/* Undoes a text value's escapes in place (\\, \t, \n: the capture index's and
 * the test list's), shortening field's value. Anything else after a
 * backslash is an error at its byte, its message after context. 0 or -1. */
int key_value_unescape(struct key_value_reader *reader, const char *context,
                       struct key_value_field *field);

#endif
