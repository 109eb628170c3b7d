/* format/input_file.h: opens a file to read so that what another user put at its name cannot hold or steer the reader (docs/security.md, "Reading another user's capture"). */
#ifndef LJLEAK_FORMAT_INPUT_FILE_H
#define LJLEAK_FORMAT_INPUT_FILE_H

#include "format/error.h"

/* Whose name a file is. */
enum input_file_how {
  INPUT_FILE_NAMED,       /* a name the user gave: a link is followed, and a FIFO is read as a
                           * stream (ljleak diff <(ssh host cat seg-0001.memprof)) */
  INPUT_FILE_FOUND        /* a name ljleak found in a capture directory, or made from another
                           * (a segment's sidecar): the directory's owner chose what is there,
                           * so a link at its last step is refused, a FIFO too, and a file
                           * with a hole (the collector writes none) */
};

/* Opens name in the directory of the handle dir_fd (AT_FDCWD: the working directory) to read:
 * close-on-exec, never the caller's controlling terminal. Its kind is known before it is opened
 * for reading (an O_PATH handle, reopened through /proc), so a device or a socket is refused
 * without being opened, whatever the name, and a refused FIFO is not waited on. shown is what
 * messages call it (its path). The descriptor, or -1 with error set: FORMAT_IO, "SHOWN: cannot
 * open: ..." (error->system_error the errno), "SHOWN: not a regular file (a FIFO): refused" or
 * "SHOWN: a sparse file (a hole at byte N): refused (ljleak writes none)". */
int input_file_open(int dir_fd, const char *name, const char *shown, enum input_file_how how,
                    struct format_error *error);

#endif
