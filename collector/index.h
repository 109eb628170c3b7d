/* collector/index.h: appending whole lines to the capture's index; who writes which line is segments.h's and the sequencer's (boundary.h). */
#ifndef LJLEAK_COLLECTOR_INDEX_H
#define LJLEAK_COLLECTOR_INDEX_H

#include "collector/cname.h"

/* Appends one whole line (with its newline) to the index open at fd. 0, or -1 (fd < 0 too). */
int coll_index_append(int fd, const char *line);

/* Appends the c_function line of a C function named for the first time in the capture: its
 * library and what gave its name. 0 or -1. */
int coll_index_c_function(int fd, const struct cname_entry *entry);

#endif
