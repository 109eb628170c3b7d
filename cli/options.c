/* cli/options.c: the one option and number parser of every subcommand, and its usage errors. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "collector/ljleak_collector.h"
#include "format/utf8.h"

void cli_args_init(struct cli_args *args, const char *command, const char *usage, int argc,
                   char **argv)
{
  args->command = command;
  args->usage = usage;
  args->argc = argc;
  args->argv = argv;
  args->index = 1;
  args->failed = 0;
}

void cli_help(const struct cli_args *args, const char *help)
{
  fputs(args->usage, stdout);
  fputs(help, stdout);
}

int cli_usage_error(struct cli_args *args, const char *format, ...)
{
  /* The message may quote an argument that came from a capture (a path a
   * script took from an index): escaped for the terminal (format/utf8.h). */
  char message[PATH_MAX + 512], shown[UTF8_TERMINAL_SIZE(sizeof message)];
  va_list ap;
  va_start(ap, format);
  vsnprintf(message, sizeof message, format, ap);
  va_end(ap);
  fprintf(stderr, "ljleak %s: %s\n", args->command, utf8_terminal_text(shown, sizeof shown, message));
  fputs(args->usage, stderr);
  args->failed = 1;
  return CLI_EXIT_USAGE;
}

int cli_unknown_option(struct cli_args *args)
{
  return cli_usage_error(args, "unknown option '%s'", args->argv[args->index]);
}

int cli_missing_value(struct cli_args *args, const char *name)
{
  return cli_usage_error(args, "%s needs a value", name);
}

int cli_bad_value(struct cli_args *args, const char *name, const char *value,
                  const char *wanted)
{
  return cli_usage_error(args, "bad value '%s' for %s (%s)", value, name, wanted);
}

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

/* Matches option name; *value is its text, or NULL after a missing value was reported. */
static int options_match(struct cli_args *args, const char *name, const char **value)
{
  if (!cli_option_value(args->argc, args->argv, &args->index, name, value))
    return 0;
  if (!*value)
    cli_missing_value(args, name);
  return 1;
}

int cli_option_text(struct cli_args *args, const char *name, const char **out)
{
  const char *value;
  if (!options_match(args, name, &value))
    return 0;
  if (value)
    *out = value;
  return 1;
}

/* Decimal digits as strtoull reads them; no sign, nothing after. */
static int options_parse_count(const char *text, size_t *out)
{
  char *end;
  errno = 0;
  unsigned long long value = strtoull(text, &end, 10);
  if (!*text || *end || errno || text[0] == '-')
    return -1;
  *out = (size_t)value;
  return 0;
}

/* A decimal number as strtod reads it, not negative. */
static int options_parse_number(const char *text, double *out)
{
  char *end;
  errno = 0;
  double value = strtod(text, &end);
  if (!*text || *end || errno || value < 0)
    return -1;
  *out = value;
  return 0;
}

int cli_option_count(struct cli_args *args, const char *name, size_t min, size_t max,
                     size_t *out)
{
  const char *value;
  if (!options_match(args, name, &value))
    return 0;
  size_t count;
  if (!value)
    return 1;
  if (options_parse_count(value, &count) < 0 || count < min || count > max) {
    char wanted[80];
    if (min == 0 && max == SIZE_MAX)
      snprintf(wanted, sizeof wanted, "a whole number");
    else
      snprintf(wanted, sizeof wanted, "a whole number from %zu to %zu", min, max);
    cli_bad_value(args, name, value, wanted);
    return 1;
  }
  *out = count;
  return 1;
}

int cli_option_number(struct cli_args *args, const char *name, double max, double *out)
{
  const char *value;
  if (!options_match(args, name, &value))
    return 0;
  double number;
  if (!value)
    return 1;
  if (options_parse_number(value, &number) < 0 || number > max) {
    char wanted[80];
    if (isinf(max))
      snprintf(wanted, sizeof wanted, "a number, 0 or more");
    else
      snprintf(wanted, sizeof wanted, "a number from 0 to %g", max);
    cli_bad_value(args, name, value, wanted);
    return 1;
  }
  *out = number;
  return 1;
}

int cli_option_stack_depth(struct cli_args *args, const char *name, int *out)
{
  size_t depth = 0;
  if (!cli_option_count(args, name, 0, LJLEAK_COLLECTOR_MAX_STACK_DEPTH, &depth))
    return 0;
  if (!args->failed)
    *out = (int)depth;
  return 1;
}

static const char options_size_wanted[] = "a byte count such as 4096, 64k, 8M or 1G";

int cli_option_size(struct cli_args *args, const char *name, uint64_t *out)
{
  const char *value;
  if (!options_match(args, name, &value))
    return 0;
  if (value && ljleak_collector_parse_size(value, out) != 0)
    cli_bad_value(args, name, value, options_size_wanted);
  return 1;
}

int cli_option_bytes(struct cli_args *args, const char *name, double *out)
{
  const char *value;
  if (!options_match(args, name, &value))
    return 0;
  uint64_t size;
  if (!value)
    return 1;
  if (ljleak_collector_parse_size(value, &size) == 0)
    *out = (double)size;
  else if (options_parse_number(value, out) < 0)
    cli_bad_value(args, name, value, options_size_wanted);
  return 1;
}

int cli_option_seconds(struct cli_args *args, const char *name, double *out)
{
  const char *value;
  if (!options_match(args, name, &value))
    return 0;
  if (value && ljleak_collector_parse_seconds(value, out) != 0)
    cli_bad_value(args, name, value, "seconds, such as 60 or 2.5");
  return 1;
}
