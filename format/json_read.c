/* format/json_read.c: a strict JSON parser into a small tree, with byte offsets for error messages (saved results and merges; the writer is json_write.c). */
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "format/utf8.h"
#include "format/json_read.h"

#define JSON_MAX_DEPTH 64

struct json_parser {
  const char *text;
  size_t length;
  size_t pos;
  size_t error_offset;
  char *message;
  size_t message_size;
  int failed;
};

static int parser_fail(struct json_parser *p, size_t offset, const char *format, ...)
{
  if (!p->failed) {
    va_list args;
    va_start(args, format);
    vsnprintf(p->message, p->message_size, format, args);
    va_end(args);
    p->error_offset = offset;
    p->failed = 1;
  }
  return -1;
}

static void skip_space(struct json_parser *p)
{
  while (p->pos < p->length) {
    char c = p->text[p->pos];
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
      break;
    p->pos++;
  }
}

/* Describes the character at pos for an error message. */
static const char *describe_here(struct json_parser *p, char *buffer, size_t size)
{
  if (p->pos >= p->length)
    return "the end of the input";
  unsigned char c = (unsigned char)p->text[p->pos];
  if (c >= 0x21 && c < 0x7f)
    snprintf(buffer, size, "'%c'", c);
  else
    snprintf(buffer, size, "byte 0x%02x", c);
  return buffer;
}

static int parse_value(struct json_parser *p, struct json_read_value *v, int depth);

static int hex_value(char c)
{
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

static int parse_hex4(struct json_parser *p, uint32_t *out)
{
  if (p->length - p->pos < 4)
    return parser_fail(p, p->pos, "cut \\u escape");
  uint32_t v = 0;
  for (int i = 0; i < 4; i++) {
    int h = hex_value(p->text[p->pos + (size_t)i]);
    if (h < 0)
      return parser_fail(p, p->pos + (size_t)i, "bad hex digit in \\u escape");
    v = v << 4 | (uint32_t)h;
  }
  p->pos += 4;
  *out = v;
  return 0;
}

/* Parses a string at pos (the opening quote) into a new NUL-terminated buffer. */
static int parse_string(struct json_parser *p, char **out)
{
  size_t start = p->pos++;
  /* The decoded text is never longer than the source text. */
  size_t end = p->pos;
  while (end < p->length && p->text[end] != '"')
    end += p->text[end] == '\\' ? 2 : 1;
  if (end >= p->length)
    return parser_fail(p, start, "unterminated string");
  char *buffer = malloc(end - p->pos + 1);
  if (!buffer)
    return parser_fail(p, start, "out of memory");
  size_t used = 0;
  for (;;) {
    unsigned char c = (unsigned char)p->text[p->pos];
    if (c == '"') {
      p->pos++;
      break;
    }
    if (c < 0x20) {
      free(buffer);
      return parser_fail(p, p->pos, "control character 0x%02x in string (must be escaped)", c);
    }
    if (c >= 0x80) {
      uint32_t cp;
      size_t n = utf8_decode(p->text + p->pos, p->length - p->pos, &cp);
      if (n == 1) {
        free(buffer);
        return parser_fail(p, p->pos, "invalid UTF-8 in string");
      }
      memcpy(buffer + used, p->text + p->pos, n);
      used += n;
      p->pos += n;
      continue;
    }
    if (c != '\\') {
      buffer[used++] = (char)c;
      p->pos++;
      continue;
    }
    size_t escape_at = p->pos;
    char e = p->text[p->pos + 1];
    p->pos += 2;
    uint32_t cp;
    switch (e) {
    case '"': buffer[used++] = '"'; continue;
    case '\\': buffer[used++] = '\\'; continue;
    case '/': buffer[used++] = '/'; continue;
    case 'b': buffer[used++] = '\b'; continue;
    case 'f': buffer[used++] = '\f'; continue;
    case 'n': buffer[used++] = '\n'; continue;
    case 'r': buffer[used++] = '\r'; continue;
    case 't': buffer[used++] = '\t'; continue;
    case 'u':
      if (parse_hex4(p, &cp) < 0) {
        free(buffer);
        return -1;
      }
      if (cp >= 0xdc00 && cp <= 0xdfff) {
        free(buffer);
        return parser_fail(p, escape_at, "lone low surrogate in \\u escape");
      }
      if (cp >= 0xd800 && cp <= 0xdbff) {
        uint32_t low;
        if (p->length - p->pos < 2 || p->text[p->pos] != '\\' || p->text[p->pos + 1] != 'u') {
          free(buffer);
          return parser_fail(p, escape_at, "high surrogate without a low one in \\u escape");
        }
        p->pos += 2;
        if (parse_hex4(p, &low) < 0) {
          free(buffer);
          return -1;
        }
        if (low < 0xdc00 || low > 0xdfff) {
          free(buffer);
          return parser_fail(p, escape_at, "high surrogate without a low one in \\u escape");
        }
        cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
      }
      if (cp == 0) {
        free(buffer);
        return parser_fail(p, escape_at, "\\u0000 in a string is not supported");
      }
      used += utf8_encode(buffer + used, cp);
      continue;
    default:
      free(buffer);
      return parser_fail(p, escape_at, "unknown escape in string");
    }
  }
  buffer[used] = '\0';
  *out = buffer;
  return 0;
}

static int is_digit(char c)
{
  return c >= '0' && c <= '9';
}

static int parse_number(struct json_parser *p, struct json_read_value *v)
{
  size_t start = p->pos;
  const char *t = p->text;
  if (p->pos < p->length && t[p->pos] == '-')
    p->pos++;
  if (p->pos >= p->length || !is_digit(t[p->pos]))
    return parser_fail(p, p->pos, "expected a digit in number");
  if (t[p->pos] == '0') {
    p->pos++;
    if (p->pos < p->length && is_digit(t[p->pos]))
      return parser_fail(p, p->pos, "leading zero in number");
  } else {
    while (p->pos < p->length && is_digit(t[p->pos]))
      p->pos++;
  }
  if (p->pos < p->length && t[p->pos] == '.') {
    p->pos++;
    if (p->pos >= p->length || !is_digit(t[p->pos]))
      return parser_fail(p, p->pos, "expected a digit after the decimal point");
    while (p->pos < p->length && is_digit(t[p->pos]))
      p->pos++;
  }
  if (p->pos < p->length && (t[p->pos] == 'e' || t[p->pos] == 'E')) {
    p->pos++;
    if (p->pos < p->length && (t[p->pos] == '+' || t[p->pos] == '-'))
      p->pos++;
    if (p->pos >= p->length || !is_digit(t[p->pos]))
      return parser_fail(p, p->pos, "expected a digit in the exponent");
    while (p->pos < p->length && is_digit(t[p->pos]))
      p->pos++;
  }
  size_t n = p->pos - start;
  v->text = malloc(n + 1);
  if (!v->text)
    return parser_fail(p, start, "out of memory");
  memcpy(v->text, t + start, n);
  v->text[n] = '\0';
  v->type = JSON_NUMBER;
  return 0;
}

static int parse_literal(struct json_parser *p, const char *word, enum json_read_type type,
                         struct json_read_value *v)
{
  size_t n = strlen(word);
  if (p->length - p->pos < n || memcmp(p->text + p->pos, word, n) != 0) {
    char here[16];
    return parser_fail(p, p->pos, "expected a JSON value, found %s",
                       describe_here(p, here, sizeof here));
  }
  p->pos += n;
  v->type = type;
  return 0;
}

/* Grows an array of n elements of size bytes to hold one more; returns 0 or -1. */
static int grow(void **array, size_t *capacity, size_t n, size_t size)
{
  if (n < *capacity)
    return 0;
  size_t wanted = *capacity ? *capacity * 2 : 8;
  void *bigger = realloc(*array, wanted * size);
  if (!bigger)
    return -1;
  *array = bigger;
  *capacity = wanted;
  return 0;
}

static int parse_array(struct json_parser *p, struct json_read_value *v, int depth)
{
  size_t capacity = 0;
  v->type = JSON_ARRAY;
  p->pos++;
  skip_space(p);
  if (p->pos < p->length && p->text[p->pos] == ']') {
    p->pos++;
    return 0;
  }
  for (;;) {
    if (grow((void **)&v->items, &capacity, v->count, sizeof *v->items) < 0)
      return parser_fail(p, p->pos, "out of memory");
    struct json_read_value *item = &v->items[v->count];
    memset(item, 0, sizeof *item);
    v->count++;
    if (parse_value(p, item, depth + 1) < 0)
      return -1;
    skip_space(p);
    if (p->pos < p->length && p->text[p->pos] == ',') {
      p->pos++;
      continue;
    }
    if (p->pos < p->length && p->text[p->pos] == ']') {
      p->pos++;
      return 0;
    }
    char here[16];
    return parser_fail(p, p->pos, "expected ',' or ']' in array, found %s",
                       describe_here(p, here, sizeof here));
  }
}

static int parse_object(struct json_parser *p, struct json_read_value *v, int depth)
{
  size_t capacity = 0, key_capacity = 0;
  char here[16];
  v->type = JSON_OBJECT;
  p->pos++;
  skip_space(p);
  if (p->pos < p->length && p->text[p->pos] == '}') {
    p->pos++;
    return 0;
  }
  for (;;) {
    skip_space(p);
    if (p->pos >= p->length || p->text[p->pos] != '"')
      return parser_fail(p, p->pos, "expected a member name in quotes, found %s",
                         describe_here(p, here, sizeof here));
    if (grow((void **)&v->items, &capacity, v->count, sizeof *v->items) < 0 ||
        grow((void **)&v->keys, &key_capacity, v->count, sizeof *v->keys) < 0)
      return parser_fail(p, p->pos, "out of memory");
    size_t key_at = p->pos;
    char *key;
    if (parse_string(p, &key) < 0)
      return -1;
    if (json_read_object_get(v, key)) {
      free(key);
      return parser_fail(p, key_at, "duplicate member name");
    }
    struct json_read_value *item = &v->items[v->count];
    memset(item, 0, sizeof *item);
    v->keys[v->count] = key;
    v->count++;
    skip_space(p);
    if (p->pos >= p->length || p->text[p->pos] != ':')
      return parser_fail(p, p->pos, "expected ':' after a member name, found %s",
                         describe_here(p, here, sizeof here));
    p->pos++;
    if (parse_value(p, item, depth + 1) < 0)
      return -1;
    skip_space(p);
    if (p->pos < p->length && p->text[p->pos] == ',') {
      p->pos++;
      continue;
    }
    if (p->pos < p->length && p->text[p->pos] == '}') {
      p->pos++;
      return 0;
    }
    return parser_fail(p, p->pos, "expected ',' or '}' in object, found %s",
                       describe_here(p, here, sizeof here));
  }
}

static int parse_value(struct json_parser *p, struct json_read_value *v, int depth)
{
  char here[16];
  skip_space(p);
  v->offset = p->pos;
  if (depth > JSON_MAX_DEPTH)
    return parser_fail(p, p->pos, "nested deeper than %d levels", JSON_MAX_DEPTH);
  if (p->pos >= p->length)
    return parser_fail(p, p->pos, "expected a JSON value, found the end of the input");
  switch (p->text[p->pos]) {
  case '{': return parse_object(p, v, depth);
  case '[': return parse_array(p, v, depth);
  case '"':
    v->type = JSON_STRING;
    return parse_string(p, &v->text);
  case 't': return parse_literal(p, "true", JSON_TRUE, v);
  case 'f': return parse_literal(p, "false", JSON_FALSE, v);
  case 'n': return parse_literal(p, "null", JSON_NULL, v);
  default:
    if (p->text[p->pos] == '-' || is_digit(p->text[p->pos]))
      return parse_number(p, v);
    return parser_fail(p, p->pos, "expected a JSON value, found %s",
                       describe_here(p, here, sizeof here));
  }
}

int json_read_parse(const char *text, size_t length, struct json_read_value *root, size_t *error_offset,
               char *message, size_t message_size)
{
  struct json_parser p = {text, length, 0, 0, message, message_size, 0};
  memset(root, 0, sizeof *root);
  if (parse_value(&p, root, 0) == 0) {
    skip_space(&p);
    if (p.pos == p.length)
      return 0;
    parser_fail(&p, p.pos, "unexpected text after the JSON value");
  }
  json_read_free(root);
  *error_offset = p.error_offset;
  return -1;
}

void json_read_free(struct json_read_value *v)
{
  if (!v)
    return;
  for (size_t i = 0; i < v->count; i++) {
    if (v->items)
      json_read_free(&v->items[i]);
    if (v->keys)
      free(v->keys[i]);
  }
  free(v->items);
  free(v->keys);
  free(v->text);
  memset(v, 0, sizeof *v);
}

const struct json_read_value *json_read_object_get(const struct json_read_value *object, const char *key)
{
  if (!object || object->type != JSON_OBJECT)
    return NULL;
  for (size_t i = 0; i < object->count; i++)
    if (!strcmp(object->keys[i], key))
      return &object->items[i];
  return NULL;
}
