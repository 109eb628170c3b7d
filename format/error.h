/* format/error.h: the one error type of every stage: a status and a message that names the input (and its byte, for bad input). */
#ifndef LJLEAK_FORMAT_ERROR_H
#define LJLEAK_FORMAT_ERROR_H

#include <stdarg.h>
#include <stdint.h>

/* What a reader, a writer or an analysis ended with. One meaning per value,
 * whichever stage returns it; the front end turns it into an exit code
 * (FORMAT_NO_MEMORY: runtime, FORMAT_USAGE: usage, the rest: input). */
enum format_status {
  FORMAT_OK = 0,
  FORMAT_END,           /* a stream's last record was read: it is complete (memprof, stacks) */
  FORMAT_CUT,           /* the input ends early; every complete record before offset was kept:
                         * a warning, or an error where the caller asked for complete input */
  FORMAT_BAD_INPUT,     /* not what it should be at offset: corrupt, malformed, or another
                         * capture's or another kind's */
  FORMAT_UNSUPPORTED,   /* a version this reader does not know (the message names it) */
  FORMAT_IO,            /* cannot be opened, listed or read (system_error), or gzip is damaged */
  FORMAT_NO_MEMORY,
  FORMAT_UNWRITABLE,    /* a writer: a value would break its format, or it does not fit */
  FORMAT_USAGE          /* the caller's options are wrong (diff's --from/--to out of range) */
};

/* Room for a message: two paths and what is wrong. */
#define FORMAT_ERROR_MESSAGE_SIZE 768

struct format_error {
  enum format_status status;
  uint64_t offset;      /* where the input is wrong or cut (0 when no byte is named) */
  int system_error;     /* FORMAT_IO: the errno (0 when none) */
  char message[FORMAT_ERROR_MESSAGE_SIZE];   /* "FILE: byte OFFSET: what is wrong",
                                              * "FILE: cannot open: ...", "FILE: out of memory" */
};

/* The input is at fault: FORMAT_CUT, FORMAT_BAD_INPUT, FORMAT_UNSUPPORTED or FORMAT_IO
 * (not the caller, not the memory). */
int format_status_is_input(enum format_status status);

/* FORMAT_OK, no offset, no errno, message "". */
void format_error_clear(struct format_error *error);

/* Sets status and the formatted message (cut to fit, never past its end; an
 * argument may be error->message itself) and returns status. offset and
 * system_error are left as they are. */
enum format_status format_error_set(struct format_error *error, enum format_status status,
                                    const char *format, ...) __attribute__((format(printf, 3, 4)));
enum format_status format_error_set_va(struct format_error *error, enum format_status status,
                                       const char *format, va_list args)
  __attribute__((format(printf, 3, 0)));

/* Input wrong at a byte: sets status and offset, message "NAME: byte OFFSET: " and the text. */
enum format_status format_error_at(struct format_error *error, enum format_status status,
                                   const char *name, uint64_t offset, const char *format, ...)
  __attribute__((format(printf, 5, 6)));
enum format_status format_error_at_va(struct format_error *error, enum format_status status,
                                      const char *name, uint64_t offset, const char *format,
                                      va_list args) __attribute__((format(printf, 5, 0)));

#endif
