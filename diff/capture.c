/* diff/capture.c: lists a capture's segments: from its index (format/capture_index.h), or its segment files. */
#include "diff/capture.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "format/capture_index.h"

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

/* Lists the segments the index describes, in its order, and takes the
 * capture's metadata from it. 0, or -1 when out of memory. */
static int capture_list_index(struct capture *capture, size_t *capacity, const char *directory,
                              const struct capture_index *index)
{
  struct diff_capture *info = &capture->info;
  const struct capture_index_capture *line = &index->capture;
  info->pid = line->pid;
  info->start_time = line->start;
  info->sample_bytes = line->sample;
  if ((line->host && !(info->host = capture_strdup(line->host))) ||
      (line->command && !(info->command = capture_strdup(line->command))) ||
      (line->luajit && !(info->luajit_version = capture_strdup(line->luajit))))
    return -1;
  for (size_t i = 0; i < index->segment_count; i++) {
    const struct capture_index_segment *listed = &index->segments[i];
    if (strchr(listed->file, '/'))
      continue;  /* a segment is a file in the directory, nowhere else */
    if (capture_add(capture, capacity, capture_join(directory, listed->file)) < 0)
      return -1;
    struct capture_segment *segment = &capture->segments[capture->count - 1];
    segment->listed = 1;
    segment->end_time = listed->end;
    segment->gc_cycles = listed->gc_cycles;
    segment->heap_bytes = listed->heap_bytes;
    segment->young_from = listed->young_from;
    /* A segment cut short (stop, exit, write error) did not end on a GC
     * cycle: nothing born in it has survived one yet. */
    if ((listed->keys & CAPTURE_INDEX_SEGMENT_HAS_COMPLETE) && !listed->complete) {
      segment->young_from = 0;
      segment->cut_short = 1;
    }
    if ((listed->keys & CAPTURE_INDEX_SEGMENT_HAS_SAMPLE) && !info->sample_bytes)
      info->sample_bytes = listed->sample;
  }
  return 0;
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
  struct capture_index index;
  struct capture_index_error index_error;
  enum capture_index_status index_status = capture_index_read_file(&index, index_path, &index_error);
  free(index_path);
  char **names;
  size_t count;
  if (index_status == CAPTURE_INDEX_OK) {
    int status = capture_list_index(capture, capacity, directory, &index);
    capture_index_free(&index);
    if (status < 0)
      goto out_of_memory;
  } else if (index_status == CAPTURE_INDEX_MALFORMED) {
    capture_fail(err, DIFF_ERROR_INPUT, "%s%s", index_error.message, "");
    return err->status;
  } else if (index_status == CAPTURE_INDEX_NO_MEMORY) {
    goto out_of_memory;
  } else {  /* no index to read: the segment files, in name order */
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
