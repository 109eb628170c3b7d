/* report/json.h: a small strict JSON parser, for reading saved results (inside report/; the writer is format/json_write.h). */
#ifndef LJLEAK_REPORT_JSON_H
#define LJLEAK_REPORT_JSON_H

#include <stddef.h>

enum report_json_type { JSON_NULL, JSON_FALSE, JSON_TRUE, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT };

/* One parsed value. Strings are decoded UTF-8 without NUL bytes; numbers
 * keep their literal text so integers up to 2^64-1 and doubles convert exactly. */
struct report_json_value {
  enum report_json_type type;
  size_t offset;              /* byte offset of the value's first character in the input */
  char *text;                 /* STRING: the decoded string; NUMBER: the literal */
  size_t count;               /* ARRAY, OBJECT: elements or members */
  struct report_json_value *items;   /* ARRAY: elements; OBJECT: member values */
  char **keys;                /* OBJECT: member names, unique */
};

/* Parses exactly one JSON value (RFC 8259, nothing more: no comments, no
 * trailing commas, no duplicate member names, valid UTF-8 only). Returns 0,
 * or -1 with *error_offset and a message. */
int report_json_parse(const char *text, size_t length, struct report_json_value *root, size_t *error_offset,
               char *message, size_t message_size);
void report_json_free(struct report_json_value *value);

/* The member named key of an object, or NULL. */
const struct report_json_value *report_json_object_get(const struct report_json_value *object, const char *key);

#endif
