/* collector/trace_record.h: following the JIT's recorder through LuaJIT's "record" event, into the logs of trace_line.h's state. */
#ifndef LJLEAK_COLLECTOR_TRACE_RECORD_H
#define LJLEAK_COLLECTOR_TRACE_RECORD_H

#include "collector/lj_private.h"

struct trace_line_state;

/* Follows L's recorder from now on: looks up the IR call targets and
 * attaches the "record" handler (jit.attach). Called where the Lua API may
 * be used (starting a capture, installing the signal). Without the jit
 * library nothing is attached and every trace keeps its trace site. */
void coll_trace_record_attach(struct trace_line_state *tl, lua_State *L);

#endif
