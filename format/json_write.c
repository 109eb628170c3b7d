/* format/json_write.c: writing JSON text: escaped strings, exact numbers, objects and arrays one member a line. */
#include "format/json_write.h"
#include "format/utf8.h"

#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void json_write_string(FILE *out, const char *s)
{
  if (!s) {
    fputs("null", out);
    return;
  }
  size_t length = strlen(s);
  putc('"', out);
  for (size_t i = 0; i < length;) {
    uint32_t cp;
    i += utf8_decode(s + i, length - i, &cp);
    switch (cp) {
    case '"': fputs("\\\"", out); break;
    case '\\': fputs("\\\\", out); break;
    case '\n': fputs("\\n", out); break;
    case '\r': fputs("\\r", out); break;
    case '\t': fputs("\\t", out); break;
    case '\b': fputs("\\b", out); break;
    case '\f': fputs("\\f", out); break;
    default:
      /* Control characters must be escaped; <, >, & and the JavaScript line
       * separators are too, so the text can sit inside a <script> block. */
      if (cp < 0x20 || cp == '<' || cp == '>' || cp == '&' || cp == 0x2028 || cp == 0x2029 ||
          cp == 0x7f)
        fprintf(out, "\\u%04" PRIx32, cp);
      else
        utf8_put(out, cp);
    }
  }
  putc('"', out);
}

void json_write_double(FILE *out, double value)
{
  if (isnan(value)) {
    fputs("null", out);
    return;
  }
  if (isinf(value)) {
    /* Valid JSON that every parser reads back as infinity. */
    fputs(value > 0 ? "1e999" : "-1e999", out);
    return;
  }
  char text[40];
  if (value == floor(value) && fabs(value) < 1e17) {
    fprintf(out, "%.0f", value);  /* whole numbers in full, not as 9.6e+03 */
    return;
  }
  for (int precision = 1; precision <= 17; precision++) {
    snprintf(text, sizeof text, "%.*g", precision, value);
    double back = strtod(text, NULL);
    if (memcmp(&back, &value, sizeof value) == 0)
      break;
  }
  fputs(text, out);
}

static void json_write_newline(struct json_writer *writer)
{
  putc('\n', writer->out);
  for (int i = 0; i < writer->depth; i++)
    fputs("  ", writer->out);
}

void json_write_open(struct json_writer *writer, char bracket)
{
  putc(bracket, writer->out);
  writer->depth++;
  writer->first = 1;
}

void json_write_open_line(struct json_writer *writer, char bracket)
{
  json_write_open(writer, bracket);
  writer->one_line++;
}

void json_write_open_record(struct json_writer *writer)
{
  json_write_item(writer);
  json_write_open_line(writer, '{');
}

void json_write_close(struct json_writer *writer, char bracket)
{
  writer->depth--;
  if (writer->one_line)
    writer->one_line--;  /* only one-line ones open inside one: this is one */
  else if (!writer->first)
    json_write_newline(writer);
  putc(bracket, writer->out);
  writer->first = 0;
}

void json_write_item(struct json_writer *writer)
{
  if (!writer->first)
    fputs(writer->one_line ? ", " : ",", writer->out);
  writer->first = 0;
  if (!writer->one_line)
    json_write_newline(writer);
}

void json_write_key(struct json_writer *writer, const char *key)
{
  json_write_item(writer);
  fprintf(writer->out, "\"%s\": ", key);
}

void json_write_member_string(struct json_writer *writer, const char *key, const char *value)
{
  json_write_key(writer, key);
  json_write_string(writer->out, value);
}

void json_write_member_uint(struct json_writer *writer, const char *key, uint64_t value)
{
  json_write_key(writer, key);
  fprintf(writer->out, "%" PRIu64, value);
}

void json_write_member_int(struct json_writer *writer, const char *key, int64_t value)
{
  json_write_key(writer, key);
  fprintf(writer->out, "%" PRId64, value);
}

void json_write_member_double(struct json_writer *writer, const char *key, double value)
{
  json_write_key(writer, key);
  json_write_double(writer->out, value);
}

void json_write_member_bool(struct json_writer *writer, const char *key, int value)
{
  json_write_key(writer, key);
  fputs(value ? "true" : "false", writer->out);
}
