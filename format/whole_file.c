/* format/whole_file.c: reads a small text file whole. */
#include "format/whole_file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

enum whole_file_status whole_file_read(const char *path, char **data, size_t *size,
                                       int *system_error)
{
  *data = NULL;
  *size = 0;
  *system_error = 0;
  FILE *file = fopen(path, "rb");
  if (!file) {
    *system_error = errno ? errno : EIO;
    return WHOLE_FILE_CANNOT_OPEN;
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
        return WHOLE_FILE_NO_MEMORY;
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
    return WHOLE_FILE_CANNOT_READ;
  }
  fclose(file);
  *data = buffer;
  *size = used;
  return WHOLE_FILE_OK;
}
