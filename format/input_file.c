/* format/input_file.c: opens a file to read, refusing what a capture's owner could put in the place of one of its files. */
#include "format/input_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* What a file that is not a regular one is, for the refusal. */
static const char *input_file_kind(mode_t mode)
{
  if (S_ISDIR(mode))
    return "a directory";
  if (S_ISFIFO(mode))
    return "a FIFO";
  if (S_ISCHR(mode))
    return "a character device";
  if (S_ISBLK(mode))
    return "a block device";
  if (S_ISSOCK(mode))
    return "a socket";
  if (S_ISLNK(mode))
    return "a link, not followed where a capture's file should be";
  return "not a file";
}

static int input_file_failed(struct format_error *error, const char *shown, int code)
{
  format_error_clear(error);
  error->system_error = code;
  /* A regular file opened without blocking: a lease of its owner's is held on it. */
  format_error_set(error, FORMAT_IO, "%s: cannot open: %s%s", shown, strerror(code),
                   code == EWOULDBLOCK ? " (its owner holds a lease on it: not waited for)" : "");
  return -1;
}

/* A file found in a capture with a hole in it: the collector writes every file of a capture
 * from its first byte to its last, so a hole is someone else's, and reading its zeros would
 * cost the reader (root's cron job) memory and time the file's owner paid no disk for: a
 * terabyte of them for nothing. */
static int input_file_sparse(struct format_error *error, const char *shown, int fd, off_t hole)
{
  close(fd);
  format_error_clear(error);
  error->system_error = EINVAL;
  format_error_set(error, FORMAT_IO, "%s: a sparse file (a hole at byte %lld): refused (ljleak writes none)",
                   shown, (long long)hole);
  return -1;
}

static int input_file_refused(struct format_error *error, const char *shown, mode_t mode)
{
  format_error_clear(error);
  error->system_error = S_ISDIR(mode) ? EISDIR : EINVAL;
  format_error_set(error, FORMAT_IO, "%s: not a regular file (%s): refused", shown, input_file_kind(mode));
  return -1;
}

/* Opens the file the O_PATH handle path_fd names, not its name again (which may have changed),
 * through /proc; without /proc, the name, checked to be the same file. A regular file is opened
 * without blocking (its owner's write lease would hold the open for 45 s), then made blocking. */
static int input_file_reopen(int path_fd, const struct stat *seen, int dir_fd, const char *name, int nofollow)
{
  int flags = O_RDONLY | O_CLOEXEC | O_NOCTTY;
  char proc[64];
  snprintf(proc, sizeof proc, "/proc/self/fd/%d", path_fd);
  int nonblock = S_ISREG(seen->st_mode) ? O_NONBLOCK : 0;
  int fd = open(proc, flags | nonblock);
  if (fd < 0 && errno == ENOENT)
    fd = openat(dir_fd, name, flags | nofollow | nonblock);
  if (fd < 0)
    return -1;
  struct stat st;
  if (fstat(fd, &st) != 0 || st.st_dev != seen->st_dev || st.st_ino != seen->st_ino) {
    close(fd);
    errno = ESTALE;
    return -1;
  }
  int status = nonblock ? fcntl(fd, F_GETFL) : 0;
  if (nonblock && (status < 0 || fcntl(fd, F_SETFL, status & ~O_NONBLOCK) != 0)) {
    close(fd);
    return -1;
  }
  return fd;
}

int input_file_open(int dir_fd, const char *name, const char *shown, enum input_file_how how,
                    struct format_error *error)
{
  int found = how == INPUT_FILE_FOUND;
  /* O_PATH first: nothing is opened for reading before its kind is known, so a device is never
   * opened (which can act on it) and a FIFO never waited on. */
  int path_fd = openat(dir_fd, name, O_PATH | O_CLOEXEC | (found ? O_NOFOLLOW : 0));
  if (path_fd < 0)
    return input_file_failed(error, shown, errno);
  struct stat st;
  if (fstat(path_fd, &st) != 0) {
    int code = errno;
    close(path_fd);
    return input_file_failed(error, shown, code);
  }
  /* A FIFO is read only as a stream the user named: ljleak diff <(ssh host cat seg-0001.memprof). */
  if (!S_ISREG(st.st_mode) && (found || !S_ISFIFO(st.st_mode))) {
    close(path_fd);
    return input_file_refused(error, shown, st.st_mode);
  }
  int fd = input_file_reopen(path_fd, &st, dir_fd, name, found ? O_NOFOLLOW : 0);
  int code = errno;
  close(path_fd);
  if (fd < 0)
    return input_file_failed(error, shown, code);
  /* The first hole; the end when there is none (a file that grows meanwhile ends later), or
   * where the file system cannot tell. */
  off_t hole = found && S_ISREG(st.st_mode) ? lseek(fd, 0, SEEK_HOLE) : -1;
  if (hole >= 0 && hole < st.st_size)
    return input_file_sparse(error, shown, fd, hole);
  if (hole >= 0 && lseek(fd, 0, SEEK_SET) != 0) {
    code = errno;
    close(fd);
    return input_file_failed(error, shown, code);
  }
  return fd;
}
