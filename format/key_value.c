/* format/key_value.c: the reading shared by the text files of KEY=VALUE lines: lines, fields, numbers, errors at a byte offset. */
#include "format/key_value.h"

#include <ctype.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void reader_start(struct key_value_reader *reader, char *text, size_t size, const char *name,
                         struct format_error *error)
{
  reader->text = text;
  reader->size = size;
  reader->next = 0;
  reader->name = name;
  reader->error = error;
}

int key_value_reader_copy(struct key_value_reader *reader, const char *data, size_t size,
                          const char *name, struct format_error *error)
{
  reader_start(reader, NULL, 0, name, error);
  char *text = size < SIZE_MAX ? malloc(size + 1) : NULL;
  if (!text)
    return key_value_no_memory(reader);
  if (size)
    memcpy(text, data, size);
  text[size] = '\0';
  reader->text = text;
  reader->size = size;
  return 0;
}

enum format_status key_value_reader_read_file(struct key_value_reader *reader, const char *path,
                                              struct format_error *error)
{
  return key_value_reader_read_at(reader, AT_FDCWD, path, path, error);
}

enum format_status key_value_reader_read_at(struct key_value_reader *reader, int dir_fd, const char *name,
                                            const char *shown, struct format_error *error)
{
  char *text;
  size_t size;
  /* A name in a directory's handle is one found there (a capture's index). */
  enum input_file_how how = dir_fd == AT_FDCWD ? INPUT_FILE_NAMED : INPUT_FILE_FOUND;
  enum format_status status = whole_file_read_at(dir_fd, name, shown, how, &text, &size, error);
  reader_start(reader, text, size, shown, error);
  return status;
}

void key_value_reader_in_place(struct key_value_reader *reader, char *text, size_t size,
                               const char *name, struct format_error *error)
{
  reader_start(reader, text, size, name, error);
}

int key_value_next_line(struct key_value_reader *reader, struct key_value_line *line)
{
  if (reader->next >= reader->size)
    return 0;
  line->offset = reader->next;
  line->start = reader->text + reader->next;
  char *newline = memchr(line->start, '\n', reader->size - reader->next);
  line->cut = newline == NULL;
  line->length = newline ? (size_t)(newline - line->start) : reader->size - reader->next;
  if (newline)
    *newline = '\0';
  reader->next += line->length + !line->cut;
  return 1;
}

int key_value_fail(struct key_value_reader *reader, size_t offset, const char *format, ...)
{
  va_list args;
  va_start(args, format);
  format_error_at_va(reader->error, FORMAT_BAD_INPUT, reader->name, offset, format, args);
  va_end(args);
  return -1;
}

int key_value_no_memory(struct key_value_reader *reader)
{
  reader->error->offset = 0;
  format_error_set(reader->error, FORMAT_NO_MEMORY, "%s: out of memory", reader->name);
  return -1;
}

int key_value_split(char *text, size_t length, size_t offset, struct key_value_field *field)
{
  char *equals = memchr(text, '=', length);
  if (!equals)
    return -1;
  *equals = '\0';
  field->key = text;
  field->key_length = (size_t)(equals - text);
  field->value = equals + 1;
  field->value_length = length - field->key_length - 1;
  field->offset = offset;
  return 0;
}

int key_value_parse_u64(const char *text, size_t length, uint64_t limit, uint64_t *out)
{
  uint64_t value = 0;
  if (!length)
    return -1;
  for (size_t i = 0; i < length; i++) {
    unsigned digit = (unsigned)(text[i] - '0');
    if (digit > 9 || value > (limit - digit) / 10)
      return -1;
    value = value * 10 + digit;
  }
  *out = value;
  return 0;
}

int key_value_parse_long(const char *text, size_t length, long *out)
{
  size_t negative = length && text[0] == '-';
  uint64_t magnitude;
  uint64_t limit = negative ? (uint64_t)LONG_MAX + 1 : (uint64_t)LONG_MAX;
  if (key_value_parse_u64(text + negative, length - negative, limit, &magnitude) != 0)
    return -1;
  *out = negative ? -(long)(magnitude - 1) - 1 : (long)magnitude;
  return 0;
}

int key_value_parse_decimal(char *text, size_t length, double *out)
{
  for (size_t i = 0; i < length; i++)
    if (text[i] == ',')
      text[i] = '.';
  char *end = text;
  double value = 0;
  if (length && !isspace((unsigned char)text[0]))
    value = strtod(text, &end);
  if (!length || end != text + length)
    return -1;
  *out = value;
  return 0;
}

int key_value_take(struct key_value_reader *reader, const char *context,
                   const struct key_value_key *keys, size_t count, void *record, unsigned *seen,
                   const struct key_value_field *field, const struct key_value_key **taken)
{
  const struct key_value_key *k = keys, *end = keys + count;
  while (k < end && !(strlen(k->key) == field->key_length &&
                      !memcmp(k->key, field->key, field->key_length)))
    k++;
  *taken = k < end ? k : NULL;
  if (k == end)
    return 0;   /* a key of a later version */
  if (*seen & k->bit)
    return key_value_fail(reader, field->offset, "%s%s given twice", context, field->key);
  *seen |= k->bit;
  if (memchr(field->value, '\0', field->value_length))
    return key_value_fail(reader, field->offset, "%s%s has a NUL byte", context, field->key);
  char *member = (char *)record + k->offset;
  const char *value = field->value;
  size_t length = field->value_length;
  switch (k->kind) {
  case KEY_VALUE_LONG:
    if (key_value_parse_long(value, length, (long *)(void *)member) != 0)
      return key_value_fail(reader, field->offset, "%s%s is not a whole number", context, field->key);
    break;
  case KEY_VALUE_U64:
    if (key_value_parse_u64(value, length, UINT64_MAX, (uint64_t *)(void *)member) != 0)
      return key_value_fail(reader, field->offset, "%s%s is not a whole number", context, field->key);
    break;
  case KEY_VALUE_DECIMAL:
    if (key_value_parse_decimal(field->value, length, (double *)(void *)member) != 0)
      return key_value_fail(reader, field->offset, "%s%s is not a number", context, field->key);
    break;
  case KEY_VALUE_FLAG:
    if (length != 1 || (value[0] != '0' && value[0] != '1'))
      return key_value_fail(reader, field->offset, "%s%s is not 0 or 1", context, field->key);
    *(int *)(void *)member = value[0] - '0';
    break;
  case KEY_VALUE_TEXT:
    *(const char **)(void *)member = value;
    break;
  }
  return 0;
}

int key_value_unescape(struct key_value_reader *reader, const char *context,
                       struct key_value_field *field)
{
  char *to = field->value;
  for (size_t i = 0; i < field->value_length; i++) {
    char c = field->value[i];
    if (c == '\\') {
      char next = i + 1 < field->value_length ? field->value[i + 1] : '\0';
      c = next == '\\' ? '\\' : next == 't' ? '\t' : next == 'n' ? '\n' : '\0';
      if (!c)
        return key_value_fail(reader, field->offset + field->key_length + 1 + i,
                              "%s%s has an unknown escape", context, field->key);
      i++;
    }
    *to++ = c;
  }
  *to = '\0';
  field->value_length = (size_t)(to - field->value);
  return 0;
}
