/* cli/run.c: ljleak run (placeholder until its stage lands). */
#include <stdio.h>

#include "cli/cli.h"

int cmd_run(int argc, char **argv)
{
  (void)argc;
  (void)argv;
  fprintf(stderr, "usage: ljleak run ...\n");
  return CLI_EXIT_USAGE;
}
