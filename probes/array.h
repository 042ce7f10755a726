/* probes/array.h: the one growable-array helper (used by every layer above probes/). */
#ifndef PTAP_PROBES_ARRAY_H
#define PTAP_PROBES_ARRAY_H

#include <stddef.h>

/*
 * Make *PTR (capacity *CAP elements of SIZE) hold at least NEED, growing
 * geometrically.  0, or -ENOMEM with *PTR and *CAP unchanged.
 */
int array_grow(void **ptr, size_t *cap, size_t size, size_t need);
/* The same, the new elements zeroed. */
int array_grow_zeroed(void **ptr, size_t *cap, size_t size, size_t need);

#endif
