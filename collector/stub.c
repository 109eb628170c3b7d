/* collector/stub.c: the sampling hook's fast path as machine code made at
 * run time, a direct jump away from the allocator it wraps (see stub.h). */
#include "collector/stub.h"

#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define STUB_MAX 8              /* allocators with a stub of their own; more use the C hook */
#define STUB_CODE_MAX 256       /* bytes of code in a stub (it takes some 170) */

struct stub_entry {
  struct stub_spec spec;
  unsigned char *code;          /* a page of its own, read and execute */
};

/* Stubs are made while a capture starts sampling, which happens for one VM
 * at a time; they are only ever added to. */
static struct stub_entry stubs[STUB_MAX];
static int stub_count;

#if defined(__x86_64__) && defined(__linux__)

/* The code being written, with room checked as it grows. */
struct stub_code {
  unsigned char *p;
  size_t n;
  int overflow;
};

static void put(struct stub_code *s, const void *bytes, size_t n)
{
  if (s->n + n > STUB_CODE_MAX) {
    s->overflow = 1;
    return;
  }
  memcpy(s->p + s->n, bytes, n);
  s->n += n;
}

#define PUT(s, ...)                                            \
  do {                                                         \
    static const unsigned char bytes_[] = {__VA_ARGS__};       \
    put((s), bytes_, sizeof bytes_);                           \
  } while (0)

static void put_u64(struct stub_code *s, uint64_t v)
{
  put(s, &v, sizeof v);
}

static void put_u32(struct stub_code *s, uint32_t v)
{
  put(s, &v, sizeof v);
}

/* A 32-bit field to fill later, at the returned offset. */
static size_t put_hole(struct stub_code *s)
{
  size_t at = s->n;
  put_u32(s, 0);
  return at;
}

/* Fills the rel32 at hole with the distance from its end to target. */
static void fill_rel32(struct stub_code *s, size_t hole, uintptr_t target)
{
  if (s->overflow)
    return;
  uintptr_t from = (uintptr_t)s->p + hole + 4;
  int64_t d = (int64_t)(target - from);
  int32_t rel = (int32_t)d;
  memcpy(s->p + hole, &rel, sizeof rel);
}

/* The filter test, for a block at rsi: jumps to the slow path (its hole
 * returned) when the slot is not empty. Uses rax and r8. */
static size_t put_filter_test(struct stub_code *s, const unsigned char *filter)
{
  PUT(s, 0x48, 0x89, 0xf0);                    /* mov rax, rsi */
  PUT(s, 0x48, 0xc1, 0xe8, 0x04);              /* shr rax, 4 */
  PUT(s, 0x0f, 0xb7, 0xc0);                    /* movzx eax, ax */
  PUT(s, 0x49, 0xb8);                          /* mov r8, filter */
  put_u64(s, (uint64_t)(uintptr_t)filter);
  PUT(s, 0x41, 0x80, 0x3c, 0x00, 0x00);        /* cmp byte [r8 + rax], 0 */
  PUT(s, 0x0f, 0x85);                          /* jne slow */
  return put_hole(s);
}

/* Writes the stub at s->p. The SysV arguments stay as they came (rdi ud,
 * rsi ptr, rdx osize, rcx nsize) for the jump on; rax, r8, r9 and r10 are
 * scratch. */
static void put_stub(struct stub_code *s, const struct stub_spec *sp)
{
  uintptr_t target = (uintptr_t)sp->target;
  size_t slow[4];
  size_t done[2];
  PUT(s, 0x48, 0x85, 0xc9);                    /* test rcx, rcx */
  PUT(s, 0x0f, 0x85);                          /* jnz alloc */
  size_t to_alloc = put_hole(s);
  /* A free: passed on unless the filter holds its slot. */
  slow[0] = put_filter_test(s, sp->filter);
  PUT(s, 0xe9);                                /* jmp target */
  done[0] = put_hole(s);

  /* An allocation, or a reallocation of a block the filter does not hold,
   * that leaves the countdown above zero, in the expected GC phase:
   * counted and passed on. */
  size_t alloc_at = s->n;
  PUT(s, 0x49, 0xb9);                          /* mov r9, base */
  put_u64(s, (uint64_t)(uintptr_t)sp->base);
  PUT(s, 0x48, 0x85, 0xf6);                    /* test rsi, rsi */
  PUT(s, 0x0f, 0x84);                          /* jz count */
  size_t to_count = put_hole(s);
  slow[1] = put_filter_test(s, sp->filter);
  size_t count_at = s->n;
  PUT(s, 0x49, 0x8b, 0x81);                    /* mov rax, [r9 + countdown] */
  put_u32(s, (uint32_t)sp->countdown_off);
  PUT(s, 0x48, 0x39, 0xc8);                    /* cmp rax, rcx */
  PUT(s, 0x0f, 0x8e);                          /* jle slow (signed, as the C hook) */
  slow[2] = put_hole(s);
  PUT(s, 0x4d, 0x8b, 0x81);                    /* mov r8, [r9 + g] */
  put_u32(s, (uint32_t)sp->g_off);
  PUT(s, 0x45, 0x0f, 0xb7, 0x90);              /* movzx r10d, word [r8 + phase] */
  put_u32(s, (uint32_t)sp->phase_off);
  PUT(s, 0x45, 0x3b, 0x91);                    /* cmp r10d, [r9 + fast_phase] */
  put_u32(s, (uint32_t)sp->fast_phase_off);
  PUT(s, 0x0f, 0x85);                          /* jne slow */
  slow[3] = put_hole(s);
  PUT(s, 0x48, 0x29, 0xc8);                    /* sub rax, rcx */
  PUT(s, 0x49, 0x89, 0x81);                    /* mov [r9 + countdown], rax */
  put_u32(s, (uint32_t)sp->countdown_off);
  PUT(s, 0x49, 0x01, 0x89);                    /* add [r9 + allocated], rcx */
  put_u32(s, (uint32_t)sp->allocated_off);
  PUT(s, 0xe9);                                /* jmp target */
  done[1] = put_hole(s);

  /* Everything else: the C hook, through a register (it may lie anywhere). */
  size_t slow_at = s->n;
  PUT(s, 0x48, 0xb8);                          /* mov rax, slow */
  put_u64(s, (uint64_t)(uintptr_t)sp->slow);
  PUT(s, 0xff, 0xe0);                          /* jmp rax */

  uintptr_t p = (uintptr_t)s->p;
  fill_rel32(s, to_alloc, p + alloc_at);
  fill_rel32(s, to_count, p + count_at);
  for (int i = 0; i < 4; i++)
    fill_rel32(s, slow[i], p + slow_at);
  for (int i = 0; i < 2; i++)
    fill_rel32(s, done[i], target);
}

/* Whether a rel32 jump from anywhere in the page at p reaches target. */
static int in_reach(uintptr_t p, size_t page, uintptr_t target)
{
  int64_t lo = (int64_t)(target - (p + page));
  int64_t hi = (int64_t)(target - p);
  return lo > INT32_MIN && hi < INT32_MAX;
}

/* A writable page within a direct jump of target, or NULL. Tries hints
 * 2 MiB apart, in turns below and above the target, up to 1 GiB away; the
 * kernel takes a hint only where nothing is mapped. */
static unsigned char *page_near(uintptr_t target, size_t page)
{
  uintptr_t base = target & ~(uintptr_t)(page - 1);
  for (int k = 1; k <= 1024; k++) {
    uintptr_t step = (uintptr_t)((k + 1) / 2) << 21;
    uintptr_t hint = k % 2 ? base - step : base + step;
    if ((k % 2 && step > base) || hint == 0)
      continue;
#ifdef MAP_FIXED_NOREPLACE
    int flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE;
#else
    int flags = MAP_PRIVATE | MAP_ANONYMOUS;
#endif
    void *m = mmap((void *)hint, page, PROT_READ | PROT_WRITE, flags, -1, 0);
    if (m == MAP_FAILED)
      continue;
    if (in_reach((uintptr_t)m, page, target))
      return m;
    munmap(m, page);
  }
  return NULL;
}

static unsigned char *stub_make(const struct stub_spec *spec)
{
  long ps = sysconf(_SC_PAGESIZE);
  size_t page = ps > 0 ? (size_t)ps : 4096;
  unsigned char *code = page_near((uintptr_t)spec->target, page);
  if (!code)
    return NULL;
  struct stub_code s = {.p = code};
  put_stub(&s, spec);
  /* Executable only once written, and never writable again. */
  if (s.overflow || mprotect(code, page, PROT_READ | PROT_EXEC) != 0) {
    munmap(code, page);
    return NULL;
  }
  return code;
}

#else

static unsigned char *stub_make(const struct stub_spec *spec)
{
  (void)spec;
  return NULL;
}

#endif

/* The code as the function it is (POSIX, as dlsym, makes the two kinds of
 * pointer interchangeable; ISO C has no cast for it). */
_Static_assert(sizeof(lua_Alloc) == sizeof(unsigned char *), "code and function pointers differ");
static lua_Alloc as_alloc(unsigned char *code)
{
  lua_Alloc f;
  memcpy(&f, &code, sizeof f);
  return f;
}

static int same_spec(const struct stub_spec *a, const struct stub_spec *b)
{
  return a->target == b->target && a->slow == b->slow && a->filter == b->filter &&
         a->base == b->base && a->countdown_off == b->countdown_off &&
         a->allocated_off == b->allocated_off && a->fast_phase_off == b->fast_phase_off &&
         a->g_off == b->g_off && a->phase_off == b->phase_off;
}

lua_Alloc coll_stub_get(const struct stub_spec *spec)
{
  /* The offsets go into 32-bit displacements. */
  if (spec->countdown_off > INT32_MAX || spec->allocated_off > INT32_MAX ||
      spec->fast_phase_off > INT32_MAX || spec->g_off > INT32_MAX ||
      spec->phase_off > INT32_MAX)
    return NULL;
  for (int i = 0; i < stub_count; i++)
    if (same_spec(&stubs[i].spec, spec))
      return as_alloc(stubs[i].code);
  if (stub_count == STUB_MAX)
    return NULL;
  unsigned char *code = stub_make(spec);
  if (!code)
    return NULL;
  stubs[stub_count].spec = *spec;
  stubs[stub_count].code = code;
  stub_count++;
  return as_alloc(code);
}

int coll_stub_owns(lua_Alloc f)
{
  for (int i = 0; i < stub_count; i++)
    if (f == as_alloc(stubs[i].code))
      return 1;
  return 0;
}
