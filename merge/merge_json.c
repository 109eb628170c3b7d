/* merge/merge_json.c: a merge as JSON (docs/merge.md): every capture and every site's values, so that it merges again exactly; and the format names. */
#include <inttypes.h>
#include <string.h>

#include "format/json_write.h"
#include "merge/merge_internal.h"

int merge_format_parse(const char *name, enum merge_format *format)
{
  static const char *const names[] = {"text", "json", "html", "markdown", "junit"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (!strcmp(name, names[i])) {
      *format = (enum merge_format)i;
      return 0;
    }
  return -1;
}

enum format_status merge_render(const struct merge *merge, enum merge_format format, FILE *out,
                                struct format_error *error)
{
  format_error_clear(error);
  int rc = -1;
  switch (format) {
  case MERGE_FORMAT_TEXT: rc = merge_render_text(merge, out); break;
  case MERGE_FORMAT_JSON: rc = merge_render_json(merge, out); break;
  case MERGE_FORMAT_HTML: rc = merge_render_html(merge, out); break;
  case MERGE_FORMAT_MARKDOWN: rc = merge_render_markdown(merge, out); break;
  case MERGE_FORMAT_JUNIT: rc = merge_render_junit(merge, out); break;
  }
  return rc < 0 ? format_error_set(error, FORMAT_IO, "cannot render the merge") : FORMAT_OK;
}

static void put_capture(struct json_writer *w, const struct merge_capture *c)
{
  const struct diff_capture *info = &c->info;
  json_write_item(w);
  json_write_open(w, '{');
  json_write_member_string(w, "source", c->source);
  json_write_member_string(w, "path", info->path);
  json_write_member_string(w, "host", info->host);
  json_write_member_int(w, "pid", info->pid);
  json_write_member_string(w, "exe", info->exe);
  json_write_member_string(w, "command", info->command);
  json_write_member_string(w, "luajit_version", info->luajit_version);
  json_write_member_double(w, "start_time", info->start_time);
  json_write_member_double(w, "stop_time", info->stop_time);
  if (info->stop_reason)  /* only when known, as a result writes it */
    json_write_member_string(w, "stop_reason", info->stop_reason);
  json_write_member_double(w, "end_time", c->end_time);
  json_write_member_bool(w, "has_times", c->has_times);
  json_write_member_uint(w, "boundary_count", info->boundary_count);
  json_write_member_bool(w, "truncated", info->truncated);
  json_write_member_string(w, "outcome", diff_outcome_name(c->outcome));
  json_write_member_uint(w, "sites", c->site_count);
  json_write_member_uint(w, "flagged", c->flagged);
  diff_capture_write_labels(w, info);
  json_write_close(w, '}');
}

/* A site's values as columns, each array on one line. */
static void put_column(struct json_writer *w, const char *key, const struct merge_site *site,
                       int column)
{
  json_write_key(w, key);
  json_write_open_line(w, '[');
  for (size_t i = 0; i < site->value_count; i++) {
    const struct merge_value *v = &site->values[i];
    json_write_item(w);
    switch (column) {
    case 0: fprintf(w->out, "%zu", v->capture); break;
    case 1: json_write_string(w->out, diff_verdict_name(v->verdict)); break;
    case 2: fputs(v->flagged ? "true" : "false", w->out); break;
    case 3: fputs(v->undecided ? "true" : "false", w->out); break;
    case 4: json_write_double(w->out, v->growth_bytes_per_boundary); break;
    case 5: json_write_double(w->out, v->growth_bytes_per_second); break;
    case 6: fprintf(w->out, "%" PRIu64, v->live_bytes); break;
    }
  }
  json_write_close(w, ']');
}

static void put_counts(struct json_writer *w, const char *key, const size_t *counts, size_t count)
{
  json_write_key(w, key);
  json_write_open_line(w, '[');
  for (size_t i = 0; i < count; i++) {
    json_write_item(w);
    fprintf(w->out, "%zu", counts ? counts[i] : 0);
  }
  json_write_close(w, ']');
}

static void put_site(struct json_writer *w, const struct merge *merge, const struct merge_site *s)
{
  char id[17];
  snprintf(id, sizeof id, "%016" PRIx64, s->id);
  json_write_item(w);
  json_write_open(w, '{');
  json_write_member_string(w, "name", s->name);
  json_write_member_string(w, "id", id);
  json_write_member_string(w, "kind", diff_site_kind_name(s->kind));
  json_write_member_uint(w, "captures", s->seen);
  json_write_member_uint(w, "growing", s->growing);
  json_write_member_uint(w, "undecided", s->undecided);
  json_write_member_uint(w, "steady", s->steady);
  json_write_member_bool(w, "flagged", s->growing >= merge->min_captures);
  json_write_member_double(w, "growth_bytes_per_boundary_median", s->growth_median);
  json_write_member_double(w, "growth_bytes_per_boundary_max", s->growth_max);
  json_write_member_uint(w, "captures_with_times", s->per_second_count);
  json_write_member_double(w, "growth_bytes_per_second_median", s->growth_per_second_median);
  json_write_member_double(w, "growth_bytes_per_second_max", s->growth_per_second_max);
  json_write_member_uint(w, "live_bytes_sum", s->live_sum);
  json_write_member_uint(w, "live_bytes_max", s->live_max);
  put_counts(w, "label_growing", s->label_growing, merge->group_count);
  put_counts(w, "label_seen", s->label_seen, merge->group_count);
  put_column(w, "in", s, 0);
  put_column(w, "verdicts", s, 1);
  put_column(w, "flagged_in", s, 2);
  put_column(w, "undecided_in", s, 3);
  put_column(w, "growth_bytes_per_boundary", s, 4);
  put_column(w, "growth_bytes_per_second", s, 5);
  put_column(w, "live_bytes", s, 6);
  json_write_close(w, '}');
}

int merge_render_json(const struct merge *merge, FILE *out)
{
  struct json_writer w = {.out = out, .first = 1};
  json_write_open(&w, '{');
  json_write_member_uint(&w, "ljleak_merge", MERGE_VERSION);
  json_write_member_string(&w, "mode", diff_mode_name(merge->mode));
  json_write_member_string(&w, "by", diff_by_name(merge->by));
  json_write_member_uint(&w, "min_captures", merge->min_captures);
  json_write_member_string(&w, "outcome", diff_outcome_name(merge->outcome));
  json_write_member_uint(&w, "flagged", merge->flagged);
  json_write_member_uint(&w, "growing_sites", merge->growing_sites);
  json_write_member_uint(&w, "undecided_sites", merge->undecided_sites);
  json_write_member_uint(&w, "captures_flagged", merge->captures_flagged);
  json_write_member_uint(&w, "captures_inconclusive", merge->captures_inconclusive);
  json_write_key(&w, "labels");
  json_write_open(&w, '[');
  for (size_t i = 0; i < merge->group_count; i++) {
    json_write_item(&w);
    json_write_open(&w, '{');
    json_write_member_string(&w, "key", merge->groups[i].key);
    json_write_member_string(&w, "value", merge->groups[i].value);
    json_write_member_uint(&w, "captures", merge->groups[i].captures);
    json_write_close(&w, '}');
  }
  json_write_close(&w, ']');
  json_write_key(&w, "captures");
  json_write_open(&w, '[');
  for (size_t i = 0; i < merge->capture_count; i++)
    put_capture(&w, &merge->captures[i]);
  json_write_close(&w, ']');
  json_write_key(&w, "sites");
  json_write_open(&w, '[');
  for (size_t i = 0; i < merge->site_count; i++)
    put_site(&w, merge, &merge->sites[i]);
  json_write_close(&w, ']');
  json_write_close(&w, '}');
  putc('\n', out);
  return ferror(out) ? -1 : 0;
}
