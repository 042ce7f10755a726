/* samples/scen/own_sigtrap.c: scenario 11, own-sigtrap: the
 * program's own SIGTRAPs next to a tracer's breakpoints.
 * usage: own_sigtrap [N]  (default 1000)
 * Has a SIGTRAP handler; in one loop it calls raise(SIGTRAP), executes an
 * int3 of its own and calls probe_me(i, "trap"), N times each.  A tracer
 * probing probe_me must record exactly N calls, with a = 0..N-1 in order,
 * and deliver all 2N traps to the handler (an int3 of the program's own
 * raises the same si_code as a breakpoint).  Says on fd 3, if open,
 * "calls N" and "traps 2N" as counted; exits 0 when the counts and results
 * are right, 1 if not. */
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>

#include "../selfcheck.h"

static volatile sig_atomic_t traps;

/* The probed function: a + the first byte of s. */
__attribute__((noinline)) long probe_me(long a, const char *s)
{
	asm volatile("" ::: "memory");
	return a + s[0];
}

static void on_trap(int sig)
{
	(void)sig;
	traps++;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000, calls = 0, bad = 0;
	struct sigaction sa = { .sa_handler = on_trap };

	SELFCHECK_SAVE(probe_me);
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTRAP, &sa, NULL);
	for (long i = 0; i < n; i++) {
		raise(SIGTRAP);
		asm volatile("int3" ::: "memory");
		if (probe_me(i, "trap") != i + 't')
			bad++;
		calls++;
	}
	if (fcntl(3, F_GETFD) != -1)
		dprintf(3, "calls %ld\ntraps %ld\n", calls, (long)traps);
	printf("own_sigtrap: %ld calls, %ld traps handled, %ld wrong results\n", calls,
	       (long)traps, bad);
	selfcheck_verify();
	printf("EXIT-SUCCESS\n");
	return traps == 2 * n && !bad ? 0 : 1;
}
