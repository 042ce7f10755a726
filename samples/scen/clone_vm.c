/* samples/scen/clone_vm.c: scenario 16, clone-vm-process.  clone(CLONE_VM |
 * SIGCHLD): a child process sharing the parent's memory (not a thread).  Both
 * call probe_me(i, NAME) for i = 0 .. ITER-1 (10000) at the same time, NAME
 * "parent" or "child"; once the child has exited, the parent makes ITER/10
 * more calls (i going on), which a tracer that took the child's end for the
 * end of the shared memory would lose.  On fd 3, if open: "parent PID CALLS"
 * and "child PID CALLS".  Exit 0 when every check passed, 1 otherwise (2:
 * usage or setup). */
#define _GNU_SOURCE		/* clone */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../selfcheck.h"

#define STACK_SIZE	(256 * 1024)

/*
 * What the calls added up to, one slot per side ('p' is even, 'c' odd): the
 * child shares the parent's memory and its TLS pointer, so no __thread here.
 */
static long probe_sum[2];

/* The probed function: it reads both arguments, so a tracer that changed one shows. */
__attribute__((noinline, noclone)) void probe_me(long a, const char *s)
{
	probe_sum[s[0] & 1] += a;
	asm volatile("" : : "r"(a), "r"(s) : "memory");
}

static unsigned long iterations = 10000;
static atomic_int go;

/* The child: no libc beyond the loop (it runs on the parent's TLS). */
static int child_main(void *arg)
{
	(void)arg;
	while (!atomic_load(&go))
		;
	for (unsigned long i = 0; i < iterations; i++)
		probe_me((long)i, "child");
	return 0;
}

static long sum_to(unsigned long n)
{
	return (long)(n * (n - 1) / 2);
}

int main(int argc, char **argv)
{
	unsigned long more, i;
	char *stack, *end;
	int status, bad = 0;
	pid_t child;

	SELFCHECK_SAVE(probe_me);
	if (argc > 1) {
		errno = 0;
		iterations = strtoul(argv[1], &end, 10);
		if (argc > 2 || errno || end == argv[1] || *end || iterations < 10 ||
		    iterations > 1UL << 30) {
			fprintf(stderr, "usage: clone_vm [ITER]  (10000)\n");
			return 2;
		}
	}
	more = iterations / 10;
	stack = malloc(STACK_SIZE);
	if (!stack)
		return 2;
	child = clone(child_main, stack + STACK_SIZE, CLONE_VM | SIGCHLD, NULL);
	if (child < 0) {
		fprintf(stderr, "clone_vm: clone: %s\n", strerror(errno));
		return 2;
	}
	atomic_store(&go, 1);
	for (i = 0; i < iterations; i++)
		probe_me((long)i, "parent");
	if (waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status)) {
		printf("clone_vm: child %d ended with status %#x, expected exit 0\n", (int)child,
		       status);
		bad = 1;
	}
	for (; i < iterations + more; i++)
		probe_me((long)i, "parent");
	if (probe_sum[0] != sum_to(iterations + more) || probe_sum[1] != sum_to(iterations)) {
		printf("clone_vm: probe_me saw sums %ld and %ld, expected %ld and %ld\n",
		       probe_sum[0], probe_sum[1], sum_to(iterations + more), sum_to(iterations));
		bad = 1;
	}
	if (fcntl(3, F_GETFD) != -1)
		dprintf(3, "parent %d %lu\nchild %d %lu\n", (int)getpid(), iterations + more,
			(int)child, iterations);
	printf("clone_vm: parent %lu calls, child %lu\n", iterations + more, iterations);
	if (!selfcheck_verify())
		bad = 1;
	printf("EXIT-SUCCESS\n");
	free(stack);
	return bad;
}
