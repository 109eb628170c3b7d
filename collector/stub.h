/* collector/stub.h: the sampling hook's fast path as machine code made at
 * run time, placed near the allocator it wraps so that it reaches it by a
 * direct jump.
 *
 * A hook written in C reaches the allocator it wraps through a pointer: one
 * more indirect jump on every allocator call, which alone costs about as
 * much as the rest of the sampling fast path. The stub does what that fast
 * path does (see coll_hook_sampled, collector/hook_sampled.c) and jumps on to the allocator
 * directly; every call it cannot dismiss goes to the C hook, which decides
 * again. A stub is made once per allocator and never unmapped, since a host
 * that wrapped the allocator may call it at any later time. Where one
 * cannot be made (not x86-64, no free page within a direct jump of the
 * allocator, executable memory refused), the C hook is used. */
#ifndef LJLEAK_COLLECTOR_STUB_H
#define LJLEAK_COLLECTOR_STUB_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "lua.h"

/* The filter the stub reads: STUB_FILTER_SIZE bytes, slot (ptr >> 4) mod its
 * size (the 16 bits the stub takes with one zero-extending move). */
#define STUB_FILTER_SIZE 65536

/* Where the stub finds what the fast path reads and writes: fields at
 * offsets from one base, and the GC phase word inside the VM. */
struct stub_spec {
  lua_Alloc target;       /* the wrapped allocator */
  lua_Alloc slow;         /* the C hook, for every call the stub does not pass on */
  const unsigned char *filter;
  const void *base;
  size_t countdown_off;   /* int64_t: bytes left until the next sampled allocation */
  size_t allocated_off;   /* uint64_t: bytes allocated, added to on the fast path */
  size_t fast_phase_off;  /* int: the phase the fast path expects */
  size_t g_off;           /* pointer to the VM's global state */
  size_t phase_off;       /* uint16_t: the phase word, inside the global state */
};

/* The filter slot of a block: (ptr >> 4) mod STUB_FILTER_SIZE. */
static inline size_t coll_stub_filter_slot(const void *p)
{
  return (size_t)((uintptr_t)p >> 4) & (STUB_FILTER_SIZE - 1);
}

/* The fast path's decision in C: the C hook's fast tier (coll_hook_sampled)
 * runs it, the stub is its machine-code twin, and the tests drive both with
 * the same calls. Passing means the call goes straight on to the
 * allocator; otherwise it goes to the slow path, nothing changed.
 *
 * A free passes unless the filter marks its block's slot. */
static inline __attribute__((always_inline)) int coll_stub_free_passes(const unsigned char *filter,
                                                                       const void *ptr)
{
  return __builtin_expect(filter[coll_stub_filter_slot(ptr)] == 0, 1);
}

/* An allocation or reallocation passes, counted into countdown and
 * allocated, while the GC phase word (phase) equals fast_phase, its old
 * block, if any, is unmarked, and the countdown stays above zero. (Its own
 * function so that the caller reads the phase only for allocations.) */
static inline __attribute__((always_inline)) int coll_stub_alloc_passes(
    const unsigned char *filter, int64_t *countdown, uint64_t *allocated, int phase,
    int fast_phase, const void *ptr, size_t nsize)
{
  if (__builtin_expect(phase == fast_phase, 1) &&
      (ptr == NULL || filter[coll_stub_filter_slot(ptr)] == 0)) {
    int64_t left = *countdown - (int64_t)nsize;
    if (__builtin_expect(left > 0, 1)) {
      *countdown = left;
      *allocated += nsize;
      return 1;
    }
  }
  return 0;
}

/* The whole decision of a call (osize aside), as coll_hook_sampled makes it and
 * the tests make it against the stub. A macro, so that the GC phase and
 * fast_phase are read only for an allocation. */
#define STUB_PASSES(filter, countdown, allocated, phase, fast_phase, ptr, nsize)           \
  ((nsize) == 0 ? coll_stub_free_passes((filter), (ptr))                                        \
                : coll_stub_alloc_passes((filter), (countdown), (allocated), (phase), (fast_phase), \
                                         (ptr), (nsize)))

/* The stub for spec, made on first use; NULL if none can be made. */
lua_Alloc coll_stub_get(const struct stub_spec *spec);

/* Whether f is a stub made here. */
int coll_stub_owns(lua_Alloc f);

#endif
