/* format/units.c: the syntax of sizes that every part of ljleak reads. */
#include "format/units.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>

size_t units_parse_size(const char *text, uint64_t *value)
{
  if (!text || !isdigit((unsigned char)*text))
    return 0;
  errno = 0;
  char *end;
  unsigned long long v = strtoull(text, &end, 10);
  if (errno)
    return 0;
  unsigned shift = 0;
  switch (tolower((unsigned char)*end)) {
  case 'k': shift = 10; end++; break;
  case 'm': shift = 20; end++; break;
  case 'g': shift = 30; end++; break;
  default: break;
  }
  if (*end == 'b' || *end == 'B')
    end++;
  if (shift && v > (UINT64_MAX >> shift))
    return 0;
  *value = (uint64_t)v << shift;
  return (size_t)(end - text);
}
