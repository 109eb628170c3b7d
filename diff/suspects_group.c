/* diff/suspects_group.c: leak suspects: the flagged sites grouped by the container that holds their growth, and the VM's work under the suspect its stacks end at (docs/diff.md, "Leak suspects"). */
#include <stdlib.h>
#include <string.h>

#include "container/array.h"
#include "diff/suspects.h"
#include "format/utf8.h"

void diff_suspects_free(struct diff_result *result)
{
  for (size_t i = 0; i < result->suspect_count && result->suspects; i++) {
    free(result->suspects[i].sites);
    free(result->suspects[i].cause);
  }
  free(result->suspects);
  result->suspects = NULL;
  result->suspect_count = 0;
  result->suspects_grouped = 0;
}

static int suspect_add(struct diff_suspect *s, size_t site, size_t cause)
{
  if (array_resize((void **)&s->sites, s->site_count + 1, sizeof *s->sites) != 0 ||
      array_resize((void **)&s->cause, s->site_count + 1, sizeof *s->cause) != 0)
    return -1;
  s->sites[s->site_count] = site;
  s->cause[s->site_count++] = cause;
  return 0;
}

/* The VM's own work: its growth follows from the Lua code that made it do it. */
static int suspects_vm_site(const struct diff_site *site)
{
  return site->kind == DIFF_SITE_INTERNAL || (site->name && !strncmp(site->name, "VM: ", 4));
}

/* Whether a site's growth is its container's: for the VM's work, only when the container holds
 * most of what the site has live (a GC's 64 KiB of growth, of no object, became a suspect of its
 * own, "thread (main thread)", by the 472 B of one stack resize). Such a site goes with the
 * suspect its stacks name instead. */
static int suspects_held(const struct diff_site *site)
{
  if (!site->container)
    return 0;
  if (!suspects_vm_site(site) || !site->live_bytes || !site->count)
    return 1;
  return site->container->bytes >= site->live_bytes[site->count - 1] / 2;
}

/* Whether a site's name is a stack's leaf label: the label is cleaned (diff_frame_label), so
 * the name is too; a chunk name is the program's choice (a Latin-1 file name, a ';'). */
static int suspects_site_is_label(const char *name, const char *label)
{
  char clean[512];
  return utf8_name_text(clean, sizeof clean, name, strlen(name), ';') < sizeof clean &&
         !strcmp(clean, label);
}

/* The suspect (and its site) whose site a stack of the VM site ends at (its leaf Lua frame's
 * label is the site's name): the one whose stacks hold most live bytes at the last boundary,
 * then most growth. 1 found, 0 none, -1 when out of memory. */
static int suspects_by_stacks(const struct diff_result *r, const struct diff_site *site,
                              size_t *which, size_t *cause)
{
  size_t n = r->suspect_count;
  uint64_t *live = calloc(n ? n : 1, sizeof *live);
  double *growth = calloc(n ? n : 1, sizeof *growth);
  size_t *first = calloc(n ? n : 1, sizeof *first);
  unsigned char *hit = calloc(n ? n : 1, 1);
  int found = -1;
  if (!live || !growth || !first || !hit)
    goto done;
  for (size_t k = 0; k < r->stack_count; k++) {
    const struct diff_site *stack = &r->stacks[k];
    if (stack->site_id != site->id)
      continue;
    const struct diff_frame *leaf = NULL;
    for (size_t f = 0; f < stack->frame_count && !leaf; f++)
      if (stack->frames[f].kind == STACKS_FRAME_LUA)
        leaf = &stack->frames[f];
    char label[512];
    if (!leaf || diff_frame_label(leaf, label, sizeof label) >= sizeof label)
      continue;
    for (size_t i = 0; i < n; i++) {
      const struct diff_suspect *s = &r->suspects[i];
      size_t j = 0;
      while (j < s->site_count && (s->cause[j] != SIZE_MAX || !suspects_site_is_label(r->sites[s->sites[j]].name, label)))
        j++;
      if (j == s->site_count)
        continue;
      if (!hit[i])
        first[i] = s->sites[j];
      hit[i] = 1;
      live[i] += stack->count && stack->live_bytes ? stack->live_bytes[stack->count - 1] : 0;
      growth[i] += stack->growth_bytes_per_segment;
    }
  }
  found = 0;
  for (size_t i = 0; i < n; i++) {
    if (!hit[i])
      continue;
    if (!found || live[i] > live[*which] || (live[i] == live[*which] && growth[i] > growth[*which])) {
      *which = i;
      *cause = first[i];
    }
    found = 1;
  }
done:
  free(live), free(growth), free(first), free(hit);
  return found;
}

static int suspects_compare(const void *a, const void *b, void *context)
{
  const struct diff_result *r = context;
  const struct diff_suspect *x = a, *y = b;
  if (x->growth_bytes_per_segment != y->growth_bytes_per_segment)
    return x->growth_bytes_per_segment < y->growth_bytes_per_segment ? 1 : -1;
  if (x->retained_bytes != y->retained_bytes)
    return x->retained_bytes < y->retained_bytes ? 1 : -1;
  return strcmp(r->sites[x->named_site].container->path, r->sites[y->named_site].container->path);
}

/* Counts a site s holds (added to it) into s: the objects of the site its container keeps alive
 * (each once: an earlier site of the same container has the shared ones), their bytes and
 * kinds, and its growth. */
static void suspect_count_objects(struct diff_suspect *s, const struct diff_site *site, int growth)
{
  const struct diff_site_container *c = site->container;
  s->objects += c->objects - (c->shared_objects <= c->objects ? c->shared_objects : c->objects);
  s->bytes += c->bytes;
  for (size_t j = 0; j < DIFF_KIND_COUNT; j++) {
    uint64_t shared = c->shared_kinds[j];
    s->kinds[j].objects += c->kinds[j].objects - (shared <= c->kinds[j].objects ? shared : c->kinds[j].objects);
    s->kinds[j].bytes += c->kinds[j].bytes;
  }
  if (!growth)
    return;
  s->growth_bytes_per_segment += site->growth_bytes_per_segment;
  s->growth_bytes_per_second += site->growth_bytes_per_second;
}

/* Counts result->sites[i], a site of s's own container (added to it), into s: its container's
 * name when that is named and s's is not, the newest snapshot's retained size, and its objects
 * (suspect_count_objects). */
static void suspect_count_site(const struct diff_result *result, struct diff_suspect *s, size_t i)
{
  const struct diff_site_container *c = result->sites[i].container;
  const struct diff_site_container *named = result->sites[s->named_site].container;
  if (c->named && !named->named)
    s->named_site = i;
  /* Sites may take their holders from different snapshots: the newest one's size. */
  if (c->boundary > s->boundary || (c->boundary == s->boundary && c->retained_bytes > s->retained_bytes)) {
    s->boundary = c->boundary;
    s->retained_bytes = c->retained_bytes;
  }
  suspect_count_objects(s, &result->sites[i], 1);
}

/* The suspect whose container is at address (its named site's: a site that went with it
 * through its keys is never that), or result->suspect_count. */
static size_t suspects_at(const struct diff_result *result, uint64_t address)
{
  size_t k = 0;
  while (k < result->suspect_count &&
         result->sites[result->suspects[k].named_site].container->address != address)
    k++;
  return k;
}

/* Whether a held site's objects live while their keys live, and a flagged site's container
 * holds those keys: the site then goes with that container's suspect (a cache keyed weakly by
 * sessions that a list keeps is the list's leak). */
static int suspects_through_keys(const struct diff_result *result, const struct diff_site *site)
{
  uint64_t key = site->container->key_address;
  for (size_t j = 0; key && j < result->site_count; j++) {
    const struct diff_site *other = &result->sites[j];
    if (other->facts.flagged && suspects_held(other) && other->container->address == key &&
        !other->container->key_address)
      return 1;
  }
  return 0;
}

/* Adds result->sites[i] to s after the first pass, in the result's order. */
static int suspect_insert(struct diff_suspect *s, size_t i)
{
  if (suspect_add(s, i, SIZE_MAX) < 0)
    return -1;
  for (size_t j = s->site_count - 1; j > 0 && s->sites[j - 1] > i; j--) {
    size_t cause = s->cause[j];
    s->sites[j] = s->sites[j - 1], s->cause[j] = s->cause[j - 1];
    s->sites[j - 1] = i, s->cause[j - 1] = cause;
  }
  return 0;
}

/* Adds a held site to the suspect of the container that holds its objects' keys (made by the
 * first pass): its bytes count in the suspect's retained size, since they go with the keys. */
static int suspects_add_through_keys(struct diff_result *result, size_t i)
{
  const struct diff_site *site = &result->sites[i];
  size_t k = suspects_at(result, site->container->key_address);
  if (k == result->suspect_count)
    return 0;
  struct diff_suspect *s = &result->suspects[k];
  if (suspect_insert(s, i) < 0)
    return -1;
  suspect_count_objects(s, site, 1);
  s->retained_bytes += site->container->bytes;
  return 0;
}

/* Adds an undecided site whose container is a suspect's (the list's slots, grown in steps at
 * the line that appends to it, undecided on their own) to that suspect: the same leak, not a
 * question apart. What it holds counts, its growth does not (it has no verdict). */
static int suspects_add_undecided(struct diff_result *result, size_t i)
{
  const struct diff_site *site = &result->sites[i];
  size_t k = suspects_at(result, site->container->address);
  if (k == result->suspect_count)
    return 0;
  if (suspect_insert(&result->suspects[k], i) < 0)
    return -1;
  suspect_count_objects(&result->suspects[k], site, 0);
  return 0;
}

int diff_suspects_find(struct diff_result *result)
{
  diff_suspects_free(result);
  size_t capacity = 0;
  for (size_t i = 0; i < result->site_count; i++) {
    if (result->sites[i].container)
      result->suspects_grouped = 1;
    capacity += result->sites[i].facts.flagged && suspects_held(&result->sites[i]);
  }
  if (!capacity)
    return 0;
  result->suspects = calloc(capacity, sizeof *result->suspects);
  if (!result->suspects)
    goto fail;
  for (size_t i = 0; i < result->site_count; i++) {
    const struct diff_site *site = &result->sites[i];
    if (!site->facts.flagged || !suspects_held(site) || suspects_through_keys(result, site))
      continue;
    size_t k = suspects_at(result, site->container->address);
    struct diff_suspect *s = &result->suspects[k];
    if (k == result->suspect_count) {
      result->suspect_count++;
      s->named_site = i;
    }
    if (suspect_add(s, i, SIZE_MAX) < 0)
      goto fail;
    suspect_count_site(result, s, i);
  }
  for (size_t i = 0; i < result->site_count; i++) {
    const struct diff_site *site = &result->sites[i];
    if (site->facts.flagged && suspects_held(site) && suspects_through_keys(result, site) &&
        suspects_add_through_keys(result, i) < 0)
      goto fail;
  }
  for (size_t i = 0; i < result->site_count; i++) {
    const struct diff_site *site = &result->sites[i];
    if (site->facts.rose_undecided && !suspects_vm_site(site) && suspects_held(site) &&
        suspects_add_undecided(result, i) < 0)
      goto fail;
  }
  /* The VM's work for a leaking line goes with the suspect of that line. */
  size_t suspects = result->suspect_count;
  for (size_t i = 0; i < result->site_count; i++) {
    const struct diff_site *site = &result->sites[i];
    if (!site->facts.flagged || suspects_held(site) || !suspects_vm_site(site))
      continue;
    size_t which = 0, cause = 0;
    int found = suspects_by_stacks(result, site, &which, &cause);
    if (found < 0)
      goto fail;
    if (!found || which >= suspects)
      continue;
    struct diff_suspect *s = &result->suspects[which];
    if (suspect_add(s, i, cause) < 0)
      goto fail;
    s->growth_bytes_per_segment += site->growth_bytes_per_segment;
    s->growth_bytes_per_second += site->growth_bytes_per_second;
  }
  for (size_t k = 0; k < result->suspect_count; k++) {
    struct diff_suspect *s = &result->suspects[k];
    const struct diff_site_container *c = result->sites[s->named_site].container;
    for (size_t j = 0; j < result->container_count && !s->container; j++) {
      const struct diff_container *g = &result->containers[j];
      if (g->path && g->type && !strcmp(g->path, c->path) && !strcmp(g->type, c->type))
        s->container = j + 1;
    }
  }
  if (result->suspect_count > 1)
    qsort_r(result->suspects, result->suspect_count, sizeof *result->suspects, suspects_compare,
            result);
  return 0;
fail:
  {
    int grouped = result->suspects_grouped;
    diff_suspects_free(result);
    result->suspects_grouped = grouped;
  }
  return -1;
}

static const char *const key_slots_names[] = {NULL, "weak keys", "weak values", "weak keys and values"};

const char *diff_key_slots_name(int key_slots)
{
  return key_slots > 0 && key_slots < 4 ? key_slots_names[key_slots] : NULL;
}

int diff_key_slots_parse(const char *name, int *key_slots)
{
  for (int k = 1; k < 4; k++)
    if (!strcmp(name, key_slots_names[k])) {
      *key_slots = k;
      return 0;
    }
  return -1;
}

int diff_suspect_through_keys(const struct diff_result *result, const struct diff_suspect *suspect, size_t j)
{
  const struct diff_site_container *c = result->sites[suspect->sites[j]].container;
  return suspect->cause[j] == SIZE_MAX && c && c->key_address &&
         c->address != result->sites[suspect->named_site].container->address;
}

const struct diff_suspect *diff_suspects_of(const struct diff_result *result, size_t site)
{
  for (size_t k = 0; k < result->suspect_count; k++)
    for (size_t j = 0; j < result->suspects[k].site_count; j++)
      if (result->suspects[k].sites[j] == site)
        return &result->suspects[k];
  return NULL;
}

size_t diff_suspects_alone(const struct diff_result *result)
{
  size_t alone = 0;
  for (size_t i = 0; i < result->site_count; i++)
    alone += result->sites[i].facts.flagged && !diff_suspects_of(result, i);
  return alone;
}

size_t diff_suspect_values(const struct diff_result *result, const struct diff_suspect *suspect,
                           enum diff_value_kind kind, struct diff_suspect_value *out, size_t max)
{
  size_t count = 0;
  if (kind == DIFF_VALUE_STRING && max > DIFF_SUSPECT_STRINGS)
    max = DIFF_SUSPECT_STRINGS;
  for (size_t j = 0; j < suspect->site_count && count < max; j++) {
    const struct diff_site *site = &result->sites[suspect->sites[j]];
    size_t before = count;
    for (size_t k = 0; k < site->value_count && count < max; k++)
      if (site->values[k].kind == kind)
        out[count++] = (struct diff_suspect_value){&site->values[k], site};
    if (kind == DIFF_VALUE_KEY && count > before)
      break;  /* one site's keys: the container's */
  }
  return count;
}
