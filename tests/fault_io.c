/* tests/fault_io.c: an LD_PRELOAD shim for tests: write() or close()
 * (LJLEAK_FAULT_CALL) on the file whose path ends in LJLEAK_FAULT_FILE fails with EIO, as a
 * failing disk does (close() reports it on network filesystems, which write back then), or
 * with ENOSPC, as a full one does, when LJLEAK_FAULT_ERRNO is ENOSPC. With LJLEAK_FAULT_SKIP=N,
 * the first N such calls succeed, and with LJLEAK_FAULT_FROM=TEXT the writes after them until
 * one whose data begins with TEXT (a kind of index line): a file that fills up in mid-capture. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Built with the project's -fvisibility=hidden: the shim's calls must be seen. */
__attribute__((visibility("default"))) ssize_t write(int fd, const void *data, size_t size);
__attribute__((visibility("default"))) int close(int fd);

/* The errno to fail with. */
static int fault_errno(void)
{
  const char *name = getenv("LJLEAK_FAULT_ERRNO");
  return name && !strcmp(name, "ENOSPC") ? ENOSPC : EIO;
}

/* 1 if call is the one to fail and fd is the file named. */
static int fault_here(const char *call, int fd)
{
  const char *file = getenv("LJLEAK_FAULT_FILE");
  const char *which = getenv("LJLEAK_FAULT_CALL");
  if (!file || !*file || !which || strcmp(which, call) != 0)
    return 0;
  char link[64], path[4096];
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  ssize_t n = readlink(link, path, sizeof path - 1);
  if (n <= 0)
    return 0;
  path[n] = '\0';
  size_t want = strlen(file);
  if ((size_t)n < want || strcmp(path + n - want, file) != 0)
    return 0;
  static long passed;
  const char *skip = getenv("LJLEAK_FAULT_SKIP");
  return !skip || passed++ >= atol(skip);
}

/* 1 from the first write whose data begins with LJLEAK_FAULT_FROM on (always without it). */
static int fault_from(const void *data, size_t size)
{
  static int started;
  const char *from = getenv("LJLEAK_FAULT_FROM");
  if (!from || started)
    return 1;
  size_t n = strlen(from);
  started = size >= n && memcmp(data, from, n) == 0;
  return started;
}

ssize_t write(int fd, const void *data, size_t size)
{
  static ssize_t (*real)(int, const void *, size_t);
  if (!real)
    *(void **)&real = dlsym(RTLD_NEXT, "write");
  if (fault_here("write", fd) && fault_from(data, size)) {
    errno = fault_errno();
    return -1;
  }
  return real(fd, data, size);
}

int close(int fd)
{
  static int (*real)(int);
  if (!real)
    *(void **)&real = dlsym(RTLD_NEXT, "close");
  if (fault_here("close", fd)) {
    real(fd);
    errno = fault_errno();
    return -1;
  }
  return real(fd);
}
