/* format/control_file.h: the control channel's two files (docs/control-format.md): the registration a collector writes and the request ci/capture writes; one writer and one parser each. */
#ifndef LJLEAK_FORMAT_CONTROL_FILE_H
#define LJLEAK_FORMAT_CONTROL_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "format/error.h"

#define CONTROL_FILE_VERSION 1               /* what the registration's header line says */
#define CONTROL_FILE_REGISTRATION_SIZE 8192  /* the collector's buffer: a longer registration is cut */
#define CONTROL_FILE_REQUEST_MAX 4096        /* bytes of a request the collector reads */

/* ---- The run directory's names (docs/control-format.md): the one home of them ---- */

/* The run directory when none is set (LJLEAK_RUN_DIR, --run-dir): /tmp/ljleak-<uid>. Its
 * length, or 0 if it does not fit in size. */
size_t control_file_default_run_dir(unsigned long uid, char *out, size_t size);

/* The Yama ptrace scope the file at path holds (/proc/sys/kernel/yama/ptrace_scope on a kernel
 * with Yama): its number, or 0 when the file is missing or holds no number (no Yama: ptrace's own
 * rules). At 3 no process may be attached to until the next boot. */
#define CONTROL_FILE_PTRACE_SCOPE "/proc/sys/kernel/yama/ptrace_scope"
int control_file_ptrace_scope(const char *path);

/* A process's files in the run directory. */
enum control_file_name {
  CONTROL_FILE_NAME_REGISTRATION,   /* <pid>: what the collector says of its capture */
  CONTROL_FILE_NAME_REQUEST,        /* <pid>.request: what ljleak control asks of it */
  CONTROL_FILE_NAME_NEXT            /* <pid>.tmp: the next registration, renamed over <pid> */
};

/* The name of pid's file which. Its length, or 0 if it does not fit in size. */
size_t control_file_name(long pid, enum control_file_name which, char *out, size_t size);

/* Errors are format/error.h's: FORMAT_BAD_INPUT (error.offset and error.message say where and
 * what), FORMAT_IO (the file cannot be opened or read: error.system_error), FORMAT_NO_MEMORY,
 * FORMAT_UNWRITABLE (the writer: a value would break a line, or it does not fit). A
 * registration's message is "NAME: byte OFFSET: what is wrong" or "NAME: cannot open: ...";
 * a request's is what the collector answers, as it always did. */

/* ---- The registration: <run_dir>/<pid> ------------------------------------
 * A header line "ljleak-registration\t1", then one KEY=VALUE line per key, in
 * this order. One field per key, named as the key; the parser sets in `keys`
 * a bit for each key it read and leaves a missing one 0 (strings: NULL). */

enum control_file_registration_key {
  CONTROL_FILE_HAS_PID = 1u << 0,
  CONTROL_FILE_HAS_PPID = 1u << 1,
  CONTROL_FILE_HAS_UID = 1u << 2,
  CONTROL_FILE_HAS_STARTED = 1u << 3,
  CONTROL_FILE_HAS_EXE = 1u << 4,
  CONTROL_FILE_HAS_LUAJIT = 1u << 5,
  CONTROL_FILE_HAS_POLL = 1u << 6,
  CONTROL_FILE_HAS_REQUEST_FILE = 1u << 7,
  CONTROL_FILE_HAS_ROOT = 1u << 8,
  CONTROL_FILE_HAS_STATE = 1u << 9,
  CONTROL_FILE_HAS_DIR = 1u << 10,
  CONTROL_FILE_HAS_REQUEST = 1u << 11,
  CONTROL_FILE_HAS_RESULT = 1u << 12,
  CONTROL_FILE_HAS_ERROR = 1u << 13
};

struct control_file_registration {
  long pid;
  long ppid;
  uint64_t uid;               /* the effective uid */
  uint64_t started;           /* /proc/<pid>/stat's start time: with pid, names one process */
  /* Text; the writer writes NULL as an empty value, and a newline or carriage
   * return in one as '?' (a value is one line). */
  const char *exe;            /* readlink /proc/self/exe */
  const char *luajit;         /* jit.version */
  const char *poll;           /* "timer" or "thread" */
  const char *request_file;   /* <run_dir>/<pid>.request (readers never write through it) */
  const char *root;           /* where captures go by default */
  const char *state;          /* "idle", "capturing" or "exiting" */
  const char *dir;            /* the running or the last capture */
  const char *request;        /* the id of the last request taken */
  const char *result;         /* "ok" or "error" for it */
  const char *error;          /* why it failed, or why this process cannot capture */
  /* The parser's, ignored by the writer: */
  unsigned keys;              /* CONTROL_FILE_HAS_* */
  int has_header;             /* the first line is the header */
  uint64_t version;           /* its version; 0 if none */
  int last_line_cut;          /* the file ends in a line without its newline (dropped) */
  size_t last_line_offset;    /* where that line starts */
  char *text;                 /* the file's copy that the strings point into */
};

/* Formats the whole registration into buffer (size bytes, NUL-terminated)
 * and returns its length. No allocation, no stdio, no locale, no state: the
 * collector calls it inside its allocator hook. A registration that does not
 * fit is cut to size - 1 bytes, the line the cut goes through without its
 * newline, which the reader drops (last_line_cut). Collectors before this
 * ended that line with a newline in its last byte, so that it read as whole;
 * size < 2 gives 0. */
size_t control_file_write_registration(char *buffer, size_t size,
                                       const struct control_file_registration *registration);

/* The start time the registration's `started` holds: /proc/PID/stat's 22nd
 * field, in clock ticks since boot (pid 0: this process). With the pid it
 * names one process, not a later one with its pid. Reads with open and read
 * only (the collector calls it where it takes no heap). 0, or -1 when the
 * process or the field cannot be read. */
int control_file_process_started(long pid, unsigned long long *started);

/* Parses size bytes of data (copied); name is what messages call the input.
 * Lines are KEY=VALUE, VALUE all that follows the first '='; unknown keys and
 * empty lines are skipped. A last line without its newline was cut while it
 * was written and is dropped (the collector renames a whole file into place,
 * so only a copy or another writer leaves one). An empty file, or one whose
 * only line is cut, has no header and is no error. Anything else wrong is an
 * error at its byte offset: a complete first line that is not the header (or
 * whose version is not a whole number), a line without '=', a known key
 * twice, a NUL byte, a pid, ppid, uid or started that is not a whole number.
 * Returns FORMAT_OK with registration filled (release it with
 * control_file_registration_free), or an error with registration empty. */
enum format_status control_file_parse_registration(struct control_file_registration *registration,
                                                   const char *data, size_t size,
                                                   const char *name,
                                                   struct format_error *error);

/* Reads and parses the file at path (named by its path in messages); a file
 * that does not exist is FORMAT_IO with system_error ENOENT. */
enum format_status control_file_read_registration(struct control_file_registration *registration,
                                                  const char *path,
                                                  struct format_error *error);

void control_file_registration_free(struct control_file_registration *registration);

/* ---- The request: <run_dir>/<pid>.request -----------------------------------
 * KEY=VALUE lines: id=ID, action=start|stop and, for a start, option lines
 * (root=DIR, period=S, ...). Which keys are options and what their values
 * mean is the collector's business: the parser hands each other line to the
 * caller. */

struct control_file_request {
  const char *id;             /* NULL: none */
  const char *action;         /* "start" or "stop" */
  /* The writer's: option lines written after them, each "KEY=VALUE". */
  const char *const *options;
  size_t option_count;
};

/* Formats a request into buffer (size bytes, NUL-terminated): "id=ID\n" (when
 * id is not NULL), "action=ACTION\n", then each option and a newline; returns
 * its length. 0 with error (FORMAT_UNWRITABLE) when the action is not
 * start or stop, a value holds a newline, an option has no '=' or an empty
 * key or is id or action, or the request is longer than
 * CONTROL_FILE_REQUEST_MAX or size - 1 bytes. */
size_t control_file_write_request(char *buffer, size_t size, const struct control_file_request *request,
                                  struct format_error *error);

/* Called with each line that is neither id nor action: key is the text before
 * its first '=', value the rest. Returns 0, or -1 with message (message_size
 * bytes) filled: the parse stops with that error. */
typedef int (*control_file_request_option_fn)(void *context, const char *key, char *value,
                                              char *message, size_t message_size);

/* Parses a request in place: text is the file's bytes up to its first NUL
 * (the collector reads at most CONTROL_FILE_REQUEST_MAX of them and ends them
 * with one). Empty lines are skipped; a later id or action replaces an
 * earlier one. No allocation. Returns FORMAT_OK with request->id and
 * ->action set, or FORMAT_BAD_INPUT with error->offset at the line and
 * error->message "bad request line 'LINE'", the option callback's message, or
 * "the request has no action start or stop"; request->id is then the id read
 * before the error, if any. */
enum format_status control_file_parse_request(char *text, struct control_file_request *request,
                                              control_file_request_option_fn option,
                                              void *context, struct format_error *error);

#endif
