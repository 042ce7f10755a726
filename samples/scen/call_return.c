/* samples/scen/call_return.c: scenario 5, call-return-address.  Calls
 * callret_self(i) (call next; next: pop %rax; ret) for i = 0 .. ITER-1 (100000)
 * and checks each time that it returned its own address + 5: the return address
 * its call pushed, which a tracer running that call out of line must fix up.
 * On fd 3, if open: "calls N".  Exit 0 when every check passed, 1 otherwise. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "../selfcheck.h"

void *callret_self(long x);

int main(int argc, char **argv)
{
	unsigned long iterations = 100000, bad = 0;
	const uintptr_t want = (uintptr_t)callret_self + 5;
	char *end;

	SELFCHECK_SAVE(callret_self);
	if (argc > 1) {
		errno = 0;
		iterations = strtoul(argv[1], &end, 10);
		if (argc > 2 || errno || end == argv[1] || *end || iterations > 1UL << 40) {
			fprintf(stderr, "usage: call_return [ITER]  (100000)\n");
			return 2;
		}
	}
	for (unsigned long i = 0; i < iterations; i++) {
		uintptr_t got = (uintptr_t)callret_self((long)i);

		if (got != want && bad++ < 20)
			printf("call_return: call %lu: callret_self returned %#lx, expected %#lx\n",
			       i, (unsigned long)got, (unsigned long)want);
	}
	if (fcntl(3, F_GETFD) != -1)
		dprintf(3, "calls %lu\n", iterations);
	if (bad)
		printf("call_return: %lu of %lu results wrong\n", bad, iterations);
	else
		printf("call_return: all %lu results correct\n", iterations);
	if (!selfcheck_verify())
		bad++;
	printf("EXIT-SUCCESS\n");
	return bad ? 1 : 0;
}
