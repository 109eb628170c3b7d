/* format/capture_index.h: the capture index codec (docs/index-format.md): one line writer, one parser. */
#ifndef LJLEAK_FORMAT_CAPTURE_INDEX_H
#define LJLEAK_FORMAT_CAPTURE_INDEX_H

#include <stddef.h>
#include <stdint.h>

#include "format/error.h"

#define CAPTURE_INDEX_VERSION 1                 /* what the header line says */
#define CAPTURE_INDEX_YOUNG_FROM_NONE UINT64_MAX /* a segment without young_from */
/* The capture line's command is cut so that this much of the buffer stays for
 * the fields after it (the collector's line is 16384 bytes). */
#define CAPTURE_INDEX_CAPTURE_TAIL_ROOM 512

/* ---- Lines ---------------------------------------------------------------
 * One struct per line kind, one field per key, named as the key. The writer
 * takes them from the caller; the parser fills them, sets in `keys` a bit for
 * each key the line had, and leaves a missing key zero (young_from:
 * CAPTURE_INDEX_YOUNG_FROM_NONE; strings: NULL). The writer ignores `keys`:
 * it writes every key. A new key is a field, a bit, a line in the writer and
 * one in the parser (format/capture_index.c). */

enum capture_index_capture_key {
  CAPTURE_INDEX_CAPTURE_HAS_PID = 1u << 0,
  CAPTURE_INDEX_CAPTURE_HAS_HOST = 1u << 1,
  CAPTURE_INDEX_CAPTURE_HAS_COMMAND = 1u << 2,
  CAPTURE_INDEX_CAPTURE_HAS_LUAJIT = 1u << 3,
  CAPTURE_INDEX_CAPTURE_HAS_START = 1u << 4,
  CAPTURE_INDEX_CAPTURE_HAS_SAMPLE = 1u << 5,
  CAPTURE_INDEX_CAPTURE_HAS_PERIOD = 1u << 6,
  CAPTURE_INDEX_CAPTURE_HAS_MAX_BYTES = 1u << 7,
  CAPTURE_INDEX_CAPTURE_HAS_GZIP = 1u << 8,
  CAPTURE_INDEX_CAPTURE_HAS_LUAJIT_FLAVOUR = 1u << 9,
  CAPTURE_INDEX_CAPTURE_HAS_LUAJIT_PACKAGE = 1u << 10,
  CAPTURE_INDEX_CAPTURE_HAS_LUAJIT_PACKAGE_VERSION = 1u << 11,
  CAPTURE_INDEX_CAPTURE_HAS_EXE = 1u << 12,
  CAPTURE_INDEX_CAPTURE_HAS_PPID = 1u << 13,
  CAPTURE_INDEX_CAPTURE_HAS_STACKS = 1u << 14,
  CAPTURE_INDEX_CAPTURE_HAS_LABELS = 1u << 15
};

/* The `capture` line: who was captured, and how. */
struct capture_index_capture {
  long pid;
  const char *host;         /* the writer escapes these three; NULL writes an empty value */
  const char *command;      /* the command line, arguments joined by spaces; the one field the writer may cut */
  const char *luajit;       /* jit.version */
  double start;             /* Unix time, written %.3f */
  uint64_t sample;          /* mean sampling interval in bytes; 0 records every event */
  double period;            /* seconds per segment, 0 if none; written %g */
  uint64_t max_bytes;       /* stream bytes per segment, 0 if none */
  int gzip;                 /* 0 or 1 */
  /* The LuaJIT the collector was built for, which the running one matched:
   * "debian" (Debian's luajit), "openresty" (OpenResty's luajit2) or
   * "unknown"; its library package and that package's version ("" when built
   * from a bare source tree). Written when luajit_flavour is not NULL. */
  const char *luajit_flavour;
  const char *luajit_package;
  const char *luajit_package_version;
  /* The program (readlink /proc/self/exe), which a rewritten process title
   * (nginx's "nginx: worker process") does not change, and the parent's pid
   * (an nginx worker's master). Written, before the command, when exe is not
   * NULL. */
  const char *exe;
  long ppid;
  uint64_t stacks;          /* frames per stack in the segments' sidecars (docs/stacks-format.md);
                             * 0: no sidecars, and the key is not written */
  unsigned keys;            /* parser: CAPTURE_INDEX_CAPTURE_HAS_* */
  /* The labels given at capture time (release, region, role): "KEY=VALUE"
   * pairs joined by ',', as capture_index_labels_check takes them. Written,
   * before the command, when not NULL and not empty; the parser refuses a
   * value that capture_index_labels_check refuses. */
  const char *labels;
};

/* ---- Labels ----------------------------------------------------------------
 * A capture's labels, as the collector's options, the index and the results
 * carry them: "release=1.4.2,region=eu-west". A key is 1 to
 * CAPTURE_INDEX_LABEL_KEY_MAX letters, digits, '_', '-' and '.'; a value 1 to
 * CAPTURE_INDEX_LABEL_VALUE_MAX bytes of UTF-8 without control characters,
 * ',' or a backslash (so the list splits back, and prints as it is on a terminal);
 * at most CAPTURE_INDEX_LABEL_COUNT_MAX labels, each key once. The labels
 * come from the captured process, which may be hostile (docs/security.md):
 * every reader checks them again. */
#define CAPTURE_INDEX_LABEL_KEY_MAX 64
#define CAPTURE_INDEX_LABEL_VALUE_MAX 128
#define CAPTURE_INDEX_LABEL_COUNT_MAX 16
/* The longest label list: every label at its longest, with its '=' and ','. */
#define CAPTURE_INDEX_LABELS_MAX \
  (CAPTURE_INDEX_LABEL_COUNT_MAX * (CAPTURE_INDEX_LABEL_KEY_MAX + CAPTURE_INDEX_LABEL_VALUE_MAX + 2))

/* One label of a list: its key and value, as spans of the list's text. */
struct capture_index_label {
  const char *key;
  size_t key_length;
  const char *value;
  size_t value_length;
};

/* Whether labels (a list; "" is none) is one the index takes: FORMAT_OK, or
 * FORMAT_BAD_INPUT with what is wrong in error (when not NULL): "label 2: the
 * key 're lease' has a character other than letters, digits, '_', '-' and '.'". */
enum format_status capture_index_labels_check(const char *labels, struct format_error *error);
/* The next label of a checked list from *cursor (the list at first), and
 * *cursor past it: 1, or 0 at the end. */
int capture_index_labels_next(const char **cursor, struct capture_index_label *label);

enum capture_index_segment_key {
  CAPTURE_INDEX_SEGMENT_HAS_SEQ = 1u << 0,
  CAPTURE_INDEX_SEGMENT_HAS_FILE = 1u << 1,
  CAPTURE_INDEX_SEGMENT_HAS_START = 1u << 2,
  CAPTURE_INDEX_SEGMENT_HAS_END = 1u << 3,
  CAPTURE_INDEX_SEGMENT_HAS_GC_CYCLES = 1u << 4,
  CAPTURE_INDEX_SEGMENT_HAS_HEAP_BYTES = 1u << 5,
  CAPTURE_INDEX_SEGMENT_HAS_EVENTS = 1u << 6,
  CAPTURE_INDEX_SEGMENT_HAS_BYTES = 1u << 7,
  CAPTURE_INDEX_SEGMENT_HAS_SAMPLE = 1u << 8,
  CAPTURE_INDEX_SEGMENT_HAS_COMPLETE = 1u << 9,
  CAPTURE_INDEX_SEGMENT_HAS_YOUNG_FROM = 1u << 10,
  CAPTURE_INDEX_SEGMENT_HAS_TRACE_EVENTS = 1u << 11,
  CAPTURE_INDEX_SEGMENT_HAS_TRACE_LINES = 1u << 12
};

/* A `segment` line: one finished segment file. */
struct capture_index_segment {
  uint64_t seq;             /* 1, 2, ... */
  const char *file;         /* its name in the capture directory (readers skip one with a '/') */
  double start, end;        /* Unix times, written %.3f */
  uint64_t gc_cycles;       /* full GC cycles since the capture started, at the boundary */
  uint64_t heap_bytes;      /* Lua heap at the boundary */
  uint64_t events;          /* alloc, free and realloc events in the segment */
  uint64_t bytes;           /* bytes of the (uncompressed) stream */
  uint64_t sample;          /* as in the capture line */
  int complete;             /* 1: it ended right after a full GC cycle; 0: cut short */
  uint64_t young_from;      /* events before its final GC cycle started; written only when
                             * complete is 1 and it is not CAPTURE_INDEX_YOUNG_FROM_NONE */
  unsigned keys;            /* parser: CAPTURE_INDEX_SEGMENT_HAS_* */
  uint64_t trace_events;    /* allocation events made by compiled code (JIT traces); it and
                             * trace_lines are written only when it is not 0 */
  uint64_t trace_lines;     /* of those, charged to their Lua line (the rest to the trace) */
};

enum capture_index_boundary_key {
  CAPTURE_INDEX_BOUNDARY_HAS_SEQ = 1u << 0,
  CAPTURE_INDEX_BOUNDARY_HAS_SEGMENT = 1u << 1,
  CAPTURE_INDEX_BOUNDARY_HAS_EVENTS = 1u << 2,
  CAPTURE_INDEX_BOUNDARY_HAS_TIME = 1u << 3,
  CAPTURE_INDEX_BOUNDARY_HAS_GC_CYCLES = 1u << 4,
  CAPTURE_INDEX_BOUNDARY_HAS_HEAP_BYTES = 1u << 5,
  CAPTURE_INDEX_BOUNDARY_HAS_ALLOCATED = 1u << 6,
  CAPTURE_INDEX_BOUNDARY_HAS_YOUNG_FROM = 1u << 7,
  CAPTURE_INDEX_BOUNDARY_HAS_CAUSE = 1u << 8
};

/* Why a boundary's full GC cycle ran. Every cause but GC is a cycle the
 * collector forced. */
enum capture_index_boundary_cause {
  CAPTURE_INDEX_CAUSE_GC = 1,       /* "gc": the program's own cycle */
  CAPTURE_INDEX_CAUSE_START = 2,    /* "start": forced when the capture started */
  CAPTURE_INDEX_CAUSE_STOP = 3,     /* "stop": forced when it stopped */
  CAPTURE_INDEX_CAUSE_EVERY = 4,    /* "every": forced after --every BYTES of allocation */
  CAPTURE_INDEX_CAUSE_CALL = 5,     /* "call": a harness called collector.boundary() */
  CAPTURE_INDEX_CAUSE_PERIOD = 6,   /* "period": a due segment boundary with --force-gc */
  CAPTURE_INDEX_CAUSE_EXIT = 7,     /* "exit": forced when the program had ended (its main
                                     * chunk returned): its locals are gone by then, so
                                     * readers leave this boundary out of the series */
  CAPTURE_INDEX_CAUSE_VOLUME = 8,   /* "volume": forced because the bytes allocated since the
                                     * last boundary reached a share of those before it */
  CAPTURE_INDEX_CAUSE_RETURN = 9,   /* "return": forced as the main chunk returned, with
                                     * its locals still held: the run's last counted one */
  CAPTURE_INDEX_CAUSE_SNAPSHOT = 10 /* "snapshot": forced to take a heap snapshot in the middle
                                     * of a capture (the snapshots option) */
};

/* The cause's name in the index, or NULL for a number that is no cause. */
const char *capture_index_boundary_cause_name(int cause);
/* 1 when a boundary of cause (a name read from the index) ended a forced
 * cycle: any cause but "gc", a word a later version adds included; 0 for
 * "gc" and for no cause (NULL). */
int capture_index_boundary_cause_forced(const char *cause);

/* A `boundary` line: a full GC cycle ended here, in the stream of a segment
 * (written when the cycle ends, so before that segment's own line). */
struct capture_index_boundary {
  uint64_t seq;             /* 1, 2, ...: the boundary's number in the capture */
  uint64_t segment;         /* the seq of the segment being written when the cycle ended */
  uint64_t events;          /* events of that segment written before the boundary (counted as
                             * the segment line's events): event index `events` is the first after it */
  double time;              /* Unix time, written %.3f */
  uint64_t gc_cycles;       /* full GC cycles completed since the capture started */
  uint64_t heap_bytes;      /* Lua heap at the boundary */
  uint64_t allocated;       /* bytes allocated since the capture started (sampled or not) */
  uint64_t young_from;      /* events of that segment before this boundary's cycle started
                             * (<= events); CAPTURE_INDEX_YOUNG_FROM_NONE: not written */
  const char *cause;        /* a capture_index_boundary_cause_name, or one a later version adds;
                             * NULL: not written */
  unsigned keys;            /* parser: CAPTURE_INDEX_BOUNDARY_HAS_* */
  size_t offset;            /* parser: the byte offset of the line in the index */
};

enum capture_index_snapshot_key {
  CAPTURE_INDEX_SNAPSHOT_HAS_BOUNDARY = 1u << 0,
  CAPTURE_INDEX_SNAPSHOT_HAS_FILE = 1u << 1,
  CAPTURE_INDEX_SNAPSHOT_HAS_OBJECTS = 1u << 2,
  CAPTURE_INDEX_SNAPSHOT_HAS_REFERENCES = 1u << 3,
  CAPTURE_INDEX_SNAPSHOT_HAS_OBJECT_BYTES = 1u << 4,
  CAPTURE_INDEX_SNAPSHOT_HAS_BYTES = 1u << 5,
  CAPTURE_INDEX_SNAPSHOT_HAS_PAUSE_US = 1u << 6,
  CAPTURE_INDEX_SNAPSHOT_HAS_DROPPED = 1u << 7
};

/* A `snapshot` line: a heap snapshot (docs/snapshot-format.md) taken at a boundary, written when
 * its file is finished. A later line with the same file and dropped=1 says the file was removed
 * again (a candidate for the middle of a run that a later one replaced): the parser then drops
 * both. */
struct capture_index_snapshot {
  uint64_t boundary;        /* the seq of the boundary it was taken at */
  const char *file;         /* its name in the capture directory */
  uint64_t objects;         /* objects and references written, and the objects' bytes */
  uint64_t references;
  uint64_t object_bytes;
  uint64_t bytes;           /* bytes of the file */
  uint64_t pause_us;        /* how long the program stood still for it */
  int dropped;              /* 1: the file was removed; written only when 1 */
  unsigned keys;            /* parser: CAPTURE_INDEX_SNAPSHOT_HAS_* */
  size_t offset;            /* parser: the byte offset of the line in the index */
};

enum capture_index_stop_key {
  CAPTURE_INDEX_STOP_HAS_TIME = 1u << 0,
  CAPTURE_INDEX_STOP_HAS_REASON = 1u << 1
};

/* Why a capture stopped: the collector's reasons, and their names in the index. */
enum capture_index_stop_reason {
  CAPTURE_INDEX_REASON_NONE = 0,            /* not stopped (no name) */
  CAPTURE_INDEX_REASON_STOP = 1,            /* "stop": asked to */
  CAPTURE_INDEX_REASON_DURATION = 2,        /* "duration" */
  CAPTURE_INDEX_REASON_SIGNAL = 3,          /* "signal" */
  CAPTURE_INDEX_REASON_MAX_TOTAL_BYTES = 4, /* "max-total-bytes" */
  CAPTURE_INDEX_REASON_WRITE_ERROR = 5,     /* "write-error" */
  CAPTURE_INDEX_REASON_EXIT = 6             /* "exit" */
};

/* The reason's name in the index, or NULL for a number that is no reason. */
const char *capture_index_stop_reason_name(enum capture_index_stop_reason reason);

/* The `stop` line: the capture's last. */
struct capture_index_stop {
  double time;              /* Unix time, written %.3f */
  const char *reason;       /* a capture_index_stop_reason_name, or one a later version adds */
  unsigned keys;            /* parser: CAPTURE_INDEX_STOP_HAS_* */
  size_t offset;            /* parser: the byte offset of the line in the index */
};

/* A `c_function` line: the library of a C function that a site or a
 * stack frame names (the memprof stream carries only the name), and what
 * gave the name. */
enum {
  CAPTURE_INDEX_C_FUNCTION_HAS_NAME = 1u << 0,
  CAPTURE_INDEX_C_FUNCTION_HAS_LIBRARY = 1u << 1,
  CAPTURE_INDEX_C_FUNCTION_HAS_ORIGIN = 1u << 2
};

struct capture_index_c_function {
  const char *name;         /* as the streams name it: "cjson.decode" */
  const char *library;      /* its object's file name: "cjson.so"; "" if none */
  const char *origin;       /* lua, host, symtab, dynsym, debug-file, program, offset, address */
  unsigned keys;            /* parser: CAPTURE_INDEX_C_FUNCTION_HAS_* */
};

/* ---- Writer ----------------------------------------------------------------
 * Each call formats one whole line, newline included, into buffer (size bytes,
 * NUL-terminated like snprintf) and returns its length without the NUL, or 0
 * when it does not fit (nothing usable is left in buffer then). No allocation,
 * no I/O, no state: the collector calls these inside its allocator hook and
 * writes the bytes itself. Numbers go through snprintf, as they always have,
 * so times follow the process's LC_NUMERIC (the parser reads a decimal comma
 * too). Lines written one after the other into one buffer (header, then
 * capture at buffer + n with size - n) give the same bytes as one snprintf
 * chain over that buffer. */

/* "ljleak-index\tversion=1\n" */
size_t capture_index_write_header(char *buffer, size_t size);
/* "capture\tpid=..\thost=..\tcommand=..\tluajit=..\tstart=..\tsample=..\tperiod=..\tmax_bytes=..\tgzip=..
 *  [\tluajit_flavour=..\tluajit_package=..\tluajit_package_version=..]\n".
 * The command is cut, never inside an escape, to what fits in the room the
 * buffer has at that point less CAPTURE_INDEX_CAPTURE_TAIL_ROOM. */
size_t capture_index_write_capture(char *buffer, size_t size, const struct capture_index_capture *capture);
/* "segment\tseq=..\tfile=..\tstart=..\tend=..\tgc_cycles=..\theap_bytes=..\tevents=..\tbytes=..\tsample=..\tcomplete=..[\tyoung_from=..]\n" */
size_t capture_index_write_segment(char *buffer, size_t size, const struct capture_index_segment *segment);
/* "boundary\tseq=..\tsegment=..\tevents=..\ttime=..\tgc_cycles=..\theap_bytes=..\tallocated=..[\tyoung_from=..][\tcause=..]\n":
 * young_from is left out when it is CAPTURE_INDEX_YOUNG_FROM_NONE, cause when NULL. */
size_t capture_index_write_boundary(char *buffer, size_t size, const struct capture_index_boundary *boundary);
/* "c_function\tname=..\tlibrary=..\torigin=..\n" */
size_t capture_index_write_c_function(char *buffer, size_t size,
                                      const struct capture_index_c_function *function);
/* "snapshot\tboundary=..\tfile=..\tobjects=..\treferences=..\tobject_bytes=..\tbytes=..\tpause_us=..\n",
 * or, with dropped, "snapshot\tboundary=..\tfile=..\tdropped=1\n". */
size_t capture_index_write_snapshot(char *buffer, size_t size, const struct capture_index_snapshot *snapshot);
/* "stop\ttime=..\treason=..\n" */
size_t capture_index_write_stop(char *buffer, size_t size, const struct capture_index_stop *stop);
/* A text value with the escapes of the index (backslash, tab and newline as
 * \\, \t, \n), for a reader that shows a value as the index has it: as much
 * of value as fits in buffer, NUL-terminated, without splitting an escape
 * (a whole value fits in 2 * strlen(value) + 1 bytes). Returns the bytes
 * written, without the NUL; *used is the bytes of value they hold. */
size_t capture_index_escape(char *buffer, size_t size, const char *value, size_t *used);

/* ---- Parser ----------------------------------------------------------------
 * Reads a whole index. Unknown line kinds and unknown keys are skipped, as
 * are empty lines and empty fields. A last line without its newline was cut
 * while being written (the process died): its fields are read up to its last
 * tab, the text after that tab is dropped (it may be cut short), and a segment
 * line cut before its file is dropped; a cut index is never an error. An
 * empty index, or one whose only line is cut, has no header and is no error
 * either: it is what a process leaves that died before its first write.
 * Anything else wrong in a known line or key is an error at its byte offset:
 * a complete first line that is not the header, a second header, capture or
 * stop line, a field without '=', a key twice in a line, a bad number (values
 * are whole numbers, times and periods as strtod reads them, a decimal comma
 * allowed), a flag other than 0 or 1, an unknown escape, a NUL byte, a segment
 * line without file or with an empty one, a boundary line without segment or
 * events, or with a young_from greater than its events, a c_function line
 * without name. A cut boundary or c_function line is
 * dropped whole: its cycle's young_from or cause may be missing. Whether
 * boundaries lie in order and inside their segments is for the reader of the
 * capture to check (the segment lines come after them). */

struct capture_index {
  int has_header;                         /* the first line is ljleak-index */
  uint64_t version;                       /* its version; 0 if none */
  int has_capture;                        /* a capture line was read into capture */
  struct capture_index_capture capture;
  struct capture_index_segment *segments; /* in the order of their lines */
  size_t segment_count;
  struct capture_index_boundary *boundaries; /* in the order of their lines */
  size_t boundary_count;
  struct capture_index_c_function *c_functions; /* in the order of their lines (a name once) */
  size_t c_function_count;
  struct capture_index_snapshot *snapshots; /* in the order of their lines, the dropped ones left out */
  size_t snapshot_count;
  int has_stop;                           /* a stop line was read into stop */
  struct capture_index_stop stop;
  int last_line_cut;                      /* the index ends in a line without its newline */
  size_t last_line_offset;                /* where that line starts */
  char *text;                             /* the index's copy that the strings point into */
};

/* Errors are format/error.h's: FORMAT_BAD_INPUT (error.offset and error.message say where and
 * what: "NAME: byte OFFSET: what is wrong"), FORMAT_IO (the file cannot be opened or read:
 * error.system_error, "NAME: cannot open: ..."), FORMAT_NO_MEMORY. */

/* Parses size bytes of data (copied; they may go away after the call); name
 * is what messages call the input. Returns FORMAT_OK with index filled
 * (release it with capture_index_free), or an error with error filled and
 * index empty. */
enum format_status capture_index_parse(struct capture_index *index, const char *data,
                                       size_t size, const char *name,
                                       struct format_error *error);

/* Reads and parses the file at path (named by its path in messages). */
enum format_status capture_index_read_file(struct capture_index *index, const char *path,
                                           struct format_error *error);

/* Reads name in the directory of the handle dir_fd (a link at its last step refused), as
 * capture_index_read_file; shown is what messages call it (its path). */
enum format_status capture_index_read_at(struct capture_index *index, int dir_fd, const char *name,
                                         const char *shown, struct format_error *error);

void capture_index_free(struct capture_index *index);

#endif
