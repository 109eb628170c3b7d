/* collector/maps.h: a process's mappings, read from /proc/PID/maps a line at a time, and which of them are private memory the process reads and writes (where a VM's blocks live). */
#ifndef LJLEAK_COLLECTOR_MAPS_H
#define LJLEAK_COLLECTOR_MAPS_H

#include <stddef.h>
#include <stdint.h>

/* No C library buffer: the attach's stop may be anywhere a process was in a system call. */
struct coll_maps {
  int fd;
  char buffer[4096];
  size_t used, start;
};

/* Opens /proc/PID/maps (PID 0: /proc/self/maps). 0, or -1 with errno. */
int coll_maps_open(struct coll_maps *m, long pid);
void coll_maps_close(struct coll_maps *m);

/* The next private read-write mapping (not the kernel's [vvar] or [vsyscall]) into from, to:
 * 1, or 0 at the end. Lines longer than the buffer are skipped. */
int coll_maps_next_heap(struct coll_maps *m, uintptr_t *from, uintptr_t *to);

#endif
