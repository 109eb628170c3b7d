/* diff/result_json_read.c: rebuilds a diff result from its JSON (docs/json-schema.md), checking every field: the model's reader, beside its writer (diff/result_json_write.c). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "container/array.h"
#include "format/capture_index.h"
#include "diff/suspects.h"
#include "diff/json_fields.h"
#include "format/json_read.h"
#include "format/utf8.h"

/* "labels": an object of strings, each a label the index takes (a result
 * may come from anywhere: its labels are checked as the index's are). */
static int read_labels(struct json_reader *r, const struct json_read_value *v,
                       struct diff_capture *c)
{
  if (v->type != JSON_OBJECT)
    return json_fields_fail(r, v, "labels must be an object of strings");
  if (v->count > CAPTURE_INDEX_LABEL_COUNT_MAX)
    return json_fields_fail(r, v, "labels has more than %d members", CAPTURE_INDEX_LABEL_COUNT_MAX);
  for (size_t i = 0; i < v->count; i++) {
    const struct json_read_value *value = &v->items[i];
    char one[CAPTURE_INDEX_LABEL_KEY_MAX + CAPTURE_INDEX_LABEL_VALUE_MAX + 2];
    if (value->type != JSON_STRING)
      return json_fields_fail(r, value, "labels: \"%s\" must be a string", v->keys[i]);
    int n = snprintf(one, sizeof one, "%s=%s", v->keys[i], value->text);
    if (n < 0 || (size_t)n >= sizeof one || strchr(v->keys[i], '=') ||
        capture_index_labels_check(one, NULL) != FORMAT_OK)
      return json_fields_fail(r, value, "labels: a key of letters, digits, '_', '-' and '.' (at most %d "
                         "bytes) and a value without control characters, ',' or backslash (at "
                         "most %d bytes) expected", CAPTURE_INDEX_LABEL_KEY_MAX,
                         CAPTURE_INDEX_LABEL_VALUE_MAX);
    if (diff_capture_add_label(c, v->keys[i], strlen(v->keys[i]), value->text,
                               strlen(value->text)) != 0)
      return json_fields_no_memory(r, value);
  }
  return 0;
}

static int read_capture(struct json_reader *r, const struct json_read_value *v,
                        struct diff_capture *c)
{
  if (json_fields_object(r, v, "capture") < 0)
    return -1;
  uint64_t boundary_count = 0;
  int64_t signed_pid = 0;
  JSON_FIELDS_OPTIONAL(v, "path", json_fields_string, "path", &c->path);
  JSON_FIELDS_OPTIONAL(v, "command", json_fields_string, "command", &c->command);
  JSON_FIELDS_OPTIONAL(v, "host", json_fields_string, "host", &c->host);
  JSON_FIELDS_OPTIONAL(v, "pid", json_fields_int, "pid", &signed_pid);
  c->pid = (long)signed_pid;
  JSON_FIELDS_OPTIONAL(v, "luajit_version", json_fields_string, "luajit_version", &c->luajit_version);
  JSON_FIELDS_OPTIONAL(v, "sample_bytes", json_fields_uint, "sample_bytes", &c->sample_bytes);
  JSON_FIELDS_OPTIONAL(v, "boundary_count", json_fields_uint, "boundary_count", &boundary_count);
  c->boundary_count = (size_t)boundary_count;
  JSON_FIELDS_OPTIONAL(v, "start_time", json_fields_double, "start_time", &c->start_time);
  JSON_FIELDS_OPTIONAL(v, "events", json_fields_uint, "events", &c->events);
  JSON_FIELDS_OPTIONAL(v, "truncated", json_fields_bool, "truncated", &c->truncated);
  JSON_FIELDS_OPTIONAL(v, "exe", json_fields_string, "exe", &c->exe);
  JSON_FIELDS_OPTIONAL(v, "stop_reason", json_fields_string, "stop_reason", &c->stop_reason);
  JSON_FIELDS_OPTIONAL(v, "stop_time", json_fields_double, "stop_time", &c->stop_time);
  if (isnan(c->stop_time))
    c->stop_time = 0;
  const struct json_read_value *labels = json_read_object_get(v, "labels");
  if (labels && read_labels(r, labels, c) < 0)
    return -1;
  JSON_FIELDS_OPTIONAL(v, "run_allocated", json_fields_uint, "run_allocated", &c->run_allocated);
  uint64_t snapshots = 0;
  JSON_FIELDS_OPTIONAL(v, "snapshots", json_fields_uint, "snapshots", &snapshots);
  c->snapshots = (size_t)snapshots;
  const struct json_read_value *times = json_read_object_get(v, "boundary_times");
  if (times) {
    size_t count = 0;
    if (json_fields_double_array(r, times, "boundary_times", &c->boundary_times, &count) < 0)
      return -1;
    if (c->boundary_times && count != c->boundary_count)
      return json_fields_fail(r, times, "boundary_times has %zu elements, expected %zu", count,
                         c->boundary_count);
  }
  if (json_fields_uint_series(r, v, "gc_cycles", c->boundary_count, &c->gc_cycles) < 0 ||
      json_fields_uint_series(r, v, "heap_bytes", c->boundary_count, &c->heap_bytes) < 0 ||
      json_fields_uint_series(r, v, "boundary_allocated", c->boundary_count, &c->allocated) < 0 ||
      json_fields_bool_series(r, v, "boundary_forced", c->boundary_count, &c->forced) < 0)
    return -1;
  return 0;
}

static int read_options(struct json_reader *r, const struct json_read_value *v,
                        struct diff_options *o)
{
  if (json_fields_object(r, v, "options") < 0)
    return -1;
  uint64_t min_boundaries = 0, range_from = 0, range_to = 0;
  int64_t jobs = 0;
  JSON_FIELDS_OPTIONAL(v, "min_boundaries", json_fields_uint, "min_boundaries", &min_boundaries);
  JSON_FIELDS_OPTIONAL(v, "max_p_value", json_fields_double, "max_p_value", &o->max_p_value);
  JSON_FIELDS_OPTIONAL(v, "min_growth_bytes", json_fields_double, "min_growth_bytes", &o->min_growth_bytes);
  JSON_FIELDS_OPTIONAL(v, "worse_ratio", json_fields_double, "worse_ratio", &o->worse_ratio);
  JSON_FIELDS_OPTIONAL(v, "range_from", json_fields_uint, "range_from", &range_from);
  JSON_FIELDS_OPTIONAL(v, "range_to", json_fields_uint, "range_to", &range_to);
  JSON_FIELDS_OPTIONAL(v, "strict", json_fields_bool, "strict", &o->strict);
  JSON_FIELDS_OPTIONAL(v, "jobs", json_fields_int, "jobs", &jobs);
  JSON_FIELDS_OPTIONAL(v, "min_growth_fraction", json_fields_double, "min_growth_fraction",
           &o->min_growth_fraction);
  uint64_t warmup = 0;
  JSON_FIELDS_OPTIONAL(v, "warmup", json_fields_uint, "warmup", &warmup);
  o->warmup = (size_t)warmup;
  o->min_boundaries = (size_t)min_boundaries;
  o->range_from = (size_t)range_from;
  o->range_to = (size_t)range_to;
  o->jobs = (int)jobs;
  const struct json_read_value *by = json_read_object_get(v, "by");
  if (by && (by->type != JSON_STRING || diff_by_parse(by->text, &o->by) < 0))
    return json_fields_fail(r, by, "by must be \"site\" or \"stack\"");
  return 0;
}

static int read_enum_member(struct json_reader *r, const struct json_read_value *object,
                            const char *key, int required,
                            int (*parse)(const char *, int *), int *out, const char *choices)
{
  const struct json_read_value *v;
  if (json_fields_member(r, object, key, required, &v) < 0)
    return -1;
  if (!v)
    return 0;
  if (v->type != JSON_STRING || parse(v->text, out) < 0)
    return json_fields_fail(r, v, "%s must be one of %s", key, choices);
  return 0;
}

static int parse_verdict(const char *name, int *out)
{
  enum diff_verdict verdict;
  if (diff_verdict_parse(name, &verdict) < 0)
    return -1;
  *out = (int)verdict;
  return 0;
}

static int parse_kind(const char *name, int *out)
{
  enum diff_site_kind kind;
  if (diff_site_kind_parse(name, &kind) < 0)
    return -1;
  *out = (int)kind;
  return 0;
}

static const char verdict_choices[] = "\"growing\", \"steady\", \"shrinking\", \"insufficient\", "
                                     "\"new\", \"worse\", \"undecided\"";

/* A site's "allow": the rule it matched (an object), or null. */
static int read_allowance(struct json_reader *r, const struct json_read_value *v, const char *what,
                          struct diff_allowance **out)
{
  *out = NULL;
  if (v->type == JSON_NULL)
    return 0;
  if (json_fields_object(r, v, what) < 0)
    return -1;
  struct diff_allowance *a = calloc(1, sizeof *a);
  if (!a)
    return json_fields_no_memory(r, v);
  *out = a;  /* the site owns it from here, so a failure below frees it too */
  uint64_t line = 0;
  JSON_FIELDS_OPTIONAL(v, "pattern", json_fields_string, "pattern", &a->pattern);
  JSON_FIELDS_OPTIONAL(v, "budget", json_fields_string, "budget", &a->budget);
  JSON_FIELDS_OPTIONAL(v, "budget_bytes", json_fields_double, "budget_bytes", &a->budget_bytes);
  JSON_FIELDS_OPTIONAL(v, "comment", json_fields_string, "comment", &a->comment);
  JSON_FIELDS_OPTIONAL(v, "file", json_fields_string, "file", &a->file);
  JSON_FIELDS_OPTIONAL(v, "line", json_fields_uint, "line", &line);
  JSON_FIELDS_OPTIONAL(v, "growth", json_fields_double, "growth", &a->growth);
  a->line = (size_t)line;
  const struct json_read_value *per = json_read_object_get(v, "per");
  if (per) {
    if (per->type != JSON_STRING || (strcmp(per->text, "boundary") && strcmp(per->text, "MB")))
      return json_fields_fail(r, per, "per must be \"boundary\" or \"MB\"");
    a->per_megabyte = !strcmp(per->text, "MB");
  }
  return 0;
}

/* A hex id of 1 to 16 digits, as "id" and "site_id" are written. */
static int read_hex_id(struct json_reader *r, const struct json_read_value *m, const char *what,
                       uint64_t *out)
{
  char *end;
  if (m->type != JSON_STRING || !m->text[0] || strlen(m->text) > 16)
    return json_fields_fail(r, m, "%s must be a string of 1 to 16 hex digits", what);
  errno = 0;
  *out = strtoull(m->text, &end, 16);
  if (*end || m->text[0] == '-' || m->text[0] == '+' || m->text[0] == ' ' || errno)
    return json_fields_fail(r, m, "%s must be a string of 1 to 16 hex digits", what);
  return 0;
}

/* A stack's members: "stack": true, its "site_id" and its "frames". */
static int read_stack(struct json_reader *r, const struct json_read_value *v, struct diff_site *s)
{
  const struct json_read_value *m = json_read_object_get(v, "stack");
  if (!m)
    return 0;
  if (json_fields_bool(r, m, "stack", &s->is_stack) < 0)
    return -1;
  if ((m = json_read_object_get(v, "site_id")) && read_hex_id(r, m, "site_id", &s->site_id) < 0)
    return -1;
  if (!(m = json_read_object_get(v, "frames")))
    return 0;
  if (m->type != JSON_ARRAY)
    return json_fields_fail(r, m, "frames must be an array");
  if (m->count) {
    s->frames = calloc(m->count, sizeof *s->frames);
    if (!s->frames)
      return json_fields_no_memory(r, m);
  }
  for (size_t i = 0; i < m->count; i++) {
    const struct json_read_value *f = &m->items[i], *n;
    struct diff_frame *frame = &s->frames[i];
    s->frame_count = i + 1;
    if (json_fields_object(r, f, "a frame") < 0 || json_fields_member(r, f, "name", 1, &n) < 0)
      return -1;
    if (n->type != JSON_STRING)
      return json_fields_fail(r, n, "a frame's name must be a string");
    if (json_fields_string(r, n, "name", &frame->name) < 0)
      return -1;
    const struct json_read_value *kind = json_read_object_get(f, "kind");
    if (kind && (kind->type != JSON_STRING || diff_frame_kind_parse(kind->text, &frame->kind) < 0))
      return json_fields_fail(r, kind, "a frame's kind must be one of \"lua\", \"c\", \"internal\", "
                                  "\"coroutine\"");
    JSON_FIELDS_OPTIONAL(f, "defined", json_fields_uint, "defined", &frame->defined);
    JSON_FIELDS_OPTIONAL(f, "line", json_fields_uint, "line", &frame->line);
  }
  return 0;
}

/* A site's "holders": [{"path", "objects", "bytes", "holder_type", "retained_bytes"}, ...]. */
static int read_holders(struct json_reader *r, const struct json_read_value *m, struct diff_site *s)
{
  if (m->type != JSON_ARRAY)
    return json_fields_fail(r, m, "holders must be an array");
  if (!m->count)
    return 0;
  s->holders = calloc(m->count, sizeof *s->holders);
  if (!s->holders)
    return json_fields_no_memory(r, m);
  for (size_t i = 0; i < m->count; i++) {
    const struct json_read_value *h = &m->items[i], *p;
    struct diff_holder *holder = &s->holders[i];
    s->holder_count = i + 1;
    if (json_fields_object(r, h, "a holder") < 0 || json_fields_member(r, h, "path", 1, &p) < 0)
      return -1;
    if (p->type != JSON_STRING)
      return json_fields_fail(r, p, "a holder's path must be a string");
    if (json_fields_string(r, p, "path", &holder->path) < 0)
      return -1;
    JSON_FIELDS_OPTIONAL(h, "objects", json_fields_uint, "objects", &holder->objects);
    JSON_FIELDS_OPTIONAL(h, "bytes", json_fields_uint, "bytes", &holder->bytes);
    JSON_FIELDS_OPTIONAL(h, "holder_type", json_fields_string, "holder_type", &holder->holder_type);
    JSON_FIELDS_OPTIONAL(h, "retained_bytes", json_fields_uint, "retained_bytes", &holder->retained_bytes);
  }
  return 0;
}

/* A site's "kinds": [{"kind", "objects", "bytes", "parts", "part_bytes"}, ...]; a kind this
 * reader does not know is skipped (a later snapshot format may add one). */
static int read_kinds(struct json_reader *r, const struct json_read_value *m, struct diff_kind_count *kinds)
{
  if (m->type != JSON_ARRAY)
    return json_fields_fail(r, m, "kinds must be an array");
  for (size_t i = 0; i < m->count; i++) {
    const struct json_read_value *k = &m->items[i], *name;
    size_t kind;
    if (json_fields_object(r, k, "a kind") < 0 || json_fields_member(r, k, "kind", 1, &name) < 0)
      return -1;
    if (name->type != JSON_STRING)
      return json_fields_fail(r, name, "a kind's kind must be a string");
    if (diff_kind_parse(name->text, &kind) < 0)
      continue;
    JSON_FIELDS_OPTIONAL(k, "objects", json_fields_uint, "objects", &kinds[kind].objects);
    JSON_FIELDS_OPTIONAL(k, "bytes", json_fields_uint, "bytes", &kinds[kind].bytes);
    JSON_FIELDS_OPTIONAL(k, "parts", json_fields_uint, "parts", &kinds[kind].parts);
    JSON_FIELDS_OPTIONAL(k, "part_bytes", json_fields_uint, "part_bytes", &kinds[kind].part_bytes);
    if (kinds[kind].parts > kinds[kind].objects || kinds[kind].part_bytes > kinds[kind].bytes)
      return json_fields_fail(r, k, "a kind's parts must be some of its objects, and their bytes of its bytes");
  }
  return 0;
}

/* An object's address, "0x" and up to 16 lowercase hex digits, into *address. 0, or -1. */
static int read_address(struct json_reader *r, const struct json_read_value *a, uint64_t *address)
{
  if (a->type != JSON_STRING || strncmp(a->text, "0x", 2) || !a->text[2] || strlen(a->text) > 18 ||
      strspn(a->text + 2, "0123456789abcdef") != strlen(a->text + 2))
    return json_fields_fail(r, a, "a container's address must be a string of 0x and up to 16 lowercase hex digits");
  *address = strtoull(a->text + 2, NULL, 16);
  return 0;
}

/* A site's "container": {"address", "type", "path", "named", "site", "retained_bytes", "objects", "bytes",
 * "kinds", "boundary", "key_address", "key_slots", "shared_objects", "shared_kinds"}; address, type
 * and path required; without "kinds" (written before they were saved), the site's (read first). */
static int read_site_container(struct json_reader *r, const struct json_read_value *m,
                               struct diff_site *s)
{
  const struct json_read_value *a, *t, *p;
  uint64_t address;
  if (json_fields_object(r, m, "container") < 0 || json_fields_member(r, m, "address", 1, &a) < 0 ||
      json_fields_member(r, m, "type", 1, &t) < 0 || json_fields_member(r, m, "path", 1, &p) < 0 ||
      read_address(r, a, &address) < 0)
    return -1;
  if (t->type != JSON_STRING || p->type != JSON_STRING)
    return json_fields_fail(r, t->type != JSON_STRING ? t : p, "a container's type and path must be strings");
  struct diff_site_container *c = calloc(1, sizeof *c);
  if (!c)
    return json_fields_no_memory(r, m);
  s->container = c;  /* the site owns it from here */
  c->address = address;
  if (json_fields_string(r, t, "type", &c->type) < 0 || json_fields_string(r, p, "path", &c->path) < 0)
    return -1;
  JSON_FIELDS_OPTIONAL(m, "named", json_fields_bool, "named", &c->named);
  JSON_FIELDS_OPTIONAL(m, "site", json_fields_string, "site", &c->site);
  JSON_FIELDS_OPTIONAL(m, "retained_bytes", json_fields_uint, "retained_bytes", &c->retained_bytes);
  JSON_FIELDS_OPTIONAL(m, "objects", json_fields_uint, "objects", &c->objects);
  JSON_FIELDS_OPTIONAL(m, "bytes", json_fields_uint, "bytes", &c->bytes);
  JSON_FIELDS_OPTIONAL(m, "boundary", json_fields_uint, "boundary", &c->boundary);
  const struct json_read_value *key = json_read_object_get(m, "key_address");
  if ((key && read_address(r, key, &c->key_address) < 0) ||
      read_enum_member(r, m, "key_slots", 0, diff_key_slots_parse, &c->key_slots, DIFF_KEY_SLOTS_CHOICES) < 0)
    return -1;
  const struct json_read_value *own = json_read_object_get(m, "kinds");
  if (!own)
    memcpy(c->kinds, s->kinds, sizeof c->kinds);
  else if (read_kinds(r, own, c->kinds) < 0)
    return -1;
  JSON_FIELDS_OPTIONAL(m, "shared_objects", json_fields_uint, "shared_objects", &c->shared_objects);
  const struct json_read_value *shared = json_read_object_get(m, "shared_kinds");
  if (shared) {
    struct diff_kind_count kinds[DIFF_KIND_COUNT];
    memset(kinds, 0, sizeof kinds);
    if (read_kinds(r, shared, kinds) < 0)
      return -1;
    for (size_t k = 0; k < DIFF_KIND_COUNT; k++)
      c->shared_kinds[k] = kinds[k].objects;
  }
  return 0;
}

static int read_site(struct json_reader *r, const struct json_read_value *v, struct diff_site *s)
{
  const struct json_read_value *m;
  if (json_fields_object(r, v, "a site") < 0)
    return -1;
  if (json_fields_member(r, v, "name", 1, &m) < 0)
    return -1;
  if (m->type != JSON_STRING)
    return json_fields_fail(r, m, "name must be a string");
  if (json_fields_string(r, m, "name", &s->name) < 0)
    return -1;
  if ((m = json_read_object_get(v, "id")) && read_hex_id(r, m, "id", &s->id) < 0)
    return -1;
  int kind = 0, verdict = 0, base_verdict = 0;
  if (read_enum_member(r, v, "kind", 0, parse_kind, &kind,
                       "\"internal\", \"lua\", \"trace\", \"c\"") < 0 ||
      read_enum_member(r, v, "verdict", 1, parse_verdict, &verdict, verdict_choices) < 0 ||
      read_enum_member(r, v, "base_verdict", 0, parse_verdict, &base_verdict,
                       verdict_choices) < 0)
    return -1;
  s->kind = (enum diff_site_kind)kind;
  s->verdict = (enum diff_verdict)verdict;
  s->base_verdict = (enum diff_verdict)base_verdict;
  JSON_FIELDS_OPTIONAL(v, "source_file", json_fields_string, "source_file", &s->source_file);
  JSON_FIELDS_OPTIONAL(v, "source_line", json_fields_uint, "source_line", &s->source_line);
  JSON_FIELDS_OPTIONAL(v, "library", json_fields_string, "library", &s->library);
  if (json_fields_member(r, v, "series", 1, &m) < 0 || json_fields_uint_array(r, m, "series", &s->live_bytes,
                                                           &s->count) < 0)
    return -1;
  if (json_fields_uint_series(r, v, "live_blocks", s->count, &s->live_blocks) < 0 ||
      json_fields_uint_series(r, v, "alloc_bytes", s->count, &s->alloc_bytes) < 0 ||
      json_fields_uint_series(r, v, "free_bytes", s->count, &s->free_bytes) < 0)
    return -1;
  JSON_FIELDS_OPTIONAL(v, "allocs", json_fields_uint, "allocs", &s->allocs);
  JSON_FIELDS_OPTIONAL(v, "frees", json_fields_uint, "frees", &s->frees);
  if (json_fields_member(r, v, "growth_bytes_per_segment", 1, &m) < 0 ||
      json_fields_double(r, m, "growth_bytes_per_segment", &s->growth_bytes_per_segment) < 0)
    return -1;
  JSON_FIELDS_OPTIONAL(v, "growth_bytes_per_second", json_fields_double, "growth_bytes_per_second",
           &s->growth_bytes_per_second);
  JSON_FIELDS_OPTIONAL(v, "trend_statistic", json_fields_double, "trend_statistic", &s->trend_statistic);
  JSON_FIELDS_OPTIONAL(v, "trend_p_value", json_fields_double, "trend_p_value", &s->trend_p_value);
  if ((m = json_read_object_get(v, "base_series")) &&
      json_fields_uint_array(r, m, "base_series", &s->base_live_bytes, &s->base_count) < 0)
    return -1;
  JSON_FIELDS_OPTIONAL(v, "base_growth_bytes_per_segment", json_fields_double, "base_growth_bytes_per_segment",
           &s->base_growth_bytes_per_segment);
  JSON_FIELDS_OPTIONAL(v, "base_moved", json_fields_string, "base_moved", &s->base_moved);
  JSON_FIELDS_OPTIONAL(v, "range_delta_bytes", json_fields_int, "range_delta_bytes", &s->range_delta_bytes);
  JSON_FIELDS_OPTIONAL(v, "allowed", json_fields_bool, "allowed", &s->allowed);
  JSON_FIELDS_OPTIONAL(v, "forced_growing", json_fields_bool, "forced_growing", &s->forced_growing);
  JSON_FIELDS_OPTIONAL(v, "released_at_end", json_fields_bool, "released_at_end", &s->released_at_end);
  JSON_FIELDS_OPTIONAL(v, "young_growing", json_fields_bool, "young_growing", &s->young_growing);
  JSON_FIELDS_OPTIONAL(v, "held_briefly", json_fields_bool, "held_briefly", &s->held_briefly);
  JSON_FIELDS_OPTIONAL(v, "allow", read_allowance, "allow", &s->allowance);
  if ((m = json_read_object_get(v, "holders")) && read_holders(r, m, s) < 0)
    return -1;
  JSON_FIELDS_OPTIONAL(v, "holders_boundary", json_fields_uint, "holders_boundary", &s->holders_boundary);
  if ((m = json_read_object_get(v, "kinds")) && read_kinds(r, m, s->kinds) < 0)
    return -1;
  if ((m = json_read_object_get(v, "container")) && m->type != JSON_NULL &&
      read_site_container(r, m, s) < 0)
    return -1;
  return read_stack(r, v, s);
}

/* --values: a suspect's "values", each put back on the site it names (the suspects are found
 * again from the sites). Its text is escaped again as the engine escapes it (a result may come
 * from anywhere; escaping escaped text changes nothing). */
static int read_values(struct json_reader *r, const struct json_read_value *m, struct diff_result *result)
{
  if (m->type != JSON_ARRAY)
    return json_fields_fail(r, m, "a suspect's values must be an array");
  for (size_t i = 0; i < m->count; i++) {
    const struct json_read_value *v = &m->items[i], *kind, *site, *text, *length, *shown;
    if (json_fields_object(r, v, "a value") < 0 || json_fields_member(r, v, "kind", 1, &kind) < 0 ||
        json_fields_member(r, v, "site", 1, &site) < 0 || json_fields_member(r, v, "text", 1, &text) < 0 ||
        json_fields_member(r, v, "length", 0, &length) < 0 || json_fields_member(r, v, "shown", 0, &shown) < 0)
      return -1;
    if (kind->type != JSON_STRING || (strcmp(kind->text, "string") && strcmp(kind->text, "key")))
      return json_fields_fail(r, kind, "a value's kind must be \"string\" or \"key\"");
    if (site->type != JSON_STRING || text->type != JSON_STRING)
      return json_fields_fail(r, site->type != JSON_STRING ? site : text, "a value's site and text must be strings");
    struct diff_value value = {!strcmp(kind->text, "string") ? DIFF_VALUE_STRING : DIFF_VALUE_KEY, NULL,
                               length != NULL, 0, 0};
    if (!length != !shown)
      return json_fields_fail(r, v, "a value has both length and shown, or neither");
    if (length && (json_fields_uint(r, length, "length", &value.length) < 0 || json_fields_uint(r, shown, "shown", &value.shown) < 0))
      return -1;
    if (value.shown > value.length)
      return json_fields_fail(r, shown, "a value's shown is more than its length");
    if (value.kind == DIFF_VALUE_STRING && !value.quoted)
      return json_fields_fail(r, v, "a string value needs its length and shown");
    struct diff_site *owner = NULL;
    for (size_t k = 0; k < result->site_count && !owner; k++)
      if (!strcmp(result->sites[k].name, site->text))
        owner = &result->sites[k];
    if (!owner)
      return json_fields_fail(r, site, "a value's site is none of the result's sites");
    size_t size = UTF8_TERMINAL_SIZE(strlen(text->text));
    if (array_resize((void **)&owner->values, owner->value_count + 1, sizeof *owner->values) < 0 ||
        !(value.text = malloc(size)))
      return json_fields_no_memory(r, v);
    utf8_terminal_text(value.text, size, text->text);
    owner->values[owner->value_count++] = value;
  }
  return 0;
}

/* A pair of integers, as a container's "boundaries", "entries" and "bytes" are written. */
static int read_pair(struct json_reader *r, const struct json_read_value *c, const char *key,
                     uint64_t out[2])
{
  const struct json_read_value *m = json_read_object_get(c, key);
  if (!m)
    return 0;
  uint64_t *values;
  size_t count;
  if (json_fields_uint_array(r, m, key, &values, &count) < 0)
    return -1;
  if (count != 2) {
    free(values);
    return json_fields_fail(r, m, "%s must hold 2 integers", key);
  }
  out[0] = values[0];
  out[1] = values[1];
  free(values);
  return 0;
}

/* "containers": [{"address", "type", "site", "path", "boundaries", "entries", "bytes"}, ...];
 * address is optional (a result written before it was saved: 0). */
static int read_containers(struct json_reader *r, const struct json_read_value *m,
                           struct diff_result *result)
{
  if (m->type != JSON_ARRAY)
    return json_fields_fail(r, m, "containers must be an array");
  if (m->count && !(result->containers = calloc(m->count, sizeof *result->containers)))
    return json_fields_no_memory(r, m);
  for (size_t i = 0; i < m->count; i++) {
    const struct json_read_value *c = &m->items[i];
    struct diff_container *out = &result->containers[i];
    result->container_count = i + 1;
    const struct json_read_value *a;
    if (json_fields_object(r, c, "a container") < 0 || json_fields_member(r, c, "address", 0, &a) < 0 ||
        (a && read_address(r, a, &out->address) < 0))
      return -1;
    JSON_FIELDS_OPTIONAL(c, "type", json_fields_string, "type", &out->type);
    JSON_FIELDS_OPTIONAL(c, "site", json_fields_string, "site", &out->site);
    JSON_FIELDS_OPTIONAL(c, "path", json_fields_string, "path", &out->path);
    if (read_pair(r, c, "boundaries", out->boundaries) < 0 || read_pair(r, c, "entries", out->entries) < 0 ||
        read_pair(r, c, "bytes", out->bytes) < 0)
      return -1;
  }
  return 0;
}

/* "base_gone": [{"name", "growth_bytes_per_segment"}, ...]: name required. */
static int read_base_gone(struct json_reader *r, const struct json_read_value *m, struct diff_result *result)
{
  if (m->type != JSON_ARRAY)
    return json_fields_fail(r, m, "base_gone must be an array");
  if (m->count && !(result->base_gone = calloc(m->count, sizeof *result->base_gone)))
    return json_fields_no_memory(r, m);
  for (size_t i = 0; i < m->count; i++) {
    const struct json_read_value *g = &m->items[i], *name;
    struct diff_base_gone *out = &result->base_gone[result->base_gone_count++];  /* freed if cut */
    if (json_fields_object(r, g, "a site gone") < 0 || json_fields_member(r, g, "name", 1, &name) < 0 ||
        json_fields_string(r, name, "name", &out->name) < 0)
      return -1;
    JSON_FIELDS_OPTIONAL(g, "growth_bytes_per_segment", json_fields_double, "its growth", &out->growth_bytes_per_segment);
  }
  return 0;
}

/* What comes before the sites: the version, the mode, the options and captures, and the
 * outcome's members. */
static int read_head(struct json_reader *r, const struct json_read_value *root,
                     struct diff_result *result)
{
  const struct json_read_value *m;
  uint64_t version = 0, flagged = 0;
  if (json_fields_object(r, root, "the result") < 0)
    return -1;
  if (json_fields_member(r, root, "ljleak_result", 1, &m) < 0 ||
      json_fields_uint(r, m, "ljleak_result", &version) < 0)
    return -1;
  if (version != 1)
    return json_fields_fail(r, m, "ljleak_result %" PRIu64 " is not a version this reader knows (1)",
                       version);
  if (json_fields_member(r, root, "mode", 1, &m) < 0)
    return -1;
  if (m->type != JSON_STRING || diff_mode_parse(m->text, &result->mode) < 0)
    return json_fields_fail(r, m, "mode must be one of \"trend\", \"range\", \"base\"");
  if ((m = json_read_object_get(root, "options")) && read_options(r, m, &result->options) < 0)
    return -1;
  if ((m = json_read_object_get(root, "capture")) && read_capture(r, m, &result->capture) < 0)
    return -1;
  if ((m = json_read_object_get(root, "base")) && read_capture(r, m, &result->base) < 0)
    return -1;
  if ((m = json_read_object_get(root, "flagged"))) {
    if (json_fields_uint(r, m, "flagged", &flagged) < 0)
      return -1;
    result->flagged = (size_t)flagged;
  }
  /* The outcome is the model's to decide from the verdicts; a saved one
   * must still be a name it knows. */
  if ((m = json_read_object_get(root, "outcome"))) {
    enum diff_outcome outcome;
    if (m->type != JSON_STRING || diff_outcome_parse(m->text, &outcome) < 0)
      return json_fields_fail(r, m, "outcome must be one of \"pass\", \"flagged\", \"inconclusive\"");
  }
  uint64_t undecided = 0;
  if ((m = json_read_object_get(root, "undecided")) && json_fields_uint(r, m, "undecided", &undecided) < 0)
    return -1;
  if ((m = json_read_object_get(root, "outcome_reason")) && m->type != JSON_STRING &&
      m->type != JSON_NULL)
    return json_fields_fail(r, m, "outcome_reason must be a string or null");
  return 0;
}

static int read_result(struct json_reader *r, const struct json_read_value *root,
                       struct diff_result *result)
{
  const struct json_read_value *m;
  if (read_head(r, root, result) < 0)
    return -1;
  if (json_fields_member(r, root, "sites", 1, &m) < 0)
    return -1;
  if (m->type != JSON_ARRAY)
    return json_fields_fail(r, m, "sites must be an array");
  if (m->count) {
    result->sites = calloc(m->count, sizeof *result->sites);
    if (!result->sites)
      return json_fields_no_memory(r, m);
  }
  for (size_t i = 0; i < m->count; i++) {
    result->site_count = i + 1;
    if (read_site(r, &m->items[i], &result->sites[i]) < 0)
      return -1;
  }
  if ((m = json_read_object_get(root, "stacks"))) {
    if (m->type != JSON_ARRAY)
      return json_fields_fail(r, m, "stacks must be an array");
    if (m->count && !(result->stacks = calloc(m->count, sizeof *result->stacks)))
      return json_fields_no_memory(r, m);
    for (size_t i = 0; i < m->count; i++) {
      result->stack_count = i + 1;
      if (read_site(r, &m->items[i], &result->stacks[i]) < 0)
        return -1;
    }
  }
  if ((m = json_read_object_get(root, "containers")) && read_containers(r, m, result) < 0)
    return -1;
  if ((m = json_read_object_get(root, "base_gone")) && read_base_gone(r, m, result) < 0)
    return -1;
  /* The suspects are the sites' (their containers), found again as the outcome is; a saved
   * array must still be one. */
  if ((m = json_read_object_get(root, "suspects")) && m->type != JSON_ARRAY)
    return json_fields_fail(r, m, "suspects must be an array");
  /* --values: whether the result was asked for them, and the suspects' values on their sites. */
  const struct json_read_value *values = json_read_object_get(root, "values");
  if (values) {
    if (values->type != JSON_STRING || (strcmp(values->text, "shown") && strcmp(values->text, "not captured")))
      return json_fields_fail(r, values, "values must be \"shown\" or \"not captured\"");
    result->values = !strcmp(values->text, "shown") ? DIFF_VALUES_SHOWN : DIFF_VALUES_NOT_CAPTURED;
  }
  for (size_t i = 0; m && i < m->count; i++) {
    const struct json_read_value *suspect = &m->items[i], *list;
    if (json_fields_object(r, suspect, "a suspect") < 0)
      return -1;
    if ((list = json_read_object_get(suspect, "values")) && read_values(r, list, result) < 0)
      return -1;
  }
  /* A saved count stays as written; else it is counted. */
  diff_result_fill_facts(result);
  if (!json_read_object_get(root, "flagged"))
    result->flagged = result->facts.tally.flagged;
  if (diff_suspects_find(result) < 0)
    return json_fields_no_memory(r, root);
  return 0;
}

enum format_status diff_result_read_json_text(const char *name, const char *text, size_t length,
                                              struct diff_result *result, struct format_error *error)
{
  struct json_read_value root;
  memset(result, 0, sizeof *result);
  if (json_read_parse(text, length, name, &root, error) < 0)
    return error->status;
  enum format_status status = diff_result_read_json_value(name, &root, result, error);
  json_read_free(&root);
  return status;
}

enum format_status diff_result_read_json_value(const char *name, const struct json_read_value *root,
                                               struct diff_result *result, struct format_error *error)
{
  struct json_reader r = {name, error};
  memset(result, 0, sizeof *result);
  format_error_clear(error);
  if (read_result(&r, root, result) < 0) {
    diff_result_free(result);
    return error->status;
  }
  return FORMAT_OK;
}

enum format_status diff_result_read_json(const char *path, struct diff_result *result,
                                         struct format_error *error)
{
  int from_stdin = !strcmp(path, "-");
  const char *name = from_stdin ? "<stdin>" : path;
  FILE *in = from_stdin ? stdin : fopen(path, "rb");
  memset(result, 0, sizeof *result);
  format_error_clear(error);
  if (!in) {
    error->system_error = errno;
    return format_error_set(error, FORMAT_IO, "%s: %s", name, strerror(errno));
  }
  /* Read in pieces of 64 KiB at least, the array doubling, until a read falls short. */
  size_t length = 0, capacity = 0;
  char *text = NULL;
  for (;;) {
    if (array_reserve((void **)&text, &capacity, length + 65536, 1) < 0) {
      free(text);
      text = NULL;
      break;
    }
    size_t got = fread(text + length, 1, capacity - length, in);
    length += got;
    if (length < capacity)
      break;
  }
  int read_error = ferror(in);
  int saved_errno = errno;
  if (!from_stdin)
    fclose(in);
  if (!text || read_error) {
    free(text);
    if (!text)
      return format_error_set(error, FORMAT_NO_MEMORY, "%s: out of memory", name);
    error->system_error = saved_errno;
    return format_error_set(error, FORMAT_IO, "%s: %s", name, strerror(saved_errno));
  }
  enum format_status status = diff_result_read_json_text(name, text, length, result, error);
  free(text);
  return status;
}
