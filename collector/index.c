/* collector/index.c: appending whole lines to the capture's index (docs/index-format.md), formatted by format/capture_index.h (index.h). */
#include "collector/index.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "format/capture_index.h"

int coll_index_append(int fd, const char *line)
{
  if (fd < 0)
    return -1;
  size_t len = strlen(line);
  while (len > 0) {
    ssize_t n = write(fd, line, len);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return -1;
    line += n;
    len -= (size_t)n;
  }
  return 0;
}

int coll_index_c_function(int fd, const struct cname_entry *entry)
{
  char name[256], library[256];
  snprintf(name, sizeof name, "%.*s", (int)entry->name_length, entry->name);
  snprintf(library, sizeof library, "%.*s", (int)entry->library_length, entry->library);
  struct capture_index_c_function line = {name, library, coll_cname_origin_name(entry->origin), 0};
  char text[1024];
  if (!capture_index_write_c_function(text, sizeof text, &line))
    return -1;
  return coll_index_append(fd, text);
}
