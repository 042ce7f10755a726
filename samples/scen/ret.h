/* samples/scen/ret.h: what the return-probe scenarios (ret_*.c) share:
 * ret_work(depth, tag), a recursive function to probe with
 * 'ret_work%return $retval depth tag', which returns tag * 1000 + depth and
 * checks at every level that its callee returned the right value to the
 * right place (its frame's canary intact, the stack pointer back where it
 * was); and the counts a scenario states on fd 3.  Header-only. */
#ifndef PTAP_SAMPLES_SCEN_RET_H
#define PTAP_SAMPLES_SCEN_RET_H

#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>

/* Called at depth 0 with the tag (NULL: nothing); may longjmp away. */
static void (*ret_bottom)(long tag);
static atomic_long ret_calls;	/* calls of ret_work that returned */
static atomic_long ret_bad;	/* wrong values, canaries or stack pointers seen */

static void ret_note_bad(const char *what, long depth, long tag, long got, long want)
{
	if (atomic_fetch_add(&ret_bad, 1) < 20)
		printf("ret_work(%ld, %ld): %s %ld, expected %ld\n", depth, tag, what, got, want);
}

__attribute__((noinline, noclone)) long ret_work(long depth, long tag)
{
	volatile long canary = depth * 7919 + tag;
	void *sp_before, *sp_after;
	long r;

	if (depth <= 0) {
		if (ret_bottom)
			ret_bottom(tag);
		r = tag * 1000;
	} else {
		asm volatile("mov %%rsp, %0" : "=r"(sp_before));
		r = ret_work(depth - 1, tag);
		asm volatile("mov %%rsp, %0" : "=r"(sp_after) : "r"(r) : "memory");
		if (r != tag * 1000 + depth - 1)
			ret_note_bad("callee returned", depth, tag, r, tag * 1000 + depth - 1);
		if (sp_after != sp_before)
			ret_note_bad("stack pointer moved by", depth, tag,
				     (long)((char *)sp_after - (char *)sp_before), 0);
		r++;
	}
	if (canary != depth * 7919 + tag)
		ret_note_bad("canary", depth, tag, canary, depth * 7919 + tag);
	atomic_fetch_add_explicit(&ret_calls, 1, memory_order_relaxed);
	return r;
}

/* A top-level call of ret_work, its result checked. */
static inline long ret_call(long depth, long tag)
{
	long r = ret_work(depth, tag);

	if (r != tag * 1000 + depth)
		ret_note_bad("returned", depth, tag, r, tag * 1000 + depth);
	return r;
}

/* Is fd 3 open (the test wants the counts)? */
static inline int ret_fd3(void)
{
	return fcntl(3, F_GETFD) != -1;
}

#endif
