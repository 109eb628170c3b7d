/* merge/merge_read.c: the merge's inputs: diff results (read by report_read_json_value), earlier merges (docs/merge.md), directories of them. */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "format/capture_index.h"
#include "format/json_read.h"
#include "format/whole_file.h"
#include "merge/merge_internal.h"
#include "report/report.h"

/* Where the merge reader is, for "FILE: byte N: what is wrong". */
struct merge_reader {
  const char *name;
  struct merge_error *err;
};

static enum merge_status merge_read_fail(struct merge_reader *r, const struct json_read_value *at,
                                         const char *what)
{
  return merge_fail(r->err, MERGE_ERROR_INPUT, "%s: byte %zu: %s", r->name, at->offset, what);
}

static const struct json_read_value *merge_member(const struct json_read_value *object,
                                                  const char *key, enum json_read_type type)
{
  const struct json_read_value *v = json_read_object_get(object, key);
  return v && v->type == type ? v : NULL;
}

/* A member that must be a whole number >= 0 (absent: 0). -1 when it is not one. */
static int merge_read_count(const struct json_read_value *object, const char *key, uint64_t *out)
{
  const struct json_read_value *v = json_read_object_get(object, key);
  *out = 0;
  if (!v)
    return 0;
  if (v->type != JSON_NUMBER || v->text[0] == '-' || strpbrk(v->text, ".eE"))
    return -1;
  errno = 0;
  *out = strtoull(v->text, NULL, 10);
  return errno ? -1 : 0;
}

static int merge_read_number(const struct json_read_value *v, double *out)
{
  if (v->type == JSON_NULL) {
    *out = 0;
    return 0;
  }
  if (v->type != JSON_NUMBER)
    return -1;
  *out = strtod(v->text, NULL);
  return isfinite(*out) ? 0 : -1;
}

/* A string member (absent or null: NULL); -1 when it is neither a string nor null. */
static int merge_read_string(const struct json_read_value *object, const char *key, char **out)
{
  const struct json_read_value *v = json_read_object_get(object, key);
  *out = NULL;
  if (!v || v->type == JSON_NULL)
    return 0;
  if (v->type != JSON_STRING)
    return -1;
  return (*out = strdup(v->text)) ? 0 : -2;
}

/* One capture of a merge's "captures". */
static enum merge_status merge_read_capture(struct merge_reader *r, struct merge *merge,
                                            const struct json_read_value *v)
{
  if (v->type != JSON_OBJECT)
    return merge_read_fail(r, v, "a capture must be an object");
  struct merge_capture *capture = merge_capture_new(merge);
  if (!capture)
    return merge_fail(r->err, MERGE_ERROR_MEMORY, "out of memory");
  struct diff_capture *info = &capture->info;
  static const char *const strings[] = {"source", "path", "command", "exe", "host", "luajit_version"};
  char **fields[] = {&capture->source, &info->path, &info->command, &info->exe, &info->host,
                     &info->luajit_version};
  for (size_t i = 0; i < sizeof strings / sizeof strings[0]; i++) {
    int rc = merge_read_string(v, strings[i], fields[i]);
    if (rc == -2)
      return merge_fail(r->err, MERGE_ERROR_MEMORY, "out of memory");
    if (rc < 0)
      return merge_read_fail(r, json_read_object_get(v, strings[i]),
                             "a capture's text member must be a string or null");
  }
  if (!capture->source)
    return merge_read_fail(r, v, "a capture without its \"source\"");
  uint64_t boundaries, sites, flagged;
  const struct json_read_value *m;
  if (merge_read_count(v, "boundary_count", &boundaries) < 0 ||
      merge_read_count(v, "sites", &sites) < 0 || merge_read_count(v, "flagged", &flagged) < 0)
    return merge_read_fail(r, v, "a capture's boundary_count, sites and flagged must be whole numbers >= 0");
  info->boundary_count = (size_t)boundaries;
  capture->site_count = (size_t)sites;
  capture->flagged = (size_t)flagged;
  if ((m = json_read_object_get(v, "pid"))) {
    if (m->type != JSON_NUMBER || strpbrk(m->text, ".eE"))
      return merge_read_fail(r, m, "pid must be a whole number");
    info->pid = strtol(m->text, NULL, 10);
  }
  static const char *const times[] = {"start_time", "stop_time", "end_time"};
  double *time_fields[] = {&info->start_time, &info->stop_time, &capture->end_time};
  for (size_t i = 0; i < 3; i++)
    if ((m = json_read_object_get(v, times[i])) && merge_read_number(m, time_fields[i]) < 0)
      return merge_read_fail(r, m, "a capture's times must be numbers");
  if ((m = json_read_object_get(v, "has_times"))) {
    if (m->type != JSON_TRUE && m->type != JSON_FALSE)
      return merge_read_fail(r, m, "has_times must be true or false");
    capture->has_times = m->type == JSON_TRUE;
  }
  if (!(m = merge_member(v, "outcome", JSON_STRING)) || diff_outcome_parse(m->text, &capture->outcome) < 0)
    return merge_read_fail(r, m ? m : v,
                           "a capture's outcome must be \"pass\", \"flagged\" or \"inconclusive\"");
  if ((m = json_read_object_get(v, "labels"))) {
    if (m->type != JSON_OBJECT || m->count > CAPTURE_INDEX_LABEL_COUNT_MAX)
      return merge_read_fail(r, m, "labels must be an object of at most 16 strings");
    for (size_t i = 0; i < m->count; i++) {
      char one[CAPTURE_INDEX_LABEL_KEY_MAX + CAPTURE_INDEX_LABEL_VALUE_MAX + 2];
      const struct json_read_value *value = &m->items[i];
      int n = value->type == JSON_STRING ? snprintf(one, sizeof one, "%s=%s", m->keys[i], value->text) : -1;
      if (n < 0 || (size_t)n >= sizeof one || strchr(m->keys[i], '=') ||
          capture_index_labels_check(one, NULL, 0) != 0)
        return merge_read_fail(r, value, "a label must be KEY: VALUE as the capture index takes it "
                                         "(docs/index-format.md)");
      if (diff_capture_add_label(info, m->keys[i], strlen(m->keys[i]), value->text,
                                 strlen(value->text)) != 0)
        return merge_fail(r->err, MERGE_ERROR_MEMORY, "out of memory");
    }
  }
  return MERGE_OK;
}

/* The columns of a site's values, each an array of value_count elements. */
struct merge_columns {
  const struct json_read_value *in, *verdicts, *flagged, *undecided, *growth, *per_second, *live;
};

static enum merge_status merge_read_site(struct merge_reader *r, struct merge *merge,
                                         const struct json_read_value *v, size_t first_capture)
{
  if (v->type != JSON_OBJECT)
    return merge_read_fail(r, v, "a site must be an object");
  const struct json_read_value *name = merge_member(v, "name", JSON_STRING);
  const struct json_read_value *id = merge_member(v, "id", JSON_STRING);
  const struct json_read_value *kind = merge_member(v, "kind", JSON_STRING);
  enum diff_site_kind site_kind;
  char *end = NULL;
  uint64_t site_id = id ? strtoull(id->text, &end, 16) : 0;
  if (!name || !id || strlen(id->text) != 16 || !end || *end || !kind ||
      diff_site_kind_parse(kind->text, &site_kind) < 0)
    return merge_read_fail(r, v, "a site needs its name, its id (16 hex digits) and its kind");
  struct merge_columns c = {
    merge_member(v, "in", JSON_ARRAY), merge_member(v, "verdicts", JSON_ARRAY),
    merge_member(v, "flagged_in", JSON_ARRAY), merge_member(v, "undecided_in", JSON_ARRAY),
    merge_member(v, "growth_bytes_per_boundary", JSON_ARRAY),
    merge_member(v, "growth_bytes_per_second", JSON_ARRAY), merge_member(v, "live_bytes", JSON_ARRAY),
  };
  if (!c.in || !c.verdicts || !c.flagged || !c.undecided || !c.growth || !c.per_second || !c.live)
    return merge_read_fail(r, v, "a site needs the arrays in, verdicts, flagged_in, undecided_in, "
                                 "growth_bytes_per_boundary, growth_bytes_per_second and live_bytes");
  size_t count = c.in->count;
  if (c.verdicts->count != count || c.flagged->count != count || c.undecided->count != count ||
      c.growth->count != count || c.per_second->count != count || c.live->count != count)
    return merge_read_fail(r, v, "a site's value arrays differ in length");
  struct merge_site *site = merge_site_get(merge, name->text, site_id, site_kind);
  if (!site)
    return merge_fail(r->err, MERGE_ERROR_MEMORY, "out of memory");
  size_t own = merge->capture_count - first_capture;  /* the captures this input added */
  if (!count)
    return merge_read_fail(r, v, "a site seen in no capture");
  /* A site listed twice in one merge would be seen twice in a capture. */
  if (site->value_count && site->values[site->value_count - 1].capture >= first_capture)
    return merge_read_fail(r, v, "a site listed twice");
  for (size_t i = 0; i < count; i++) {
    struct merge_value value;
    memset(&value, 0, sizeof value);
    const struct json_read_value *in = &c.in->items[i], *verdict = &c.verdicts->items[i];
    if (in->type != JSON_NUMBER || in->text[0] == '-' || strpbrk(in->text, ".eE") ||
        (value.capture = (size_t)strtoull(in->text, NULL, 10)) >= own)
      return merge_read_fail(r, in, "in: a capture index past the captures");
    if (i && value.capture <= strtoull(c.in->items[i - 1].text, NULL, 10))
      return merge_read_fail(r, in, "in: capture indexes must rise");
    value.capture += first_capture;
    if (verdict->type != JSON_STRING || diff_verdict_parse(verdict->text, &value.verdict) < 0)
      return merge_read_fail(r, verdict, "verdicts: not a verdict");
    const struct json_read_value *flagged = &c.flagged->items[i], *undecided = &c.undecided->items[i];
    if ((flagged->type != JSON_TRUE && flagged->type != JSON_FALSE) ||
        (undecided->type != JSON_TRUE && undecided->type != JSON_FALSE))
      return merge_read_fail(r, flagged, "flagged_in and undecided_in must hold true or false");
    value.flagged = flagged->type == JSON_TRUE;
    value.undecided = undecided->type == JSON_TRUE;
    if (value.flagged && value.undecided)
      return merge_read_fail(r, flagged, "a value both flagged and undecided");
    const struct json_read_value *live = &c.live->items[i];
    if (merge_read_number(&c.growth->items[i], &value.growth_bytes_per_boundary) < 0 ||
        merge_read_number(&c.per_second->items[i], &value.growth_bytes_per_second) < 0)
      return merge_read_fail(r, &c.growth->items[i], "growth must be finite numbers");
    if (live->type != JSON_NUMBER || live->text[0] == '-' || strpbrk(live->text, ".eE"))
      return merge_read_fail(r, live, "live_bytes must hold whole numbers >= 0");
    errno = 0;
    value.live_bytes = strtoull(live->text, NULL, 10);
    if (errno)
      return merge_read_fail(r, live, "live_bytes is larger than 2^64-1");
    if (merge_site_add_value(site, &value) != 0)
      return merge_fail(r->err, MERGE_ERROR_MEMORY, "out of memory");
  }
  return MERGE_OK;
}

/* A merge's JSON: its captures are appended, its sites' values follow them. */
static enum merge_status merge_read_merge(struct merge_reader *r, struct merge *merge,
                                          const struct json_read_value *root)
{
  const struct json_read_value *version = json_read_object_get(root, "ljleak_merge");
  if (version->type != JSON_NUMBER || strcmp(version->text, "1"))
    return merge_read_fail(r, version, "ljleak_merge is not a version this reader knows (1)");
  const struct json_read_value *mode = merge_member(root, "mode", JSON_STRING);
  const struct json_read_value *by = merge_member(root, "by", JSON_STRING);
  enum diff_mode merge_mode;
  enum diff_by merge_by;
  if (!mode || diff_mode_parse(mode->text, &merge_mode) < 0 || !by ||
      diff_by_parse(by->text, &merge_by) < 0)
    return merge_read_fail(r, root, "a merge needs its mode (trend, range, base) and by (site, stack)");
  const struct json_read_value *captures = merge_member(root, "captures", JSON_ARRAY);
  const struct json_read_value *sites = merge_member(root, "sites", JSON_ARRAY);
  if (!captures || !sites)
    return merge_read_fail(r, root, "a merge needs its captures and sites arrays");
  enum merge_status status = merge_check_kind(merge, merge_mode, merge_by, r->name, r->err);
  if (status != MERGE_OK)
    return status;
  size_t first = merge->capture_count;
  for (size_t i = 0; i < captures->count; i++)
    if ((status = merge_read_capture(r, merge, &captures->items[i])) != MERGE_OK)
      return status;
  for (size_t i = 0; i < sites->count; i++)
    if ((status = merge_read_site(r, merge, &sites->items[i], first)) != MERGE_OK)
      return status;
  return MERGE_OK;
}

enum merge_status merge_add_text(struct merge *merge, const char *name, const char *text,
                                 size_t length, struct merge_error *err)
{
  struct json_read_value root;
  size_t offset = 0;
  char message[200];
  if (json_read_parse(text, length, &root, &offset, message, sizeof message) < 0)
    return merge_fail(err, MERGE_ERROR_INPUT, "%s: byte %zu: %s", name, offset, message);
  struct merge_reader r = {name, err};
  enum merge_status status;
  if (root.type == JSON_OBJECT && json_read_object_get(&root, "ljleak_merge")) {
    status = merge_read_merge(&r, merge, &root);
  } else if (root.type == JSON_OBJECT && json_read_object_get(&root, "ljleak_result")) {
    struct diff_result result;
    char error[512];
    if (report_read_json_value(name, &root, &result, error, sizeof error) < 0) {
      status = merge_fail(err, MERGE_ERROR_INPUT, "%s", error);
    } else {
      status = merge_add_result(merge, &result, name, err);
      diff_result_free(&result);
    }
  } else {
    status = merge_read_fail(&r, &root, "neither a diff result (\"ljleak_result\") nor a merge "
                                        "(\"ljleak_merge\")");
  }
  json_read_free(&root);
  return status;
}

static enum merge_status merge_add_file(struct merge *merge, const char *path, struct merge_error *err)
{
  char *text = NULL;
  size_t size = 0;
  int system_error = 0;
  char message[600];
  if (whole_file_read(path, &text, &size, &system_error, message, sizeof message) != WHOLE_FILE_OK)
    return merge_fail(err, system_error ? MERGE_ERROR_INPUT : MERGE_ERROR_MEMORY, "%s", message);
  enum merge_status status = merge_add_text(merge, path, text, size, err);
  free(text);
  return status;
}

static int merge_name_compare(const void *a, const void *b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every *.json under directory, any depth, in name order: 0, or -1 with err. */
static enum merge_status merge_add_directory(struct merge *merge, const char *directory,
                                             size_t *found, struct merge_error *err)
{
  DIR *dir = opendir(directory);
  if (!dir)
    return merge_fail(err, MERGE_ERROR_INPUT, "%s: cannot open: %s", directory, strerror(errno));
  char **names = NULL;
  size_t count = 0, capacity = 0;
  enum merge_status status = MERGE_OK;
  struct dirent *entry;
  while ((entry = readdir(dir))) {
    if (entry->d_name[0] == '.')
      continue;
    if (merge_reserve((void **)&names, &capacity, count, sizeof *names) != 0 ||
        !(names[count] = strdup(entry->d_name))) {
      status = merge_fail(err, MERGE_ERROR_MEMORY, "out of memory");
      break;
    }
    count++;
  }
  closedir(dir);
  if (count)
    qsort(names, count, sizeof *names, merge_name_compare);
  for (size_t i = 0; i < count && status == MERGE_OK; i++) {
    size_t length = strlen(directory) + strlen(names[i]) + 2;
    char *path = malloc(length);
    if (!path) {
      status = merge_fail(err, MERGE_ERROR_MEMORY, "out of memory");
      break;
    }
    snprintf(path, length, "%s%s%s", directory,
             directory[strlen(directory) - 1] == '/' ? "" : "/", names[i]);
    struct stat st;
    /* A link to a directory is not followed: no loops; one to a file is read. */
    if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
      status = merge_add_directory(merge, path, found, err);
    } else {
      size_t name_length = strlen(names[i]);
      if (name_length > 5 && !strcmp(names[i] + name_length - 5, ".json")) {
        status = merge_add_file(merge, path, err);
        (*found)++;
      }
    }
    free(path);
  }
  for (size_t i = 0; i < count; i++)
    free(names[i]);
  free(names);
  return status;
}

enum merge_status merge_add_path(struct merge *merge, const char *path, struct merge_error *err)
{
  struct stat st;
  if (stat(path, &st) != 0)
    return merge_fail(err, MERGE_ERROR_INPUT, "%s: cannot open: %s", path, strerror(errno));
  if (!S_ISDIR(st.st_mode))
    return merge_add_file(merge, path, err);
  size_t found = 0;
  enum merge_status status = merge_add_directory(merge, path, &found, err);
  if (status == MERGE_OK && !found)
    return merge_fail(err, MERGE_ERROR_INPUT, "%s: no results (*.json) in this directory", path);
  return status;
}
