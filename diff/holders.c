/* diff/holders.c: the engine's holders step: a capture's snapshots, the blocks live at their boundaries, the holders of each growing site (docs/diff.md, "Holders"). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff/holders.h"
#include "diff/holders_snapshots.h"
#include "diff/sampling.h"

/* ---- The engine's step -------------------------------------------------------- */

void holders_warn(const struct diff_options *options, const char *message)
{
  if (options->warn)
    options->warn(options->warn_context, message);
}

/* Whether a site's holders are looked for: it grew. */
static int holders_wanted(const struct diff_site *site)
{
  return site->verdict == DIFF_VERDICT_GROWING || site->verdict == DIFF_VERDICT_NEW ||
         site->verdict == DIFF_VERDICT_WORSE || site->verdict == DIFF_VERDICT_UNDECIDED;
}

int diff_holders_prepare(struct diff_holders *holders, struct diff_source *capture)
{
  memset(holders, 0, sizeof *holders);
  const struct capture_files *files = &capture->files;
  if (!files->has_index)
    return 0;
  capture->keep_blocks = 1;
  holders->listed = files->index.snapshot_count;
  holders->pid = (uint64_t)files->index.capture.pid;
  holders->start = files->index.capture.start;
  holders->snapshots = calloc(files->snapshot_count ? files->snapshot_count : 1, sizeof *holders->snapshots);
  if (!holders->snapshots)
    return -1;
  for (size_t i = files->snapshot_count; i-- > 0 && holders->count < DIFF_HOLDERS_MAX_SNAPSHOTS;) {
    size_t at = diff_source_snapshot_at(capture, i);
    if (at == DIFF_SOURCE_NOWHERE)
      continue;
    struct diff_holders_snapshot *snapshot = &holders->snapshots[holders->count];
    if (!(snapshot->path = strdup(files->snapshots[i].path)))
      return -1;
    snapshot->boundary = files->snapshots[i].line->boundary;
    snapshot->at = at;
    if (at != DIFF_HOLDERS_AT_END)
      capture->boundaries[at].keep = 1;
    holders->count++;
  }
  return 0;
}

void diff_holders_release(struct diff_holders *holders)
{
  for (size_t i = 0; i < holders->count; i++)
    free(holders->snapshots[i].path);
  free(holders->snapshots);
  memset(holders, 0, sizeof *holders);
}

/* The blocks at (aggregate's live map, or its blocks at a kept boundary) whose site is one of
 * the wanted sites (by name), each with its index among them. -1 when out of memory. */
static int holders_blocks(const struct diff_aggregate_at *at, struct diff_site *const *wanted,
                          size_t wanted_count, struct diff_holders_block **out, size_t *count)
{
  const struct diff_aggregate *aggregate = at->aggregate;
  size_t global_count = aggregate->sites.count;
  uint32_t *result_of = malloc((global_count ? global_count : 1) * sizeof *result_of);
  const struct diff_live_map *live = &aggregate->live;
  *count = 0;
  *out = NULL;
  if (!result_of)
    return -1;
  for (size_t i = 0; i < global_count; i++)
    result_of[i] = DIFF_HOLDERS_NONE;
  for (size_t i = 0; i < wanted_count; i++) {
    uint32_t global = diff_site_table_find(&aggregate->sites, wanted[i]->name, strlen(wanted[i]->name));
    if (global != DIFF_SITE_TABLE_NONE)
      result_of[global] = (uint32_t)i;
  }
  /* Counted first, then copied: the wanted sites' blocks may be a few of a big heap's. */
  size_t end = at->kept ? at->kept->count : live->slots ? live->slot_count : 0, wanted_blocks = 0;
  for (int pass = 0; pass < 2; pass++) {
    if (pass && !(*out = malloc((wanted_blocks ? wanted_blocks : 1) * sizeof **out))) {
      free(result_of);
      return -1;
    }
    for (size_t i = 0; i < end; i++) {
      const struct diff_live_block *slot = at->kept ? NULL : &live->slots[i];
      uint64_t address = slot ? slot->address : at->kept->blocks[i].address;
      uint32_t owner = slot ? slot->site : at->kept->blocks[i].owner;
      if (!address || owner >= aggregate->owners.count)
        continue;
      uint32_t global = aggregate->owners.sites[owner];
      if (global >= global_count || result_of[global] == DIFF_HOLDERS_NONE)
        continue;
      if (!pass)
        wanted_blocks++;
      else
        (*out)[(*count)++] = (struct diff_holders_block){
            address, slot ? live_map_size(live, slot) : diff_aggregate_kept_size(at->kept, i), result_of[global]};
    }
  }
  free(result_of);
  return 0;
}

/* The capture read again up to its boundary at (exactly: every block live
 * there, none after), into aggregate. */
enum format_status holders_replay(struct diff_source *capture, size_t at,
                                  struct diff_aggregate *aggregate,
                                  const struct diff_options *options, struct format_error *err)
{
  size_t last = SIZE_MAX;
  for (size_t p = 0; p < capture->piece_count; p++)
    if (capture->pieces[p].boundary_end && capture->pieces[p].boundary == at) {
      last = p;
      break;
    }
  if (last == SIZE_MAX)
    return FORMAT_OK;  /* never reached: nothing is live there that the capture shows */
  size_t segment = capture->pieces[last].segment;
  struct diff_source cut = *capture;
  cut.segments = malloc((segment + 1) * sizeof *cut.segments);
  if (!cut.segments)
    return FORMAT_NO_MEMORY;
  memcpy(cut.segments, capture->segments, (segment + 1) * sizeof *cut.segments);
  cut.count = segment + 1;
  cut.segments[segment].piece_count = last - cut.segments[segment].first_piece + 1;
  cut.piece_count = last + 1;
  cut.boundary_count = at + 1;
  cut.dropped_warning = NULL;
  cut.stop_warning = NULL;
  cut.keep_blocks = 0;
  struct diff_options quiet = *options;
  quiet.warn = NULL;        /* the first reading warned already */
  quiet.progress = NULL;
  enum format_status status = diff_aggregate_capture(aggregate, &cut, &quiet, err);
  free(cut.segments);
  return status;
}

static uint64_t holders_bytes(const struct diff_site *site)
{
  uint64_t bytes = 0;
  for (size_t i = 0; i < site->holder_count; i++)
    bytes += site->holders[i].bytes;
  return bytes;
}

static void holders_drop(struct diff_site *site)
{
  for (size_t i = 0; i < site->holder_count && site->holders; i++) {
    free(site->holders[i].path);
    free(site->holders[i].holder_type);
  }
  free(site->holders);
  site->holders = NULL;
  site->holder_count = 0;
  if (site->container)
    free(site->container->type), free(site->container->path), free(site->container->site);
  free(site->container);
  site->container = NULL;
  memset(site->kinds, 0, sizeof site->kinds);
}

/* Reads entry's snapshot, refused (with a warning: no WHAT from it) when it is unreadable or
 * another capture's; a cut one is read, with a warning when warn_cut. 0 read, 1 refused,
 * -1 out of memory. */
int holders_read(const struct diff_holders *holders, const struct diff_holders_snapshot *entry,
                 struct snapshot *snapshot, const char *what, int warn_cut,
                 const struct diff_options *options)
{
  struct format_error error, foreign;
  enum format_status read = snapshot_read_file(snapshot, entry->path, INPUT_FILE_FOUND, &error);
  if (read == FORMAT_NO_MEMORY)
    return -1;
  if ((read == FORMAT_OK || read == FORMAT_CUT) &&
      snapshot_check_capture(snapshot, entry->path, holders->pid, holders->start, &foreign) != FORMAT_OK) {
    error = foreign;
    read = FORMAT_BAD_INPUT;
  }
  if (read != FORMAT_OK && read != FORMAT_CUT) {
    format_error_set(&error, read, "%s; no %s from it", error.message, what);
    holders_warn(options, error.message);
    return 1;
  }
  if (read == FORMAT_CUT && warn_cut)
    holders_warn(options, error.message);
  return 0;
}

/* A sampled capture: each wanted site's ratios of what its recorded blocks stand for (bytes and
 * blocks, scaled back as its series are: diff/sampling.h) to what they are, into ratio[2 * i]
 * and ratio[2 * i + 1]. */
static void holders_sample_ratios(const struct diff_holders_block *blocks, size_t count, uint64_t sample,
                                  size_t wanted_count, double *ratio)
{
  double *raw = ratio + 2 * wanted_count;  /* scratch: the recorded bytes and blocks */
  for (size_t i = 0; i < 4 * wanted_count; i++)
    ratio[i] = 0;
  for (size_t b = 0; b < count; b++) {
    ratio[2 * blocks[b].site] += (double)sampling_bytes(sample, blocks[b].size);
    ratio[2 * blocks[b].site + 1] += (double)sampling_blocks(sample, blocks[b].size);
    raw[2 * blocks[b].site] += (double)blocks[b].size;
    raw[2 * blocks[b].site + 1] += 1;
  }
  for (size_t i = 0; i < 2 * wanted_count; i++)
    ratio[i] = raw[i] > 0 ? ratio[i] / raw[i] : 1;
}

static uint64_t holders_scaled(uint64_t value, double ratio)
{
  return (uint64_t)llround((double)value * ratio);
}

static void holders_scale_kinds(struct diff_kind_count *kinds, double bytes, double blocks)
{
  for (size_t k = 0; k < DIFF_KIND_COUNT; k++) {
    kinds[k].objects = holders_scaled(kinds[k].objects, blocks);
    kinds[k].bytes = holders_scaled(kinds[k].bytes, bytes);
    kinds[k].parts = holders_scaled(kinds[k].parts, blocks);
    kinds[k].part_bytes = holders_scaled(kinds[k].part_bytes, bytes);
  }
}

/* What a site's recorded blocks hold, scaled back to what they stand for (the objects and bytes
 * of its holders, kinds and container; the retained sizes are the snapshot's, whole). */
static void holders_scale(struct diff_site *site, double bytes, double blocks)
{
  for (size_t i = 0; i < site->holder_count; i++) {
    site->holders[i].objects = holders_scaled(site->holders[i].objects, blocks);
    site->holders[i].bytes = holders_scaled(site->holders[i].bytes, bytes);
  }
  holders_scale_kinds(site->kinds, bytes, blocks);
  struct diff_site_container *c = site->container;
  if (!c)
    return;
  c->objects = holders_scaled(c->objects, blocks);
  c->bytes = holders_scaled(c->bytes, bytes);
  c->shared_objects = holders_scaled(c->shared_objects, blocks);
  holders_scale_kinds(c->kinds, bytes, blocks);
  for (size_t k = 0; k < DIFF_KIND_COUNT; k++)
    c->shared_kinds[k] = holders_scaled(c->shared_kinds[k], blocks);
}

/* One snapshot: read, checked against the capture, joined with the wanted sites' blocks live
 * at its boundary into scratch. The blocks are listed once the snapshot is read, and freed
 * once joined: the snapshot's arrays and theirs are not all held at once. */
static int holders_one(const struct diff_holders *holders, const struct diff_holders_snapshot *entry,
                       struct diff_site *const *wanted, struct diff_site **scratch, size_t wanted_count,
                       const struct diff_aggregate_at *at, const struct diff_options *options)
{
  struct snapshot snapshot;
  struct diff_holders_block *blocks = NULL;
  size_t count = 0;
  memset(&snapshot, 0, sizeof snapshot);
  int read = holders_read(holders, entry, &snapshot, "holders", 1, options);
  int status = read < 0 ? -1 : 0;
  uint64_t sample = at->aggregate->sample;
  double *ratio = NULL;
  if (read == 0)
    status = holders_blocks(at, wanted, wanted_count, &blocks, &count);
  if (status == 0 && read == 0 && count && sample) {
    if ((ratio = malloc(4 * wanted_count * sizeof *ratio)))
      holders_sample_ratios(blocks, count, sample, wanted_count, ratio);
    else
      status = -1;
  }
  if (status == 0 && read == 0 && count)  /* and the suspects' step on the same reading (diff/suspects.h) */
    status = diff_holders_analyse_suspects(&snapshot, &blocks, count, scratch, wanted_count, at,
                                           entry->boundary, holders->growing, holders->growing_count);
  for (size_t i = 0; status == 0 && ratio && i < wanted_count; i++)
    holders_scale(scratch[i], ratio[2 * i], ratio[2 * i + 1]);
  free(ratio);
  free(blocks);
  snapshot_free(&snapshot);
  return status;
}

int diff_holders_all_kept(const struct diff_holders *holders, const struct diff_aggregate *aggregate)
{
  for (size_t s = 0; s < holders->count; s++)
    if (holders->snapshots[s].at == DIFF_HOLDERS_AT_END || !diff_aggregate_kept_at(aggregate, holders->snapshots[s].at))
      return 0;
  return holders->count > 0;
}

/* Whether c is one of the growing containers (by address). */
static int holders_growing(const struct diff_holders *holders, const struct diff_site_container *c)
{
  for (size_t j = 0; c && j < holders->growing_count; j++)
    if (holders->growing[j].address && holders->growing[j].address == c->address)
      return 1;
  return 0;
}

int diff_holders_find(struct diff_holders *holders, struct diff_source *capture,
                      const struct diff_aggregate *aggregate, struct diff_site *result_sites,
                      size_t site_count, struct diff_capture *info,
                      const struct diff_options *options, struct format_error *err)
{
  info->snapshots = holders->listed;
  if (!holders->count)
    return 0;
  size_t wanted_count = 0;
  struct diff_site **wanted = calloc(site_count ? site_count : 1, sizeof *wanted);
  struct diff_site *scratch = calloc(site_count ? site_count : 1, sizeof *scratch);
  struct diff_site **scratch_of = calloc(site_count ? site_count : 1, sizeof *scratch_of);
  int status = -1;
  if (!wanted || !scratch || !scratch_of)
    goto done;
  for (size_t i = 0; i < site_count; i++) {
    struct diff_site *site = &result_sites[i];
    if (site->is_stack || !holders_wanted(site))
      continue;
    scratch_of[wanted_count] = &scratch[wanted_count];
    wanted[wanted_count++] = site;
  }
  status = 0;
  for (size_t s = 0; s < holders->count && wanted_count && status == 0; s++) {
    const struct diff_holders_snapshot *entry = &holders->snapshots[s];
    /* The blocks live at its boundary: the whole capture's at the exit, else those the reading
     * kept there, else the capture read again up to it, kept for the suspects' step (who made
     * each container). */
    struct diff_aggregate prefix;
    struct diff_aggregate_at at = {aggregate, NULL};
    int have_prefix = 0;
    if (entry->at != DIFF_HOLDERS_AT_END && !(at.kept = diff_aggregate_kept_at(aggregate, entry->at))) {
      if (diff_aggregate_init(&prefix, capture->info.sample_bytes) < 0) {
        status = -1;
        break;
      }
      have_prefix = 1;
      at.aggregate = &prefix;
      if (holders_replay(capture, entry->at, &prefix, options, err) != FORMAT_OK)
        status = -1;
    }
    if (status == 0)
      status = holders_one(holders, entry, wanted, scratch_of, wanted_count, &at, options);
    if (have_prefix)
      diff_aggregate_release(&prefix);
    /* Newest first: an older one must hold more, and cannot take a site whose container grows
     * (it holds the growth at the newest). */
    for (size_t i = 0; i < wanted_count; i++) {
      if (status == 0 && scratch[i].holder_count && holders_bytes(&scratch[i]) > holders_bytes(wanted[i]) &&
          !holders_growing(holders, wanted[i]->container)) {
        holders_drop(wanted[i]);  /* the holders, kinds and container of one snapshot */
        wanted[i]->holders = scratch[i].holders;
        wanted[i]->holder_count = scratch[i].holder_count;
        wanted[i]->holders_boundary = entry->boundary;
        wanted[i]->container = scratch[i].container;
        memcpy(wanted[i]->kinds, scratch[i].kinds, sizeof wanted[i]->kinds);
        scratch[i].holders = NULL;
        scratch[i].holder_count = 0;
        scratch[i].container = NULL;
      }
      holders_drop(&scratch[i]);
    }
  }
done:
  free(wanted);
  free(scratch);
  free(scratch_of);
  return status;
}
