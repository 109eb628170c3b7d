/* format/message.h: how the codecs name a bad byte of an input in their error messages. */
#ifndef LJLEAK_FORMAT_MESSAGE_H
#define LJLEAK_FORMAT_MESSAGE_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

/* Writes "NAME: byte OFFSET: " and the formatted text into message. */
void format_message_at(char *message, size_t size, const char *name, uint64_t offset,
                       const char *format, va_list args) __attribute__((format(printf, 5, 0)));

#endif
