/* tests/unit/test_stacks.c: tracer/space/stacks.c on this process's own
 * memory: a signal frame the kernel built (copied from inside a handler)
 * is found, with the stack it saved a pointer into; words that only look
 * like one are not. */
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "arch/arch.h"
#include "tracer/space/maptab.h"
#include "tracer/space/stacks.h"

#define STACK_LEN	65536

static uint64_t frame[ARCH_SIGFRAME_WORDS];	/* a real one, as the kernel built it */

static void on_usr1(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)si;
	/* the frame starts with the restorer, the word below the ucontext */
	memcpy(frame, (const uint64_t *)uc - 1, sizeof(frame));
}

struct seen {
	uint64_t pcs[8];
	int n;
};

static bool note_frame(const uint64_t *w, void *arg)
{
	struct seen *sn = arg;

	if (sn->n < 8)
		sn->pcs[sn->n++] = w[ARCH_SIGFRAME_PC];
	return false;
}

/* Two writable "stacks" of our own */
static uint64_t *a_stack, *b_stack;
static struct maptab *mt;

static void setup(void)
{
	struct sigaction sa = { .sa_sigaction = on_usr1, .sa_flags = SA_SIGINFO };

	sigaction(SIGUSR1, &sa, NULL);
	raise(SIGUSR1);
	/* two mappings, a page apart (side by side, the kernel would make them one) */
	a_stack = mmap(NULL, 2 * STACK_LEN + 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	cr_assert(ne(ptr, a_stack, MAP_FAILED));
	b_stack = (uint64_t *)((char *)a_stack + STACK_LEN + 4096);
	cr_assert(eq(int, mprotect(a_stack, STACK_LEN, PROT_READ | PROT_WRITE), 0));
	cr_assert(eq(int, mprotect(b_stack, STACK_LEN, PROT_READ | PROT_WRITE), 0));
	mt = maptab__new();
	cr_assert(ne(ptr, mt, NULL));
	cr_assert(eq(int, maptab__load_proc(mt, getpid()), 0));
}

static void teardown(void)
{
	maptab__free(mt);
	munmap(a_stack, 2 * STACK_LEN + 4096);
}

TestSuite(stacks, .init = setup, .fini = teardown);

static struct seen scan(uint64_t *sp)
{
	struct seen sn = { .n = 0 };
	const struct stacks_scan sc = { .frame = note_frame, .arg = &sn };

	cr_assert(eq(int, stacks_scan(getpid(), mt, (uint64_t)sp, &sc), 0));
	return sn;
}

Test(stacks, the_kernels_frame_is_found)
{
	uint64_t *at = a_stack + 100;
	struct seen sn;

	cr_assert(eq(u64, frame[ARCH_SIGFRAME_UC_LINK], 0));
	memcpy(at, frame, sizeof(frame));
	sn = scan(a_stack + 10);
	cr_assert(eq(int, sn.n, 1));
	cr_assert(eq(u64, sn.pcs[0], frame[ARCH_SIGFRAME_PC]));
	/* from the word above the restorer's: a thread on the restorer (its ret took that word) */
	sn = scan(at + 1);
	cr_assert(eq(int, sn.n, 1));
	/* and not from above the frame */
	sn = scan(at + 2);
	cr_assert(eq(int, sn.n, 0));
}

Test(stacks, look_alikes_are_not_frames)
{
	static const int fields[] = { ARCH_SIGFRAME_RESTORER, ARCH_SIGFRAME_UC_LINK,
				      ARCH_SIGFRAME_SP, ARCH_SIGFRAME_FLAGS, ARCH_SIGFRAME_CS };
	/* what each field is spoilt with: code without a syscall (this function),
	 * a pointer, a code address, flags without the interrupt flag, a 32-bit CS */
	const uint64_t spoilt[] = { (uint64_t)(uintptr_t)scan, (uint64_t)(uintptr_t)a_stack,
				    (uint64_t)(uintptr_t)scan, 0x46, 0x23 };

	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		uint64_t *at = a_stack + 100;
		struct seen sn;

		memset(a_stack, 0, STACK_LEN);
		memcpy(at, frame, sizeof(frame));
		at[fields[i]] = spoilt[i];
		sn = scan(a_stack + 10);
		cr_assert(eq(int, sn.n, 0), "field %d spoilt with 0x%lx: still taken for a frame",
			  fields[i], (unsigned long)spoilt[i]);
	}
	/* a stale return address with a stack pointer below and flags above it, alone */
	memset(a_stack, 0, STACK_LEN);
	a_stack[200] = (uint64_t)(uintptr_t)a_stack;
	a_stack[201] = frame[ARCH_SIGFRAME_PC];
	a_stack[202] = frame[ARCH_SIGFRAME_FLAGS];
	cr_assert(eq(int, scan(a_stack + 10).n, 0));
}

Test(stacks, a_frame_leads_to_the_stack_it_saved)
{
	uint64_t *outer = b_stack + 300, *inner = a_stack + 100;
	struct seen sn;

	memset(a_stack, 0, STACK_LEN);
	memset(b_stack, 0, STACK_LEN);
	/* a handler on B interrupted code at pc 1 (a frame on B); one on A interrupted it */
	memcpy(outer, frame, sizeof(frame));
	memcpy(inner, frame, sizeof(frame));
	inner[ARCH_SIGFRAME_SP] = (uint64_t)(uintptr_t)(b_stack + 200);
	sn = scan(a_stack + 10);
	cr_assert(eq(int, sn.n, 2), "frames found: %d (the one on the other stack missed?)", sn.n);
	/* not below the saved stack pointer: a frame there is gone */
	inner[ARCH_SIGFRAME_SP] = (uint64_t)(uintptr_t)(b_stack + 400);
	sn = scan(a_stack + 10);
	cr_assert(eq(int, sn.n, 1));
}
