/* diff/capture.c: reads a capture's index (docs/index-format.md) or lists its segment files. */
#include "diff/capture.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void capture_fail(struct diff_error *err, enum diff_status status, const char *format,
                         const char *a, const char *b)
{
  err->status = status;
  snprintf(err->message, sizeof err->message, format, a, b);
}

static char *capture_strdup(const char *text)
{
  size_t length = strlen(text);
  char *copy = malloc(length + 1);
  if (copy)
    memcpy(copy, text, length + 1);
  return copy;
}

static char *capture_join(const char *directory, const char *name)
{
  size_t a = strlen(directory), b = strlen(name);
  char *path = malloc(a + b + 2);
  if (!path)
    return NULL;
  memcpy(path, directory, a);
  size_t at = a;
  if (a && directory[a - 1] != '/')
    path[at++] = '/';
  memcpy(path + at, name, b + 1);
  return path;
}

static int capture_add(struct capture *capture, size_t *capacity, char *path)
{
  if (!path)
    return -1;
  if (capture->count == *capacity) {
    size_t grown = *capacity ? *capacity * 2 : 16;
    struct capture_segment *bigger = realloc(capture->segments, grown * sizeof *bigger);
    if (!bigger) {
      free(path);
      return -1;
    }
    capture->segments = bigger;
    *capacity = grown;
  }
  struct capture_segment *segment = &capture->segments[capture->count++];
  memset(segment, 0, sizeof *segment);
  segment->path = path;
  segment->young_from = UINT64_MAX;  /* no young_from key: every live block counts */
  return 0;
}

/* Undoes the index escapes (\\, \t, \n) in place. */
static void capture_unescape(char *value)
{
  char *out = value;
  for (char *in = value; *in; in++) {
    if (*in == '\\' && in[1]) {
      in++;
      *out++ = *in == 't' ? '\t' : *in == 'n' ? '\n' : *in;
    } else {
      *out++ = *in;
    }
  }
  *out = '\0';
}

/* The value of key in a line's fields (tab-separated key=value), or NULL. */
static char *capture_field(char **fields, size_t count, const char *key)
{
  size_t length = strlen(key);
  for (size_t i = 0; i < count; i++)
    if (!strncmp(fields[i], key, length) && fields[i][length] == '=')
      return fields[i] + length + 1;
  return NULL;
}

static int capture_parse_index(struct capture *capture, size_t *capacity, const char *directory,
                               FILE *index)
{
  char *line = NULL;
  size_t line_capacity = 0;
  ssize_t length;
  int status = 0;
  while (status == 0 && (length = getline(&line, &line_capacity, index)) >= 0) {
    if (length && line[length - 1] == '\n')
      line[--length] = '\0';
    char *fields[64];
    size_t count = 0;
    for (char *field = strtok(line, "\t"); field && count < 64; field = strtok(NULL, "\t"))
      fields[count++] = field;
    if (!count)
      continue;
    for (size_t i = 1; i < count; i++)
      capture_unescape(fields[i]);
    char *value;
    if (!strcmp(fields[0], "capture")) {
      struct diff_capture *info = &capture->info;
      if ((value = capture_field(fields + 1, count - 1, "pid")))
        info->pid = strtol(value, NULL, 10);
      if ((value = capture_field(fields + 1, count - 1, "host")) && !info->host)
        info->host = capture_strdup(value);
      if ((value = capture_field(fields + 1, count - 1, "command")) && !info->command)
        info->command = capture_strdup(value);
      if ((value = capture_field(fields + 1, count - 1, "luajit")) && !info->luajit_version)
        info->luajit_version = capture_strdup(value);
      if ((value = capture_field(fields + 1, count - 1, "start")))
        info->start_time = strtod(value, NULL);
      if ((value = capture_field(fields + 1, count - 1, "sample")))
        info->sample_bytes = strtoull(value, NULL, 10);
    } else if (!strcmp(fields[0], "segment")) {
      char *file = capture_field(fields + 1, count - 1, "file");
      if (!file || strchr(file, '/'))
        continue;
      if (capture_add(capture, capacity, capture_join(directory, file)) < 0) {
        status = -1;
        break;
      }
      struct capture_segment *segment = &capture->segments[capture->count - 1];
      segment->listed = 1;
      if ((value = capture_field(fields + 1, count - 1, "end")))
        segment->end_time = strtod(value, NULL);
      if ((value = capture_field(fields + 1, count - 1, "gc_cycles")))
        segment->gc_cycles = strtoull(value, NULL, 10);
      if ((value = capture_field(fields + 1, count - 1, "heap_bytes")))
        segment->heap_bytes = strtoull(value, NULL, 10);
      if ((value = capture_field(fields + 1, count - 1, "young_from")))
        segment->young_from = strtoull(value, NULL, 10);
      /* A segment cut short (stop, exit, write error) did not end on a GC
       * cycle: nothing born in it has survived one yet. */
      if ((value = capture_field(fields + 1, count - 1, "complete")) && !strcmp(value, "0")) {
        segment->young_from = 0;
        segment->cut_short = 1;
      }
      if ((value = capture_field(fields + 1, count - 1, "sample")) && !capture->info.sample_bytes)
        capture->info.sample_bytes = strtoull(value, NULL, 10);
    }
  }
  free(line);
  return status;
}

static int capture_has_suffix(const char *name, const char *suffix)
{
  size_t a = strlen(name), b = strlen(suffix);
  return a > b && !strcmp(name + a - b, suffix);
}

static int capture_compare_names(const void *a, const void *b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Names in directory, sorted: segment files when want_segments, else .part files. */
static int capture_list_directory(const char *directory, int want_segments, char ***names,
                                  size_t *count)
{
  *names = NULL;
  *count = 0;
  DIR *dir = opendir(directory);
  if (!dir)
    return -1;
  size_t capacity = 0;
  struct dirent *entry;
  int status = 0;
  while ((entry = readdir(dir))) {
    const char *name = entry->d_name;
    int segment = capture_has_suffix(name, ".bin") || capture_has_suffix(name, ".memprof") ||
                  capture_has_suffix(name, ".gz");
    int part = capture_has_suffix(name, ".part");
    if (want_segments ? !segment : !part)
      continue;
    if (*count == capacity) {
      capacity = capacity ? capacity * 2 : 32;
      char **bigger = realloc(*names, capacity * sizeof *bigger);
      if (!bigger) {
        status = -1;
        break;
      }
      *names = bigger;
    }
    if (!((*names)[*count] = capture_strdup(name))) {
      status = -1;
      break;
    }
    (*count)++;
  }
  closedir(dir);
  if (*count)
    qsort(*names, *count, sizeof **names, capture_compare_names);
  return status;
}

static void capture_free_names(char **names, size_t count)
{
  for (size_t i = 0; i < count; i++)
    free(names[i]);
  free(names);
}

static enum diff_status capture_open_directory(struct capture *capture, size_t *capacity,
                                               const char *directory, struct diff_error *err)
{
  char *index_path = capture_join(directory, "index");
  if (!index_path)
    goto out_of_memory;
  FILE *index = fopen(index_path, "r");
  free(index_path);
  char **names;
  size_t count;
  if (index) {
    int status = capture_parse_index(capture, capacity, directory, index);
    fclose(index);
    if (status < 0)
      goto out_of_memory;
  } else {
    if (capture_list_directory(directory, 1, &names, &count) < 0) {
      capture_free_names(names, count);
      capture_fail(err, DIFF_ERROR_INPUT, "%s: cannot list the directory: %s", directory,
                   strerror(errno));
      return err->status;
    }
    for (size_t i = 0; i < count; i++)
      if (capture_add(capture, capacity, capture_join(directory, names[i])) < 0) {
        capture_free_names(names, count);
        goto out_of_memory;
      }
    capture_free_names(names, count);
  }
  /* A .part is the segment the process was writing when it stopped: the last one. */
  if (capture_list_directory(directory, 0, &names, &count) < 0) {
    capture_free_names(names, count);
    goto out_of_memory;
  }
  for (size_t i = 0; i < count; i++) {
    if (capture_add(capture, capacity, capture_join(directory, names[i])) < 0) {
      capture_free_names(names, count);
      goto out_of_memory;
    }
    capture->segments[capture->count - 1].partial = 1;
    capture->segments[capture->count - 1].young_from = 0;  /* it ended on no GC cycle */
    capture->segments[capture->count - 1].cut_short = 1;
  }
  capture_free_names(names, count);
  return DIFF_OK;
out_of_memory:
  capture_fail(err, DIFF_ERROR_MEMORY, "%s: out of memory%s", directory, "");
  return err->status;
}

enum diff_status capture_open(struct capture *capture, const char *const *paths, size_t count,
                              struct diff_error *err)
{
  memset(capture, 0, sizeof *capture);
  err->status = DIFF_OK;
  err->message[0] = '\0';
  size_t capacity = 0;
  if (!count) {
    capture_fail(err, DIFF_ERROR_USAGE, "no capture given%s%s", "", "");
    return err->status;
  }
  capture->info.path = capture_strdup(paths[0]);
  if (!capture->info.path) {
    capture_fail(err, DIFF_ERROR_MEMORY, "out of memory%s%s", "", "");
    return err->status;
  }
  struct stat st;
  if (count == 1 && stat(paths[0], &st) == 0 && S_ISDIR(st.st_mode)) {
    if (capture_open_directory(capture, &capacity, paths[0], err) != DIFF_OK) {
      capture_release(capture);
      return err->status;
    }
  } else {
    for (size_t i = 0; i < count; i++)
      if (capture_add(capture, &capacity, capture_strdup(paths[i])) < 0) {
        capture_release(capture);
        capture_fail(err, DIFF_ERROR_MEMORY, "out of memory%s%s", "", "");
        return err->status;
      }
  }
  if (!capture->count) {
    capture_fail(err, DIFF_ERROR_INPUT, "%s: no segments (no index, no *.bin, *.memprof or *.gz files)%s",
                 paths[0], "");
    capture_release(capture);
    return err->status;
  }
  for (size_t i = 0; i < capture->count; i++) {
    struct capture_segment *segment = &capture->segments[i];
    if (stat(segment->path, &st) != 0) {
      capture_fail(err, DIFF_ERROR_INPUT, "%s: %s", segment->path, strerror(errno));
      capture_release(capture);
      return err->status;
    }
    segment->file_bytes = (uint64_t)st.st_size;
    capture->total_bytes += segment->file_bytes;
  }
  return DIFF_OK;
}

void capture_release(struct capture *capture)
{
  for (size_t i = 0; i < capture->count; i++)
    free(capture->segments[i].path);
  free(capture->segments);
  diff_capture_free(&capture->info);
  memset(capture, 0, sizeof *capture);
}
