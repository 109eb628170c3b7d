/* cli/summary.c: ljleak summary (placeholder until its stage lands). */
#include <stdio.h>

#include "cli/cli.h"

int cmd_summary(int argc, char **argv)
{
  (void)argc;
  (void)argv;
  fprintf(stderr, "usage: ljleak summary ...\n");
  return CLI_EXIT_USAGE;
}
