/* diff/model.c: the result model's one home: its names, which sites fail a run, freeing a result. */
#include <stdlib.h>
#include <string.h>

#include "diff/diff.h"

/* The names of every format and of the JSON schema; the enums index them. */
static const char *const verdict_names[] = {
    [DIFF_VERDICT_INSUFFICIENT] = "insufficient", [DIFF_VERDICT_STEADY] = "steady",
    [DIFF_VERDICT_SHRINKING] = "shrinking",       [DIFF_VERDICT_GROWING] = "growing",
    [DIFF_VERDICT_NEW] = "new",                   [DIFF_VERDICT_WORSE] = "worse"};
static const char *const mode_names[] = {
    [DIFF_MODE_TREND] = "trend", [DIFF_MODE_RANGE] = "range", [DIFF_MODE_BASE] = "base"};
static const char *const site_kind_names[] = {
    [DIFF_SITE_INTERNAL] = "internal", [DIFF_SITE_LUA] = "lua", [DIFF_SITE_TRACE] = "trace",
    [DIFF_SITE_C] = "c"};

#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

static const char *model_name(const char *const *names, size_t count, unsigned value)
{
  return value < count ? names[value] : "unknown";
}

static int model_lookup(const char *const *names, size_t count, const char *name)
{
  for (size_t i = 0; i < count; i++)
    if (!strcmp(names[i], name))
      return (int)i;
  return -1;
}

const char *diff_verdict_name(enum diff_verdict verdict)
{
  return model_name(verdict_names, COUNT_OF(verdict_names), (unsigned)verdict);
}

int diff_verdict_parse(const char *name, enum diff_verdict *verdict)
{
  int i = model_lookup(verdict_names, COUNT_OF(verdict_names), name);
  if (i < 0)
    return -1;
  *verdict = (enum diff_verdict)i;
  return 0;
}

const char *diff_mode_name(enum diff_mode mode)
{
  return model_name(mode_names, COUNT_OF(mode_names), (unsigned)mode);
}

int diff_mode_parse(const char *name, enum diff_mode *mode)
{
  int i = model_lookup(mode_names, COUNT_OF(mode_names), name);
  if (i < 0)
    return -1;
  *mode = (enum diff_mode)i;
  return 0;
}

const char *diff_site_kind_name(enum diff_site_kind kind)
{
  return model_name(site_kind_names, COUNT_OF(site_kind_names), (unsigned)kind);
}

int diff_site_kind_parse(const char *name, enum diff_site_kind *kind)
{
  int i = model_lookup(site_kind_names, COUNT_OF(site_kind_names), name);
  if (i < 0)
    return -1;
  *kind = (enum diff_site_kind)i;
  return 0;
}

int diff_site_flagged(enum diff_mode mode, const struct diff_site *site)
{
  if (site->verdict == DIFF_VERDICT_NEW || site->verdict == DIFF_VERDICT_WORSE)
    return 1;
  /* In base mode a site that grows in both builds at a like rate is no regression. */
  return mode != DIFF_MODE_BASE && site->verdict == DIFF_VERDICT_GROWING;
}

size_t diff_result_flagged_count(const struct diff_result *result)
{
  size_t flagged = 0;
  for (size_t i = 0; i < result->site_count; i++)
    flagged += (size_t)diff_site_flagged(result->mode, &result->sites[i]);
  return flagged;
}

void diff_capture_free(struct diff_capture *capture)
{
  free(capture->path);
  free(capture->command);
  free(capture->host);
  free(capture->luajit_version);
  free(capture->boundary_times);
  free(capture->gc_cycles);
  free(capture->heap_bytes);
  free(capture->allocated);
  free(capture->forced);
  memset(capture, 0, sizeof *capture);
}

void diff_result_free(struct diff_result *result)
{
  if (!result)
    return;
  for (size_t i = 0; i < result->site_count && result->sites; i++) {
    struct diff_site *site = &result->sites[i];
    free(site->name);
    free(site->source_file);
    free(site->live_bytes);
    free(site->live_blocks);
    free(site->alloc_bytes);
    free(site->free_bytes);
    free(site->base_live_bytes);
  }
  free(result->sites);
  diff_capture_free(&result->capture);
  diff_capture_free(&result->base);
  memset(result, 0, sizeof *result);
}
