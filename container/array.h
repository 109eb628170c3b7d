/* container/array.h: arrays grown by doubling, every size checked for overflow: the one growth of the tree. */
#ifndef LJLEAK_CONTAINER_ARRAY_H
#define LJLEAK_CONTAINER_ARRAY_H

#include <stddef.h>

#define ARRAY_FIRST_CAPACITY 16  /* items of an array's first allocation, at least */

/* Grows *array (*capacity items of item_size bytes) to at least needed
 * items: the capacity doubles (from ARRAY_FIRST_CAPACITY) until it holds
 * them. Returns 0, or -1 when out of memory or when the capacity or its
 * bytes would not fit in a size_t; the array and *capacity are then as
 * they were. Out of line: it runs once per doubling. */
int array_grow(void **array, size_t *capacity, size_t needed, size_t item_size);

/* Makes room for needed items in *array: inline, since most callers ask
 * once per item, and only a full array calls array_grow. */
static inline int array_reserve(void **array, size_t *capacity, size_t needed, size_t item_size)
{
  return needed <= *capacity ? 0 : array_grow(array, capacity, needed, item_size);
}

/* Resizes *array to exactly count items of item_size bytes (at least one
 * byte is asked for, so that a count of 0 is not a failure). Returns 0, or
 * -1 when out of memory or when count * item_size overflows; the array is
 * then as it was. For arrays whose capacity follows another's, or that
 * grow by one. */
int array_resize(void **array, size_t count, size_t item_size);

#endif
