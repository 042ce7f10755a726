/* tests/bench/bench_target.c: calls bench_fn(s) N times and prints the
 * nanoseconds that took.  usage: bench_target [N [THREADS [wait]]]
 * With "wait", it says "ready" on stderr and waits for a SIGUSR1 before the
 * calls (and the clock): a tracer attaches meanwhile (tests/bench/run.sh).
 * With "deep", each call is made 8 calls down (down()), so that a stack at
 * bench_fn has 10 frames and more (record -g's row).
 * With THREADS > 1, each of THREADS threads makes N / THREADS of the calls
 * and the time is that of the whole run: from before the first thread is
 * created to after the last one is joined.  bench_fn begins with a one-byte
 * nop so the floor tracer (floor.c) can step over its int3 by moving rip
 * alone; its first three instructions (7 bytes) let ptap make it a jump
 * site (no register written at a hit; --no-jumps: an int3). */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Reads the string's first byte and returns it; it writes no memory, so
 * threads calling it share no cache line (the compiler cannot drop the
 * calls: it does not see the body). */
int bench_fn(const char *s);
__asm__(".text\n"
	".globl bench_fn\n"
	".type bench_fn, @function\n"
	"bench_fn:\n"
	"	nop\n"
	"	movzbl (%rdi), %eax\n"
	"	add $1, %eax\n"
	"	ret\n"
	".size bench_fn, .-bench_fn\n");

static int depth;	/* "deep": 8 */

/* bench_fn(S) D calls down; not a tail call (the frames stay). */
__attribute__((noinline)) static int down(int d, const char *s)
{
	int r;

	if (!d)
		return bench_fn(s);
	r = down(d - 1, s);
	__asm__ volatile("" ::: "memory");
	return r + 1;
}

/* One thread's share of the calls; ARG points to its count. */
static void *calls(void *arg)
{
	long n = *(long *)arg;

	if (depth) {
		for (long i = 0; i < n; i++)
			down(depth, "SELECT * FROM bench WHERE id = 42");
		return NULL;
	}
	for (long i = 0; i < n; i++)
		bench_fn("SELECT * FROM bench WHERE id = 42");
	return NULL;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000;
	long nt = argc > 2 ? atol(argv[2]) : 1;
	struct timespec a, b;
	pthread_t *th;

	if (nt < 1)
		nt = 1;
	th = calloc(nt, sizeof(*th));
	if (!th)
		return 1;
	n /= nt;
	if (argc > 3 && !strcmp(argv[3], "deep"))
		depth = 8;
	if (argc > 3 && !strcmp(argv[3], "wait")) {
		sigset_t usr1;
		int sig;

		sigemptyset(&usr1);
		sigaddset(&usr1, SIGUSR1);
		sigprocmask(SIG_BLOCK, &usr1, NULL);
		fputs("ready\n", stderr);
		if (sigwait(&usr1, &sig))
			return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &a);
	if (nt == 1) {
		calls(&n);	/* no thread at all: the single-threaded figures */
	} else {
		for (long i = 0; i < nt; i++)
			if (pthread_create(&th[i], NULL, calls, &n))
				return fputs("bench_target: pthread_create failed\n", stderr), 1;
		for (long i = 0; i < nt; i++)
			pthread_join(th[i], NULL);
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("%lld\n", (long long)(b.tv_sec - a.tv_sec) * 1000000000LL + (b.tv_nsec - a.tv_nsec));
	return 0;
}
