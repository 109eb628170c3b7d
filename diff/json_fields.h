/* diff/json_fields.h: the JSON result reader's typed members, checked, with messages (json_fields.c); result_json_read.c reads the result with them. */
#ifndef LJLEAK_DIFF_JSON_FIELDS_H
#define LJLEAK_DIFF_JSON_FIELDS_H

#include <stddef.h>
#include <stdint.h>

#include "format/error.h"
#include "format/json_read.h"

/* Where the reader is, for "FILE: byte N: what is wrong" messages. */
struct json_reader {
  const char *name;
  struct format_error *error;
};

/* Sets r's error to FORMAT_BAD_INPUT, "NAME: byte N: what" (at's offset, 0 without one); returns -1. */
int json_fields_fail(struct json_reader *r, const struct json_read_value *at, const char *format,
                     ...) __attribute__((format(printf, 3, 4)));

/* As json_fields_fail, "NAME: byte N: out of memory", FORMAT_NO_MEMORY. */
int json_fields_no_memory(struct json_reader *r, const struct json_read_value *at);

/* The values alone, for a reader that words its own messages (the merge's): each reads v into
 * *out and returns 0, or -1 when v is not what it names. */
/* A whole number >= 0 (digits only); -2 when it is larger than 2^64-1. */
int json_fields_to_uint(const struct json_read_value *v, uint64_t *out);
/* A whole number (no fraction, no exponent); -2 when it does not fit in 64 bits. */
int json_fields_to_int(const struct json_read_value *v, int64_t *out);
/* A number, or null as NaN. */
int json_fields_to_double(const struct json_read_value *v, double *out);
/* true or false, as 1 or 0. */
int json_fields_to_bool(const struct json_read_value *v, int *out);
/* A string (copied: the caller frees it), or null as NULL; -2 when out of memory. */
int json_fields_to_string(const struct json_read_value *v, char **out);

/* Each of these reads v as what it names into *out, or fails naming what; 0 or -1. A whole number
 * >= 0 up to 2^64-1. */
int json_fields_uint(struct json_reader *r, const struct json_read_value *v, const char *what,
                     uint64_t *out);

/* A whole number of 64 bits. */
int json_fields_int(struct json_reader *r, const struct json_read_value *v, const char *what,
                    int64_t *out);

/* A number, or null as NaN. */
int json_fields_double(struct json_reader *r, const struct json_read_value *v, const char *what,
                       double *out);

/* true or false, as 1 or 0. */
int json_fields_bool(struct json_reader *r, const struct json_read_value *v, const char *what,
                     int *out);

/* A string (copied: the caller frees it), or null as NULL. */
int json_fields_string(struct json_reader *r, const struct json_read_value *v, const char *what,
                       char **out);

/* The member key of object; a missing required member is an error. */
int json_fields_member(struct json_reader *r, const struct json_read_value *object, const char *key,
                       int required, const struct json_read_value **out);

/* Fails unless v is an object. */
int json_fields_object(struct json_reader *r, const struct json_read_value *v, const char *what);

/* Arrays keep at least one element of room so an empty array is not NULL:
 * [] and null must read back as they were written. */
int json_fields_uint_array(struct json_reader *r, const struct json_read_value *v, const char *what,
                           uint64_t **out, size_t *count);

int json_fields_double_array(struct json_reader *r, const struct json_read_value *v, const char *what,
                             double **out, size_t *count);

/* An optional per-boundary array that must have expected elements when present. */
int json_fields_uint_series(struct json_reader *r, const struct json_read_value *object,
                            const char *key, size_t expected, uint64_t **out);

/* An optional per-boundary array of booleans, as 0 and 1. */
int json_fields_bool_series(struct json_reader *r, const struct json_read_value *object,
                            const char *key, size_t expected, unsigned char **out);

/* Optional members: absent means zero or NULL (in a function with a struct json_reader *r that
 * returns -1 on failure). */
#define JSON_FIELDS_OPTIONAL(object, key, reader, what, out)                                         \
  do {                                                                                    \
    const struct json_read_value *member_value = json_read_object_get((object), (key));            \
    if (member_value && reader(r, member_value, (what), (out)) < 0)                       \
      return -1;                                                                          \
  } while (0)

#endif
