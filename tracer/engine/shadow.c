/* tracer/engine/shadow.c: the per-thread shadow stack of return probes.  The two
 * areas are mapped MAP_NORESERVE: only the pages a deep recursion touches
 * cost memory. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "tracer/engine/shadow.h"

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
 * Put SLOT's real return address RA, swapped at TS, in the limbo ring; of
 * two of a slot, the newer swap is the one that can still be there.
 */
static void limbo_add(struct shadow *sh, uint64_t slot, uint64_t ra, uint64_t ts)
{
	unsigned int i;

	for (i = 0; i < sh->nlimbo && sh->limbo[i].slot != slot; i++)
		;
	if (i < sh->nlimbo && sh->limbo[i].ts > ts)
		return;
	if (i == sh->nlimbo) {
		i = sh->limbo_next;
		sh->limbo_next = (sh->limbo_next + 1) % SHADOW_LIMBO;
		if (sh->nlimbo < SHADOW_LIMBO)
			sh->nlimbo++;
	}
	sh->limbo[i].slot = slot;
	sh->limbo[i].ra = ra;
	sh->limbo[i].ts = ts;
}

/*
 * Drop the top frame into the limbo ring.  An entry of its slot there is
 * older, so dead (this frame's call overwrote it): replaced.  A chained
 * frame's return address is the trampoline: the frame below has the real one.
 */
static void drop_top(struct shadow *sh)
{
	const struct shadow_frame *f = &sh->frames[sh->depth - 1];

	if (!f->chained)
		limbo_add(sh, f->slot, f->ra, f->ts);
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
	/*
	 * Above it, the frames of its stack were skipped (longjmp); those of
	 * other stacks live on (another coroutine's, switched away from).
	 */
	for (i = (long)sh->depth - 1; found >= 0 && i > found; i--) {
		const struct shadow_frame *f = &sh->frames[i];

		if (!same_stack(f, sh->frames[found].slot, sh->frames[found].stack))
			continue;
		if (!f->chained)
			limbo_add(sh, f->slot, f->ra, f->ts);
		shadow__remove(sh, (size_t)i, 1);
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
	/* down to its data; below the first frame, a frame removed there left a hole */
	sh->data_used = sh->depth ? sh->frames[sh->depth].data : 0;
}

void shadow__remove(struct shadow *sh, size_t from, size_t n)
{
	if (from + n >= sh->depth) {
		while (sh->depth > from)
			shadow__pop(sh);
		return;
	}
	/* the frames above keep their data where it is: the hole goes with the frame below */
	memmove(&sh->frames[from], &sh->frames[from + n],
		(sh->depth - from - n) * sizeof(*sh->frames));
	sh->depth -= n;
}

long shadow__find(const struct shadow *sh, uint64_t slot)
{
	for (long i = (long)sh->depth - 1; i >= 0; i--)
		if (sh->frames[i].slot == slot)
			return i;
	return -1;
}

void shadow__bequeath(struct shadow *src, struct shadow *dst)
{
	for (unsigned int i = 0; i < src->nlimbo; i++)
		limbo_add(dst, src->limbo[i].slot, src->limbo[i].ra, src->limbo[i].ts);
	for (size_t i = 0; i < src->depth; i++)
		if (!src->frames[i].chained)
			limbo_add(dst, src->frames[i].slot, src->frames[i].ra, src->frames[i].ts);
	shadow__clear(src);
}

long shadow__limbo_index(const struct shadow *sh, uint64_t slot)
{
	for (unsigned int i = 0; i < sh->nlimbo; i++)
		if (sh->limbo[i].slot == slot)
			return i;
	return -1;
}

uint64_t shadow__limbo_take(struct shadow *sh, long i)
{
	uint64_t ra = sh->limbo[i].ra;

	sh->limbo[i] = sh->limbo[--sh->nlimbo];
	sh->limbo_next = sh->nlimbo % SHADOW_LIMBO;
	return ra;
}

bool shadow__limbo_find(struct shadow *sh, uint64_t slot, uint64_t *ra)
{
	long i = shadow__limbo_index(sh, slot);

	if (i < 0)
		return false;
	*ra = shadow__limbo_take(sh, i);
	return true;
}

static int entry_add(struct shadow_entry **out, size_t *n, size_t *cap,
		     const struct shadow_entry *e)
{
	if (*n == *cap) {
		size_t ncap = *cap ? 2 * *cap : 64;
		struct shadow_entry *v = realloc(*out, ncap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		*out = v;
		*cap = ncap;
	}
	(*out)[(*n)++] = *e;
	return 0;
}

int shadow__entries(const struct shadow *sh, void *owner, struct shadow_entry **out, size_t *n,
		    size_t *cap)
{
	for (size_t i = 0; i < sh->depth; i++) {
		const struct shadow_frame *f = &sh->frames[i];
		struct shadow_entry e = { f->slot, f->ra, f->ts, owner };

		/* a tail call's frame: its address is the trampoline, the one below has the real */
		if (!f->chained && entry_add(out, n, cap, &e) < 0)
			return -ENOMEM;
	}
	for (unsigned int i = 0; i < sh->nlimbo; i++) {
		const struct shadow_limbo *l = &sh->limbo[i];
		struct shadow_entry e = { l->slot, l->ra, l->ts, owner };

		if (entry_add(out, n, cap, &e) < 0)
			return -ENOMEM;
	}
	return 0;
}

static int newest_first(const void *a, const void *b)
{
	const struct shadow_entry *x = a, *y = b;

	return x->ts < y->ts ? 1 : x->ts > y->ts ? -1 : 0;
}

void shadow_entries_sort(struct shadow_entry *e, size_t n)
{
	if (n)
		qsort(e, n, sizeof(*e), newest_first);
}

int shadow_entry_restore(const struct shadow_entry *e, uint64_t tramp,
			 int (*read)(void *priv, uint64_t addr, uint64_t *val),
			 int (*write)(void *priv, uint64_t addr, uint64_t val), void *priv)
{
	uint64_t now;

	if (e->ra == tramp || read(priv, e->slot, &now) < 0 || now != tramp)
		return 0;
	return write(priv, e->slot, e->ra) == 0;
}

int shadow__restore(struct shadow *sh, uint64_t tramp,
		    int (*read)(void *priv, uint64_t addr, uint64_t *val),
		    int (*write)(void *priv, uint64_t addr, uint64_t val), void *priv)
{
	struct shadow_entry *e = NULL;
	size_t n = 0, cap = 0;
	int put = 0;

	if (shadow__entries(sh, NULL, &e, &n, &cap) < 0) {
		/* no memory to sort: the frames, newest first, then the limbo */
		n = 0;
		for (size_t i = sh->depth; i-- > 0;) {
			struct shadow_entry one = { sh->frames[i].slot, sh->frames[i].ra, 0, NULL };

			put += shadow_entry_restore(&one, tramp, read, write, priv);
		}
		for (unsigned int i = 0; i < sh->nlimbo; i++) {
			struct shadow_entry one = { sh->limbo[i].slot, sh->limbo[i].ra, 0, NULL };

			put += shadow_entry_restore(&one, tramp, read, write, priv);
		}
	}
	shadow_entries_sort(e, n);
	for (size_t i = 0; i < n; i++)
		put += shadow_entry_restore(&e[i], tramp, read, write, priv);
	free(e);
	shadow__clear(sh);
	return put;
}
