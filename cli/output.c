/* cli/output.c: where a subcommand writes (-o FILE or stdout), with every write checked and failures naming the file. */
#include <errno.h>
#include <string.h>

#include "cli/cli.h"

int cli_output_open(struct cli_output *output, const char *command, const char *path)
{
  output->command = command;
  output->name = "stdout";
  output->file = stdout;
  if (!path || !strcmp(path, "-"))
    return CLI_EXIT_OK;
  output->name = path;
  output->file = fopen(path, "w");
  if (!output->file) {
    fprintf(stderr, "ljleak %s: error: %s: %s\n", command, path, strerror(errno));
    return CLI_EXIT_RUNTIME;
  }
  return CLI_EXIT_OK;
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
  if (error && failed)
    fprintf(stderr, "ljleak %s: error: %s: %s\n", output->command, output->name, error);
  else if (error)
    fprintf(stderr, "ljleak %s: error: %s\n", output->command, error);
  else if (failed)
    fprintf(stderr, "ljleak %s: error: %s: %s\n", output->command, output->name,
            reason ? strerror(reason) : "write error");
  return error || failed ? CLI_EXIT_RUNTIME : CLI_EXIT_OK;
}
