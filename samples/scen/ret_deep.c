/* samples/scen/ret_deep.c: a target to detach from while it is deep inside
 * probed calls.  Four threads call ret_work(D, k) (samples/scen/ret.h, D
 * 100) again and again for SECONDS (3); at the bottom threads 0 and 1 spin
 * for 200 us, 2 and 3 sleep 1 ms, so at any time most of their D + 1
 * frames are live; a fifth thread calls ret_work(5, 50), which blocks at its
 * bottom in read(2) until main writes to the pipe at the end.  Prints READY,
 * waits (10 s) for a tracer, runs SECONDS, then waits (20 s) for the tracer
 * to go: every call must return the right value to the right place, the
 * tracer gone or not.  Prints "calls C, W wrong", BYTES-OK and EXIT-SUCCESS;
 * exit 0 when every check passed, 1 otherwise, 2: usage.  "nowait" as a
 * third argument: no tracer is waited for (an untraced run).  SIGUSR1 ends
 * the SECONDS early (a test that does not know how long its cycles take). */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../selfcheck.h"
#include "scen.h"
#include "ret.h"

#define DEEP	4

static unsigned long seconds = 3, depth = 100;
static atomic_int stop;
static int pipefd[2];

static void bottom(long tag)
{
	struct timespec ms = { 0, 1000000 }, t0, t;
	char c;

	if (tag == 50) {
		if (read(pipefd[0], &c, 1) != 1) {
			printf("ret_deep: read failed\n");
			atomic_fetch_add(&ret_bad, 1);
		}
	} else if (tag >= 2) {
		nanosleep(&ms, NULL);
	} else {
		clock_gettime(CLOCK_MONOTONIC, &t0);
		do
			clock_gettime(CLOCK_MONOTONIC, &t);
		while ((t.tv_sec - t0.tv_sec) * 1000000000L + t.tv_nsec - t0.tv_nsec < 200000);
	}
}

static void *deep(void *arg)
{
	long k = (long)arg;

	while (!atomic_load(&stop))
		ret_call((long)depth, k);
	return NULL;
}

static void *blocked(void *arg)
{
	(void)arg;
	ret_call(5, 50);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th[DEEP + 1];
	int bad, wait_tracer = 1;
	struct timespec run = { 0, 0 };
	sigset_t usr1;

	setvbuf(stdout, NULL, _IOLBF, 0);
	SELFCHECK_SAVE(ret_work);
	if (argc > 4 || (argc > 1 && parse_count(argv[1], 3600, &seconds)) ||
	    (argc > 2 && parse_count(argv[2], 10000, &depth)) ||
	    (argc > 3 && (wait_tracer = strcmp(argv[3], "nowait")))) {
		fprintf(stderr, "usage: ret_deep [SECONDS [DEPTH [nowait]]]  (3 100)\n");
		return 2;
	}
	ret_bottom = bottom;
	/* blocked in every thread (they inherit it): main takes it in sigtimedwait() */
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &usr1, NULL);
	selfcheck_allow_tracers();
	if (pipe(pipefd))
		return 2;
	printf("READY\n");
	if (wait_tracer && !selfcheck_wait_tracer(1, 10)) {
		printf("ret_deep: no tracer came\n");
		return 1;
	}
	for (long k = 0; k < DEEP; k++)
		if (pthread_create(&th[k], NULL, deep, (void *)k))
			return 2;
	if (pthread_create(&th[DEEP], NULL, blocked, NULL))
		return 2;
	run.tv_sec = (time_t)seconds;
	while (sigtimedwait(&usr1, NULL, &run) < 0 && errno == EINTR)
		;
	atomic_store(&stop, 1);
	if (write(pipefd[1], "x", 1) != 1)
		return 2;
	for (int k = 0; k <= DEEP; k++)
		pthread_join(th[k], NULL);
	if (wait_tracer && !selfcheck_wait_tracer(0, 20))
		printf("ret_deep: the tracer stayed\n");
	bad = atomic_load(&ret_bad) != 0;
	printf("ret_deep: calls %ld, %ld wrong\n", atomic_load(&ret_calls), atomic_load(&ret_bad));
	if (!selfcheck_verify())
		bad = 1;
	printf("EXIT-SUCCESS\n");
	return bad;
}
