/* tests/diff_result_fixture.h: builds diff results by hand (every string and array owned, as diff_result_free expects). */
#ifndef LJLEAK_TESTS_DIFF_RESULT_FIXTURE_H
#define LJLEAK_TESTS_DIFF_RESULT_FIXTURE_H

#include <stdlib.h>
#include <string.h>

#include "diff/diff.h"

static inline uint64_t *fixture_series_copy(const uint64_t *series, size_t n)
{
  uint64_t *copy = malloc((n ? n : 1) * sizeof *copy);
  if (!copy)
    abort();
  if (n)
    memcpy(copy, series, n * sizeof *copy);
  return copy;
}

/* An empty result of mode over boundaries boundaries, with default options. */
static inline void fixture_result(struct diff_result *r, enum diff_mode mode, size_t boundaries)
{
  memset(r, 0, sizeof *r);
  r->mode = mode;
  diff_options_default(&r->options);
  r->capture.boundary_count = boundaries;
}

/* Adds a site named name with its live bytes; returns it (valid until the next add). */
static inline struct diff_site *fixture_add_site(struct diff_result *r, const char *name,
                                                 enum diff_verdict verdict,
                                                 const uint64_t *series, size_t n)
{
  struct diff_site *sites = realloc(r->sites, (r->site_count + 1) * sizeof *sites);
  if (!sites)
    abort();
  r->sites = sites;
  struct diff_site *site = &sites[r->site_count++];
  memset(site, 0, sizeof *site);
  site->name = strdup(name);
  if (!site->name)
    abort();
  site->verdict = verdict;
  site->base_verdict = DIFF_VERDICT_INSUFFICIENT;
  site->count = n;
  site->live_bytes = fixture_series_copy(series, n);
  return site;
}

/* The site named name, or NULL. */
static inline const struct diff_site *fixture_site(const struct diff_result *r, const char *name)
{
  for (size_t i = 0; i < r->site_count; i++)
    if (!strcmp(r->sites[i].name, name))
      return &r->sites[i];
  return NULL;
}

#endif
