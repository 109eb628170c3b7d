/* cli/summary.c: ljleak summary: what Tarantool's luajit-parse-memprof prints, for one or more streams. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "format/utf8.h"
#include "summary/summary.h"

static const char summary_usage_line[] =
    "usage: ljleak summary [--leak-only] [--human-readable] [--strict] FILE...\n";

/* What --help prints after the usage line. */
static const char summary_help[] =
    "\n"
    "Prints what Tarantool's luajit-parse-memprof prints for memprof streams\n"
    "(plain or gzip files; - reads stdin). Several files are read in order as\n"
    "one stream: one symbol table, one heap map.\n"
    "\n"
    "    --leak-only        print only the HEAP SUMMARY (and ALIASES)\n"
    "    --human-readable   print sizes as B, KiB, MiB, GiB\n"
    "    --strict           a cut stream is an error (exit 3); by default it is\n"
    "                       summarised up to its last complete event, with a warning\n"
    "    -h, --help         show this help\n"
    "\n"
    "exit status: 0 success, 2 usage error, 3 unreadable or corrupt input\n"
    "(or a cut stream with --strict), 4 out of memory or output error.\n";

/* Reads every file into summary; returns an exit code, sets *cut for a cut stream. */
static int summary_read_all(struct summary *summary, char **files, int count, int *cut)
{
  for (int i = 0; i < count; i++) {
    struct format_error err;
    char shown[UTF8_TERMINAL_SIZE(sizeof err.message)];
    enum format_status status = summary_read_file(summary, files[i], &err);
    if (status == FORMAT_END)
      continue;
    if (status == FORMAT_CUT) {
      fprintf(stderr, "ljleak summary: warning: %s\n",
              utf8_terminal_text(shown, sizeof shown, err.message));
      *cut = 1;
      continue;
    }
    fprintf(stderr, "ljleak summary: error: %s\n",
            utf8_terminal_text(shown, sizeof shown, err.message));
    return cli_exit_for(status);
  }
  return CLI_EXIT_OK;
}

int cmd_summary(int argc, char **argv)
{
  struct cli_args args;
  struct summary_options options = {0, 0};
  int strict = 0, options_done = 0, file_count = 0;
  char **files = malloc((size_t)(argc > 0 ? argc : 1) * sizeof *files);
  if (!files) {
    fputs("ljleak summary: out of memory\n", stderr);
    return CLI_EXIT_RUNTIME;
  }
  cli_args_init(&args, "summary", summary_usage_line, argc, argv);
  for (; args.index < argc && !args.failed; args.index++) {
    const char *arg = argv[args.index];
    if (options_done || arg[0] != '-' || !strcmp(arg, "-")) {
      files[file_count++] = argv[args.index];
    } else if (!strcmp(arg, "--")) {
      options_done = 1;
    } else if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
      free(files);
      cli_help(&args, summary_help);
      return CLI_EXIT_OK;
    } else if (!strcmp(arg, "--leak-only")) {
      options.leak_only = 1;
    } else if (!strcmp(arg, "--human-readable")) {
      options.human_readable = 1;
    } else if (!strcmp(arg, "--strict")) {
      strict = 1;
    } else {
      cli_unknown_option(&args);
    }
  }
  if (!args.failed && !file_count)
    cli_usage_error(&args, "no input file");
  if (args.failed) {
    free(files);
    return CLI_EXIT_USAGE;
  }

  struct summary *summary = summary_new();
  if (!summary) {
    free(files);
    fputs("ljleak summary: out of memory\n", stderr);
    return CLI_EXIT_RUNTIME;
  }
  int cut = 0;
  int code = summary_read_all(summary, files, file_count, &cut);
  if (code == CLI_EXIT_OK) {
    struct cli_output output;
    cli_output_open(&output, "summary", NULL);  /* stdout: cannot fail */
    int printed = summary_print(summary, &options, output.file);
    code = cli_output_close(&output, printed ? "cannot write the summary" : NULL);
    if (code == CLI_EXIT_OK && cut && strict)
      code = CLI_EXIT_INPUT;
  }
  summary_free(summary);
  free(files);
  return code;
}
