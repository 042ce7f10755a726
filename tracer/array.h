/* tracer/array.h: the one growable-array helper. */
#ifndef PTAP_TRACER_ARRAY_H
#define PTAP_TRACER_ARRAY_H

#include <stddef.h>

/*
 * Make *PTR (capacity *CAP elements of SIZE) hold at least NEED, growing
 * geometrically.  0, or -ENOMEM with *PTR and *CAP unchanged.
 */
int array_grow(void **ptr, size_t *cap, size_t size, size_t need);

#endif
