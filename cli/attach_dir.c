/* cli/attach_dir.c: ljleak attach's capture directory, made for the process's user without root following a link that user could plant above it. */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli.h"

/* Whether a directory is one that only root can change: root's, and writable by no one else but
 * with the sticky bit (as /tmp, where a name root made stays root's). */
static int root_alone(const struct stat *st)
{
  return S_ISDIR(st->st_mode) && st->st_uid == 0 &&
         (!(st->st_mode & (S_IWGRP | S_IWOTH)) || (st->st_mode & S_ISVTX));
}

/* The directory that holds dir (absolute), opened from "/" one component at a time without
 * following a link but root's own (read and walked in the same way): its handle, and dir's last
 * component in base. -1 when the way passes a directory that another user could change (it could
 * swap a component for a link between a check and a use), "..", or more than 40 links. */
static int root_parent(const char *dir, char *base, size_t size)
{
  char rest[2 * PATH_MAX], spliced[2 * PATH_MAX], link[PATH_MAX];
  const char *slash = strrchr(dir, '/');
  if (!slash || snprintf(base, size, "%s", slash + 1) >= (int)size || !*base ||
      !strcmp(base, ".") || !strcmp(base, "..") ||
      snprintf(rest, sizeof rest, "%.*s", (int)(slash - dir), dir) >= (int)sizeof rest)
    return -1;
  int fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC), links = 0;
  struct stat st;
  char *at = rest;
  while (fd >= 0 && fstat(fd, &st) == 0 && root_alone(&st)) {
    at += strspn(at, "/");
    if (!*at)
      return fd;
    size_t len = strcspn(at, "/");
    char name[NAME_MAX + 1];
    if (len > NAME_MAX || (len == 2 && !strncmp(at, "..", 2)))
      break;
    memcpy(name, at, len);
    name[len] = '\0';
    at += len;
    if (!strcmp(name, "."))
      continue;
    if (fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode)) {
      ssize_t n = st.st_uid == 0 && ++links <= 40 ? readlinkat(fd, name, link, sizeof link - 1) : -1;
      if (n <= 0 || snprintf(spliced, sizeof spliced, "%.*s/%s", (int)n, link, at) >=
                        (int)sizeof spliced)
        break;
      memcpy(rest, spliced, strlen(spliced) + 1);
      at = rest;
      if (rest[0] == '/') {
        close(fd);
        fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
      }
      continue;
    }
    int next = openat(fd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    close(fd);
    fd = next;
  }
  if (fd >= 0)
    close(fd);
  return -1;
}

/* mkdir(dir, 0700), or rmdir(dir) when remove, as the process's user, in a child that dropped to
 * its uid and gid first: 0, or the errno of the failure. */
static int mkdir_as(const char *dir, unsigned long uid, unsigned long gid, int remove)
{
  pid_t child = fork();
  if (child < 0)
    return errno;
  if (child == 0) {
    if (setgroups(0, NULL) != 0 || setgid((gid_t)gid) != 0 || setuid((uid_t)uid) != 0)
      _exit(EPERM);
    _exit((remove ? rmdir(dir) : mkdir(dir, 0700)) == 0 ? 0 : errno);
  }
  int status;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : EIO;
}

/* Makes the missing capture directory dir for the process's user: 0, or an errno. Root makes it
 * (and gives it to the user through the handle of the directory just made) only below directories
 * that only root can change; anywhere else the user could lead root's mkdir and chown through a
 * link into a directory of root's, so the user makes it, where it could anyway. */
int cli_attach_make_dir(const char *dir, unsigned long uid, unsigned long gid)
{
  char base[NAME_MAX + 1];
  int parent = root_parent(dir, base, sizeof base);
  if (parent < 0)
    return mkdir_as(dir, uid, gid, 0);
  int rc = mkdirat(parent, base, 0700) == 0 ? 0 : errno;
  int fd = rc ? -1 : openat(parent, base, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  struct stat st;
  if (!rc && !(fd >= 0 && fstat(fd, &st) == 0 && st.st_uid == 0 &&
               fchown(fd, (uid_t)uid, (gid_t)gid) == 0))
    rc = EPERM;
  if (fd >= 0)
    close(fd);
  close(parent);
  return rc;
}

/* Removes dir, made by cli_attach_make_dir, when it is still empty (an attach that captured
 * nothing): in the same way it was made, so that no link leads root's rmdir elsewhere. 0, or an
 * errno (ENOTEMPTY: the process wrote into it, and it stays). */
int cli_attach_remove_dir(const char *dir, unsigned long uid, unsigned long gid)
{
  char base[NAME_MAX + 1];
  int parent = root_parent(dir, base, sizeof base);
  if (parent < 0)
    return mkdir_as(dir, uid, gid, 1);
  int rc = unlinkat(parent, base, AT_REMOVEDIR) == 0 ? 0 : errno;
  close(parent);
  return rc;
}
