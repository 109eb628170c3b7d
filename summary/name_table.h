/* summary/name_table.h: the distinct names of the summary's locations, each stored once and known by its id. */
#ifndef LJLEAK_SUMMARY_NAME_TABLE_H
#define LJLEAK_SUMMARY_NAME_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "container/index_table.h"
#include "summary/id.h"

/* A name's bytes, in the table's arena. */
struct summary_name {
  size_t offset, length;
};

struct summary_name_table {
  char *bytes;                  /* every name's text, one after another */
  size_t bytes_used, bytes_capacity;
  struct summary_name *names;           /* [index.count] */
  size_t names_capacity;
  struct index_table index;
};

/* Returns 0, or -1 when out of memory. */
int summary_name_table_init(struct summary_name_table *table);
void summary_name_table_release(struct summary_name_table *table);

/* The id of text, added if new; SUMMARY_ID_NONE when out of memory. */
uint32_t summary_name_table_intern(struct summary_name_table *table, const char *text, size_t length);

/* Byte order, a prefix first: how Lua compares strings. */
int summary_name_table_compare(const struct summary_name_table *table, uint32_t a, uint32_t b);

/* The text of a name (not NUL-terminated). */
static inline const char *name_table_text(const struct summary_name_table *table, uint32_t name,
                                          size_t *length)
{
  *length = table->names[name].length;
  return table->bytes + table->names[name].offset;
}

/* Names so far: their ids are 0 .. count - 1. */
static inline size_t name_table_count(const struct summary_name_table *table)
{
  return table->index.count;
}

#endif
