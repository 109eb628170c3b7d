/* format/whole_file.h: reads a small text file whole (the capture index, a control file), for its parser. */
#ifndef LJLEAK_FORMAT_WHOLE_FILE_H
#define LJLEAK_FORMAT_WHOLE_FILE_H

#include <stddef.h>

#include "format/error.h"
#include "format/input_file.h"

/* Reads path whole into *data (malloc'd, the caller frees it; NULL on
 * failure) and *size, with a NUL after the data; how says whose name it is
 * (format/input_file.h: a FOUND one must be a regular file, not a link).
 * FORMAT_OK, or FORMAT_IO ("PATH: cannot open: ...", "PATH: not a regular
 * file (...)", "PATH: cannot read: ...", error->system_error the errno) or
 * FORMAT_NO_MEMORY ("PATH: out of memory"). */
enum format_status whole_file_read(const char *path, enum input_file_how how, char **data, size_t *size,
                                   struct format_error *error);

/* whole_file_read of name in the directory of the handle dir_fd (AT_FDCWD: the working
 * directory); shown is what messages call it (its path). */
enum format_status whole_file_read_at(int dir_fd, const char *name, const char *shown, enum input_file_how how,
                                      char **data, size_t *size, struct format_error *error);

#endif
