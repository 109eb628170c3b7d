/* diff/values.h: --values: previews of the strings a growing site keeps and of its container's keys, from the values sidecars of the capture's heap snapshots (docs/diff.md, "Values"). */
#ifndef LJLEAK_DIFF_VALUES_H
#define LJLEAK_DIFF_VALUES_H

#include <stddef.h>

#include "diff/aggregate.h"
#include "diff/diff.h"
#include "diff/source.h"

#define DIFF_VALUES_STRINGS 3       /* strings kept per site */
#define DIFF_VALUES_KEYS 8          /* keys of its container kept per site */

/* The engine's step, after the holders: result->values says whether the capture has values
 * sidecars (snap-NNNN.values beside the snapshots its index lists). For every site of
 * result->sites with a container, from the sidecar of its holders' snapshot: up to
 * DIFF_VALUES_STRINGS of its live blocks (aggregate's live map) that are strings there (a block
 * whose size cannot be that string's is left out), then up to DIFF_VALUES_KEYS keys of its
 * container when that is a table; into site->values, escaped (UTF8_TERMINAL_TEXT) and cut
 * where a character would be. An unreadable sidecar, or another capture's, is skipped with a
 * warning (options->warn); a cut one is used, with one. Linear in the live blocks. 0, or -1
 * when out of memory. */
int diff_values_find(const struct diff_source *capture, const struct diff_aggregate *aggregate,
                     struct diff_result *result, const struct diff_options *options);

/* Removes every site's values (a result rendered without --values shows none). */
void diff_values_drop(struct diff_result *result);

#endif
