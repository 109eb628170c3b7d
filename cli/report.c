/* cli/report.c: ljleak report: renders a saved JSON diff result again, in any format. */
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

int cmd_report(int argc, char **argv)
{
  struct cli_args args;
  enum report_format format = REPORT_FORMAT_TEXT;
  const char *output = NULL, *input = NULL, *format_name = NULL;
  struct report_options options = {0, NULL};
  int options_done = 0;
  cli_args_init(&args, "report", report_usage_line, argc, argv);
  for (; args.index < argc && !args.failed; args.index++) {
    const char *arg = argv[args.index];
    if (!options_done && (!strcmp(arg, "-h") || !strcmp(arg, "--help"))) {
      report_usage(stdout);
      return CLI_EXIT_OK;
    }
    if (!options_done && !strcmp(arg, "--")) {
      options_done = 1;
    } else if (!options_done && cli_option_text(&args, "--format", &format_name)) {
      if (format_name && report_format_parse(format_name, &format) < 0)
        cli_bad_value(&args, "--format", format_name, "text, html, json, junit or markdown");
    } else if (!options_done && (cli_option_text(&args, "--output", &output) ||
                                 cli_option_text(&args, "-o", &output) ||
                                 cli_option_text(&args, "--source-root", &options.source_root))) {
      /* the value is in place, or the error reported */
    } else if (!options_done && arg[0] == '-' && arg[1] != '\0') {
      cli_unknown_option(&args);
    } else if (input) {
      cli_usage_error(&args, "more than one result file: %s", arg);
    } else {
      input = arg;
    }
  }
  if (args.failed)
    return CLI_EXIT_USAGE;
  if (!input)
    return cli_usage_error(&args, "no result file given");

  char error[512];
  struct diff_result result;
  if (report_read_json(input, &result, error, sizeof error) < 0) {
    fprintf(stderr, "ljleak report: error: %s\n", error);
    return CLI_EXIT_INPUT;
  }
  struct cli_output out;
  if (cli_output_open(&out, "report", output) != CLI_EXIT_OK) {
    diff_result_free(&result);
    return CLI_EXIT_RUNTIME;
  }
  options.color = format == REPORT_FORMAT_TEXT && report_color_wanted(out.file);
  int status = report_render(&result, format, &options, out.file, error, sizeof error);
  int exit_code = result.flagged ? CLI_EXIT_FLAGGED : CLI_EXIT_OK;
  diff_result_free(&result);
  if (cli_output_close(&out, status < 0 ? error : NULL) != CLI_EXIT_OK)
    return CLI_EXIT_RUNTIME;
  return exit_code;
}
