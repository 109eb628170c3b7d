/* diff/values.c: --values: the suspects' strings and their containers' keys, read from the values sidecars beside the capture's heap snapshots (see values.h). */
#include "diff/values.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/snapshot.h"
#include "format/snapshot_values.h"
#include "format/utf8.h"

/* One sidecar the index's snapshots have: its boundary and, once read, what it holds. */
struct values_file {
  uint64_t boundary;
  size_t at;                  /* its boundary's index in the capture, VALUES_AT_END for the exit
                                 boundary (after the last), DIFF_SOURCE_NOWHERE when not found */
  char *path;
  int state;                  /* 0 not read yet, 1 read, -1 unreadable or another capture's */
  struct snapshot_values values;
};

#define VALUES_AT_END DIFF_SOURCE_AT_END

static void values_warn(const struct diff_options *options, const char *message)
{
  if (options->warn)
    options->warn(options->warn_context, message);
}

/* The sidecars beside the capture's heap snapshots (as its one reading found them: format/
 * capture_files.h), each with its boundary's place among the capture's. 0, or -1 when out of
 * memory. */
static int values_list(const struct diff_source *capture, struct values_file **files, size_t *count)
{
  const struct capture_files *listed = &capture->files;
  *files = NULL;
  *count = 0;
  if (listed->snapshot_count && !(*files = calloc(listed->snapshot_count, sizeof **files)))
    return -1;
  for (size_t i = 0; i < listed->snapshot_count; i++) {
    const struct capture_files_snapshot *snapshot = &listed->snapshots[i];
    if (!snapshot->values_path)
      continue;
    char *path = strdup(snapshot->values_path);
    if (!path)
      return -1;
    (*files)[(*count)++] = (struct values_file){.boundary = snapshot->line->boundary,
                                                .at = diff_source_snapshot_at(capture, i), .path = path};
  }
  return 0;
}

/* The sidecar of boundary's snapshot, read on first use, or NULL. */
static const struct snapshot_values *values_of(struct values_file *files, size_t count, uint64_t boundary,
                                               const struct diff_source *capture,
                                               const struct diff_options *options, int *no_memory,
                                               size_t *which)
{
  struct values_file *f = NULL;
  for (size_t i = 0; i < count; i++)
    if (files[i].boundary == boundary) {
      f = &files[i];
      *which = i;
    }
  if (!f || f->state < 0)
    return NULL;
  if (f->state > 0)
    return &f->values;
  struct format_error error;
  enum format_status read = snapshot_values_read_file(&f->values, f->path, INPUT_FILE_FOUND, &error);
  if (read == FORMAT_NO_MEMORY) {
    *no_memory = 1;
    f->state = -1;
    return NULL;
  }
  if (read != FORMAT_OK && read != FORMAT_CUT) {
    format_error_set(&error, read, "%s; no values from it", error.message);
    values_warn(options, error.message);
    f->state = -1;
    return NULL;
  }
  /* The same capture and boundary as its snapshot: the pid, and the start to the millisecond. */
  const struct snapshot_values_capture *who = &f->values.capture;
  double start_ms = capture->info.start_time * 1000.0;
  if (who->boundary != boundary || (capture->info.pid && who->pid != (uint64_t)capture->info.pid) ||
      (capture->info.start_time > 0 && (who->start_ms + 1 < start_ms || who->start_ms > start_ms + 1))) {
    format_error_at(&error, FORMAT_BAD_INPUT, f->path, 8,
                    "belongs to another capture or snapshot (pid %" PRIu64 ", boundary %" PRIu64
                    "), not this one (pid %ld, boundary %" PRIu64 "); no values from it",
                    who->pid, who->boundary, capture->info.pid, boundary);
    values_warn(options, error.message);
    snapshot_values_free(&f->values);
    f->state = -1;
    return NULL;
  }
  if (read == FORMAT_CUT)
    values_warn(options, error.message);
  f->state = 1;
  return &f->values;
}

/* The bytes of text that end on a whole character when a string was cut after them: an
 * incomplete UTF-8 sequence at the end is left out (it would show as \x escapes). */
static uint32_t values_whole_characters(const char *text, uint32_t shown)
{
  for (uint32_t back = 1; back <= 3 && back <= shown; back++) {
    unsigned char c = (unsigned char)text[shown - back];
    if ((c & 0xc0) == 0x80)
      continue;  /* a continuation byte: its lead is further back */
    uint32_t need = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
    return need > back ? shown - back : shown;
  }
  return shown;
}

/* text[0 .. length) escaped as a terminal is shown it, malloc'd and terminated. */
static char *values_escape(const char *text, size_t length)
{
  char *out = malloc(UTF8_TERMINAL_SIZE(length));
  if (!out)
    return NULL;
  size_t at = 0;
  for (size_t i = 0; i < length;) {
    size_t used;
    at += utf8_terminal_char(out + at, text + i, length - i, UTF8_TERMINAL_TEXT, &used);
    i += used;
  }
  out[at] = '\0';
  return out;
}

static int values_add_text(struct diff_site *site, enum diff_value_kind kind, const char *text, uint32_t shown,
                           uint64_t length)
{
  if (shown < length)
    shown = values_whole_characters(text, shown);
  struct diff_value *v = &site->values[site->value_count];
  *v = (struct diff_value){kind, values_escape(text, shown), 1, length, shown};
  if (!v->text)
    return -1;
  site->value_count++;
  return 0;
}

/* A key that is no string, as it reads: 42, 1.5, true, [table]. */
static int values_add_key(struct diff_site *site, const struct snapshot_values_key *key)
{
  if (key->kind == SNAPSHOT_VALUES_KEY_STRING)
    return values_add_text(site, DIFF_VALUE_KEY, key->text, key->shown, key->length);
  static const char *const types[SNAPSHOT_TYPE_COUNT] = {
    [0] = "lightuserdata", [SNAPSHOT_TABLE] = "table", [SNAPSHOT_LUA_FUNCTION] = "function",
    [SNAPSHOT_C_FUNCTION] = "function", [SNAPSHOT_THREAD] = "thread", [SNAPSHOT_USERDATA] = "userdata",
    [SNAPSHOT_CDATA] = "cdata"};
  char text[64];
  if (key->kind == SNAPSHOT_VALUES_KEY_NUMBER)
    snprintf(text, sizeof text, "%.14g", key->number);
  else if (key->kind == SNAPSHOT_VALUES_KEY_TRUE || key->kind == SNAPSHOT_VALUES_KEY_FALSE)
    snprintf(text, sizeof text, "%s", key->kind == SNAPSHOT_VALUES_KEY_TRUE ? "true" : "false");
  else
    snprintf(text, sizeof text, "[%s]", key->type < SNAPSHOT_TYPE_COUNT && types[key->type] ? types[key->type] : "value");
  struct diff_value *v = &site->values[site->value_count];
  *v = (struct diff_value){DIFF_VALUE_KEY, strdup(text), 0, 0, 0};
  if (!v->text)
    return -1;
  site->value_count++;
  return 0;
}

void diff_values_drop(struct diff_result *result)
{
  for (size_t i = 0; i < result->site_count; i++) {
    struct diff_site *site = &result->sites[i];
    for (size_t k = 0; k < site->value_count; k++)
      free(site->values[k].text);
    free(site->values);
    site->values = NULL;
    site->value_count = 0;
  }
  result->values = DIFF_VALUES_OFF;
}

/* LuaJIT's string block: a header and the text with its NUL, rounded up to 4 (lj_str_size); the
 * header is 24 bytes on 64-bit builds. A block whose size is not near that is another object. */
static int values_string_fits(uint64_t block_size, uint64_t length)
{
  return block_size > length && block_size <= length + 48;
}

/* A site's strings: of the blocks live at its sidecar's boundary (the capture's map after its
 * last segment for the exit boundary, else the blocks the reading kept there), those of the
 * site that are strings in the sidecar. */
static int values_strings(const struct diff_aggregate *aggregate, struct diff_result *result, size_t file,
                          size_t at, const struct snapshot_values *const *of_site, const size_t *file_of,
                          const uint32_t *site_of)
{
  const struct diff_live_map *live = &aggregate->live;
  const struct diff_aggregate_kept *kept = at == VALUES_AT_END ? NULL : diff_aggregate_kept_at(aggregate, at);
  size_t count = kept ? kept->count : at == VALUES_AT_END && live->slots ? live->slot_count : 0;
  for (size_t i = 0; i < count; i++) {
    uint64_t address, size;
    uint32_t owner;
    if (kept) {
      address = kept->blocks[i].address;
      size = diff_aggregate_kept_size(kept, i);
      owner = kept->blocks[i].owner;
    } else {
      address = live->slots[i].address;
      size = live_map_size(live, &live->slots[i]);
      owner = live->slots[i].site;
    }
    if (!address || owner >= aggregate->owners.count)
      continue;
    uint32_t global = aggregate->owners.sites[owner];
    if (global >= aggregate->sites.count || site_of[global] == UINT32_MAX || file_of[site_of[global]] != file)
      continue;
    struct diff_site *site = &result->sites[site_of[global]];
    if (site->value_count >= DIFF_VALUES_STRINGS)
      continue;
    const struct snapshot_values_string *s = snapshot_values_find_string(of_site[site_of[global]], address);
    if (s && values_string_fits(size, s->length) &&
        values_add_text(site, DIFF_VALUE_STRING, s->text, s->shown, s->length) != 0)
      return -1;
  }
  return 0;
}

int diff_values_find(const struct diff_source *capture, const struct diff_aggregate *aggregate,
                     struct diff_result *result, const struct diff_options *options)
{
  struct values_file *files;
  size_t file_count;
  if (values_list(capture, &files, &file_count) < 0)
    return -1;
  result->values = file_count ? DIFF_VALUES_SHOWN : DIFF_VALUES_NOT_CAPTURED;
  int status = 0, no_memory = 0;
  size_t global_count = aggregate->sites.count, site_count = result->site_count ? result->site_count : 1;
  /* Each site with a container: its sidecar, and the site of each global one. */
  const struct snapshot_values **of_site = calloc(site_count, sizeof *of_site);
  size_t *file_of = calloc(site_count, sizeof *file_of);
  uint32_t *site_of = malloc((global_count ? global_count : 1) * sizeof *site_of);
  if (!of_site || !file_of || !site_of)
    status = -1;
  for (size_t i = 0; status == 0 && i < global_count; i++)
    site_of[i] = UINT32_MAX;
  for (size_t i = 0; status == 0 && file_count && i < result->site_count; i++) {
    struct diff_site *site = &result->sites[i];
    if (!site->container || site->values)
      continue;
    of_site[i] = values_of(files, file_count, site->holders_boundary, capture, options, &no_memory, &file_of[i]);
    if (no_memory || !(site->values = calloc(DIFF_VALUES_STRINGS + DIFF_VALUES_KEYS, sizeof *site->values))) {
      status = -1;
      break;
    }
    uint32_t global = diff_site_table_find(&aggregate->sites, site->name, strlen(site->name));
    if (of_site[i] && global != DIFF_SITE_TABLE_NONE)
      site_of[global] = (uint32_t)i;
  }
  for (size_t f = 0; status == 0 && f < file_count; f++)
    if (files[f].state > 0)
      status = values_strings(aggregate, result, f, files[f].at, of_site, file_of, site_of);
  /* The keys of each site's container. */
  for (size_t i = 0; status == 0 && file_count && i < result->site_count; i++) {
    struct diff_site *site = &result->sites[i];
    const struct snapshot_values_table *t =
      of_site[i] && site->container ? snapshot_values_find_table(of_site[i], site->container->address) : NULL;
    for (uint32_t k = 0; t && k < t->key_count && k < DIFF_VALUES_KEYS && status == 0; k++)
      status = values_add_key(site, &of_site[i]->keys[t->first_key + k]);
  }
  /* A site with nothing to show has no array. */
  for (size_t i = 0; i < result->site_count; i++)
    if (result->sites[i].values && !result->sites[i].value_count) {
      free(result->sites[i].values);
      result->sites[i].values = NULL;
    }
  for (size_t i = 0; i < file_count; i++) {
    snapshot_values_free(&files[i].values);
    free(files[i].path);
  }
  free(files);
  free(of_site);
  free(file_of);
  free(site_of);
  return status;
}
