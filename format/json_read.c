/* format/json_read.c: a strict JSON parser into a small tree, with byte offsets for error messages (saved results and merges; the writer is json_write.c). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "container/array.h"
#include "format/utf8.h"
#include "format/json_read.h"

#define JSON_MAX_DEPTH 64

/* Every node, string and key of a tree lives in its arena: a list of
 * blocks, each filled from the front and freed all at once with the root
 * (a result has thousands of numbers: one malloc each was most of the
 * reading time). */
struct json_read_arena {
  struct json_read_arena *next;
  size_t used, size;
  _Alignas(max_align_t) char data[];
};

#define JSON_ARENA_BLOCK 65536

struct json_parser {
  const char *text;
  size_t length;
  size_t pos;
  const char *name;           /* what messages call the text */
  struct format_error *error;
  int failed;
  struct json_read_arena *arena;
  /* The elements (and member names) of the arrays and objects being read,
   * innermost last: each is copied into the arena at its exact size when
   * it ends, and its elements popped. */
  struct json_read_value *stack;
  char **stack_keys;
  size_t stack_count, stack_capacity;
};

static void *arena_alloc(struct json_parser *p, size_t size)
{
  size = (size + 15) & ~(size_t)15;
  struct json_read_arena *a = p->arena;
  if (!a || a->size - a->used < size) {
    size_t block = size > JSON_ARENA_BLOCK / 4 ? size : JSON_ARENA_BLOCK;
    struct json_read_arena *fresh = malloc(sizeof *fresh + block);
    if (!fresh)
      return NULL;
    fresh->used = 0;
    fresh->size = block;
    if (a && size > JSON_ARENA_BLOCK / 4) {
      /* A large piece gets a block of its own, behind the one being filled. */
      fresh->next = a->next;
      a->next = fresh;
    } else {
      fresh->next = a;
      p->arena = fresh;
    }
    a = fresh;
  }
  void *at = a->data + a->used;
  a->used += size;
  return at;
}

static void arena_free(struct json_read_arena *a)
{
  while (a) {
    struct json_read_arena *next = a->next;
    free(a);
    a = next;
  }
}

static int parser_fail(struct json_parser *p, size_t offset, const char *format, ...)
{
  if (!p->failed) {
    va_list args;
    va_start(args, format);
    format_error_at_va(p->error, FORMAT_BAD_INPUT, p->name, offset, format, args);
    va_end(args);
    p->failed = 1;
  }
  return -1;
}

/* Out of memory is no fault of the text, but the message still says where it was. */
static int parser_no_memory(struct json_parser *p, size_t offset)
{
  if (!p->failed) {
    format_error_at(p->error, FORMAT_NO_MEMORY, p->name, offset, "out of memory");
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

/* The \u escape at escape_at (p->pos past its "\u"), a surrogate pair as one code point. */
static int parse_unicode_escape(struct json_parser *p, size_t escape_at, uint32_t *out)
{
  uint32_t cp;
  if (parse_hex4(p, &cp) < 0)
    return -1;
  if (cp >= 0xdc00 && cp <= 0xdfff)
    return parser_fail(p, escape_at, "lone low surrogate in \\u escape");
  if (cp >= 0xd800 && cp <= 0xdbff) {
    uint32_t low;
    if (p->length - p->pos < 2 || p->text[p->pos] != '\\' || p->text[p->pos + 1] != 'u')
      return parser_fail(p, escape_at, "high surrogate without a low one in \\u escape");
    p->pos += 2;
    if (parse_hex4(p, &low) < 0)
      return -1;
    if (low < 0xdc00 || low > 0xdfff)
      return parser_fail(p, escape_at, "high surrogate without a low one in \\u escape");
    cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
  }
  if (cp == 0)
    return parser_fail(p, escape_at, "\\u0000 in a string is not supported");
  *out = cp;
  return 0;
}

/* Most strings (every member name) are printable ASCII without escapes: one scan, one copy.
 * 0 with *out, -1 on error, 1 when the string is not one of them (nothing read). */
static int parse_plain_string(struct json_parser *p, char **out)
{
  size_t plain = p->pos + 1;
  while (plain < p->length) {
    unsigned char c = (unsigned char)p->text[plain];
    if (c == '"' || c == '\\' || c < 0x20 || c >= 0x80)
      break;
    plain++;
  }
  if (plain >= p->length || p->text[plain] != '"')
    return 1;
  size_t n = plain - p->pos - 1;
  char *copy = arena_alloc(p, n + 1);
  if (!copy)
    return parser_no_memory(p, p->pos);
  memcpy(copy, p->text + p->pos + 1, n);
  copy[n] = '\0';
  p->pos = plain + 1;
  *out = copy;
  return 0;
}

/* Parses a string at pos (the opening quote) into a new NUL-terminated buffer. */
static int parse_string(struct json_parser *p, char **out)
{
  int plain = parse_plain_string(p, out);
  if (plain <= 0)
    return plain;
  size_t start = p->pos++;
  /* The decoded text is never longer than the source text. */
  size_t end = p->pos;
  while (end < p->length && p->text[end] != '"')
    end += p->text[end] == '\\' ? 2 : 1;
  if (end >= p->length)
    return parser_fail(p, start, "unterminated string");
  char *buffer = arena_alloc(p, end - p->pos + 1);
  if (!buffer)
    return parser_no_memory(p, start);
  size_t used = 0;
  for (;;) {
    unsigned char c = (unsigned char)p->text[p->pos];
    if (c == '"') {
      p->pos++;
      break;
    }
    if (c < 0x20) {
      return parser_fail(p, p->pos, "control character 0x%02x in string (must be escaped)", c);
    }
    if (c >= 0x80) {
      uint32_t cp;
      size_t n = utf8_decode(p->text + p->pos, p->length - p->pos, &cp);
      if (n == 1) {
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
    uint32_t cp = 0;
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
      if (parse_unicode_escape(p, escape_at, &cp) < 0)
        return -1;
      used += utf8_encode(buffer + used, cp);
      continue;
    default:
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
  v->text = arena_alloc(p, n + 1);
  if (!v->text)
    return parser_no_memory(p, start);
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

/* Pushes an element (and its member name, for an object) on the stack. */
static int stack_push(struct json_parser *p, const struct json_read_value *item, char *key)
{
  if (p->stack_count == p->stack_capacity) {
    size_t capacity = p->stack_capacity;
    if (array_reserve((void **)&p->stack, &capacity, p->stack_count + 1, sizeof *p->stack) != 0 ||
        array_resize((void **)&p->stack_keys, capacity, sizeof *p->stack_keys) != 0)
      return parser_no_memory(p, p->pos);
    p->stack_capacity = capacity;
  }
  p->stack[p->stack_count] = *item;
  p->stack_keys[p->stack_count++] = key;
  return 0;
}

/* Moves the elements pushed since base into v (and their names, for an object). */
static int stack_pop_into(struct json_parser *p, struct json_read_value *v, size_t base, int object)
{
  v->count = p->stack_count - base;
  if (v->count) {
    v->items = arena_alloc(p, v->count * sizeof *v->items);
    if (!v->items || (object && !(v->keys = arena_alloc(p, v->count * sizeof *v->keys))))
      return parser_no_memory(p, p->pos);
    memcpy(v->items, p->stack + base, v->count * sizeof *v->items);
    if (object)
      memcpy(v->keys, p->stack_keys + base, v->count * sizeof *v->keys);
  }
  p->stack_count = base;
  return 0;
}

static int parse_array(struct json_parser *p, struct json_read_value *v, int depth)
{
  size_t base = p->stack_count;
  v->type = JSON_ARRAY;
  p->pos++;
  skip_space(p);
  if (p->pos < p->length && p->text[p->pos] == ']') {
    p->pos++;
    return 0;
  }
  for (;;) {
    struct json_read_value item;
    memset(&item, 0, sizeof item);
    if (parse_value(p, &item, depth + 1) < 0 || stack_push(p, &item, NULL) < 0)
      return -1;
    skip_space(p);
    if (p->pos < p->length && p->text[p->pos] == ',') {
      p->pos++;
      continue;
    }
    if (p->pos < p->length && p->text[p->pos] == ']') {
      p->pos++;
      return stack_pop_into(p, v, base, 0);
    }
    char here[16];
    return parser_fail(p, p->pos, "expected ',' or ']' in array, found %s",
                       describe_here(p, here, sizeof here));
  }
}

static int parse_object(struct json_parser *p, struct json_read_value *v, int depth)
{
  size_t base = p->stack_count;
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
    size_t key_at = p->pos;
    char *key;
    if (parse_string(p, &key) < 0)
      return -1;
    for (size_t i = base; i < p->stack_count; i++)
      if (p->stack_keys[i][0] == key[0] && !strcmp(p->stack_keys[i], key))
        return parser_fail(p, key_at, "duplicate member name");
    skip_space(p);
    if (p->pos >= p->length || p->text[p->pos] != ':')
      return parser_fail(p, p->pos, "expected ':' after a member name, found %s",
                         describe_here(p, here, sizeof here));
    p->pos++;
    struct json_read_value item;
    memset(&item, 0, sizeof item);
    if (parse_value(p, &item, depth + 1) < 0 || stack_push(p, &item, key) < 0)
      return -1;
    skip_space(p);
    if (p->pos < p->length && p->text[p->pos] == ',') {
      p->pos++;
      continue;
    }
    if (p->pos < p->length && p->text[p->pos] == '}') {
      p->pos++;
      return stack_pop_into(p, v, base, 1);
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

int json_read_parse(const char *text, size_t length, const char *name, struct json_read_value *root,
                    struct format_error *error)
{
  struct json_parser p;
  memset(&p, 0, sizeof p);
  p.text = text;
  p.length = length;
  p.name = name;
  p.error = error;
  format_error_clear(error);
  memset(root, 0, sizeof *root);
  int rc = parse_value(&p, root, 0);
  if (rc == 0) {
    skip_space(&p);
    if (p.pos != p.length)
      rc = parser_fail(&p, p.pos, "unexpected text after the JSON value");
  }
  free(p.stack);
  free(p.stack_keys);
  if (rc == 0) {
    root->arena = p.arena;
    return 0;
  }
  arena_free(p.arena);
  memset(root, 0, sizeof *root);
  return -1;
}

void json_read_free(struct json_read_value *root)
{
  if (!root)
    return;
  arena_free(root->arena);
  memset(root, 0, sizeof *root);
}

const struct json_read_value *json_read_object_get(const struct json_read_value *object, const char *key)
{
  if (!object || object->type != JSON_OBJECT)
    return NULL;
  for (size_t i = 0; i < object->count; i++)   /* the first byte first: most names differ there */
    if (object->keys[i][0] == key[0] && !strcmp(object->keys[i], key))
      return &object->items[i];
  return NULL;
}
