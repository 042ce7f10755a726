/* samples/scen/group_stop.c: scenario 13, group-stop: a traced
 * process stopped by SIGSTOP, seen by its real parent.
 * usage: group_stop [N]  (default 1000)
 * The launcher (the process started) forks the worker and waits for it with
 * waitpid(WUNTRACED | WCONTINUED).  The worker calls probe_me(i, "worker")
 * for i = 0..N-1, sleeping 1 ms after each call, and exits 0.  The harness
 * sends SIGSTOP to the worker and later SIGCONT: the launcher must see the
 * stop (WIFSTOPPED, WSTOPSIG = SIGSTOP) and the continue (WIFCONTINUED),
 * even though a tracer, not it, traces the worker.  The worker's pid is
 * printed first ("worker PID").  Says on fd 3, if open (closed in the
 * worker): "worker PID", "calls N", "stopped_at SEC.NSEC" (CLOCK_MONOTONIC,
 * when waitpid reported the stop; a tracer's clock by default, so no record
 * of the worker may be stamped from then until the SIGCONT) and
 * "continued_at SEC.NSEC".  The launcher exits 0 when it saw one stop, one
 * continue and the worker's exit 0; 1 if not. */
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>

#include "../selfcheck.h"

/* The probed function: a + the first byte of s. */
__attribute__((noinline)) long probe_me(long a, const char *s)
{
	asm volatile("" ::: "memory");
	return a + s[0];
}

static void now(struct timespec *ts)
{
	clock_gettime(CLOCK_MONOTONIC, ts);
}

static int worker(long n)
{
	struct timespec ms = { 0, 1000000 };
	long bad = 0;

	for (long i = 0; i < n; i++) {
		if (probe_me(i, "worker") != i + 'w')
			bad++;
		nanosleep(&ms, NULL);
	}
	printf("group_stop: worker: %ld calls, %ld wrong results\n", n, bad);
	selfcheck_verify();
	return bad ? 1 : 0;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000;
	int stops = 0, conts = 0, st, fd3 = fcntl(3, F_GETFD) != -1;
	struct timespec stopped = { 0, 0 }, continued = { 0, 0 };
	pid_t pid, w;

	SELFCHECK_SAVE(probe_me);
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return 2;
	if (pid == 0) {
		close(3);
		exit(worker(n));
	}
	printf("worker %d\n", pid);
	fflush(stdout);
	if (fd3)
		dprintf(3, "worker %d\n", pid);
	for (;;) {
		w = waitpid(pid, &st, WUNTRACED | WCONTINUED);
		if (w < 0)
			return 1;
		if (WIFSTOPPED(st)) {
			if (!stops++)
				now(&stopped);
			printf("group_stop: saw stop by signal %d\n", WSTOPSIG(st));
		} else if (WIFCONTINUED(st)) {
			if (!conts++)
				now(&continued);
			printf("group_stop: saw continue\n");
		} else {
			break;
		}
		fflush(stdout);
	}
	if (fd3)
		dprintf(3, "calls %ld\nstopped_at %ld.%09ld\ncontinued_at %ld.%09ld\n", n,
			(long)stopped.tv_sec, stopped.tv_nsec, (long)continued.tv_sec,
			continued.tv_nsec);
	printf("group_stop: worker %s %d; %d stops, %d continues seen\n",
	       WIFEXITED(st) ? "exited" : "killed by signal",
	       WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st), stops, conts);
	selfcheck_verify();
	printf("EXIT-SUCCESS\n");
	return stops == 1 && conts == 1 && WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 1;
}
