/* collector/frame.c: a main chunk's frame held over its return (the C API's
 * ljleak_collector_frame_*), so that the boundary at the return still sees
 * what the chunk's slots kept alive. */
#include <string.h>

#include "collector/state.h"
#include "lauxlib.h"

/* The frame of a main chunk about to be called at idx with narg
 * arguments: a vararg function's frame lies above a copy of its function
 * slot and arguments (and the frame link), and its own slots reach
 * framesize past its base. The bound errs high: a slot above the frame
 * holds only what the chunk or its callees left there, which were live
 * while it ran. */
void ljleak_collector_frame_of(lua_State *L, int idx, int narg, struct ljleak_collector_frame *frame)
{
  memset(frame, 0, sizeof *frame);
  TValue *fn = idx > 0 ? L->base + (idx - 1) : L->top + idx;
  if (idx == 0 || fn < L->base || fn >= L->top || !tvisfunc(fn) || !isluafunc(funcV(fn)) || narg < 0)
    return;
  frame->from = fn - tvref(L->stack);
  frame->slots = 2 * ((long)narg + 2 + LJ_FR2) + (long)funcproto(funcV(fn))->framesize + 1;
  /* A vararg frame (a main chunk's) lies above its function slot, the frame
   * link and its arguments, then its own copy of the function and link. */
  frame->base = frame->from + (long)narg + 2 * (1 + LJ_FR2);
  frame->proto = funcproto(funcV(fn));
}

/* The chunk has returned: its slots are above the top now, untouched until
 * the next atomic phase clears them (nothing has allocated since, so no GC
 * step has run). Raising the top over them makes them roots again. */
void ljleak_collector_frame_hold(lua_State *L, struct ljleak_collector_frame *frame)
{
  frame->saved_top = -1;
  if (frame->slots <= 0)
    return;
  long top = L->top - tvref(L->stack), end = frame->from + frame->slots;
  if (end <= top || !lua_checkstack(L, (int)(end - top) + LUA_MINSTACK))
    return;  /* (a stack grown by lua_checkstack keeps every slot, above the top too) */
  frame->saved_top = top;
  L->top = tvref(L->stack) + end;
  struct coll_capture *c = &coll_capture_state;
  if (c->active && c->g == G(L) && frame->proto && frame->base < end) {
    c->held_proto = frame->proto;
    c->held_base = frame->base;
    c->held_end = end;
  }
}

void ljleak_collector_frame_release(lua_State *L, struct ljleak_collector_frame *frame)
{
  if (frame->saved_top < 0)
    return;
  L->top = tvref(L->stack) + frame->saved_top;
  frame->saved_top = -1;
  coll_capture_state.held_proto = NULL;
}
