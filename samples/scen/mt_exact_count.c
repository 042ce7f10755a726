/* samples/scen/mt_exact_count.c: scenario 1, mt-exact-count.  THREADS threads
 * (8), released together by a barrier, each call probe_me(i, "t<k>") for i = 0
 * ..  ITER-1 (100000).  A tracer recording probe_me must give exactly ITER
 * records per thread, i in order, the string of that thread.  On fd 3, if
 * open: one line "thread K TID CALLS" per thread, then "calls TOTAL".  Exit 0
 * when every check passed, 1 otherwise. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../selfcheck.h"
#include "scen.h"

#define MAX_THREADS	64

struct worker {
	pthread_t th;
	int k;
	pid_t tid;
	unsigned long calls;
	int bad;
};

static pthread_barrier_t start;
static unsigned long iterations = 100000;

static void *work(void *arg)
{
	struct worker *w = arg;
	char name[16];
	long want = 0;

	snprintf(name, sizeof(name), "t%d", w->k);
	w->tid = (pid_t)syscall(SYS_gettid);
	pthread_barrier_wait(&start);
	for (unsigned long i = 0; i < iterations; i++) {
		probe_me((long)i, name);
		want += (long)i + name[1];
		w->calls++;
	}
	if (probe_sum != want) {
		printf("mt_exact_count: thread %d: probe_me saw sum %ld, expected %ld\n", w->k,
		       probe_sum, want);
		w->bad = 1;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	static struct worker w[MAX_THREADS];
	unsigned long nthreads = 8, total = 0;
	int bad = 0;

	SELFCHECK_SAVE(probe_me);
	if (argc > 3 || (argc > 1 && parse_count(argv[1], 1UL << 40, &iterations)) ||
	    (argc > 2 && parse_count(argv[2], MAX_THREADS, &nthreads))) {
		fprintf(stderr, "usage: mt_exact_count [ITER [THREADS]]  (100000 8)\n");
		return 2;
	}
	pthread_barrier_init(&start, NULL, (unsigned int)nthreads);
	for (unsigned long k = 0; k < nthreads; k++) {
		w[k].k = (int)k;
		if (pthread_create(&w[k].th, NULL, work, &w[k])) {
			fprintf(stderr, "mt_exact_count: pthread_create failed\n");
			return 2;
		}
	}
	for (unsigned long k = 0; k < nthreads; k++) {
		pthread_join(w[k].th, NULL);
		bad |= w[k].bad;
		total += w[k].calls;
	}
	if (fcntl(3, F_GETFD) != -1) {
		for (unsigned long k = 0; k < nthreads; k++)
			dprintf(3, "thread %d %d %lu\n", w[k].k, (int)w[k].tid, w[k].calls);
		dprintf(3, "calls %lu\n", total);
	}
	printf("mt_exact_count: %lu threads, %lu calls\n", nthreads, total);
	if (!selfcheck_verify())
		bad = 1;
	printf("EXIT-SUCCESS\n");
	return bad;
}
