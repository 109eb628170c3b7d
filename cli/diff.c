/* cli/diff.c: ljleak diff: growing sites in a capture, between two boundaries, or against a base build. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "diff/diff.h"
#include "report/report.h"

static const char diff_usage_line[] =
    "usage: ljleak diff [OPTIONS] CAPTURE\n"
    "   or: ljleak diff [OPTIONS] --from I --to J CAPTURE\n"
    "   or: ljleak diff [OPTIONS] --base BASE_CAPTURE CAPTURE\n";

static void diff_usage(FILE *out)
{
  fputs(diff_usage_line, out);
  fputs("\n"
        "Finds the sites whose live memory keeps growing across the boundaries of a\n"
        "capture. CAPTURE is a capture directory (with its index, or its *.bin,\n"
        "*.memprof and *.gz segments in name order) or segment files in order.\n"
        "\n"
        "    --from I --to J       what each site holds at boundary J against boundary I\n"
        "                          (1-based); growing when it rose by the growth threshold\n"
        "    --base BASE_CAPTURE   compare with a base build: sites growing only in CAPTURE\n"
        "                          are new, sites growing --worse-ratio times faster are worse\n"
        "    --format FORMAT       text (default), html, json, junit or markdown\n"
        "    -o, --output FILE     write the report to FILE instead of stdout\n"
        "    -j, --jobs N          read N segments in parallel (default 1)\n"
        "    --strict              a cut segment is an error (exit 3)\n"
        "    --min-boundaries N    fewer boundaries give 'insufficient' (default 4)\n"
        "    --p-value P           significance of the upward trend (default 0.01)\n"
        "    --min-growth BYTES    growth over the capture that matters (default 4096)\n"
        "    --min-growth-fraction F  ... and at least F of the site's peak (default 0.1)\n"
        "    --worse-ratio R       base mode: how much faster is worse (default 2)\n"
        "    -q, --quiet           no progress bar\n"
        "    -h, --help            show this help\n"
        "\n"
        "exit status: 0 nothing flagged, 1 a site is flagged (growing; with --base,\n"
        "new or worse), 2 usage error, 3 unreadable input (or a cut segment with\n"
        "--strict), 4 out of memory or the output could not be written.\n",
        out);
}

static int diff_usage_error(const char *message, const char *argument)
{
  fprintf(stderr, "ljleak diff: %s%s\n", message, argument);
  fputs(diff_usage_line, stderr);
  return CLI_EXIT_USAGE;
}


static int diff_parse_size(const char *text, size_t *out)
{
  char *end;
  errno = 0;
  unsigned long long value = text ? strtoull(text, &end, 10) : 0;
  if (!text || !*text || *end || errno || text[0] == '-')
    return -1;
  *out = (size_t)value;
  return 0;
}

static int diff_parse_double(const char *text, double *out)
{
  char *end;
  errno = 0;
  double value = text ? strtod(text, &end) : 0;
  if (!text || !*text || *end || errno || value < 0)
    return -1;
  *out = value;
  return 0;
}

static void diff_warn(void *context, const char *message)
{
  (void)context;
  fprintf(stderr, "ljleak diff: warning: %s\n", message);
}

static int diff_exit_for(enum diff_status status)
{
  switch (status) {
  case DIFF_OK:
    return CLI_EXIT_OK;
  case DIFF_ERROR_USAGE:
    return CLI_EXIT_USAGE;
  case DIFF_ERROR_MEMORY:
    return CLI_EXIT_RUNTIME;
  default:
    return CLI_EXIT_INPUT;
  }
}

struct diff_command {
  struct diff_options options;
  enum report_format format;
  const char *output, *base;
  int range_given, quiet;
  const char **paths;
  size_t path_count;
};

/* Parses argv into command; returns -1 on success, else an exit code. */
static int diff_parse(int argc, char **argv, struct diff_command *command)
{
  int options_done = 0, from_given = 0, to_given = 0;
  const char *value;
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i];
    struct diff_options *o = &command->options;
    if (options_done || arg[0] != '-' || !strcmp(arg, "-")) {
      command->paths[command->path_count++] = arg;
    } else if (!strcmp(arg, "--")) {
      options_done = 1;
    } else if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
      diff_usage(stdout);
      return CLI_EXIT_OK;
    } else if (!strcmp(arg, "--strict")) {
      o->strict = 1;
    } else if (!strcmp(arg, "-q") || !strcmp(arg, "--quiet")) {
      command->quiet = 1;
    } else if (cli_option_value(argc, argv, &i, "--format", &value)) {
      if (!value || report_format_parse(value, &command->format) < 0)
        return diff_usage_error("--format needs text, html, json, junit or markdown: ",
                                value ? value : "");
    } else if (cli_option_value(argc, argv, &i, "--output", &value) ||
               cli_option_value(argc, argv, &i, "-o", &value)) {
      if (!value)
        return diff_usage_error("-o needs a file name", "");
      command->output = value;
    } else if (cli_option_value(argc, argv, &i, "--base", &value)) {
      if (!value)
        return diff_usage_error("--base needs a capture", "");
      command->base = value;
    } else if (cli_option_value(argc, argv, &i, "--jobs", &value) ||
               cli_option_value(argc, argv, &i, "-j", &value)) {
      size_t jobs;
      if (diff_parse_size(value, &jobs) < 0 || jobs < 1 || jobs > 256)
        return diff_usage_error("-j needs a number from 1 to 256: ", value ? value : "");
      o->jobs = (int)jobs;
    } else if (cli_option_value(argc, argv, &i, "--from", &value)) {
      if (diff_parse_size(value, &o->range_from) < 0)
        return diff_usage_error("--from needs a boundary number: ", value ? value : "");
      from_given = 1;
    } else if (cli_option_value(argc, argv, &i, "--to", &value)) {
      if (diff_parse_size(value, &o->range_to) < 0)
        return diff_usage_error("--to needs a boundary number: ", value ? value : "");
      to_given = 1;
    } else if (cli_option_value(argc, argv, &i, "--min-boundaries", &value)) {
      if (diff_parse_size(value, &o->min_boundaries) < 0)
        return diff_usage_error("--min-boundaries needs a number: ", value ? value : "");
    } else if (cli_option_value(argc, argv, &i, "--p-value", &value)) {
      if (diff_parse_double(value, &o->max_p_value) < 0 || o->max_p_value > 1)
        return diff_usage_error("--p-value needs a number from 0 to 1: ", value ? value : "");
    } else if (cli_option_value(argc, argv, &i, "--min-growth", &value)) {
      if (diff_parse_double(value, &o->min_growth_bytes) < 0)
        return diff_usage_error("--min-growth needs a byte count: ", value ? value : "");
    } else if (cli_option_value(argc, argv, &i, "--min-growth-fraction", &value)) {
      if (diff_parse_double(value, &o->min_growth_fraction) < 0 || o->min_growth_fraction > 1)
        return diff_usage_error("--min-growth-fraction needs a number from 0 to 1: ",
                                value ? value : "");
    } else if (cli_option_value(argc, argv, &i, "--worse-ratio", &value)) {
      if (diff_parse_double(value, &o->worse_ratio) < 0)
        return diff_usage_error("--worse-ratio needs a number: ", value ? value : "");
    } else {
      return diff_usage_error("unknown option: ", arg);
    }
  }
  if (from_given != to_given)
    return diff_usage_error("--from and --to go together", "");
  command->range_given = from_given;
  if (command->range_given && command->base)
    return diff_usage_error("--from/--to and --base cannot be combined", "");
  if (!command->path_count)
    return diff_usage_error("no capture given", "");
  return -1;
}

static int diff_render(const struct diff_command *command, const struct diff_result *result)
{
  FILE *out = stdout;
  if (command->output && strcmp(command->output, "-") != 0) {
    out = fopen(command->output, "w");
    if (!out) {
      fprintf(stderr, "ljleak diff: error: %s: %s\n", command->output, strerror(errno));
      return CLI_EXIT_RUNTIME;
    }
  }
  struct report_options options = {0, NULL};
  options.color = command->format == REPORT_FORMAT_TEXT && report_color_wanted(out);
  char error[512];
  int status = report_render(result, command->format, &options, out, error, sizeof error);
  if (out != stdout && fclose(out) != 0 && status == 0) {
    snprintf(error, sizeof error, "%s: %s", command->output, strerror(errno));
    status = -1;
  } else if (out == stdout && fflush(stdout) != 0 && status == 0) {
    snprintf(error, sizeof error, "stdout: %s", strerror(errno));
    status = -1;
  }
  if (status < 0) {
    fprintf(stderr, "ljleak diff: error: %s\n", error);
    return CLI_EXIT_RUNTIME;
  }
  return result->flagged ? CLI_EXIT_FLAGGED : CLI_EXIT_OK;
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
    return parsed;
  }
  struct report_progress *progress = command.quiet ? NULL : report_progress_new(stderr);
  if (progress) {
    command.options.progress = report_progress_update;
    command.options.progress_context = progress;
  }
  command.options.warn = diff_warn;

  struct diff_result result;
  struct diff_error err;
  enum diff_status status;
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
  if (status != DIFF_OK) {
    fprintf(stderr, "ljleak diff: error: %s\n", err.message);
    if (status == DIFF_ERROR_USAGE)
      fputs(diff_usage_line, stderr);
    return diff_exit_for(status);
  }
  int exit_code = diff_render(&command, &result);
  diff_result_free(&result);
  return exit_code;
}
