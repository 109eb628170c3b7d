/* format/json_write.h: writing JSON text: strings, exact numbers, and objects and arrays one member a line (the JSON result, ljleak info, ljleak control). */
#ifndef LJLEAK_FORMAT_JSON_WRITE_H
#define LJLEAK_FORMAT_JSON_WRITE_H

#include <stdint.h>
#include <stdio.h>

/* Writes s as a JSON string (null for NULL; <, >, &, U+2028, U+2029 escaped
 * so the text is safe inside an HTML script block; invalid UTF-8 as U+FFFD). */
void json_write_string(FILE *out, const char *s);
/* Writes the shortest text that reads back as exactly value (null for NaN,
 * 1e999 and -1e999 for the infinities). */
void json_write_double(FILE *out, double value);

/* Objects and arrays written one member a line, indented two spaces a
 * level; an empty one is {} or []. The values are the caller's to write,
 * after json_write_key or json_write_item. */
struct json_writer {
  FILE *out;
  int depth;
  int first;                  /* no member written yet at this depth */
  int one_line;               /* one-line objects and arrays open (json_write_open_line) */
};

/* Opens an object ('{') or an array ('['). */
void json_write_open(struct json_writer *writer, char bracket);
/* Opens an object or an array written on one line, its members or elements
 * separated by ", ": {"kind": "table", "objects": 3}, [1, 2, 3]. For short
 * records and arrays of numbers; only one-line ones open inside it. */
void json_write_open_line(struct json_writer *writer, char bracket);
/* Starts an array's next element as an object on one line (json_write_item,
 * then json_write_open_line): a record among many. */
void json_write_open_record(struct json_writer *writer);
/* Closes either ('}' or ']'). */
void json_write_close(struct json_writer *writer, char bracket);
/* Starts an array's next element on its own line (in a one-line array: after ", "). */
void json_write_item(struct json_writer *writer);
/* Starts an object's next member: its line and "key": (key is written as it is). */
void json_write_key(struct json_writer *writer, const char *key);
/* A member: its key, then its value (a string NULL is null). */
void json_write_member_string(struct json_writer *writer, const char *key, const char *value);
void json_write_member_uint(struct json_writer *writer, const char *key, uint64_t value);
void json_write_member_int(struct json_writer *writer, const char *key, int64_t value);
void json_write_member_double(struct json_writer *writer, const char *key, double value);
void json_write_member_bool(struct json_writer *writer, const char *key, int value);

#endif
