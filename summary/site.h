/* summary/site.h: looking up a location id's site, and its entry per kind under the current names (summary/entry.h has what they are). */
#ifndef LJLEAK_SUMMARY_SITE_H
#define LJLEAK_SUMMARY_SITE_H

#include <stdint.h>

#include "format/memprof.h"
#include "summary/entry.h"

struct summary;

/* The site of an event's location, added if new; SUMMARY_ID_NONE when out of memory. */
uint32_t summary_site_lookup(struct summary *summary, enum memprof_source source, uint64_t location,
                     uint64_t line);

/* The entry of a site for a kind, made if new; SUMMARY_ID_NONE when out of memory.
 * The site's version is brought up to date first (symbols may have renamed
 * it). The feeding loop calls it when the site has no entry for the kind yet
 * or symbols arrived since its version was made. */
uint32_t summary_site_entry(struct summary *summary, uint32_t site_id, int kind);

#endif
