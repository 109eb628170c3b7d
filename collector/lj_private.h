/* collector/lj_private.h: the private LuaJIT headers the collector reads VM state through. */
#ifndef LJLEAK_COLLECTOR_LJ_PRIVATE_H
#define LJLEAK_COLLECTOR_LJ_PRIVATE_H

/* These come from the source tree of the installed LuaJIT (see collector/build.mk and mk/luajit.mk),
 * included with -isystem so their style does not trip our warnings. Only
 * headers that need no generated files are used. */
#include "lj_obj.h"
#include "lj_frame.h"
#include "lj_bc.h"
#include "lj_gc.h"
#if LJ_HASJIT
#include "lj_jit.h"
#endif
#include "lj_dispatch.h"
#include "luajit.h"

#endif
