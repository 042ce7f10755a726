/* samples/scen/leader_pthread_exit.c: scenario 7, leader-pthread-exit.  main
 * starts WORKERS threads (3) and calls pthread_exit(), leaving a zombie
 * leader; the workers call probe_me(i, "w<k>") for MS milliseconds (1000), and
 * the last one to finish calls exit(5).  On fd 3, if open: one line "thread K
 * TID CALLS" per worker, then "calls TOTAL".  Exit 5 when every check passed,
 * 1 otherwise (2: usage). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "../selfcheck.h"
#include "scen.h"

#define MAX_WORKERS	64

struct worker {
	pthread_t th;
	int k;
	pid_t tid;
	unsigned long calls;
	int bad;
};

static struct worker workers[MAX_WORKERS];
static unsigned long nworkers = 3, run_ms = 1000;
static atomic_ulong finished;
static pthread_barrier_t start;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The last worker: says what was called, checks, and ends the process. */
static void finish(void)
{
	unsigned long total = 0;
	int bad = 0;

	for (unsigned long k = 0; k < nworkers; k++) {
		total += workers[k].calls;
		bad |= workers[k].bad;
	}
	if (fcntl(3, F_GETFD) != -1) {
		for (unsigned long k = 0; k < nworkers; k++)
			dprintf(3, "thread %d %d %lu\n", workers[k].k, (int)workers[k].tid,
				workers[k].calls);
		dprintf(3, "calls %lu\n", total);
	}
	printf("leader_pthread_exit: %lu workers, %lu calls\n", nworkers, total);
	if (!selfcheck_verify())
		bad = 1;
	printf("EXIT-SUCCESS\n");
	fflush(stdout);
	exit(bad ? 1 : 5);
}

static void *work(void *arg)
{
	struct worker *w = arg;
	char name[16];
	long want = 0;
	double end;

	snprintf(name, sizeof(name), "w%d", w->k);
	w->tid = (pid_t)syscall(SYS_gettid);
	pthread_barrier_wait(&start);
	end = now() + run_ms / 1000.0;
	for (unsigned long i = 0; now() < end; i++) {
		probe_me((long)i, name);
		want += (long)i + name[1];
		w->calls++;
	}
	if (probe_sum != want) {
		printf("leader_pthread_exit: worker %d: probe_me saw sum %ld, expected %ld\n",
		       w->k, probe_sum, want);
		w->bad = 1;
	}
	if (atomic_fetch_add(&finished, 1) + 1 == nworkers)
		finish();
	return NULL;
}

int main(int argc, char **argv)
{
	SELFCHECK_SAVE(probe_me);
	if (argc > 3 || (argc > 1 && parse_count(argv[1], 3600000, &run_ms)) ||
	    (argc > 2 && parse_count(argv[2], MAX_WORKERS, &nworkers))) {
		fprintf(stderr, "usage: leader_pthread_exit [MS [WORKERS]]  (1000 3)\n");
		return 2;
	}
	pthread_barrier_init(&start, NULL, (unsigned int)nworkers);
	for (unsigned long k = 0; k < nworkers; k++) {
		workers[k].k = (int)k;
		if (pthread_create(&workers[k].th, NULL, work, &workers[k])) {
			fprintf(stderr, "leader_pthread_exit: pthread_create failed\n");
			return 2;
		}
	}
	pthread_exit(NULL);
}
