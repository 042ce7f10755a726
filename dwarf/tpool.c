/* dwarf/tpool.c: the allocation pool of dwarf/tpool.h. */
#include <stdlib.h>
#include <string.h>

#include "dwarf/tpool.h"

void *tpool_alloc(struct tpool *pool, size_t size)
{
	void *p;

	if (pool->n == pool->cap) {
		size_t cap = pool->cap ? pool->cap * 2 : 16;
		void **ptrs = realloc(pool->ptrs, cap * sizeof(*ptrs));

		if (!ptrs)
			return NULL;
		pool->ptrs = ptrs;
		pool->cap = cap;
	}
	p = calloc(1, size ? size : 1);
	if (p)
		pool->ptrs[pool->n++] = p;
	return p;
}

char *tpool_strdup(struct tpool *pool, const char *s)
{
	char *p = tpool_alloc(pool, strlen(s) + 1);

	return p ? strcpy(p, s) : NULL;
}

void tpool_free(struct tpool *pool)
{
	for (size_t i = 0; i < pool->n; i++)
		free(pool->ptrs[i]);
	free(pool->ptrs);
	memset(pool, 0, sizeof(*pool));
}
