/* cli/info.c: ljleak info: what a capture's index says, as KEY=VALUE lines or JSON, for people and scripts. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "format/capture_files.h"
#include "format/json_write.h"
#include "format/utf8.h"

static const char info_usage_line[] =
    "usage: ljleak info [--format text|json] [--get KEY]... CAPTURE_DIR\n";

/* What --help prints after the usage line. */
static const char info_help[] =
    "\n"
    "Prints what a capture's index says: the capture's metadata, how many\n"
    "segments and boundaries it lists, their events and bytes summed, whether\n"
    "and why it stopped. Text is one KEY=VALUE line per key the index has,\n"
    "values escaped as in the index (\\\\, \\t, \\n), and control characters,\n"
    "bidi controls and bytes that are not UTF-8 as \\xHH or \\uHHHH; files are\n"
    "tab-separated.\n"
    "\n"
    "    --format FORMAT   text (default) or json\n"
    "    --get KEY         print only the value of KEY, or an empty line when the\n"
    "                      index does not have it; repeatable, one line each\n"
    "    -h, --help        show this help\n"
    "\n"
    "keys: version pid host exe ppid command luajit start sample period max_bytes gzip\n"
    "      stacks\n"
    "      luajit_flavour luajit_package luajit_package_version\n"
    "      segments boundaries events bytes trace_events trace_lines heap_bytes files\n"
    "      snapshots snapshot_files (heap snapshots; `ljleak snapshot FILE` prints one)\n"
    "      stopped stop_time stop_reason last_line_cut\n"
    "\n"
    "exit status: 0 success, 2 usage error, 3 no capture there (no index, or one\n"
    "without its header) or a malformed index (the message gives the byte\n"
    "offset), 4 the output could not be written.\n";

enum info_type { INFO_NUMBER, INFO_TEXT, INFO_FLAG, INFO_FILES, INFO_SNAPSHOT_FILES };

/* One key of the output: its value as text, and what JSON makes of it. */
struct info_entry {
  const char *key;
  enum info_type type;
  int present;
  char number[64];          /* NUMBER: as the index writes it */
  int not_finite;           /* NUMBER: JSON has no nan or inf: null */
  const char *text;         /* TEXT */
  int flag;                 /* FLAG: 0 or 1 */
  const struct capture_index *index;  /* FILES: its segments' files */
};

static const char *const info_keys[] = {
  "version", "pid", "host", "exe", "ppid", "command", "luajit", "start", "sample", "period",
  "max_bytes", "gzip", "stacks",
  "luajit_flavour", "luajit_package", "luajit_package_version",
  "segments", "boundaries", "events", "bytes", "trace_events", "trace_lines", "heap_bytes", "files",
  "snapshots", "snapshot_files", "stopped", "stop_time", "stop_reason", "last_line_cut"
};
#define INFO_KEY_COUNT (sizeof info_keys / sizeof info_keys[0])

static struct info_entry *info_entry(struct info_entry *entries, const char *key)
{
  for (size_t i = 0; i < INFO_KEY_COUNT; i++)
    if (!strcmp(entries[i].key, key))
      return &entries[i];
  return NULL;
}

static void info_u64(struct info_entry *entries, const char *key, int present, unsigned long long value)
{
  struct info_entry *e = info_entry(entries, key);
  e->present = present;
  snprintf(e->number, sizeof e->number, "%llu", value);
}

/* A time as the index writes it (%.3f), or a period (%g). */
static void info_double(struct info_entry *entries, const char *key, int present, const char *format,
                        double value)
{
  struct info_entry *e = info_entry(entries, key);
  e->present = present;
  e->not_finite = !isfinite(value);
  snprintf(e->number, sizeof e->number, format, value);
}

static void info_text(struct info_entry *entries, const char *key, const char *value)
{
  struct info_entry *e = info_entry(entries, key);
  e->type = INFO_TEXT;
  e->present = value != NULL;
  e->text = value;
}

static void info_flag(struct info_entry *entries, const char *key, int present, int value)
{
  struct info_entry *e = info_entry(entries, key);
  e->type = INFO_FLAG;
  e->present = present;
  e->flag = value;
}

static void info_fill(struct info_entry *entries, const struct capture_index *index)
{
  memset(entries, 0, INFO_KEY_COUNT * sizeof *entries);
  for (size_t i = 0; i < INFO_KEY_COUNT; i++)
    entries[i].key = info_keys[i];
  const struct capture_index_capture *c = &index->capture;
  unsigned has = c->keys;
  info_u64(entries, "version", index->version != 0, index->version);
  struct info_entry *pid = info_entry(entries, "pid");
  pid->present = (has & CAPTURE_INDEX_CAPTURE_HAS_PID) != 0;
  snprintf(pid->number, sizeof pid->number, "%ld", c->pid);
  info_text(entries, "host", c->host);
  info_text(entries, "exe", c->exe);
  struct info_entry *ppid = info_entry(entries, "ppid");
  ppid->present = (has & CAPTURE_INDEX_CAPTURE_HAS_PPID) != 0;
  snprintf(ppid->number, sizeof ppid->number, "%ld", c->ppid);
  info_text(entries, "command", c->command);
  info_text(entries, "luajit", c->luajit);
  info_double(entries, "start", (has & CAPTURE_INDEX_CAPTURE_HAS_START) != 0, "%.3f", c->start);
  info_u64(entries, "sample", (has & CAPTURE_INDEX_CAPTURE_HAS_SAMPLE) != 0, c->sample);
  info_double(entries, "period", (has & CAPTURE_INDEX_CAPTURE_HAS_PERIOD) != 0, "%g", c->period);
  info_u64(entries, "max_bytes", (has & CAPTURE_INDEX_CAPTURE_HAS_MAX_BYTES) != 0, c->max_bytes);
  info_flag(entries, "gzip", (has & CAPTURE_INDEX_CAPTURE_HAS_GZIP) != 0, c->gzip);
  info_u64(entries, "stacks", (has & CAPTURE_INDEX_CAPTURE_HAS_STACKS) != 0, c->stacks);
  info_text(entries, "luajit_flavour", c->luajit_flavour);
  info_text(entries, "luajit_package", c->luajit_package);
  info_text(entries, "luajit_package_version", c->luajit_package_version);
  info_u64(entries, "segments", 1, index->segment_count);
  info_u64(entries, "boundaries", 1, index->boundary_count);
  /* The segment lines summed, for scripts that would add them up from the index. */
  uint64_t events = 0, bytes = 0, trace_events = 0, trace_lines = 0;
  unsigned traced = 0;
  for (size_t i = 0; i < index->segment_count; i++) {
    const struct capture_index_segment *s = &index->segments[i];
    events += s->events;
    bytes += s->bytes;
    trace_events += s->trace_events;
    trace_lines += s->trace_lines;
    traced |= s->keys & (CAPTURE_INDEX_SEGMENT_HAS_TRACE_EVENTS | CAPTURE_INDEX_SEGMENT_HAS_TRACE_LINES);
  }
  info_u64(entries, "events", 1, events);
  info_u64(entries, "bytes", 1, bytes);
  info_u64(entries, "trace_events", (traced & CAPTURE_INDEX_SEGMENT_HAS_TRACE_EVENTS) != 0, trace_events);
  info_u64(entries, "trace_lines", (traced & CAPTURE_INDEX_SEGMENT_HAS_TRACE_LINES) != 0, trace_lines);
  const struct capture_index_segment *last =
      index->segment_count ? &index->segments[index->segment_count - 1] : NULL;
  info_u64(entries, "heap_bytes", last && (last->keys & CAPTURE_INDEX_SEGMENT_HAS_HEAP_BYTES),
           last ? last->heap_bytes : 0);
  struct info_entry *files = info_entry(entries, "files");
  files->type = INFO_FILES;
  files->present = index->segment_count != 0;
  files->index = index;
  info_u64(entries, "snapshots", 1, index->snapshot_count);
  struct info_entry *snapshot_files = info_entry(entries, "snapshot_files");
  snapshot_files->type = INFO_SNAPSHOT_FILES;
  snapshot_files->present = index->snapshot_count != 0;
  snapshot_files->index = index;
  info_flag(entries, "stopped", 1, index->has_stop);
  info_double(entries, "stop_time", (index->stop.keys & CAPTURE_INDEX_STOP_HAS_TIME) != 0, "%.3f",
              index->stop.time);
  info_text(entries, "stop_reason", index->stop.reason);
  info_flag(entries, "last_line_cut", 1, index->last_line_cut);
}

/* A text value with the index's escapes (\\, \t, \n), and what a terminal
 * must not be shown raw escaped as well (\x1b, \u202e, \x9b; format/utf8.h):
 * one value, one line, whatever the process wrote. */
static void info_put_escaped(FILE *out, const char *text)
{
  utf8_put_terminal(out, text, strlen(text), UTF8_TERMINAL_FIELD);
}

static void info_put_value(FILE *out, const struct info_entry *e)
{
  if (!e->present)
    return;
  if (e->type == INFO_TEXT) {
    info_put_escaped(out, e->text);
  } else if (e->type == INFO_FILES || e->type == INFO_SNAPSHOT_FILES) {
    int segments = e->type == INFO_FILES;
    size_t count = segments ? e->index->segment_count : e->index->snapshot_count;
    for (size_t i = 0; i < count; i++) {
      if (i)
        fputc('\t', out);
      info_put_escaped(out, segments ? e->index->segments[i].file : e->index->snapshots[i].file);
    }
  } else if (e->type == INFO_FLAG) {
    fputc(e->flag ? '1' : '0', out);
  } else {
    fputs(e->number, out);
  }
}

static void info_put_json(FILE *out, const struct info_entry *entries)
{
  struct json_writer writer = {.out = out};
  json_write_open(&writer, '{');
  for (size_t i = 0; i < INFO_KEY_COUNT; i++) {
    const struct info_entry *e = &entries[i];
    if (!e->present)
      continue;
    json_write_key(&writer, e->key);
    if (e->type == INFO_TEXT) {
      json_write_string(out, e->text);
    } else if (e->type == INFO_FILES || e->type == INFO_SNAPSHOT_FILES) {
      int segments = e->type == INFO_FILES;
      size_t count = segments ? e->index->segment_count : e->index->snapshot_count;
      for (size_t j = 0; j < count; j++) {
        fputs(j ? ", " : "[", out);
        json_write_string(out, segments ? e->index->segments[j].file : e->index->snapshots[j].file);
      }
      fputc(']', out);
    } else if (e->type == INFO_FLAG) {
      fputs(e->flag ? "true" : "false", out);
    } else {
      fputs(e->not_finite ? "null" : e->number, out);
    }
  }
  json_write_close(&writer, '}');
  fputc('\n', out);
}

/* Reads the capture DIRECTORY (format/capture_files.h) for its index; returns CLI_EXIT_OK, or
 * prints why it is no capture (files released then). */
static int info_read(const char *directory, struct capture_files *files)
{
  struct format_error error;
  enum format_status status = capture_files_open(files, directory, &error);
  const char *why = status != FORMAT_OK ? error.message : !files->has_index ? files->index_error.message : NULL;
  int code = status == FORMAT_OK ? CLI_EXIT_INPUT : cli_exit_for(status);
  if (why) {
    char shown[UTF8_TERMINAL_SIZE(sizeof error.message)];
    fprintf(stderr, "ljleak info: error: %s\n", utf8_terminal_text(shown, sizeof shown, why));
  } else if (!files->index.has_header) {
    char shown[UTF8_TERMINAL_SIZE(4096)];
    fprintf(stderr, "ljleak info: error: %s: byte 0: no ljleak-index header (the index is empty, "
                    "or its first line was cut)\n", utf8_terminal_text(shown, sizeof shown, files->index_path));
  } else {
    return CLI_EXIT_OK;
  }
  capture_files_free(files);
  return code;
}

int cmd_info(int argc, char **argv)
{
  struct cli_args args;
  const char *format = "text", *directory = NULL;
  const char **gets = calloc((size_t)(argc > 0 ? argc : 1), sizeof *gets);
  size_t get_count = 0;
  int options_done = 0;
  if (!gets) {
    fputs("ljleak info: error: out of memory\n", stderr);
    return CLI_EXIT_RUNTIME;
  }
  cli_args_init(&args, "info", info_usage_line, argc, argv);
  for (; args.index < argc && !args.failed; args.index++) {
    const char *arg = argv[args.index], *key = NULL;
    if (!options_done && (!strcmp(arg, "-h") || !strcmp(arg, "--help"))) {
      free(gets);
      cli_help(&args, info_help);
      return CLI_EXIT_OK;
    }
    if (!options_done && !strcmp(arg, "--")) {
      options_done = 1;
    } else if (!options_done && cli_option_text(&args, "--format", &format)) {
      if (strcmp(format, "text") && strcmp(format, "json"))
        cli_bad_value(&args, "--format", format, "text or json");
    } else if (!options_done && cli_option_text(&args, "--get", &key)) {
      size_t known = 0;
      while (key && known < INFO_KEY_COUNT && strcmp(info_keys[known], key))
        known++;
      if (key && known == INFO_KEY_COUNT)
        cli_bad_value(&args, "--get", key, "a key of ljleak info --help");
      else if (key)
        gets[get_count++] = key;
    } else if (!options_done && arg[0] == '-' && arg[1] != '\0') {
      cli_unknown_option(&args);
    } else if (directory) {
      cli_usage_error(&args, "more than one capture directory: %s", arg);
    } else {
      directory = arg;
    }
  }
  if (!args.failed && !directory)
    cli_usage_error(&args, "no capture directory given");
  if (!args.failed && get_count && !strcmp(format, "json"))
    cli_usage_error(&args, "--get prints plain values: it takes no --format json");
  if (args.failed) {
    free(gets);
    return CLI_EXIT_USAGE;
  }

  struct capture_files files;
  int code = info_read(directory, &files);
  if (code != CLI_EXIT_OK) {
    free(gets);
    return code;
  }
  struct info_entry entries[INFO_KEY_COUNT];
  info_fill(entries, &files.index);
  struct cli_output out;
  code = cli_output_open(&out, "info", NULL);
  if (code == CLI_EXIT_OK) {
    if (get_count) {
      for (size_t i = 0; i < get_count; i++) {
        info_put_value(out.file, info_entry(entries, gets[i]));
        fputc('\n', out.file);
      }
    } else if (!strcmp(format, "json")) {
      info_put_json(out.file, entries);
    } else {
      for (size_t i = 0; i < INFO_KEY_COUNT; i++) {
        if (!entries[i].present)
          continue;
        fprintf(out.file, "%s=", entries[i].key);
        info_put_value(out.file, &entries[i]);
        fputc('\n', out.file);
      }
    }
    code = cli_output_close(&out, NULL);
  }
  capture_files_free(&files);
  free(gets);
  return code;
}
