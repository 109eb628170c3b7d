/* tests/test_collector_stub.c: the stub made at run time (collector/stub.h),
 * called with every kind of allocator call against fake state: what it
 * passes on, what it sends to the slow path, and what it counts. */
#include <check.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "collector/stub.h"
#include "tests/check_run.h"

#if defined(__x86_64__) && defined(__linux__)
#define STUB_EXPECTED 1
#else
#define STUB_EXPECTED 0
#endif

/* The fields the stub reads, as struct coll_capture lays them out apart. */
struct fake_state {
  int64_t countdown;
  char pad1[40];
  uint64_t allocated;
  int fast_phase;
  const void *g;
};

struct fake_g {
  char pad[0x91];
  uint16_t phase; /* unaligned on purpose: the stub reads it wherever it lies */
} __attribute__((packed));

struct call {
  int n;
  void *ud, *ptr;
  size_t osize, nsize;
};

static struct call to_target, to_slow;
static unsigned char filter[STUB_FILTER_SIZE];
static struct fake_state st;
static struct fake_g g;

static void note(struct call *c, void *ud, void *ptr, size_t osize, size_t nsize)
{
  c->n++;
  c->ud = ud;
  c->ptr = ptr;
  c->osize = osize;
  c->nsize = nsize;
}

static void *fake_target(void *ud, void *ptr, size_t osize, size_t nsize)
{
  note(&to_target, ud, ptr, osize, nsize);
  return (void *)(uintptr_t)0x7a000010;
}

static void *fake_other(void *ud, void *ptr, size_t osize, size_t nsize)
{
  return fake_target(ud, ptr, osize, nsize);
}

static void *fake_slow(void *ud, void *ptr, size_t osize, size_t nsize)
{
  note(&to_slow, ud, ptr, osize, nsize);
  return (void *)(uintptr_t)0x51000020;
}

static struct stub_spec spec_for(lua_Alloc target)
{
  struct stub_spec s = {
    .target = target,
    .slow = fake_slow,
    .filter = filter,
    .base = &st,
    .countdown_off = offsetof(struct fake_state, countdown),
    .allocated_off = offsetof(struct fake_state, allocated),
    .fast_phase_off = offsetof(struct fake_state, fast_phase),
    .g_off = offsetof(struct fake_state, g),
    .phase_off = offsetof(struct fake_g, phase),
  };
  return s;
}

/* The stub, fresh fake state (countdown 1000, phase 0x0203 expected and
 * current, empty filter), no calls yet. NULL where no stub can be made. */
static lua_Alloc setup(void)
{
  memset(filter, 0, sizeof filter);
  memset(&st, 0, sizeof st);
  memset(&to_target, 0, sizeof to_target);
  memset(&to_slow, 0, sizeof to_slow);
  st.countdown = 1000;
  st.allocated = 5;
  st.fast_phase = 0x0203;
  g.phase = 0x0203;
  st.g = &g;
  struct stub_spec s = spec_for(fake_target);
  lua_Alloc f = coll_stub_get(&s);
  ck_assert_int_eq(f != NULL, STUB_EXPECTED);
  return f;
}

static size_t slot(const void *p)
{
  return (size_t)((uintptr_t)p >> 4) & (STUB_FILTER_SIZE - 1);
}

static void assert_call(const struct call *c, void *ud, void *ptr, size_t osize, size_t nsize)
{
  ck_assert_int_eq(c->n, 1);
  ck_assert_ptr_eq(c->ud, ud);
  ck_assert_ptr_eq(c->ptr, ptr);
  ck_assert_uint_eq(c->osize, osize);
  ck_assert_uint_eq(c->nsize, nsize);
}

#define TARGET_RET ((void *)(uintptr_t)0x7a000010)
#define SLOW_RET ((void *)(uintptr_t)0x51000020)

/* A free of a block the filter does not hold goes on to the allocator with
 * its arguments untouched; one it holds goes to the slow path. */
START_TEST(test_stub_free)
{
  lua_Alloc f = setup();
  if (!f)
    return;
  void *ud = (void *)(uintptr_t)0x1111, *p = (void *)(uintptr_t)0x7f0012345670;
  ck_assert_ptr_eq(f(ud, p, 48, 0), TARGET_RET);
  assert_call(&to_target, ud, p, 48, 0);
  ck_assert_int_eq(to_slow.n, 0);

  filter[slot(p)] = 1;
  ck_assert_ptr_eq(f(ud, p, 48, 0), SLOW_RET);
  assert_call(&to_slow, ud, p, 48, 0);
  ck_assert_int_eq(to_target.n, 1);
  /* Another slot: the block at the next 16 bytes. */
  ck_assert_ptr_eq(f(ud, (char *)p + 16, 48, 0), TARGET_RET);
  ck_assert_int_eq(to_target.n, 2);
  /* Slots wrap every 1 MiB. */
  ck_assert_ptr_eq(f(ud, (char *)p + (1 << 20), 48, 0), SLOW_RET);
  ck_assert_int_eq(to_slow.n, 2);
  ck_assert_int_eq(st.countdown, 1000);
  ck_assert_uint_eq(st.allocated, 5);
}
END_TEST

/* An allocation that leaves the countdown above zero is counted and passed
 * on; one that reaches zero goes to the slow path, counting nothing. */
START_TEST(test_stub_alloc_countdown)
{
  lua_Alloc f = setup();
  if (!f)
    return;
  void *ud = (void *)(uintptr_t)0x2222;
  ck_assert_ptr_eq(f(ud, NULL, 7, 600), TARGET_RET);
  assert_call(&to_target, ud, NULL, 7, 600);
  ck_assert_int_eq(st.countdown, 400);
  ck_assert_uint_eq(st.allocated, 605);

  ck_assert_ptr_eq(f(ud, NULL, 7, 400), SLOW_RET);
  assert_call(&to_slow, ud, NULL, 7, 400);
  ck_assert_int_eq(st.countdown, 400);
  ck_assert_uint_eq(st.allocated, 605);

  ck_assert_ptr_eq(f(ud, NULL, 7, 399), TARGET_RET);
  ck_assert_int_eq(st.countdown, 1);
  ck_assert_uint_eq(st.allocated, 1004);

  /* At zero (sampling off), everything but frees goes to the slow path. */
  st.countdown = 0;
  ck_assert_ptr_eq(f(ud, NULL, 0, 1), SLOW_RET);
  ck_assert_int_eq(to_slow.n, 2);
}
END_TEST

/* A phase other than the expected one (a GC state change, or a signal's
 * mark) sends allocations to the slow path. */
START_TEST(test_stub_alloc_phase)
{
  lua_Alloc f = setup();
  if (!f)
    return;
  g.phase = 0x0303;
  ck_assert_ptr_eq(f(NULL, NULL, 0, 16), SLOW_RET);
  g.phase = 0x0202;
  ck_assert_ptr_eq(f(NULL, NULL, 0, 16), SLOW_RET);
  g.phase = 0x0203;
  st.fast_phase = -1;
  ck_assert_ptr_eq(f(NULL, NULL, 0, 16), SLOW_RET);
  ck_assert_int_eq(to_slow.n, 3);
  ck_assert_int_eq(to_target.n, 0);
  ck_assert_int_eq(st.countdown, 1000);
  /* Frees do not look at the phase. */
  ck_assert_ptr_eq(f(NULL, (void *)(uintptr_t)0x40, 16, 0), TARGET_RET);
  st.fast_phase = 0x0203;
  ck_assert_ptr_eq(f(NULL, NULL, 0, 16), TARGET_RET);
  ck_assert_int_eq(st.countdown, 984);
}
END_TEST

/* A reallocation is passed on only when the filter does not hold the block. */
START_TEST(test_stub_realloc)
{
  lua_Alloc f = setup();
  if (!f)
    return;
  void *p = (void *)(uintptr_t)0x55550000abc0;
  ck_assert_ptr_eq(f(&st, p, 32, 64), TARGET_RET);
  assert_call(&to_target, &st, p, 32, 64);
  ck_assert_int_eq(st.countdown, 936);
  ck_assert_uint_eq(st.allocated, 69);
  filter[slot(p)] = 255;
  ck_assert_ptr_eq(f(&st, p, 64, 128), SLOW_RET);
  assert_call(&to_slow, &st, p, 64, 128);
  ck_assert_int_eq(st.countdown, 936);
}
END_TEST

/* One stub per spec, made once; each knows its own. */
START_TEST(test_stub_cache)
{
  lua_Alloc f = setup();
  if (!f) {
    ck_assert_int_eq(coll_stub_owns(fake_target), 0);
    return;
  }
  struct stub_spec s = spec_for(fake_target);
  ck_assert_ptr_eq(coll_stub_get(&s), f);
  ck_assert_int_eq(coll_stub_owns(f), 1);
  ck_assert_int_eq(coll_stub_owns(fake_target), 0);
  struct stub_spec o = spec_for(fake_other);
  lua_Alloc h = coll_stub_get(&o);
  ck_assert_ptr_nonnull(h);
  ck_assert_ptr_ne(h, f);
  ck_assert_int_eq(coll_stub_owns(h), 1);
  ck_assert_ptr_eq(h(NULL, NULL, 0, 8), TARGET_RET);
  ck_assert_int_eq(to_target.n, 1);
  /* Offsets that do not fit a 32-bit displacement: no stub. */
  o.allocated_off = (size_t)1 << 40;
  ck_assert_ptr_null(coll_stub_get(&o));
}
END_TEST

/* The C fast tier as coll_hook_sampled runs it (its decision, STUB_PASSES),
 * against the same fake state, with the same exits as the stub. */
static void *c_fast_tier(void *ud, void *ptr, size_t osize, size_t nsize)
{
  if (STUB_PASSES(filter, &st.countdown, &st.allocated, g.phase, st.fast_phase, ptr, nsize))
    return fake_target(ud, ptr, osize, nsize);
  return fake_slow(ud, ptr, osize, nsize);
}

static uint64_t next_random(uint64_t *state)
{
  *state ^= *state << 13;
  *state ^= *state >> 7;
  *state ^= *state << 17;
  return *state;
}

/* A random sequence of frees, allocations and reallocations, with the
 * filter, the countdown, the GC phase and the signal's mark changing
 * between calls: the stub and the C fast tier make the same decision on
 * every call (the same function reached with the same arguments, the same
 * countdown and bytes allocated after it), and every kind of call goes
 * both ways many times. */
START_TEST(test_stub_and_c_fast_tier_decide_alike)
{
  lua_Alloc f = setup();
  if (!f)
    return;
  static const uint16_t phases[] = {0x0203, 0x0203, 0x0203, 0x0303, 0x0202};
  uint64_t rng = 0x9e3779b97f4a7c15ull;
  void *blocks[64];
  for (size_t i = 0; i < 64; i++)  /* some 1 MiB apart: they share a slot */
    blocks[i] = (void *)(uintptr_t)(0x7f0000000000ull + (i % 16) * 16 + (i / 16) * (1u << 20));
  unsigned passed[3] = {0, 0, 0}, slowed[3] = {0, 0, 0};
  for (int n = 0; n < 200000; n++) {
    uint64_t r = next_random(&rng);
    void *block = blocks[r % 64];
    switch ((r >> 8) % 64) {
    case 0: filter[slot(block)] = (unsigned char)(r >> 16 & 1 ? 0 : (r >> 17 & 1 ? 1 : 255)); break;
    case 1: g.phase = phases[(r >> 16) % 5]; break;
    case 2: st.fast_phase = r >> 16 & 1 ? -1 : 0x0203; break;
    case 3: st.countdown = (int64_t)((r >> 16) % 8192); break;
    default: break;
    }
    int kind = (int)((r >> 32) % 3);  /* 0 free, 1 allocation, 2 reallocation */
    void *ud = (void *)(uintptr_t)(r >> 40);
    void *ptr = kind == 1 ? NULL : block;
    size_t osize = kind == 1 ? (size_t)(r >> 48 & 7) : (size_t)(r >> 44 & 1023) + 1;
    size_t nsize = kind == 0 ? 0 : (size_t)(r >> 52 & 2047) + 1;

    struct fake_state before = st;
    memset(&to_target, 0, sizeof to_target);
    memset(&to_slow, 0, sizeof to_slow);
    void *by_stub = f(ud, ptr, osize, nsize);
    struct fake_state after_stub = st;
    struct call stub_target = to_target, stub_slow = to_slow;

    st = before;
    memset(&to_target, 0, sizeof to_target);
    memset(&to_slow, 0, sizeof to_slow);
    void *by_c = c_fast_tier(ud, ptr, osize, nsize);

    /* Compared without an assertion per call: Check reports each one to its
     * parent process, which would take most of the run. */
    const struct call *a = stub_target.n ? &stub_target : &stub_slow;
    const struct call *b = to_target.n ? &to_target : &to_slow;
    if (by_stub != by_c || stub_target.n != to_target.n || stub_slow.n != to_slow.n ||
        a->ud != b->ud || a->ptr != b->ptr || a->osize != b->osize || a->nsize != b->nsize ||
        after_stub.countdown != st.countdown || after_stub.allocated != st.allocated)
      ck_abort_msg("call %d (ptr %p, osize %zu, nsize %zu): the stub %s with countdown %lld and "
                   "allocated %llu, the C fast tier %s with %lld and %llu",
                   n, ptr, osize, nsize, by_stub == TARGET_RET ? "passed" : "went slow",
                   (long long)after_stub.countdown, (unsigned long long)after_stub.allocated,
                   by_c == TARGET_RET ? "passed" : "went slow", (long long)st.countdown,
                   (unsigned long long)st.allocated);
    if (by_c == TARGET_RET)
      passed[kind]++;
    else
      slowed[kind]++;
    if (st.countdown < 2048 && (r >> 60) == 0)
      st.countdown += 65536;  /* as the slow path would draw a new gap */
  }
  for (int kind = 0; kind < 3; kind++) {
    ck_assert_uint_gt(passed[kind], 1000);
    ck_assert_uint_gt(slowed[kind], 1000);
  }
}
END_TEST

int main(void)
{
  Suite *s = suite_create("collector_stub");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_stub_free);
  tcase_add_test(tc, test_stub_alloc_countdown);
  tcase_add_test(tc, test_stub_alloc_phase);
  tcase_add_test(tc, test_stub_realloc);
  tcase_add_test(tc, test_stub_cache);
  tcase_add_test(tc, test_stub_and_c_fast_tier_decide_alike);
  suite_add_tcase(s, tc);
  return check_run(s);
}
