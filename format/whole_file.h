/* format/whole_file.h: reads a small text file whole (the capture index, a control file), for its parser. */
#ifndef LJLEAK_FORMAT_WHOLE_FILE_H
#define LJLEAK_FORMAT_WHOLE_FILE_H

#include <stddef.h>

enum whole_file_status {
  WHOLE_FILE_OK = 0,
  WHOLE_FILE_CANNOT_OPEN,  /* *system_error says why */
  WHOLE_FILE_CANNOT_READ,
  WHOLE_FILE_NO_MEMORY,
};

/* Reads path whole into *data (malloc'd, the caller frees it; NULL on
 * failure) and *size, with a NUL after the data. On failure, message says why, naming
 * path ("PATH: cannot open: ...", "PATH: cannot read: ...", "PATH: out of
 * memory"), and *system_error holds errno (0 for no memory). */
enum whole_file_status whole_file_read(const char *path, char **data, size_t *size,
                                       int *system_error, char *message, size_t message_size);

/* whole_file_read of name in the directory of the handle dir_fd (AT_FDCWD: the working
 * directory), not following a link at its last step when dir_fd is a handle; shown is what
 * messages call it (its path). */
enum whole_file_status whole_file_read_at(int dir_fd, const char *name, const char *shown, char **data,
                                          size_t *size, int *system_error, char *message, size_t message_size);

#endif
