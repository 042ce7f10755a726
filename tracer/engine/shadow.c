/* tracer/engine/shadow.c: the per-thread stack of pending calls of return
 * probes.  The two areas are mapped MAP_NORESERVE: only the pages a deep
 * recursion touches cost memory. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "probes/fetch.h"
#include "tracer/engine/shadow.h"

#define FRAMES_LEN	(SHADOW_MAX_DEPTH * sizeof(struct shadow_frame))

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
	if (!sh->frames || !sh->data) {
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
	free(sh);
}

/*
 * Frame F's data moved from FROM to TO: its strings point into it too.  The
 * values of arguments fetched at the return are not set: whatever they
 * hold is rebased or not, and never read.
 */
static void rebase(const struct shadow_frame *f, char *from, char *to)
{
	struct fetch_val *v = (struct fetch_val *)to;

	for (unsigned int i = 0; i < f->nvals; i++)
		if (v[i].str >= from && v[i].str < from + f->len)
			v[i].str = to + (v[i].str - from);
}

void shadow__copy(struct shadow *dst, const struct shadow *src)
{
	memcpy(dst->frames, src->frames, src->depth * sizeof(*src->frames));
	memcpy(dst->data, src->data, src->data_used);
	dst->depth = src->depth;
	dst->data_used = src->data_used;
	for (size_t i = 0; i < dst->depth; i++)
		rebase(&dst->frames[i], src->data + dst->frames[i].data,
		       dst->data + dst->frames[i].data);
}

/* Close the holes removed frames left in the data area. */
static void compact(struct shadow *sh)
{
	size_t at = 0;

	for (size_t i = 0; i < sh->depth; i++) {
		struct shadow_frame *f = &sh->frames[i];

		if (f->data != at) {
			memmove(sh->data + at, sh->data + f->data, f->len);
			rebase(f, sh->data + f->data, sh->data + at);
			f->data = at;
		}
		at += f->len;
	}
	sh->data_used = at;
}

void shadow__clear(struct shadow *sh)
{
	sh->depth = 0;
	sh->data_used = 0;
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

/* Pop the top frame, down to its data (below a removed frame: a hole, reclaimed now). */
static void pop(struct shadow *sh)
{
	sh->depth--;
	sh->data_used = sh->depth ? sh->frames[sh->depth - 1].data + sh->frames[sh->depth - 1].len
				  : 0;
}

void shadow__enter(struct shadow *sh, const struct probe *p, uint64_t slot, uint64_t stack,
		   bool entry, uint64_t ts, uint64_t *unwound)
{
	size_t cut = sh->depth;

	/* down to the caller's frame, the first live one on this stack */
	for (size_t i = sh->depth; i-- > 0;) {
		const struct shadow_frame *f = &sh->frames[i];

		if (!same_stack(f, slot, stack))
			continue;
		if (f->slot > slot || (f->slot == slot && f->p != p && (!entry || f->ts == ts)))
			break;
		cut = i;	/* left, and everything pushed after it */
	}
	for (size_t i = sh->depth; i-- > cut;) {
		const struct shadow_frame *f = &sh->frames[i];

		if (i > cut && f->own_stack && !same_stack(f, slot, stack))
			continue;	/* another goroutine's */
		shadow__remove(sh, i);
		(*unwound)++;
	}
}

struct shadow_frame *shadow__push(struct shadow *sh, struct probe *p, uint64_t slot,
				  uint64_t stack, bool entry, uint64_t ts, size_t len, void **data,
				  uint64_t *unwound)
{
	struct shadow_frame *f;

	if (unwound)
		shadow__enter(sh, p, slot, stack, entry, ts, unwound);
	len = (len + 7) & ~(size_t)7;
	if (len > SHADOW_DATA - sh->data_used)
		compact(sh);
	if (sh->depth == SHADOW_MAX_DEPTH || len > SHADOW_DATA - sh->data_used)
		return NULL;
	f = &sh->frames[sh->depth++];
	memset(f, 0, sizeof(*f));
	f->p = p;
	f->ts = ts;
	f->slot = slot;
	f->stack = stack;
	f->data = sh->data_used;
	f->len = len;
	sh->data_used += len;
	*data = sh->data + f->data;
	return f;
}

bool shadow__has(const struct shadow *sh, uint64_t slot, uint64_t stack, const struct probe *p)
{
	for (size_t i = sh->depth; i-- > 0;) {
		const struct shadow_frame *f = &sh->frames[i];

		if (f->slot == slot && f->p == p && same_stack(f, slot, stack))
			return true;
		if (f->slot > slot && same_stack(f, slot, stack))
			return false;	/* the caller's, or further out: this call has none */
	}
	return false;
}

long shadow__find(const struct shadow *sh, const struct probe *p, uint64_t slot, uint64_t stack)
{
	for (long i = (long)sh->depth - 1; i >= 0; i--) {
		const struct shadow_frame *f = &sh->frames[i];

		if (f->slot == slot && f->p == p && same_stack(f, slot, stack))
			return i;
	}
	return -1;
}

void shadow__drop_passed(struct shadow *sh, long above, uint64_t slot, uint64_t stack,
			 uint64_t *unwound)
{
	for (long i = (long)sh->depth - 1; i > above; i--) {
		const struct shadow_frame *f = &sh->frames[i];

		if (f->slot < slot && same_stack(f, slot, stack)) {
			shadow__remove(sh, (size_t)i);
			(*unwound)++;
		}
	}
}

void *shadow__data(const struct shadow *sh, const struct shadow_frame *f)
{
	return sh->data + f->data;
}

void shadow__remove(struct shadow *sh, size_t i)
{
	if (i + 1 == sh->depth) {
		pop(sh);
		return;
	}
	/* the frames above keep their data where it is: a hole until they go */
	memmove(&sh->frames[i], &sh->frames[i + 1], (sh->depth - i - 1) * sizeof(*sh->frames));
	sh->depth--;
}

void shadow__bequeath(struct shadow *src, struct shadow *dst, uint64_t home, uint64_t *unwound,
		      uint64_t *lost)
{
	for (size_t i = 0; i < src->depth; i++) {
		const struct shadow_frame *f = &src->frames[i];
		struct shadow_frame *to;

		if (home && f->stack == home) {
			(*unwound)++;
			continue;
		}
		if (f->len > SHADOW_DATA - dst->data_used)
			compact(dst);
		if (dst->depth == SHADOW_MAX_DEPTH || f->len > SHADOW_DATA - dst->data_used) {
			(*lost)++;
			continue;
		}
		to = &dst->frames[dst->depth++];
		*to = *f;
		to->data = dst->data_used;
		memcpy(dst->data + to->data, src->data + f->data, f->len);
		rebase(to, src->data + f->data, dst->data + to->data);
		dst->data_used += f->len;
	}
	shadow__clear(src);
}
