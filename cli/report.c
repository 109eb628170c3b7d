/* cli/report.c: ljleak report (placeholder until its stage lands). */
#include <stdio.h>

#include "cli/cli.h"

int cmd_report(int argc, char **argv)
{
  (void)argc;
  (void)argv;
  fprintf(stderr, "usage: ljleak report ...\n");
  return CLI_EXIT_USAGE;
}
