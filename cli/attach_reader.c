/* cli/attach_reader.c: attach --snapshot's report, read as the process's user by a child whose output attach relays: the capture is that user's to change, and the child that user's to signal. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "format/capture_files.h"
#include "format/utf8.h"

#define READER_OUTPUT_MAX (16u << 20)   /* bytes of the child's output kept, per stream */

/* How long the reader may take: wait, plus the capture's bytes at 10 MB/s (the reading runs at
 * 200 MB/s and more), at most 600 s more (a sparse file is large for nothing). */
static double reader_seconds(const char *dir, double wait)
{
  double bytes = 0;
  DIR *d = opendir(dir);
  if (d) {
    struct stat st;
    for (struct dirent *e; (e = readdir(d));)
      if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode))
        bytes += (double)st.st_size;
    closedir(d);
  }
  return wait + (bytes / 10e6 < 600 ? bytes / 10e6 : 600);
}

/* What the child wrote on one pipe: the first READER_OUTPUT_MAX bytes. */
struct reader_stream {
  int fd;                     /* the pipe's read end; -1 at its end */
  char *data;
  size_t used;
  int cut;                    /* more came than was kept */
};

static void reader_take(struct reader_stream *s)
{
  char chunk[65536];
  ssize_t n = read(s->fd, chunk, sizeof chunk);
  if (n < 0 && (errno == EINTR || errno == EAGAIN))
    return;
  if (n <= 0) {
    close(s->fd);
    s->fd = -1;
    return;
  }
  size_t keep = (size_t)n < READER_OUTPUT_MAX - s->used ? (size_t)n : READER_OUTPUT_MAX - s->used;
  char *grown = keep ? realloc(s->data, s->used + keep) : s->data;
  if (!grown)
    keep = 0;
  else
    s->data = grown;
  if (keep)
    memcpy(s->data + s->used, chunk, keep);
  s->used += keep;
  s->cut |= keep < (size_t)n;
}

/* Relays the child's output to out escaped (format/utf8.h; it escaped what it printed, and
 * escaping again changes nothing), keeping its line ends and tabs. */
static void reader_put(FILE *out, const struct reader_stream *s)
{
  size_t from = 0;
  for (size_t i = 0; i <= s->used; i++) {
    if (i < s->used && s->data[i] != '\n' && s->data[i] != '\t')
      continue;
    utf8_put_terminal(out, s->data + from, i - from, UTF8_TERMINAL_TEXT);
    if (i < s->used)
      fputc(s->data[i], out);
    from = i + 1;
  }
  if (s->cut)
    fprintf(out, "\n(ljleak attach: the reading's output was cut at %u MiB)\n", READER_OUTPUT_MAX >> 20);
  fflush(out);
}

/* Takes the child's output until both pipes end and it has exited, at most seconds, then kills
 * it: 0 when it ended by itself (status set), 1. */
static int reader_wait(pid_t child, double seconds, int *status, struct reader_stream *streams)
{
  struct timespec start;
  clock_gettime(CLOCK_MONOTONIC, &start);
  int exited = 0;
  for (;;) {
    struct pollfd p[2];
    nfds_t n = 0;
    for (int i = 0; i < 2; i++)
      if (streams[i].fd >= 0)
        p[n++] = (struct pollfd){.fd = streams[i].fd, .events = POLLIN};
    if (poll(p, n, 20) > 0)
      for (nfds_t k = 0; k < n; k++)
        if (p[k].revents)
          reader_take(streams[0].fd == p[k].fd ? &streams[0] : &streams[1]);
    pid_t got = exited ? child : waitpid(child, status, WNOHANG);
    exited = got == child || (got < 0 && errno != EINTR);
    if (exited && streams[0].fd < 0 && streams[1].fd < 0)
      return 0;
    if (cli_attach_seconds_since(&start) > seconds) {
      if (!exited) {
        kill(child, SIGKILL);
        while (waitpid(child, status, 0) < 0 && errno == EINTR) {
        }
      }
      return !exited;
    }
  }
}

/* The child: drops to the process's ids, then prints what ljleak snapshot --holders 10 would
 * print of the capture's first snapshot, read as a file found there (format/input_file.h). */
static void reader_child(const char *dir, unsigned long uid, unsigned long gid, int out, int err)
{
  int null = open("/dev/null", O_RDONLY);
  if (setsid() < 0 || null < 0 || dup2(null, STDIN_FILENO) < 0 || dup2(out, STDOUT_FILENO) < 0 ||
      dup2(err, STDERR_FILENO) < 0)
    _exit(CLI_EXIT_RUNTIME);
  int drop = geteuid() == 0 && uid != 0;   /* not read again: the process may be su by now */
  if (drop && (setgroups(0, NULL) != 0 || setgid((gid_t)gid) != 0 || setuid((uid_t)uid) != 0))
    _exit(CLI_EXIT_RUNTIME);
  struct capture_files files;
  struct format_error error;
  int code = CLI_EXIT_INPUT;
  if (capture_files_open(&files, dir, &error) == FORMAT_OK && files.snapshot_count) {
    code = cli_snapshot_show(files.snapshots[0].path, INPUT_FILE_FOUND, NULL, 10);
  } else {
    char shown[UTF8_TERMINAL_SIZE(PATH_MAX)];
    fprintf(stderr, "ljleak attach: no heap snapshot in %s\n", utf8_terminal_text(shown, sizeof shown, dir));
  }
  capture_files_free(&files);
  fflush(stdout);
  _exit(code);
}

/* Root reads another user's capture as that user, in a child that leads a session of its own
 * and holds no descriptor of root's: stdin /dev/null, stdout and stderr pipes that attach reads
 * (a terminal of root's there could be driven from the child). */
int cli_attach_read_snapshot(const char *dir, unsigned long uid, unsigned long gid, double wait)
{
  double seconds = reader_seconds(dir, wait);
  int out[2], err[2];
  if (pipe2(out, O_CLOEXEC) != 0)
    return CLI_EXIT_RUNTIME;
  if (pipe2(err, O_CLOEXEC) != 0) {
    close(out[0]), close(out[1]);
    return CLI_EXIT_RUNTIME;
  }
  fflush(stdout);
  fflush(stderr);
  pid_t child = fork();
  if (child == 0)
    reader_child(dir, uid, gid, out[1], err[1]);
  close(out[1]), close(err[1]);
  struct reader_stream streams[2] = {{.fd = out[0]}, {.fd = err[0]}};
  int status = 0, killed = child < 0 ? 0 : reader_wait(child, seconds, &status, streams);
  for (int i = 0; i < 2; i++)
    if (streams[i].fd >= 0)
      close(streams[i].fd);
  reader_put(stdout, &streams[0]);
  reader_put(stderr, &streams[1]);
  free(streams[0].data), free(streams[1].data);
  if (child < 0)
    return CLI_EXIT_RUNTIME;
  if (killed) {
    char shown[UTF8_TERMINAL_SIZE(PATH_MAX)];
    fprintf(stderr, "ljleak attach: reading the heap snapshot in %s did not end within %.0f s "
            "(--wait plus 1 s per 10 MB of the capture); it was ended\n",
            utf8_terminal_text(shown, sizeof shown, dir), seconds);
    return CLI_EXIT_RUNTIME;
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : CLI_EXIT_RUNTIME;
}
