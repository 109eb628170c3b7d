/* container/array.c: the growth of arrays, with its overflow checks. */
#include "container/array.h"

#include <stdint.h>
#include <stdlib.h>

int array_grow(void **array, size_t *capacity, size_t needed, size_t item_size)
{
  if (needed <= *capacity)
    return 0;
  size_t grown = *capacity ? *capacity : ARRAY_FIRST_CAPACITY;
  while (grown < needed) {
    if (grown > SIZE_MAX / 2)
      return -1;
    grown *= 2;
  }
  if (item_size && grown > SIZE_MAX / item_size)
    return -1;
  void *bigger = realloc(*array, grown * item_size);
  if (!bigger)
    return -1;
  *array = bigger;
  *capacity = grown;
  return 0;
}

int array_resize(void **array, size_t count, size_t item_size)
{
  if (item_size && count > SIZE_MAX / item_size)
    return -1;
  size_t bytes = count * item_size;
  void *resized = realloc(*array, bytes ? bytes : 1);
  if (!resized)
    return -1;
  *array = resized;
  return 0;
}
