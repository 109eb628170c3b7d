/* diff/holders_join.h: the join of a site's live blocks with a heap snapshot's objects, the holders' first step (holders_analyse.c). */
#ifndef LJLEAK_DIFF_HOLDERS_JOIN_H
#define LJLEAK_DIFF_HOLDERS_JOIN_H

#include <stddef.h>

#include "diff/holders.h"
#include "format/snapshot.h"

/* The join of the blocks with the snapshot's objects: the members, by site, one per (site,
 * object) (an object whose blocks the site made twice, a table and its array part, once; part
 * set when the site made only blocks the object owns), in
 * *members (*count of them). taken: the blocks are freed once copied in order, before the
 * members are found (on a big heap they are the biggest array of the step). -1 when out of
 * memory. */
int holders_join(const struct snapshot *snapshot, const struct diff_holders_block *blocks, size_t block_count,
                 size_t site_count, struct diff_holders_member **members, size_t *count,
                 struct diff_holders_block *taken);

#endif
