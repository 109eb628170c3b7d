/* format/snapshot_index.h: the decoder's last step on a heap snapshot's objects (snapshot_index.c): sorted by address, owned blocks indexed, snapshot_find's buckets built. */
#ifndef LJLEAK_FORMAT_SNAPSHOT_INDEX_H
#define LJLEAK_FORMAT_SNAPSHOT_INDEX_H

#include <stdint.h>

#include "format/snapshot.h"

/* Puts s's objects in order by address and indexes every owned block's owner. *offsets: each
 * object's record in the file, in the order read, freed (and set NULL) once the addresses are
 * checked. FORMAT_OK; FORMAT_NO_MEMORY; or FORMAT_BAD_INPUT when two objects have one
 * address, *duplicate_address that address and *duplicate_offset the later of their two
 * records. */
enum format_status snapshot_index_objects(struct snapshot *s, uint64_t **offsets,
                                          uint64_t *duplicate_address, uint64_t *duplicate_offset);

/* Whether the snapshot's wide list has an entry for ref: its target is no object's, or it is
 * an INDEX whose n is kept aside. */
static inline int snapshot_reference_wide(const struct snapshot_reference *ref)
{
  return ref->object == SNAPSHOT_NO_OBJECT || (ref->kind == SNAPSHOT_REF_INDEX && ref->text == SNAPSHOT_INDEX_WIDE);
}

#endif
