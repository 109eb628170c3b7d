/* merge/merge_read.c: the merge's inputs: diff results (read by the model's reader, diff_result_read_json_value), earlier merges (docs/merge.md), directories of them. */
#include <dirent.h>
#include <pthread.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "container/array.h"
#include "diff/json_fields.h"
#include "format/capture_index.h"
#include "format/json_read.h"
#include "format/whole_file.h"
#include "merge/merge_internal.h"

/* r's error at a byte (the merge's own words); FORMAT_BAD_INPUT. */
static enum format_status merge_read_fail(struct json_reader *r, const struct json_read_value *at,
                                          const char *what)
{
  json_fields_fail(r, at, "%s", what);
  return r->error->status;
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
  return v && json_fields_to_uint(v, out) < 0 ? -1 : 0;
}

/* A finite number, null as 0 (a figure the capture did not have). */
static int merge_read_number(const struct json_read_value *v, double *out)
{
  if (json_fields_to_double(v, out) < 0)
    return -1;
  if (v->type == JSON_NULL)
    *out = 0;
  return isfinite(*out) ? 0 : -1;
}

/* A string member (absent or null: NULL); -1 when it is neither a string nor null, -2 out of memory. */
static int merge_read_string(const struct json_read_value *object, const char *key, char **out)
{
  const struct json_read_value *v = json_read_object_get(object, key);
  *out = NULL;
  return v ? json_fields_to_string(v, out) : 0;
}

/* One capture of a merge's "captures". */
static enum format_status merge_read_capture(struct json_reader *r, struct merge *merge,
                                             const struct json_read_value *v)
{
  if (v->type != JSON_OBJECT)
    return merge_read_fail(r, v, "a capture must be an object");
  struct merge_capture *capture = merge_capture_new(merge);
  if (!capture)
    return format_error_set(r->error, FORMAT_NO_MEMORY, "out of memory");
  struct diff_capture *info = &capture->info;
  static const char *const strings[] = {"source", "path", "command", "exe", "host", "luajit_version",
                                        "stop_reason"};
  char **fields[] = {&capture->source, &info->path, &info->command, &info->exe, &info->host,
                     &info->luajit_version, &info->stop_reason};
  for (size_t i = 0; i < sizeof strings / sizeof strings[0]; i++) {
    int rc = merge_read_string(v, strings[i], fields[i]);
    if (rc == -2)
      return format_error_set(r->error, FORMAT_NO_MEMORY, "out of memory");
    if (rc < 0)
      return merge_read_fail(r, json_read_object_get(v, strings[i]),
                             "a capture's text member must be a string or null");
  }
  if (!capture->source)
    return merge_read_fail(r, v, "a capture without its \"source\"");
  if (!(capture->input = strdup(r->name)))
    return format_error_set(r->error, FORMAT_NO_MEMORY, "out of memory");
  uint64_t boundaries, sites, flagged;
  const struct json_read_value *m;
  if (merge_read_count(v, "boundary_count", &boundaries) < 0 ||
      merge_read_count(v, "sites", &sites) < 0 || merge_read_count(v, "flagged", &flagged) < 0)
    return merge_read_fail(r, v, "a capture's boundary_count, sites and flagged must be whole numbers >= 0");
  info->boundary_count = (size_t)boundaries;
  capture->site_count = (size_t)sites;
  capture->flagged = (size_t)flagged;
  int64_t pid;
  if ((m = json_read_object_get(v, "pid"))) {
    if (json_fields_to_int(m, &pid) < 0 || pid < LONG_MIN || pid > LONG_MAX)
      return merge_read_fail(r, m, "pid must be a whole number");
    info->pid = (long)pid;
  }
  static const char *const times[] = {"start_time", "stop_time", "end_time"};
  double *time_fields[] = {&info->start_time, &info->stop_time, &capture->end_time};
  for (size_t i = 0; i < 3; i++)
    if ((m = json_read_object_get(v, times[i])) && merge_read_number(m, time_fields[i]) < 0)
      return merge_read_fail(r, m, "a capture's times must be numbers");
  if ((m = json_read_object_get(v, "has_times")) && json_fields_to_bool(m, &capture->has_times) < 0)
    return merge_read_fail(r, m, "has_times must be true or false");
  /* absent in merges written before it was kept: not cut */
  if ((m = json_read_object_get(v, "truncated")) && json_fields_to_bool(m, &info->truncated) < 0)
    return merge_read_fail(r, m, "truncated must be true or false");
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
          capture_index_labels_check(one, NULL) != FORMAT_OK)
        return merge_read_fail(r, value, "a label must be KEY: VALUE as the capture index takes it "
                                         "(docs/index-format.md)");
      if (diff_capture_add_label(info, m->keys[i], strlen(m->keys[i]), value->text,
                                 strlen(value->text)) != 0)
        return format_error_set(r->error, FORMAT_NO_MEMORY, "out of memory");
    }
  }
  return FORMAT_OK;
}

/* The columns of a site's values, each an array of value_count elements. */
struct merge_columns {
  const struct json_read_value *in, *verdicts, *flagged, *undecided, *growth, *per_second, *live;
};

static enum format_status merge_read_site(struct json_reader *r, struct merge *merge,
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
    return format_error_set(r->error, FORMAT_NO_MEMORY, "out of memory");
  size_t own = merge->capture_count - first_capture;  /* the captures this input added */
  if (!count)
    return merge_read_fail(r, v, "a site seen in no capture");
  /* A site listed twice in one merge would be seen twice in a capture. */
  if (site->value_count && site->values[site->value_count - 1].capture >= first_capture)
    return merge_read_fail(r, v, "a site listed twice");
  uint64_t previous = 0;
  for (size_t i = 0; i < count; i++) {
    struct merge_value value;
    memset(&value, 0, sizeof value);
    const struct json_read_value *in = &c.in->items[i], *verdict = &c.verdicts->items[i];
    uint64_t index;
    if (json_fields_to_uint(in, &index) < 0 || index >= own)
      return merge_read_fail(r, in, "in: a capture index past the captures");
    if (i && index <= previous)
      return merge_read_fail(r, in, "in: capture indexes must rise");
    previous = index;
    value.capture = first_capture + (size_t)index;
    if (verdict->type != JSON_STRING || diff_verdict_parse(verdict->text, &value.verdict) < 0)
      return merge_read_fail(r, verdict, "verdicts: not a verdict");
    const struct json_read_value *flagged = &c.flagged->items[i], *undecided = &c.undecided->items[i];
    if (json_fields_to_bool(flagged, &value.flagged) < 0 ||
        json_fields_to_bool(undecided, &value.undecided) < 0)
      return merge_read_fail(r, flagged, "flagged_in and undecided_in must hold true or false");
    if (value.flagged && value.undecided)
      return merge_read_fail(r, flagged, "a value both flagged and undecided");
    const struct json_read_value *live = &c.live->items[i];
    if (merge_read_number(&c.growth->items[i], &value.growth_bytes_per_boundary) < 0 ||
        merge_read_number(&c.per_second->items[i], &value.growth_bytes_per_second) < 0)
      return merge_read_fail(r, &c.growth->items[i], "growth must be finite numbers");
    int live_read = json_fields_to_uint(live, &value.live_bytes);
    if (live_read == -1)
      return merge_read_fail(r, live, "live_bytes must hold whole numbers >= 0");
    if (live_read < 0)
      return merge_read_fail(r, live, "live_bytes is larger than 2^64-1");
    if (merge_site_add_value(site, &value) != 0)
      return format_error_set(r->error, FORMAT_NO_MEMORY, "out of memory");
  }
  return FORMAT_OK;
}

/* A merge's JSON: its captures are appended, its sites' values follow them. */
static enum format_status merge_read_merge(struct json_reader *r, struct merge *merge,
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
  enum format_status status = merge_check_kind(merge, merge_mode, merge_by, r->name, r->error);
  if (status != FORMAT_OK)
    return status;
  size_t first = merge->capture_count;
  for (size_t i = 0; i < captures->count; i++)
    if ((status = merge_read_capture(r, merge, &captures->items[i])) != FORMAT_OK)
      return status;
  for (size_t i = 0; i < sites->count; i++)
    if ((status = merge_read_site(r, merge, &sites->items[i], first)) != FORMAT_OK)
      return status;
  return FORMAT_OK;
}

/* ---- Loading and adding --------------------------------------------------------
 * An input is loaded (read, parsed; a diff result rebuilt by the model's reader)
 * without touching the merge, so several load at once on threads; then it is
 * added to the merge, in the order the inputs were given. */

struct merge_loaded {
  const char *name;
  enum format_status status;   /* of the load; err says why */
  struct format_error err;
  int is_merge;               /* root holds a merge; else result holds a diff result */
  struct json_read_value root;
  struct diff_result result;
};

static void merge_load_text(struct merge_loaded *l, const char *text, size_t length)
{
  struct format_error parse_error;
  l->status = FORMAT_OK;
  if (json_read_parse(text, length, l->name, &l->root, &parse_error) < 0) {
    l->status = format_error_set(&l->err, FORMAT_BAD_INPUT, "%s", parse_error.message);
    return;
  }
  if (l->root.type == JSON_OBJECT && json_read_object_get(&l->root, "ljleak_merge")) {
    l->is_merge = 1;
    return;
  }
  if (l->root.type == JSON_OBJECT && json_read_object_get(&l->root, "ljleak_result")) {
    l->status = diff_result_read_json_value(l->name, &l->root, &l->result, &l->err);
  } else {
    struct json_reader r = {l->name, &l->err};
    l->status = merge_read_fail(&r, &l->root, "neither a diff result (\"ljleak_result\") nor a "
                                              "merge (\"ljleak_merge\")");
  }
  json_read_free(&l->root);
}

static void merge_load_file(struct merge_loaded *l)
{
  char *text = NULL;
  size_t size = 0;
  if ((l->status = whole_file_read(l->name, INPUT_FILE_NAMED, &text, &size, &l->err)) != FORMAT_OK)
    return;
  merge_load_text(l, text, size);
  free(text);
}

/* Adds a loaded input to the merge, and frees what the load kept. */
static enum format_status merge_apply(struct merge *merge, struct merge_loaded *l,
                                      struct format_error *err)
{
  enum format_status status = l->status;
  if (status != FORMAT_OK) {
    *err = l->err;
  } else if (l->is_merge) {
    struct json_reader r = {l->name, err};
    status = merge_read_merge(&r, merge, &l->root);
    json_read_free(&l->root);
  } else {
    status = merge_add_result(merge, &l->result, l->name, err);
  }
  diff_result_free(&l->result);
  return status;
}

enum format_status merge_add_text(struct merge *merge, const char *name, const char *text,
                                  size_t length, struct format_error *err)
{
  struct merge_loaded l;
  memset(&l, 0, sizeof l);
  l.name = name;
  merge_load_text(&l, text, length);
  return merge_apply(merge, &l, err);
}

/* The input files of the paths given: files as they are, directories as
 * their *.json files. */
struct merge_files {
  char **paths;
  size_t count, capacity;
};

static int merge_files_add(struct merge_files *files, const char *path)
{
  if (array_reserve((void **)&files->paths, &files->capacity, files->count + 1, sizeof *files->paths) != 0 ||
      !(files->paths[files->count] = strdup(path)))
    return -1;
  files->count++;
  return 0;
}

static int merge_name_compare(const void *a, const void *b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every *.json under directory, any depth, in name order, onto files. */
static enum format_status merge_list_directory(struct merge_files *files, const char *directory,
                                               struct format_error *err)
{
  DIR *dir = opendir(directory);
  if (!dir)
    return format_error_set(err, FORMAT_BAD_INPUT, "%s: cannot open: %s", directory, strerror(errno));
  struct merge_files names = {NULL, 0, 0};
  enum format_status status = FORMAT_OK;
  struct dirent *entry;
  while ((entry = readdir(dir))) {
    if (entry->d_name[0] == '.')
      continue;
    if (merge_files_add(&names, entry->d_name) != 0) {
      status = format_error_set(err, FORMAT_NO_MEMORY, "out of memory");
      break;
    }
  }
  closedir(dir);
  if (names.count)
    qsort(names.paths, names.count, sizeof *names.paths, merge_name_compare);
  size_t directory_length = strlen(directory);
  for (size_t i = 0; i < names.count && status == FORMAT_OK; i++) {
    size_t length = directory_length + strlen(names.paths[i]) + 2;
    char *path = malloc(length);
    if (!path) {
      status = format_error_set(err, FORMAT_NO_MEMORY, "out of memory");
      break;
    }
    snprintf(path, length, "%s%s%s", directory,
             directory_length && directory[directory_length - 1] == '/' ? "" : "/", names.paths[i]);
    struct stat st;
    size_t name_length = strlen(names.paths[i]);
    /* A link to a directory is not followed: no loops; one to a file is read. */
    if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode))
      status = merge_list_directory(files, path, err);
    else if (name_length > 5 && !strcmp(names.paths[i] + name_length - 5, ".json") &&
             merge_files_add(files, path) != 0)
      status = format_error_set(err, FORMAT_NO_MEMORY, "out of memory");
    free(path);
  }
  for (size_t i = 0; i < names.count; i++)
    free(names.paths[i]);
  free(names.paths);
  return status;
}

/* One input file as the file system knows it, for finding a file given twice. */
struct merge_file_id {
  dev_t dev;
  ino_t ino;
  size_t index;
};

static int merge_file_id_compare(const void *a, const void *b)
{
  const struct merge_file_id *x = a, *y = b;
  if (x->dev != y->dev)
    return x->dev < y->dev ? -1 : 1;
  if (x->ino != y->ino)
    return x->ino < y->ino ? -1 : 1;
  return (x->index > y->index) - (x->index < y->index);
}

/* A file given twice (named twice, or by name and in a directory given, or through a link) is
 * an error naming both: a result without a start time (written by hand, of an index without
 * one) has no identity for merge_finish to tell, and was counted twice. A file that does not
 * stat is left to its load, which names it. */
static enum format_status merge_files_once(const struct merge_files *files, struct format_error *err)
{
  if (files->count < 2)
    return FORMAT_OK;
  struct merge_file_id *ids = malloc(files->count * sizeof *ids);
  if (!ids)
    return format_error_set(err, FORMAT_NO_MEMORY, "out of memory");
  size_t n = 0;
  for (size_t i = 0; i < files->count; i++) {
    struct stat st;
    if (stat(files->paths[i], &st) == 0)
      ids[n++] = (struct merge_file_id){st.st_dev, st.st_ino, i};
  }
  qsort(ids, n, sizeof *ids, merge_file_id_compare);
  enum format_status status = FORMAT_OK;
  for (size_t i = 1; i < n && status == FORMAT_OK; i++)
    if (ids[i].dev == ids[i - 1].dev && ids[i].ino == ids[i - 1].ino)
      status = format_error_set(err, FORMAT_BAD_INPUT, "%s and %s are the same file: merge each result once",
                                files->paths[ids[i - 1].index], files->paths[ids[i].index]);
  free(ids);
  return status;
}

/* A loader thread: every jobs-th input of a batch, from its first. */
struct merge_worker {
  struct merge_loaded *batch;
  size_t count, first, step;
};

static void *merge_worker_run(void *context)
{
  struct merge_worker *w = context;
  for (size_t i = w->first; i < w->count; i += w->step)
    merge_load_file(&w->batch[i]);
  return NULL;
}

/* Loads batch[0..count) on up to jobs threads (the caller's among them). */
static void merge_load_batch(struct merge_loaded *batch, size_t count, size_t jobs)
{
  pthread_t threads[MERGE_MAX_JOBS];
  struct merge_worker workers[MERGE_MAX_JOBS];
  size_t started = 0;
  for (size_t t = 1; t < jobs && t < count; t++) {
    workers[t] = (struct merge_worker){batch, count, t, jobs};
    if (pthread_create(&threads[started], NULL, merge_worker_run, &workers[t]) != 0)
      break;   /* fewer threads: this one does the rest below */
    started++;
  }
  /* This thread takes its own share, and the share of any thread that did not start. */
  for (size_t t = 0; t < jobs && t < count; t++)
    if (t == 0 || t > started) {
      workers[t] = (struct merge_worker){batch, count, t, jobs};
      merge_worker_run(&workers[t]);
    }
  for (size_t t = 0; t < started; t++)
    pthread_join(threads[t], NULL);
}

enum format_status merge_add_paths(struct merge *merge, const char *const *paths, size_t count,
                                   size_t jobs, struct format_error *err)
{
  struct merge_files files = {NULL, 0, 0};
  enum format_status status = FORMAT_OK;
  for (size_t i = 0; i < count && status == FORMAT_OK; i++) {
    struct stat st;
    if (stat(paths[i], &st) != 0) {
      status = format_error_set(err, FORMAT_BAD_INPUT, "%s: cannot open: %s", paths[i], strerror(errno));
    } else if (!S_ISDIR(st.st_mode)) {
      if (merge_files_add(&files, paths[i]) != 0)
        status = format_error_set(err, FORMAT_NO_MEMORY, "out of memory");
    } else {
      size_t before = files.count;
      status = merge_list_directory(&files, paths[i], err);
      if (status == FORMAT_OK && files.count == before)
        status = format_error_set(err, FORMAT_BAD_INPUT, "%s: no results (*.json) in this directory",
                                  paths[i]);
    }
  }
  if (status == FORMAT_OK)
    status = merge_files_once(&files, err);
  if (jobs < 1)
    jobs = 1;
  if (jobs > MERGE_MAX_JOBS)
    jobs = MERGE_MAX_JOBS;
  /* A batch of one input per job: a merge's tree can be large, so no more
   * than jobs of them are held at once. */
  struct merge_loaded batch[MERGE_MAX_JOBS];
  for (size_t at = 0; at < files.count && status == FORMAT_OK; at += jobs) {
    size_t n = files.count - at < jobs ? files.count - at : jobs;
    memset(batch, 0, n * sizeof *batch);
    for (size_t i = 0; i < n; i++)
      batch[i].name = files.paths[at + i];
    merge_load_batch(batch, n, jobs);
    for (size_t i = 0; i < n; i++) {
      if (status == FORMAT_OK)
        status = merge_apply(merge, &batch[i], err);
      else {   /* after an error: only freed */
        json_read_free(&batch[i].root);
        diff_result_free(&batch[i].result);
      }
    }
  }
  for (size_t i = 0; i < files.count; i++)
    free(files.paths[i]);
  free(files.paths);
  return status;
}

enum format_status merge_add_path(struct merge *merge, const char *path, struct format_error *err)
{
  return merge_add_paths(merge, &path, 1, 1, err);
}
