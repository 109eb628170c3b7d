/* merge/merge_internal.h: what the merge stage's files share (not part of the interface). */
#ifndef LJLEAK_MERGE_INTERNAL_H
#define LJLEAK_MERGE_INTERNAL_H

#include <stdio.h>

#include "merge/merge.h"

/* The site named name, made when new; NULL when out of memory. */
struct merge_site *merge_site_get(struct merge *merge, const char *name, uint64_t id,
                                  enum diff_site_kind kind);
/* Appends a value to site: 0, or -1 when out of memory. */
int merge_site_add_value(struct merge_site *site, const struct merge_value *value);
/* A new capture at the end of merge->captures (zeroed), or NULL. */
struct merge_capture *merge_capture_new(struct merge *merge);
/* Copies a capture's metadata without its per-boundary arrays: 0, or -1. */
int merge_copy_capture(struct diff_capture *to, const struct diff_capture *from);
/* The first input sets the merge's mode and rows; a later one must match. */
enum format_status merge_check_kind(struct merge *merge, enum diff_mode mode, enum diff_by by,
                                    const char *source, struct format_error *err);
/* The index of label group key=value, or SIZE_MAX. */
size_t merge_group_find(const struct merge *merge, const char *key, const char *value);

/* The renderers (merge_json.c, merge_text.c, merge_html.c). */
/* What the merge's rows are, for headlines: "sites", or "stacks" for results --by stack. */
const char *merge_rows_name(const struct merge *merge);
/* A growing site's growth by each label key (its groups' keys, each once, at most 16), in
 * words (merge_site_by_label): put(out, k, line) with k from 0; nothing for a site growing in
 * no capture. Every renderer's one walk over them (merge_text.c). */
void merge_site_labels_each(const struct merge *merge, const struct merge_site *site, FILE *out,
                            void (*put)(FILE *out, size_t k, const char *line));
int merge_render_json(const struct merge *merge, FILE *out);
int merge_render_text(const struct merge *merge, FILE *out);
int merge_render_markdown(const struct merge *merge, FILE *out);
int merge_render_html(const struct merge *merge, FILE *out);
int merge_render_junit(const struct merge *merge, FILE *out);

#endif
