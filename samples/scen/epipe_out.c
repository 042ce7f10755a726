/* samples/scen/epipe_out.c: scenario 22, epipe-output: a tracer whose
 * record stream is closed early (`ptap ... | head -c 4096`).
 * usage: epipe_out [N]  (default 1000000)
 * Calls probe_me(i, "epipe") for i = 0..N-1, checks every result, prints its
 * byte check and exits 9 (0 would hide a tracer that returns its own
 * status).  Prints "epipe_out: N calls"; says the same on fd 3, if open,
 * as "calls N".  Exits 1 if a result was wrong. */
#include <fcntl.h>
#include <stdlib.h>

#include "../selfcheck.h"

/* The probed function: a + the first byte of s. */
__attribute__((noinline)) long probe_me(long a, const char *s)
{
	asm volatile("" ::: "memory");
	return a + s[0];
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000, bad = 0;

	SELFCHECK_SAVE(probe_me);
	for (long i = 0; i < n; i++)
		if (probe_me(i, "epipe") != i + 'e')
			bad++;
	if (fcntl(3, F_GETFD) != -1)
		dprintf(3, "calls %ld\n", n);
	printf("epipe_out: %ld calls, %ld wrong results\n", n, bad);
	selfcheck_verify();
	printf("EXIT-SUCCESS\n");
	return bad ? 1 : 9;
}
