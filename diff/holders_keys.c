/* diff/holders_keys.c: what a site's objects live by when a weak table holds them: the holder of their keys, or of the entries of the weak tables whose slots the site grew (docs/diff.md, "Weak tables"). */
#include <stdlib.h>
#include <string.h>

#include "diff/holders_keys.h"

/* The immediate dominator of the weak key v lives by (holders_key), NONE when none. */
static uint32_t holders_key_dominator(const struct holders_graph *g, uint32_t v)
{
  uint32_t key = holders_key(g, v);
  return key != DIFF_HOLDERS_NONE ? g->idom[key] : DIFF_HOLDERS_NONE;
}

/* The nearest common dominator of the keys' dominators of members m[0 .. count) (the keys of
 * more than half their bytes), by preorder numbers (number: a dominator comes before what it
 * dominates, so the later of two is never the other's); NONE when only the roots' node is,
 * or when the walks would take more than *budget steps (a list of keys a million deep). What
 * it is matters only when it is a suspect's container (diff_suspects_find). */
static uint32_t holders_keys_common(const struct holders_graph *g, const uint32_t *number,
                                    const struct diff_holders_member *m, size_t count, uint64_t total,
                                    size_t *budget)
{
  uint32_t common = DIFF_HOLDERS_NONE;
  uint64_t keyed = 0;
  for (size_t k = 0; k < count && common != g->n; k++) {
    uint32_t d = holders_key_dominator(g, m[k].object);
    if (d == DIFF_HOLDERS_NONE)
      continue;
    keyed += m[k].bytes;
    if (common == DIFF_HOLDERS_NONE)
      common = d;
    while (common != d) {
      if (*budget == 0)
        return DIFF_HOLDERS_NONE;  /* and for every site after: the budget is the snapshot's */
      (*budget)--;
      if (number[common] > number[d])
        common = g->idom[common];
      else
        d = g->idom[d];
    }
  }
  if (common == DIFF_HOLDERS_NONE || common == g->n || keyed <= total / 2)
    return DIFF_HOLDERS_NONE;
  return common;
}

/* The preorder numbers of the reached nodes (holders_keys_common), or NULL when out of memory. */
static uint32_t *holders_preorder_numbers(const struct holders_graph *g)
{
  uint32_t *number = malloc(((size_t)g->n + 1) * sizeof *number);
  if (number)
    for (uint32_t i = 0; i < g->reached; i++)
      number[g->order[i]] = i;
  return number;
}

/* For a site that made only the slots of weak tables (more than half of its bytes, of members m
 * [0 .. count)): the node that immediately dominates most of those tables' weakly held entries,
 * the keys of a weak-keyed table or the values of a weak-valued one (an entry stays while they
 * live: an index by id of handles a list keeps grows with the list), NONE when none does; *weak
 * gets the tables' SNAPSHOT_FLAG_WEAK_* flags. A majority vote over the entries, then a count. */
static uint32_t holders_slots_holder(const struct holders_graph *g, const struct diff_holders_member *m,
                                     size_t count, uint64_t total, uint8_t *weak)
{
  const struct snapshot *s = g->snapshot;
  uint32_t choice = DIFF_HOLDERS_NONE;
  uint64_t slots = 0, votes = 0, entries = 0, held = 0;
  *weak = 0;
  for (int pass = 0; pass < 2; pass++) {
    for (size_t k = 0; k < count; k++) {
      const struct snapshot_object *t = &s->objects[m[k].object];
      uint8_t flags = t->flags & (SNAPSHOT_FLAG_WEAK_KEYS | SNAPSHOT_FLAG_WEAK_VALUES);
      if (!m[k].part || t->type != SNAPSHOT_TABLE || !flags)
        continue;
      if (!pass)
        slots += m[k].bytes, *weak |= flags;
      for (uint32_t e = 0; e < t->reference_count; e++) {
        const struct snapshot_reference *r = &s->references[t->first_reference + e];
        uint32_t d = r->weak && r->object < g->n ? g->idom[r->object] : DIFF_HOLDERS_NONE;
        if (d == DIFF_HOLDERS_NONE || d == g->n || d == m[k].object)
          continue;  /* held by nothing else, by the roots alone, or by the table itself */
        if (pass)
          held += d == choice;
        else if (entries++, d == choice)
          votes++;
        else if (votes)
          votes--;
        else
          choice = d, votes = 1;
      }
    }
  }
  if (slots <= total / 2 || choice == DIFF_HOLDERS_NONE || held <= entries / 2)
    return DIFF_HOLDERS_NONE;
  return choice;
}

int holders_key_holders(const struct holders_graph *g, const struct diff_holders_member *m, size_t count,
                        size_t site_count, uint32_t **node, uint8_t **slots)
{
  size_t sites = site_count ? site_count : 1;
  uint32_t *out = malloc(sites * sizeof *out), *number = NULL;
  uint8_t *how = calloc(sites, sizeof *how);
  *node = NULL, *slots = NULL;
  if (!out || !how) {
    free(out), free(how);
    return -1;
  }
  memset(out, 0xff, sites * sizeof *out);
  size_t budget = 4 * ((size_t)g->n + 1);  /* the common dominators' walks, in all */
  for (size_t i = 0, j; i < count; i = j) {
    uint32_t choice = DIFF_HOLDERS_NONE;
    uint64_t votes = 0, total = 0, held = 0;
    for (j = i; j < count && m[j].site == m[i].site; j++) {
      uint32_t d = g->key_step ? holders_key_dominator(g, m[j].object) : DIFF_HOLDERS_NONE;
      total += m[j].bytes;
      if (d == DIFF_HOLDERS_NONE)
        continue;
      if (d == choice)
        votes += m[j].bytes;
      else if (votes >= m[j].bytes)
        votes -= m[j].bytes;
      else
        choice = d, votes = m[j].bytes - votes;
    }
    for (size_t k = i; choice != DIFF_HOLDERS_NONE && k < j; k++)
      held += holders_key_dominator(g, m[k].object) == choice ? m[k].bytes : 0;
    if (choice != DIFF_HOLDERS_NONE && choice != g->n && held > total / 2) {
      out[m[i].site] = choice;
      continue;
    }
    if (choice == DIFF_HOLDERS_NONE) {  /* no key of the site's: its weak tables' slots, if any */
      out[m[i].site] = holders_slots_holder(g, m + i, j - i, total, &how[m[i].site]);
      if (out[m[i].site] == DIFF_HOLDERS_NONE)
        how[m[i].site] = 0;
      continue;
    }
    if (!number && !(number = holders_preorder_numbers(g))) {
      free(out), free(how);
      return -1;
    }
    out[m[i].site] = holders_keys_common(g, number, m + i, j - i, total, &budget);
  }
  free(number);
  *node = out, *slots = how;
  return 0;
}
