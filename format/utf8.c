/* format/utf8.c: UTF-8 one character at a time, and text escaped for a terminal. */
#include "format/utf8.h"

#include <string.h>

size_t utf8_decode(const char *s, size_t length, uint32_t *codepoint)
{
  const unsigned char *u = (const unsigned char *)s;
  size_t need;
  uint32_t cp, min;
  if (u[0] < 0x80) {
    *codepoint = u[0];
    return 1;
  }
  if ((u[0] & 0xe0) == 0xc0) {
    need = 2, cp = u[0] & 0x1f, min = 0x80;
  } else if ((u[0] & 0xf0) == 0xe0) {
    need = 3, cp = u[0] & 0x0f, min = 0x800;
  } else if ((u[0] & 0xf8) == 0xf0) {
    need = 4, cp = u[0] & 0x07, min = 0x10000;
  } else {
    *codepoint = 0xfffd;
    return 1;
  }
  if (length < need) {
    *codepoint = 0xfffd;
    return 1;
  }
  for (size_t i = 1; i < need; i++) {
    if ((u[i] & 0xc0) != 0x80) {
      *codepoint = 0xfffd;
      return 1;
    }
    cp = (cp << 6) | (u[i] & 0x3f);
  }
  if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) {
    *codepoint = 0xfffd;
    return 1;
  }
  *codepoint = cp;
  return need;
}

size_t utf8_encode(char *out, uint32_t cp)
{
  unsigned char *u = (unsigned char *)out;
  if (cp < 0x80) {
    u[0] = (unsigned char)cp;
    return 1;
  }
  if (cp < 0x800) {
    u[0] = (unsigned char)(0xc0 | cp >> 6);
    u[1] = (unsigned char)(0x80 | (cp & 0x3f));
    return 2;
  }
  if (cp < 0x10000) {
    u[0] = (unsigned char)(0xe0 | cp >> 12);
    u[1] = (unsigned char)(0x80 | (cp >> 6 & 0x3f));
    u[2] = (unsigned char)(0x80 | (cp & 0x3f));
    return 3;
  }
  u[0] = (unsigned char)(0xf0 | cp >> 18);
  u[1] = (unsigned char)(0x80 | (cp >> 12 & 0x3f));
  u[2] = (unsigned char)(0x80 | (cp >> 6 & 0x3f));
  u[3] = (unsigned char)(0x80 | (cp & 0x3f));
  return 4;
}

void utf8_put(FILE *out, uint32_t cp)
{
  if (cp < 0x80) {
    putc((int)cp, out);
    return;
  }
  char bytes[4];
  fwrite(bytes, 1, utf8_encode(bytes, cp), out);
}

int utf8_terminal_unsafe(uint32_t cp)
{
  return cp < 0x20 || (cp >= 0x7f && cp < 0xa0) || cp == 0x61c || cp == 0x200e || cp == 0x200f ||
         (cp >= 0x2028 && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

/* "\xHH" (digits < 0x100) or "\uHHHH", lowercase; returns its length. */
static size_t terminal_escape(char *out, char kind, uint32_t value)
{
  static const char hex[] = "0123456789abcdef";
  size_t digits = kind == 'x' ? 2 : 4, n = 0;
  out[n++] = '\\';
  out[n++] = kind;
  for (size_t d = digits; d-- > 0;)
    out[n++] = hex[value >> (4 * d) & 0xf];
  return n;
}

size_t utf8_terminal_char(char *out, const char *s, size_t length,
                          enum utf8_terminal_style style, size_t *used)
{
  uint32_t cp;
  size_t n = utf8_decode(s, length, &cp);
  *used = n;
  if (cp == 0xfffd && n == 1)   /* not well-formed: the byte itself (U+FFFD takes 3) */
    return terminal_escape(out, 'x', (unsigned char)s[0]);
  if (style == UTF8_TERMINAL_FIELD && (cp == '\\' || cp == '\t' || cp == '\n')) {
    out[0] = '\\';
    out[1] = cp == '\\' ? '\\' : cp == '\t' ? 't' : 'n';
    return 2;
  }
  if (utf8_terminal_unsafe(cp))
    return terminal_escape(out, cp < 0x80 ? 'x' : 'u', cp);
  memcpy(out, s, n);
  return n;
}

void utf8_put_terminal(FILE *out, const char *text, size_t length,
                       enum utf8_terminal_style style)
{
  char piece[UTF8_TERMINAL_CHAR_MAX];
  size_t used;
  for (size_t i = 0; i < length; i += used) {
    /* Runs of characters kept as they are go out in one write. */
    size_t plain = i;
    while (plain < length && (unsigned char)text[plain] >= 0x20 &&
           (unsigned char)text[plain] < 0x7f && (style != UTF8_TERMINAL_FIELD || text[plain] != '\\'))
      plain++;
    if (plain > i) {
      fwrite(text + i, 1, plain - i, out);
      used = plain - i;
      continue;
    }
    fwrite(piece, 1, utf8_terminal_char(piece, text + i, length - i, style, &used), out);
  }
}

char *utf8_terminal_text(char *buffer, size_t size, const char *text)
{
  if (!size)
    return buffer;
  size_t length = text ? strlen(text) : 0, written = 0, used;
  char piece[UTF8_TERMINAL_CHAR_MAX];
  for (size_t i = 0; i < length; i += used) {
    size_t n = utf8_terminal_char(piece, text + i, length - i, UTF8_TERMINAL_TEXT, &used);
    if (n >= size - written)
      break;
    memcpy(buffer + written, piece, n);
    written += n;
  }
  buffer[written] = '\0';
  return buffer;
}

size_t utf8_name_char(char *out, const char *s, size_t length, char separator, size_t *used)
{
  uint32_t cp;
  *used = utf8_decode(s, length, &cp);  /* a byte not well-formed decodes as U+FFFD */
  if (utf8_terminal_unsafe(cp) || (separator && cp == (unsigned char)separator))
    cp = '_';
  return utf8_encode(out, cp);
}

size_t utf8_name_text(char *buffer, size_t size, const char *text, size_t length, char separator)
{
  size_t needed = 0, written = 0, used;
  int cut = !size;
  char piece[UTF8_NAME_CHAR_MAX];
  for (size_t i = 0; i < length; i += used) {
    size_t n = utf8_name_char(piece, text + i, length - i, separator, &used);
    if (!cut && n < size - written) {
      memcpy(buffer + written, piece, n);
      written += n;
    } else {
      cut = 1;  /* nothing after the first character that does not fit */
    }
    needed += n;
  }
  if (size)
    buffer[written] = '\0';
  return needed;
}
