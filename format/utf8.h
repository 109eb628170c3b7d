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

/* ---- Text for a terminal ----------------------------------------------------
 * Text from a capture or a result (site, chunk and file names, labels, C
 * function names, messages that quote them) may come from a hostile process;
 * whatever shows it on a terminal escapes what could drive the terminal or
 * disguise the text, keeping every other character as it is (é, 中, emoji):
 *
 *   - a byte that is not part of well-formed UTF-8 (a stray continuation byte,
 *     a cut or overlong sequence, a surrogate, past U+10FFFF, 0xc0, 0xc1,
 *     0xf5-0xff), which an 8-bit terminal may take for a C1 control (0x9b is
 *     CSI): \xHH, one escape per byte;
 *   - the C0 controls U+0000-U+001F and DEL: \xHH ("\x1b", "\x0a");
 *   - the C1 controls U+0080-U+009F, the bidi controls U+061C, U+200E, U+200F,
 *     U+202A-U+202E, U+2066-U+2069, and U+2028 and U+2029: \uHHHH ("\u009b",
 *     "\u202e").
 *
 * Hex digits are lowercase and the width is fixed (\x and two, \u and four),
 * so an escape never runs into the text after it, and a raw byte (\x80 and
 * up) is told from the code point (\u0080 and up). Escaped text is printable
 * and valid UTF-8, so escaping it again changes nothing. A backslash in the
 * text is kept as it is, except in UTF8_TERMINAL_FIELD. */
enum utf8_terminal_style {
  UTF8_TERMINAL_TEXT,         /* every control escaped, tab and newline too */
  UTF8_TERMINAL_FIELD         /* one field of a line read back by scripts (ljleak info,
                                 ljleak snapshot): backslash, tab and newline as \\, \t
                                 and \n (the index's escapes), the rest as TEXT */
};

/* The most bytes one character (or one invalid byte) takes once escaped: "\u202e". */
#define UTF8_TERMINAL_CHAR_MAX 6
/* Room for any text of n bytes escaped, and its NUL (a byte takes at most 4: "\x9b"). */
#define UTF8_TERMINAL_SIZE(n) (4 * (n) + 1)

/* Whether a terminal must not be shown codepoint raw (the list above). */
int utf8_terminal_unsafe(uint32_t codepoint);
/* One character of s (at most length bytes, length >= 1) as a terminal is
 * shown it, into out (UTF8_TERMINAL_CHAR_MAX bytes of room, not terminated):
 * itself or its escape. Returns the bytes written; *used is the bytes of s
 * it took (>= 1). */
size_t utf8_terminal_char(char *out, const char *s, size_t length,
                          enum utf8_terminal_style style, size_t *used);
/* Writes length bytes of text to out as a terminal is shown them. */
void utf8_put_terminal(FILE *out, const char *text, size_t length,
                       enum utf8_terminal_style style);
/* text (NUL-terminated; NULL as "") escaped as UTF8_TERMINAL_TEXT into
 * buffer, NUL-terminated, cut before the first character whose escape does
 * not fit (UTF8_TERMINAL_SIZE(strlen(text)) always fits). Returns buffer, for
 * a message printed with "%s". */
char *utf8_terminal_text(char *buffer, size_t size, const char *text);

/* ---- Text as a name ---------------------------------------------------------
 * Where a name goes that has no escapes of its own (a frame's label in a
 * stack's name and in folded stacks, a string of a pprof profile): a byte
 * that is not part of well-formed UTF-8 becomes U+FFFD, as the JSON writer
 * makes it; a character a terminal must not be shown raw
 * (utf8_terminal_unsafe), and separator when it is not 0, become '_'. The
 * result is printable, valid UTF-8, and cleaning it again changes nothing. */

/* The most bytes one character takes once cleaned. */
#define UTF8_NAME_CHAR_MAX 4
/* One character of s (at most length bytes, length >= 1) as a name shows it,
 * into out (UTF8_NAME_CHAR_MAX bytes of room, not terminated). Returns the
 * bytes written; *used is the bytes of s it took (>= 1). */
size_t utf8_name_char(char *out, const char *s, size_t length, char separator, size_t *used);
/* length bytes of text as a name into buffer (NULL when size is 0),
 * NUL-terminated and cut before the first character that does not fit.
 * Returns the length the whole name needs, without its NUL. */
size_t utf8_name_text(char *buffer, size_t size, const char *text, size_t length, char separator);

#endif
