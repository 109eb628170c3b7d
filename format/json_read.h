/* format/json_read.h: a small strict JSON parser, for reading saved results and merges (the writer is format/json_write.h). */
#ifndef LJLEAK_FORMAT_JSON_READ_H
#define LJLEAK_FORMAT_JSON_READ_H

#include <stddef.h>

#include "format/error.h"

enum json_read_type { JSON_NULL, JSON_FALSE, JSON_TRUE, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT };

/* One parsed value. Strings are decoded UTF-8 without NUL bytes; numbers
 * keep their literal text so integers up to 2^64-1 and doubles convert exactly. */
struct json_read_value {
  enum json_read_type type;
  size_t offset;              /* byte offset of the value's first character in the input */
  char *text;                 /* STRING: the decoded string; NUMBER: the literal */
  size_t count;               /* ARRAY, OBJECT: elements or members */
  struct json_read_value *items;   /* ARRAY: elements; OBJECT: member values */
  char **keys;                /* OBJECT: member names, unique */
  struct json_read_arena *arena;  /* the root: where every value of the tree lives */
};

/* Parses exactly one JSON value (RFC 8259, nothing more: no comments, no
 * trailing commas, no duplicate member names, valid UTF-8 only); name is what
 * messages call the text. Returns 0, or -1 with error set: FORMAT_BAD_INPUT
 * at its byte ("NAME: byte N: what is wrong"), or FORMAT_NO_MEMORY (with the
 * byte it was reading: "NAME: byte N: out of memory"). */
int json_read_parse(const char *text, size_t length, const char *name, struct json_read_value *root,
                    struct format_error *error);
/* Frees a tree: root must be what json_read_parse filled (its values are
 * freed with it, never one by one). */
void json_read_free(struct json_read_value *root);

/* The member named key of an object, or NULL. */
const struct json_read_value *json_read_object_get(const struct json_read_value *object, const char *key);

#endif
