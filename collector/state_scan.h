/* collector/state_scan.h: the Lua states of another process, looked for from outside while it runs (ljleak attach, before the debugger stops it). */
#ifndef LJLEAK_COLLECTOR_STATE_SCAN_H
#define LJLEAK_COLLECTOR_STATE_SCAN_H

#include <stddef.h>
#include <stdint.h>

/* Reads process pid's private writable memory (process_vm_readv, the rights ptrace needs) for
 * main threads whose global-state reference points a few hundred bytes past them, at a global
 * state whose main-thread reference points back. Up to max of the global states' addresses into
 * found; how many there are, or -1 when its memory cannot be read (errno). Only those two
 * references' offsets and the thread's type tag come from this build's headers: the collector in
 * the process checks a candidate against its own layout, so a LuaJIT of another layout is told
 * apart there. Gives up past budget_ns of its own time (-1, ETIMEDOUT): a process may map far
 * more than it uses, and the collector's scan in the process is the way that always answers. */
long coll_state_scan(long pid, uint64_t *found, size_t max, uint64_t budget_ns);

#endif
