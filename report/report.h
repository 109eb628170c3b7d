/* report/report.h: renders a diff result in seven formats (text, HTML, JSON, JUnit, Markdown,
 * pprof, folded stacks) and draws the progress bar; the JSON result is the model's (diff/diff.h). */
#ifndef LJLEAK_REPORT_REPORT_H
#define LJLEAK_REPORT_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "diff/diff.h"

enum report_format {
  REPORT_FORMAT_TEXT,
  REPORT_FORMAT_HTML,
  REPORT_FORMAT_JSON,
  REPORT_FORMAT_JUNIT,
  REPORT_FORMAT_MARKDOWN,
  REPORT_FORMAT_PPROF,        /* gzipped profile.proto, one sample per stack (report/pprof.c) */
  REPORT_FORMAT_FOLDED        /* "root;...;leaf BYTES" per stack (report/folded.c) */
};

struct report_options {
  int color;                  /* text: ANSI colour (the front end decides: a terminal and no NO_COLOR) */
  const char *source_root;    /* html: the directory Lua sources are read beneath (report_source_read);
                               * NULL: no source file is opened, the page says how to get excerpts */
  /* pprof and folded: the values of each stack. Live bytes and blocks at
   * boundary `boundary` (1-based; 0: the last), and their growth from the
   * first judged boundary (after the warm-up; range mode: --from) to it;
   * growth says which is the profile's default (pprof) or the value
   * written (folded, where only stacks that grew are written). */
  size_t boundary;
  int growth;
};

/* ---- Rendering ----------------------------------------------------------- */

/* Parses "text", "html", "json", "junit", "markdown", "pprof" or "folded"; returns 0 or -1. */
int report_format_parse(const char *name, enum report_format *format);

/* Renders result to out from its sites and its facts, which must be filled
 * (diff_result_fill_facts). Returns FORMAT_OK, or in error FORMAT_USAGE (facts
 * not filled, a format or --boundary out of range), FORMAT_NO_MEMORY, FORMAT_IO
 * (out cannot be written) or FORMAT_UNWRITABLE (pprof cannot be compressed). */
enum format_status report_render(const struct diff_result *result, enum report_format format,
                                 const struct report_options *options, FILE *out,
                                 struct format_error *error);

/* Renders the per-test result of ljleak busted (diff/tests.h) as text, JSON,
 * JUnit (one testcase per busted test) or HTML; each leaking test's own
 * result as report_render renders a run's. FORMAT_OK, or FORMAT_USAGE
 * (another format) or FORMAT_IO (out cannot be written) in error. */
struct diff_tests;
enum format_status report_tests_render(const struct diff_tests *tests, enum report_format format,
                                       const struct report_options *options, FILE *out,
                                       struct format_error *error);

/* Whether text output to out should be coloured: out is a terminal and the
 * NO_COLOR environment variable is unset or empty. */
int report_color_wanted(FILE *out);

/* ---- Pieces of text, for renderers of other stages (the merge's) ---------- */

/* "13.4 KiB", "512 B"; with sign, "+1.2 KiB" / "-3 B" / "0 B". */
void report_format_bytes(char *buffer, size_t size, double bytes, int sign);
/* "1h 02m", "1m 50s", "12.5s", "0.250s". */
void report_format_duration(char *buffer, size_t size, double seconds);
/* "1,234,567". */
void report_format_count(char *buffer, size_t size, uint64_t count);

/* What the capture's stop says about its evidence, as a warning for a header, or NULL: a
 * capture stopped by a write error or at its --max-total-bytes ran on unrecorded. */
const char *report_stop_warning(const struct diff_capture *c);
/* when (seconds since the epoch) in UTC by strftime's pattern; 0, or -1
 * (buffer untouched) for a time before 1970 or after 9999, which a read
 * result can hold and time_t not. */
int report_format_time(char *buffer, size_t size, double when, const char *pattern);

/* ---- Escaping: one function per output format -----------------------------
 * Text from a capture or a result (names, paths, labels, rules, values) may
 * come from a hostile process. Every writer of a format, the merge's too,
 * escapes it with its format's one function (report/escape.c); NULL writes
 * nothing. */

/* HTML: text as character data or a quoted attribute value: <, >, &, " and '
 * as entities, invalid UTF-8, the control characters but tab and newline,
 * DEL and the C1 controls as U+FFFD. */
void report_put_html(FILE *out, const char *text);
/* XML 1.0 (JUnit): as HTML, with &apos;; tab, newline and carriage return as
 * character references (attribute values keep them), the other control
 * characters, U+FFFE and U+FFFF as U+FFFD. */
void report_put_xml(FILE *out, const char *text);
/* The terminal (text reports): what a terminal is not shown raw (controls,
 * bidi controls, line separators, bytes that are not UTF-8) escaped as
 * format/utf8.h says (\x1b, \u202e, \x9b), so a hostile name can neither drive
 * the terminal nor disguise itself. */
void report_put_terminal(FILE *out, const char *text);

/* Where Markdown text goes. */
enum report_markdown {
  /* Running text: punctuation (\ ` * _ [ ] | ~) backslashed, <, > and & as
   * entities, tab, newline and carriage return as spaces, and what a terminal
   * is not shown raw escaped as the terminal shows it (a backslash before a
   * letter is literal). */
  REPORT_MARKDOWN_TEXT,
  /* Our own words in a table cell: '|', '\\', '`', '*', '_', '<', '>', '[',
   * ']', '#', '&' and '@' as character references, controls, bidi controls
   * and line separators dropped, so text can neither end the cell, make a
   * link or a mention, nor reorder what a reader sees. */
  REPORT_MARKDOWN_CELL,
  /* A name from a capture or a result (a site, a chunk, a library, a holder
   * path, an allow-list pattern) as a code span, so that nothing in it is
   * markup and a hosting site neither links `@name` as a mention nor `#123`
   * as an issue. The fence is one backtick more than the longest run in the
   * name, padded with a space when the name starts or ends with a backtick
   * (or starts and ends with a space, which a code span would strip); what a
   * terminal is not shown raw is escaped as the terminal shows it (a code
   * span shows a backslash as it is). "" writes nothing. */
  REPORT_MARKDOWN_CODE,
  /* A code span in a table cell: as CODE, each '|' written \|, which the
   * table reads as a '|' of the cell; a name with a backslash before a '|'
   * (whose backslash would escape that one) is written as CELL. */
  REPORT_MARKDOWN_CODE_CELL
};
void report_put_markdown(FILE *out, const char *text, enum report_markdown where);

/* ---- Lua sources beneath a root ------------------------------------------- */

/* The largest source file read for an excerpt: a Lua file past it is
 * generated, not read by people, and the cap bounds what a hostile name
 * can make the report read. */
#define REPORT_SOURCE_MAX_BYTES ((size_t)4 << 20)

enum report_source_status {
  REPORT_SOURCE_OK,
  REPORT_SOURCE_BAD_NAME,     /* empty, absolute, a ".." component, or ending in '/' */
  REPORT_SOURCE_MISSING,      /* no such file beneath the root (or a non-directory on the way) */
  REPORT_SOURCE_LINK,         /* a symbolic link on the way or at the end */
  REPORT_SOURCE_NOT_REGULAR,  /* a directory, FIFO, device or socket */
  REPORT_SOURCE_TOO_LARGE,    /* over REPORT_SOURCE_MAX_BYTES */
  REPORT_SOURCE_UNREADABLE,   /* any other error; its errno in source->error */
  REPORT_SOURCE_MEMORY
};

/* How a name's directories are resolved. */
enum report_source_resolve {
  REPORT_SOURCE_OPENAT2,      /* openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS), or the
                               * walk where the kernel (or a seccomp filter) refuses it */
  REPORT_SOURCE_WALK          /* component by component, openat(O_NOFOLLOW) (tests) */
};

struct report_source {
  char *text;                 /* the file's bytes and a '\0' (free()); NULL unless OK */
  size_t length;
  int error;                  /* UNREADABLE: its errno */
};

/* Reads the file `name` (a chunk name without its '@') beneath the directory
 * root (a descriptor): never an absolute name or a ".." component, no
 * symbolic link in any component, only a regular file (a FIFO or device is
 * refused without blocking or reading), at most REPORT_SOURCE_MAX_BYTES.
 * Returns the status; with REPORT_SOURCE_OK, source->text holds the file. */
enum report_source_status report_source_read(int root, const char *name,
                                             enum report_source_resolve resolve,
                                             struct report_source *source);
/* Why a source was not read, a few words for the page ("a symbolic link"). */
void report_source_why(enum report_source_status status, const struct report_source *source,
                       char *buffer, size_t size);

/* ---- Progress ------------------------------------------------------------ */

/* A progress bar on a terminal (stderr); draws nothing when out is not one. */
struct report_progress;
struct report_progress *report_progress_new(FILE *out);
void report_progress_update(void *progress, uint64_t done, uint64_t total); /* a diff_options.progress */
void report_progress_free(struct report_progress *progress);

/* The bar's text for done of total, width cells wide, into buffer (always
 * terminated); the bar's drawing uses it. Returns the length written. */
size_t report_progress_format(char *buffer, size_t size, uint64_t done, uint64_t total,
                              unsigned width);

#endif
