/* format/utf8.c: UTF-8 one character at a time. */
#include "format/utf8.h"

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
