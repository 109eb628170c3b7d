/* report/report.h: renders a diff result in seven formats (text, HTML, JSON, JUnit, Markdown,
 * pprof, folded stacks), reads a saved JSON result back, and draws the progress bar. */
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
 * (diff_result_fill_facts). Returns 0, or -1 with a message in error. */
int report_render(const struct diff_result *result, enum report_format format,
                  const struct report_options *options, FILE *out,
                  char *error, size_t error_size);

/* Renders the per-test result of ljleak busted (diff/tests.h) as text, JSON,
 * JUnit (one testcase per busted test) or HTML; each leaking test's own
 * result as report_render renders a run's. 0, or -1 with a message. */
struct diff_tests;
int report_tests_render(const struct diff_tests *tests, enum report_format format,
                        const struct report_options *options, FILE *out, char *error, size_t error_size);

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
/* when (seconds since the epoch) in UTC by strftime's pattern; 0, or -1
 * (buffer untouched) for a time before 1970 or after 9999, which a read
 * result can hold and time_t not. */
int report_format_time(char *buffer, size_t size, double when, const char *pattern);
/* The markup report_put_markup writes. */
enum report_markup {
  REPORT_MARKUP_HTML,
  REPORT_MARKUP_XML
};
/* Writes text (NULL: nothing) as character data or a quoted attribute
 * value: <, >, &, " and ' as entities, invalid UTF-8 as U+FFFD, and what
 * the markup forbids or would change as U+FFFD or a character reference.
 * HTML: control characters but tab and newline, DEL and the C1 controls as
 * U+FFFD. XML 1.0: tab, newline and carriage return as character references
 * (attribute values keep them), the other control characters, U+FFFE and
 * U+FFFF as U+FFFD. */
void report_put_markup(FILE *out, const char *text, enum report_markup markup);
/* Writes a name from a capture or a result (a site, a chunk, a library, a
 * holder path, an allow-list pattern) as a Markdown code span, so that
 * nothing in it is markup and a hosting site neither links `@name` as a
 * mention nor `#123` as an issue. The fence is one backtick more than the
 * longest run in the name, padded with a space when the name starts or ends
 * with a backtick (or starts and ends with a space, which a code span would
 * strip); what a terminal is not shown raw is escaped as the terminal shows
 * it (\x1b, \u202e: a code span shows a backslash as it is). In a table
 * cell (in_table) each '|' is written \|, which the table reads as a '|' of
 * the cell, even in a code span. NULL or "" writes nothing. */
void report_put_code(FILE *out, const char *name, int in_table);

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

/* ---- Reading a saved result ---------------------------------------------- */

/* Rebuilds a result from JSON written by report_render (REPORT_FORMAT_JSON);
 * diff_result_free frees it. Its facts are filled; result->flagged is the
 * JSON's "flagged" when it has one, else the facts' count. Returns 0, or -1
 * with "FILE: byte N: what is wrong" in error. */
int report_read_json(const char *path, struct diff_result *result,
                     char *error, size_t error_size);

/* As report_read_json, from text in memory; name is used in error messages. */
int report_read_json_text(const char *name, const char *text, size_t length,
                          struct diff_result *result, char *error, size_t error_size);

/* As report_read_json, from text already parsed (format/json_read.h), for a
 * reader that looked at it first (ljleak merge). */
struct json_read_value;
int report_read_json_value(const char *name, const struct json_read_value *root,
                           struct diff_result *result, char *error, size_t error_size);

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
