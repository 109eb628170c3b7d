/* collector/index.h: appending whole lines to the capture's index; who writes which line is segments.h's and the sequencer's (boundary.h). */
#ifndef LJLEAK_COLLECTOR_INDEX_H
#define LJLEAK_COLLECTOR_INDEX_H

#include <stddef.h>
#include <stdint.h>

#include "collector/cname.h"

/* A boundary line comes at the end of every GC cycle, thousands a second on a small heap: one
 * write each cost a sampled capture a share of its budget. Boundary lines are held, and go out
 * with the next other line, a full buffer, the stream's own flush (boundary.c's timers), the
 * stop, or a boundary COLL_INDEX_HOLD_NS after the index was last written: a process killed
 * loses no more of them than of its stream. */
#define COLL_INDEX_BUFFER 8192
#define COLL_INDEX_HOLD_NS 100000000ull

struct coll_index {
  int fd;                       /* -1: no index open */
  size_t held;                  /* bytes of held lines in buf */
  uint64_t written_ns;          /* when the index was last written (coll_now_mono_ns) */
  char buf[COLL_INDEX_BUFFER];
};

/* The index open at fd (taken: closed by coll_index_close or coll_index_drop). */
void coll_index_open(struct coll_index *x, int fd);

/* Appends one whole line (with its newline), after the lines held: written now. 0, or -1 (no
 * index open too). */
int coll_index_append(struct coll_index *x, const char *line);

/* Appends a boundary line, held (see above); now_ns: coll_now_mono_ns(). 0, or -1 when a
 * write failed. */
int coll_index_hold(struct coll_index *x, const char *line, uint64_t now_ns);

/* Writes the lines held. 0, or -1. */
int coll_index_flush(struct coll_index *x);

/* Writes the lines held and closes the index. */
void coll_index_close(struct coll_index *x);

/* Closes the index without writing (a child of fork() shares its parent's). */
void coll_index_drop(struct coll_index *x);

/* Appends the c_function line of a C function named for the first time in the capture: its
 * library and what gave its name. 0 or -1. */
int coll_index_c_function(struct coll_index *x, const struct cname_entry *entry);

#endif
