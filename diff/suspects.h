/* diff/suspects.h: leak suspects: the growing sites whose growth one container holds, grouped
 * (docs/diff.md, "Leak suspects"); and each site's objects by kind at its heap snapshot. */
#ifndef LJLEAK_DIFF_SUSPECTS_H
#define LJLEAK_DIFF_SUSPECTS_H

#include <stddef.h>
#include <stdint.h>

#include "diff/aggregate.h"
#include "diff/diff.h"
#include "diff/holders.h"
#include "diff/source.h"

/* One suspect: a container and the flagged sites it holds. It owns its arrays only: its
 * container is described by result->sites[named_site].container, valid while the result's
 * sites are (diff_suspects_find runs again whenever they change). */
struct diff_suspect {
  size_t site_count;
  size_t *sites;              /* [site_count] indices into result->sites: those it holds, in
                                 the result's order (fastest growth first), then the VM's
                                 work joined by its stacks */
  size_t *cause;              /* [site_count] SIZE_MAX for a site it holds; for the VM's
                                 work, the index of the site of this suspect its stacks end at */
  size_t named_site;          /* the site whose container names it (a holder path's, if any) */
  size_t container;           /* the matching growing container's index in result->containers
                                 + 1, or 0 when none matches */
  double growth_bytes_per_segment;  /* its sites' growth, summed */
  double growth_bytes_per_second;
  uint64_t retained_bytes;    /* what would be freed if the container were let go, at the
                                 newest snapshot its sites' containers come from */
  uint64_t boundary;          /* the seq of that snapshot's boundary */
  uint64_t objects, bytes;    /* of that, its sites' objects and live bytes */
  struct diff_kind_count kinds[DIFF_KIND_COUNT];  /* its sites' objects by kind, summed */
};

/* A kind's name in the JSON ("table", "string", "function", "C function", "prototype",
 * "upvalue", "thread", "userdata", "cdata", "trace", "vm"), its plural in words
 * ("tables", "closures", "coroutines", ...); "?" outside. A parse is 0, or -1. */
const char *diff_kind_name(size_t kind);
const char *diff_kind_words(size_t kind);
int diff_kind_parse(const char *name, size_t *kind);
/* The kinds with objects (at most DIFF_KIND_COUNT into order, which may be NULL), most
 * bytes first; returns how many. Every format lists kinds in this order. */
size_t diff_kinds_order(const struct diff_kind_count *kinds, size_t *order);

/* The growing containers (result->containers, diff/holders.h) that the container rule prefers:
 * a growing container at this snapshot's boundary (one of its two) whose subtree of the
 * dominator tree holds objects of a site, a tenth of its entries there or more, is that site's
 * container when the rule's own is not a growing one (of several, the one that holds most of
 * the site's bytes). A buffer flushed now and then may hold most of a line's objects at one
 * snapshot; the list that never lets go holds what grows (docs/diff.md, "Leak suspects"). */
struct diff_suspects_growing {
  const struct diff_container *containers;
  size_t count;
};

/* The suspects' step of one heap snapshot, on what the holders' step built from it (called by
 * diff_holders_analyse_suspects): for each of sites[0 .. site_count) with members in tree,
 * fills site->kinds (its objects by kind, each once) and site->container (the made-at site from
 * the blocks at the snapshot's boundary, at, when not NULL; boundary: its seq), and the
 * container's shared counts: of the site's objects, those an earlier site of sites with the
 * same container has too (a suspect counts each object once); growing may be NULL. A pass
 * over the dominator tree, one sort of the members, and per site its members and a descent of
 * O(log) steps per level: no pass over the tree per site. 0, or -1 when out of memory. */
int diff_suspects_snapshot(const struct diff_holders_tree *tree, const struct diff_aggregate_at *at,
                           struct diff_site *const *sites, size_t site_count, uint64_t boundary,
                           const struct diff_suspects_growing *growing);

/* The container rule on a graph of node_count nodes (edges succ[first[v] .. first[v + 1])),
 * for a site whose objects are the nodes with own[v] set, bytes[v] its bytes in each: from
 * root down the dominator tree, the child that keeps more than half of the site's bytes alive,
 * until an object of the site or a node where no child does; *container gets it (root when no
 * object holds most). The engine applies it to each growing site at its heap snapshot (the
 * roots' node the root). 0, or -1 when out of memory. */
int diff_suspects_container_node(uint32_t node_count, const uint32_t *first, const uint32_t *succ,
                                 uint32_t root, const uint64_t *bytes, const unsigned char *own,
                                 uint32_t *container);

/* Groups result's flagged sites into suspects (result->suspects, freed first): a site with a
 * container joins the suspect of that container (by address), or the suspect of the container
 * that holds its objects' weak keys (key_address) when a flagged site has that one; its bytes
 * then count in that suspect's retained size. A flagged site of the VM's
 * work ("VM: ..." or INTERNAL) without one joins the suspect whose site its stacks end at
 * (most live bytes at the last boundary, then most growth). Needs the facts filled. 0, or
 * -1 when out of memory (no suspects then). */
int diff_suspects_find(struct diff_result *result);

/* Frees result's suspects; their count is 0 after. */
void diff_suspects_free(struct diff_result *result);

/* Whether the suspect's j-th site went with it through its keys: its objects are the values of
 * a weak-keyed table, whose keys the suspect's container holds, or the slots of a weak table
 * (its container's key_slots), whose weak keys or values the suspect's container holds. */
int diff_suspect_through_keys(const struct diff_result *result, const struct diff_suspect *suspect, size_t j);

/* A container's key_slots as the JSON and reports name it: "weak keys", "weak values", "weak
 * keys and values", or NULL for 0; and back (0, or -1 for another name). */
const char *diff_key_slots_name(int key_slots);
int diff_key_slots_parse(const char *name, int *key_slots);
#define DIFF_KEY_SLOTS_CHOICES "\"weak keys\", \"weak values\", \"weak keys and values\""

/* The suspect that holds result->sites[site], or NULL. */
const struct diff_suspect *diff_suspects_of(const struct diff_result *result, size_t site);

/* Flagged sites outside every suspect (findings on their own). */
size_t diff_suspects_alone(const struct diff_result *result);

/* --values: a suspect's values of one kind, each with the site it came from, as every format
 * shows them. Strings: the first DIFF_SUSPECT_STRINGS of its sites' (in the suspect's order);
 * keys: those of the first of its sites that has any (they share the container). Their count
 * (at most max). */
#define DIFF_SUSPECT_STRINGS 3
struct diff_suspect_value {
  const struct diff_value *value;
  const struct diff_site *site;
};
size_t diff_suspect_values(const struct diff_result *result, const struct diff_suspect *suspect,
                           enum diff_value_kind kind, struct diff_suspect_value *out, size_t max);

#endif
