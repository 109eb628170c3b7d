/* diff/containers.c: growing containers: tables, userdata and threads whose entries grew between the two newest heap snapshots (docs/diff.md, "Growing containers"). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff/holders.h"
#include "diff/holders_graph.h"
#include "diff/holders_path.h"
#include "diff/holders_snapshots.h"
#include "format/memprof.h"

/* ---- Growing containers --------------------------------------------------------- */

struct holders_candidate {
  uint64_t address;
  uint32_t object;            /* in the later snapshot */
  uint64_t entries, bytes;    /* at the earlier one */
  int reused;                 /* an event freed or made a block at its address in between */
};

static int candidates_by_address(const void *a, const void *b)
{
  const struct holders_candidate *x = a, *y = b;
  return x->address < y->address ? -1 : x->address > y->address;
}

static int holders_container_type(enum snapshot_type type)
{
  return type == SNAPSHOT_TABLE || type == SNAPSHOT_USERDATA || type == SNAPSHOT_THREAD;
}

static struct holders_candidate *candidate_find(struct holders_candidate *c, size_t count, uint64_t address)
{
  size_t lo = 0, hi = count;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (c[mid].address < address)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < count && c[lo].address == address ? &c[lo] : NULL;
}

/* Marks the candidates whose address an event touched between the boundary
 * at from and the one at to (DIFF_HOLDERS_AT_END: the capture's end). */
static enum format_status holders_confirm(const struct diff_source *capture, size_t from, size_t to,
                                          struct holders_candidate *c, size_t count,
                                          struct format_error *err)
{
  const struct diff_source_boundary *a = &capture->boundaries[from];
  size_t last = to == DIFF_HOLDERS_AT_END ? capture->count - 1 : capture->boundaries[to].segment;
  uint64_t last_events = to == DIFF_HOLDERS_AT_END ? UINT64_MAX : capture->boundaries[to].events;
  for (size_t s = a->segment; s <= last && s < capture->count; s++) {
    struct format_error merr;
    struct memprof_reader *reader = memprof_reader_open_as(capture->segments[s].path, capture->segments[s].how, &merr);
    if (!reader) {
      format_error_set(err, FORMAT_BAD_INPUT, "%s", merr.message);
      return err->status;
    }
    uint64_t n = 0, first = s == a->segment ? a->events : 0, end = s == last ? last_events : UINT64_MAX;
    struct memprof_record record;
    while (n < end && memprof_reader_next(reader, &record) == FORMAT_OK) {
      if (record.type != MEMPROF_RECORD_EVENT)
        continue;
      if (n++ < first)
        continue;
      const struct memprof_event *e = &record.event;
      struct holders_candidate *hit;
      if ((e->kind == MEMPROF_EVENT_FREE || e->kind == MEMPROF_EVENT_REALLOC) &&
          (hit = candidate_find(c, count, e->old_address)))
        hit->reused = 1;
      if ((e->kind == MEMPROF_EVENT_ALLOC || e->kind == MEMPROF_EVENT_REALLOC) &&
          (hit = candidate_find(c, count, e->new_address)))
        hit->reused = 1;
    }
    memprof_reader_close(reader);
  }
  return FORMAT_OK;
}

static int candidates_by_growth(const void *a, const void *b, void *context)
{
  const struct snapshot *s = context;
  const struct holders_candidate *x = a, *y = b;
  uint64_t gx = holders_object_bytes(s, &s->objects[x->object]) - x->bytes;
  uint64_t gy = holders_object_bytes(s, &s->objects[y->object]) - y->bytes;
  if (gx != gy)
    return gx < gy ? 1 : -1;
  return x->address < y->address ? -1 : x->address > y->address;
}

/* The candidates: the containers of b whose entries (or bytes) grew since a, at one address, of
 * one type; *c gets them (*count). -1 when out of memory. */
static int containers_candidates(const struct snapshot *a, const struct snapshot *b,
                                 struct holders_candidate **c, size_t *count)
{
  *count = 0;
  if (!(*c = malloc((b->object_count ? b->object_count : 1) * sizeof **c)))
    return -1;
  for (size_t i = 0; i < b->object_count; i++) {
    const struct snapshot_object *o = &b->objects[i];
    const struct snapshot_object *was = holders_container_type(o->type) ? snapshot_find(a, o->address) : NULL;
    if (!was || was->type != o->type)
      continue;
    uint64_t bytes = holders_object_bytes(b, o), before = holders_object_bytes(a, was);
    uint64_t entries = snapshot_object_count(b, o), entries_before = snapshot_object_count(a, was);
    if (entries >= entries_before + DIFF_CONTAINERS_MIN_ENTRIES ||
        (bytes >= before + DIFF_CONTAINERS_MIN_BYTES && entries > entries_before))
      (*c)[(*count)++] = (struct holders_candidate){o->address, (uint32_t)i, entries_before, before, 0};
  }
  return 0;
}

/* result->containers from the count confirmed candidates c, b the later snapshot and g its
 * graph, each with its path, its growth between the two boundaries and where it was made (at
 * the later boundary, at). -1 when out of memory. */
static int containers_describe(const struct holders_graph *g, const struct snapshot *b,
                               const struct holders_candidate *c, size_t count,
                               const struct diff_aggregate_at *at, const uint64_t boundaries[2],
                               struct diff_result *result)
{
  struct holders_marks marks = {NULL, NULL};  /* nothing marked: string keys named */
  int status = -1;
  if (!(marks.labels = calloc((size_t)g->n + 1, sizeof *marks.labels)) ||
      !(marks.source = calloc(b->string_count + 1, sizeof *marks.source)) ||
      !(result->containers = calloc(count, sizeof *result->containers)))
    goto done;
  for (size_t i = 0; i < count; i++) {
    const struct snapshot_object *o = &b->objects[c[i].object];
    struct diff_container *out = &result->containers[i];
    result->container_count = i + 1;
    struct holders_text t;
    uint32_t holder;
    if (g->parent[c[i].object] != DIFF_HOLDERS_NONE)
      holders_render(g, &marks, c[i].object, &t, &holder);
    else
      snprintf(t.buf, sizeof t.buf, "%s", "(no path from a root)");
    const char *site = diff_aggregate_made_at(at, o->address);
    out->address = o->address;
    out->type = strdup(snapshot_type_name(o->type));
    out->path = strdup(t.buf);
    out->site = site ? strdup(site) : NULL;
    out->boundaries[0] = boundaries[0];
    out->boundaries[1] = boundaries[1];
    out->entries[0] = c[i].entries;
    out->entries[1] = snapshot_object_count(b, o);
    out->bytes[0] = c[i].bytes;
    out->bytes[1] = holders_object_bytes(b, o);
    if (!out->type || !out->path || (site && !out->site))
      goto done;
  }
  status = 0;
done:
  free(marks.labels), free(marks.source);
  return status;
}

int diff_holders_containers(struct diff_holders *holders, struct diff_source *capture,
                            const struct diff_aggregate *aggregate, struct diff_result *result,
                            const struct diff_options *options, struct format_error *err)
{
  if (holders->count < 2 || holders->snapshots[1].at == DIFF_HOLDERS_AT_END)
    return 0;
  const struct diff_holders_snapshot *later = &holders->snapshots[0], *earlier = &holders->snapshots[1];
  struct snapshot a, b;
  memset(&a, 0, sizeof a);
  memset(&b, 0, sizeof b);
  struct holders_candidate *c = NULL;
  size_t count = 0;
  struct holders_graph g;
  memset(&g, 0, sizeof g);
  struct diff_aggregate prefix;
  int have_prefix = 0, status = -1;
  int read = holders_read(holders, earlier, &a, "growing containers", 0, options);
  if (read == 0)
    read = holders_read(holders, later, &b, "growing containers", 0, options);
  if (read != 0) {
    status = read > 0 ? 0 : -1;
    goto done;
  }
  if (containers_candidates(&a, &b, &c, &count) < 0)
    goto done;
  snapshot_free(&a);
  memset(&a, 0, sizeof a);
  status = 0;
  if (!count)
    goto done;
  qsort(c, count, sizeof *c, candidates_by_address);
  if (holders_confirm(capture, earlier->at, later->at, c, count, err) != FORMAT_OK) {
    status = -1;
    goto done;
  }
  size_t kept = 0;
  for (size_t i = 0; i < count; i++)
    if (!c[i].reused)
      c[kept++] = c[i];
  count = kept;
  qsort_r(c, count, sizeof *c, candidates_by_growth, &b);
  if (count > DIFF_CONTAINERS_SHOWN)
    count = DIFF_CONTAINERS_SHOWN;
  if (!count)
    goto done;
  status = -1;
  /* Where each was made: the blocks at the later boundary (kept there, or read again). */
  struct diff_aggregate_at at_later = {aggregate, NULL};
  if (later->at != DIFF_HOLDERS_AT_END && !(at_later.kept = diff_aggregate_kept_at(aggregate, later->at))) {
    if (diff_aggregate_init(&prefix, capture->info.sample_bytes) < 0)
      goto done;
    have_prefix = 1;
    if (holders_replay(capture, later->at, &prefix, options, err) != FORMAT_OK)
      goto done;
    at_later.aggregate = &prefix;
  }
  const uint64_t boundaries[2] = {earlier->boundary, later->boundary};
  if (holders_graph_build(&g, &b) == 0)
    status = containers_describe(&g, &b, c, count, &at_later, boundaries, result);
done:
  if (have_prefix)
    diff_aggregate_release(&prefix);
  holders_graph_free(&g);
  free(c);
  snapshot_free(&a);
  snapshot_free(&b);
  return status;
}
