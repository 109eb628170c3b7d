/* diff/holders_top.c: what holds a heap now: the objects of one snapshot that keep the most bytes alive, by retained size, with their kinds and named paths (ljleak attach --snapshot, ljleak snapshot --holders). */
#include <stdlib.h>
#include <string.h>

#include "diff/diff.h"
#include "diff/holders.h"
#include "diff/holders_graph.h"
#include "diff/holders_path.h"

/* Larger retained first; then the lower node, for the same order from run to run. */
static int by_retained(const void *a, const void *b, void *context)
{
  const uint64_t *retained = context;
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  if (retained[x] != retained[y])
    return retained[x] < retained[y] ? 1 : -1;
  return x < y ? -1 : x > y;
}

/* Whether v is only a way to one object below it: a child of its in the dominator tree keeps
 * nine tenths of what it keeps or more (then the child is the holder to show). */
static int passes_through(const struct holders_graph *g, const uint64_t *largest_child, uint32_t v)
{
  return largest_child[v] >= g->retained[v] - g->retained[v] / 10;
}

int diff_top_holders(const struct snapshot *snapshot, struct diff_top_holder *out, size_t max,
                     size_t *count, uint64_t *total)
{
  struct holders_graph g;
  *count = 0;
  *total = 0;
  if (holders_graph_build(&g, snapshot) < 0)
    return -1;
  uint64_t *largest_child = calloc((size_t)g.n + 1, sizeof *largest_child);
  uint32_t *labels = calloc((size_t)g.n + 1, sizeof *labels);
  uint32_t *candidates = malloc(((size_t)g.reached + 1) * sizeof *candidates);
  if (!largest_child || !labels || !candidates) {
    free(largest_child);
    free(labels);
    free(candidates);
    holders_graph_free(&g);
    return -1;
  }
  for (uint32_t i = 0; i < g.reached; i++) {
    uint32_t v = g.order[i];
    if (v != g.n && g.idom[v] != DIFF_HOLDERS_NONE && g.retained[v] > largest_child[g.idom[v]])
      largest_child[g.idom[v]] = g.retained[v];
  }
  size_t n = 0;
  for (uint32_t i = 0; i < g.reached; i++) {
    uint32_t v = g.order[i];
    /* the roots, and what holds everything by definition, say nothing of the program */
    if (v == g.n || v == g.registry || v == g.main_thread || v == g.loaded)
      continue;
    if (g.retained[v] && !passes_through(&g, largest_child, v))
      candidates[n++] = v;
  }
  *total = g.retained[g.n];
  qsort_r(candidates, n, sizeof *candidates, by_retained, g.retained);
  struct holders_marks marks = {labels, NULL};   /* nothing collapsed but indices and keys */
  for (size_t i = 0; i < n && i < max; i++) {
    uint32_t v = candidates[i], holder;
    struct holders_text t;
    holders_render(&g, &marks, v, &t, &holder);
    out[i].retained = g.retained[v];
    out[i].kind = snapshot_type_name((enum snapshot_type)snapshot->objects[v].type);
    memcpy(out[i].path, t.buf, t.len + 1 < sizeof out[i].path ? t.len + 1 : sizeof out[i].path);
    out[i].path[sizeof out[i].path - 1] = '\0';
    (*count)++;
  }
  free(largest_child);
  free(labels);
  free(candidates);
  holders_graph_free(&g);
  return 0;
}
