/* probes/array.c: growable arrays. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "probes/array.h"

int array_grow(void **ptr, size_t *cap, size_t size, size_t need)
{
	size_t n;
	void *p;

	if (need <= *cap)
		return 0;
	n = *cap ? *cap : 16;
	while (n < need) {
		if (n > SIZE_MAX / 2 / size)
			return -ENOMEM;
		n *= 2;
	}
	p = realloc(*ptr, n * size);
	if (!p)
		return -ENOMEM;
	*ptr = p;
	*cap = n;
	return 0;
}

int array_grow_zeroed(void **ptr, size_t *cap, size_t size, size_t need)
{
	size_t old = *cap;
	int r = array_grow(ptr, cap, size, need);

	if (r == 0 && *cap > old)
		memset((char *)*ptr + old * size, 0, (*cap - old) * size);
	return r;
}
