/* samples/scen/fork_inherit.c: scenario 15, fork-inherit: children
 * inherit the probed code.
 * usage: fork_inherit [CHILDREN [CALLS]]  (defaults 50 and 100)
 * The parent calls probe_me(-1, "parent"), then forks CHILDREN children, all
 * running at once.  Child I calls probe_me(I * 1000 + K, "child") for
 * K = 0..CALLS-1, prints "child I: " and its own byte check (BYTES-OK when
 * no breakpoint is left in its memory, as with a tracer that does not
 * follow children) and exits with status I.  The parent waits for all and
 * checks every status: a child killed by a signal (SIGTRAP from a breakpoint
 * left in an untraced child) or with a wrong status is printed.  Says on fd
 * 3, if open (closed in the children), "child I PID" for each child, then
 * "parent_calls 1" and "child_calls CHILDREN*CALLS".  Exits 0 when every
 * child exited right, 1 if not. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "../selfcheck.h"

/* The probed function: a + the first byte of s. */
__attribute__((noinline)) long probe_me(long a, const char *s)
{
	asm volatile("" ::: "memory");
	return a + s[0];
}

static void child(int i, long calls)
{
	long bad = 0;

	close(3);
	for (long k = 0; k < calls; k++)
		if (probe_me(i * 1000L + k, "child") != i * 1000L + k + 'c')
			bad++;
	printf("child %d: ", i);
	selfcheck_verify();
	_exit(bad ? 99 : i);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 50, wrong = 0, fd3 = fcntl(3, F_GETFD) != -1;
	long calls = argc > 2 ? atol(argv[2]) : 100;
	pid_t *pids;

	if (n < 1 || n > 250 || calls < 0 || calls > 1000) {
		fprintf(stderr, "usage: fork_inherit [CHILDREN (1-250) [CALLS (0-1000)]]\n");
		return 2;
	}
	SELFCHECK_SAVE(probe_me);
	pids = calloc(n, sizeof(*pids));
	if (!pids || probe_me(-1, "parent") != -1 + 'p')
		return 2;
	fflush(stdout);
	for (int i = 0; i < n; i++) {
		pids[i] = fork();
		if (pids[i] < 0) {
			perror("fork");
			return 2;
		}
		if (pids[i] == 0)
			child(i, calls);
		if (fd3)
			dprintf(3, "child %d %d\n", i, pids[i]);
	}
	for (int i = 0; i < n; i++) {
		int st;

		if (waitpid(pids[i], &st, 0) != pids[i]) {
			wrong++;
			printf("fork_inherit: child %d: waitpid: %s\n", i, strerror(errno));
		} else if (WIFSIGNALED(st)) {
			wrong++;
			printf("fork_inherit: child %d killed by signal %d (%s)\n", i, WTERMSIG(st),
			       strsignal(WTERMSIG(st)));
		} else if (WEXITSTATUS(st) != i) {
			wrong++;
			printf("fork_inherit: child %d exited %d\n", i, WEXITSTATUS(st));
		}
	}
	if (fd3)
		dprintf(3, "parent_calls 1\nchild_calls %ld\n", n * calls);
	printf("fork_inherit: %d children, %d ended wrong\n", n, wrong);
	selfcheck_verify();
	printf("EXIT-SUCCESS\n");
	return wrong ? 1 : 0;
}
