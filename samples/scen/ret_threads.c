/* samples/scen/ret_threads.c: return probes on threads' start routines and
 * on calls a thread never returns from.  N threads (8 at a time, so glibc
 * reuses their stacks, with the calls the last ones left pending on them)
 * run ret_start(k), whose return goes into libc's start_thread; it
 * calls ret_work(D, k) (samples/scen/ret.h), and at its bottom, by MODE:
 *   start   nothing: ret_start returns k * 3 + 1, ret_work every level
 *   exit    pthread_exit(k * 3 + 2): nothing returns
 *   cancel  blocks in read(2) until main cancels it: nothing returns
 * Main joins each with the value it must give, counts the cleanup handlers
 * ret_start pushed (exit, cancel: each must run), then calls ret_work(3, 99)
 * 10 times.  On fd 3, if open: "calls C" (ret_work's returns), "starts S"
 * (ret_start's), "cleanups U".  Prints EXIT-SUCCESS; exit 0 when every
 * check passed, 1 otherwise, 2: usage. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../selfcheck.h"
#include "scen.h"
#include "ret.h"

#define BATCH	8

static const char *mode;
static unsigned long n = 100, depth = 20;
static atomic_long starts, cleanups, blocked;
static int pipefd[2];

static void cleanup(void *arg)
{
	(void)arg;
	atomic_fetch_add(&cleanups, 1);
}

static void bottom(long tag)
{
	char c;

	if (!strcmp(mode, "exit"))
		pthread_exit((void *)(tag * 3 + 2));
	if (!strcmp(mode, "cancel")) {
		atomic_fetch_add(&blocked, 1);
		while (read(pipefd[0], &c, 1) != 0)
			;
		printf("ret_threads: read returned: not cancelled\n");
		atomic_fetch_add(&ret_bad, 1);
	}
}

__attribute__((noinline, noclone)) void *ret_start(void *arg)
{
	long k = (long)arg;

	pthread_cleanup_push(cleanup, arg);
	ret_call((long)depth, k);
	pthread_cleanup_pop(0);
	atomic_fetch_add(&starts, 1);
	return (void *)(k * 3 + 1);
}

int main(int argc, char **argv)
{
	pthread_t th[BATCH];
	unsigned long want_cleanups = 0;
	int bad;

	SELFCHECK_SAVE(ret_work);
	SELFCHECK_SAVE(ret_start);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 2 || argc > 4 ||
	    (strcmp(argv[1], "start") && strcmp(argv[1], "exit") && strcmp(argv[1], "cancel")) ||
	    (argc > 2 && parse_count(argv[2], 100000, &n)) ||
	    (argc > 3 && parse_count(argv[3], 1000, &depth))) {
		fprintf(stderr, "usage: ret_threads start|exit|cancel [N [DEPTH]]  (100 20)\n");
		return 2;
	}
	mode = argv[1];
	ret_bottom = bottom;
	if (pipe(pipefd))
		return 2;
	for (unsigned long i = 0; i < n; i += BATCH) {
		unsigned long m = n - i < BATCH ? n - i : BATCH;

		atomic_store(&blocked, 0);
		for (unsigned long j = 0; j < m; j++)
			if (pthread_create(&th[j], NULL, ret_start, (void *)(long)(i + j))) {
				fprintf(stderr, "ret_threads: pthread_create failed\n");
				return 2;
			}
		if (!strcmp(mode, "cancel")) {
			while (atomic_load(&blocked) < (long)m)
				usleep(100);
			for (unsigned long j = 0; j < m; j++)
				pthread_cancel(th[j]);
		}
		for (unsigned long j = 0; j < m; j++) {
			long k = (long)(i + j);
			void *want = !strcmp(mode, "start") ? (void *)(k * 3 + 1) :
				     !strcmp(mode, "exit") ? (void *)(k * 3 + 2) : PTHREAD_CANCELED;
			void *got;

			pthread_join(th[j], &got);
			if (got != want) {
				printf("ret_threads: thread %ld gave %p, expected %p\n", k, got,
				       want);
				atomic_fetch_add(&ret_bad, 1);
			}
		}
		want_cleanups += strcmp(mode, "start") ? m : 0;
	}
	ret_bottom = NULL;
	for (int i = 0; i < 10; i++)
		ret_call(3, 99);
	if ((unsigned long)atomic_load(&cleanups) != want_cleanups) {
		printf("ret_threads: %ld cleanup handlers ran, expected %lu\n",
		       atomic_load(&cleanups), want_cleanups);
		atomic_fetch_add(&ret_bad, 1);
	}
	if (ret_fd3())
		dprintf(3, "calls %ld\nstarts %ld\ncleanups %ld\n", atomic_load(&ret_calls),
			atomic_load(&starts), atomic_load(&cleanups));
	bad = atomic_load(&ret_bad) != 0;
	printf("ret_threads: %s: %lu threads, %ld calls returned, %ld cleanups, %ld wrong\n",
	       mode, n, atomic_load(&ret_calls), atomic_load(&cleanups), atomic_load(&ret_bad));
	if (!selfcheck_verify())
		bad = 1;
	printf("EXIT-SUCCESS\n");
	return bad;
}
