/* cli/snapshot.c: ljleak snapshot: prints a heap snapshot as text, one line per object, reference and root, for debugging and tests. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "format/capture_files.h"
#include "format/capture_layout.h"
#include "format/snapshot.h"
#include "format/utf8.h"
#include "report/report.h"

/* A message that may quote the snapshot's or the index's text, escaped for
 * the terminal (format/utf8.h); one at a time. */
static const char *snapshot_shown(const char *message)
{
  static char shown[UTF8_TERMINAL_SIZE(1024)];
  return utf8_terminal_text(shown, sizeof shown, message);
}

static const char snapshot_usage_line[] = "usage: ljleak snapshot [--capture DIR] [--holders N] FILE\n";

/* What --help prints after the usage line. */
static const char snapshot_help[] =
    "\n"
    "Prints a heap snapshot (snap-NNNN.heap in a capture directory, see\n"
    "docs/snapshot-format.md) as text: a `snapshot` line with whose boundary it is\n"
    "and its totals, then one `object` line per object (address, type, bytes,\n"
    "entries, owned blocks, weak modes, name), each followed by its references\n"
    "(tab, `->`, target address, label), then one `root` line per GC root.\n"
    "Objects come in address order. Labels and names escape backslash, tab,\n"
    "newline (\\\\, \\t, \\n), other control characters, bidi controls and\n"
    "bytes that are not UTF-8 (\\xHH, \\uHHHH).\n"
    "\n"
    "    --capture DIR   the capture the snapshot must belong to (default: the\n"
    "                    directory FILE is in, when it has an index)\n"
    "    --holders N     print instead what holds the heap: the N objects that keep\n"
    "                    the most bytes alive (their retained size, share, kind and\n"
    "                    path from a root), no history needed; one that is only the\n"
    "                    way to one object below it gives its place to that object\n"
    "    -h, --help      show this help\n"
    "\n"
    "A cut snapshot prints every complete record and says on stderr that it was\n"
    "cut. exit status: 0 success (a cut file too), 2 usage error, 3 not a\n"
    "snapshot, a corrupt one, a version this ljleak does not read, or one of\n"
    "another capture (the message names the file and byte), 4 the output could\n"
    "not be written.\n";

/* The capture of dir, or of FILE's directory when dir is NULL (format/capture_files.h): 1 read,
 * with an index that names its capture; 0 none there; -1 error (said). */
static int snapshot_capture_files(const char *dir, const char *file, struct capture_files *files)
{
  char parent[4096];
  if (!dir && !capture_layout_directory_of(file, parent, sizeof parent)) {
    fprintf(stderr, "ljleak snapshot: error: %s: the path is too long\n", snapshot_shown(file));
    return -1;
  }
  struct format_error error;
  enum format_status st = capture_files_open(files, dir ? dir : parent, &error);
  if (st == FORMAT_IO && !dir)
    return 0;
  if (st != FORMAT_OK) {
    fprintf(stderr, "ljleak snapshot: error: %s\n", snapshot_shown(error.message));
    return -1;
  }
  if (files->has_index && files->index.has_capture)
    return 1;
  if (!dir)
    return 0;
  if (!files->has_index)
    fprintf(stderr, "ljleak snapshot: error: %s\n", snapshot_shown(files->index_error.message));
  else
    fprintf(stderr, "ljleak snapshot: error: %s: no capture line\n", snapshot_shown(files->index_path));
  return -1;
}

/* A label or a name, one field of a line: backslash, tab and newline escaped
 * (\\, \t, \n), other controls, bidi controls, line separators and bytes
 * that are not UTF-8 too (\xHH, \uHHHH; format/utf8.h), since keys and chunk
 * names may hold any byte. */
static void snapshot_put_text(FILE *out, const char *text)
{
  utf8_put_terminal(out, text, strlen(text), UTF8_TERMINAL_FIELD);
}

static void snapshot_print(FILE *out, const struct snapshot *s)
{
  const struct snapshot_capture *k = &s->capture;
  fprintf(out,
          "snapshot\tpid=%" PRIu64 "\tstart=%.3f\tboundary=%" PRIu64 "\tsegment=%" PRIu64 "\tevents=%" PRIu64
          "\ttime=%.3f\theap_bytes=%" PRIu64 "\tjit=%d\tobjects=%zu\treferences=%zu\troots=%zu\tobject_bytes=%" PRIu64
          "\tcomplete=%d\n",
          k->pid, (double)k->start_ms / 1000.0, k->boundary, k->segment, k->events, (double)k->time_ms / 1000.0,
          k->heap_bytes, (int)(k->flags & SNAPSHOT_CAPTURE_JIT), s->object_count, s->reference_count,
          s->root_count, s->object_bytes, s->complete);
  char label[512];
  for (size_t i = 0; i < s->object_count; i++) {
    const struct snapshot_object *o = &s->objects[i];
    fprintf(out, "object\t0x%" PRIx64 "\t%s\tsize=%" PRIu64 "\tcount=%" PRIu64, o->address,
            snapshot_type_name(o->type), o->size, snapshot_object_count(s, o));
    for (uint32_t b = 0; b < o->block_count; b++)
      fprintf(out, "%s0x%" PRIx64 ":%" PRIu64, b ? "," : "\tblocks=", s->blocks[o->first_block + b].address,
              s->blocks[o->first_block + b].size);
    if (o->flags & (SNAPSHOT_FLAG_WEAK_KEYS | SNAPSHOT_FLAG_WEAK_VALUES))
      fprintf(out, "\tweak=%s%s", o->flags & SNAPSHOT_FLAG_WEAK_KEYS ? "k" : "",
              o->flags & SNAPSHOT_FLAG_WEAK_VALUES ? "v" : "");
    if (o->name) {
      fputs("\tname=", out);
      snapshot_put_text(out, snapshot_string(s, o->name));
    }
    fputc('\n', out);
    for (size_t r = 0; r < o->reference_count; r++) {
      const struct snapshot_reference *ref = &s->references[o->first_reference + r];
      fprintf(out, "\t->\t0x%" PRIx64 "\t", snapshot_reference_target(s, ref));
      snapshot_put_text(out, snapshot_label(s, ref, label, sizeof label));
      fputs(ref->weak ? "\t(weak)\n" : "\n", out);
    }
  }
  for (size_t i = 0; i < s->root_count; i++) {
    fputs("root\t", out);
    snapshot_put_text(out, snapshot_string(s, s->roots[i].text));
    fprintf(out, "\t0x%" PRIx64 "%s\n", s->roots[i].target, s->roots[i].weak ? "\t(weak)" : "");
  }
}

/* --holders N: what holds the heap, the N objects that keep the most bytes alive. */
static int snapshot_print_holders(FILE *out, const struct snapshot *s, size_t max)
{
  struct diff_top_holder *top = calloc(max ? max : 1, sizeof *top);
  size_t count;
  uint64_t total;
  if (!top || diff_top_holders(s, top, max, &count, &total) != 0) {
    free(top);
    fputs("ljleak snapshot: error: out of memory\n", stderr);
    return CLI_EXIT_RUNTIME;
  }
  char bytes[32];
  report_format_bytes(bytes, sizeof bytes, (double)total, 0);
  fprintf(out, "heap: %s reachable from the roots, at boundary %" PRIu64 "\n", bytes,
          s->capture.boundary);
  fprintf(out, "largest holders by retained size:\n");
  for (size_t i = 0; i < count; i++) {
    report_format_bytes(bytes, sizeof bytes, (double)top[i].retained, 0);
    fprintf(out, "  %10s  %5.1f%%  %-10s ", bytes,
            total ? 100.0 * (double)top[i].retained / (double)total : 0.0, top[i].kind);
    snapshot_put_text(out, top[i].path);
    fputc('\n', out);
  }
  free(top);
  return CLI_EXIT_OK;
}

int cmd_snapshot(int argc, char **argv)
{
  struct cli_args args;
  const char *capture = NULL, *file = NULL;
  size_t holders = 0;
  cli_args_init(&args, "snapshot", snapshot_usage_line, argc, argv);
  for (; args.index < argc && !args.failed; args.index++) {
    const char *arg = argv[args.index];
    if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
      cli_help(&args, snapshot_help);
      return CLI_EXIT_OK;
    }
    if (cli_option_text(&args, "--capture", &capture)) {
      /* taken */
    } else if (cli_option_count(&args, "--holders", 1, 1000, &holders)) {
      /* taken: at least 1 */
    } else if (arg[0] == '-' && arg[1] != '\0') {
      cli_unknown_option(&args);
    } else if (file) {
      cli_usage_error(&args, "more than one snapshot file: %s", arg);
    } else {
      file = arg;
    }
  }
  if (!args.failed && !file)
    cli_usage_error(&args, "no snapshot file given");
  if (args.failed)
    return CLI_EXIT_USAGE;
  return cli_snapshot_show(file, INPUT_FILE_NAMED, capture, holders);
}

int cli_snapshot_show(const char *file, enum input_file_how how, const char *capture, size_t holders)
{
  struct snapshot s;
  struct format_error error;
  enum format_status st = snapshot_read_file(&s, file, how, &error);
  if (st != FORMAT_OK && st != FORMAT_CUT) {
    fprintf(stderr, "ljleak snapshot: error: %s\n", snapshot_shown(error.message));
    snapshot_free(&s);
    return cli_exit_for(st);
  }
  if (st == FORMAT_CUT)
    fprintf(stderr, "ljleak snapshot: warning: %s\n", snapshot_shown(error.message));
  struct capture_files files;
  int has_index = snapshot_capture_files(capture, file, &files);
  if (has_index < 0) {
    capture_files_free(&files);
    snapshot_free(&s);
    return CLI_EXIT_INPUT;
  }
  if (has_index) {
    struct format_error foreign;
    enum format_status owned = snapshot_check_capture(&s, file, (uint64_t)files.index.capture.pid,
                                                      files.index.capture.start, &foreign);
    capture_files_free(&files);
    if (owned != FORMAT_OK) {
      fprintf(stderr, "ljleak snapshot: error: %s\n", snapshot_shown(foreign.message));
      snapshot_free(&s);
      return CLI_EXIT_INPUT;
    }
  }
  capture_files_free(&files);  /* a directory with no capture (freed above when it has one) */
  struct cli_output out;
  int code = cli_output_open(&out, "snapshot", NULL);
  if (code == CLI_EXIT_OK) {
    if (holders)
      code = snapshot_print_holders(out.file, &s, holders);
    else
      snapshot_print(out.file, &s);
    int closed = cli_output_close(&out, NULL);
    code = code == CLI_EXIT_OK ? closed : code;
  }
  snapshot_free(&s);
  return code;
}
