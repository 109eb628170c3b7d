/* report/source.c: Lua sources read beneath a root for the HTML page's excerpts (report_source_read): relative names only, opened through the root's handle without following a link out of it. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#if defined(SYS_openat2) && defined(__has_include)
#if __has_include(<linux/openat2.h>)
#include <linux/openat2.h>
#define REPORT_HAVE_OPENAT2 1
#endif
#endif

#include "report/common.h"

/* A name the page may read: relative, with no ".." component, naming a
 * file (not ending in '/'). */
static int source_name_ok(const char *name)
{
  if (!name || !*name || name[0] == '/' || name[strlen(name) - 1] == '/')
    return 0;
  for (const char *p = name; *p;) {
    size_t n = strcspn(p, "/");
    if (n == 2 && p[0] == '.' && p[1] == '.')
      return 0;
    p += n;
    p += *p == '/';
  }
  return 1;
}

static enum report_source_status source_failed(int error, struct report_source *source)
{
  switch (error) {
  case ENOENT:
  case ENOTDIR:
    return REPORT_SOURCE_MISSING;
  case ELOOP:   /* O_NOFOLLOW or RESOLVE_NO_SYMLINKS met a link */
    return REPORT_SOURCE_LINK;
  case EXDEV:   /* RESOLVE_BENEATH: the name would leave the root */
    return REPORT_SOURCE_BAD_NAME;
  default:
    source->error = error;
    return REPORT_SOURCE_UNREADABLE;
  }
}

/* The directory path (relative, no "..") beneath root, one component at a
 * time with O_NOFOLLOW; each must be a real directory. path is cut up. */
static enum report_source_status source_walk(int root, char *path, int *dir,
                                             struct report_source *source)
{
  int at = root;  /* the directory reached so far */
  enum report_source_status status = REPORT_SOURCE_OK;
  for (char *name = path; *name && status == REPORT_SOURCE_OK;) {
    size_t n = strcspn(name, "/");
    char *next = name[n] ? name + n + 1 : name + n;
    name[n] = '\0';
    if (n) {
      /* O_PATH: a link is opened as itself, so fstat tells it apart. */
      int fd = openat(at, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
      struct stat st;
      if (fd < 0 || fstat(fd, &st) < 0)
        status = source_failed(errno, source);
      else if (S_ISLNK(st.st_mode))
        status = REPORT_SOURCE_LINK;
      else if (!S_ISDIR(st.st_mode))
        status = REPORT_SOURCE_MISSING;
      if (at != root)
        close(at);
      at = fd;
      if (status != REPORT_SOURCE_OK && fd >= 0)
        close(fd);
    }
    name = next;
  }
  if (status == REPORT_SOURCE_OK)
    *dir = at;
  return status;
}

/* The directory path beneath root, as a new descriptor in *dir. */
static enum report_source_status source_directory(int root, char *path,
                                                  enum report_source_resolve resolve, int *dir,
                                                  struct report_source *source)
{
#ifdef REPORT_HAVE_OPENAT2
  if (resolve == REPORT_SOURCE_OPENAT2) {
    struct open_how how = {
        .flags = O_PATH | O_DIRECTORY | O_CLOEXEC,  /* a trailing link: ELOOP */
        .resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS};
    long fd = syscall(SYS_openat2, root, path, &how, sizeof how);
    if (fd >= 0) {
      *dir = (int)fd;
      return REPORT_SOURCE_OK;
    }
    /* ENOSYS: a kernel before 5.6; EPERM: a seccomp filter that does not
     * know the call. The walk is as strict, only slower. */
    if (errno != ENOSYS && errno != EPERM)
      return source_failed(errno, source);
  }
#else
  (void)resolve;
#endif
  return source_walk(root, path, dir, source);
}

/* The whole of a regular file fd of st.st_size bytes, up to the cap (it may
 * grow while read). */
static enum report_source_status source_slurp(int fd, off_t size, struct report_source *source)
{
  size_t capacity = (size_t)size + 1, length = 0;  /* one more: growth is seen */
  char *text = malloc(capacity + 1);
  if (!text)
    return REPORT_SOURCE_MEMORY;
  for (;;) {
    ssize_t n = read(fd, text + length, capacity - length);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      free(text);
      return source_failed(errno, source);
    }
    if (n == 0)
      break;
    length += (size_t)n;
    if (length < capacity)
      continue;
    if (capacity > REPORT_SOURCE_MAX_BYTES) {
      free(text);
      return REPORT_SOURCE_TOO_LARGE;
    }
    capacity = capacity > REPORT_SOURCE_MAX_BYTES / 2 ? REPORT_SOURCE_MAX_BYTES + 1 : capacity * 2;
    char *grown = realloc(text, capacity + 1);
    if (!grown) {
      free(text);
      return REPORT_SOURCE_MEMORY;
    }
    text = grown;
  }
  text[length] = '\0';
  source->text = text;
  source->length = length;
  return REPORT_SOURCE_OK;
}

/* A regular file, checked before it is opened (a device is never opened,
 * whatever opening it would do) and again after (it may have been swapped). */
static enum report_source_status source_file(int dir, const char *name,
                                             struct report_source *source)
{
  struct stat st;
  if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
    return source_failed(errno, source);
  if (S_ISLNK(st.st_mode))
    return REPORT_SOURCE_LINK;
  if (!S_ISREG(st.st_mode))
    return REPORT_SOURCE_NOT_REGULAR;
  if ((uintmax_t)st.st_size > REPORT_SOURCE_MAX_BYTES)
    return REPORT_SOURCE_TOO_LARGE;
  /* O_NONBLOCK: a FIFO swapped in since cannot block the open. */
  int fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0)
    return source_failed(errno, source);
  enum report_source_status status;
  if (fstat(fd, &st) < 0)
    status = source_failed(errno, source);
  else if (!S_ISREG(st.st_mode))
    status = REPORT_SOURCE_NOT_REGULAR;
  else if ((uintmax_t)st.st_size > REPORT_SOURCE_MAX_BYTES)
    status = REPORT_SOURCE_TOO_LARGE;
  else
    status = source_slurp(fd, st.st_size, source);
  close(fd);
  return status;
}

enum report_source_status report_source_read(int root, const char *name,
                                             enum report_source_resolve resolve,
                                             struct report_source *source)
{
  source->text = NULL;
  source->length = 0;
  source->error = 0;
  if (!source_name_ok(name))
    return REPORT_SOURCE_BAD_NAME;
  const char *slash = strrchr(name, '/');
  if (!slash)
    return source_file(root, name, source);
  char *path = strndup(name, (size_t)(slash - name));
  if (!path)
    return REPORT_SOURCE_MEMORY;
  int dir = -1;
  enum report_source_status status = source_directory(root, path, resolve, &dir, source);
  free(path);
  if (status != REPORT_SOURCE_OK)
    return status;
  status = source_file(dir, slash + 1, source);
  if (dir != root)
    close(dir);
  return status;
}

void report_source_why(enum report_source_status status, const struct report_source *source,
                       char *buffer, size_t size)
{
  char cap[32];
  switch (status) {
  case REPORT_SOURCE_OK: snprintf(buffer, size, "read"); break;
  case REPORT_SOURCE_BAD_NAME:
    snprintf(buffer, size, "not a name beneath the source root (absolute, or with ..)");
    break;
  case REPORT_SOURCE_MISSING: snprintf(buffer, size, "no such file beneath the source root"); break;
  case REPORT_SOURCE_LINK: snprintf(buffer, size, "a symbolic link on the way"); break;
  case REPORT_SOURCE_NOT_REGULAR: snprintf(buffer, size, "not a regular file"); break;
  case REPORT_SOURCE_TOO_LARGE:
    report_format_bytes(cap, sizeof cap, (double)REPORT_SOURCE_MAX_BYTES, 0);
    snprintf(buffer, size, "larger than %s", cap);
    break;
  case REPORT_SOURCE_UNREADABLE: snprintf(buffer, size, "%s", strerror(source->error)); break;
  default: snprintf(buffer, size, "out of memory"); break;
  }
}
