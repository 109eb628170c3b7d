/* diff/holders_graph.h: the holder analysis's graph of a heap snapshot: the dominator tree, retained sizes and each node's shortest named path from the roots (for diff/holders_analyse.c, diff/holders_path.c and diff/containers.c). */
#ifndef LJLEAK_DIFF_HOLDERS_GRAPH_H
#define LJLEAK_DIFF_HOLDERS_GRAPH_H

#include <stddef.h>
#include <stdint.h>

#include "diff/holders.h"
#include "format/snapshot.h"

#define HOLDERS_DEPTH 64            /* steps of a path shown (its root end); deeper ones are cut */

/* What an edge is, for the order in which paths are looked for (docs/diff.md, "Holders"): a
 * path over named edges first, then one through a temporary (a stack slot no local names),
 * then one through a value of a weak-keyed table, which holds it only while its key lives. */
enum holders_edge {
  HOLDERS_NAMED,
  HOLDERS_TEMPORARY,
  HOLDERS_WHILE_KEY           /* a weak-keyed table's value under a collectable key */
};
#define HOLDERS_VIA_TEMPORARY 1u    /* how[]: a temporary on the node's path */
#define HOLDERS_VIA_KEY 2u          /* ... a weak-keyed table's value on it */

/* A snapshot as a graph: objects 0 .. n-1, the roots' node n; edges over
 * references that hold (not weak, to an object of the snapshot), read where they are (an
 * object's references, the roots) but for the dominators. */
struct holders_graph {
  const struct snapshot *snapshot;
  uint32_t n;
  uint32_t *first;            /* [n + 2] the edges as the dominators take them; freed by them */
  uint32_t *succ;
  uint32_t *root_node;        /* [root_count] each root's node, NONE for a weak one or no object */
  uint32_t *parent;           /* BFS tree: the node a node was reached from; NONE: unreached */
  uint32_t *parent_ref;       /* ... and the edge's reference (or root index) */
  uint32_t *top;              /* the node where a node's path is cut: itself within HOLDERS_DEPTH
                               * steps of the roots, else its ancestor HOLDERS_DEPTH steps down */
  uint8_t *depth;             /* a node's steps from the roots, at most HOLDERS_DEPTH */
  uint8_t *how;               /* HOLDERS_VIA_*: what its path goes through */
  uint8_t *written;           /* [n] 1: a string a function's prototype holds as a constant, a
                                 name the programmer wrote ("left", "shutdown"); else 0 */
  uint32_t *key_step;         /* NULL when no edge is HOLDERS_WHILE_KEY; else the reference of the
                               * first such step of a node's path (its key's is the next), or NONE */
  uint8_t *step_kind;         /* the kind of the reference a node was reached by (not a root's) ... */
  uint32_t *step_text;        /* ... and its label's string id (holders_text_id): the site's paths
                               * are marked node by node, without a look at each one's reference */
  uint64_t *retained;         /* [n + 1] bytes each node keeps alive */
  uint32_t *idom;             /* [n + 1] the dominator tree (NONE: unreached) */
  uint32_t *order;            /* [n + 1] its nodes in depth-first preorder, reached of them */
  uint32_t reached;
  uint32_t main_thread;       /* the object of the "main thread" root, or NONE */
  uint32_t registry;          /* the object of the "registry" root, or NONE */
  uint32_t loaded;            /* registry._LOADED (package.loaded), or NONE */
};

/* What the paths of a site's objects (or of the keys their notes name) are marked with, for
 * holders_collapsed: labels[node] the one text under which a node leads to them, + 1, or
 * MULTI, 0 off their paths; source[string id] the one object whose FIELD steps use the string,
 * + 1, or MULTI, 0 unseen. */
struct holders_marks {
  uint32_t *labels;
  uint32_t *source;
};

/* Builds g from snapshot: its edges, the dominator tree and each node's retained bytes, then
 * the shortest paths from the roots, named ones first (the edges are freed after them). 0, or
 * -1 when out of memory (holders_graph_free either way). */
int holders_graph_build(struct holders_graph *g, const struct snapshot *snapshot);
void holders_graph_free(struct holders_graph *g);

/* Frees the paths' arrays (the BFS tree and what it marks), keeping the dominator tree. */
void holders_paths_free(struct holders_graph *g);

/* The node of the key of the weak-keyed table's entry whose value reference is ref, or NONE. */
uint32_t holders_key_of(const struct snapshot *s, uint32_t ref);

/* The key of the weak-keyed table's entry on v's path, when v's path goes through one; else
 * NONE. */
static inline uint32_t holders_key(const struct holders_graph *g, uint32_t v)
{
  uint32_t step = g->key_step ? g->key_step[v] : DIFF_HOLDERS_NONE;
  return step == DIFF_HOLDERS_NONE ? DIFF_HOLDERS_NONE : holders_key_of(g->snapshot, step);
}

/* The string id of a reference's label; 0 for an INDEX (whose text holds its n). */
uint32_t holders_text_id(const struct snapshot_reference *r);

/* An object's bytes: its own block and the blocks it owns. */
uint64_t holders_object_bytes(const struct snapshot *snapshot, const struct snapshot_object *o);

#endif
