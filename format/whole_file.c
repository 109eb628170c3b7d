/* format/whole_file.c: reads a small text file whole. */
#include "format/whole_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static enum whole_file_status fail(enum whole_file_status status, const char *path,
                                   int system_error, char *message, size_t message_size)
{
  if (status == WHOLE_FILE_NO_MEMORY)
    snprintf(message, message_size, "%s: out of memory", path);
  else
    snprintf(message, message_size, "%s: cannot %s: %s", path,
             status == WHOLE_FILE_CANNOT_OPEN ? "open" : "read", strerror(system_error));
  return status;
}

enum whole_file_status whole_file_read(const char *path, char **data, size_t *size,
                                       int *system_error, char *message, size_t message_size)
{
  return whole_file_read_at(AT_FDCWD, path, path, data, size, system_error, message, message_size);
}

enum whole_file_status whole_file_read_at(int dir_fd, const char *name, const char *shown, char **data,
                                          size_t *size, int *system_error, char *message, size_t message_size)
{
  const char *path = shown;
  *data = NULL;
  *size = 0;
  *system_error = 0;
  int fd = openat(dir_fd, name, O_RDONLY | O_CLOEXEC | (dir_fd == AT_FDCWD ? 0 : O_NOFOLLOW));
  FILE *file = fd < 0 ? NULL : fdopen(fd, "rb");
  if (!file) {
    *system_error = errno ? errno : EIO;
    if (fd >= 0)
      close(fd);
    return fail(WHOLE_FILE_CANNOT_OPEN, path, *system_error, message, message_size);
  }
  char *buffer = NULL;
  size_t used = 0, capacity = 0;
  for (;;) {
    if (used == capacity) {
      capacity = capacity ? capacity * 2 : 4096;
      char *grown = realloc(buffer, capacity);
      if (!grown) {
        free(buffer);
        fclose(file);
        return fail(WHOLE_FILE_NO_MEMORY, path, 0, message, message_size);
      }
      buffer = grown;
    }
    size_t n = fread(buffer + used, 1, capacity - used, file);
    used += n;
    if (n == 0)
      break;
  }
  if (ferror(file)) {
    *system_error = errno ? errno : EIO;
    free(buffer);
    fclose(file);
    return fail(WHOLE_FILE_CANNOT_READ, path, *system_error, message, message_size);
  }
  fclose(file);
  buffer[used] = '\0';  /* the loop ended on a read of 0 bytes into room left */
  *data = buffer;
  *size = used;
  return WHOLE_FILE_OK;
}
