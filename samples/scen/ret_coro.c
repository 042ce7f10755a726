/* samples/scen/ret_coro.c: probed calls live on two stacks at once:
 * coroutines (makecontext/swapcontext), each on a stack mmap'd on its own.
 * Coroutine k (0, 1) calls ret_work(D, 40 + k) (samples/scen/ret.h); at its
 * bottom it switches to the other one, M times; so both hold D + 1 probed
 * frames while the other runs and returns.  Coroutine 0 returns first (with
 * 1's frames live), then main resumes 1, which returns too.  R rounds of
 * that.  Every return checked.  On fd 3, if open: "calls C".  Prints
 * EXIT-SUCCESS; exit 0 when every check passed, 1 otherwise, 2: usage. */
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <ucontext.h>

#include "../selfcheck.h"
#include "scen.h"
#include "ret.h"

#define CORO_STACK	(256u << 10)

static unsigned long rounds = 10, depth = 20, swaps = 3;
static ucontext_t uc_main, uc[2];
static int done[2];

static void bottom(long tag)
{
	long k = tag - 40;

	for (unsigned long j = 0; j < swaps && !done[1 - k]; j++)
		swapcontext(&uc[k], &uc[1 - k]);
}

static void coro(int k)
{
	ret_call((long)depth, 40 + k);
	done[k] = 1;
}

int main(int argc, char **argv)
{
	char *stacks[2];
	int bad;

	setvbuf(stdout, NULL, _IOLBF, 0);
	SELFCHECK_SAVE(ret_work);
	if (argc > 4 || (argc > 1 && parse_count(argv[1], 1000000, &rounds)) ||
	    (argc > 2 && parse_count(argv[2], 1000, &depth)) ||
	    (argc > 3 && parse_count(argv[3], 1000, &swaps))) {
		fprintf(stderr, "usage: ret_coro [ROUNDS [D [M]]]  (10 20 3)\n");
		return 2;
	}
	ret_bottom = bottom;
	for (int k = 0; k < 2; k++) {
		stacks[k] = mmap(NULL, CORO_STACK, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
		if (stacks[k] == MAP_FAILED)
			return 2;
	}
	for (unsigned long r = 0; r < rounds; r++) {
		for (int k = 0; k < 2; k++) {
			getcontext(&uc[k]);
			uc[k].uc_stack.ss_sp = stacks[k];
			uc[k].uc_stack.ss_size = CORO_STACK;
			uc[k].uc_link = &uc_main;
			makecontext(&uc[k], (void (*)(void))coro, 1, k);
			done[k] = 0;
		}
		swapcontext(&uc_main, &uc[0]);
		if (!done[1])
			swapcontext(&uc_main, &uc[1]);
		if (!done[0] || !done[1]) {
			printf("ret_coro: round %lu: a coroutine did not finish\n", r);
			atomic_fetch_add(&ret_bad, 1);
		}
	}
	if (ret_fd3())
		dprintf(3, "calls %ld\n", atomic_load(&ret_calls));
	bad = atomic_load(&ret_bad) != 0;
	printf("ret_coro: calls %ld, %ld wrong\n", atomic_load(&ret_calls), atomic_load(&ret_bad));
	if (!selfcheck_verify())
		bad = 1;
	printf("EXIT-SUCCESS\n");
	return bad;
}
