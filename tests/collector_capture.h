/* tests/collector_capture.h: runs ljleak run and reads the capture it wrote (index, segments, per-site totals), for the collector suites. */
#ifndef LJLEAK_TESTS_COLLECTOR_CAPTURE_H
#define LJLEAK_TESTS_COLLECTOR_CAPTURE_H

#include <check.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "format/capture_index.h"
#include "format/memprof.h"

#define MAX_SITES 4096
#define MAX_SEGMENTS 256
#define MAX_BOUNDARIES 4096
#define MAX_TRACE_SYMBOLS 1024

static inline const char *build_dir(void)
{
  const char *b = getenv("BUILD");
  return b && *b ? b : "build";
}

/* Per-site totals of one kind of event, named as Tarantool's parser names them. */
struct site_total {
  char name[256];
  uint64_t allocs, alloc_bytes;       /* ALLOC events */
  uint64_t table_resizes;             /* ALLOCs of a power of two >= 4 KiB: string-table resizes */
  uint64_t table_resize_bytes;
  uint64_t reallocs, realloc_new, realloc_old;
  uint64_t frees, free_bytes;
};

/* A boundary line of the index. */
struct boundary_read {
  uint64_t seq, segment, events, gc_cycles, allocated, young_from;
  char cause[16];
};

/* What a capture directory holds. */
struct capture_read {
  struct boundary_read boundaries[MAX_BOUNDARIES];
  int nboundaries;
  int segments;                       /* segment lines in the index */
  char files[MAX_SEGMENTS][64];
  int complete[MAX_SEGMENTS];
  uint64_t index_events[MAX_SEGMENTS];
  uint64_t index_bytes[MAX_SEGMENTS];
  uint64_t gc_cycles[MAX_SEGMENTS];
  uint64_t young_from[MAX_SEGMENTS];  /* UINT64_MAX when absent */
  uint64_t index_sample;
  char stop_reason[64];
  int has_capture_line;
  enum format_status status[MAX_SEGMENTS];
  uint64_t events[MAX_SEGMENTS];      /* alloc/free/realloc records read */
  uint64_t stream_bytes[MAX_SEGMENTS];
  uint64_t new_bytes;                 /* sum of new_size of ALLOC and REALLOC events */
  uint64_t symbols;
  uint64_t unknown_frees;             /* frees/reallocs of addresses never allocated in the capture */
  struct site_total sites[MAX_SITES];
  int nsites;
  uint64_t trace_events, trace_lines; /* the index's segment lines, summed */
  struct {
    uint64_t trace, line;             /* a trace symbol: its number, the line it starts at */
  } trace_symbols[MAX_TRACE_SYMBOLS];
  int ntrace_symbols;
};

static inline struct site_total *site_of(struct capture_read *r, const char *name)
{
  for (int i = 0; i < r->nsites; i++)
    if (!strcmp(r->sites[i].name, name))
      return &r->sites[i];
  ck_assert_int_lt(r->nsites, MAX_SITES);
  struct site_total *s = &r->sites[r->nsites++];
  memset(s, 0, sizeof *s);
  snprintf(s->name, sizeof s->name, "%.*s", (int)sizeof s->name - 1, name);
  return s;
}

/* The site whose name ends with suffix, or NULL. */
static inline const struct site_total *site_ending(const struct capture_read *r, const char *suffix)
{
  size_t n = strlen(suffix);
  for (int i = 0; i < r->nsites; i++) {
    size_t len = strlen(r->sites[i].name);
    if (len >= n && !strcmp(r->sites[i].name + len - n, suffix))
      return &r->sites[i];
  }
  return NULL;
}

/* A small address set for the sampled-free check. */
struct addr_set {
  uint64_t *keys;
  size_t cap, count;
};

static inline size_t addr_slot(const struct addr_set *s, uint64_t k)
{
  return (size_t)((k * 0x9e3779b97f4a7c15ull) >> 20) & (s->cap - 1);
}

static inline void addr_set_put(struct addr_set *s, uint64_t k)
{
  if ((s->count + 1) * 2 > s->cap) {
    struct addr_set n = {calloc(s->cap ? s->cap * 2 : 1024, 8), s->cap ? s->cap * 2 : 1024, 0};
    for (size_t i = 0; i < s->cap; i++)
      if (s->keys[i])
        addr_set_put(&n, s->keys[i]);
    free(s->keys);
    *s = n;
  }
  size_t i = addr_slot(s, k);
  while (s->keys[i] && s->keys[i] != k)
    i = (i + 1) & (s->cap - 1);
  if (!s->keys[i])
    s->count++;
  s->keys[i] = k;
}

static inline int addr_set_has(const struct addr_set *s, uint64_t k)
{
  if (!s->cap)
    return 0;
  for (size_t i = addr_slot(s, k); s->keys[i]; i = (i + 1) & (s->cap - 1))
    if (s->keys[i] == k)
      return 1;
  return 0;
}

/* Reads one segment file into r (index i), following addresses in seen. */
static inline void read_segment(struct capture_read *r, int i, const char *path, struct addr_set *seen)
{
  struct format_error err;
  struct memprof_reader *rd = memprof_reader_open(path, &err);
  ck_assert_msg(rd != NULL, "cannot open %s: %s", path, err.message);
  struct memprof_symtab *syms = memprof_symtab_new();
  struct memprof_record rec;
  enum format_status st;
  while ((st = memprof_reader_next(rd, &rec)) == FORMAT_OK) {
    if (rec.type == MEMPROF_RECORD_SYMBOL) {
      memprof_symtab_add(syms, &rec.symbol);
      r->symbols++;
      if (rec.symbol.kind == MEMPROF_SYMBOL_TRACE && r->ntrace_symbols < MAX_TRACE_SYMBOLS) {
        r->trace_symbols[r->ntrace_symbols].trace = rec.symbol.trace;
        r->trace_symbols[r->ntrace_symbols++].line = rec.symbol.line;
      }
      continue;
    }
    const struct memprof_event *e = &rec.event;
    char name[256];
    memprof_symtab_name(syms, e, MEMPROF_NAMING_TARANTOOL, name, sizeof name);
    struct site_total *s = site_of(r, name);
    r->events[i]++;
    if (e->kind == MEMPROF_EVENT_ALLOC) {
      s->allocs++;
      s->alloc_bytes += e->new_size;
      if (e->new_size >= 4096 && (e->new_size & (e->new_size - 1)) == 0) {
        s->table_resizes++;
        s->table_resize_bytes += e->new_size;
      }
      r->new_bytes += e->new_size;
      addr_set_put(seen, e->new_address);
    } else if (e->kind == MEMPROF_EVENT_REALLOC) {
      s->reallocs++;
      s->realloc_new += e->new_size;
      s->realloc_old += e->old_size;
      r->new_bytes += e->new_size;
      if (!addr_set_has(seen, e->old_address))
        r->unknown_frees++;
      addr_set_put(seen, e->new_address);
    } else {
      s->frees++;
      s->free_bytes += e->old_size;
      if (!addr_set_has(seen, e->old_address))
        r->unknown_frees++;
    }
  }
  r->status[i] = st;
  r->stream_bytes[i] = memprof_reader_offset(rd);
  if (st != FORMAT_END && st != FORMAT_CUT)
    fprintf(stderr, "%s: %s\n", path, memprof_reader_error(rd)->message);
  memprof_symtab_free(syms);
  memprof_reader_close(rd);
}

/* Reads dir/index (with the index codec) and every segment it lists; part,
 * if not NULL, is read too. */
static inline struct capture_read *read_capture(const char *dir, const char *part)
{
  struct capture_read *r = calloc(1, sizeof *r);
  struct addr_set seen = {0};
  char path[1024];
  snprintf(path, sizeof path, "%s/index", dir);
  struct capture_index index;
  struct format_error error;
  ck_assert_msg(capture_index_read_file(&index, path, &error) == FORMAT_OK, "%s",
                error.message);
  ck_assert_int_eq(index.has_header, 1);
  ck_assert_uint_eq(index.version, 1);
  ck_assert_int_eq(index.last_line_cut, 0);
  r->has_capture_line = index.has_capture;
  r->index_sample = index.capture.sample;
  for (size_t k = 0; k < index.segment_count; k++) {
    const struct capture_index_segment *line = &index.segments[k];
    int i = r->segments++;
    ck_assert_int_lt(i, MAX_SEGMENTS);
    ck_assert_uint_eq(line->seq, (uint64_t)i + 1);
    snprintf(r->files[i], sizeof r->files[i], "%s", line->file);
    r->complete[i] = line->complete;
    r->index_events[i] = line->events;
    r->index_bytes[i] = line->bytes;
    r->gc_cycles[i] = line->gc_cycles;
    r->young_from[i] = line->young_from;  /* CAPTURE_INDEX_YOUNG_FROM_NONE if absent */
    r->trace_events += line->trace_events;
    r->trace_lines += line->trace_lines;
    ck_assert_uint_eq(line->sample, r->index_sample);
    snprintf(path, sizeof path, "%s/%s", dir, r->files[i]);
    read_segment(r, i, path, &seen);
  }
  for (size_t k = 0; k < index.boundary_count; k++) {
    const struct capture_index_boundary *line = &index.boundaries[k];
    ck_assert_int_lt(r->nboundaries, MAX_BOUNDARIES);
    struct boundary_read *b = &r->boundaries[r->nboundaries++];
    b->seq = line->seq;
    b->segment = line->segment;
    b->events = line->events;
    b->gc_cycles = line->gc_cycles;
    b->allocated = line->allocated;
    b->young_from = line->young_from;
    snprintf(b->cause, sizeof b->cause, "%s", line->cause ? line->cause : "");
  }
  if (index.has_stop)
    snprintf(r->stop_reason, sizeof r->stop_reason, "%s", index.stop.reason);
  capture_index_free(&index);
  if (part) {
    int i = r->segments;
    snprintf(path, sizeof path, "%s/%s", dir, part);
    read_segment(r, i, path, &seen);
  }
  free(seen.keys);
  return r;
}

/* Runs a shell command; returns its exit status (or 128+signal). */
static inline int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline int sh(const char *fmt, ...)
{
  char cmd[4096];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(cmd, sizeof cmd, fmt, ap);
  va_end(ap);
  int rc = system(cmd);
  if (rc == -1)
    return -1;
  if (WIFEXITED(rc))
    return WEXITSTATUS(rc);
  return 128 + WTERMSIG(rc);
}

/* The command that runs stock luajit with our module: when the module was
 * built with sanitizers (make check-sanitize), their runtimes must be
 * preloaded into the uninstrumented luajit. */
static inline const char *luajit_cmd(void)
{
  static char cmd[2048];
  if (cmd[0])
    return cmd;
  char probe[1200], line[1024], preload[1024] = "";
  snprintf(probe, sizeof probe, "ldd '%s/lua/ljleak/collector.so'", build_dir());
  FILE *p = popen(probe, "r");
  while (p && fgets(line, sizeof line, p)) {
    char name[256], arrow[8], path[512];
    if (sscanf(line, " %255s %7s %511s", name, arrow, path) == 3 &&
        (strstr(name, "libasan") || strstr(name, "libubsan")) &&
        strlen(preload) + strlen(path) + 2 < sizeof preload) {
      strcat(preload, path);
      strcat(preload, " ");
    }
  }
  if (p)
    pclose(p);
  if (preload[0])
    snprintf(cmd, sizeof cmd, "LD_PRELOAD='%s' ASAN_OPTIONS=detect_leaks=0 luajit", preload);
  else
    snprintf(cmd, sizeof cmd, "luajit");
  return cmd;
}

/* The scratch directory NAME of this suite, under $BUILD/tests/collector-tmp:
 * one folder per suite, since make runs suites side by side and two may
 * use one NAME. */
static inline void scratch_path(char *out, size_t size, const char *name)
{
  char cwd[1024];
  ck_assert_ptr_nonnull(getcwd(cwd, sizeof cwd));
  ck_assert_int_lt(snprintf(out, size, "%s/%s/tests/collector-tmp/%s/%s", cwd, build_dir(),
                            program_invocation_short_name, name),
                   (int)size);
}

/* A fresh scratch directory (scratch_path). */
static inline void scratch(char *out, size_t size, const char *name)
{
  scratch_path(out, size, name);
  ck_assert_int_eq(sh("rm -rf '%s' && mkdir -p '%s'", out, out), 0);
}

static inline char *slurp(const char *path)
{
  FILE *f = fopen(path, "r");
  if (!f)
    return strdup("");
  static char buf[1 << 16];
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  buf[n] = '\0';
  fclose(f);
  return strdup(buf);
}

/* Runs ljleak run -o DIR/cap ARGS in a new scratch directory NAME, output
 * dropped, expects exit 0, and reads the capture. */
static inline struct capture_read *run_and_read(const char *name, const char *args)
{
  char dir[1024], out[1100];
  scratch(dir, sizeof dir, name);
  snprintf(out, sizeof out, "%s/cap", dir);
  ck_assert_int_eq(sh("'%s/ljleak' run -o '%s' %s >/dev/null", build_dir(), out, args), 0);
  return read_capture(out, NULL);
}

#endif
