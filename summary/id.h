/* summary/id.h: the summary's items (sites, names, versions, entries) are 32-bit ids into arrays grown by doubling. */
#ifndef LJLEAK_SUMMARY_ID_H
#define LJLEAK_SUMMARY_ID_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#define SUMMARY_ID_NONE UINT32_MAX  /* no item: an empty slot, an id not made yet, or a failure */

/* Grows *array so that it holds at least needed items. Returns 0, or -1 when
 * out of memory (the array is kept as it was). */
static inline int id_array_reserve(void **array, size_t *capacity, size_t needed,
                                   size_t item_size)
{
  if (needed <= *capacity)
    return 0;
  size_t grown = *capacity ? *capacity * 2 : 64;
  while (grown < needed)
    grown *= 2;
  void *bigger = realloc(*array, grown * item_size);
  if (!bigger)
    return -1;
  *array = bigger;
  *capacity = grown;
  return 0;
}

#endif
