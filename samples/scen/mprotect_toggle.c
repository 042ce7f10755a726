/* samples/scen/mprotect_toggle.c: scenario 18, mprotect-toggle: the
 * protection of the probed code's page changing under calls.
 * usage: mprotect_toggle [TOGGLES]  (default 10000)
 * One thread mprotects the page of probe_me read-write-execute and back to
 * read-execute TOGGLES times (the content never changes; the page stays
 * executable, since the other thread runs code there).  Meanwhile the main
 * thread calls probe_me(i, "toggle") with i = 0, 1, 2... until the toggler
 * is done (up to 64 calls between two toggles), then once more.  A tracer probing probe_me must record every
 * call, a = 0..calls-1 in order.  Says on fd 3, if open, "calls N" and
 * "toggles N"; exits 0 when every mprotect and result was right, 1 if not. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "../selfcheck.h"

static atomic_int done;
static atomic_long toggled;	/* toggles made so far */
static long toggles = 10000, failed_toggles;

/* Calls between two toggles, at most: a probe recorded without a stop is far
 * quicker than the toggler's mprotects, which a tracer stops. */
#define CALLS_PER_TOGGLE	64

/* The probed function: a + the first byte of s. */
__attribute__((noinline)) long probe_me(long a, const char *s)
{
	asm volatile("" ::: "memory");
	return a + s[0];
}

static void *toggler(void *arg)
{
	const long pagesz = sysconf(_SC_PAGESIZE);
	void *page = (void *)((uintptr_t)probe_me & ~(uintptr_t)(pagesz - 1));

	for (long i = 0; i < toggles; i++) {
		if (mprotect(page, pagesz, PROT_READ | PROT_WRITE | PROT_EXEC) ||
		    mprotect(page, pagesz, PROT_READ | PROT_EXEC)) {
			perror("mprotect_toggle: mprotect");
			failed_toggles++;
			break;
		}
		atomic_store(&toggled, i + 1);
	}
	atomic_store(&done, 1);
	return arg;
}

int main(int argc, char **argv)
{
	long calls = 0, bad = 0;
	pthread_t t;

	if (argc > 1)
		toggles = atol(argv[1]);
	SELFCHECK_SAVE(probe_me);
	if (pthread_create(&t, NULL, toggler, NULL))
		return 2;
	do {
		long seen = atomic_load(&toggled);

		for (int k = 0; k < CALLS_PER_TOGGLE && atomic_load(&toggled) == seen &&
				!atomic_load(&done); k++) {
			if (probe_me(calls, "toggle") != calls + 't')
				bad++;
			calls++;
		}
		while (atomic_load(&toggled) == seen && !atomic_load(&done))
			sched_yield();
	} while (!atomic_load(&done));
	pthread_join(t, NULL);
	if (probe_me(calls, "toggle") != calls + 't')
		bad++;
	calls++;
	if (fcntl(3, F_GETFD) != -1)
		dprintf(3, "calls %ld\ntoggles %ld\n", calls, toggles);
	printf("mprotect_toggle: %ld calls, %ld toggles, %ld wrong results\n", calls, toggles, bad);
	selfcheck_verify();
	printf("EXIT-SUCCESS\n");
	return bad || failed_toggles ? 1 : 0;
}
