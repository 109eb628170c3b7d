/* cli/options.c: option parsing shared by the subcommands. */
#include <string.h>

#include "cli/cli.h"

int cli_option_value(int argc, char **argv, int *i, const char *name, const char **value)
{
  size_t n = strlen(name);
  if (strncmp(argv[*i], name, n) != 0)
    return 0;
  if (argv[*i][n] == '=') {
    *value = argv[*i] + n + 1;
    return 1;
  }
  if (argv[*i][n] != '\0')
    return 0;
  *value = *i + 1 < argc ? argv[++*i] : NULL;
  return 1;
}
