/* collector/capture_dir.c: the capture directory, made and held by handle (see capture_dir.h). */
#include "collector/capture_dir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "collector/text.h"
#include "format/capture_layout.h"

#define DIR_OPEN_FLAGS (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)

__attribute__((format(printf, 3, 4))) static void dir_error(char *err, size_t size,
                                                             const char *fmt, ...)
{
  if (!err || !size)
    return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, size, fmt, ap);
  va_end(ap);
}

void coll_capture_dir_user(uid_t uid, char *out, size_t size)
{
  struct passwd pw, *found = NULL;
  char buffer[2048];
  if (getpwuid_r(uid, &pw, buffer, sizeof buffer, &found) == 0 && found)
    snprintf(out, size, "%s (uid %u)", found->pw_name, (unsigned)uid);
  else
    snprintf(out, size, "uid %u", (unsigned)uid);
}

/* Whether a directory another user could change holds the captures: one of another user but
 * root (who could swap a capture for a link), or one every user may write without the sticky
 * bit (where any user may rename what others made). 0, or -1 with why. */
static int check_root(int fd, const char *root, char *err, size_t err_size)
{
  struct stat st;
  if (fstat(fd, &st) != 0) {
    dir_error(err, err_size, "cannot read the capture root %s: %s", root, strerror(errno));
    return -1;
  }
  if (st.st_uid != geteuid() && st.st_uid != 0) {
    char user[300];
    coll_capture_dir_user(st.st_uid, user, sizeof user);
    dir_error(err, err_size,
              "the capture root %s belongs to %s, not to this process's user: that user could "
              "change its captures; give a root of this user's (or one made by root)",
              root, user);
    return -1;
  }
  if ((st.st_mode & S_IWOTH) && !(st.st_mode & S_ISVTX)) {
    dir_error(err, err_size,
              "the capture root %s is writable by every user (mode %04o) without the sticky "
              "bit: any user could change its captures; give a root of this user's",
              root, (unsigned)(st.st_mode & 07777));
    return -1;
  }
  return 0;
}

/* Opens a directory that must not be a link; -1 with why. */
static int open_dir_at(int at, const char *path, const char *what, const char *shown, char *err,
                       size_t err_size)
{
  int fd = openat(at, path, DIR_OPEN_FLAGS);
  if (fd >= 0)
    return fd;
  int why = errno;
  struct stat st;
  /* O_NOFOLLOW with O_DIRECTORY says ENOTDIR for a link. */
  if ((why == ELOOP || why == ENOTDIR) && fstatat(at, path, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
      S_ISLNK(st.st_mode))
    why = ELOOP;
  if (why == ELOOP)
    dir_error(err, err_size, "the %s %s is a link: give the directory itself", what, shown);
  else
    dir_error(err, err_size, "cannot open the %s %s: %s", what, shown, strerror(why));
  return -1;
}

/* Makes path (0700) if it is missing and opens it, never through a link; -1 with why
 * ("FAILED PATH: reason" when it cannot be made). */
static int make_and_open(const char *path, const char *failed, const char *what, char *err,
                         size_t err_size)
{
  if (mkdir(path, 0700) != 0 && errno != EEXIST) {
    dir_error(err, err_size, "%s %s: %s", failed, path, strerror(errno));
    return -1;
  }
  return open_dir_at(AT_FDCWD, path, what, path, err, err_size);
}

/* Whether a directory has no entries but . and .. (fd stays open). 1, 0, or -1. */
static int dir_is_empty(int fd)
{
  int copy = dup(fd);
  if (copy < 0)
    return -1;
  DIR *d = fdopendir(copy);
  if (!d) {
    close(copy);
    return -1;
  }
  int empty = 1;
  struct dirent *e;
  while (empty && (e = readdir(d)))
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
      empty = 0;
  closedir(d);
  return empty;
}

/* A given directory: made if missing, else taken only when empty and this user's. */
static int open_given(struct coll_capture_dir *d, const char *dir, char *err, size_t err_size)
{
  int fd = make_and_open(dir, "cannot create capture directory", "capture directory", err,
                         err_size);
  if (fd < 0)
    return -1;
  struct stat st;
  int empty = fstat(fd, &st) == 0 ? dir_is_empty(fd) : -1;
  if (empty < 0) {
    dir_error(err, err_size, "cannot read capture directory %s: %s", dir, strerror(errno));
  } else if (st.st_uid != geteuid()) {
    char user[300];
    coll_capture_dir_user(st.st_uid, user, sizeof user);
    dir_error(err, err_size,
              "capture directory %s belongs to %s, not to this process's user: give a new "
              "directory", dir, user);
  } else if (!empty) {
    struct stat index;
    if (fstatat(fd, CAPTURE_LAYOUT_INDEX, &index, AT_SYMLINK_NOFOLLOW) == 0 &&
        S_ISREG(index.st_mode))
      dir_error(err, err_size, "%s already holds a capture (it has an index)", dir);
    else
      dir_error(err, err_size, "capture directory %s is not empty: give a new or empty one", dir);
  } else if ((st.st_mode & 07777) != 0700 && fchmod(fd, 0700) != 0) {
    dir_error(err, err_size, "cannot make capture directory %s private: %s", dir,
              strerror(errno));
  } else {
    d->fd = fd;
    return 0;
  }
  close(fd);
  return -1;
}

/* A new ljleak-<pid>-<time>[-n] in the checked root. */
static int open_new(struct coll_capture_dir *d, const char *root, char *err, size_t err_size)
{
  int root_fd = make_and_open(root, "cannot create", "capture root", err, err_size);
  if (root_fd < 0)
    return -1;
  if (check_root(root_fd, root, err, err_size) != 0) {
    close(root_fd);
    return -1;
  }
  time_t now = time(NULL);
  struct tm tm;
  char stamp[32], name[96];
  localtime_r(&now, &tm);
  strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
  int made = 0;
  for (int n = 1; n < 1000 && !made; n++) {
    if (n == 1)
      snprintf(name, sizeof name, "ljleak-%ld-%s", (long)getpid(), stamp);
    else
      snprintf(name, sizeof name, "ljleak-%ld-%s-%d", (long)getpid(), stamp, n);
    snprintf(d->path, sizeof d->path, "%s/%s", root, name);   /* fits: checked by the caller */
    if (mkdirat(root_fd, name, 0700) == 0)
      made = 1;
    else if (errno != EEXIST)
      break;
  }
  if (!made) {
    dir_error(err, err_size, "cannot create a capture directory in %s: %s", root,
              strerror(errno));
    close(root_fd);
    return -1;
  }
  /* Made by this process: a link or another user's directory in its place was put there since. */
  int fd = open_dir_at(root_fd, name, "capture directory", d->path, err, err_size);
  close(root_fd);
  struct stat st;
  if (fd >= 0 && (fstat(fd, &st) != 0 || st.st_uid != geteuid())) {
    dir_error(err, err_size, "capture directory %s was replaced after it was made", d->path);
    close(fd);
    fd = -1;
  }
  d->fd = fd;
  return fd >= 0 ? 0 : -1;
}

int coll_capture_dir_root_check(const char *root, char *err, size_t err_size)
{
  size_t room = sizeof ((struct coll_capture_dir *)0)->path - 64;
  if (root && strlen(root) >= room) {
    dir_error(err, err_size, "the capture root's name is too long (%zu bytes, at most %zu): %.64s...",
              strlen(root), room - 1, root);
    return -1;
  }
  return 0;
}

int coll_capture_dir_open(struct coll_capture_dir *d, const struct ljleak_collector_options *opt, char *err,
                          size_t err_size)
{
  d->fd = -1;
  if (opt->dir && *opt->dir) {
    if (strlen(opt->dir) >= sizeof d->path) {
      dir_error(err, err_size, "the capture directory's name is too long (%zu bytes): %.64s...",
                strlen(opt->dir), opt->dir);
      return -1;
    }
    coll_text_copy(d->path, sizeof d->path, opt->dir);
    return open_given(d, opt->dir, err, err_size);
  }
  const char *root = opt->root && *opt->root ? opt->root : ".";
  if (coll_capture_dir_root_check(root, err, err_size) != 0)
    return -1;
  return open_new(d, root, err, err_size);
}

void coll_capture_dir_close(struct coll_capture_dir *d)
{
  if (d->fd >= 0)
    close(d->fd);
  d->fd = -1;
}

int coll_capture_dir_create(const struct coll_capture_dir *d, const char *name, int append)
{
  int flags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | (append ? O_APPEND : 0);
  return openat(d->fd, name, flags, 0600);
}

int coll_capture_dir_rename(const struct coll_capture_dir *d, const char *from, const char *to)
{
  return renameat(d->fd, from, d->fd, to);
}

int coll_capture_dir_remove(const struct coll_capture_dir *d, const char *name)
{
  return unlinkat(d->fd, name, 0);
}
