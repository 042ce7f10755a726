/* dwarf/tpool.h: a pool of allocations that live and die together -- the
 * type descriptors a resolved probe's fetch programs point to -- freed at
 * once with tpool_free().  Plain C; nothing of DWARF. */
#ifndef PTAP_DWARF_TPOOL_H
#define PTAP_DWARF_TPOOL_H

#include <stddef.h>

/* Allocations that live as long as a resolved probe (type descriptors). */
struct tpool {
	void **ptrs;
	size_t n, cap;
};

void *tpool_alloc(struct tpool *pool, size_t size);	/* zeroed; NULL on ENOMEM */
char *tpool_strdup(struct tpool *pool, const char *s);	/* NULL on ENOMEM */
void tpool_free(struct tpool *pool);			/* every allocation; POOL is reset */

#endif
