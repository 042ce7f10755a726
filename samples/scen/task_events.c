/* samples/scen/task_events.c: what `ptap record --events task` records: the
 * forks, execs and exits of the traced processes (issue 4).
 * usage: task_events EXEC_PATH
 * EXEC_PATH is an absolute path to a copy of this program.  The parent
 * calls probe_me(0, "parent") and runs a thread to its end (no task record:
 * threads are not processes), then:
 *  - forks A, which calls probe_me(1, "forked") and exits 3;
 *  - vforks B, which execs EXEC_PATH ("exec-child"): that image calls
 *    probe_me(2, "execd") and exits 5;
 *  - forks C, which waits to be killed, and kills it with SIGKILL.
 * It checks every status and exits 0.  Says on fd 3, if open, what the
 * tracer should record, one line each, as "PID EVENT ARGS" with ARGS as in
 * a text record: "P fork child=A", "A exit status=3", "P fork child=B",
 * "B exec filename=\"EXEC_PATH\"", "B exit status=5", "P fork child=C",
 * "C exit signal=\"SIGKILL\"", "P exit status=0"; then the probe_me calls as
 * "PID probe_me a=N".  Exits 1 if a child ended otherwise. */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>

#include "../selfcheck.h"

static int fd3;

/* The probed function: a + the first byte of s. */
__attribute__((noinline)) long probe_me(long a, const char *s)
{
	asm volatile("" ::: "memory");
	return a + s[0];
}

static void *thread_fn(void *arg)
{
	probe_me(0, "thread");
	return arg;
}

/* Wait for PID; 1 when it ended as WANT (a wait status), else 0 (printed). */
static int reap(pid_t pid, int want, const char *name)
{
	int st;

	if (waitpid(pid, &st, 0) != pid || st != want) {
		printf("task_events: child %s: wait status %#x, expected %#x\n", name, st, want);
		return 0;
	}
	return 1;
}

int main(int argc, char **argv)
{
	pid_t self = getpid(), a, b, c;
	volatile int ok = 1;
	int go[2];
	pthread_t t;

	if (argc == 2 && !strcmp(argv[1], "exec-child"))
		return probe_me(2, "execd") == 2 + 'e' ? 5 : 1;
	if (argc != 2 || argv[1][0] != '/') {
		fprintf(stderr, "usage: task_events EXEC_PATH (absolute)\n");
		return 2;
	}
	SELFCHECK_SAVE(probe_me);
	fd3 = fcntl(3, F_GETFD) != -1;
	probe_me(0, "parent");
	if (pthread_create(&t, NULL, thread_fn, NULL) || pthread_join(t, NULL) || pipe(go))
		return 2;
	fflush(stdout);

	a = fork();
	if (a == 0)
		_exit(probe_me(1, "forked") == 1 + 'f' ? 3 : 1);
	ok &= reap(a, 3 << 8, "A");

	b = vfork();
	if (b == 0) {
		execl(argv[1], argv[1], "exec-child", (char *)NULL);
		_exit(127);
	}
	ok &= reap(b, 5 << 8, "B");

	c = fork();
	if (c == 0) {
		char x;

		close(go[1]);
		read(go[0], &x, 1);	/* never returns: nothing is written */
		_exit(1);
	}
	kill(c, SIGKILL);
	ok &= reap(c, SIGKILL, "C");

	if (fd3) {
		dprintf(3, "%d fork child=%d\n%d exit status=3\n", self, a, a);
		dprintf(3, "%d fork child=%d\n%d exec filename=\"%s\"\n%d exit status=5\n", self, b,
			b, argv[1], b);
		dprintf(3, "%d fork child=%d\n%d exit signal=\"SIGKILL\"\n", self, c, c);
		dprintf(3, "%d exit status=%d\n", self, ok ? 0 : 1);
		dprintf(3, "%d probe_me a=0\n%d probe_me a=0\n%d probe_me a=1\n%d probe_me a=2\n",
			self, self, a, b);
	}
	printf("task_events: children A %d, B %d, C %d: %s\n", a, b, c,
	       ok ? "all ended right" : "some ended wrong");
	selfcheck_verify();
	printf("EXIT-SUCCESS\n");
	return ok ? 0 : 1;
}
