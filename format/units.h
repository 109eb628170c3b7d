/* format/units.h: the syntax of sizes that every part of ljleak reads (the collector's options, the CLI, the diff's allow-list). */
#ifndef LJLEAK_FORMAT_UNITS_H
#define LJLEAK_FORMAT_UNITS_H

#include <stddef.h>
#include <stdint.h>

/* Reads a size at the start of text: decimal digits, then optionally k, M
 * or G (binary multiples, either case) and a B. Returns the characters it
 * read, or 0 when text does not start with a size or it overflows 64 bits;
 * the caller decides what may follow. */
size_t units_parse_size(const char *text, uint64_t *value);

#endif
