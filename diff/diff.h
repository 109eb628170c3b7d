/* diff/diff.h: the differential engine: captures in, per-site series and verdicts out; the result model and its JSON. */
#ifndef LJLEAK_DIFF_DIFF_H
#define LJLEAK_DIFF_DIFF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "format/stacks.h"

/* ---- The result model -----------------------------------------------------
 * A diff result is plain data: the engine fills it from captures, the report
 * stage renders it, and diff_result_read_json rebuilds the same struct from a saved
 * JSON result. Every string and array is owned by the result and released by
 * diff_result_free. Fields may be added; none is renamed or removed. The
 * model's functions (diff/model.c) are the one definition both stages use. */

enum diff_verdict {
  DIFF_VERDICT_INSUFFICIENT,  /* fewer than 2 boundaries (after the warm-up): nothing measured */
  DIFF_VERDICT_STEADY,
  DIFF_VERDICT_SHRINKING,
  DIFF_VERDICT_GROWING,
  DIFF_VERDICT_NEW,           /* base mode: growing in the candidate, not in the base */
  DIFF_VERDICT_WORSE,         /* base mode: growing in both, much faster in the candidate */
  DIFF_VERDICT_UNDECIDED      /* rose by the growth threshold, but the boundaries cannot show
                                 a significant trend (too few, or too many ties); last, so
                                 saved values keep their numbers */
};

/* What the rows of a result are: sites (each with its stacks in
 * result->stacks), or stacks (--by stack: every row a stack, judged alike). */
enum diff_by {
  DIFF_BY_SITE,
  DIFF_BY_STACK
};

/* A frame of a call stack, as the stack sidecar records it: its kind is
 * the sidecar's (enum stacks_frame_kind, format/stacks.h). */
struct diff_frame {
  enum stacks_frame_kind kind;
  char *name;                 /* LUA: chunk name ("@app.lua"); C: symbol; else "?" or "coroutine" */
  uint64_t defined;           /* LUA: the function's first line (0: a main chunk) */
  uint64_t line;              /* LUA: the current line in it (0: unknown) */
};

/* What a run concludes (diff_facts.outcome): a flagged site wins; else a
 * site without a verdict, or a capture without a boundary, is inconclusive. */
enum diff_outcome {
  DIFF_OUTCOME_PASS,
  DIFF_OUTCOME_FLAGGED,
  DIFF_OUTCOME_INCONCLUSIVE
};

enum diff_mode {
  DIFF_MODE_TREND,            /* verdicts over one capture */
  DIFF_MODE_RANGE,            /* boundary J against boundary I */
  DIFF_MODE_BASE              /* candidate capture against base capture */
};

enum diff_site_kind {
  DIFF_SITE_INTERNAL,
  DIFF_SITE_LUA,              /* "@app.lua:42" */
  DIFF_SITE_TRACE,            /* "TRACE started at @app.lua:40" */
  DIFF_SITE_C                 /* a C function's symbol name, or "CFUNC" */
};

/* A label given at capture time (docs/index-format.md): release=1.4.2. */
struct diff_label {
  char *key;
  char *value;
};

/* What the index says about a capture (zero or NULL where unknown). */
struct diff_capture {
  char *path;                 /* directory or first segment, as given */
  char *command;
  char *host;
  long pid;
  char *luajit_version;
  uint64_t sample_bytes;      /* mean sampling interval; 0 = every event recorded */
  size_t boundary_count;
  double *boundary_times;     /* [boundary_count] Unix time of each boundary, or NULL */
  uint64_t *gc_cycles;        /* [boundary_count] full GC cycles at each boundary, or NULL */
  uint64_t *heap_bytes;       /* [boundary_count] Lua heap at each boundary, or NULL */
  uint64_t *allocated;        /* [boundary_count] bytes allocated since the capture started, at
                                 each boundary (the work done), or NULL */
  uint64_t run_allocated;     /* bytes allocated over the whole capture: the most any boundary
                                 line gives, the uncounted ones (exit) too; 0 if unknown */
  unsigned char *forced;      /* [boundary_count] 1 where the boundary ended a full cycle the
                                 collector forced (start, stop, --every, boundary()), or NULL */
  double start_time;          /* Unix time the capture started; 0 if unknown */
  uint64_t events;            /* events read */
  int truncated;              /* a segment was cut; it was used up to its last complete event */
  char *exe;                  /* the program (the index's exe), or NULL */
  double stop_time;           /* Unix time the capture stopped (the index's stop line); 0 if unknown */
  char *stop_reason;          /* why (the stop line's reason: "exit", "write-error", ...), or NULL */
  size_t label_count;
  struct diff_label *labels;  /* [label_count] in the index's order, or NULL */
  size_t snapshots;           /* heap snapshots the index lists (0: none, so no holders) */
};

/* How a site's blocks are held at a heap snapshot (diff/holders.h): one path
 * from a GC root, array indices and unique keys collapsed to [*], and what
 * it holds of the site. */
struct diff_holder {
  char *path;                 /* "auth.tokens[*]", "router.resolve ▸ upvalue cache[*]" */
  uint64_t objects;           /* the site's objects held through it */
  uint64_t bytes;             /* the site's live bytes in them */
  char *holder_type;          /* the object the path ends in before its objects: "table", ... */
  uint64_t retained_bytes;    /* what that object keeps alive: its subtree in the dominator tree */
};

/* One of the objects that hold the most of a heap snapshot (diff_top_holders). */
struct diff_top_holder {
  uint64_t retained;          /* the bytes it keeps alive: its subtree in the dominator tree */
  const char *kind;           /* "table", "function", ... (snapshot_type_name) */
  char path[1024];            /* its path from a root, as the programmer names it */
};
struct snapshot;
/* What holds the heap of one snapshot, with no history needed: up to max objects into out, by
 * retained size, largest first. An object that is only the way to one below it (a child in the
 * dominator tree keeps nine tenths of what it keeps) gives its place to that child; the
 * registry, the main thread and package.loaded (which hold everything) are not listed. *count
 * gets how many were written, *total the bytes the roots reach. 0, or -1 when out of memory. */
int diff_top_holders(const struct snapshot *snapshot, struct diff_top_holder *out, size_t max,
                     size_t *count, uint64_t *total);

/* The allow-list rule a site's name matched (docs/diff.md, "Allow-list"). */
struct diff_allowance {
  char *pattern;              /* shell glob on the site name */
  char *budget;               /* as written: "4k/boundary", "1k/MB" */
  double budget_bytes;        /* growth allowed per boundary, or per MB of work */
  int per_megabyte;           /* the budget is per MB (2^20 bytes) allocated, not per boundary */
  char *comment;              /* why the growth is allowed */
  char *file;                 /* the allow file, and the rule's line in it */
  size_t line;
  double growth;              /* the site's growth in the budget's unit (+inf: no work done) */
};

/* Why a site has no verdict, or why a result's rising sites have none:
 * decided by the model (diff_result_fill_facts), put in words by the reports. */
enum diff_undecided_cause {
  DIFF_UNDECIDED_NONE,            /* it has a verdict */
  DIFF_UNDECIDED_UNMEASURED,      /* insufficient: under 2 boundaries, no change measured */
  DIFF_UNDECIDED_NO_P_VALUE,      /* a saved result without its p-value: no count of
                                     boundaries can show a trend */
  DIFF_UNDECIDED_SHORT_CAPTURE,   /* fewer boundaries after the warm-up than a trend needs */
  DIFF_UNDECIDED_SHORT_BASE,      /* base mode: the base has fewer than a trend needs */
  DIFF_UNDECIDED_BASE_NO_TREND,   /* base mode: the base cannot show whether it grew there */
  DIFF_UNDECIDED_NO_TREND,        /* enough boundaries, but no significant trend (ties) */
  DIFF_UNDECIDED_FORCED_GROWS,    /* steady on every boundary, growing on the forced ones: its
                                     newest blocks are young at the program's own cycles */
  DIFF_UNDECIDED_RELEASED,        /* it rose significantly, then was let go at the end */
  DIFF_UNDECIDED_YOUNG_GROWS,     /* steady, growing with its young blocks counted: its newest
                                     copy is young at each boundary */
  DIFF_UNDECIDED_HELD_BRIEFLY     /* it rose, then held to the end for fewer boundaries than
                                     it rose for: a cache that filled, or a leak that paused */
};

/* What a site (or stack) is to its result, found by diff_result_fill_facts;
 * zero until then. */
struct diff_site_facts {
  int flagged;                /* diff_site_flagged under the result's mode */
  int undecided;              /* diff_site_undecided */
  int rose_undecided;         /* undecided and rose (not insufficient): the tables of
                                 undecided sites show these, with their rise */
  enum diff_undecided_cause cause;  /* why it has no verdict (NONE when it has one); the
                                       base is to blame when it is too short, or has no
                                       verdict of its own for the site */
};

/* A container that grew between two heap snapshots (diff/holders.h): the
 * same object (same address, and no event freed or made a block there in
 * between) with more entries or more bytes at the later one. */
struct diff_container {
  uint64_t address;           /* its address at both snapshots; 0 when unknown (a result
                                 written before it was saved) */
  char *type;                 /* "table", "userdata", "thread" */
  char *site;                 /* the site that made it ("@app.lua:31"), or NULL when unknown */
  char *path;                 /* how it is held at the later snapshot: "_G.pool.listeners" */
  uint64_t boundaries[2];     /* the seqs of the two snapshots' boundaries */
  uint64_t entries[2];        /* its entries at each (a thread: stack slots in use) */
  uint64_t bytes[2];          /* its bytes at each: its own block and the blocks it owns */
};

/* Object kinds, by a heap snapshot's types (format/snapshot.h's, but for its wire-only
 * CONTINUED): what a site's blocks are part of (diff/suspects.h names them). */
#define DIFF_KIND_COUNT 11
struct diff_kind_count {
  uint64_t objects;           /* the site's objects of that kind at its holders' snapshot */
  uint64_t bytes;             /* the site's live bytes in them */
  /* Of those, the objects the site made only parts of (a table's slots, a thread's stack: it
   * made none of their own blocks), and its bytes in them. 0 in a suspect's kinds (an object
   * once, whichever site made it) and in a result written before they were saved. */
  uint64_t parts, part_bytes;
};

/* The container of a growing site's objects at its holders' snapshot (diff/suspects.h,
 * docs/diff.md "Leak suspects"): where the dominator tree from the roots stops holding
 * most of the site's bytes under one object. */
struct diff_site_container {
  uint64_t address;           /* the object's address: sites with the same one are one suspect */
  char *type;                 /* "table", "function", "thread", ... */
  char *path;                 /* its path, from the site's holder paths when one names it */
  int named;                  /* path is a holder path's (else the top holder path's start) */
  char *site;                 /* the site that made it, or NULL when unknown */
  uint64_t retained_bytes;    /* what would be freed if it were let go (its dominator subtree) */
  uint64_t objects, bytes;    /* of those, the site's objects and live bytes */
  struct diff_kind_count kinds[DIFF_KIND_COUNT];  /* the same by kind (a result written before
                                                     they were saved: the site's kinds) */
  uint64_t boundary;          /* the seq of the snapshot's boundary */
  /* For objects that are the values of a weak-keyed table (or under them): the address of the
   * object that holds most of their keys (by the site's bytes; the keys' immediate dominator),
   * 0 when none does. They live while their keys live: with a growing site of that object, one
   * leak (diff/suspects.h). */
  uint64_t key_address;
  /* SNAPSHOT_FLAG_WEAK_* when the site made only the slots of a weak table (this container)
   * and key_address holds most of its weak keys or values: its entries stay while those live,
   * so its slots grow with key_address's leak; 0 for values of a weak-keyed table. */
  int key_slots;
  /* Of the site's objects under the container (objects, kinds), the ones an earlier growing
   * site with the same container has too (its blocks in the same objects): a suspect counts
   * each object once. */
  uint64_t shared_objects;
  uint64_t shared_kinds[DIFF_KIND_COUNT];
};

/* A value shown with --values (diff/values.h, docs/diff.md "Values"): the first bytes of a
 * leaked string of the site, or a key of its container, from the values sidecar of its
 * holders' snapshot. Values can be secrets: only a result made with --values has any. */
enum diff_value_kind {
  DIFF_VALUE_STRING,          /* a string object of the site's live blocks */
  DIFF_VALUE_KEY              /* one of the first keys of the site's container (a table) */
};
struct diff_value {
  enum diff_value_kind kind;
  char *text;                 /* what it shows, as UTF8_TERMINAL_TEXT escapes it (printable UTF-8:
                                 a control or a byte that is no UTF-8 as \xHH): a string's first
                                 bytes (quoted: 1), or a key that is no string as it reads
                                 (quoted: 0): 42, 1.5, true, [table] */
  int quoted;
  uint64_t length;            /* quoted: the string's whole length in bytes */
  uint64_t shown;             /* quoted: of those, the bytes text shows (the rest cut) */
};

/* Whether a result shows values (diff_options.values), and whether it could. */
enum diff_values_state {
  DIFF_VALUES_OFF,            /* not asked for: none shown, nothing said (the default) */
  DIFF_VALUES_SHOWN,          /* asked for, and the capture has values sidecars */
  DIFF_VALUES_NOT_CAPTURED    /* asked for, and the capture has none: the reports say so */
};

/* One site: its name and its series, one entry per boundary. */
struct diff_site {
  char *name;                 /* stable name: no trace numbers, no addresses */
  uint64_t id;                /* XXH3-64 of name */
  enum diff_site_kind kind;
  char *source_file;          /* LUA, TRACE: chunk name without its '@', or NULL */
  uint64_t source_line;       /* LUA, TRACE: the line */
  char *library;              /* C: the object that holds the function ("cjson.so", from the
                                 index's c_function lines), or NULL */
  enum diff_verdict verdict;
  size_t count;               /* boundaries in the series */
  uint64_t *live_bytes;       /* [count] bytes still live at each boundary */
  uint64_t *live_blocks;      /* [count] blocks still live at each boundary */
  uint64_t *alloc_bytes;      /* [count] bytes allocated within each segment */
  uint64_t *free_bytes;       /* [count] bytes freed within each segment */
  uint64_t *floors;           /* [count] or NULL: at a drop's low, the bytes of the blocks live
                                 at its high that survived it (diff/survivors.h), else
                                 DIFF_TREND_UNMEASURED; what the fill-and-flush rule judges */
  uint64_t *survived;         /* [count] or NULL: at each boundary, at least the bytes still live
                                 of the blocks live at the boundary before, from the frees of
                                 the segment between (UINT64_MAX: not known); the least the
                                 series fell to within a segment (docs/diff.md, "Fill and flush") */
  uint64_t *young;            /* [count] or NULL: the bytes of its young blocks at each boundary,
                                 left out of live_bytes (docs/diff.md, "Young blocks") */
  uint64_t *kept;             /* [count] or NULL: the live bytes, but at a boundary of the
                                 program's own cycles those still live at the next boundary
                                 (diff_trend_kept_series); what the floating-garbage rule judges */
  uint64_t allocs;            /* allocation events over the whole capture (scaled if sampled) */
  uint64_t frees;             /* free events over the whole capture (scaled if sampled) */
  double growth_bytes_per_segment;  /* Theil-Sen slope of live_bytes */
  double growth_bytes_per_second;   /* the same per second, 0 when times are unknown */
  double trend_statistic;     /* Mann-Kendall S */
  double trend_p_value;       /* one-sided p-value of an upward trend */
  /* Base mode: the same site in the base capture (base_count 0 if absent). */
  enum diff_verdict base_verdict;
  size_t base_count;
  uint64_t *base_live_bytes;  /* [base_count] */
  double base_growth_bytes_per_segment;
  /* Base mode, a new site: the base's site of the same chunk at another line that the candidate
   * lacks, and that grew (or rose) in the base: the same leak, its line moved by an edit above
   * it? (compare_base_rows pairs them in line order, one file at a time). Owned, or NULL. */
  char *base_moved;
  /* Range mode: live bytes at boundary from and at boundary to. */
  int64_t range_delta_bytes;
  /* The allow-list rule the name matched (owned), or NULL; allowed when the
   * site grew (growing, new, worse, undecided) within its budget. */
  struct diff_allowance *allowance;
  int allowed;
  /* Judged steady on every boundary, but growing on those whose full cycles the collector
   * forced (diff_result_judge_site): undecided, DIFF_UNDECIDED_FORCED_GROWS. */
  int forced_growing;
  /* Undecided as released at the end (docs/diff.md): it rose with a significant trend, then was
   * let go in the last quarter of the run. DIFF_UNDECIDED_RELEASED. */
  int released_at_end;
  /* Judged steady as filled and flushed, but its drops were copies replaced by young ones, and
   * with its young blocks counted it grows (diff_result_judge_site): undecided,
   * DIFF_UNDECIDED_YOUNG_GROWS. */
  int young_growing;
  /* Undecided as held briefly (docs/diff.md, "Rose, then held"): it rose significantly, then
   * held its level to the end, for as many boundaries as a trend needs but fewer than it rose
   * for. DIFF_UNDECIDED_HELD_BRIEFLY. */
  int held_briefly;
  /* A stack (an entry of result->stacks, or a row of a DIFF_BY_STACK
   * result): the same series and verdicts, for the blocks that one site
   * made under one call stack. Its name is its frames' labels root first,
   * joined by ';' (diff_frame_label), and the site's name, cleaned as a
   * label, last when the leaf's label is not it: no label holds a ';', and
   * the part after the last is the site's; a stack with no frames (blocks
   * whose stack was not recorded) is named as its site. kind and source_*
   * are its site's.
   * Zero for a site. */
  uint64_t site_id;           /* the id of its site */
  size_t frame_count;
  struct diff_frame *frames;  /* [frame_count], frames[0] the leaf (the site's function) */
  int is_stack;               /* 1 for a stack */
  /* A growing site of a capture with heap snapshots: the paths that hold its
   * blocks, most bytes first (diff/holders.h); none otherwise. */
  size_t holder_count;
  struct diff_holder *holders;
  uint64_t holders_boundary;  /* the seq of the boundary whose snapshot they come from */
  struct diff_site_facts facts;  /* diff_result_fill_facts */
  /* A site with holders: its objects by kind at the holders' snapshot (all zero when
   * unknown), and their container (owned; NULL when none holds most of them). */
  struct diff_kind_count kinds[DIFF_KIND_COUNT];
  struct diff_site_container *container;
  /* With --values, a flagged site with a container: up to DIFF_VALUES_STRINGS of its strings,
   * then up to DIFF_VALUES_KEYS keys of its container (diff/values.h); none otherwise. */
  size_t value_count;
  struct diff_value *values;
};

struct diff_allow;            /* an allow-list read by diff_allow_load */
struct diff_suspect;          /* diff/suspects.h */

/* The knobs that decide verdicts (diff_options_default gives the defaults). */
struct diff_options {
  size_t min_boundaries;      /* may raise the boundaries a trend needs (diff_boundaries_needed) */
  double max_p_value;         /* significance of the upward trend */
  double min_growth_bytes;    /* total growth (slope x boundaries) that matters */
  double worse_ratio;         /* base mode: candidate at least this many times faster is worse */
  size_t range_from, range_to;  /* range mode: boundaries, 1-based */
  int strict;                 /* a cut segment is an error */
  int jobs;                   /* segments read in parallel */
  /* Called now and then while segments are read (may be NULL): bytes of
   * input read so far and in all. The front end draws a progress bar. */
  void (*progress)(void *context, uint64_t done_bytes, uint64_t total_bytes);
  void *progress_context;
  /* Added by the engine. */
  double min_growth_fraction; /* growth must also reach this fraction of the site's peak live bytes */
  double min_drop_bytes;      /* a fall that frees memory, when not min_growth_bytes (0): a
                                 sampled capture's falls are frees it saw, judged by
                                 --min-growth, while its rises are judged by its floor */
  /* Called for each warning (a cut segment: "FILE: byte N: ..."); may be NULL. */
  void (*warn)(void *context, const char *message);
  void *warn_context;
  size_t warmup;              /* the first boundaries left out of the verdicts (caches filling) */
  int sampled;                /* added by diff_result_judging_options: the capture was sampled, so
                               * a refill to as many blocks may differ by their sizes' rounding */
  int forced_only;            /* only boundaries the collector forced (exact; by work alike in
                                 two builds): the program's own cycles are no points */
  const struct diff_allow *allow;  /* may be NULL; never kept in a result's options */
  enum diff_by by;            /* rows by site (default) or by stack */
  int floors_from_lows;       /* fill and flush judged on the lows alone: no second reading
                                 to measure the floors (docs/diff.md, "Fill and flush") */
  int no_holders;             /* no heap snapshot is read: no holders, containers or suspects */
  int values;                 /* --values: previews of the suspects' strings and keys from the
                                 capture's values sidecars (they can be secrets: off by default) */
};

/* What a result's sites add up to, for the reports' headlines. */
struct diff_tally {
  size_t flagged;                   /* diff_site_flagged */
  size_t new_count, worse_count;    /* the flagged ones new and worse */
  double growth_bytes_per_segment;  /* the flagged ones' growth, summed in the sites' order */
  double growth_bytes_per_second;
  int64_t range_delta_bytes;        /* the flagged ones' range deltas, summed */
  size_t undecided;                 /* diff_site_undecided */
  size_t forced_growing;            /* of those, DIFF_UNDECIDED_FORCED_GROWS */
  size_t released;                  /* of those, DIFF_UNDECIDED_RELEASED */
  size_t young_growing;             /* of those, DIFF_UNDECIDED_YOUNG_GROWS */
  size_t held_briefly;              /* of those, DIFF_UNDECIDED_HELD_BRIEFLY */
};

/* Why a result is inconclusive. */
enum diff_inconclusive_cause {
  DIFF_INCONCLUSIVE_NOT,            /* the outcome is pass or flagged */
  DIFF_INCONCLUSIVE_NO_BOUNDARY,    /* the capture has no boundary: nothing was measured */
  DIFF_INCONCLUSIVE_TOO_FEW_BOUNDARIES,  /* under 2 after the warm-up: no change measured */
  DIFF_INCONCLUSIVE_NO_VERDICT,     /* sites without a verdict: rose_undecided (why:
                                       rose_cause) and insufficient */
  DIFF_INCONCLUSIVE_SAMPLING_FLOOR  /* nothing flagged, but the sampling could not have seen
                                       a growth of --min-growth: sample_floor is above it */
};

/* What would decide an inconclusive result. */
enum diff_remedy {
  DIFF_REMEDY_NONE,                 /* the outcome is pass or flagged */
  DIFF_REMEDY_RUN_LONGER,           /* more boundaries in the capture */
  DIFF_REMEDY_LONGER_BASE,          /* a base as long as the candidate: the candidate has the
                                       boundaries a trend needs, and the base is too short,
                                       or the base alone keeps every rising site undecided */
  DIFF_REMEDY_FINER_SAMPLING,       /* a smaller --sample (or none), or a longer run */
  DIFF_REMEDY_FORCED_ONLY,          /* every undecided site grows at the forced boundaries: judge
                                       those alone, or capture with --force-gc */
  DIFF_REMEDY_BEFORE_RELEASE,       /* every undecided site was let go at the end: a boundary
                                       before the release, or a longer run */
  DIFF_REMEDY_EVERY,                /* every undecided site grows with its young blocks counted:
                                       capture with --every */
  DIFF_REMEDY_MORE_WORK             /* every undecided site held briefly: run the program on for
                                       more of its work (more boundaries of the same work do not
                                       lengthen the hold against the climb) */
};

/* What a result says, found once by diff_result_fill_facts from its sites,
 * captures and options: every report and exit code reads these, none
 * derives them again. */
struct diff_facts {
  int filled;                       /* diff_result_fill_facts ran */
  /* The run's outcome, the one definition behind every exit code and every
   * report's headline: flagged when a site is flagged; else inconclusive
   * when a site has no verdict or the capture has no boundary; else pass. */
  enum diff_outcome outcome;
  enum diff_inconclusive_cause inconclusive;
  enum diff_remedy remedy;
  struct diff_tally tally;
  size_t rose_undecided;            /* sites undecided that rose (diff_site_facts) */
  size_t insufficient;              /* sites without a verdict measured on under 2 boundaries */
  /* Why the rising undecided sites have none (NONE when none rose): the
   * causes of diff_site_facts.cause, in their order, except that a base long
   * enough is to blame only when every one of them grows significantly in
   * the candidate (a site's cause looks at its base verdict instead). */
  enum diff_undecided_cause rose_cause;
  size_t boundaries;                /* the capture's boundary_count, or the longest series
                                       when a saved result does not say */
  size_t judged;                    /* boundaries after the warm-up */
  size_t base_judged;               /* the base's boundaries after the warm-up */
  size_t needed;                    /* diff_boundaries_needed: judged boundaries a trend
                                       needs; SIZE_MAX when none can show one */
  /* How much of the run the boundaries cover, by work (bytes allocated):
   * the last counted boundary's share of the run's, and the largest share
   * between two counted boundaries (or after the last); -1 when the capture
   * does not record its work. */
  double coverage;
  double longest_stretch;
  int ends_early;                   /* coverage below DIFF_COVERAGE_EARLY */
  /* A sampled capture: the smallest growth over the judged boundaries that
   * it could have called growing (diff_sampling_floor); 0 for a full
   * capture, UINT64_MAX when no growth could be (too few boundaries). */
  uint64_t sample_floor;
};

/* The last counted boundary's share of the run's work below which a
 * verdict's evidence ends early: the reports say so. */
#define DIFF_COVERAGE_EARLY 0.9

/* The smallest growth over n judged boundaries that a capture sampled at a
 * mean interval of sample bytes could call growing under options: m
 * sampled blocks (each stands for about sample bytes) recorded at evenly
 * spaced boundaries (the first half a step in), for the fewest m the
 * verdict rule calls growing (its
 * p-value, its size and its persistence), with no --min-growth of its own
 * (a --min-growth at the floor accepts it). UINT64_MAX when none can be. n
 * counts at most DIFF_SOURCE_MAX_BOUNDARIES, the points a diff judges. */
uint64_t diff_sampling_floor(uint64_t sample, size_t n, const struct diff_options *options);

/* Base mode: a site that grew in the base and that the candidate lacks, paired with no new site
 * of the candidate (base_moved): the leak fixed, or its site renamed. Said, never judged on. */
struct diff_base_gone {
  char *name;
  double growth_bytes_per_segment;  /* its growth in the base */
};

struct diff_result {
  enum diff_mode mode;
  struct diff_options options;
  struct diff_capture capture;   /* the capture examined (the candidate, in base mode) */
  struct diff_capture base;      /* base mode only */
  size_t site_count;
  struct diff_site *sites;       /* flagged first, by growth rate; then the rest by live bytes */
  size_t flagged;                /* sites whose verdict fails the run (diff_site_flagged) */
  /* By site: the (site, stack) pairs of a capture with stack sidecars, each
   * with its own series and verdict, in the sites' order (flagged first, by
   * growth); none for a capture without sidecars, or by stack (the rows are
   * the stacks). A site's stacks are those whose site_id is its id. */
  size_t stack_count;
  struct diff_site *stacks;
  struct diff_facts facts;       /* diff_result_fill_facts */
  /* Containers that grew between the capture's two newest heap snapshots,
   * most bytes of growth first (trend mode; none without two snapshots). */
  size_t container_count;
  struct diff_container *containers;
  size_t base_gone_count;        /* base mode: the base's growing sites gone, fastest first */
  struct diff_base_gone *base_gone;
  /* Leak suspects (diff/suspects.h): the flagged sites grouped by the container that holds
   * their growth, most growth first; found by diff_suspects_find from the sites, so never
   * stale: diff_result_finish and diff_result_read_json find them again. suspects_grouped: some
   * site has a container (a heap snapshot was analysed), so the flagged sites outside every
   * suspect are findings on their own; 0: not grouped (no snapshot, or an older result). */
  size_t suspect_count;
  struct diff_suspect *suspects;
  int suspects_grouped;
  enum diff_values_state values;  /* --values: whether the sites' values could be read */
};

/* Whether a site fails the run, in any mode: new and worse always (the
 * engine gives them only in base mode; a saved result may carry them in
 * any); growing outside base mode, where a site growing in both builds at a
 * like rate is no regression. Every exit code and every count of flagged
 * sites that a report prints comes from this, through the facts. */
int diff_site_flagged(enum diff_mode mode, const struct diff_site *site);
/* Whether a site (or a stack row, whose name ends with its site's) is the JIT's own work: the
 * traces the compiler keeps. Their memory is bounded by the JIT's limits (maxtrace traces, each
 * of bounded size; a full trace cache is flushed), so however it rose while the program warmed
 * up, it is no leak: the verdict is steady. */
int diff_site_is_jit(const char *name);
/* Whether a site has no verdict: undecided or insufficient, and not allowed.
 * Every count of sites without a verdict that a report prints comes from
 * this, through the facts. */
int diff_site_undecided(const struct diff_site *site);

/* Finds result->facts, and the facts of each site and stack, from the
 * sites, the captures and the options. The engine calls it when it makes a
 * result, and diff_decide and diff_result_by_stack when they change one;
 * diff_result_read_json when it reads one. A result built by hand needs it after
 * its last change, before it is rendered. Nothing to free. */
void diff_result_fill_facts(struct diff_result *result);
/* The fewest boundaries (after the warm-up) a trend is judged on: the
 * fewest at which a strictly rising series reaches max_p_value (5 at 0.01,
 * 4 at 0.05), or min_boundaries when that is larger. SIZE_MAX when no
 * series can reach max_p_value (it is not above 0). */
size_t diff_trend_boundaries_needed(double max_p_value);
size_t diff_boundaries_needed(const struct diff_options *options);

/* Names as they appear in every format and in the JSON schema. A name
 * returns "unknown" for a value outside its enum; a parse returns 0, or -1
 * for a name that is not one. */
const char *diff_verdict_name(enum diff_verdict verdict);
int diff_verdict_parse(const char *name, enum diff_verdict *verdict);
const char *diff_outcome_name(enum diff_outcome outcome);
int diff_outcome_parse(const char *name, enum diff_outcome *outcome);
const char *diff_mode_name(enum diff_mode mode);
int diff_mode_parse(const char *name, enum diff_mode *mode);
const char *diff_site_kind_name(enum diff_site_kind kind);
int diff_site_kind_parse(const char *name, enum diff_site_kind *kind);
const char *diff_by_name(enum diff_by by);
int diff_by_parse(const char *name, enum diff_by *by);
const char *diff_frame_kind_name(enum stacks_frame_kind kind);
int diff_frame_kind_parse(const char *name, enum stacks_frame_kind *kind);

/* A frame's label in a stack's name and in folded stacks: "@app.lua:42"
 * (chunk and current line) for Lua, else its name, cleaned as a name
 * (utf8_name_text) with ';' as '_', so that labels split back. Returns the
 * length it needed; it writes at most size - 1 bytes, cut between
 * characters, and a NUL. */
size_t diff_frame_label(const struct diff_frame *frame, char *buffer, size_t size);
/* Frees the strings of a site (or stack) and its arrays, not the struct. */
void diff_site_release(struct diff_site *site);

/* Makes a by-site result's stacks its rows (DIFF_BY_STACK), as `--by
 * stack` would have made them: result->sites become its stacks, or, for a
 * result without stacks, each site a stack without frames. Re-counts
 * flagged; a result by stack already is left as it is. */
void diff_result_by_stack(struct diff_result *result);

/* Frees an allowance and what it owns; NULL is fine. */
void diff_allowance_free(struct diff_allowance *allowance);
/* Appends a label (copies of key and value) to capture: 0, or -1 when out
 * of memory. */
int diff_capture_add_label(struct diff_capture *capture, const char *key, size_t key_length,
                           const char *value, size_t value_length);
/* The value of capture's label key, or NULL. */
const char *diff_capture_label(const struct diff_capture *capture, const char *key);
/* Frees what a capture's metadata owns and zeroes it. */
void diff_capture_free(struct diff_capture *capture);
/* Frees what result owns (every string and array, both captures) and zeroes
 * it; NULL is fine. */
void diff_result_free(struct diff_result *result);

/* ---- The result as JSON (diff/result_json_write.c, result_json_read.c) -----
 * The model's own encoding (docs/json-schema.md): what `ljleak diff --format
 * json` writes, `ljleak report` renders again and `ljleak merge` merges. */

/* Writes result as its JSON (one object, stable names, exact numbers).
 * outcome_reason is the "outcome_reason" of an inconclusive result, in the
 * report's words (report_outcome_reason); its facts must be filled. */
void diff_result_write_json(const struct diff_result *result, const char *outcome_reason, FILE *out);

/* Writes a capture's labels as the member "labels": {"KEY": "VALUE", ...}, as
 * the result and the merge's JSON have them (format/json_write.h). */
struct json_writer;
void diff_capture_write_labels(struct json_writer *writer, const struct diff_capture *capture);

/* Rebuilds a result from its JSON; diff_result_free frees it. Its facts are
 * filled; result->flagged is the JSON's "flagged" when it has one, else the
 * facts' count. Returns FORMAT_OK, or FORMAT_BAD_INPUT with "FILE: byte N: what
 * is wrong", FORMAT_IO ("FILE: why") or FORMAT_NO_MEMORY in error (path "-"
 * reads stdin, named <stdin>). */
enum format_status diff_result_read_json(const char *path, struct diff_result *result,
                                         struct format_error *error);

/* As diff_result_read_json, from text in memory; name is used in error messages. */
enum format_status diff_result_read_json_text(const char *name, const char *text, size_t length,
                                              struct diff_result *result, struct format_error *error);

/* As diff_result_read_json, from text already parsed (format/json_read.h), for a
 * reader that looked at it first (ljleak merge). */
struct json_read_value;
enum format_status diff_result_read_json_value(const char *name, const struct json_read_value *root,
                                               struct diff_result *result, struct format_error *error);

/* ---- The engine ------------------------------------------------------------
 * A capture is given as paths: one directory (read through its index, or its
 * *.bin, *.memprof and *.gz files in name order when it has none, plus a
 * trailing .part as the last segment), or segment files in order. The engine
 * never prints: warnings go to options->warn, errors come back in err. */

/* Errors are format/error.h's: FORMAT_USAGE (bad options, e.g. --from/--to out of
 * range), an input error (FORMAT_BAD_INPUT, FORMAT_UNSUPPORTED, FORMAT_IO: unreadable
 * or corrupt input, "FILE: byte N: what is wrong"), FORMAT_CUT (a cut segment, and
 * options->strict), FORMAT_NO_MEMORY (out of memory or threads). */

/* Fills options with the defaults (docs/diff.md explains them). */
void diff_options_default(struct diff_options *options);

/* Verdicts over one capture (DIFF_MODE_TREND). */
enum format_status diff_trend(const char *const *paths, size_t path_count,
                              const struct diff_options *options,
                              struct diff_result *result, struct format_error *err);

/* Boundary options->range_to against boundary options->range_from (DIFF_MODE_RANGE). */
enum format_status diff_range(const char *const *paths, size_t path_count,
                              const struct diff_options *options,
                              struct diff_result *result, struct format_error *err);

/* A candidate capture against a base capture (DIFF_MODE_BASE). */
enum format_status diff_base(const char *const *base_paths, size_t base_count,
                             const char *const *paths, size_t path_count,
                             const struct diff_options *options,
                             struct diff_result *result, struct format_error *err);

/* Decides a result's verdicts again from its series (a saved result): with
 * options' warm-up, thresholds and allow-list (without one, each site keeps
 * the rule it matched, judged again). Range mode keeps its verdicts (a warm-up
 * there is a usage error). Re-sorts the sites. */
enum format_status diff_decide(struct diff_result *result, const struct diff_options *options,
                               struct format_error *err);

/* ---- The allow-list (diff/allow.c) -----------------------------------------
 * A text file of rules, one a line: PATTERN BUDGET # WHY (docs/diff.md). A
 * malformed or unreadable file is FORMAT_USAGE, "FILE: line N: what". */
enum format_status diff_allow_load(const char *path, struct diff_allow **allow,
                                   struct format_error *err);
void diff_allow_free(struct diff_allow *allow);

#endif
