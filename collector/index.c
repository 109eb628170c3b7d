/* collector/index.c: appending whole lines to the capture's index (docs/index-format.md), formatted by format/capture_index.h (index.h). */
#include "collector/index.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "collector/now.h"
#include "format/capture_index.h"

static int write_all(int fd, const char *p, size_t len)
{
  while (len > 0) {
    ssize_t n = write(fd, p, len);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return -1;
    p += n;
    len -= (size_t)n;
  }
  return 0;
}

void coll_index_open(struct coll_index *x, int fd)
{
  x->fd = fd;
  x->held = 0;
  x->written_ns = coll_now_mono_ns();
}

int coll_index_flush(struct coll_index *x)
{
  if (x->fd < 0)
    return -1;
  if (!x->held)
    return 0;
  size_t held = x->held;
  x->held = 0;  /* a line that failed is not written twice */
  x->written_ns = coll_now_mono_ns();
  return write_all(x->fd, x->buf, held);
}

int coll_index_append(struct coll_index *x, const char *line)
{
  if (coll_index_flush(x) != 0)
    return -1;
  return write_all(x->fd, line, strlen(line));
}

int coll_index_hold(struct coll_index *x, const char *line, uint64_t now_ns)
{
  if (x->fd < 0)
    return -1;
  size_t len = strlen(line);
  if (x->held + len > sizeof x->buf && coll_index_flush(x) != 0)
    return -1;
  if (len > sizeof x->buf)
    return write_all(x->fd, line, len);
  memcpy(x->buf + x->held, line, len);
  x->held += len;
  if (now_ns - x->written_ns >= COLL_INDEX_HOLD_NS)
    return coll_index_flush(x);
  return 0;
}

void coll_index_close(struct coll_index *x)
{
  if (x->fd < 0)
    return;
  coll_index_flush(x);
  close(x->fd);
  x->fd = -1;
}

void coll_index_drop(struct coll_index *x)
{
  if (x->fd >= 0)
    close(x->fd);
  x->fd = -1;
  x->held = 0;
}

int coll_index_c_function(struct coll_index *x, const struct cname_entry *entry)
{
  char name[256], library[256];
  snprintf(name, sizeof name, "%.*s", (int)entry->name_length, entry->name);
  snprintf(library, sizeof library, "%.*s", (int)entry->library_length, entry->library);
  struct capture_index_c_function line = {name, library, coll_cname_origin_name(entry->origin), 0};
  char text[1024];
  if (!capture_index_write_c_function(text, sizeof text, &line))
    return -1;
  return coll_index_append(x, text);
}
