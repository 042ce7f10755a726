/* tracer/shadow.c: the per-thread shadow stack of return probes.  The two
 * areas are mapped MAP_NORESERVE: only the pages a deep recursion touches
 * cost memory. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "tracer/shadow.h"

#define FRAMES_LEN	(SHADOW_MAX_DEPTH * sizeof(struct shadow_frame))
#define LIMBO_LEN	(SHADOW_LIMBO * sizeof(struct shadow_limbo))

static void *reserve(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

struct shadow *shadow__new(void)
{
	struct shadow *sh = calloc(1, sizeof(*sh));

	if (!sh)
		return NULL;
	sh->frames = reserve(FRAMES_LEN);
	sh->data = reserve(SHADOW_DATA);
	sh->limbo = reserve(LIMBO_LEN);
	if (!sh->frames || !sh->data || !sh->limbo) {
		shadow__free(sh);
		return NULL;
	}
	return sh;
}

void shadow__free(struct shadow *sh)
{
	if (!sh)
		return;
	if (sh->frames)
		munmap(sh->frames, FRAMES_LEN);
	if (sh->data)
		munmap(sh->data, SHADOW_DATA);
	if (sh->limbo)
		munmap(sh->limbo, LIMBO_LEN);
	free(sh);
}

int shadow__copy(struct shadow *dst, const struct shadow *src)
{
	memcpy(dst->frames, src->frames, src->depth * sizeof(*src->frames));
	memcpy(dst->data, src->data, src->data_used);
	dst->depth = src->depth;
	dst->data_used = src->data_used;
	memcpy(dst->limbo, src->limbo, src->nlimbo * sizeof(*src->limbo));
	dst->nlimbo = src->nlimbo;
	dst->limbo_next = src->limbo_next;
	return 0;
}

void shadow__clear(struct shadow *sh)
{
	sh->depth = 0;
	sh->data_used = 0;
	sh->nlimbo = 0;
	sh->limbo_next = 0;
}

/*
 * Drop the top frame into the limbo ring.  An entry of its slot there is
 * older, so dead (this frame's call overwrote it): replaced.  A chained
 * frame's return address is the trampoline: the frame below has the real one.
 */
static void drop_top(struct shadow *sh)
{
	const struct shadow_frame *f = &sh->frames[sh->depth - 1];
	unsigned int i;

	for (i = 0; i < sh->nlimbo && sh->limbo[i].slot != f->slot; i++)
		;
	if (f->chained) {
		i = SHADOW_LIMBO;
	} else if (i == sh->nlimbo) {
		i = sh->limbo_next;
		sh->limbo_next = (sh->limbo_next + 1) % SHADOW_LIMBO;
		if (sh->nlimbo < SHADOW_LIMBO)
			sh->nlimbo++;
	}
	if (i < SHADOW_LIMBO) {
		sh->limbo[i].slot = f->slot;
		sh->limbo[i].ra = f->ra;
	}
	shadow__pop(sh);
}

bool shadow_same_stack(uint64_t a, uint64_t sa, uint64_t b, uint64_t sb)
{
	if (sa && sb)
		return sa == sb;
	return (a > b ? a - b : b - a) < SHADOW_SAME_STACK;
}

/* Is frame F on the stack STACK a call's return address at SLOT is on? */
static bool same_stack(const struct shadow_frame *f, uint64_t slot, uint64_t stack)
{
	return shadow_same_stack(f->slot, f->stack, slot, stack);
}

struct shadow_frame *shadow__push(struct shadow *sh, uint64_t slot, uint64_t stack, bool chained,
				  size_t len, void **data, uint64_t *unwound)
{
	struct shadow_frame *f;
	size_t cut = sh->depth;

	/* down to the caller's frame, the first live one on this stack */
	for (size_t i = sh->depth; i-- > 0;) {
		f = &sh->frames[i];
		if (!same_stack(f, slot, stack))
			continue;
		if (f->slot > slot || (f->slot == slot && chained))
			break;
		cut = i;	/* dead, and everything pushed after it */
	}
	while (sh->depth > cut) {
		drop_top(sh);
		(*unwound)++;
	}
	len = (len + 7) & ~(size_t)7;
	if (sh->depth == SHADOW_MAX_DEPTH || len > SHADOW_DATA - sh->data_used)
		return NULL;
	f = &sh->frames[sh->depth++];
	memset(f, 0, sizeof(*f));
	f->slot = slot;
	f->stack = stack;
	f->chained = chained;
	f->data = sh->data_used;
	sh->data_used += len;
	*data = sh->data + f->data;
	return f;
}

long shadow__match(struct shadow *sh, uint64_t sp, uint64_t *unwound)
{
	long i, found = -1;

	/* `ret`: the slot is exactly SP - 8; `ret N` (rare) leaves SP further up */
	for (i = (long)sh->depth - 1; i >= 0 && found < 0; i--)
		if (sh->frames[i].slot + 8 == sp)
			found = i;
	for (i = (long)sh->depth - 1; i >= 0 && found < 0; i--)
		if (sh->frames[i].slot + 8 < sp && sp - (sh->frames[i].slot + 8) <= 0xffff)
			found = i;
	while (found >= 0 && (long)sh->depth - 1 > found) {
		drop_top(sh);
		(*unwound)++;
	}
	return found;
}

void *shadow__data(const struct shadow *sh, const struct shadow_frame *f)
{
	return sh->data + f->data;
}

bool shadow__has(const struct shadow *sh, uint64_t slot, uint64_t stack, const struct probe *p)
{
	for (size_t i = sh->depth; i-- > 0;) {
		const struct shadow_frame *f = &sh->frames[i];

		if (f->slot == slot && f->p == p)
			return true;
		if (f->slot > slot && same_stack(f, slot, stack))
			return false;	/* the caller's, or further out: this call has none */
	}
	return false;
}

void shadow__pop(struct shadow *sh)
{
	sh->depth--;
	sh->data_used = sh->frames[sh->depth].data;
}

bool shadow__limbo_find(struct shadow *sh, uint64_t slot, uint64_t *ra)
{
	for (unsigned int i = 0; i < sh->nlimbo; i++)
		if (sh->limbo[i].slot == slot) {
			*ra = sh->limbo[i].ra;
			sh->limbo[i] = sh->limbo[--sh->nlimbo];
			sh->limbo_next = sh->nlimbo % SHADOW_LIMBO;
			return true;
		}
	return false;
}

/* Put RA back at SLOT if the trampoline is still there. */
static int restore_one(uint64_t slot, uint64_t ra, uint64_t tramp,
		       int (*read)(void *priv, uint64_t addr, uint64_t *val),
		       int (*write)(void *priv, uint64_t addr, uint64_t val), void *priv)
{
	uint64_t now;

	if (ra == tramp || read(priv, slot, &now) < 0 || now != tramp)
		return 0;
	return write(priv, slot, ra) == 0;
}

int shadow__restore(struct shadow *sh, uint64_t tramp,
		    int (*read)(void *priv, uint64_t addr, uint64_t *val),
		    int (*write)(void *priv, uint64_t addr, uint64_t val), void *priv)
{
	int n = 0;

	/* Oldest first: a tail call's frame (ra: the trampoline) shares its
	 * slot with the frame below, whose real address goes back. */
	for (size_t i = 0; i < sh->depth; i++)
		n += restore_one(sh->frames[i].slot, sh->frames[i].ra, tramp, read, write, priv);
	for (unsigned int i = 0; i < sh->nlimbo; i++)
		n += restore_one(sh->limbo[i].slot, sh->limbo[i].ra, tramp, read, write, priv);
	shadow__clear(sh);
	return n;
}
