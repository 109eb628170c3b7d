/* format/whole_file.c: reads a small text file whole. */
#include "format/whole_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "container/array.h"

enum format_status whole_file_read(const char *path, enum input_file_how how, char **data, size_t *size,
                                   struct format_error *error)
{
  return whole_file_read_at(AT_FDCWD, path, path, how, data, size, error);
}

enum format_status whole_file_read_at(int dir_fd, const char *name, const char *shown, enum input_file_how how,
                                      char **data, size_t *size, struct format_error *error)
{
  const char *path = shown;
  *data = NULL;
  *size = 0;
  format_error_clear(error);
  int fd = input_file_open(dir_fd, name, shown, how, error);
  if (fd < 0)
    return error->status;
  FILE *file = fdopen(fd, "rb");
  if (!file) {
    error->system_error = errno ? errno : EIO;
    close(fd);
    return format_error_set(error, FORMAT_IO, "%s: cannot open: %s", path, strerror(error->system_error));
  }
  char *buffer = NULL;
  size_t used = 0, capacity = 0;
  for (;;) {
    /* Reads of 4 KiB at least. */
    if (used == capacity && array_reserve((void **)&buffer, &capacity, used + 4096, 1) != 0) {
      free(buffer);
      fclose(file);
      return format_error_set(error, FORMAT_NO_MEMORY, "%s: out of memory", path);
    }
    size_t n = fread(buffer + used, 1, capacity - used, file);
    used += n;
    if (n == 0)
      break;
  }
  if (ferror(file)) {
    error->system_error = errno ? errno : EIO;
    free(buffer);
    fclose(file);
    return format_error_set(error, FORMAT_IO, "%s: cannot read: %s", path, strerror(error->system_error));
  }
  fclose(file);
  buffer[used] = '\0';  /* the loop ended on a read of 0 bytes into room left */
  *data = buffer;
  *size = used;
  return FORMAT_OK;
}
