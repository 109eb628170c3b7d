/* cli/merge.c: ljleak merge: a fleet's diff results (and earlier merges) in one report. */
#include <malloc.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "format/utf8.h"
#include "merge/merge.h"

static const char merge_usage_line[] =
    "usage: ljleak merge [-o FILE] [--format text|json|html|markdown|junit]\n"
    "                    [--min-captures K] [-j N] INPUT...\n";

/* What --help prints after the usage line. */
static const char merge_help[] =
    "\n"
    "Merges diff results (ljleak diff --format json), earlier merges (ljleak merge\n"
    "--format json) and directories of them (every *.json file below, in name\n"
    "order) into one report: per site, in how many captures it grew, was undecided\n"
    "or steady, its median and largest growth per boundary and per second, its live\n"
    "bytes at the last boundary summed and largest, and the same by label. Merging\n"
    "merges gives the figures of merging every result at once.\n"
    "\n"
    "    --format FORMAT     text (default), json (merges again), html, markdown, junit\n"
    "    --min-captures K    a site is flagged when it grows in at least K captures\n"
    "                        (default 1)\n"
    "    -j, --jobs N        read N inputs at once, on threads (default 1; the\n"
    "                        output is the same for any N)\n"
    "    -o, --output FILE   write to FILE instead of stdout\n"
    "    -h, --help          show this help\n"
    "\n"
    "exit status: 0 nothing flagged, 1 a site grows in at least K captures, 5\n"
    "inconclusive (nothing flagged, but a capture's own result is inconclusive), 2\n"
    "usage error, 3 an input is unreadable, malformed, of an unknown version, of\n"
    "another mode than the first, or a capture twice (the message names the file),\n"
    "4 the output could not be written.\n";

int cmd_merge(int argc, char **argv)
{
  struct cli_args args;
  enum merge_format format = MERGE_FORMAT_TEXT;
  const char *output = NULL, *format_name = NULL;
  size_t min_captures = 1, jobs = 1;
  int options_done = 0, input_count = 0;
  /* Each input is read, parsed and freed in turn, its buffers of about a
   * result's size: kept by the allocator rather than mapped and unmapped
   * for every file (page faults were a sixth of a large merge's time). */
  mallopt(M_MMAP_THRESHOLD, 64 << 20);
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
  cli_args_init(&args, "merge", merge_usage_line, argc, argv);
  for (; args.index < argc && !args.failed; args.index++) {
    const char *arg = argv[args.index];
    if (!options_done && (!strcmp(arg, "-h") || !strcmp(arg, "--help"))) {
      cli_help(&args, merge_help);
      return CLI_EXIT_OK;
    }
    if (!options_done && !strcmp(arg, "--")) {
      options_done = 1;
    } else if (!options_done && cli_option_text(&args, "--format", &format_name)) {
      if (format_name && merge_format_parse(format_name, &format) < 0)
        cli_bad_value(&args, "--format", format_name, "text, json, html, markdown or junit");
    } else if (!options_done && cli_option_count(&args, "--min-captures", 1, SIZE_MAX,
                                                 &min_captures)) {
      /* the value is in place, or the error reported */
    } else if (!options_done && (cli_option_count(&args, "--jobs", 1, MERGE_MAX_JOBS, &jobs) ||
                                 cli_option_count(&args, "-j", 1, MERGE_MAX_JOBS, &jobs))) {
      /* the value is in place, or the error reported */
    } else if (!options_done && (cli_option_text(&args, "--output", &output) ||
                                 cli_option_text(&args, "-o", &output))) {
      /* the value is in place, or the error reported */
    } else if (!options_done && arg[0] == '-' && arg[1] != '\0') {
      cli_unknown_option(&args);
    } else {
      argv[input_count++] = argv[args.index];   /* the inputs, in order, at the front */
    }
  }
  if (args.failed)
    return CLI_EXIT_USAGE;
  if (!input_count)
    return cli_usage_error(&args, "no input given");

  struct merge merge;
  struct format_error err;
  merge_init(&merge);
  enum format_status status =
      merge_add_paths(&merge, (const char *const *)argv, (size_t)input_count, jobs, &err);
  if (status == FORMAT_OK)
    status = merge_finish(&merge, min_captures, &err);
  if (status != FORMAT_OK) {
    char shown[UTF8_TERMINAL_SIZE(sizeof err.message)];
    fprintf(stderr, "ljleak merge: error: %s\n",
            status == FORMAT_NO_MEMORY ? "out of memory"
                                         : utf8_terminal_text(shown, sizeof shown, err.message));
    merge_free(&merge);
    return cli_exit_for(status);
  }
  struct cli_output out;
  if (cli_output_open(&out, "merge", output) != CLI_EXIT_OK) {
    merge_free(&merge);
    return CLI_EXIT_RUNTIME;
  }
  enum format_status rendered = merge_render(&merge, format, out.file, &err);
  int exit_code = merge.outcome == DIFF_OUTCOME_FLAGGED        ? CLI_EXIT_FLAGGED
                  : merge.outcome == DIFF_OUTCOME_INCONCLUSIVE ? CLI_EXIT_INCONCLUSIVE
                                                               : CLI_EXIT_OK;
  merge_free(&merge);
  if (cli_output_close(&out, rendered != FORMAT_OK ? err.message : NULL) != CLI_EXIT_OK)
    return CLI_EXIT_RUNTIME;
  return exit_code;
}
