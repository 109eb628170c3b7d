/* cli/diff.c: ljleak diff: growing sites in a capture, between two boundaries, or against a base build. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "diff/diff.h"
#include "format/utf8.h"
#include "report/report.h"

static const char diff_usage_line[] =
    "usage: ljleak diff [OPTIONS] CAPTURE\n"
    "   or: ljleak diff [OPTIONS] --from I --to J CAPTURE\n"
    "   or: ljleak diff [OPTIONS] --base BASE_CAPTURE CAPTURE\n";

/* What --help prints after the usage line. */
static const char diff_help[] =
    "\n"
    "Finds the sites whose live memory keeps growing across the boundaries of a\n"
    "capture. CAPTURE is a capture directory (with its index, or its *.bin,\n"
    "*.memprof and *.gz segments in name order) or segment files in order.\n"
    "\n"
    "    --from I --to J       what each site holds at boundary J against boundary I\n"
    "                          (1-based); growing when it rose by the growth threshold\n"
    "    --base BASE_CAPTURE   compare with a base build: sites growing only in CAPTURE\n"
    "                          are new, sites growing --worse-ratio times faster are worse\n"
    "    --format FORMAT       text (default), html, json, junit, markdown, pprof\n"
    "                          (gzipped profile.proto by stack) or folded (stacks)\n"
    "    --by site|stack       rows and verdicts by site (default, each with the\n"
    "                          stacks that hold its growth) or by call stack\n"
    "    --boundary K          pprof, folded: live bytes at boundary K (default: last)\n"
    "    --pprof-growth        pprof, folded: growth from the first judged boundary\n"
    "                          to K is the profile's default value (else in-use)\n"
    "    -o, --output FILE     write the report to FILE instead of stdout\n"
    "    -j, --jobs N          read N segments in parallel (default 1)\n"
    "    --strict              a cut segment is an error (exit 3)\n"
    "    --forced-only         only the boundaries of cycles the collector forced\n"
    "                          (exact; by work alike in two builds with --every)\n"
    "    --floors-from-lows    judge a buffer filled and flushed on its lows alone,\n"
    "                          without the second reading that measures what\n"
    "                          survived each flush (faster; more false alarms)\n"
    "    --no-holders          read no heap snapshot: no holder paths, growing\n"
    "                          containers or leak suspects (faster, less memory)\n"
    "    --values              show a few values under each leak suspect: the first\n"
    "                          bytes of its strings, its container's first keys\n"
    "                          (captured with ljleak run --values). Values can be\n"
    "                          secrets: never shown without this option\n"
    "    --warmup N            leave the first N boundaries (caches filling) out of\n"
    "                          the verdicts; the reports still show them\n"
    "    --allow FILE          sites that may grow within a budget, one rule a line:\n"
    "                          PATTERN BUDGET # WHY (4k/boundary or 1k/MB)\n"
    "    --min-boundaries N    judge trends from N boundaries on (default: what\n"
    "                          --p-value needs, 5 at 0.01; fewer is an error)\n"
    "    --p-value P           significance of the upward trend (default 0.01)\n"
    "    --min-growth BYTES    growth over the capture that matters (default 4096);\n"
    "                          BYTES may end in k, M or G (4k is 4096)\n"
    "    --min-growth-fraction F  ... and at least F of the site's peak (default 0.1)\n"
    "    --worse-ratio R       base mode: how much faster is worse (default 2)\n"
    "    -q, --quiet           no progress bar\n"
    "    -h, --help            show this help\n"
    "\n"
    "exit status: 0 nothing flagged, 1 a site is flagged (growing; with --base,\n"
    "new or worse), 5 inconclusive (nothing flagged, but a site rose and the\n"
    "boundaries cannot show whether it keeps growing, or there is no boundary),\n"
    "2 usage error (a malformed --allow file too), 3 unreadable input (or a cut\n"
    "segment with --strict), 4 out of memory or the output could not be written.\n";

static void diff_warn(void *context, const char *message)
{
  (void)context;
  char shown[UTF8_TERMINAL_SIZE(1024)];  /* names from the capture, escaped */
  fprintf(stderr, "ljleak diff: warning: %s\n", utf8_terminal_text(shown, sizeof shown, message));
}

struct diff_command {
  struct diff_options options;
  enum report_format format;
  const char *output, *base;
  int range_given, quiet;
  size_t boundary;            /* --boundary, 0: the last */
  int growth;                 /* --pprof-growth */
  const char **paths;
  size_t path_count;
  struct diff_allow *allow;   /* --allow, owned */
};

int cli_exit_for(enum format_status status)
{
  switch (status) {
  case FORMAT_OK:
    return CLI_EXIT_OK;
  case FORMAT_USAGE:
    return CLI_EXIT_USAGE;
  case FORMAT_NO_MEMORY:
    return CLI_EXIT_RUNTIME;
  default:
    return CLI_EXIT_INPUT;
  }
}

int cli_result_exit(const struct diff_result *result)
{
  switch (result->facts.outcome) {
  case DIFF_OUTCOME_FLAGGED:
    return CLI_EXIT_FLAGGED;
  case DIFF_OUTCOME_INCONCLUSIVE:
    return CLI_EXIT_INCONCLUSIVE;
  default:
    return CLI_EXIT_OK;
  }
}

/* --min-boundaries may only raise what --p-value needs; --p-value 0 could
 * never be reached. Returns -1, or the usage error's exit code. */
static int diff_check_significance(struct cli_args *args, const struct diff_options *o,
                                   int min_given)
{
  if (!(o->max_p_value > 0))
    return cli_usage_error(args, "--p-value must be above 0: no trend could ever reach 0");
  size_t needed = diff_trend_boundaries_needed(o->max_p_value);
  if (min_given && o->min_boundaries < needed)
    return cli_usage_error(args,
                           "--min-boundaries %zu is below %zu, the fewest boundaries at which "
                           "a trend can reach --p-value %g; give %zu or more, or a larger "
                           "--p-value",
                           o->min_boundaries, needed, o->max_p_value, needed);
  return -1;
}

/* An option without a value (--strict, --quiet, ...) set in command: 1, or 0 when arg is none. */
static int diff_flag(const char *arg, struct diff_command *command)
{
  struct diff_options *o = &command->options;
  if (!strcmp(arg, "--strict"))
    o->strict = 1;
  else if (!strcmp(arg, "--forced-only"))
    o->forced_only = 1;
  else if (!strcmp(arg, "--floors-from-lows"))
    o->floors_from_lows = 1;
  else if (!strcmp(arg, "--no-holders"))
    o->no_holders = 1;
  else if (!strcmp(arg, "--values"))
    o->values = 1;
  else if (!strcmp(arg, "-q") || !strcmp(arg, "--quiet"))
    command->quiet = 1;
  else if (!strcmp(arg, "--pprof-growth"))
    command->growth = 1;
  else
    return 0;
  return 1;
}

/* --allow's file into command: -1 when read, else an exit code. */
static int diff_load_allow(struct cli_args *args, const char *allow_path, struct diff_command *command)
{
  struct format_error err;
  enum format_status status = diff_allow_load(allow_path, &command->allow, &err);
  if (status == FORMAT_NO_MEMORY) {
    fputs("ljleak diff: out of memory\n", stderr);
    return CLI_EXIT_RUNTIME;
  }
  if (status != FORMAT_OK)
    return cli_usage_error(args, "%s", err.message);
  command->options.allow = command->allow;
  return -1;
}

/* Parses argv into command; returns -1 on success, else an exit code. */
static int diff_parse(int argc, char **argv, struct diff_command *command)
{
  struct cli_args args;
  struct diff_options *o = &command->options;
  int options_done = 0, from_given = 0, to_given = 0, min_given = 0;
  const char *format = NULL, *allow_path = NULL, *by = NULL;
  size_t jobs = (size_t)o->jobs;
  cli_args_init(&args, "diff", diff_usage_line, argc, argv);
  for (; args.index < argc && !args.failed; args.index++) {
    const char *arg = argv[args.index];
    if (options_done || arg[0] != '-' || !strcmp(arg, "-")) {
      command->paths[command->path_count++] = arg;
    } else if (!strcmp(arg, "--")) {
      options_done = 1;
    } else if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
      cli_help(&args, diff_help);
      return CLI_EXIT_OK;
    } else if (diff_flag(arg, command)) {
      /* set */
    } else if (cli_option_text(&args, "--by", &by)) {
      if (by && diff_by_parse(by, &o->by) < 0)
        cli_bad_value(&args, "--by", by, "site or stack");
    } else if (cli_option_count(&args, "--boundary", 1, SIZE_MAX, &command->boundary)) {
      /* checked against the capture's boundaries when rendered */
    } else if (cli_option_text(&args, "--format", &format)) {
      if (format && report_format_parse(format, &command->format) < 0)
        cli_bad_value(&args, "--format", format,
                      "text, html, json, junit, markdown, pprof or folded");
    } else if (cli_option_text(&args, "--output", &command->output) ||
               cli_option_text(&args, "-o", &command->output) ||
               cli_option_text(&args, "--base", &command->base) ||
               cli_option_count(&args, "--jobs", 1, 256, &jobs) ||
               cli_option_count(&args, "-j", 1, 256, &jobs) ||
               cli_option_count(&args, "--warmup", 0, SIZE_MAX, &o->warmup) ||
               cli_option_text(&args, "--allow", &allow_path) ||
               cli_option_number(&args, "--p-value", 1, &o->max_p_value) ||
               cli_option_bytes(&args, "--min-growth", &o->min_growth_bytes) ||
               cli_option_number(&args, "--min-growth-fraction", 1, &o->min_growth_fraction) ||
               cli_option_number(&args, "--worse-ratio", HUGE_VAL, &o->worse_ratio)) {
      /* the value is in place, or the error reported */
    } else if (cli_option_count(&args, "--min-boundaries", 0, SIZE_MAX, &o->min_boundaries)) {
      min_given = 1;
    } else if (cli_option_count(&args, "--from", 0, SIZE_MAX, &o->range_from)) {
      from_given = 1;
    } else if (cli_option_count(&args, "--to", 0, SIZE_MAX, &o->range_to)) {
      to_given = 1;
    } else {
      cli_unknown_option(&args);
    }
  }
  if (args.failed)
    return CLI_EXIT_USAGE;
  o->jobs = (int)jobs;
  if (from_given != to_given)
    return cli_usage_error(&args, "--from and --to go together");
  command->range_given = from_given;
  if (command->range_given && command->base)
    return cli_usage_error(&args, "--from/--to and --base cannot be combined");
  if (command->range_given && o->warmup)
    return cli_usage_error(&args, "--warmup and --from/--to cannot be combined: a range names "
                                  "its boundaries");
  if (!command->path_count)
    return cli_usage_error(&args, "no capture given");
  int checked = diff_check_significance(&args, o, min_given);
  if (checked >= 0)
    return checked;
  return allow_path ? diff_load_allow(&args, allow_path, command) : -1;
}

static int diff_render(const struct diff_command *command, const struct diff_result *result)
{
  struct cli_output output;
  if (cli_output_open(&output, "diff", command->output) != CLI_EXIT_OK)
    return CLI_EXIT_RUNTIME;
  struct report_options options = {0, NULL, command->boundary, command->growth};
  options.color = command->format == REPORT_FORMAT_TEXT && report_color_wanted(output.file);
  struct format_error error;
  enum format_status status = report_render(result, command->format, &options, output.file, &error);
  if (cli_output_close(&output, status != FORMAT_OK ? error.message : NULL) != CLI_EXIT_OK)
    return CLI_EXIT_RUNTIME;
  return cli_result_exit(result);
}

int cmd_diff(int argc, char **argv)
{
  struct diff_command command;
  memset(&command, 0, sizeof command);
  diff_options_default(&command.options);
  command.format = REPORT_FORMAT_TEXT;
  command.paths = malloc((size_t)(argc > 0 ? argc : 1) * sizeof *command.paths);
  if (!command.paths) {
    fputs("ljleak diff: out of memory\n", stderr);
    return CLI_EXIT_RUNTIME;
  }
  int parsed = diff_parse(argc, argv, &command);
  if (parsed >= 0) {
    free(command.paths);
    diff_allow_free(command.allow);
    return parsed;
  }
  struct report_progress *progress = command.quiet ? NULL : report_progress_new(stderr);
  if (progress) {
    command.options.progress = report_progress_update;
    command.options.progress_context = progress;
  }
  command.options.warn = diff_warn;

  struct diff_result result;
  struct format_error err;
  enum format_status status;
  if (command.base) {
    const char *base_paths[1] = {command.base};
    status = diff_base(base_paths, 1, command.paths, command.path_count, &command.options,
                       &result, &err);
  } else if (command.range_given) {
    status = diff_range(command.paths, command.path_count, &command.options, &result, &err);
  } else {
    status = diff_trend(command.paths, command.path_count, &command.options, &result, &err);
  }
  report_progress_free(progress);
  free(command.paths);
  diff_allow_free(command.allow);
  if (status != FORMAT_OK) {
    char shown[UTF8_TERMINAL_SIZE(sizeof err.message)];
    fprintf(stderr, "ljleak diff: error: %s\n", utf8_terminal_text(shown, sizeof shown, err.message));
    if (status == FORMAT_USAGE)
      fputs(diff_usage_line, stderr);
    return cli_exit_for(status);
  }
  int exit_code = diff_render(&command, &result);
  diff_result_free(&result);
  return exit_code;
}
