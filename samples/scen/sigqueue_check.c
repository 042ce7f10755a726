/* samples/scen/sigqueue_check.c: signals reach the program as they were
 * sent, while a tracer handles probe hits (issue 4).
 * A child sigqueue()s SIGRTMIN (queued, in order) to its parent N times
 * (argv[1], default 500) with si_value = 1..N; meanwhile the parent's main
 * thread calls probe_me() in a loop.  The handler checks si_code
 * SI_QUEUE, si_pid the child, si_value the next number.  Prints
 * "SIGINFO-OK n" or "SIGINFO-BAD ...", the probe_me call count on fd 3 if
 * open, and exits 0 when every check held. */
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "samples/selfcheck.h"

static volatile sig_atomic_t got, bad;
static volatile pid_t sender;
static long sink;

__attribute__((noinline)) long probe_me(long a, const char *s)
{
	__asm__ volatile("" : : "r"(s) : "memory");
	sink += a;
	return a;
}

static void on_sig(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	if (si->si_code != SI_QUEUE || si->si_pid != sender || si->si_value.sival_int != got + 1)
		bad++;
	got++;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 500;
	struct sigaction sa = { .sa_sigaction = on_sig, .sa_flags = SA_SIGINFO | SA_RESTART };
	FILE *stated = fcntl(3, F_GETFD) != -1 ? fdopen(3, "w") : NULL;
	pid_t parent = getpid(), pid;
	long calls = 0;
	int st;

	selfcheck_allow_tracers();
	SELFCHECK_SAVE(probe_me);
	sigemptyset(&sa.sa_mask);
	sigaction(SIGRTMIN, &sa, NULL);
	/* held until SENDER is set: the child may queue its first one at once */
	sigset_t hold;

	sigemptyset(&hold);
	sigaddset(&hold, SIGRTMIN);
	sigprocmask(SIG_BLOCK, &hold, NULL);
	pid = fork();
	if (pid == 0) {
		for (int i = 1; i <= n; i++) {
			union sigval v = { .sival_int = i };

			sigqueue(parent, SIGRTMIN, v);
			usleep(200);
		}
		_exit(0);
	}
	sender = pid;
	sigprocmask(SIG_UNBLOCK, &hold, NULL);
	while (got < n && calls < 100000000L)
		probe_me(calls++, "q");
	waitpid(pid, &st, 0);
	if (bad || got != n)
		printf("SIGINFO-BAD %d wrong of %d received, %d sent\n", (int)bad, (int)got, n);
	else
		printf("SIGINFO-OK %d\n", (int)got);
	if (stated)
		fprintf(stated, "%ld\n", calls);
	return bad || got != n;
}
