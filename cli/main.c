/* cli/main.c: the ljleak front end; dispatches to one subcommand, git style. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

struct subcommand {
  const char *name;
  int (*run)(int argc, char **argv);
  const char *summary;
};

static const struct subcommand subcommands[] = {
  {"run", cmd_run, "run a Lua script under the collector and capture memprof segments"},
  {"attach", cmd_attach, "capture a running LuaJIT process without a restart (through gdb)"},
  {"busted", cmd_busted, "run a busted suite, each test repeated in its own capture: a leak verdict per test"},
  {"summary", cmd_summary, "print what Tarantool's luajit-parse-memprof prints for streams"},
  {"diff", cmd_diff, "find growing sites in a capture, between boundaries, or against a base build"},
  {"report", cmd_report, "render a saved JSON diff result as text, HTML, JUnit or Markdown"},
  {"merge", cmd_merge, "merge diff results of many captures: per site, in how many it grows, by label"},
  {"info", cmd_info, "print what a capture's index says: metadata, segments, how it stopped"},
  {"snapshot", cmd_snapshot, "print a heap snapshot as text: its objects, references and roots"},
  {"control", cmd_control, "read a running process's registration, or ask it to start or stop a capture"},
};

static void usage(FILE *out)
{
  fprintf(out, "usage: ljleak <command> [<args>]\n\ncommands:\n");
  for (size_t i = 0; i < sizeof subcommands / sizeof subcommands[0]; i++)
    fprintf(out, "  %-8s %s\n", subcommands[i].name, subcommands[i].summary);
  fprintf(out, "\n'ljleak <command> --help' describes one command.\n");
}

int main(int argc, char **argv)
{
  if (argc < 2) {
    usage(stderr);
    return CLI_EXIT_USAGE;
  }
  if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
    usage(stdout);
    return CLI_EXIT_OK;
  }
  if (!strcmp(argv[1], "--version")) {
    printf("ljleak 0.1.0\n");
    return CLI_EXIT_OK;
  }
  for (size_t i = 0; i < sizeof subcommands / sizeof subcommands[0]; i++)
    if (!strcmp(argv[1], subcommands[i].name))
      return subcommands[i].run(argc - 1, argv + 1);
  fprintf(stderr, "ljleak: '%s' is not a command. See 'ljleak --help'.\n", argv[1]);
  return CLI_EXIT_USAGE;
}
