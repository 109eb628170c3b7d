/* format/snapshot_index.h: the decoder's last step on a heap snapshot's objects (snapshot_index.c): sorted by address, owned blocks indexed, snapshot_find's buckets built. */
#ifndef LJLEAK_FORMAT_SNAPSHOT_INDEX_H
#define LJLEAK_FORMAT_SNAPSHOT_INDEX_H

#include <stdint.h>

#include "format/snapshot.h"

/* The order of s's objects by address (*order: the object that goes to each place, for
 * snapshot_index_place). *offsets: each object's record in the file, in the order read, freed
 * (and set NULL) once the addresses are checked. targets: each reference's target address;
 * *resolved is 1 when each reference's object was set here (its place in that order), which
 * a snapshot of addresses less than 2^32 steps apart allows, before the objects move (so that
 * targets can be freed first). FORMAT_OK; FORMAT_NO_MEMORY; or FORMAT_BAD_INPUT when two objects
 * have one address, *duplicate_address that address and *duplicate_offset the later of their two
 * records. */
enum format_status snapshot_index_order(struct snapshot *s, uint64_t **offsets, const uint64_t *targets,
                                        uint32_t **order, int *resolved, uint64_t *duplicate_address,
                                        uint64_t *duplicate_offset);

/* Puts s's objects in order (order is freed), indexes every owned block's owner and builds
 * snapshot_find's buckets. */
enum format_status snapshot_index_place(struct snapshot *s, uint32_t *order);

/* Each reference's object by its target (targets, by reference) through snapshot_find: for
 * the objects placed, when snapshot_index_order did not resolve them. */
void snapshot_index_resolve(struct snapshot *s, const uint64_t *targets);

/* The snapshot's wide list, in the order of the references: the targets that are no object's,
 * and the INDEX n that need 64 bits (big: those n, by reference, big_count of them). */
enum format_status snapshot_index_wide(struct snapshot *s, const uint64_t *targets,
                                       const struct snapshot_wide *big, size_t big_count);

/* Whether the snapshot's wide list has an entry for ref: its target is no object's, or it is
 * an INDEX whose n is kept aside. */
static inline int snapshot_reference_wide(const struct snapshot_reference *ref)
{
  return ref->object == SNAPSHOT_NO_OBJECT || (ref->kind == SNAPSHOT_REF_INDEX && ref->text == SNAPSHOT_INDEX_WIDE);
}

#endif
