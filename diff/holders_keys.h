/* diff/holders_keys.h: what a site's objects live by when a weak table holds them, for the suspects' step (holders_analyse.c). */
#ifndef LJLEAK_DIFF_HOLDERS_KEYS_H
#define LJLEAK_DIFF_HOLDERS_KEYS_H

#include <stddef.h>
#include <stdint.h>

#include "diff/holders.h"
#include "diff/holders_graph.h"

/* Per site of the members m (by site, the reached ones): in (*node)[site], the node that
 * immediately dominates the keys of more than half of the site's bytes that live while a
 * weak-keyed table's key does (a list of sessions beside a cache keyed by them), else the
 * nearest node that dominates them all (sessions in lists of a table of shards: that table);
 * for a site that made only the slots of weak tables, the node that immediately dominates
 * most of their weakly held keys or values, and in (*slots)[site] the tables' weak flags
 * (SNAPSHOT_FLAG_WEAK_*; 0 for the others); NONE when none. 0, or -1 when out of memory
 * (both NULL). */
int holders_key_holders(const struct holders_graph *g, const struct diff_holders_member *m, size_t count,
                        size_t site_count, uint32_t **node, uint8_t **slots);

#endif
