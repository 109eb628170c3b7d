/* collector/trace_log.c: a recording's log and the pages it and a trace's map live in (trace_log.h). */
#include "collector/trace_log.h"

#include <string.h>
#include <sys/mman.h>

#include "lj_ircall.h"

#define LOG_FIRST_SIZE 4096

void *coll_trace_log_pages(size_t size)
{
  void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return p == MAP_FAILED ? NULL : p;
}

void coll_trace_log_unpages(void *p, size_t size)
{
  if (p)
    munmap(p, size);
}

int coll_trace_log_op_logged(unsigned op)
{
  switch (op) {
  case IR_TNEW: case IR_TDUP: case IR_CNEW: case IR_CNEWI: case IR_SNEW: case IR_XSNEW:
  case IR_BUFPUT: case IR_BUFSTR: case IR_TOSTR: case IR_NEWREF:
  case IR_CALLN: case IR_CALLA: case IR_CALLL: case IR_CALLS:
    return 1;
  default:
    return 0;
  }
}

int coll_trace_log_matches(const struct trace_log *log, const GCtrace *T)
{
  return log->traceno == T->traceno && log->startpt == &gcref(T->startpt)->pt &&
         log->startpc == mref(T->startpc, const BCIns) && log->first_nins <= log->last_nins &&
         log->last_nins <= T->nins && (log->parent == 0) == (T->root == 0);
}

struct trace_log *coll_trace_log_new(void)
{
  struct trace_log *log = coll_trace_log_pages(LOG_FIRST_SIZE);
  if (!log)
    return NULL;
  memset(log, 0, sizeof *log);
  log->size = LOG_FIRST_SIZE;
  log->cap = (uint32_t)((LOG_FIRST_SIZE - sizeof *log) / sizeof log->entries[0]);
  return log;
}

struct trace_log *coll_trace_log_room(struct trace_log *log)
{
  if (log->n < log->cap)
    return log;
  size_t size = log->size * 2;
  void *p = mremap(log, log->size, size, MREMAP_MAYMOVE);
  if (p == MAP_FAILED)
    return NULL;
  log = p;
  log->size = size;
  log->cap = (uint32_t)((size - sizeof *log) / sizeof log->entries[0]);
  return log;
}

void coll_trace_log_free(struct trace_log *log)
{
  if (log) {
    coll_trace_log_unpages(log->chains, log->chains_size);
    coll_trace_log_unpages(log, log->size);
  }
}
