/* diff/json_fields.c: the JSON result reader's typed members (numbers, strings, booleans, arrays, per-boundary series), each checked, with a "FILE: byte N: what is wrong" message. */
#include "diff/json_fields.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int json_fields_fail(struct json_reader *r, const struct json_read_value *at, const char *format,
                     ...)
{
  char what[256];  /* cut as it always was: a member's name or a value's words */
  va_list args;
  va_start(args, format);
  vsnprintf(what, sizeof what, format, args);
  va_end(args);
  format_error_at(r->error, FORMAT_BAD_INPUT, r->name, at ? at->offset : 0, "%s", what);
  return -1;
}

int json_fields_no_memory(struct json_reader *r, const struct json_read_value *at)
{
  format_error_at(r->error, FORMAT_NO_MEMORY, r->name, at ? at->offset : 0, "out of memory");
  return -1;
}

int json_fields_to_uint(const struct json_read_value *v, uint64_t *out)
{
  if (v->type != JSON_NUMBER)
    return -1;
  /* Digits only (the parser checked the number's syntax), at most 2^64-1:
   * by hand, since results hold thousands of them. */
  uint64_t value = 0;
  for (const char *at = v->text; *at; at++) {
    if (*at < '0' || *at > '9')
      return -1;
    unsigned digit = (unsigned)(*at - '0');
    if (value > (UINT64_MAX - digit) / 10)
      return -2;
    value = value * 10 + digit;
  }
  *out = value;
  return 0;
}

int json_fields_to_int(const struct json_read_value *v, int64_t *out)
{
  if (v->type != JSON_NUMBER || strpbrk(v->text, ".eE"))
    return -1;
  errno = 0;
  long long value = strtoll(v->text, NULL, 10);
  if (errno == ERANGE)
    return -2;
  *out = value;
  return 0;
}

int json_fields_to_double(const struct json_read_value *v, double *out)
{
  if (v->type == JSON_NULL) {
    *out = NAN;
    return 0;
  }
  if (v->type != JSON_NUMBER)
    return -1;
  *out = strtod(v->text, NULL);
  return 0;
}

int json_fields_to_bool(const struct json_read_value *v, int *out)
{
  if (v->type != JSON_TRUE && v->type != JSON_FALSE)
    return -1;
  *out = v->type == JSON_TRUE;
  return 0;
}

int json_fields_to_string(const struct json_read_value *v, char **out)
{
  *out = NULL;
  if (v->type == JSON_NULL)
    return 0;
  if (v->type != JSON_STRING)
    return -1;
  return (*out = strdup(v->text)) ? 0 : -2;
}

/* A whole number's read (rc of json_fields_to_uint or _int) with its message: "WHAT too_big"
 * for -2, "WHAT not_one" for -1. */
static int fields_whole(struct json_reader *r, const struct json_read_value *v, int rc,
                        const char *what, const char *not_one, const char *too_big)
{
  return rc < 0 ? json_fields_fail(r, v, "%s %s", what, rc == -2 ? too_big : not_one) : 0;
}

int json_fields_uint(struct json_reader *r, const struct json_read_value *v, const char *what,
                     uint64_t *out)
{
  return fields_whole(r, v, json_fields_to_uint(v, out), what, "must be a whole number >= 0",
                      "is larger than 2^64-1");
}

int json_fields_int(struct json_reader *r, const struct json_read_value *v, const char *what,
                    int64_t *out)
{
  return fields_whole(r, v, json_fields_to_int(v, out), what, "must be a whole number",
                      "does not fit in 64 bits");
}

int json_fields_double(struct json_reader *r, const struct json_read_value *v, const char *what,
                       double *out)
{
  if (json_fields_to_double(v, out) < 0)
    return json_fields_fail(r, v, "%s must be a number or null", what);
  return 0;
}

int json_fields_bool(struct json_reader *r, const struct json_read_value *v, const char *what,
                     int *out)
{
  if (json_fields_to_bool(v, out) < 0)
    return json_fields_fail(r, v, "%s must be true or false", what);
  return 0;
}

int json_fields_string(struct json_reader *r, const struct json_read_value *v, const char *what,
                       char **out)
{
  int rc = json_fields_to_string(v, out);
  if (rc == -2)
    return json_fields_no_memory(r, v);
  return rc < 0 ? json_fields_fail(r, v, "%s must be a string or null", what) : 0;
}

/* The member key of object; a missing required member is an error. */
int json_fields_member(struct json_reader *r, const struct json_read_value *object, const char *key,
                       int required, const struct json_read_value **out)
{
  *out = json_read_object_get(object, key);
  if (!*out && required)
    return json_fields_fail(r, object, "missing member \"%s\"", key);
  return 0;
}

int json_fields_object(struct json_reader *r, const struct json_read_value *v, const char *what)
{
  if (v->type != JSON_OBJECT)
    return json_fields_fail(r, v, "%s must be an object", what);
  return 0;
}

/* One number of an array, into the element at out (the array's reader's type). */
typedef int (*fields_one)(struct json_reader *r, const struct json_read_value *v, const char *what,
                          void *out);

static int fields_one_uint(struct json_reader *r, const struct json_read_value *v, const char *what,
                           void *out)
{
  return json_fields_uint(r, v, what, out);
}

static int fields_one_double(struct json_reader *r, const struct json_read_value *v, const char *what,
                             void *out)
{
  return json_fields_double(r, v, what, out);
}

/* An array of numbers or null, each read by one into elements of size bytes. Arrays keep at
 * least one element of room so an empty array is not NULL: [] and null must read back as they
 * were written. */
static int fields_array(struct json_reader *r, const struct json_read_value *v, const char *what,
                        size_t size, fields_one one, void **out, size_t *count)
{
  *out = NULL;
  if (v->type == JSON_NULL) {
    *count = 0;
    return 0;
  }
  if (v->type != JSON_ARRAY)
    return json_fields_fail(r, v, "%s must be an array of numbers or null", what);
  unsigned char *values = calloc(v->count ? v->count : 1, size);
  if (!values)
    return json_fields_no_memory(r, v);
  for (size_t i = 0; i < v->count; i++)
    if (one(r, &v->items[i], what, values + i * size) < 0) {
      free(values);
      return -1;
    }
  *out = values;
  *count = v->count;
  return 0;
}

int json_fields_uint_array(struct json_reader *r, const struct json_read_value *v, const char *what,
                           uint64_t **out, size_t *count)
{
  void *values;
  int status = fields_array(r, v, what, sizeof **out, fields_one_uint, &values, count);
  *out = values;
  return status;
}

int json_fields_double_array(struct json_reader *r, const struct json_read_value *v, const char *what,
                             double **out, size_t *count)
{
  void *values;
  int status = fields_array(r, v, what, sizeof **out, fields_one_double, &values, count);
  *out = values;
  return status;
}

/* An optional per-boundary array that must have expected elements when present. */
int json_fields_uint_series(struct json_reader *r, const struct json_read_value *object,
                            const char *key, size_t expected, uint64_t **out)
{
  const struct json_read_value *v = json_read_object_get(object, key);
  size_t count = 0;
  *out = NULL;
  if (!v)
    return 0;
  if (json_fields_uint_array(r, v, key, out, &count) < 0)
    return -1;
  if (*out && count != expected) {
    free(*out);
    *out = NULL;
    return json_fields_fail(r, v, "%s has %zu elements, expected %zu", key, count, expected);
  }
  return 0;
}

/* An optional per-boundary array of booleans, as 0 and 1. */
int json_fields_bool_series(struct json_reader *r, const struct json_read_value *object,
                            const char *key, size_t expected, unsigned char **out)
{
  const struct json_read_value *v = json_read_object_get(object, key);
  *out = NULL;
  if (!v || v->type == JSON_NULL)
    return 0;
  if (v->type != JSON_ARRAY)
    return json_fields_fail(r, v, "%s must be an array of booleans or null", key);
  if (v->count != expected)
    return json_fields_fail(r, v, "%s has %zu elements, expected %zu", key, v->count, expected);
  unsigned char *values = calloc(v->count ? v->count : 1, sizeof *values);
  if (!values)
    return json_fields_no_memory(r, v);
  for (size_t i = 0; i < v->count; i++) {
    int flag = 0;
    if (json_fields_bool(r, &v->items[i], key, &flag) < 0) {
      free(values);
      return -1;
    }
    values[i] = (unsigned char)flag;
  }
  *out = values;
  return 0;
}
