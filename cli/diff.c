/* cli/diff.c: ljleak diff (placeholder until its stage lands). */
#include <stdio.h>

#include "cli/cli.h"

int cmd_diff(int argc, char **argv)
{
  (void)argc;
  (void)argv;
  fprintf(stderr, "usage: ljleak diff ...\n");
  return CLI_EXIT_USAGE;
}
