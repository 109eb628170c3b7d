/* collector/capture.h: internal entry points of the capture engine shared by the module and the runner. */
#ifndef LJLEAK_COLLECTOR_CAPTURE_H
#define LJLEAK_COLLECTOR_CAPTURE_H

#include <stddef.h>

struct lua_State;

/* Checks the layout of L's VM (from a C context, not inside a Lua call is
 * fine too) and installs the pass-through allocator hook. 0 or -1 with err. */
int capture_attach(struct lua_State *L, char *err, size_t err_size);

#endif
