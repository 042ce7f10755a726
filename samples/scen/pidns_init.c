/* samples/scen/pidns_init.c: scenario 25, pidns-init: the init of a
 * pid namespace with 5 children that call the probed function.
 * usage: unshare --pid --fork --mount-proc pidns_init
 * Prints "init PID" (1 in a new namespace), forks 5 children that each print
 * "child PID" (their namespace pids) and call probe_me(i, "x") with
 * i = 0, 1, ... sleeping 1 ms after each call, until killed.  The init reaps
 * them and waits to be killed (the harness kills it, and the kernel then kills
 * every process of the namespace). */
#include <errno.h>
#include <sys/wait.h>

#include "../selfcheck.h"

/* The probed function: a + the first byte of s. */
__attribute__((noinline)) long probe_me(long a, const char *s)
{
	asm volatile("" ::: "memory");
	return a + s[0];
}

static void child(void)
{
	struct timespec ms = { 0, 1000000 };

	printf("child %d\n", (int)getpid());
	fflush(stdout);
	for (long i = 0;; i++) {
		if (probe_me(i, "x") != i + 'x') {
			printf("pidns_init: child %d: wrong result\n", (int)getpid());
			_exit(1);
		}
		nanosleep(&ms, NULL);
	}
}

int main(void)
{
	printf("init %d\n", (int)getpid());
	fflush(stdout);
	for (int i = 0; i < 5; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("pidns_init: fork");
			return 1;
		}
		if (!pid)
			child();
	}
	for (;;)
		if (wait(NULL) < 0 && errno == ECHILD)
			pause();
}
