/* format/utf8.h: UTF-8 one character at a time, for the writers that escape text (JSON, HTML, XML, Markdown, the terminal). */
#ifndef LJLEAK_FORMAT_UTF8_H
#define LJLEAK_FORMAT_UTF8_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Decodes one UTF-8 character of s (at most length bytes, length >= 1). An
 * invalid or cut sequence decodes as U+FFFD over one byte. Returns the bytes
 * used (>= 1). */
size_t utf8_decode(const char *s, size_t length, uint32_t *codepoint);
/* Encodes codepoint (at most U+10FFFF) into out (4 bytes of room); returns
 * the bytes written. */
size_t utf8_encode(char *out, uint32_t codepoint);
/* Writes codepoint as UTF-8 to out. */
void utf8_put(FILE *out, uint32_t codepoint);

#endif
