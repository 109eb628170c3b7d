/* report/json_write.c: the JSON result (docs/json-schema.md): one object, stable names, exact numbers. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/common.h"
#include "report/json.h"

/* Pretty-printing state: objects one member per line, number arrays on one line. */
struct json_writer {
  FILE *out;
  int depth;
  int first;  /* no member written yet at this depth */
};

static void writer_indent(struct json_writer *w)
{
  putc('\n', w->out);
  for (int i = 0; i < w->depth; i++)
    fputs("  ", w->out);
}

static void writer_key(struct json_writer *w, const char *key)
{
  if (!w->first)
    putc(',', w->out);
  w->first = 0;
  writer_indent(w);
  fprintf(w->out, "\"%s\": ", key);
}

static void writer_open(struct json_writer *w, char bracket)
{
  putc(bracket, w->out);
  w->depth++;
  w->first = 1;
}

static void writer_close(struct json_writer *w, char bracket)
{
  w->depth--;
  if (!w->first)
    writer_indent(w);
  putc(bracket, w->out);
  w->first = 0;
}

void json_write_string(FILE *out, const char *s)
{
  if (!s) {
    fputs("null", out);
    return;
  }
  size_t length = strlen(s);
  putc('"', out);
  for (size_t i = 0; i < length;) {
    uint32_t cp;
    i += report_utf8_decode(s + i, length - i, &cp);
    switch (cp) {
    case '"': fputs("\\\"", out); break;
    case '\\': fputs("\\\\", out); break;
    case '\n': fputs("\\n", out); break;
    case '\r': fputs("\\r", out); break;
    case '\t': fputs("\\t", out); break;
    case '\b': fputs("\\b", out); break;
    case '\f': fputs("\\f", out); break;
    default:
      /* Control characters must be escaped; <, >, & and the JavaScript line
       * separators are too, so the text can sit inside a <script> block. */
      if (cp < 0x20 || cp == '<' || cp == '>' || cp == '&' || cp == 0x2028 || cp == 0x2029 ||
          cp == 0x7f)
        fprintf(out, "\\u%04" PRIx32, cp);
      else
        report_utf8_put(out, cp);
    }
  }
  putc('"', out);
}

void json_write_double(FILE *out, double value)
{
  if (isnan(value)) {
    fputs("null", out);
    return;
  }
  if (isinf(value)) {
    /* Valid JSON that every parser reads back as infinity. */
    fputs(value > 0 ? "1e999" : "-1e999", out);
    return;
  }
  char text[40];
  if (value == floor(value) && fabs(value) < 1e17) {
    fprintf(out, "%.0f", value);  /* whole numbers in full, not as 9.6e+03 */
    return;
  }
  for (int precision = 1; precision <= 17; precision++) {
    snprintf(text, sizeof text, "%.*g", precision, value);
    double back = strtod(text, NULL);
    if (memcmp(&back, &value, sizeof value) == 0)
      break;
  }
  fputs(text, out);
}

static void put_uint(struct json_writer *w, const char *key, uint64_t value)
{
  writer_key(w, key);
  fprintf(w->out, "%" PRIu64, value);
}

static void put_double(struct json_writer *w, const char *key, double value)
{
  writer_key(w, key);
  json_write_double(w->out, value);
}

static void put_string(struct json_writer *w, const char *key, const char *value)
{
  writer_key(w, key);
  json_write_string(w->out, value);
}

static void put_bool(struct json_writer *w, const char *key, int value)
{
  writer_key(w, key);
  fputs(value ? "true" : "false", w->out);
}

static void put_uint_array(struct json_writer *w, const char *key, const uint64_t *values,
                           size_t count)
{
  writer_key(w, key);
  if (!values) {
    fputs("null", w->out);
    return;
  }
  putc('[', w->out);
  for (size_t i = 0; i < count; i++)
    fprintf(w->out, i ? ", %" PRIu64 : "%" PRIu64, values[i]);
  putc(']', w->out);
}

static void put_double_array(struct json_writer *w, const char *key, const double *values,
                             size_t count)
{
  writer_key(w, key);
  if (!values) {
    fputs("null", w->out);
    return;
  }
  putc('[', w->out);
  for (size_t i = 0; i < count; i++) {
    if (i)
      fputs(", ", w->out);
    json_write_double(w->out, values[i]);
  }
  putc(']', w->out);
}

static void put_bool_array(struct json_writer *w, const char *key, const unsigned char *values,
                           size_t count)
{
  writer_key(w, key);
  putc('[', w->out);
  for (size_t i = 0; i < count; i++)
    fputs(i ? (values[i] ? ", true" : ", false") : (values[i] ? "true" : "false"), w->out);
  putc(']', w->out);
}

static void put_capture(struct json_writer *w, const char *key, const struct diff_capture *c)
{
  writer_key(w, key);
  writer_open(w, '{');
  put_string(w, "path", c->path);
  put_string(w, "command", c->command);
  put_string(w, "host", c->host);
  writer_key(w, "pid");
  fprintf(w->out, "%ld", c->pid);
  put_string(w, "luajit_version", c->luajit_version);
  put_uint(w, "sample_bytes", c->sample_bytes);
  put_uint(w, "boundary_count", c->boundary_count);
  put_double_array(w, "boundary_times", c->boundary_times, c->boundary_count);
  put_uint_array(w, "gc_cycles", c->gc_cycles, c->boundary_count);
  put_uint_array(w, "heap_bytes", c->heap_bytes, c->boundary_count);
  /* From the index's boundary lines only; absent otherwise, as before them. */
  if (c->allocated)
    put_uint_array(w, "boundary_allocated", c->allocated, c->boundary_count);
  if (c->forced)
    put_bool_array(w, "boundary_forced", c->forced, c->boundary_count);
  put_double(w, "start_time", c->start_time);
  put_uint(w, "events", c->events);
  put_bool(w, "truncated", c->truncated);
  writer_close(w, '}');
}

static void put_options(struct json_writer *w, const struct diff_options *o)
{
  writer_key(w, "options");
  writer_open(w, '{');
  put_uint(w, "min_boundaries", o->min_boundaries);
  put_double(w, "max_p_value", o->max_p_value);
  put_double(w, "min_growth_bytes", o->min_growth_bytes);
  put_double(w, "worse_ratio", o->worse_ratio);
  put_uint(w, "range_from", o->range_from);
  put_uint(w, "range_to", o->range_to);
  put_bool(w, "strict", o->strict);
  writer_key(w, "jobs");
  fprintf(w->out, "%d", o->jobs);
  put_double(w, "min_growth_fraction", o->min_growth_fraction);
  put_uint(w, "warmup", o->warmup);
  if (o->by != DIFF_BY_SITE)  /* absent: by site, as before stacks */
    put_string(w, "by", diff_by_name(o->by));
  writer_close(w, '}');
}

/* The allow-list rule a site matched, or null. */
static void put_allowance(struct json_writer *w, const struct diff_allowance *a)
{
  writer_key(w, "allow");
  if (!a) {
    fputs("null", w->out);
    return;
  }
  writer_open(w, '{');
  put_string(w, "pattern", a->pattern);
  put_string(w, "budget", a->budget);
  put_double(w, "budget_bytes", a->budget_bytes);
  put_string(w, "per", a->per_megabyte ? "MB" : "boundary");
  put_string(w, "comment", a->comment);
  put_string(w, "file", a->file);
  put_uint(w, "line", a->line);
  put_double(w, "growth", a->growth);
  writer_close(w, '}');
}

/* A stack's site and frames (leaf first), after its site-like members. */
static void put_stack_frames(struct json_writer *w, const struct diff_site *s)
{
  put_bool(w, "stack", 1);
  writer_key(w, "site_id");
  fprintf(w->out, "\"%016" PRIx64 "\"", s->site_id);
  writer_key(w, "frames");
  writer_open(w, '[');
  for (size_t i = 0; i < s->frame_count; i++) {
    const struct diff_frame *f = &s->frames[i];
    if (!w->first)
      putc(',', w->out);
    w->first = 0;
    writer_indent(w);
    fputs("{\"kind\": ", w->out);
    json_write_string(w->out, diff_frame_kind_name(f->kind));
    fputs(", \"name\": ", w->out);
    json_write_string(w->out, f->name);
    fprintf(w->out, ", \"defined\": %" PRIu64 ", \"line\": %" PRIu64 "}", f->defined, f->line);
  }
  writer_close(w, ']');
}

static void put_site(struct json_writer *w, const struct diff_site *s)
{
  if (!w->first)
    putc(',', w->out);
  w->first = 0;
  writer_indent(w);
  writer_open(w, '{');
  put_string(w, "name", s->name);
  writer_key(w, "id");
  fprintf(w->out, "\"%016" PRIx64 "\"", s->id);
  put_string(w, "kind", diff_site_kind_name(s->kind));
  put_string(w, "source_file", s->source_file);
  put_uint(w, "source_line", s->source_line);
  put_string(w, "verdict", diff_verdict_name(s->verdict));
  put_uint_array(w, "series", s->live_bytes, s->count);
  put_uint_array(w, "live_blocks", s->live_blocks, s->count);
  put_uint_array(w, "alloc_bytes", s->alloc_bytes, s->count);
  put_uint_array(w, "free_bytes", s->free_bytes, s->count);
  put_uint(w, "allocs", s->allocs);
  put_uint(w, "frees", s->frees);
  put_double(w, "growth_bytes_per_segment", s->growth_bytes_per_segment);
  put_double(w, "growth_bytes_per_second", s->growth_bytes_per_second);
  put_double(w, "trend_statistic", s->trend_statistic);
  put_double(w, "trend_p_value", s->trend_p_value);
  put_string(w, "base_verdict", diff_verdict_name(s->base_verdict));
  put_uint_array(w, "base_series", s->base_live_bytes, s->base_count);
  put_double(w, "base_growth_bytes_per_segment", s->base_growth_bytes_per_segment);
  writer_key(w, "range_delta_bytes");
  fprintf(w->out, "%" PRId64, s->range_delta_bytes);
  put_bool(w, "allowed", s->allowed);
  put_allowance(w, s->allowance);
  if (s->is_stack)
    put_stack_frames(w, s);
  writer_close(w, '}');
}

int report_render_json(const struct diff_result *result, FILE *out, char *error,
                       size_t error_size)
{
  (void)error;
  (void)error_size;
  struct json_writer w = {out, 0, 1};
  writer_open(&w, '{');
  put_uint(&w, "ljleak_result", 1);
  put_string(&w, "mode", diff_mode_name(result->mode));
  put_options(&w, &result->options);
  put_capture(&w, "capture", &result->capture);
  if (result->mode == DIFF_MODE_BASE)
    put_capture(&w, "base", &result->base);
  put_uint(&w, "flagged", result->flagged);
  /* The outcome and its reason: the model's facts, in the renderers' words. */
  enum diff_outcome outcome = result->facts.outcome;
  char reason[512];
  report_outcome_reason(result, reason, sizeof reason);
  put_string(&w, "outcome", diff_outcome_name(outcome));
  put_uint(&w, "undecided", result->facts.tally.undecided);
  put_string(&w, "outcome_reason", outcome == DIFF_OUTCOME_INCONCLUSIVE ? reason : NULL);
  writer_key(&w, "sites");
  writer_open(&w, '[');
  for (size_t i = 0; i < result->site_count; i++)
    put_site(&w, &result->sites[i]);
  writer_close(&w, ']');
  if (result->stack_count) {  /* by site, with stacks: each (site, stack) in the sites' order */
    writer_key(&w, "stacks");
    writer_open(&w, '[');
    for (size_t i = 0; i < result->stack_count; i++)
      put_site(&w, &result->stacks[i]);
    writer_close(&w, ']');
  }
  writer_close(&w, '}');
  putc('\n', out);
  return 0;
}
