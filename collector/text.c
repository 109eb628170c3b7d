/* collector/text.c: the collector's string helpers (text.h). */
#include "collector/text.h"

#include <stdio.h>
#include <string.h>

void coll_text_copy(char *dst, size_t size, const char *src)
{
  /* The C API's err may be NULL or empty, as coll_text_error takes it. */
  if (!dst || !size)
    return;
  size_t n = strlen(src);
  if (n >= size)
    n = size - 1;
  memcpy(dst, src, n);
  dst[n] = '\0';
}

void coll_text_error(char *err, size_t size, const char *fmt, const char *a, const char *b)
{
  if (err && size)
    snprintf(err, size, fmt, a, b);
}
