/* collector/site.h: the site of the allocator call being made, read from the VM's private state (and, for compiled code, from the trace's map: trace_line.h). */
#ifndef LJLEAK_COLLECTOR_SITE_H
#define LJLEAK_COLLECTOR_SITE_H

#include <stddef.h>

#include "collector/attrib.h"

struct trace_line_state;

/* Fills site for an allocator call happening now in the VM of g (old_ptr
 * and nsize are the call's: a free gets no line from a trace exit, nor a
 * VM site). Reads only private state, never calls the Lua API, never
 * allocates through the VM (a trace's first allocation builds its map from
 * mmap'd memory); anything inconsistent gives INTERNAL. */
void coll_site_current(global_State *g, struct trace_line_state *tl, const void *old_ptr,
                       size_t nsize, struct attrib_site *site);

#endif
