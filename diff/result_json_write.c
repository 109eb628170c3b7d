/* diff/result_json_write.c: the JSON result (docs/json-schema.md): one object, stable names, exact numbers; the model's writer, beside its reader (diff/result_json_read.c). */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "diff/diff.h"
#include "diff/suspects.h"
#include "format/json_write.h"

/* What an array of numbers holds. */
enum array_type { ARRAY_UINT, ARRAY_DOUBLE, ARRAY_BOOL };

/* A member whose value is count numbers (uint64_t, double or unsigned char as true and false)
 * on one line, or null when values is NULL. */
static void put_array(struct json_writer *w, const char *key, const void *values, size_t count,
                      enum array_type type)
{
  json_write_key(w, key);
  if (!values) {
    fputs("null", w->out);
    return;
  }
  json_write_open_line(w, '[');
  for (size_t i = 0; i < count; i++) {
    json_write_item(w);
    if (type == ARRAY_UINT)
      fprintf(w->out, "%" PRIu64, ((const uint64_t *)values)[i]);
    else if (type == ARRAY_DOUBLE)
      json_write_double(w->out, ((const double *)values)[i]);
    else
      fputs(((const unsigned char *)values)[i] ? "true" : "false", w->out);
  }
  json_write_close(w, ']');
}

static void put_uint_array(struct json_writer *w, const char *key, const uint64_t *values, size_t count)
{
  put_array(w, key, values, count, ARRAY_UINT);
}

void diff_capture_write_labels(struct json_writer *w, const struct diff_capture *capture)
{
  json_write_key(w, "labels");
  json_write_open(w, '{');
  for (size_t i = 0; i < capture->label_count; i++)
    json_write_member_string(w, capture->labels[i].key, capture->labels[i].value);
  json_write_close(w, '}');
}

static void put_capture(struct json_writer *w, const char *key, const struct diff_capture *c)
{
  json_write_key(w, key);
  json_write_open(w, '{');
  json_write_member_string(w, "path", c->path);
  json_write_member_string(w, "command", c->command);
  json_write_member_string(w, "host", c->host);
  json_write_member_int(w, "pid", c->pid);
  json_write_member_string(w, "luajit_version", c->luajit_version);
  json_write_member_uint(w, "sample_bytes", c->sample_bytes);
  json_write_member_uint(w, "boundary_count", c->boundary_count);
  put_array(w, "boundary_times", c->boundary_times, c->boundary_count, ARRAY_DOUBLE);
  put_uint_array(w, "gc_cycles", c->gc_cycles, c->boundary_count);
  put_uint_array(w, "heap_bytes", c->heap_bytes, c->boundary_count);
  /* From the index's boundary lines only; absent otherwise, as before them. */
  if (c->allocated)
    put_uint_array(w, "boundary_allocated", c->allocated, c->boundary_count);
  if (c->forced)
    put_array(w, "boundary_forced", c->forced, c->boundary_count, ARRAY_BOOL);
  if (c->run_allocated)
    json_write_member_uint(w, "run_allocated", c->run_allocated);
  json_write_member_double(w, "start_time", c->start_time);
  json_write_member_uint(w, "events", c->events);
  json_write_member_bool(w, "truncated", c->truncated);
  /* Only when the index gave them, so results of earlier captures keep their bytes. */
  if (c->exe)
    json_write_member_string(w, "exe", c->exe);
  if (c->stop_time)
    json_write_member_double(w, "stop_time", c->stop_time);
  if (c->stop_reason)
    json_write_member_string(w, "stop_reason", c->stop_reason);
  if (c->label_count)
    diff_capture_write_labels(w, c);
  if (c->snapshots)  /* absent: no heap snapshot, as before holders */
    json_write_member_uint(w, "snapshots", c->snapshots);
  json_write_close(w, '}');
}

static void put_options(struct json_writer *w, const struct diff_options *o)
{
  json_write_key(w, "options");
  json_write_open(w, '{');
  json_write_member_uint(w, "min_boundaries", o->min_boundaries);
  json_write_member_double(w, "max_p_value", o->max_p_value);
  json_write_member_double(w, "min_growth_bytes", o->min_growth_bytes);
  json_write_member_double(w, "worse_ratio", o->worse_ratio);
  json_write_member_uint(w, "range_from", o->range_from);
  json_write_member_uint(w, "range_to", o->range_to);
  json_write_member_bool(w, "strict", o->strict);
  json_write_member_int(w, "jobs", o->jobs);
  json_write_member_double(w, "min_growth_fraction", o->min_growth_fraction);
  json_write_member_uint(w, "warmup", o->warmup);
  if (o->by != DIFF_BY_SITE)  /* absent: by site, as before stacks */
    json_write_member_string(w, "by", diff_by_name(o->by));
  json_write_close(w, '}');
}

/* The allow-list rule a site matched, or null. */
static void put_allowance(struct json_writer *w, const struct diff_allowance *a)
{
  json_write_key(w, "allow");
  if (!a) {
    fputs("null", w->out);
    return;
  }
  json_write_open(w, '{');
  json_write_member_string(w, "pattern", a->pattern);
  json_write_member_string(w, "budget", a->budget);
  json_write_member_double(w, "budget_bytes", a->budget_bytes);
  json_write_member_string(w, "per", a->per_megabyte ? "MB" : "boundary");
  json_write_member_string(w, "comment", a->comment);
  json_write_member_string(w, "file", a->file);
  json_write_member_uint(w, "line", a->line);
  json_write_member_double(w, "growth", a->growth);
  json_write_close(w, '}');
}

/* A stack's site and frames (leaf first), after its site-like members. */
static void put_stack_frames(struct json_writer *w, const struct diff_site *s)
{
  json_write_member_bool(w, "stack", 1);
  json_write_key(w, "site_id");
  fprintf(w->out, "\"%016" PRIx64 "\"", s->site_id);
  json_write_key(w, "frames");
  json_write_open(w, '[');
  for (size_t i = 0; i < s->frame_count; i++) {
    const struct diff_frame *f = &s->frames[i];
    json_write_open_record(w);
    json_write_member_string(w, "kind", diff_frame_kind_name(f->kind));
    json_write_member_string(w, "name", f->name);
    json_write_member_uint(w, "defined", f->defined);
    json_write_member_uint(w, "line", f->line);
    json_write_close(w, '}');
  }
  json_write_close(w, ']');
}

/* The paths that hold a growing site's blocks at a heap snapshot. */
static void put_holders(struct json_writer *w, const struct diff_site *s)
{
  json_write_key(w, "holders");
  json_write_open(w, '[');
  for (size_t i = 0; i < s->holder_count; i++) {
    const struct diff_holder *h = &s->holders[i];
    json_write_open_record(w);
    json_write_member_string(w, "path", h->path);
    json_write_member_uint(w, "objects", h->objects);
    json_write_member_uint(w, "bytes", h->bytes);
    json_write_member_string(w, "holder_type", h->holder_type);
    json_write_member_uint(w, "retained_bytes", h->retained_bytes);
    json_write_close(w, '}');
  }
  json_write_close(w, ']');
}

/* Objects by kind, most bytes first: [{"kind", "objects", "bytes"}, ...], with "parts" and
 * "part_bytes" when some are only parts. */
static void put_kinds(struct json_writer *w, const struct diff_kind_count *kinds)
{
  size_t order[DIFF_KIND_COUNT];
  size_t n = diff_kinds_order(kinds, order);
  json_write_key(w, "kinds");
  json_write_open(w, '[');
  for (size_t i = 0; i < n; i++) {
    json_write_open_record(w);
    json_write_member_string(w, "kind", diff_kind_name(order[i]));
    json_write_member_uint(w, "objects", kinds[order[i]].objects);
    json_write_member_uint(w, "bytes", kinds[order[i]].bytes);
    if (kinds[order[i]].parts) {
      json_write_member_uint(w, "parts", kinds[order[i]].parts);
      json_write_member_uint(w, "part_bytes", kinds[order[i]].part_bytes);
    }
    json_write_close(w, '}');
  }
  json_write_close(w, ']');
}

/* The container of a site's objects at its holders' snapshot. */
static void put_site_container(struct json_writer *w, const struct diff_site_container *c)
{
  json_write_key(w, "container");
  json_write_open(w, '{');
  json_write_key(w, "address");
  fprintf(w->out, "\"0x%" PRIx64 "\"", c->address);
  json_write_member_string(w, "type", c->type);
  json_write_member_string(w, "path", c->path);
  json_write_member_bool(w, "named", c->named);
  json_write_member_string(w, "site", c->site);
  json_write_member_uint(w, "retained_bytes", c->retained_bytes);
  json_write_member_uint(w, "objects", c->objects);
  json_write_member_uint(w, "bytes", c->bytes);
  if (diff_kinds_order(c->kinds, NULL))
    put_kinds(w, c->kinds);
  json_write_member_uint(w, "boundary", c->boundary);
  if (c->key_address) {
    json_write_key(w, "key_address");
    fprintf(w->out, "\"0x%" PRIx64 "\"", c->key_address);
    if (diff_key_slots_name(c->key_slots))
      json_write_member_string(w, "key_slots", diff_key_slots_name(c->key_slots));
  }
  /* Objects an earlier site of the same container has too (a suspect counts them once): only
   * when there are some. */
  int shared = c->shared_objects != 0;
  for (size_t k = 0; k < DIFF_KIND_COUNT; k++)
    shared |= c->shared_kinds[k] != 0;
  if (shared) {
    json_write_member_uint(w, "shared_objects", c->shared_objects);
    json_write_key(w, "shared_kinds");
    json_write_open(w, '[');
    for (size_t k = 0; k < DIFF_KIND_COUNT; k++) {
      if (!c->shared_kinds[k])
        continue;
      json_write_open_record(w);
      json_write_member_string(w, "kind", diff_kind_name(k));
      json_write_member_uint(w, "objects", c->shared_kinds[k]);
      json_write_close(w, '}');
    }
    json_write_close(w, ']');
  }
  json_write_close(w, '}');
}

/* --values: a suspect's strings, then its container's keys, each with its site (so a reader puts
 * it back there). Written only when the result was asked for values: they can be secrets. */
static void put_suspect_values(struct json_writer *w, const struct diff_result *r, const struct diff_suspect *s)
{
  struct diff_suspect_value values[DIFF_SUSPECT_STRINGS + 64];
  size_t count = diff_suspect_values(r, s, DIFF_VALUE_STRING, values, DIFF_SUSPECT_STRINGS);
  count += diff_suspect_values(r, s, DIFF_VALUE_KEY, values + count, 64);
  json_write_key(w, "values");
  json_write_open(w, '[');
  for (size_t i = 0; i < count; i++) {
    const struct diff_value *v = values[i].value;
    json_write_open_record(w);
    json_write_member_string(w, "kind", v->kind == DIFF_VALUE_STRING ? "string" : "key");
    json_write_member_string(w, "site", values[i].site->name);
    json_write_member_string(w, "text", v->text);
    if (v->quoted) {
      json_write_member_uint(w, "length", v->length);
      json_write_member_uint(w, "shown", v->shown);
    }
    json_write_close(w, '}');
  }
  json_write_close(w, ']');
}

/* The leak suspects (derived from the sites: a reader finds them again). */
static void put_suspects(struct json_writer *w, const struct diff_result *r)
{
  json_write_key(w, "suspects");
  json_write_open(w, '[');
  for (size_t k = 0; k < r->suspect_count; k++) {
    const struct diff_suspect *s = &r->suspects[k];
    const struct diff_site_container *c = r->sites[s->named_site].container;
    json_write_item(w);
    json_write_open(w, '{');
    json_write_member_string(w, "path", c->path);
    json_write_member_string(w, "type", c->type);
    json_write_member_string(w, "site", c->site);
    json_write_member_double(w, "growth_bytes_per_segment", s->growth_bytes_per_segment);
    json_write_member_double(w, "growth_bytes_per_second", s->growth_bytes_per_second);
    json_write_member_uint(w, "retained_bytes", s->retained_bytes);
    json_write_member_uint(w, "boundary", s->boundary);
    json_write_member_uint(w, "objects", s->objects);
    json_write_member_uint(w, "bytes", s->bytes);
    put_kinds(w, s->kinds);
    if (s->container) {
      const struct diff_container *g = &r->containers[s->container - 1];
      put_uint_array(w, "entries", g->entries, 2);
      put_uint_array(w, "entries_boundaries", g->boundaries, 2);
    }
    if (r->values == DIFF_VALUES_SHOWN)
      put_suspect_values(w, r, s);
    json_write_key(w, "sites");
    json_write_open(w, '[');
    for (size_t j = 0; j < s->site_count; j++) {
      const struct diff_site *site = &r->sites[s->sites[j]];
      json_write_open_record(w);
      json_write_member_string(w, "name", site->name);
      if (s->cause[j] == SIZE_MAX) {
        json_write_member_uint(w, "objects", site->container->objects);
        json_write_member_uint(w, "bytes", site->container->bytes);
        if (diff_suspect_through_keys(r, s, j))
          json_write_member_string(w, "through_keys_of", site->container->path);
        if (site->verdict == DIFF_VERDICT_UNDECIDED)
          json_write_member_bool(w, "undecided", 1);
      } else {
        json_write_member_string(w, "vm_work_for", r->sites[s->cause[j]].name);
      }
      json_write_close(w, '}');
    }
    json_write_close(w, ']');
    json_write_close(w, '}');
  }
  json_write_close(w, ']');
}

static void put_site(struct json_writer *w, const struct diff_site *s)
{
  json_write_item(w);
  json_write_open(w, '{');
  json_write_member_string(w, "name", s->name);
  json_write_key(w, "id");
  fprintf(w->out, "\"%016" PRIx64 "\"", s->id);
  json_write_member_string(w, "kind", diff_site_kind_name(s->kind));
  json_write_member_string(w, "source_file", s->source_file);
  json_write_member_uint(w, "source_line", s->source_line);
  json_write_member_string(w, "library", s->library);
  json_write_member_string(w, "verdict", diff_verdict_name(s->verdict));
  put_uint_array(w, "series", s->live_bytes, s->count);
  put_uint_array(w, "live_blocks", s->live_blocks, s->count);
  put_uint_array(w, "alloc_bytes", s->alloc_bytes, s->count);
  put_uint_array(w, "free_bytes", s->free_bytes, s->count);
  json_write_member_uint(w, "allocs", s->allocs);
  json_write_member_uint(w, "frees", s->frees);
  json_write_member_double(w, "growth_bytes_per_segment", s->growth_bytes_per_segment);
  json_write_member_double(w, "growth_bytes_per_second", s->growth_bytes_per_second);
  json_write_member_double(w, "trend_statistic", s->trend_statistic);
  json_write_member_double(w, "trend_p_value", s->trend_p_value);
  json_write_member_string(w, "base_verdict", diff_verdict_name(s->base_verdict));
  put_uint_array(w, "base_series", s->base_live_bytes, s->base_count);
  if (s->base_moved)
    json_write_member_string(w, "base_moved", s->base_moved);
  json_write_member_double(w, "base_growth_bytes_per_segment", s->base_growth_bytes_per_segment);
  json_write_member_int(w, "range_delta_bytes", s->range_delta_bytes);
  json_write_member_bool(w, "allowed", s->allowed);
  /* Why an undecided site has none, where the series alone cannot tell it again: only when so,
   * as results written before them read the same without. */
  if (s->forced_growing)
    json_write_member_bool(w, "forced_growing", 1);
  if (s->released_at_end)
    json_write_member_bool(w, "released_at_end", 1);
  if (s->young_growing)
    json_write_member_bool(w, "young_growing", 1);
  if (s->held_briefly)
    json_write_member_bool(w, "held_briefly", 1);
  put_allowance(w, s->allowance);
  if (s->holder_count) {
    put_holders(w, s);
    json_write_member_uint(w, "holders_boundary", s->holders_boundary);
  }
  if (diff_kinds_order(s->kinds, NULL))
    put_kinds(w, s->kinds);
  if (s->container)
    put_site_container(w, s->container);
  if (s->is_stack)
    put_stack_frames(w, s);
  json_write_close(w, '}');
}

void diff_result_write_json(const struct diff_result *result, const char *outcome_reason, FILE *out)
{
  struct json_writer w = {.out = out, .first = 1};
  json_write_open(&w, '{');
  json_write_member_uint(&w, "ljleak_result", 1);
  json_write_member_string(&w, "mode", diff_mode_name(result->mode));
  put_options(&w, &result->options);
  put_capture(&w, "capture", &result->capture);
  if (result->mode == DIFF_MODE_BASE)
    put_capture(&w, "base", &result->base);
  json_write_member_uint(&w, "flagged", result->flagged);
  /* The outcome and its reason: the model's facts, in the renderers' words. */
  enum diff_outcome outcome = result->facts.outcome;
  json_write_member_string(&w, "outcome", diff_outcome_name(outcome));
  json_write_member_uint(&w, "undecided", result->facts.tally.undecided);
  json_write_member_string(&w, "outcome_reason", outcome == DIFF_OUTCOME_INCONCLUSIVE ? outcome_reason : NULL);
  /* What the evidence covers (facts, so not read back: the reader finds them again). */
  if (result->facts.coverage >= 0) {
    json_write_member_double(&w, "coverage", result->facts.coverage);
    json_write_member_double(&w, "longest_stretch", result->facts.longest_stretch);
  }
  if (result->facts.sample_floor == UINT64_MAX)
    json_write_member_string(&w, "sample_floor", "none");
  else if (result->facts.sample_floor)
    json_write_member_uint(&w, "sample_floor", result->facts.sample_floor);
  if (result->values != DIFF_VALUES_OFF)  /* only when asked for (--values) */
    json_write_member_string(&w, "values", result->values == DIFF_VALUES_SHOWN ? "shown" : "not captured");
  if (result->suspects_grouped)  /* first, as every report leads with them */
    put_suspects(&w, result);
  json_write_key(&w, "sites");
  json_write_open(&w, '[');
  for (size_t i = 0; i < result->site_count; i++)
    put_site(&w, &result->sites[i]);
  json_write_close(&w, ']');
  if (result->base_gone_count) {  /* base mode: the base's growing sites the candidate lacks */
    json_write_key(&w, "base_gone");
    json_write_open(&w, '[');
    for (size_t i = 0; i < result->base_gone_count; i++) {
      json_write_open_record(&w);
      json_write_member_string(&w, "name", result->base_gone[i].name);
      json_write_member_double(&w, "growth_bytes_per_segment", result->base_gone[i].growth_bytes_per_segment);
      json_write_close(&w, '}');
    }
    json_write_close(&w, ']');
  }
  if (result->container_count) {  /* growing containers between two heap snapshots */
    json_write_key(&w, "containers");
    json_write_open(&w, '[');
    for (size_t i = 0; i < result->container_count; i++) {
      const struct diff_container *c = &result->containers[i];
      json_write_open_record(&w);
      if (c->address) {  /* read from a result written before it was saved: none */
        json_write_key(&w, "address");
        fprintf(w.out, "\"0x%" PRIx64 "\"", c->address);
      }
      json_write_member_string(&w, "type", c->type);
      json_write_member_string(&w, "site", c->site);
      json_write_member_string(&w, "path", c->path);
      put_uint_array(&w, "boundaries", c->boundaries, 2);
      put_uint_array(&w, "entries", c->entries, 2);
      put_uint_array(&w, "bytes", c->bytes, 2);
      json_write_close(&w, '}');
    }
    json_write_close(&w, ']');
  }
  if (result->stack_count) {  /* by site, with stacks: each (site, stack) in the sites' order */
    json_write_key(&w, "stacks");
    json_write_open(&w, '[');
    for (size_t i = 0; i < result->stack_count; i++)
      put_site(&w, &result->stacks[i]);
    json_write_close(&w, ']');
  }
  json_write_close(&w, '}');
  putc('\n', out);
}
