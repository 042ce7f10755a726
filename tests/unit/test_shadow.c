/* tests/unit/test_shadow.c: the return probes' shadow stack -- matching a
 * return to its frame, frames left by longjmp, tail-call chains, and putting
 * the return addresses back -- against a fake stack. */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <string.h>

#include "tracer/engine/shadow.h"

#define TRAMP	0x7000ULL

/* A fake stack: 64 words from 0x1000. */
static uint64_t stack[64];

static uint64_t *word(uint64_t addr)
{
	cr_assert(ge(u64, addr, 0x1000));
	cr_assert(lt(u64, addr, 0x1000 + sizeof(stack)));
	cr_assert(eq(u64, addr % 8, 0));
	return &stack[(addr - 0x1000) / 8];
}

static int rd(void *priv, uint64_t addr, uint64_t *val)
{
	(void)priv;
	*val = *word(addr);
	return 0;
}

static int wr(void *priv, uint64_t addr, uint64_t val)
{
	(void)priv;
	*word(addr) = val;
	return 0;
}

/* A call (RA pushed at SLOT on stack SID; RA 0: a tail call, a jump that pushes nothing),
 * taken over. */
static struct shadow_frame *call_on(struct shadow *sh, uint64_t slot, uint64_t sid, uint64_t ra,
				    uint64_t *unw)
{
	void *data;
	struct shadow_frame *f;
	bool chained;

	if (ra)
		*word(slot) = ra;
	chained = *word(slot) == TRAMP;
	f = shadow__push(sh, slot, sid, chained, 16, &data, unw);
	cr_assert_not_null(f);
	f->ra = *word(slot);
	memset(data, 0xab, 16);
	*word(slot) = TRAMP;
	return f;
}

/* The same on a stack whose mapping is not known. */
static struct shadow_frame *call(struct shadow *sh, uint64_t slot, uint64_t ra, uint64_t *unw)
{
	return call_on(sh, slot, 0, ra, unw);
}

Test(shadow, nested_returns_match_their_frames)
{
	struct shadow *sh = shadow__new();
	uint64_t unw = 0;

	cr_assert_not_null(sh);
	call(sh, 0x1100, 0xa1, &unw);
	call(sh, 0x10c0, 0xa2, &unw);
	call(sh, 0x1080, 0xa3, &unw);
	cr_expect(eq(sz, sh->depth, 3));
	/* the innermost returns: `ret` left sp 8 above its slot */
	cr_expect(eq(long, shadow__match(sh, 0x1088, &unw), 2));
	cr_expect(eq(u64, sh->frames[2].ra, 0xa3));
	shadow__pop(sh);
	cr_expect(eq(long, shadow__match(sh, 0x10c8, &unw), 1));
	shadow__pop(sh);
	cr_expect(eq(long, shadow__match(sh, 0x1108, &unw), 0));
	cr_expect(eq(u64, sh->frames[0].ra, 0xa1));
	shadow__pop(sh);
	cr_expect(eq(sz, sh->depth, 0));
	cr_expect(eq(sz, sh->data_used, 0));
	cr_expect(eq(u64, unw, 0));
	cr_expect(eq(long, shadow__match(sh, 0x1108, &unw), -1), "nothing left");
	shadow__free(sh);
}

Test(shadow, longjmp_leaves_frames_dropped_at_the_next_call_or_return)
{
	struct shadow *sh = shadow__new();
	uint64_t unw = 0, ra;

	call(sh, 0x1100, 0xa1, &unw);
	call(sh, 0x10c0, 0xa2, &unw);
	call(sh, 0x1080, 0xa3, &unw);
	/* longjmp back into the first call's frame, which calls again higher up */
	call(sh, 0x10e0, 0xb1, &unw);
	cr_expect(eq(u64, unw, 2), "the two frames below 0x10e0 were left");
	cr_expect(eq(sz, sh->depth, 2));
	cr_expect(eq(u64, sh->frames[1].slot, 0x10e0));
	/* a new call at the very slot a left frame had: the old one is dead too */
	shadow__pop(sh);
	call(sh, 0x10c0, 0xa2, &unw);
	call(sh, 0x10c0, 0, &unw);	/* a tail call: the slot holds the trampoline */
	cr_expect(eq(sz, sh->depth, 3), "a tail call keeps the frame it shares the slot with");
	call(sh, 0x10c0, 0x55, &unw);	/* a new call overwrote the slot: both there are dead */
	cr_expect(eq(sz, sh->depth, 2));
	cr_expect(eq(u64, unw, 4));
	/* the outer return skips what is left above it */
	call(sh, 0x1040, 0xd1, &unw);
	cr_expect(eq(long, shadow__match(sh, 0x1108, &unw), 0));
	cr_expect(eq(sz, sh->depth, 1));
	cr_expect(eq(u64, unw, 6));
	/* a frame taken as dead is still found by its slot */
	cr_expect(eq(int, shadow__limbo_find(sh, 0x1040, &ra), true));
	cr_expect(eq(u64, ra, 0xd1));
	cr_expect_not(shadow__limbo_find(sh, 0x1040, &ra), "found once");
	shadow__free(sh);
}

Test(shadow, another_stack_is_not_taken_as_unwound)
{
	struct shadow *sh = shadow__new();
	uint64_t unw = 0;
	void *data;

	call(sh, 0x1100, 0xa1, &unw);
	/* a handler on a sigaltstack far above */
	cr_assert_not_null(shadow__push(sh, 0x1100 + SHADOW_SAME_STACK, 0, false, 0, &data, &unw));
	cr_expect(eq(u64, unw, 0));
	cr_expect(eq(sz, sh->depth, 2));
	shadow__free(sh);
}

Test(shadow, restore_puts_back_what_is_still_the_trampoline)
{
	struct shadow *sh = shadow__new();
	struct shadow *copy = shadow__new();
	uint64_t unw = 0;

	memset(stack, 0, sizeof(stack));
	call(sh, 0x1100, 0xa1, &unw);
	call(sh, 0x10c0, 0xa2, &unw);
	call(sh, 0x10c0, 0, &unw);	/* a tail call: shares 0x10c0 */
	call(sh, 0x1080, 0xa4, &unw);
	*word(0x1080) = 0x99;		/* no longer ours: left alone */
	cr_assert(eq(int, shadow__copy(copy, sh), 0));
	cr_expect(eq(sz, copy->depth, 4));
	cr_expect(eq(int, shadow__restore(sh, TRAMP, rd, wr, NULL), 2));
	cr_expect(eq(u64, *word(0x1100), 0xa1));
	cr_expect(eq(u64, *word(0x10c0), 0xa2), "the real address, not the chained trampoline");
	cr_expect(eq(u64, *word(0x1080), 0x99));
	cr_expect(eq(sz, sh->depth, 0));
	cr_expect(eq(u64, copy->frames[3].ra, 0xa4), "the copy is independent");
	shadow__free(sh);
	shadow__free(copy);
}

Test(shadow, full_stack_refuses_a_push)
{
	struct shadow *sh = shadow__new();
	uint64_t unw = 0;
	void *data;

	for (int i = 0; i < SHADOW_MAX_DEPTH; i++)
		cr_assert_not_null(shadow__push(sh, 0x40000000ULL - 16ULL * i, 0, false, 8, &data,
						&unw));
	cr_expect_null(shadow__push(sh, 0x1000, 0, false, 8, &data, &unw));
	cr_expect(eq(sz, sh->depth, SHADOW_MAX_DEPTH));
	cr_expect(eq(u64, unw, 0));
	shadow__free(sh);
}

Test(shadow, a_site_a_loop_passes_again_is_the_same_call)
{
	struct shadow *sh = shadow__new();
	static int pa, pb, pc;		/* stand-ins for three probes */
	uint64_t unw = 0;

	call(sh, 0x1100, 0xa1, &unw)->p = (struct probe *)&pa;	/* the caller */
	call(sh, 0x10c0, 0xa2, &unw)->p = (struct probe *)&pa;	/* at the entry */
	call(sh, 0x10c0, 0, &unw)->p = (struct probe *)&pb;	/* past the prologue */
	cr_expect(shadow__has(sh, 0x10c0, 0, (struct probe *)&pb), "a second pass: taken over");
	cr_expect(eq(int, shadow__has(sh, 0x10c0, 0, (struct probe *)&pa), true));
	cr_expect(eq(int, shadow__has(sh, 0x10c0, 0, (struct probe *)&pc), false));
	/* the caller's frame is further out: a call at 0x1080 has none of its own */
	cr_expect(eq(int, shadow__has(sh, 0x1080, 0, (struct probe *)&pa), false));
	cr_expect(eq(int, shadow__has(sh, 0x10e0, 0, (struct probe *)&pb), false));
	shadow__free(sh);
}

Test(shadow, a_handler_that_jumped_away_from_a_far_stack_is_dropped_with_its_caller)
{
	struct shadow *sh = shadow__new();
	uint64_t unw = 0;
	void *data;

	call(sh, 0x1100, 0xa1, &unw);
	call(sh, 0x10c0, 0xa2, &unw);
	/* a handler on an alternate stack far away, 2 deep; it siglongjmps out */
	cr_assert_not_null(shadow__push(sh, 0x1000 + 2 * SHADOW_SAME_STACK, 0, false, 0, &data,
					&unw));
	cr_assert_not_null(shadow__push(sh, 0x0fc0 + 2 * SHADOW_SAME_STACK, 0, false, 0, &data,
					&unw));
	cr_expect(eq(u64, unw, 0), "the interrupted calls are live while the handler runs");
	/* back in the loop, the same call again: all four are dead */
	call(sh, 0x1100, 0xa1, &unw);
	cr_expect(eq(u64, unw, 4));
	cr_expect(eq(sz, sh->depth, 1));
	cr_expect(eq(sz, sh->data_used, 16));
	shadow__free(sh);
}

Test(shadow, a_stack_right_above_is_another_stack_by_its_mapping)
{
	struct shadow *sh = shadow__new();
	uint64_t unw = 0;

	/* a thread's stack (its mapping ends at 0x1100) and, right above it, an
	 * alternate stack of its own mapping (ending at 0x1200) */
	call_on(sh, 0x10f8, 0x1100, 0xa1, &unw);
	call_on(sh, 0x10b8, 0x1100, 0xa2, &unw);
	call_on(sh, 0x11c0, 0x1200, 0xb1, &unw);	/* a handler's call: above, not after */
	call_on(sh, 0x1180, 0x1200, 0xb2, &unw);
	cr_expect(eq(u64, unw, 0));
	cr_expect(eq(sz, sh->depth, 4));
	cr_expect(eq(long, shadow__match(sh, 0x1188, &unw), 3));
	shadow__pop(sh);
	cr_expect(eq(long, shadow__match(sh, 0x11c8, &unw), 2));
	shadow__pop(sh);
	cr_expect(eq(long, shadow__match(sh, 0x10c0, &unw), 1), "the interrupted call returns");
	cr_expect(eq(u64, sh->frames[1].ra, 0xa2));
	cr_expect(eq(u64, unw, 0));
	/* the same layout with the mappings unknown: the lower calls look unwound */
	shadow__clear(sh);
	call(sh, 0x10f8, 0xa1, &unw);
	call(sh, 0x11c0, 0xb1, &unw);
	cr_expect(eq(u64, unw, 1));
	shadow__free(sh);
}

Test(shadow, limbo_keeps_the_latest_real_address_of_each_slot)
{
	struct shadow *sh = shadow__new();
	uint64_t unw = 0, ra;

	/* a call, a tail call from it, and deeper ones; all left by longjmp */
	call(sh, 0x1100, 0xa1, &unw);
	call(sh, 0x1100, 0, &unw);
	call(sh, 0x10c0, 0xa2, &unw);
	call(sh, 0x1140, 0xb1, &unw);
	cr_expect(eq(u64, unw, 3));
	cr_expect(eq(uint, sh->nlimbo, 2), "the tail call's frame holds no real address");
	/* the same slots again, other return addresses, left again */
	call(sh, 0x10c0, 0xc2, &unw);
	call(sh, 0x1100, 0xc1, &unw);
	call(sh, 0x1140, 0xb1, &unw);
	cr_expect(eq(uint, sh->nlimbo, 3), "one entry per slot");
	cr_expect(eq(int, shadow__limbo_find(sh, 0x1100, &ra), true));
	cr_expect(eq(u64, ra, 0xc1), "the latest");
	cr_expect(eq(int, shadow__limbo_find(sh, 0x10c0, &ra), true));
	cr_expect(eq(u64, ra, 0xc2));
	cr_expect(eq(int, shadow__limbo_find(sh, 0x1100, &ra), false));
	shadow__free(sh);
}

Test(shadow, limbo_holds_a_deep_stack_taken_as_unwound)
{
	struct shadow *sh = shadow__new();
	uint64_t unw = 0, ra;
	void *data;
	struct shadow_frame *f;

	/* 1000 calls deep, then a handler's call on an alternate stack above the
	 * deepest ones that nothing tells from the same stack */
	for (uint64_t i = 0; i < 1000; i++) {
		f = shadow__push(sh, 0x100000 - 64 * i, 0, false, 8, &data, &unw);
		cr_assert_not_null(f);
		f->ra = 0x5000 + i;
	}
	cr_assert_not_null(shadow__push(sh, 0x100000 - 64 * 500 + 8, 0, false, 8, &data, &unw));
	cr_expect(eq(u64, unw, 500));
	/* each return of the 500 taken as unwound still finds its address */
	for (uint64_t i = 999; i >= 500; i--) {
		cr_expect(eq(int, shadow__limbo_find(sh, 0x100000 - 64 * i, &ra), true));
		cr_expect(eq(u64, ra, 0x5000 + i));
	}
	shadow__free(sh);
}

Test(shadow, a_frame_is_removed_from_the_middle_and_its_data_comes_back_later)
{
	struct shadow *sh = shadow__new();
	uint64_t unw = 0;

	call(sh, 0x1100, 0xa1, &unw);
	call(sh, 0x10c0, 0xa2, &unw);
	call(sh, 0x1080, 0xa3, &unw);
	cr_expect(eq(long, shadow__find(sh, 0x10c0), 1));
	cr_expect(eq(long, shadow__find(sh, 0x1040), -1));
	shadow__remove(sh, 1, 1);	/* another thread returned through it */
	cr_expect(eq(sz, sh->depth, 2));
	cr_expect(eq(u64, sh->frames[1].slot, 0x1080));
	cr_expect(eq(u64, sh->frames[1].ra, 0xa3));
	cr_expect(eq(sz, sh->data_used, 48), "its data stays until the frame above goes");
	cr_expect(eq(long, shadow__match(sh, 0x1088, &unw), 1));
	shadow__pop(sh);
	cr_expect(eq(sz, sh->data_used, 32));
	cr_expect(eq(long, shadow__match(sh, 0x1108, &unw), 0));
	shadow__pop(sh);
	cr_expect(eq(sz, sh->data_used, 0));
	cr_expect(eq(u64, unw, 0));
	shadow__free(sh);
}

Test(shadow, a_gone_thread_leaves_its_calls_to_a_sibling)
{
	struct shadow *gone = shadow__new(), *sib = shadow__new();
	uint64_t unw = 0, ra;

	call(gone, 0x1100, 0xa1, &unw)->ts = 10;
	call(gone, 0x10c0, 0xa2, &unw)->ts = 20;
	call(gone, 0x10c0, 0, &unw)->ts = 30;	/* a tail call: no address of its own */
	call(sib, 0x1100, 0xb1, &unw)->ts = 5;
	shadow__pop(sib);
	call(sib, 0x10c0, 0xb2, &unw)->ts = 40;	/* newer than the gone thread's */
	call(sib, 0x1100, 0xb3, &unw)->ts = 41;	/* drops it into the limbo */
	cr_expect(eq(uint, sib->nlimbo, 1));
	shadow__bequeath(gone, sib);
	cr_expect(eq(sz, gone->depth, 0));
	cr_expect(eq(uint, sib->nlimbo, 2));
	cr_expect(eq(int, shadow__limbo_find(sib, 0x1100, &ra), true));
	cr_expect(eq(u64, ra, 0xa1));
	cr_expect(eq(int, shadow__limbo_find(sib, 0x10c0, &ra), true));
	cr_expect(eq(u64, ra, 0xb2), "the newer swap of the slot");
	shadow__free(gone);
	shadow__free(sib);
}

Test(shadow, restore_puts_back_the_newest_swap_of_a_slot)
{
	struct shadow *a = shadow__new(), *b = shadow__new();
	struct shadow_entry *e = NULL;
	size_t n = 0, cap = 0;
	uint64_t unw = 0;

	memset(stack, 0, sizeof(stack));
	call(a, 0x1100, 0xa1, &unw)->ts = 10;	/* a thread that went away from this stack */
	call(b, 0x1100, 0xb1, &unw)->ts = 20;	/* the call there now, on another thread */
	cr_assert(eq(int, shadow__entries(a, a, &e, &n, &cap), 0));
	cr_assert(eq(int, shadow__entries(b, b, &e, &n, &cap), 0));
	cr_expect(eq(sz, n, 2));
	shadow_entries_sort(e, n);
	cr_expect(eq(ptr, e[0].owner, b));
	cr_expect(eq(int, shadow_entry_restore(&e[0], TRAMP, rd, wr, NULL), 1));
	cr_expect(eq(int, shadow_entry_restore(&e[1], TRAMP, rd, wr, NULL), 0),
		  "no longer the trampoline");
	cr_expect(eq(u64, *word(0x1100), 0xb1));
	free(e);
	shadow__free(a);
	shadow__free(b);
}

Test(shadow, a_coroutine_returns_while_another_ones_calls_live_on)
{
	struct shadow *sh = shadow__new();
	uint64_t unw = 0;

	/* coroutine A's stack ends at 0x1100, B's at 0x1200 (a mapping each) */
	call_on(sh, 0x10f8, 0x1100, 0xa1, &unw);
	call_on(sh, 0x10b8, 0x1100, 0xa2, &unw);
	call_on(sh, 0x11f8, 0x1200, 0xb1, &unw);	/* switched to B */
	call_on(sh, 0x11b8, 0x1200, 0xb2, &unw);
	/* back to A, which returns through both of its calls */
	cr_expect(eq(long, shadow__match(sh, 0x10c0, &unw), 1));
	shadow__remove(sh, 1, 1);
	cr_expect(eq(long, shadow__match(sh, 0x1100, &unw), 0));
	shadow__remove(sh, 0, 1);
	cr_expect(eq(u64, unw, 0), "B's calls are not unwound");
	cr_expect(eq(sz, sh->depth, 2));
	/* then B returns through its own */
	cr_expect(eq(long, shadow__match(sh, 0x11c0, &unw), 1));
	cr_expect(eq(u64, sh->frames[1].ra, 0xb2));
	shadow__pop(sh);
	cr_expect(eq(long, shadow__match(sh, 0x1200, &unw), 0));
	shadow__pop(sh);
	cr_expect(eq(sz, sh->data_used, 0), "A's data came back with B's");
	cr_expect(eq(u64, unw, 0));
	shadow__free(sh);
}
