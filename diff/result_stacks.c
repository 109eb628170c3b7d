/* diff/result_stacks.c: result stacks from an aggregate's (site, stack) owners: names, series, verdicts, order; the rows of --by stack. */
#include <stdlib.h>
#include <string.h>

#include "diff/result.h"
#include "diff/site_table.h"
#include "format/utf8.h"

char *diff_result_stack_name(const struct diff_stack_entry *entry, const char *site_name)
{
  if (!entry->frame_count)
    return strdup(site_name);
  /* The site's name cleaned as its leaf's label is: the chunk name of a
   * site is the captured program's choice, and may hold ';' (a forged frame). */
  char site[512], label[512];
  utf8_name_text(site, sizeof site, site_name, strlen(site_name), ';');
  size_t length = strlen(site) + 1;
  for (uint32_t i = 0; i < entry->frame_count; i++) {
    diff_frame_label(&entry->frames[i], label, sizeof label);
    length += strlen(label) + 1;
  }
  diff_frame_label(&entry->frames[0], label, sizeof label);
  int append_site = strcmp(label, site) != 0;
  char *name = malloc(length + 1);
  if (!name)
    return NULL;
  size_t at = 0;
  for (uint32_t i = entry->frame_count; i-- > 0;) {  /* root first */
    diff_frame_label(&entry->frames[i], label, sizeof label);
    at += (size_t)sprintf(name + at, "%s%s", at ? ";" : "", label);
  }
  if (append_site)
    sprintf(name + at, ";%s", site);
  return name;
}

/* Fills stack from owner o of aggregate, whose site is result->sites[site]. */
static int result_stack_fill(struct diff_site *stack, struct diff_aggregate *aggregate, size_t o,
                             const struct diff_site *site, size_t n)
{
  struct diff_aggregate_site *data = &aggregate->data[o];
  const struct diff_stack_entry *entry = &aggregate->stacks.entries[aggregate->owners.stacks[o]];
  stack->is_stack = 1;
  stack->site_id = site->id;
  stack->kind = site->kind;
  stack->source_line = site->source_line;
  stack->count = n;
  stack->allocs = data->allocs;
  stack->frees = data->frees;
  stack->name = diff_result_stack_name(entry, site->name);
  if (!stack->name || diff_result_take_series(stack, data, n) < 0 ||
      (site->source_file && !(stack->source_file = strdup(site->source_file))) ||
      (site->library && !(stack->library = strdup(site->library))))
    return -1;
  stack->id = diff_site_table_hash(stack->name, strlen(stack->name));
  if (entry->frame_count) {
    stack->frames = calloc(entry->frame_count, sizeof *stack->frames);
    if (!stack->frames)
      return -1;
    for (uint32_t f = 0; f < entry->frame_count; f++) {
      stack->frames[f] = entry->frames[f];
      stack->frames[f].name = strdup(entry->frames[f].name);
      stack->frame_count = f + 1;  /* what is made so far, for diff_site_release */
      if (!stack->frames[f].name)
        return -1;
    }
  }
  return 0;
}

int diff_result_stacks_made(const struct diff_aggregate *aggregate, const struct diff_options *options)
{
  /* No sidecar named a stack: no stacks, as before them. */
  return options->by == DIFF_BY_STACK || aggregate->stacks.count > 1;
}

int diff_result_stacks_build(struct diff_result *result, struct diff_aggregate *aggregate,
                        const struct diff_options *options, const struct diff_capture *info)
{
  int by_stack = options->by == DIFF_BY_STACK;
  if (!diff_result_stacks_made(aggregate, options))
    return 0;
  size_t count = aggregate->owners.count;
  struct diff_site *stacks = calloc(count ? count : 1, sizeof *stacks);
  if (!stacks)
    return -1;
  int status = 0;
  size_t made = 0;
  for (size_t o = 0; o < count && status == 0; o++) {
    made = o + 1;
    status = result_stack_fill(&stacks[o], aggregate, o, &result->sites[aggregate->owners.sites[o]],
                               aggregate->boundaries);
    if (status == 0)
      status = diff_result_judge_site(&stacks[o], options, info);
  }
  if (status < 0) {
    for (size_t i = 0; i < made; i++)
      diff_site_release(&stacks[i]);
    free(stacks);
    return -1;
  }
  if (by_stack) {  /* the rows are the stacks */
    for (size_t i = 0; i < result->site_count; i++)
      diff_site_release(&result->sites[i]);
    free(result->sites);
    result->sites = stacks;
    result->site_count = count;
  } else {
    result->stacks = stacks;
    result->stack_count = count;
  }
  return 0;
}
