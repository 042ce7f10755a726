/* samples/scen/kill_tracer.c: scenario 23, sigkill-tracer: the tracer
 * killed by SIGKILL while the traced processes hit the probe.
 * usage: kill_tracer [SECONDS]  (default 30)
 * Forks one child; parent and child call probe_me(i, "parent"/"child") as
 * fast as they can for SECONDS seconds, then the child exits 0 and the
 * parent waits for it and exits 0.  Prints "kill_tracer PARENT CHILD" (the
 * pids) first, and says it on fd 3 too, if open.  Killed with its tracer,
 * it must not outlive it (launch mode: PTRACE_O_EXITKILL): neither process
 * may be left running, stopped or as a zombie.  Exits 1 if a result was
 * wrong or the child did not exit 0. */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/wait.h>

#include "../selfcheck.h"

/* The probed function: a + the first byte of s. */
__attribute__((noinline)) long probe_me(long a, const char *s)
{
	asm volatile("" ::: "memory");
	return a + s[0];
}

/* Call probe_me until SECONDS have passed; the number of wrong results. */
static long hammer(const char *who, long seconds)
{
	struct timespec start, now;
	long bad = 0;

	clock_gettime(CLOCK_MONOTONIC, &start);
	for (long i = 0;; i++) {
		if (probe_me(i, who) != i + who[0])
			bad++;
		if (i % 1024 == 0) {
			clock_gettime(CLOCK_MONOTONIC, &now);
			if (now.tv_sec - start.tv_sec >= seconds)
				return bad;
		}
	}
}

int main(int argc, char **argv)
{
	long seconds = argc > 1 ? atol(argv[1]) : 30, bad;
	pid_t pid;
	int st;

	SELFCHECK_SAVE(probe_me);
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return 2;
	if (pid == 0) {
		bad = hammer("child", seconds);
		printf("kill_tracer: child: ");
		selfcheck_verify();
		_exit(bad ? 1 : 0);
	}
	printf("kill_tracer %d %d\n", getpid(), pid);
	fflush(stdout);
	if (fcntl(3, F_GETFD) != -1)
		dprintf(3, "kill_tracer %d %d\n", getpid(), pid);
	bad = hammer("parent", seconds);
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		bad++;
	printf("kill_tracer: %s\n", bad ? "wrong results or child" : "all results right");
	selfcheck_verify();
	printf("EXIT-SUCCESS\n");
	return bad ? 1 : 0;
}
