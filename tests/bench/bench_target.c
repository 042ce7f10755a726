/* tests/bench/bench_target.c: calls bench_fn(s) N times and prints the
 * nanoseconds the loop took.  bench_fn begins with a one-byte nop so the
 * floor tracer (floor.c) can step over its int3 by moving rip alone. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

volatile unsigned long sink;

void bench_fn(const char *s);
__asm__(".text\n"
	".globl bench_fn\n"
	".type bench_fn, @function\n"
	"bench_fn:\n"
	"	nop\n"
	"	movzbl (%rdi), %eax\n"
	"	add %rax, sink(%rip)\n"
	"	ret\n"
	".size bench_fn, .-bench_fn\n");

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000;
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	for (long i = 0; i < n; i++)
		bench_fn("SELECT * FROM bench WHERE id = 42");
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("%lld\n", (long long)(b.tv_sec - a.tv_sec) * 1000000000LL + (b.tv_nsec - a.tv_nsec));
	return 0;
}
