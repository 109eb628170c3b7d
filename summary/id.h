/* summary/id.h: the summary's items (sites, names, versions, entries) are 32-bit ids into arrays (grown by container/array.h). */
#ifndef LJLEAK_SUMMARY_ID_H
#define LJLEAK_SUMMARY_ID_H

#include <stddef.h>
#include <stdint.h>

#define SUMMARY_ID_NONE UINT32_MAX  /* no item: an empty slot, an id not made yet, or a failure */

#endif
