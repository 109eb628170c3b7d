/* cli/output.c: where a subcommand writes (-o FILE or stdout), with every write checked and failures naming the file. */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "format/utf8.h"

static int output_fail(struct cli_output *output, const char *path, int why)
{
  fprintf(stderr, "ljleak %s: error: %s: %s\n", output->command, path, strerror(why));
  return CLI_EXIT_RUNTIME;
}

/* A new file of a random name in path's directory (O_EXCL: never a file that
 * was there, nor through a link), with the mode a new file gets. */
static int output_create_beside(struct cli_output *output, const char *path)
{
  char copy[PATH_MAX];
  if (strlen(path) >= sizeof copy)
    return output_fail(output, path, ENAMETOOLONG);
  memcpy(copy, path, strlen(path) + 1);
  const char *dir = dirname(copy);
  int length = snprintf(output->tmp, sizeof output->tmp, "%s/.ljleak-out.XXXXXX", dir);
  if (length < 0 || (size_t)length >= sizeof output->tmp)
    return output_fail(output, path, ENAMETOOLONG);
  int fd = mkostemp(output->tmp, O_CLOEXEC);
  if (fd < 0)
    return output_fail(output, path, errno);
  mode_t mask = umask(0);
  umask(mask);
  output->file = fchmod(fd, 0666 & ~mask) == 0 ? fdopen(fd, "w") : NULL;
  if (!output->file) {
    int why = errno;
    close(fd);
    unlink(output->tmp);
    output->tmp[0] = '\0';
    return output_fail(output, path, why);
  }
  return CLI_EXIT_OK;
}

int cli_output_open(struct cli_output *output, const char *command, const char *path)
{
  output->command = command;
  output->name = "stdout";
  output->file = stdout;
  output->tmp[0] = '\0';
  if (!path || !strcmp(path, "-"))
    return CLI_EXIT_OK;
  output->name = path;
  /* A device or a pipe (/dev/null, /dev/stdout, a shell's >(...)) is written
   * as it is; a file is made anew beside path and renamed over it when
   * complete, so that a link at path is replaced, never followed, and a
   * failed write leaves what was there. */
  struct stat st;
  if (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
    output->file = fopen(path, "w");
    return output->file ? CLI_EXIT_OK : output_fail(output, path, errno);
  }
  if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
    return output_fail(output, path, EISDIR);
  output->file = NULL;
  return output_create_beside(output, path);
}

int cli_output_close(struct cli_output *output, const char *error)
{
  /* The error flag says a write already failed; the flush and the close
   * write what is still buffered. */
  int failed = ferror(output->file) != 0, reason = 0;
  if (fflush(output->file) != 0) {
    failed = 1;
    reason = errno;
  }
  if (output->file != stdout && fclose(output->file) != 0) {
    failed = 1;
    reason = reason ? reason : errno;
  }
  output->file = NULL;
  if (output->tmp[0]) {
    if (!failed && !error && rename(output->tmp, output->name) != 0) {
      failed = 1;
      reason = errno;
    }
    if (failed || error)
      unlink(output->tmp);
    output->tmp[0] = '\0';
  }
  /* A renderer's message may quote the result's text: escaped (format/utf8.h). */
  char shown[UTF8_TERMINAL_SIZE(1024)];
  if (error)
    utf8_terminal_text(shown, sizeof shown, error);
  if (error && failed)
    fprintf(stderr, "ljleak %s: error: %s: %s\n", output->command, output->name, shown);
  else if (error)
    fprintf(stderr, "ljleak %s: error: %s\n", output->command, shown);
  else if (failed)
    fprintf(stderr, "ljleak %s: error: %s: %s\n", output->command, output->name,
            reason ? strerror(reason) : "write error");
  return error || failed ? CLI_EXIT_RUNTIME : CLI_EXIT_OK;
}
