/* format/capture_layout.c: the names of a capture directory's files (see capture_layout.h). */
#include "format/capture_layout.h"

#include <stdio.h>
#include <string.h>

static size_t layout_fit(int length, size_t size)
{
  return length < 0 || (size_t)length >= size ? 0 : (size_t)length;
}

static int layout_has_suffix(const char *name, size_t length, const char *suffix)
{
  size_t n = strlen(suffix);
  return length > n && !memcmp(name + length - n, suffix, n);
}

size_t capture_layout_segment_name(uint64_t seq, int gzip, char *out, size_t size)
{
  return layout_fit(snprintf(out, size, "seg-%04llu.memprof%s", (unsigned long long)seq,
                             gzip ? ".gz" : ""), size);
}

size_t capture_layout_part_name(const char *name, char *out, size_t size)
{
  return layout_fit(snprintf(out, size, "%s" CAPTURE_LAYOUT_PART, name), size);
}

size_t capture_layout_sidecar_name(const char *segment, char *out, size_t size)
{
  size_t stem = strlen(segment);
  int part = layout_has_suffix(segment, stem, CAPTURE_LAYOUT_PART);
  if (part)
    stem -= strlen(CAPTURE_LAYOUT_PART);
  int gz = stem >= 3 && !memcmp(segment + stem - 3, ".gz", 3);
  if (gz)
    stem -= 3;
  if (stem < 8 || memcmp(segment + stem - 8, ".memprof", 8))
    return 0;
  stem -= 8;
  return layout_fit(snprintf(out, size, "%.*s.stacks%s%s", (int)stem, segment, gz ? ".gz" : "",
                             part ? CAPTURE_LAYOUT_PART : ""), size);
}

size_t capture_layout_snapshot_name(uint64_t seq, char *out, size_t size)
{
  return layout_fit(snprintf(out, size, "snap-%04llu.heap", (unsigned long long)seq), size);
}

size_t capture_layout_values_name(const char *snapshot, char *out, size_t size)
{
  size_t stem = strlen(snapshot);
  int part = layout_has_suffix(snapshot, stem, CAPTURE_LAYOUT_PART);
  if (part)
    stem -= strlen(CAPTURE_LAYOUT_PART);
  if (!layout_has_suffix(snapshot, stem, ".heap"))
    return 0;
  stem -= 5;
  return layout_fit(snprintf(out, size, "%.*s.values%s", (int)stem, snapshot, part ? CAPTURE_LAYOUT_PART : ""),
                    size);
}

enum capture_layout_kind capture_layout_classify(const char *name)
{
  size_t length = strlen(name);
  int part = layout_has_suffix(name, length, CAPTURE_LAYOUT_PART);
  size_t stem = part ? length - strlen(CAPTURE_LAYOUT_PART) : length;
  if (stem > 3 && !memcmp(name + stem - 3, ".gz", 3))
    stem -= 3;
  if (stem > 7 && !memcmp(name + stem - 7, ".stacks", 7))
    return CAPTURE_LAYOUT_SIDECAR;
  if (stem > 5 && !memcmp(name + stem - 5, ".heap", 5))
    return CAPTURE_LAYOUT_SNAPSHOT;
  if (stem > 7 && !memcmp(name + stem - 7, ".values", 7))
    return CAPTURE_LAYOUT_VALUES;
  if (part)
    return CAPTURE_LAYOUT_SEGMENT_PART;
  if (layout_has_suffix(name, length, ".memprof") || layout_has_suffix(name, length, ".bin") ||
      layout_has_suffix(name, length, ".gz"))
    return CAPTURE_LAYOUT_SEGMENT;
  return CAPTURE_LAYOUT_OTHER;
}

size_t capture_layout_join(const char *dir, const char *name, char *out, size_t size)
{
  size_t length = strlen(dir);
  return layout_fit(snprintf(out, size, "%s%s%s", dir, length && dir[length - 1] == '/' ? "" : "/",
                             name), size);
}

size_t capture_layout_directory_of(const char *path, char *out, size_t size)
{
  const char *slash = strrchr(path, '/');
  size_t length = !slash ? 1 : slash == path ? 1 : (size_t)(slash - path);
  if (length + 1 > size)
    return 0;
  memcpy(out, !slash ? "." : slash == path ? "/" : path, length);
  out[length] = '\0';
  return length;
}
