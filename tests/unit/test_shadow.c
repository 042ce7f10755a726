/* tests/unit/test_shadow.c: the return probes' stack of pending calls --
 * pairing an exit with its call by the slot of the return address, calls
 * left by longjmp or an exception, two probes on one call, other stacks,
 * a thread's calls handed to a sibling. */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <string.h>

#include "probes/fetch.h"
#include "tracer/engine/shadow.h"

/* Two probes: only their addresses matter. */
static char probe_a, probe_b;
#define PA	((struct probe *)&probe_a)
#define PB	((struct probe *)&probe_b)

#define STACK	0x7ffff000ULL	/* the id of the thread's stack */
#define ALT	0x10000000ULL	/* an alternate stack's */

/* A call of P at SLOT on stack SID, entered at TS, its argument VAL. */
static void call(struct shadow *sh, struct probe *p, uint64_t slot, uint64_t sid, uint64_t ts,
		 uint64_t val, uint64_t *unw)
{
	void *data;
	struct shadow_frame *f = shadow__push(sh, p, slot, sid, false, ts, 8, &data, unw);

	cr_assert_not_null(f);
	memcpy(data, &val, 8);
}

/* The exit of P's call at SLOT: its argument, or -1 when no frame is there. */
static long ret(struct shadow *sh, struct probe *p, uint64_t slot, uint64_t sid, uint64_t *unw)
{
	long i = shadow__find(sh, p, slot, sid);
	uint64_t v;

	if (i < 0) {
		shadow__drop_passed(sh, -1, slot, sid, unw);
		return -1;
	}
	shadow__drop_passed(sh, i, slot, sid, unw);
	memcpy(&v, shadow__data(sh, &sh->frames[i]), 8);
	shadow__remove(sh, (size_t)i);
	return (long)v;
}

Test(shadow, recursion_pairs_each_exit_with_its_call)
{
	struct shadow *sh = shadow__new();
	uint64_t unw = 0;

	cr_assert_not_null(sh);
	for (uint64_t d = 0; d < 100; d++)
		call(sh, PA, 0x8000 - 0x20 * d, STACK, d, d, &unw);
	for (long d = 99; d >= 0; d--)
		cr_assert(eq(i64, ret(sh, PA, 0x8000 - 0x20 * (uint64_t)d, STACK, &unw), d));
	cr_assert(eq(u64, sh->depth, 0));
	cr_assert(eq(u64, sh->data_used, 0));
	cr_assert(eq(u64, unw, 0));
	shadow__free(sh);
}

Test(shadow, longjmp_left_calls_are_dropped_not_recorded)
{
	struct shadow *sh = shadow__new();
	uint64_t unw = 0;

	call(sh, PA, 0x8000, STACK, 1, 1, &unw);	/* outer */
	call(sh, PA, 0x7f00, STACK, 2, 2, &unw);
	call(sh, PB, 0x7e00, STACK, 3, 3, &unw);	/* both left by a longjmp to outer's caller */
	/* a new call above them: they are gone */
	call(sh, PB, 0x7f80, STACK, 4, 4, &unw);
	cr_assert(eq(u64, unw, 2));
	cr_assert(eq(i64, ret(sh, PB, 0x7f80, STACK, &unw), 4));
	cr_assert(eq(i64, ret(sh, PA, 0x7f00, STACK, &unw), -1));
	cr_assert(eq(i64, ret(sh, PA, 0x8000, STACK, &unw), 1));
	cr_assert(eq(u64, sh->depth, 0));
	shadow__free(sh);
}

Test(shadow, an_exit_drops_the_calls_an_exception_left_below_it)
{
	struct shadow *sh = shadow__new();
	uint64_t unw = 0;

	call(sh, PA, 0x8000, STACK, 1, 1, &unw);	/* catches */
	call(sh, PB, 0x7f00, STACK, 2, 2, &unw);	/* thrown through */
	call(sh, PB, 0x7e00, STACK, 3, 3, &unw);	/* throws */
	cr_assert(eq(i64, ret(sh, PA, 0x8000, STACK, &unw), 1));
	cr_assert(eq(u64, unw, 2));
	cr_assert(eq(u64, sh->depth, 0));
	/* an exit with no call of its own still drops what it passed */
	call(sh, PB, 0x7e00, STACK, 4, 4, &unw);
	cr_assert(eq(i64, ret(sh, PA, 0x8000, STACK, &unw), -1));
	cr_assert(eq(u64, unw, 3));
	cr_assert(eq(u64, sh->depth, 0));
	shadow__free(sh);
}

Test(shadow, two_probes_on_one_call_share_its_slot)
{
	struct shadow *sh = shadow__new();
	uint64_t unw = 0;
	void *data;

	call(sh, PA, 0x8000, STACK, 7, 1, &unw);
	call(sh, PB, 0x8000, STACK, 7, 2, &unw);
	cr_assert(eq(u64, unw, 0));
	cr_assert(eq(i64, ret(sh, PA, 0x8000, STACK, &unw), 1));
	cr_assert(eq(i64, ret(sh, PB, 0x8000, STACK, &unw), 2));
	/* P's own frame at the slot is of a call left: a new call replaces it */
	call(sh, PA, 0x8000, STACK, 8, 3, &unw);
	call(sh, PA, 0x8000, STACK, 9, 4, &unw);
	cr_assert(eq(u64, unw, 1));
	cr_assert(eq(u64, sh->depth, 1));
	/* a site past the prologue keeps another probe's frame of the call (a later hit) */
	call(sh, PB, 0x8000, STACK, 10, 5, &unw);
	cr_assert(eq(u64, sh->depth, 2));
	/* at a function's entry, another probe's frame of another hit is of a call left */
	cr_assert_not_null(shadow__push(sh, PA, 0x8000, STACK, true, 11, 8, &data, &unw));
	cr_assert(eq(u64, sh->depth, 1));
	cr_assert(eq(u64, unw, 3));
	shadow__free(sh);
}

Test(shadow, calls_on_another_stack_are_kept)
{
	struct shadow *sh = shadow__new();
	uint64_t unw = 0;

	call(sh, PA, 0x8000, STACK, 1, 1, &unw);
	call(sh, PA, 0x7000, STACK, 2, 2, &unw);	/* interrupted by a handler */
	call(sh, PA, 0x9000, ALT, 3, 3, &unw);		/* on an alternate stack, higher */
	cr_assert(eq(u64, unw, 0));
	cr_assert(eq(i64, ret(sh, PA, 0x9000, ALT, &unw), 3));
	cr_assert(eq(i64, ret(sh, PA, 0x7000, STACK, &unw), 2));
	cr_assert(eq(i64, ret(sh, PA, 0x8000, STACK, &unw), 1));
	cr_assert(eq(u64, unw, 0));
	shadow__free(sh);
}

Test(shadow, a_loop_back_to_the_site_is_the_same_call)
{
	struct shadow *sh = shadow__new();
	uint64_t unw = 0;

	call(sh, PA, 0x8000, STACK, 1, 1, &unw);
	call(sh, PA, 0x7000, STACK, 2, 2, &unw);
	cr_assert(shadow__has(sh, 0x7000, STACK, PA));
	cr_assert(not(shadow__has(sh, 0x7000, STACK, PB)));
	cr_assert(not(shadow__has(sh, 0x6000, STACK, PA)));
	shadow__free(sh);
}

Test(shadow, a_gone_threads_calls_go_to_a_sibling_with_their_arguments)
{
	struct shadow *a = shadow__new(), *b = shadow__new();
	uint64_t unw = 0, lost = 0;

	call(a, PA, 0x8000, STACK, 1, 10, &unw);	/* on its own stack: gone with it */
	call(a, PA, 0x5000, ALT, 1, 11, &unw);		/* a coroutine's */
	call(a, PA, 0x4f00, ALT, 2, 12, &unw);
	call(b, PB, 0x8000, STACK, 3, 3, &unw);
	shadow__bequeath(a, b, STACK, &unw, &lost);
	cr_assert(eq(u64, a->depth, 0));
	cr_assert(eq(u64, b->depth, 3));
	cr_assert(eq(u64, lost, 0));
	cr_assert(eq(u64, unw, 1));
	unw = 0;
	cr_assert(eq(i64, ret(b, PA, 0x4f00, ALT, &unw), 12));
	cr_assert(eq(i64, ret(b, PA, 0x5000, ALT, &unw), 11));
	cr_assert(eq(i64, ret(b, PB, 0x8000, STACK, &unw), 3));
	cr_assert(eq(u64, unw, 0));
	shadow__free(a);
	shadow__free(b);
}

Test(shadow, full_is_null_and_a_fork_child_gets_a_copy)
{
	struct shadow *sh = shadow__new(), *c = shadow__new();
	uint64_t unw = 0;
	void *data;

	for (uint64_t d = 0; d < SHADOW_MAX_DEPTH; d++)
		cr_assert_not_null(shadow__push(sh, PA, 0x100000000ULL - 16 * d, STACK, false, d, 0,
						&data, &unw));
	cr_assert_null(shadow__push(sh, PA, 0x1000, STACK, false, 0, 0, &data, &unw));
	shadow__clear(sh);
	call(sh, PA, 0x8000, STACK, 1, 42, &unw);
	shadow__copy(c, sh);
	cr_assert(eq(i64, ret(c, PA, 0x8000, STACK, &unw), 42));
	cr_assert(eq(i64, ret(sh, PA, 0x8000, STACK, &unw), 42));
	shadow__free(sh);
	shadow__free(c);
}

/* A frame whose argument is a string: its fetch_val, then its bytes. */
static struct shadow_frame *call_str(struct shadow *sh, uint64_t slot, const char *text,
				     uint64_t *unw)
{
	void *data;
	struct shadow_frame *f = shadow__push(sh, PA, slot, STACK, false, slot, 128, &data, unw);
	struct fetch_val *v = data;

	cr_assert_not_null(f);
	f->nvals = 1;
	memset(v, 0, sizeof(*v));
	v->str = (char *)data + sizeof(*v);
	v->len = strlen(text);
	memcpy(v->str, text, v->len);
	return f;
}

/* The string of frame I of SH, checked to lie in its own data. */
static const char *frame_str(const struct shadow *sh, size_t i, char *buf)
{
	const struct shadow_frame *f = &sh->frames[i];
	const struct fetch_val *v = shadow__data(sh, f);

	cr_assert(ge(ptr, (void *)v->str, (void *)(sh->data + f->data)));
	cr_assert(lt(ptr, (void *)v->str, (void *)(sh->data + f->data + f->len)));
	memcpy(buf, v->str, v->len);
	buf[v->len] = 0;
	return buf;
}

Test(shadow, strings_move_with_their_frames)
{
	struct shadow *a = shadow__new(), *b = shadow__new(), *c = shadow__new();
	uint64_t unw = 0, lost = 0;
	char buf[64];

	call_str(a, 0x8000, "first", &unw);
	call_str(a, 0x5000, "second", &unw);
	shadow__copy(c, a);			/* a fork child's */
	cr_assert(eq(str, (char *)frame_str(c, 1, buf), "second"));
	shadow__bequeath(a, b, 0, &unw, &lost);	/* a gone thread's */
	cr_assert(eq(str, (char *)frame_str(b, 0, buf), "first"));
	cr_assert(eq(str, (char *)frame_str(b, 1, buf), "second"));
	shadow__free(a);
	shadow__free(b);
	shadow__free(c);
}

Test(shadow, holes_are_closed_when_the_data_is_full)
{
	struct shadow *sh = shadow__new();
	uint64_t unw = 0;
	size_t n = 0;
	void *data;
	char buf[64];

	/* frames on two stacks, taking turns; those of one return, from below the top */
	while (shadow__push(sh, PA, 0x100000000ULL - 64 * n, n % 2 ? ALT : STACK, false, n,
			    SHADOW_DATA / 64, &data, &unw))
		n++;
	cr_assert(eq(u64, n, 64));
	for (size_t i = 62; i > 0; i -= 2)
		shadow__remove(sh, i);
	cr_assert(eq(u64, sh->depth, 33));
	call_str(sh, 0x1000, "after", &unw);
	cr_assert(eq(u64, sh->depth, 34));
	cr_assert(eq(str, (char *)frame_str(sh, 33, buf), "after"));
	cr_assert(eq(u64, unw, 0));
	shadow__free(sh);
}

Test(shadow, a_goroutines_calls_outlive_another_goroutines_left_call)
{
	struct shadow *sh = shadow__new();
	uint64_t unw = 0;
	void *data;
	struct shadow_frame *f;

	/* goroutine G1 (stack id 0x1001) left a call (a recovered panic) */
	f = shadow__push(sh, PA, 0x5000, 0x1001, false, 1, 8, &data, &unw);
	f->own_stack = true;
	/* G2, on the same thread, enters a call */
	f = shadow__push(sh, PB, 0x7000, 0x1002, false, 2, 8, &data, &unw);
	f->own_stack = true;
	/* G1 calls again, above its left call: that one goes, G2's stays */
	f = shadow__push(sh, PA, 0x6000, 0x1001, false, 3, 8, &data, &unw);
	f->own_stack = true;
	cr_assert(eq(u64, unw, 1));
	cr_assert(eq(u64, sh->depth, 2));
	cr_assert(ge(i64, shadow__find(sh, PB, 0x7000, 0x1002), 0));
	shadow__free(sh);
}
