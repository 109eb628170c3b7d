/* summary/summary.h: the summary that Tarantool's luajit-parse-memprof prints, for one or more streams. */
#ifndef LJLEAK_SUMMARY_SUMMARY_H
#define LJLEAK_SUMMARY_SUMMARY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "format/memprof.h"

/* The aggregation follows Tarantool's parser exactly:
 *
 * - A location's id is (address, line, trace number); per event kind
 *   (alloc, realloc, free) there is one entry per id, named with the name the
 *   location had when that id was first seen for that kind. Two ids can carry
 *   the same name and are then printed as two entries.
 * - A heap map (address -> size, id, name at that moment) follows allocs,
 *   reallocs and frees. A realloc or free of a mapped block records the block's
 *   allocating id in the entry's "primary" set (its Overrides list), with the
 *   new size, the old block's size and a count; unknown addresses charge
 *   nobody.
 * - The heap summary is keyed by name: allocation entries add their bytes and
 *   counts; each primary record of a realloc or free entry adds its new bytes
 *   and subtracts the old block's bytes.
 *
 * Several streams fed in order form one stream: one symbol table, one heap map.
 * Memory grows with the number of live blocks and distinct locations, never
 * with the length of the stream. */
struct summary;

struct summary_options {
  int leak_only;       /* only HEAP SUMMARY and ALIASES */
  int human_readable;  /* bytes as B, KiB, MiB, GiB */
};

/* Returns NULL when out of memory. */
struct summary *summary_new(void);
void summary_free(struct summary *summary);

/* Feed one symbol entry or one event. Return 0, or -1 when out of memory. */
int summary_add_symbol(struct summary *summary, const struct memprof_symbol *symbol);
int summary_add_event(struct summary *summary, const struct memprof_event *event);

/* Feeds every record of an open reader. Returns FORMAT_END for a complete
 * stream, FORMAT_CUT for a cut one (every complete event was used; err
 * holds the reader's warning with file and byte offset), or an error status
 * with err filled: FORMAT_NO_MEMORY if the summary or the reader ran out, else
 * the input's fault (format_status_is_input). */
enum format_status summary_read(struct summary *summary, struct memprof_reader *reader,
                                struct format_error *err);

/* Opens path ("-" for stdin) and feeds it; the same returns as summary_read. */
enum format_status summary_read_file(struct summary *summary, const char *path,
                                     struct format_error *err);

/* Allocation events fed so far (symbol entries not counted). */
uint64_t summary_event_count(const struct summary *summary);

/* Writes the report to out, exactly as Tarantool's parser lays it out.
 * Returns 0, or -1 when out of memory or when writing fails. */
int summary_print(const struct summary *summary, const struct summary_options *options,
                  FILE *out);

/* Formats a byte count as the parser does: "1536B", or with human_readable
 * "1.50KiB" (B, KiB, MiB, GiB; "%d" when the scaled value is whole, else
 * "%.2f"). Writes a NUL-terminated string into out; returns its length. */
size_t summary_format_bytes(uint64_t bytes, int human_readable, char *out, size_t size);

#endif
