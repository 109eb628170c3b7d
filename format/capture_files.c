/* format/capture_files.c: a capture directory read once, from one handle on it. */
#include "format/capture_files.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "container/array.h"
#include "format/capture_layout.h"

/* DIR/NAME, malloc'd; NULL when out of memory. */
static char *files_join(const char *directory, const char *name)
{
  size_t size = strlen(directory) + strlen(name) + 2;
  char *path = malloc(size);
  if (path)
    capture_layout_join(directory, name, path, size);
  return path;
}

static int files_compare_names(const void *a, const void *b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The directory's names (dir_fd's listing), sorted. -1 when it cannot be listed (errno), -2
 * when out of memory. */
static int files_list(int dir_fd, char ***names, size_t *count)
{
  *names = NULL;
  *count = 0;
  int fd = dup(dir_fd);
  DIR *dir = fd < 0 ? NULL : fdopendir(fd);
  if (!dir) {
    if (fd >= 0)
      close(fd);
    return -1;
  }
  size_t capacity = 0;
  int status = 0;
  struct dirent *entry;
  while (status == 0 && (entry = readdir(dir))) {
    if (entry->d_name[0] == '.')
      continue;  /* ".", "..", and no name a capture has */
    if (array_reserve((void **)names, &capacity, *count + 1, sizeof **names) != 0) {
      status = -2;
      break;
    }
    if (!((*names)[*count] = strdup(entry->d_name)))
      status = -2;
    else
      (*count)++;
  }
  closedir(dir);
  if (*count)
    qsort(*names, *count, sizeof **names, files_compare_names);
  return status;
}

static int files_has(char *const *names, size_t count, const char *name)
{
  return bsearch(&name, names, count, sizeof *names, files_compare_names) != NULL;
}

/* Appends DIR/name to a list of paths. -1 when out of memory. */
static int files_add(char ***paths, size_t *count, const char *directory, const char *name)
{
  if (array_resize((void **)paths, *count + 1, sizeof **paths) != 0)
    return -1;
  if (!((*paths)[*count] = files_join(directory, name)))
    return -1;
  (*count)++;
  return 0;
}

/* The index's snapshots whose files are names in the directory, with their sidecars and
 * boundary lines. -1 when out of memory. */
static int files_snapshots(struct capture_files *files, char *const *names, size_t count)
{
  const struct capture_index *index = &files->index;
  if (!index->snapshot_count)
    return 0;
  if (!(files->snapshots = calloc(index->snapshot_count, sizeof *files->snapshots)))
    return -1;
  for (size_t i = 0; i < index->snapshot_count; i++) {
    const struct capture_index_snapshot *line = &index->snapshots[i];
    if (!line->file || strchr(line->file, '/'))
      continue;  /* a snapshot is a file in the directory, nowhere else */
    struct capture_files_snapshot *s = &files->snapshots[files->snapshot_count];
    s->line = line;
    s->boundary = CAPTURE_FILES_NONE;
    for (size_t k = 0; k < index->boundary_count && s->boundary == CAPTURE_FILES_NONE; k++)
      if (index->boundaries[k].seq == line->boundary)
        s->boundary = k;
    char values[CAPTURE_LAYOUT_NAME_MAX + 256];
    if (!(s->path = files_join(files->directory, line->file)))
      return -1;
    files->snapshot_count++;
    if (capture_layout_values_name(line->file, values, sizeof values) && files_has(names, count, values) &&
        !(s->values_path = files_join(files->directory, values)))
      return -1;
  }
  return 0;
}

/* The segments: the index's, in its order, else the directory's by name; and the .part ones. */
static int files_segments(struct capture_files *files, char *const *names, size_t count)
{
  if (files->has_index && files->index.segment_count &&
      !(files->segment_lines = malloc(files->index.segment_count * sizeof *files->segment_lines)))
    return -1;
  for (size_t i = 0; files->has_index && i < files->index.segment_count; i++) {
    const struct capture_index_segment *line = &files->index.segments[i];
    if (strchr(line->file, '/'))
      continue;  /* a segment is a file in the directory, nowhere else */
    files->segment_lines[files->segment_count] = line;
    if (files_add(&files->segments, &files->segment_count, files->directory, line->file) < 0)
      return -1;
  }
  /* The segment after the last listed one, finished but not listed: the process was stopped
   * (or its index's disk was full) between naming it finished and listing it, so that no stop
   * line was written either. It is read as the segment being written was, before any .part. */
  uint64_t next = 1;
  int unlisted = files->has_index && !files->index.has_stop;
  for (size_t i = 0; unlisted && i < files->index.segment_count; i++)
    if (files->index.segments[i].seq >= next)
      next = files->index.segments[i].seq + 1;
  for (int gzip = 0; unlisted && gzip < 2; gzip++) {
    char name[CAPTURE_LAYOUT_NAME_MAX];
    if (capture_layout_segment_name(next, gzip, name, sizeof name) && files_has(names, count, name) &&
        files_add(&files->parts, &files->part_count, files->directory, name) < 0)
      return -1;
  }
  for (size_t i = 0; i < count; i++) {
    enum capture_layout_kind kind = capture_layout_classify(names[i]);
    if (kind == CAPTURE_LAYOUT_SEGMENT && !files->has_index &&
        files_add(&files->segments, &files->segment_count, files->directory, names[i]) < 0)
      return -1;
    if (kind == CAPTURE_LAYOUT_SEGMENT_PART &&
        files_add(&files->parts, &files->part_count, files->directory, names[i]) < 0)
      return -1;
  }
  return 0;
}

enum format_status capture_files_open(struct capture_files *files, const char *directory,
                                      struct format_error *error)
{
  memset(files, 0, sizeof *files);
  format_error_clear(error);
  if (!(files->directory = strdup(directory)) || !(files->index_path = files_join(directory, CAPTURE_LAYOUT_INDEX)))
    return format_error_set(error, FORMAT_NO_MEMORY, "%s: out of memory", directory);
  int dir_fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd < 0)
    return format_error_set(error, FORMAT_IO, "%s: cannot open the directory: %s", directory, strerror(errno));
  struct format_error *index_error = &files->index_error;
  enum format_status read = capture_index_read_at(&files->index, dir_fd, CAPTURE_LAYOUT_INDEX,
                                                  files->index_path, index_error);
  char **names = NULL;
  size_t count = 0;
  int listed = read == FORMAT_OK || read == FORMAT_IO ? files_list(dir_fd, &names, &count) : 0;
  int list_errno = errno;
  close(dir_fd);
  enum format_status status = FORMAT_OK;
  if (read == FORMAT_BAD_INPUT)
    status = format_error_set(error, FORMAT_BAD_INPUT, "%s", index_error->message);
  else if (read == FORMAT_IO && index_error->system_error != ENOENT)  /* there, but refused or unreadable */
    status = format_error_set(error, FORMAT_IO, "%s", index_error->message);
  else if (read == FORMAT_NO_MEMORY || listed == -2)
    status = format_error_set(error, FORMAT_NO_MEMORY, "%s: out of memory", directory);
  else if (listed < 0)
    status = format_error_set(error, FORMAT_IO, "%s: cannot list the directory: %s", directory,
                              strerror(list_errno));
  files->has_index = read == FORMAT_OK;
  if (files->has_index)
    format_error_clear(index_error);
  else
    capture_index_free(&files->index);
  if (status == FORMAT_OK &&
      (files_segments(files, names, count) < 0 || (files->has_index && files_snapshots(files, names, count) < 0)))
    status = format_error_set(error, FORMAT_NO_MEMORY, "%s: out of memory", directory);
  for (size_t i = 0; i < count; i++)
    free(names[i]);
  free(names);
  return status;
}

void capture_files_free(struct capture_files *files)
{
  for (size_t i = 0; i < files->segment_count; i++)
    free(files->segments[i]);
  for (size_t i = 0; i < files->part_count; i++)
    free(files->parts[i]);
  for (size_t i = 0; i < files->snapshot_count; i++)
    free(files->snapshots[i].path), free(files->snapshots[i].values_path);
  free(files->segments), free(files->segment_lines), free(files->parts), free(files->snapshots);
  free(files->directory), free(files->index_path);
  if (files->has_index)
    capture_index_free(&files->index);
  memset(files, 0, sizeof *files);
}
