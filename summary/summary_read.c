/* summary/summary_read.c: feeding a summary from a memprof reader, events in batches so that heap-map misses overlap. */
#include "summary/summary.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "format/decode.h"
#include "summary/hash.h"
#include "summary/pending.h"
#include "summary/summary_internal.h"

/* Events are read in batches: each event's heap slots are prefetched when it
 * is read and used after the rest of the batch has been read, so the cache
 * misses of a large heap map overlap instead of stalling one after another. */
#ifndef SUMMARY_BATCH
#define SUMMARY_BATCH 64
#endif

static void summary_read_out_of_memory(struct format_error *err, const char *name, uint64_t offset)
{
  format_error_at(err, FORMAT_NO_MEMORY, name, offset, "out of memory");
}

/* Applies batch[0 .. count), in order; on failure fills err. */
static int summary_read_apply(struct summary *summary, const struct summary_pending_event *batch,
                              size_t count, const char *name, struct format_error *err)
{
  summary->events += count;
  for (size_t i = 0; i < count; i++)
    if (__builtin_expect(pending_apply(summary, &batch[i]), 0)) {
      summary_read_out_of_memory(err, name, batch[i].offset);
      return -1;
    }
  return 0;
}

/* Queues one event for summary_read_apply, hashed and its slots prefetched;
 * applies the queue when it is full. Returns -1 when out of memory. */
static inline __attribute__((always_inline)) int
summary_read_push(struct summary *summary, struct summary_pending_event *batch, size_t *count,
                  const struct memprof_event *event, uint64_t offset, const char *name,
                  struct format_error *err)
{
  struct summary_pending_event *next = &batch[*count];
  int filled = pending_fill(summary, next, event);
  if (__builtin_expect(filled != 0, 0)) {
    if (filled > 0)
      return 0;
    summary_read_out_of_memory(err, name, offset);
    return -1;
  }
  next->offset = offset;
  /* One hash for an alloc or a free, the address picked without a branch;
   * a realloc's second address is hashed apart. */
  int is_alloc = next->kind == MEMPROF_EVENT_ALLOC;
  uint64_t first = hash_u64(is_alloc ? next->new_address : next->old_address);
  next->old_hash = next->new_hash = first;
  heap_map_prefetch(&summary->heap, first);
  if (next->kind == MEMPROF_EVENT_REALLOC) {
    next->new_hash = hash_u64(next->new_address);
    heap_map_prefetch(&summary->heap, next->new_hash);
  }
  if (++*count == SUMMARY_BATCH) {
    *count = 0;
    if (summary_read_apply(summary, batch, SUMMARY_BATCH, name, err))
      return -1;
  }
  return 0;
}

/* Feeds every record of reader, in order; name goes into out-of-memory
 * messages. Runs of events are decoded in place (decode.h), pext a constant,
 * so that each is decoded and queued in one pass; symbols, refills, the end
 * and errors come from memprof_reader_next. */
static inline __attribute__((always_inline)) enum format_status
summary_read_loop(struct summary *summary, struct memprof_reader *reader, const char *name,
                  struct format_error *err, int pext)
{
  struct summary_pending_event batch[SUMMARY_BATCH];
  size_t count = 0;
  struct memprof_record record;
  enum format_status status;
  for (;;) {
    const uint8_t *at;
    size_t span = memprof_reader_events_span(reader, &at), used = 0;
    int version = memprof_reader_events_version(reader);
    uint64_t base = memprof_reader_offset(reader);
    while (used < span) {
      struct memprof_event event;
      size_t length = memprof_decode_event(at + used, version, &event, pext);
      if (!length)
        break;
      if (summary_read_push(summary, batch, &count, &event, base + used, name, err))
        return FORMAT_NO_MEMORY;
      used += length;
    }
    memprof_reader_consume(reader, used);
    status = memprof_reader_next(reader, &record);
    if (status != FORMAT_OK)
      break;
    if (__builtin_expect(record.type == MEMPROF_RECORD_SYMBOL, 0)) {
      /* Symbols change names: apply the events before it first. */
      if (summary_read_apply(summary, batch, count, name, err))
        return FORMAT_NO_MEMORY;
      count = 0;
      if (summary_add_symbol(summary, &record.symbol)) {
        summary_read_out_of_memory(err, name, record.offset);
        return FORMAT_NO_MEMORY;
      }
      continue;
    }
    if (summary_read_push(summary, batch, &count, &record.event, record.offset, name, err))
      return FORMAT_NO_MEMORY;
  }
  if (summary_read_apply(summary, batch, count, name, err))
    return FORMAT_NO_MEMORY;
  if (status == FORMAT_END) {
    format_error_clear(err);
    return FORMAT_END;
  }
  *err = *memprof_reader_error(reader);
  err->status = status;
  return status;
}

/* The loop where the reader decodes with pext, compiled for BMI1 and BMI2
 * (decode.h); called only where the CPU has them. */
MEMPROF_DECODE_BMI2 static enum format_status
summary_read_bmi2(struct summary *summary, struct memprof_reader *reader, const char *name,
                  struct format_error *err)
{
  return summary_read_loop(summary, reader, name, err, 1);
}

static enum format_status summary_read_records(struct summary *summary,
                                               struct memprof_reader *reader, const char *name,
                                               struct format_error *err)
{
  return memprof_reader_pext(reader) ? summary_read_bmi2(summary, reader, name, err)
                                     : summary_read_loop(summary, reader, name, err, 0);
}

enum format_status summary_read(struct summary *summary, struct memprof_reader *reader,
                                struct format_error *err)
{
  return summary_read_records(summary, reader, "stream", err);
}

enum format_status summary_read_file(struct summary *summary, const char *path,
                                     struct format_error *err)
{
  format_error_clear(err);
  struct memprof_reader *reader = memprof_reader_open(path, err);
  if (!reader) {
    return err->status != FORMAT_OK ? err->status : FORMAT_IO;
  }
  enum format_status status = summary_read_records(summary, reader, path, err);
  memprof_reader_close(reader);
  return status;
}
