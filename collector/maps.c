/* collector/maps.c: a process's private writable mappings from /proc/PID/maps. */
#include "collector/maps.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int coll_maps_open(struct coll_maps *m, long pid)
{
  char path[64];
  if (pid > 0)
    snprintf(path, sizeof path, "/proc/%ld/maps", pid);
  else
    snprintf(path, sizeof path, "/proc/self/maps");
  m->used = m->start = 0;
  m->fd = open(path, O_RDONLY | O_CLOEXEC);
  return m->fd < 0 ? -1 : 0;
}

void coll_maps_close(struct coll_maps *m)
{
  if (m->fd >= 0)
    close(m->fd);
  m->fd = -1;
}

static int maps_line(struct coll_maps *m, char *line, size_t size)
{
  for (;;) {
    char *nl = memchr(m->buffer + m->start, '\n', m->used - m->start);
    if (nl) {
      size_t n = (size_t)(nl - (m->buffer + m->start));
      if (n >= size)
        n = size - 1;
      memcpy(line, m->buffer + m->start, n);
      line[n] = '\0';
      m->start = (size_t)(nl - m->buffer) + 1;
      return 1;
    }
    memmove(m->buffer, m->buffer + m->start, m->used - m->start);
    m->used -= m->start;
    m->start = 0;
    if (m->used == sizeof m->buffer)
      m->used = 0;   /* a line longer than the buffer: dropped */
    ssize_t n = read(m->fd, m->buffer + m->used, sizeof m->buffer - m->used);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return 0;
    m->used += (size_t)n;
  }
}

int coll_maps_next_heap(struct coll_maps *m, uintptr_t *from, uintptr_t *to)
{
  char line[512];
  while (maps_line(m, line, sizeof line)) {
    unsigned long long a, b;
    char perms[8];
    int name = 0;
    if (sscanf(line, "%llx-%llx %7s %*s %*s %*s %n", &a, &b, perms, &name) < 3)
      continue;
    if (strcmp(perms, "rw-p") != 0 || strstr(line + name, "[vvar") ||
        strstr(line + name, "[vsyscall"))
      continue;
    *from = (uintptr_t)a;
    *to = (uintptr_t)b;
    return 1;
  }
  return 0;
}
