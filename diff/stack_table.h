/* diff/stack_table.h: call stacks by content, and (site, stack) pairs: what the live map follows in a capture with stack sidecars. */
#ifndef LJLEAK_DIFF_STACK_TABLE_H
#define LJLEAK_DIFF_STACK_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "diff/diff.h"
#include "container/index_table.h"

/* One stack: the sidecar's hash of its frames and the frames (owned copies). */
struct diff_stack_entry {
  uint64_t hash;
  uint32_t frame_count;
  struct diff_frame *frames;  /* frames[0] the leaf */
};

/* Stacks by content: a stack of another segment (another sidecar, other
 * ids) with the same frames gets the same index. Index 0 is "no stack"
 * (an event the sidecar gave none, or a capture without sidecars). */
struct diff_stack_table {
  struct diff_stack_entry *entries;  /* [count] */
  size_t count, capacity;
  struct index_table index;     /* entries 1.. by hash: entry i is the index's item i - 1 */
};

int diff_stack_table_init(struct diff_stack_table *table);
void diff_stack_table_release(struct diff_stack_table *table);
/* Forgets every stack but "no stack", keeping the slots. */
void diff_stack_table_clear(struct diff_stack_table *table);
/* The index of the stack (hash, frames), added with its frames copied when
 * new. frame_count 0 is index 0. Returns 0, or -1 when out of memory. */
int diff_stack_table_intern(struct diff_stack_table *table, uint64_t hash, const struct diff_frame *frames,
                       uint32_t frame_count, uint32_t *index);

/* (site, stack) pairs, numbered densely in the order they are first seen:
 * without stacks, pair i is (site i, 0), so the numbering is the sites'. */
struct diff_pair_table {
  uint32_t *sites, *stacks;     /* [count] */
  size_t count, capacity;
  struct index_table index;     /* the pairs by hash */
  uint64_t last_key;            /* the last pair looked up (runs of one place are common) */
  uint32_t last_index;
  int has_last;
};

int diff_pair_table_init(struct diff_pair_table *table);
void diff_pair_table_release(struct diff_pair_table *table);
void diff_pair_table_clear(struct diff_pair_table *table);
/* The index of (site, stack), added when new. 0, or -1 when out of memory. */
int diff_pair_table_intern(struct diff_pair_table *table, uint32_t site, uint32_t stack, uint32_t *index);

#endif
