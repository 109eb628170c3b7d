/* cli/report.c: ljleak report: renders a saved JSON diff result again, in any format. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "diff/values.h"
#include "format/utf8.h"
#include "report/report.h"

static const char report_usage_line[] =
    "usage: ljleak report [--format text|html|json|junit|markdown|pprof|folded] [-o FILE]\n"
    "                     [--source-root DIR] [--warmup N] [--allow FILE] [--by site|stack]\n"
    "                     [--boundary K] [--pprof-growth] [--values] RESULT.json\n";

/* What --help prints after the usage line. */
static const char report_help[] =
    "\n"
    "Renders a result saved by 'ljleak diff --format json' (- reads stdin); the\n"
    "output is the same as 'ljleak diff' renders directly.\n"
    "\n"
    "    --format FORMAT     text (default), html, json, junit, markdown, pprof\n"
    "                        (gzipped profile.proto by stack) or folded (stacks)\n"
    "    --by stack          rows and verdicts by call stack (a result by site with\n"
    "                        stacks shows its stacks as rows)\n"
    "    --boundary K        pprof, folded: live bytes at boundary K (default: last)\n"
    "    --pprof-growth      pprof, folded: growth from the first judged boundary to K\n"
    "                        is the profile's default value (else in-use)\n"
    "    -o, --output FILE   write to FILE instead of stdout\n"
    "    --source-root DIR   html: show the Lua source around each site, from the\n"
    "                        file its chunk names, read beneath DIR only (no\n"
    "                        absolute name, '..' or link; a regular file of at\n"
    "                        most 4 MiB); without it no source file is read\n"
    "    --warmup N          decide the verdicts again from the saved series, with\n"
    "                        the first N boundaries left out\n"
    "    --allow FILE        decide again with this allow-list (PATTERN BUDGET # WHY\n"
    "                        per line)\n"
    "    --values            show the values a result saved by 'ljleak diff --values'\n"
    "                        holds (they can be secrets: without this option none is\n"
    "                        shown, and the JSON written has none)\n"
    "    -h, --help          show this help\n"
    "\n"
    "Text is coloured on a terminal unless NO_COLOR is set. Without --warmup or\n"
    "--allow the saved verdicts are rendered as they are.\n"
    "\n"
    "exit status: 0 nothing flagged, 1 the result has flagged sites, 5 inconclusive\n"
    "(nothing flagged, but a site has no verdict, or there is no boundary), 2 usage\n"
    "error (a malformed --allow file too), 3 unreadable input, 4 the output could\n"
    "not be written.\n";

/* A failed diff_allow_load or diff_decide as an exit code (-1 for FORMAT_OK). */
static int report_failure(struct cli_args *args, enum format_status status,
                          const struct format_error *err)
{
  if (status == FORMAT_OK)
    return -1;
  if (status == FORMAT_NO_MEMORY) {
    fputs("ljleak report: out of memory\n", stderr);
    return CLI_EXIT_RUNTIME;
  }
  return cli_usage_error(args, "%s", err->message);
}

/* --warmup and --allow: the saved verdicts decided again from the series. */
static int report_decide(struct cli_args *args, struct diff_result *result, int warmup_given,
                         size_t warmup, const struct diff_allow *allow)
{
  struct format_error err;
  struct diff_options options = result->options;
  if (warmup_given)
    options.warmup = warmup;
  options.allow = allow;
  return report_failure(args, diff_decide(result, &options, &err), &err);
}

/* Renders result (freed here) to output in format; the exit code. */
static int report_write(struct diff_result *result, enum report_format format,
                        struct report_options *options, const char *output)
{
  struct format_error error;
  struct cli_output out;
  if (cli_output_open(&out, "report", output) != CLI_EXIT_OK) {
    diff_result_free(result);
    return CLI_EXIT_RUNTIME;
  }
  options->color = format == REPORT_FORMAT_TEXT && report_color_wanted(out.file);
  enum format_status status = report_render(result, format, options, out.file, &error);
  int exit_code = cli_result_exit(result);
  diff_result_free(result);
  if (cli_output_close(&out, status != FORMAT_OK ? error.message : NULL) != CLI_EXIT_OK)
    return CLI_EXIT_RUNTIME;
  return exit_code;
}

int cmd_report(int argc, char **argv)
{
  struct cli_args args;
  enum report_format format = REPORT_FORMAT_TEXT;
  const char *output = NULL, *input = NULL, *format_name = NULL, *allow_path = NULL;
  const char *by_name = NULL;
  enum diff_by by = DIFF_BY_SITE;
  struct report_options options = {0, NULL, 0, 0};
  int options_done = 0, warmup_given = 0, values = 0;
  size_t warmup = 0;
  cli_args_init(&args, "report", report_usage_line, argc, argv);
  for (; args.index < argc && !args.failed; args.index++) {
    const char *arg = argv[args.index];
    if (!options_done && (!strcmp(arg, "-h") || !strcmp(arg, "--help"))) {
      cli_help(&args, report_help);
      return CLI_EXIT_OK;
    }
    if (!options_done && !strcmp(arg, "--")) {
      options_done = 1;
    } else if (!options_done && cli_option_text(&args, "--format", &format_name)) {
      if (format_name && report_format_parse(format_name, &format) < 0)
        cli_bad_value(&args, "--format", format_name,
                      "text, html, json, junit, markdown, pprof or folded");
    } else if (!options_done && !strcmp(arg, "--pprof-growth")) {
      options.growth = 1;
    } else if (!options_done && !strcmp(arg, "--values")) {
      values = 1;
    } else if (!options_done && cli_option_text(&args, "--by", &by_name)) {
      if (by_name && diff_by_parse(by_name, &by) < 0)
        cli_bad_value(&args, "--by", by_name, "site or stack");
    } else if (!options_done && cli_option_count(&args, "--boundary", 1, SIZE_MAX, &options.boundary)) {
      /* checked against the result's boundaries when rendered */
    } else if (!options_done && (cli_option_text(&args, "--output", &output) ||
                                 cli_option_text(&args, "-o", &output) ||
                                 cli_option_text(&args, "--source-root", &options.source_root) ||
                                 cli_option_text(&args, "--allow", &allow_path))) {
      /* the value is in place, or the error reported */
    } else if (!options_done && cli_option_count(&args, "--warmup", 0, SIZE_MAX, &warmup)) {
      warmup_given = 1;
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
  struct diff_allow *allow = NULL;
  struct format_error err;
  int failed = allow_path ? report_failure(&args, diff_allow_load(allow_path, &allow, &err), &err)
                          : -1;
  if (failed >= 0)
    return failed;

  struct diff_result result;
  if (diff_result_read_json(input, &result, &err) != FORMAT_OK) {
    /* It may quote the result (a name, a path): escaped for the terminal. */
    char shown[UTF8_TERMINAL_SIZE(sizeof err.message)];
    fprintf(stderr, "ljleak report: error: %s\n", utf8_terminal_text(shown, sizeof shown, err.message));
    diff_allow_free(allow);
    return CLI_EXIT_INPUT;
  }
  if (!values)  /* they can be secrets: shown only when asked for again */
    diff_values_drop(&result);
  if (by == DIFF_BY_STACK)
    diff_result_by_stack(&result);
  if (warmup_given || allow) {
    failed = report_decide(&args, &result, warmup_given, warmup, allow);
    diff_allow_free(allow);
    if (failed >= 0) {
      diff_result_free(&result);
      return failed;
    }
  }
  return report_write(&result, format, &options, output);
}
