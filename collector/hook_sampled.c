/* collector/hook_sampled.c: the sampled capture's hook: its fast tier, the filter, the countdown and switching sampling on and off. */
#include <math.h>
#include <string.h>

#include "collector/capture.h"
#include "collector/hook.h"
#include "collector/stub.h"

/* Sampling filter: a counter per address bucket, so the free of a block
 * that was not sampled (nearly all of them) costs one byte load. Blocks 1
 * MiB apart share a bucket; a shared bucket only sends a free to the slow
 * path, which looks the block up. Static, so that coll_hook_sampled can always
 * read it; saturated whenever sampling is off (coll_hook_sampled_set). */
static uint8_t hook_filter[HOOK_FILTER_SIZE] __attribute__((aligned(64)));

static uint64_t next_random(struct coll_capture *c)
{
  /* xorshift64* */
  c->rng ^= c->rng >> 12;
  c->rng ^= c->rng << 25;
  c->rng ^= c->rng >> 27;
  return c->rng * 0x2545f4914f6cdd1dull;
}

/* Bytes until the next sample: exponential with mean opt.sample. */
int64_t coll_hook_sampled_gap(struct coll_capture *c)
{
  double u = ((double)(next_random(c) >> 11) + 1.0) / 9007199254740992.0;
  double gap = -log(u) * (double)c->opt.sample;
  if (gap < 1)
    gap = 1;
  if (gap > 1e15)
    gap = 1e15;
  return (int64_t)gap;
}

int coll_hook_sampled_take(struct coll_capture *c, size_t size)
{
  c->countdown -= (int64_t)size;
  if (c->countdown > 0)
    return 0;
  c->countdown = coll_hook_sampled_gap(c);
  return 1;
}

static void filter_add(const void *p)
{
  uint8_t *f = &hook_filter[coll_stub_filter_slot(p)];
  if (*f < 255)
    (*f)++;
}

static void filter_remove(const void *p)
{
  uint8_t *f = &hook_filter[coll_stub_filter_slot(p)];
  if (*f != 0 && *f != 255)
    (*f)--;
}

void coll_hook_sampled_add(struct coll_capture *c, const void *p, size_t size)
{
  if (coll_addr_map_put(&c->sampled, (uint64_t)(uintptr_t)p, size) == 0)
    filter_add(p);
}

int coll_hook_sampled_remove(struct coll_capture *c, const void *p)
{
  if (!hook_filter[coll_stub_filter_slot(p)] ||
      !coll_addr_map_remove(&c->sampled, (uint64_t)(uintptr_t)p))
    return 0;
  filter_remove(p);
  return 1;
}

/* The hook the VM calls while sampling: the stub, unless the options ask
 * for the C hook or no stub can be made. */
static lua_Alloc sampled_entry(struct coll_capture *c)
{
  if (!c->opt.c_hook) {
    struct stub_spec spec = {
      .target = c->orig_allocf,
      .slow = coll_hook_sampled,
      .filter = hook_filter,
      .base = c,
      .countdown_off = offsetof(struct coll_capture, countdown),
      .allocated_off = offsetof(struct coll_capture, allocated),
      .fast_phase_off = offsetof(struct coll_capture, fast_phase),
      .g_off = offsetof(struct coll_capture, g),
      .phase_off = offsetof(global_State, gc.currentwhite),
    };
    lua_Alloc f = coll_stub_get(&spec);
    if (f)
      return f;
  }
  return coll_hook_sampled;
}

/* Turns sampling on or off. While sampling, the VM calls the stub or
 * coll_hook_sampled directly, so that the fast tier does not test the mode; if
 * someone wrapped the allocator since the hook went in, coll_hook_main stays
 * and passes the calls on to coll_hook_sampled. Such a wrapper may go on
 * calling the stub or coll_hook_sampled after sampling is off: then the filter
 * is saturated and the countdown at zero, so that every call reaches
 * coll_hook_general. */
void coll_hook_sampled_set(struct coll_capture *c, int on)
{
  if (on) {
    memset(hook_filter, 0, sizeof hook_filter);
    /* Saturated, never counted down: lua_close's free of the GG_State always
     * reaches coll_hook_general, so the fast tier need not look for it. */
    hook_filter[coll_stub_filter_slot(c->gg)] = 255;
    c->countdown = coll_hook_sampled_gap(c);
  } else if (c->sampling) {
    memset(hook_filter, 255, sizeof hook_filter);
    c->countdown = 0;
  }
  c->sampling = on;
  c->direct_hook = 0;
  void *ud;
  if (c->hooked && coll_capture_hook_ours(lua_getallocf(mainthread(c->g), &ud))) {
    lua_Alloc f = on ? sampled_entry(c) : coll_hook_main;
    c->direct_hook = coll_stub_owns(f);
    lua_setallocf(mainthread(c->g), f, c->orig_ud);
  }
}

/* The fast tier (hook.h) in C, where there is no stub, and the stub's slow
 * path: the stub does what coll_stub_free_passes and coll_stub_alloc_passes do, so
 * its calls come here only
 * when the answer was no, and are decided again. The common calls leave
 * with a few loads and no frame of their own, tail-calling the allocator:
 * a free of a block the filter says was not sampled, and an allocation, or
 * a reallocation of such a block, that does not end the countdown (counted
 * first, so that a failed allocation, which raises a memory error in the
 * VM, counts too). Only allocations compare the GC phase: the GC steps at
 * allocations, so a new phase, or a signal's mark, is seen at the next
 * one. Everything else, with the timers, goes to coll_hook_general. */
void *coll_hook_sampled(void *ud, void *ptr, size_t osize, size_t nsize)
{
  struct coll_capture *c = &coll_capture_state;
  if (STUB_PASSES(hook_filter, &c->countdown, &c->allocated, coll_capture_gc_phase(c->g),
                  coll_capture_fast_phase(c), ptr, nsize))
    return c->orig_allocf(ud, ptr, osize, nsize);
  return coll_hook_general(ud, ptr, osize, nsize);
}
