/* format/error.c: setting the one error type's status and message. */
#include "format/error.h"

#include <stdio.h>
#include <string.h>

int format_status_is_input(enum format_status status)
{
  return status == FORMAT_CUT || status == FORMAT_BAD_INPUT || status == FORMAT_UNSUPPORTED ||
         status == FORMAT_IO;
}

void format_error_clear(struct format_error *error)
{
  error->status = FORMAT_OK;
  error->offset = 0;
  error->system_error = 0;
  error->message[0] = '\0';
}

/* The message is built aside, so that error->message may be one of its arguments. */
static void message_put(struct format_error *error, const char *prefix, const char *format,
                        va_list args) __attribute__((format(printf, 3, 0)));
static void message_put(struct format_error *error, const char *prefix, const char *format,
                        va_list args)
{
  char text[FORMAT_ERROR_MESSAGE_SIZE];
  int n = snprintf(text, sizeof text, "%s", prefix);
  if (n >= 0 && (size_t)n < sizeof text)
    vsnprintf(text + n, sizeof text - (size_t)n, format, args);
  memcpy(error->message, text, strlen(text) + 1);
}

enum format_status format_error_set_va(struct format_error *error, enum format_status status,
                                       const char *format, va_list args)
{
  message_put(error, "", format, args);
  return error->status = status;
}

enum format_status format_error_set(struct format_error *error, enum format_status status,
                                    const char *format, ...)
{
  va_list args;
  va_start(args, format);
  format_error_set_va(error, status, format, args);
  va_end(args);
  return status;
}

enum format_status format_error_at_va(struct format_error *error, enum format_status status,
                                      const char *name, uint64_t offset, const char *format,
                                      va_list args)
{
  char prefix[FORMAT_ERROR_MESSAGE_SIZE];
  snprintf(prefix, sizeof prefix, "%s: byte %llu: ", name, (unsigned long long)offset);
  message_put(error, prefix, format, args);
  error->offset = offset;
  return error->status = status;
}

enum format_status format_error_at(struct format_error *error, enum format_status status,
                                   const char *name, uint64_t offset, const char *format, ...)
{
  va_list args;
  va_start(args, format);
  format_error_at_va(error, status, name, offset, format, args);
  va_end(args);
  return status;
}
