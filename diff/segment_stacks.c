/* diff/segment_stacks.c: a segment's stack sidecar read in lockstep with its events: allocations owned by (site, stack) pairs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "container/array.h"
#include "diff/segment.h"
#include "format/stacks.h"

/* A kind a later writer may add is shown as a frame the collector could not read. */
static enum stacks_frame_kind segment_frame_kind(enum stacks_frame_kind kind)
{
  return kind <= STACKS_FRAME_COROUTINE ? kind : STACKS_FRAME_INTERNAL;
}

/* The local stack of sidecar stack id (interned by content on first sight). */
static int segment_local_stack(struct diff_segment_aggregate *segment, uint32_t id, uint32_t *stack)
{
  if (id < segment->stack_id_capacity && segment->stack_of_id[id]) {
    *stack = segment->stack_of_id[id];
    return 0;
  }
  *stack = 0;
  const struct stacks_stack *found = stacks_reader_stack(segment->stack_reader, id);
  if (!found || !found->frame_count)
    return 0;  /* the reader defines a stack before its events: not reached */
  struct diff_frame *frames = malloc(found->frame_count * sizeof *frames);
  if (!frames)
    return -1;
  for (uint32_t i = 0; i < found->frame_count; i++) {
    const struct stacks_frame *frame = &found->frames[i];
    frames[i].kind = segment_frame_kind(frame->kind);
    frames[i].name = (char *)frame->name;  /* copied by the intern */
    frames[i].defined = frame->defined;
    frames[i].line = frame->line;
  }
  int status = diff_stack_table_intern(&segment->stacks, found->hash, frames, found->frame_count, stack);
  free(frames);
  if (status < 0)
    return -1;
  if (id >= segment->stack_id_capacity) {
    size_t before = segment->stack_id_capacity;
    if (array_reserve((void **)&segment->stack_of_id, &segment->stack_id_capacity, (size_t)id + 1,
                      sizeof *segment->stack_of_id) != 0)
      return -1;
    memset(segment->stack_of_id + before, 0, (segment->stack_id_capacity - before) * sizeof *segment->stack_of_id);
  }
  segment->stack_of_id[id] = *stack;
  return 0;
}

/* Turns an allocation's local site into its (site, stack) pair: the
 * sidecar is read in lockstep with the events. A sidecar that fails (cut,
 * or unreadable) leaves the stacks of the events from there unknown, with
 * a warning; out of memory is -1. */
int diff_segment_aggregate_pair(struct diff_segment_aggregate *segment, uint64_t event, uint32_t *site)
{
  uint32_t stack = 0;
  if (!segment->stack_failed) {
    uint32_t id = 0;
    enum format_status status = stacks_reader_event(segment->stack_reader, event, &id);
    if (status == FORMAT_NO_MEMORY)
      return -1;
    if (status == FORMAT_OK && id && segment_local_stack(segment, id, &stack) < 0)
      return -1;
    if (status != FORMAT_OK && status != FORMAT_END) {
      segment->stack_failed = 1;
      snprintf(segment->stack_warning, sizeof segment->stack_warning,
               "%.400s (the stacks of event %llu on are unknown)",
               stacks_reader_error(segment->stack_reader)->message, (unsigned long long)event);
    }
  }
  if (segment->pairs.count >= DIFF_LIVE_MAP_MAX_SITES ||  /* the live map keeps 24 bits of owner */
      diff_pair_table_intern(&segment->pairs, *site, stack, site) < 0)
    return -1;
  return diff_segment_aggregate_reserve(segment, segment->pairs.count);
}
