/* diff/site_table.h: site names -> dense indices, by XXH3-64, names compared on a hash hit. */
#ifndef LJLEAK_DIFF_SITE_TABLE_H
#define LJLEAK_DIFF_SITE_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "diff/diff.h"
#include "container/index_table.h"

#define DIFF_SITE_TABLE_NONE INDEX_TABLE_NONE

struct diff_site_table {
  struct index_table index;   /* the names by id & hash_mask */
  char **names;               /* [count] NUL-terminated, owned */
  size_t *lengths;
  uint64_t *ids;              /* XXH3-64 of each name (never masked) */
  enum diff_site_kind *kinds;
  size_t count, capacity;
  uint64_t hash_mask;         /* all ones; tests narrow it to force collisions */
};

int diff_site_table_init(struct diff_site_table *table);
void diff_site_table_release(struct diff_site_table *table);

/* The index of name, or DIFF_SITE_TABLE_NONE. */
uint32_t diff_site_table_find(const struct diff_site_table *table, const char *name, size_t length);

/* The index of name, added with kind when new. Returns 0, or -1 when out of memory. */
int diff_site_table_intern(struct diff_site_table *table, const char *name, size_t length,
                      enum diff_site_kind kind, uint32_t *index);

/* Test hook: places names by (id & mask), so mask 0 gives every name one hash.
 * Returns 0, or -1 when out of memory (the table is then unchanged). */
int diff_site_table_set_hash_mask(struct diff_site_table *table, uint64_t mask);

uint64_t diff_site_table_hash(const char *name, size_t length);

#endif
