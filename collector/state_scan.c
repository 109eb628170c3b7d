/* collector/state_scan.c: the Lua states of a running process, read from outside. */
#include "collector/state_scan.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "collector/lj_private.h"
#include "collector/maps.h"
#include "collector/now.h"

#define SCAN_CHUNK ((size_t)1 << 20)
#define SCAN_PAGE ((size_t)4096)
/* How far past its main thread a global state may be (GG_OFS(g) is 96 or 112 bytes in the
 * LuaJITs this build knows), and what a chunk keeps of the next to check a pair across them. */
#define SCAN_REACH ((size_t)1024)
#define SCAN_OVERLAP (SCAN_REACH + sizeof(global_State))

/* Reads [at, at + size) of pid into buffer: the bytes read, 0 when none could be (the mapping
 * went away, a page cannot be read). */
static size_t scan_read(long pid, uintptr_t at, void *buffer, size_t size)
{
  struct iovec local = {buffer, size}, remote = {(void *)at, size};
  ssize_t n = process_vm_readv((pid_t)pid, &local, 1, &remote, 1, 0);
  return n > 0 ? (size_t)n : 0;
}

/* The pairs in buffer (the process's bytes from base, have of them), their threads below limit. */
static void scan_chunk(const unsigned char *buffer, uintptr_t base, size_t have, size_t limit,
                       uint64_t *found, size_t max, long *count)
{
  const size_t glref = offsetof(lua_State, glref), gct = offsetof(lua_State, gct);
  const size_t mainthref = offsetof(global_State, mainthref);
  for (size_t at = 0; at + sizeof(lua_State) <= have && at < limit; at += sizeof(uint64_t)) {
    uint64_t g;
    memcpy(&g, buffer + at + glref, sizeof g);
    /* One subtraction and comparison a word: g past the thread, within reach. */
    uint64_t past = g - (uint64_t)(base + at);
    if (past - sizeof(lua_State) > SCAN_REACH - sizeof(lua_State) ||
        buffer[at + gct] != (unsigned char)~LJ_TTHREAD)
      continue;
    size_t back_at = at + (size_t)past + mainthref;
    uint64_t back;
    if (back_at + sizeof back > have)
      continue;
    memcpy(&back, buffer + back_at, sizeof back);
    if (back != (uint64_t)(base + at))
      continue;
    if ((size_t)*count < max)
      found[*count] = g;
    (*count)++;
  }
}

/* The pairs of one mapping, a chunk at a time; an unreadable page is stepped over. 0, or -1 past
 * the deadline. */
static int scan_mapping(long pid, uintptr_t from, uintptr_t to, unsigned char *buffer,
                        uint64_t *found, size_t max, long *count, uint64_t deadline_ns)
{
  uintptr_t at = from;
  while (at < to) {
    if (coll_now_mono_ns() > deadline_ns)
      return -1;
    size_t want = to - at < SCAN_CHUNK + SCAN_OVERLAP ? to - at : SCAN_CHUNK + SCAN_OVERLAP;
    size_t have = scan_read(pid, at, buffer, want);
    if (have == 0) {
      at += SCAN_PAGE;
      continue;
    }
    /* The words of the first SCAN_CHUNK bytes: the next read starts there, with its overlap. */
    size_t limit = have < want ? have : (want < SCAN_CHUNK + SCAN_OVERLAP ? want : SCAN_CHUNK);
    scan_chunk(buffer, at, have, limit, found, max, count);
    at += limit;
  }
  return 0;
}

long coll_state_scan(long pid, uint64_t *found, size_t max, uint64_t budget_ns)
{
  uint64_t start = coll_now_mono_ns();
  struct coll_maps maps;
  if (coll_maps_open(&maps, pid) != 0)
    return -1;
  unsigned char *buffer = malloc(SCAN_CHUNK + SCAN_OVERLAP);
  if (!buffer) {
    coll_maps_close(&maps);
    errno = ENOMEM;
    return -1;
  }
  /* One read that fails for a reason of rights: nothing to find (no rights, no process). */
  unsigned char probe;
  long count = 0;
  uintptr_t from, to;
  int first = 1;
  while (coll_maps_next_heap(&maps, &from, &to)) {
    if (first && scan_read(pid, from, &probe, 1) == 0 && (errno == EPERM || errno == ESRCH)) {
      count = -1;
      break;
    }
    first = 0;
    if (scan_mapping(pid, from, to, buffer, found, max, &count, start + budget_ns) != 0) {
      count = -1;
      errno = ETIMEDOUT;
      break;
    }
  }
  int saved = errno;
  free(buffer);
  coll_maps_close(&maps);
  errno = saved;
  return count;
}
