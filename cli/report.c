/* cli/report.c: ljleak report: renders a saved JSON diff result again, in any format. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "report/report.h"

static const char report_usage_line[] =
    "usage: ljleak report [--format text|html|json|junit|markdown] [-o FILE]\n"
    "                     [--source-root DIR] RESULT.json\n";

static void report_usage(FILE *out)
{
  fputs(report_usage_line, out);
  fputs("\n"
        "Renders a result saved by 'ljleak diff --format json' (- reads stdin); the\n"
        "output is the same as 'ljleak diff' renders directly.\n"
        "\n"
        "    --format FORMAT     text (default), html, json, junit or markdown\n"
        "    -o, --output FILE   write to FILE instead of stdout\n"
        "    --source-root DIR   html: look for Lua sources under DIR (default: the\n"
        "                        current directory)\n"
        "    -h, --help          show this help\n"
        "\n"
        "Text is coloured on a terminal unless NO_COLOR is set.\n"
        "\n"
        "exit status: 0 nothing flagged, 1 the result has flagged sites, 2 usage\n"
        "error, 3 unreadable input, 4 the output could not be written.\n",
        out);
}

static int report_usage_error(const char *message, const char *argument)
{
  fprintf(stderr, "ljleak report: %s%s\n", message, argument);
  fputs(report_usage_line, stderr);
  return CLI_EXIT_USAGE;
}


int cmd_report(int argc, char **argv)
{
  enum report_format format = REPORT_FORMAT_TEXT;
  const char *output = NULL, *input = NULL, *value;
  struct report_options options = {0, NULL};
  int options_done = 0;
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i];
    if (!options_done && (!strcmp(arg, "-h") || !strcmp(arg, "--help"))) {
      report_usage(stdout);
      return CLI_EXIT_OK;
    }
    if (!options_done && !strcmp(arg, "--")) {
      options_done = 1;
    } else if (!options_done && cli_option_value(argc, argv, &i, "--format", &value)) {
      if (!value)
        return report_usage_error("--format needs a value", "");
      if (report_format_parse(value, &format) < 0)
        return report_usage_error("unknown format: ", value);
    } else if (!options_done && (cli_option_value(argc, argv, &i, "--output", &value) ||
                                 cli_option_value(argc, argv, &i, "-o", &value))) {
      if (!value)
        return report_usage_error("-o needs a file name", "");
      output = value;
    } else if (!options_done && cli_option_value(argc, argv, &i, "--source-root", &value)) {
      if (!value)
        return report_usage_error("--source-root needs a directory", "");
      options.source_root = value;
    } else if (!options_done && arg[0] == '-' && arg[1] != '\0') {
      return report_usage_error("unknown option: ", arg);
    } else if (input) {
      return report_usage_error("more than one result file: ", arg);
    } else {
      input = arg;
    }
  }
  if (!input)
    return report_usage_error("no result file given", "");

  char error[512];
  struct diff_result result;
  if (report_read_json(input, &result, error, sizeof error) < 0) {
    fprintf(stderr, "ljleak report: error: %s\n", error);
    return CLI_EXIT_INPUT;
  }
  FILE *out = stdout;
  if (output && strcmp(output, "-") != 0) {
    out = fopen(output, "w");
    if (!out) {
      fprintf(stderr, "ljleak report: error: %s: %s\n", output, strerror(errno));
      diff_result_free(&result);
      return CLI_EXIT_RUNTIME;
    }
  }
  options.color = format == REPORT_FORMAT_TEXT && report_color_wanted(out);
  int status = report_render(&result, format, &options, out, error, sizeof error);
  if (out != stdout && fclose(out) != 0 && status == 0) {
    snprintf(error, sizeof error, "%s: %s", output, strerror(errno));
    status = -1;
  }
  int exit_code = result.flagged ? CLI_EXIT_FLAGGED : CLI_EXIT_OK;
  diff_result_free(&result);
  if (status < 0) {
    fprintf(stderr, "ljleak report: error: %s\n", error);
    return CLI_EXIT_RUNTIME;
  }
  return exit_code;
}
