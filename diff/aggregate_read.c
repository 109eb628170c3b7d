/* diff/aggregate_read.c: reads a capture's segments into its aggregate, in order: one after another, stepwise (a hook called at chosen boundaries), or on worker threads, each segment merged by diff_aggregate_merge as its turn comes. */
#include "diff/aggregate.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/stacks.h"

static void aggregate_fail_memory(struct format_error *err)
{
  format_error_set(err, FORMAT_NO_MEMORY, "out of memory");
}

/* Reads segment index of capture into segment (fresh), piece by piece from
 * one stream: each piece up to its boundary line, which it must reach. A
 * stream that ends first is an error at that line, but for a .part (a
 * killed process), whose boundaries from there on are dropped, with the
 * warning in dropped (else left empty). */
static enum format_status aggregate_read_segment(const struct diff_source *capture, size_t index,
                                                 struct diff_segment_aggregate *segment, uint64_t sample,
                                                 char *dropped, size_t dropped_size,
                                                 struct format_error *err)
{
  const struct diff_source_segment *owner = &capture->segments[index];
  dropped[0] = '\0';
  segment->lists_touches = index > 0;  /* merged first: the capture holds nothing before it */
  struct diff_segment_stream stream;
  enum format_status status = diff_segment_stream_open(&stream, owner->path, owner->how, err);
  uint64_t frames = capture->files.index.capture.stacks;  /* 0: a capture without sidecars */
  if (status == FORMAT_OK && frames && !stream.stacks && !stream.empty_part)
    snprintf(segment->stack_warning, sizeof segment->stack_warning,
             "%.400s: its stack sidecar is missing%s, though the capture has them (the index's "
             "stacks=%llu): its events are read without stacks", owner->path,
             owner->partial ? " or cut inside its header" : "", (unsigned long long)frames);
  for (size_t p = owner->first_piece; status == FORMAT_OK && p < owner->first_piece + owner->piece_count;
       p++) {
    const struct diff_source_piece *piece = &capture->pieces[p];
    uint64_t before = segment->events;
    segment->young_from = piece->young_from == UINT64_MAX ? UINT64_MAX : before + piece->young_from;
    status = diff_segment_aggregate_read_piece(segment, &stream, piece->limit, sample, err);
    if (status != FORMAT_OK)
      break;
    int reached = piece->boundary == DIFF_SOURCE_NO_BOUNDARY || segment->events - before == piece->limit;
    if (!reached && !owner->partial) {
      const struct diff_source_boundary *boundary = &capture->boundaries[piece->boundary];
      status = format_error_at(err, FORMAT_BAD_INPUT, capture->index_path, boundary->offset,
                               "boundary line: event %llu is past the end of %s (%llu events)",
                               (unsigned long long)boundary->events, owner->path,
                               (unsigned long long)segment->events);
      break;
    }
    int kept = piece->boundary_end && reached && capture->keep_blocks &&
               piece->boundary < capture->boundary_count && capture->boundaries[piece->boundary].keep;
    if (diff_segment_aggregate_end_piece(segment, piece->boundary_end && reached, sample) < 0 ||
        (kept && diff_segment_aggregate_keep(segment, piece->boundary) < 0)) {
      aggregate_fail_memory(err);
      status = err->status;
      break;
    }
    if (!reached) {  /* the .part ends here, on no GC cycle: its boundaries from here on are dropped */
      size_t last = piece->boundary;
      while (last + 1 < capture->boundary_count && capture->boundaries[last + 1].segment == index)
        last++;
      snprintf(dropped, dropped_size,
               "%s: byte %zu: boundary line: event %llu is past the end of %s (%llu events): "
               "boundaries %zu to %zu are dropped",
               capture->index_path, capture->boundaries[piece->boundary].offset,
               (unsigned long long)capture->boundaries[piece->boundary].events, owner->path,
               (unsigned long long)segment->events, piece->boundary + 1, last + 1);
      break;
    }
  }
  diff_segment_stream_close(&stream);
  return status;
}

/* A warning about a capture cut short: to options->warn, or an error under options->strict. */
static enum format_status aggregate_warn_short(const char *warning, const struct diff_options *options,
                                               struct format_error *err)
{
  if (options->strict) {
    format_error_set(err, FORMAT_CUT, "%s", warning);
    return err->status;
  }
  if (options->warn)
    options->warn(options->warn_context, warning);
  return FORMAT_OK;
}

/* A warning about a cut segment or index. */
static enum format_status aggregate_warn(struct diff_source *capture, const char *warning,
                                         const struct diff_options *options, struct format_error *err)
{
  capture->info.truncated = 1;
  return aggregate_warn_short(warning, options, err);
}

/* A read segment: warn about a cut, then merge. */
static enum format_status aggregate_take(struct diff_aggregate *aggregate, struct diff_source *capture,
                                         struct diff_segment_aggregate *segment, const char *dropped,
                                         const struct diff_options *options,
                                         struct format_error *err)
{
  if (segment->truncated && aggregate_warn(capture, segment->warning, options, err) != FORMAT_OK)
    return err->status;
  if (dropped[0] && aggregate_warn(capture, dropped, options, err) != FORMAT_OK)
    return err->status;
  if (segment->stack_warning[0] && options->warn)  /* the sites stand; some stacks are unknown */
    options->warn(options->warn_context, segment->stack_warning);
  if (diff_aggregate_merge(aggregate, segment) < 0) {
    aggregate_fail_memory(err);
    return err->status;
  }
  return FORMAT_OK;
}

static enum format_status aggregate_sequential(struct diff_aggregate *aggregate, struct diff_source *capture,
                                               const struct diff_options *options,
                                               struct format_error *err)
{
  uint64_t done = 0;
  struct diff_segment_aggregate segment;  /* one, emptied between segments: its memory is reused */
  if (diff_segment_aggregate_init(&segment) < 0) {
    aggregate_fail_memory(err);
    return err->status;
  }
  char dropped[512];
  for (size_t i = 0; i < capture->count; i++) {
    enum format_status status = FORMAT_OK;
    if (i && diff_segment_aggregate_reset(&segment) < 0) {
      aggregate_fail_memory(err);
      status = err->status;
    }
    if (status == FORMAT_OK)
      status = aggregate_read_segment(capture, i, &segment, aggregate->sample, dropped,
                                      sizeof dropped, err);
    if (status == FORMAT_OK)
      status = aggregate_take(aggregate, capture, &segment, dropped, options, err);
    if (status != FORMAT_OK) {
      diff_segment_aggregate_release(&segment);
      return status;
    }
    done += capture->segments[i].file_bytes;
    if (options->progress)
      options->progress(options->progress_context, done, capture->total_bytes);
  }
  diff_segment_aggregate_release(&segment);
  return FORMAT_OK;
}

/* A stepwise reading: where it stops to call its hook, how far it reads. */
struct aggregate_stepwise {
  const struct diff_aggregate_stops *stops;
  size_t next_stop;              /* the first of stops->at not passed yet */
  size_t boundaries;             /* boundaries read so far (merged or not) */
  int done;                      /* stops->until read: nothing more is wanted */
  diff_aggregate_hook hook;
  void *context;
};

/* One segment for diff_aggregate_capture_stepwise: its pieces read in order
 * from one stream, merged where a stop falls (the segment's blocks so far
 * then in the capture's map), and at its end. */
static enum format_status aggregate_stepwise_segment(struct diff_aggregate *aggregate,
                                                     struct diff_source *capture, size_t index,
                                                     struct diff_segment_aggregate *segment, int stacks,
                                                     struct aggregate_stepwise *walk,
                                                     struct format_error *err)
{
  const struct diff_source_segment *owner = &capture->segments[index];
  struct diff_segment_stream stream;
  enum format_status status = diff_segment_stream_open(&stream, owner->path, owner->how, err);
  if (status != FORMAT_OK)
    return status;
  if (stream.stacks && !stacks) {  /* by site: the stacks are not read */
    stacks_reader_close(stream.stacks);
    stream.stacks = NULL;
  }
  if (diff_segment_aggregate_reset(segment) < 0)
    goto memory;
  segment->lists_touches = index > 0;
  size_t end = owner->first_piece + owner->piece_count;
  for (size_t p = owner->first_piece; p < end && !walk->done; p++) {
    const struct diff_source_piece *piece = &capture->pieces[p];
    uint64_t before = segment->events;
    segment->young_from = piece->young_from == UINT64_MAX ? UINT64_MAX : before + piece->young_from;
    status = diff_segment_aggregate_read_piece(segment, &stream, piece->limit, aggregate->sample, err);
    if (status != FORMAT_OK)
      break;
    int reached = piece->boundary == DIFF_SOURCE_NO_BOUNDARY || segment->events - before == piece->limit;
    int boundary = piece->boundary_end && reached;
    if (diff_segment_aggregate_end_piece(segment, boundary, aggregate->sample) < 0)
      goto memory;
    const struct diff_aggregate_stops *stops = walk->stops;
    size_t at = walk->boundaries;
    walk->boundaries += boundary;
    while (walk->next_stop < stops->count && stops->at[walk->next_stop] < at)
      walk->next_stop++;
    int stop = boundary && walk->next_stop < stops->count && stops->at[walk->next_stop] == at;
    walk->done = !reached || (boundary && at >= stops->until);
    if (stop || walk->done || p + 1 == end) {
      if (diff_aggregate_merge(aggregate, segment) < 0 || diff_segment_aggregate_reset(segment) < 0)
        goto memory;
      if (stop && walk->hook(aggregate, at, walk->context) < 0)
        goto memory;
    }
  }
  diff_segment_stream_close(&stream);
  return status;
memory:
  diff_segment_stream_close(&stream);
  aggregate_fail_memory(err);
  return err->status;
}

enum format_status diff_aggregate_capture_stepwise(struct diff_aggregate *aggregate,
                                                   struct diff_source *capture, int stacks,
                                                   const struct diff_aggregate_stops *stops,
                                                   diff_aggregate_hook hook, void *context,
                                                   struct format_error *err)
{
  format_error_clear(err);
  struct diff_segment_aggregate segment;
  if (diff_segment_aggregate_init(&segment) < 0) {
    aggregate_fail_memory(err);
    return err->status;
  }
  struct aggregate_stepwise walk = {stops, 0, 0, 0, hook, context};
  enum format_status status = FORMAT_OK;
  for (size_t i = 0; i < capture->count && status == FORMAT_OK && !walk.done; i++)
    status = aggregate_stepwise_segment(aggregate, capture, i, &segment, stacks, &walk, err);
  diff_segment_aggregate_release(&segment);
  return status;
}

/* Workers claim segments in order and read each one whole, piece by piece
 * from one stream; the main thread merges them in order. A worker waits
 * before claiming a segment more than `window` ahead of the merge, which
 * bounds memory to window segment aggregates, however many pieces boundary
 * lines cut them into. Merged aggregates go back to a pool and are emptied
 * by the worker that takes one, so their tables keep their size from
 * segment to segment and the main thread only merges. */
struct pipeline_slot {
  struct diff_segment_aggregate *segment;  /* owned while ready is 1 */
  enum format_status status;
  struct format_error error;
  char dropped[512];                  /* boundaries of a .part dropped: the warning, or "" */
  int ready;
};

struct pipeline {
  pthread_mutex_t lock;
  pthread_cond_t changed;
  struct diff_source *capture;
  uint64_t sample;
  struct pipeline_slot *slots;   /* [capture->count] */
  struct diff_segment_aggregate **spare;  /* [window] merged, ready to be emptied and reused */
  size_t spare_count;
  size_t next, merged, window;
  int stop;
};

static void pipeline_fail_memory(struct pipeline_slot *slot)
{
  slot->status = format_error_set(&slot->error, FORMAT_NO_MEMORY, "out of memory");
}

/* A pooled aggregate emptied, or a new one; NULL when out of memory. */
static struct diff_segment_aggregate *pipeline_take_aggregate(struct diff_segment_aggregate *spare)
{
  if (spare) {
    if (diff_segment_aggregate_reset(spare) == 0)
      return spare;
    diff_segment_aggregate_release(spare);
    free(spare);
    return NULL;
  }
  struct diff_segment_aggregate *segment = malloc(sizeof *segment);
  if (segment && diff_segment_aggregate_init(segment) < 0) {
    free(segment);
    segment = NULL;
  }
  return segment;
}

static void pipeline_drop_aggregate(struct diff_segment_aggregate *segment)
{
  if (segment) {
    diff_segment_aggregate_release(segment);
    free(segment);
  }
}

static void *pipeline_worker(void *argument)
{
  struct pipeline *pipeline = argument;
  for (;;) {
    pthread_mutex_lock(&pipeline->lock);
    while (!pipeline->stop && pipeline->next < pipeline->capture->count &&
           pipeline->next >= pipeline->merged + pipeline->window)
      pthread_cond_wait(&pipeline->changed, &pipeline->lock);
    if (pipeline->stop || pipeline->next >= pipeline->capture->count) {
      pthread_mutex_unlock(&pipeline->lock);
      return NULL;
    }
    size_t index = pipeline->next++;
    struct diff_segment_aggregate *spare =
        pipeline->spare_count ? pipeline->spare[--pipeline->spare_count] : NULL;
    pthread_mutex_unlock(&pipeline->lock);

    struct pipeline_slot *slot = &pipeline->slots[index];
    slot->segment = pipeline_take_aggregate(spare);
    if (!slot->segment)
      pipeline_fail_memory(slot);
    else
      slot->status = aggregate_read_segment(pipeline->capture, index, slot->segment, pipeline->sample,
                                            slot->dropped, sizeof slot->dropped, &slot->error);
    pthread_mutex_lock(&pipeline->lock);
    slot->ready = 1;
    pthread_cond_broadcast(&pipeline->changed);
    pthread_mutex_unlock(&pipeline->lock);
  }
}

static enum format_status aggregate_parallel(struct diff_aggregate *aggregate, struct diff_source *capture,
                                             const struct diff_options *options,
                                             struct format_error *err)
{
  size_t jobs = (size_t)options->jobs;
  if (jobs > capture->count)
    jobs = capture->count;
  struct pipeline pipeline = {.capture = capture, .sample = aggregate->sample,
                              .window = jobs + 1};
  pipeline.slots = calloc(capture->count, sizeof *pipeline.slots);
  pipeline.spare = calloc(pipeline.window, sizeof *pipeline.spare);
  pthread_t *threads = calloc(jobs, sizeof *threads);
  if (!pipeline.slots || !pipeline.spare || !threads) {
    free(pipeline.slots);
    free(pipeline.spare);
    free(threads);
    aggregate_fail_memory(err);
    return err->status;
  }
  pthread_mutex_init(&pipeline.lock, NULL);
  pthread_cond_init(&pipeline.changed, NULL);
  size_t started = 0;
  for (; started < jobs; started++)
    if (pthread_create(&threads[started], NULL, pipeline_worker, &pipeline) != 0)
      break;
  enum format_status status = FORMAT_OK;
  if (!started) {
    aggregate_fail_memory(err);
    status = err->status;
  }
  uint64_t done = 0;
  for (size_t i = 0; status == FORMAT_OK && i < capture->count; i++) {
    struct pipeline_slot *slot = &pipeline.slots[i];
    pthread_mutex_lock(&pipeline.lock);
    while (!slot->ready)
      pthread_cond_wait(&pipeline.changed, &pipeline.lock);
    pthread_mutex_unlock(&pipeline.lock);
    status = slot->status;
    if (status != FORMAT_OK)
      *err = slot->error;
    else
      status = aggregate_take(aggregate, capture, slot->segment, slot->dropped, options, err);
    pthread_mutex_lock(&pipeline.lock);
    if (slot->segment && pipeline.spare_count < pipeline.window)  /* always room: see window */
      pipeline.spare[pipeline.spare_count++] = slot->segment;
    else
      pipeline_drop_aggregate(slot->segment);
    slot->segment = NULL;
    slot->ready = 2;  /* merged */
    pipeline.merged = i + 1;
    if (status != FORMAT_OK)
      pipeline.stop = 1;
    pthread_cond_broadcast(&pipeline.changed);
    pthread_mutex_unlock(&pipeline.lock);
    done += capture->segments[i].file_bytes;
    if (status == FORMAT_OK && options->progress)
      options->progress(options->progress_context, done, capture->total_bytes);
  }
  if (status != FORMAT_OK) {
    pthread_mutex_lock(&pipeline.lock);
    pipeline.stop = 1;
    pthread_cond_broadcast(&pipeline.changed);
    pthread_mutex_unlock(&pipeline.lock);
  }
  for (size_t i = 0; i < started; i++)
    pthread_join(threads[i], NULL);
  for (size_t i = 0; i < capture->count; i++)  /* segments read but not merged (after an error) */
    if (pipeline.slots[i].ready == 1)
      pipeline_drop_aggregate(pipeline.slots[i].segment);
  for (size_t i = 0; i < pipeline.spare_count; i++)
    pipeline_drop_aggregate(pipeline.spare[i]);
  pthread_cond_destroy(&pipeline.changed);
  pthread_mutex_destroy(&pipeline.lock);
  free(pipeline.slots);
  free(pipeline.spare);
  free(threads);
  return status;
}

enum format_status diff_aggregate_capture(struct diff_aggregate *aggregate, struct diff_source *capture,
                                          const struct diff_options *options, struct format_error *err)
{
  format_error_clear(err);
  enum format_status status = FORMAT_OK;
  if (capture->dropped_warning)
    status = aggregate_warn(capture, capture->dropped_warning, options, err);
  if (status == FORMAT_OK && capture->stop_warning)  /* every segment whole: not a cut */
    status = aggregate_warn_short(capture->stop_warning, options, err);
  if (status == FORMAT_OK)
    status = options->jobs > 1 && capture->count > 1
                 ? aggregate_parallel(aggregate, capture, options, err)
                 : aggregate_sequential(aggregate, capture, options, err);
  capture->info.events = aggregate->events;
  return status;
}
