/* cli/cli.h: the ljleak subcommands; each lives in cli/NAME.c. */
#ifndef LJLEAK_CLI_H
#define LJLEAK_CLI_H

/* Exit codes shared by every subcommand (documented in README.md). */
enum cli_exit {
  CLI_EXIT_OK = 0,          /* success; for diff: nothing flagged */
  CLI_EXIT_FLAGGED = 1,     /* diff/report: a leak was flagged */
  CLI_EXIT_USAGE = 2,       /* bad command line */
  CLI_EXIT_INPUT = 3,       /* unreadable or corrupt input (or cut, with --strict) */
  CLI_EXIT_RUNTIME = 4      /* run: the capture could not be made */
};

/* Matches argv[*i] against an option that takes a value, given as "NAME VALUE"
 * or "NAME=VALUE". Returns 1 on a match (advancing *i past a separate value;
 * *value is NULL when the value is missing), 0 otherwise. */
int cli_option_value(int argc, char **argv, int *i, const char *name, const char **value);

int cmd_summary(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_report(int argc, char **argv);

#endif
