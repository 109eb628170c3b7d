/* collector/layout.h: checks that the private structures match the running LuaJIT. */
#ifndef LJLEAK_COLLECTOR_LAYOUT_H
#define LJLEAK_COLLECTOR_LAYOUT_H

#include <stddef.h>

struct lua_State;

/* The LuaJIT the collector was built for (static strings): flavour is
 * "debian" (Debian's luajit), "openresty" (OpenResty's luajit2) or "unknown"
 * (a LUAJIT_SRC tree of neither); package and package_version name its
 * library package ("" when built from such a tree); version is LUAJIT_VERSION. */
struct layout_luajit {
  const char *flavour;
  const char *package;
  const char *package_version;
  const char *version;
};
const struct layout_luajit *coll_layout_built_for(void);

/* Runs every layout check on L's VM from inside a C function called through
 * lua_pcall (so vmstate must read "C"). Fills version (jit.version) and
 * returns 0, or -1 with the first failed check in err, which names the
 * LuaJIT built for, the running one and the make command that builds for it. Not for use inside
 * the allocator hook. Setting LJLEAK_TEST_BREAK_LAYOUT=1 in the environment
 * makes the version check expect a wrong version (to test the refusal). */
int coll_layout_verify(struct lua_State *L, char *version, size_t version_size,
                       char *err, size_t err_size);

#endif
