/* collector/text.h: the collector's two string helpers: a copy that cuts, and an error message into a caller's buffer. */
#ifndef LJLEAK_COLLECTOR_TEXT_H
#define LJLEAK_COLLECTOR_TEXT_H

#include <stddef.h>

/* Copies src into dst (size bytes), cutting it if needed; nothing when dst is NULL or size 0. */
void coll_text_copy(char *dst, size_t size, const char *src);

/* Formats an error message into err (which may be NULL). */
void coll_text_error(char *err, size_t size, const char *fmt, const char *a, const char *b);

#endif
