/* diff/aggregate.c: merges segment aggregates in order into per-site series; reads segments on worker threads. */
#include "diff/aggregate.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff/sampling.h"

#define AGGREGATE_AHEAD 8  /* touched addresses prefetched ahead in a merge (a power of two) */

int aggregate_init(struct aggregate *aggregate, uint64_t sample)
{
  memset(aggregate, 0, sizeof *aggregate);
  aggregate->sample = sample;
  if (site_table_init(&aggregate->sites) < 0)
    return -1;
  if (live_map_init(&aggregate->live) < 0) {
    site_table_release(&aggregate->sites);
    return -1;
  }
  return 0;
}

static void aggregate_site_release(struct aggregate_site *site)
{
  free(site->series_live_bytes);
  free(site->series_live_blocks);
  free(site->series_alloc_bytes);
  free(site->series_free_bytes);
}

void aggregate_release(struct aggregate *aggregate)
{
  for (size_t i = 0; i < aggregate->sites.count && aggregate->data; i++)
    aggregate_site_release(&aggregate->data[i]);
  free(aggregate->data);
  site_table_release(&aggregate->sites);
  live_map_release(&aggregate->live);
  memset(aggregate, 0, sizeof *aggregate);
}

static int aggregate_series_resize(uint64_t **series, size_t capacity)
{
  uint64_t *bigger = realloc(*series, capacity * sizeof *bigger);
  if (!bigger)
    return -1;
  *series = bigger;
  return 0;
}

static int aggregate_site_reserve(struct aggregate_site *site, size_t capacity)
{
  if (aggregate_series_resize(&site->series_live_bytes, capacity) < 0 ||
      aggregate_series_resize(&site->series_live_blocks, capacity) < 0 ||
      aggregate_series_resize(&site->series_alloc_bytes, capacity) < 0 ||
      aggregate_series_resize(&site->series_free_bytes, capacity) < 0)
    return -1;
  return 0;
}

/* The global index of a segment's site; a new site gets zeros for the boundaries before it. */
static int aggregate_site(struct aggregate *aggregate, const char *name, size_t length,
                          enum diff_site_kind kind, uint32_t *index)
{
  size_t before = aggregate->sites.count;
  if (aggregate->sites.count == aggregate->data_capacity) {
    size_t capacity = aggregate->data_capacity ? aggregate->data_capacity * 2 : 64;
    struct aggregate_site *bigger = realloc(aggregate->data, capacity * sizeof *bigger);
    if (!bigger)
      return -1;
    aggregate->data = bigger;
    aggregate->data_capacity = capacity;
  }
  if (site_table_intern(&aggregate->sites, name, length, kind, index) < 0)
    return -1;
  if (aggregate->sites.count == before)
    return 0;
  struct aggregate_site *site = &aggregate->data[*index];
  memset(site, 0, sizeof *site);
  if (aggregate->series_capacity) {
    if (aggregate_site_reserve(site, aggregate->series_capacity) < 0) {
      aggregate_site_release(site);
      memset(site, 0, sizeof *site);
      return -1;   /* the site stays, with NULL series; aggregate_release copes */
    }
    size_t bytes = aggregate->boundaries * sizeof(uint64_t);
    memset(site->series_live_bytes, 0, bytes);
    memset(site->series_live_blocks, 0, bytes);
    memset(site->series_alloc_bytes, 0, bytes);
    memset(site->series_free_bytes, 0, bytes);
  }
  return 0;
}

/* Ends the capture's block in slot: it was freed, or closed by an alloc over
 * it, during the segment being merged. The caller removes or reuses the slot. */
static void aggregate_end_block(struct aggregate *aggregate, const struct live_block *slot)
{
  uint64_t size = live_map_size(&aggregate->live, slot);
  struct aggregate_site *owner = &aggregate->data[slot->site];
  uint64_t bytes = sampling_bytes(aggregate->sample, size);
  uint64_t blocks = sampling_blocks(aggregate->sample, size);
  owner->live_bytes -= bytes;
  owner->live_blocks -= blocks;
  owner->segment_free_bytes += bytes;
  owner->frees += blocks;
}

static int aggregate_boundary(struct aggregate *aggregate)
{
  size_t at = aggregate->boundaries;
  if (at == aggregate->series_capacity) {
    size_t capacity = aggregate->series_capacity ? aggregate->series_capacity * 2 : 16;
    for (size_t i = 0; i < aggregate->sites.count; i++)
      if (aggregate_site_reserve(&aggregate->data[i], capacity) < 0)
        return -1;
    aggregate->series_capacity = capacity;
  }
  for (size_t i = 0; i < aggregate->sites.count; i++) {
    struct aggregate_site *site = &aggregate->data[i];
    /* young blocks wait for the next boundary: they may be garbage the
     * segment's final GC cycle could not yet collect */
    site->series_live_bytes[at] = site->live_bytes - site->young_bytes;
    site->series_live_blocks[at] = site->live_blocks - site->young_blocks;
    site->young_bytes = site->young_blocks = 0;
    site->series_alloc_bytes[at] = site->segment_alloc_bytes;
    site->series_free_bytes[at] = site->segment_free_bytes;
    site->segment_alloc_bytes = site->segment_free_bytes = 0;
  }
  aggregate->boundaries++;
  return 0;
}

int aggregate_merge(struct aggregate *aggregate, const struct segment_aggregate *segment)
{
  size_t local_count = segment->sites.count;
  uint32_t *global = malloc((local_count ? local_count : 1) * sizeof *global);
  if (!global)
    return -1;
  for (size_t i = 0; i < local_count; i++)
    if (aggregate_site(aggregate, segment->sites.names[i], segment->sites.lengths[i],
                       segment->sites.kinds[i], &global[i]) < 0) {
      free(global);
      return -1;
    }
  /* One step per touched address: the block the capture held there (if any)
   * ended in this segment; a block live at the segment's end is born. The
   * capture's slots are prefetched AGGREGATE_AHEAD addresses ahead. */
  const struct live_map *touched = &segment->touched;
  struct live_map *live = &aggregate->live;
  size_t slot_count = touched->count ? touched->mask + 1 : 0;
  size_t hashes[AGGREGATE_AHEAD] = {0};
  for (size_t i = 0; i < AGGREGATE_AHEAD && i < slot_count; i++)
    if (touched->slots[i].address) {
      hashes[i] = live_map_hash(touched->slots[i].address);
      live_map_prefetch(live, hashes[i]);
    }
  for (size_t i = 0; i < slot_count; i++) {
    const struct live_block *block = &touched->slots[i];
    size_t hash = block->address ? hashes[i & (AGGREGATE_AHEAD - 1)] : 0;
    size_t ahead = i + AGGREGATE_AHEAD;
    if (ahead < slot_count && touched->slots[ahead].address) {
      hashes[ahead & (AGGREGATE_AHEAD - 1)] = live_map_hash(touched->slots[ahead].address);
      live_map_prefetch(live, hashes[ahead & (AGGREGATE_AHEAD - 1)]);
    }
    if (!block->address)
      continue;
    struct live_block *slot = live_map_find_hashed(live, block->address, hash);
    if (slot)
      aggregate_end_block(aggregate, slot);
    if (block->site == LIVE_MAP_DEAD) {
      if (slot)
        live_map_remove_slot(live, slot);
      continue;
    }
    if (!slot) {
      int created;
      slot = live_map_insert_hashed(live, block->address, hash, &created);
      if (!slot) {
        free(global);
        return -1;
      }
    }
    uint64_t size = live_map_size(touched, block);
    slot->site = global[block->site & LIVE_MAP_SITE_MASK];
    if (live_map_set_size(live, slot, size) < 0) {
      live_map_remove_slot(live, slot);
      free(global);
      return -1;
    }
    struct aggregate_site *owner = &aggregate->data[slot->site];
    uint64_t bytes = sampling_bytes(aggregate->sample, size);
    uint64_t blocks = sampling_blocks(aggregate->sample, size);
    owner->live_bytes += bytes;
    owner->live_blocks += blocks;
    if (block->site & LIVE_MAP_YOUNG) {
      owner->young_bytes += bytes;
      owner->young_blocks += blocks;
    }
  }
  for (size_t i = 0; i < local_count; i++) {
    struct aggregate_site *site = &aggregate->data[global[i]];
    const struct segment_site *stats = &segment->stats[i];
    site->segment_alloc_bytes += stats->alloc_bytes;
    site->segment_free_bytes += stats->free_bytes;
    site->allocs += stats->allocs;
    site->frees += stats->frees;
  }
  free(global);
  aggregate->events += segment->events;
  return segment->cut_short ? 0 : aggregate_boundary(aggregate);
}

/* ---- Reading a capture ---------------------------------------------------- */

static void aggregate_fail_memory(struct diff_error *err)
{
  err->status = DIFF_ERROR_MEMORY;
  snprintf(err->message, sizeof err->message, "out of memory");
}

/* A read segment: warn about a cut, then merge. */
static enum diff_status aggregate_take(struct aggregate *aggregate, struct capture *capture,
                                       struct segment_aggregate *segment,
                                       const struct diff_options *options,
                                       struct diff_error *err)
{
  if (segment->truncated) {
    capture->info.truncated = 1;
    if (options->strict) {
      err->status = DIFF_ERROR_TRUNCATED;
      snprintf(err->message, sizeof err->message, "%s", segment->warning);
      return err->status;
    }
    if (options->warn)
      options->warn(options->warn_context, segment->warning);
  }
  if (aggregate_merge(aggregate, segment) < 0) {
    aggregate_fail_memory(err);
    return err->status;
  }
  return DIFF_OK;
}

static enum diff_status aggregate_sequential(struct aggregate *aggregate, struct capture *capture,
                                             const struct diff_options *options,
                                             struct diff_error *err)
{
  uint64_t done = 0;
  struct segment_aggregate segment;  /* one, emptied between segments: its memory is reused */
  if (segment_aggregate_init(&segment) < 0) {
    aggregate_fail_memory(err);
    return err->status;
  }
  for (size_t i = 0; i < capture->count; i++) {
    enum diff_status status = DIFF_OK;
    if (i && segment_aggregate_reset(&segment) < 0) {
      aggregate_fail_memory(err);
      status = err->status;
    }
    if (status == DIFF_OK)
    {
      segment.young_from = capture->segments[i].young_from;
      segment.cut_short = capture->segments[i].cut_short;
      status = segment_aggregate_read(&segment, capture->segments[i].path, aggregate->sample, err);
    }
    if (status == DIFF_OK)
      status = aggregate_take(aggregate, capture, &segment, options, err);
    if (status != DIFF_OK) {
      segment_aggregate_release(&segment);
      return status;
    }
    done += capture->segments[i].file_bytes;
    if (options->progress)
      options->progress(options->progress_context, done, capture->total_bytes);
  }
  segment_aggregate_release(&segment);
  return DIFF_OK;
}

/* Workers claim segments in order and read them; the main thread merges them
 * in order. A worker waits before claiming a segment more than `window`
 * ahead of the merge, which bounds memory to window segment aggregates.
 * Merged aggregates go back to a pool and are emptied by the worker that
 * takes one, so their tables keep their size from segment to segment and the
 * main thread only merges. */
struct pipeline_slot {
  struct segment_aggregate *segment;  /* owned while ready is 1 */
  enum diff_status status;
  struct diff_error error;
  int ready;
};

struct pipeline {
  pthread_mutex_t lock;
  pthread_cond_t changed;
  struct capture *capture;
  uint64_t sample;
  struct pipeline_slot *slots;   /* [capture->count] */
  struct segment_aggregate **spare;  /* [window] merged, ready to be emptied and reused */
  size_t spare_count;
  size_t next, merged, window;
  int stop;
};

static void pipeline_fail_memory(struct pipeline_slot *slot)
{
  slot->status = DIFF_ERROR_MEMORY;
  snprintf(slot->error.message, sizeof slot->error.message, "out of memory");
}

/* A pooled aggregate emptied, or a new one; NULL when out of memory. */
static struct segment_aggregate *pipeline_take_aggregate(struct segment_aggregate *spare)
{
  if (spare) {
    if (segment_aggregate_reset(spare) == 0)
      return spare;
    segment_aggregate_release(spare);
    free(spare);
    return NULL;
  }
  struct segment_aggregate *segment = malloc(sizeof *segment);
  if (segment && segment_aggregate_init(segment) < 0) {
    free(segment);
    segment = NULL;
  }
  return segment;
}

static void pipeline_drop_aggregate(struct segment_aggregate *segment)
{
  if (segment) {
    segment_aggregate_release(segment);
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
    struct segment_aggregate *spare =
        pipeline->spare_count ? pipeline->spare[--pipeline->spare_count] : NULL;
    pthread_mutex_unlock(&pipeline->lock);

    struct pipeline_slot *slot = &pipeline->slots[index];
    slot->segment = pipeline_take_aggregate(spare);
    if (!slot->segment) {
      pipeline_fail_memory(slot);
    } else {
      slot->segment->young_from = pipeline->capture->segments[index].young_from;
      slot->segment->cut_short = pipeline->capture->segments[index].cut_short;
      slot->status = segment_aggregate_read(slot->segment, pipeline->capture->segments[index].path,
                                            pipeline->sample, &slot->error);
    }
    pthread_mutex_lock(&pipeline->lock);
    slot->ready = 1;
    pthread_cond_broadcast(&pipeline->changed);
    pthread_mutex_unlock(&pipeline->lock);
  }
}

static enum diff_status aggregate_parallel(struct aggregate *aggregate, struct capture *capture,
                                           const struct diff_options *options,
                                           struct diff_error *err)
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
  enum diff_status status = DIFF_OK;
  if (!started) {
    aggregate_fail_memory(err);
    status = err->status;
  }
  uint64_t done = 0;
  for (size_t i = 0; status == DIFF_OK && i < capture->count; i++) {
    struct pipeline_slot *slot = &pipeline.slots[i];
    pthread_mutex_lock(&pipeline.lock);
    while (!slot->ready)
      pthread_cond_wait(&pipeline.changed, &pipeline.lock);
    pthread_mutex_unlock(&pipeline.lock);
    status = slot->status;
    if (status != DIFF_OK)
      *err = slot->error;
    else
      status = aggregate_take(aggregate, capture, slot->segment, options, err);
    pthread_mutex_lock(&pipeline.lock);
    if (slot->segment && pipeline.spare_count < pipeline.window)  /* always room: see window */
      pipeline.spare[pipeline.spare_count++] = slot->segment;
    else
      pipeline_drop_aggregate(slot->segment);
    slot->segment = NULL;
    slot->ready = 2;  /* merged */
    pipeline.merged = i + 1;
    if (status != DIFF_OK)
      pipeline.stop = 1;
    pthread_cond_broadcast(&pipeline.changed);
    pthread_mutex_unlock(&pipeline.lock);
    done += capture->segments[i].file_bytes;
    if (status == DIFF_OK && options->progress)
      options->progress(options->progress_context, done, capture->total_bytes);
  }
  if (status != DIFF_OK) {
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

enum diff_status aggregate_capture(struct aggregate *aggregate, struct capture *capture,
                                   const struct diff_options *options, struct diff_error *err)
{
  err->status = DIFF_OK;
  err->message[0] = '\0';
  enum diff_status status = options->jobs > 1 && capture->count > 1
                                ? aggregate_parallel(aggregate, capture, options, err)
                                : aggregate_sequential(aggregate, capture, options, err);
  capture->info.events = aggregate->events;
  return status;
}
