/* format/message.c: error messages that name a byte of an input. */
#include "format/message.h"

#include <stdio.h>

void format_message_at(char *message, size_t size, const char *name, uint64_t offset,
                       const char *format, va_list args)
{
  int n = snprintf(message, size, "%s: byte %llu: ", name, (unsigned long long)offset);
  if (n >= 0 && (size_t)n < size)
    vsnprintf(message + n, size - (size_t)n, format, args);
}
