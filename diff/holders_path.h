/* diff/holders_path.h: a node's path in a holders graph as text, as the programmer names it (docs/diff.md, "Holders"). */
#ifndef LJLEAK_DIFF_HOLDERS_PATH_H
#define LJLEAK_DIFF_HOLDERS_PATH_H

#include <stddef.h>
#include <stdint.h>

#include "diff/holders_graph.h"

#define HOLDERS_MULTI UINT32_MAX    /* collapse: several labels lead from one object to the site */
/* A node's label mark (holders_marks.labels) counts the children on the site's paths once it
 * has several: HOLDERS_FEW for two, up to HOLDERS_MULTI for more than DIFF_HOLDERS_NAMED_MAX. */
#define HOLDERS_FEW (HOLDERS_MULTI - (DIFF_HOLDERS_NAMED_MAX - 1))

/* A text being built, cut (never overrun) at its size. */
struct holders_text {
  char buf[1024];
  size_t len;
  int full;                   /* something did not fit */
};

/* Ends t: cut says its path was cut (" ..."), then suffix. */
void holders_text_end(struct holders_text *t, int cut, const char *suffix);

/* Whether the step from node from by reference ref is shown as [*] (a key or index that
 * differs between the objects marked). */
int holders_collapsed(const struct holders_graph *g, const struct holders_marks *marks, uint32_t from,
                      size_t ref);

/* Whether the step into node v of the BFS tree (from its parent) is shown as [*]. */
int holders_step_collapsed(const struct holders_graph *g, const struct holders_marks *marks, uint32_t v);

/* v's path from the roots into t; *holder gets the object that holds the objects it leads to
 * (diff/holders_path.c says which). */
void holders_render_path(const struct holders_graph *g, const struct holders_marks *marks, uint32_t v,
                         struct holders_text *t, uint32_t *holder);

/* The note of v when its path goes through a weak-keyed table's value, else "". */
void holders_note(const struct holders_graph *g, const struct holders_marks *keys, uint32_t v,
                  struct holders_text *note);

/* v's path and its note. */
void holders_render(const struct holders_graph *g, const struct holders_marks *marks, uint32_t v,
                    struct holders_text *t, uint32_t *holder);

#endif
