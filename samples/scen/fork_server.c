/* samples/scen/fork_server.c: a forking server to attach to and detach from
 * again and again (issue 17.2: a scratch page left in PostgreSQL's
 * postmaster).  Like a postmaster, the main process is single-threaded,
 * reaps its children in a SIGCHLD handler, forks a short-lived child every
 * 2 ms (it calls serve_query() 3 times and exits 0) and calls serve_query()
 * itself at each turn; two long-lived "backends" forked at the start call it
 * every ms.  The load makes a detach find the main process at a fork event
 * or with a SIGCHLD on its way, at any moment.
 *
 *   fork_server SECONDS   prints "READY", "BACKEND PID" twice, and runs until
 *                         SECONDS are up or SIGUSR1 comes; then every process
 *                         left prints BYTES-OK or BYTES-CORRUPT (serve_query's
 *                         bytes against the file's, selfcheck.h), the main
 *                         "CHILDREN n" (forked), "DIED n" (children that did
 *                         not exit 0) and EXIT-SUCCESS; exit 0.
 */
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "samples/selfcheck.h"

static volatile sig_atomic_t stop;
static volatile sig_atomic_t died;
static long children;
static long sink;

__attribute__((noinline)) long serve_query(long n, const char *q)
{
	__asm__ volatile("" : : "r"(q) : "memory");
	sink += n;
	return n + 1;
}

static void on_chld(int sig)
{
	int saved = errno, st;
	pid_t pid;

	(void)sig;
	while ((pid = waitpid(-1, &st, WNOHANG)) > 0)
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
			died++;
	errno = saved;
}

static void on_stop(int sig)
{
	(void)sig;
	stop = 1;
}

static void nap(long ns)
{
	struct timespec ts = { 0, ns };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR && !stop)
		;
}

/* A backend: serves until SIGTERM (from the main process at the end). */
static void backend(void)
{
	long n = 0;

	signal(SIGCHLD, SIG_DFL);
	signal(SIGTERM, on_stop);
	signal(SIGUSR1, SIG_IGN);
	prctl(PR_SET_PDEATHSIG, SIGTERM);	/* a test that killed the server leaves none */
	if (getppid() == 1)
		stop = 1;
	while (!stop) {
		serve_query(n++, "backend");
		nap(1000000);
	}
	_exit(selfcheck_verify() ? 0 : 1);
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 3;
	struct sigaction sa;
	pid_t backends[2];
	double t0, now;
	struct timespec ts;
	long n = 0;

	if (argc > 2 || secs <= 0) {
		fprintf(stderr, "usage: fork_server [SECONDS]  (3)\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	selfcheck_allow_tracers();
	SELFCHECK_SAVE(serve_query);
	for (int i = 0; i < 2; i++) {
		backends[i] = fork();
		if (backends[i] == 0)
			backend();
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_chld;
	sa.sa_flags = SA_RESTART | SA_NOCLDSTOP;
	sigaction(SIGCHLD, &sa, NULL);
	sa.sa_handler = on_stop;
	sa.sa_flags = 0;
	sigaction(SIGUSR1, &sa, NULL);
	printf("READY\nBACKEND %d\nBACKEND %d\n", (int)backends[0], (int)backends[1]);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	t0 = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
	do {
		pid_t pid = fork();

		if (pid == 0) {
			for (int i = 0; i < 3; i++)
				serve_query(i, "child");
			_exit(0);
		}
		children += pid > 0;
		serve_query(n++, "main");
		nap(2000000);
		clock_gettime(CLOCK_MONOTONIC, &ts);
		now = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
	} while (!stop && now - t0 < secs);
	for (int i = 0; i < 2; i++)
		kill(backends[i], SIGTERM);
	signal(SIGCHLD, SIG_DFL);
	for (;;) {
		int st;
		pid_t pid = waitpid(-1, &st, 0);

		if (pid < 0)
			break;
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
			died++;
	}
	selfcheck_verify();
	printf("CHILDREN %ld\nDIED %d\nEXIT-SUCCESS\n", children, (int)died);
	return 0;
}
