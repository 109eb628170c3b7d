/* format/whole_file.h: reads a small text file whole (the capture index, a control file), for its parser. */
#ifndef LJLEAK_FORMAT_WHOLE_FILE_H
#define LJLEAK_FORMAT_WHOLE_FILE_H

#include <stddef.h>

#include "format/error.h"

/* Reads path whole into *data (malloc'd, the caller frees it; NULL on
 * failure) and *size, with a NUL after the data. FORMAT_OK, or FORMAT_IO
 * ("PATH: cannot open: ...", "PATH: cannot read: ...", error->system_error the
 * errno) or FORMAT_NO_MEMORY ("PATH: out of memory"). */
enum format_status whole_file_read(const char *path, char **data, size_t *size, struct format_error *error);

/* whole_file_read of name in the directory of the handle dir_fd (AT_FDCWD: the working
 * directory), not following a link at its last step when dir_fd is a handle; shown is what
 * messages call it (its path). */
enum format_status whole_file_read_at(int dir_fd, const char *name, const char *shown, char **data,
                                      size_t *size, struct format_error *error);

#endif
