/* samples/scen/exit_group_mid_hit.c: scenario 8, exit-group-mid-hit.  THREADS
 * threads (16) call probe_me(i, "h<k>") for i = 0, 1, ... without end; MS
 * milliseconds (100) after they start, another thread (not the leader) calls
 * _exit(3) while they are in the middle of it.  Just before, it writes on fd
 * 3, if open: one line "thread K TID DONE" per thread (DONE: the calls that
 * had returned, so recorded), "calls TOTAL", and "exit_at SEC.NSEC"
 * (CLOCK_REALTIME).  The bytes check runs then too, so with a tracer still
 * there it says nothing.  Exit 3 (2: usage). */
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

#define MAX_THREADS	64

struct worker {
	pthread_t th;
	int k;
	pid_t tid;
	atomic_ulong done;
};

static struct worker workers[MAX_THREADS];
static unsigned long nthreads = 16, delay_ms = 100;
static pthread_barrier_t start;

static void *hammer(void *arg)
{
	struct worker *w = arg;
	char name[16];

	snprintf(name, sizeof(name), "h%d", w->k);
	w->tid = (pid_t)syscall(SYS_gettid);
	pthread_barrier_wait(&start);
	for (unsigned long i = 0;; i++) {
		probe_me((long)i, name);
		atomic_store(&w->done, i + 1);
	}
	return NULL;
}

/* The thread that ends the process while the others are mid-call. */
static void *exiter(void *arg)
{
	struct timespec delay = { (time_t)(delay_ms / 1000), (long)(delay_ms % 1000) * 1000000 };
	unsigned long done[MAX_THREADS], total = 0;
	struct timespec ts;

	(void)arg;
	pthread_barrier_wait(&start);
	nanosleep(&delay, NULL);
	for (unsigned long k = 0; k < nthreads; k++) {
		done[k] = atomic_load(&workers[k].done);
		total += done[k];
	}
	selfcheck_verify();
	printf("exit_group_mid_hit: %lu threads, %lu calls returned\n", nthreads, total);
	printf("EXIT-SUCCESS\n");
	fflush(stdout);
	if (fcntl(3, F_GETFD) != -1) {
		for (unsigned long k = 0; k < nthreads; k++)
			dprintf(3, "thread %d %d %lu\n", workers[k].k, (int)workers[k].tid,
				done[k]);
		dprintf(3, "calls %lu\n", total);
		clock_gettime(CLOCK_REALTIME, &ts);
		dprintf(3, "exit_at %ld.%09ld\n", (long)ts.tv_sec, ts.tv_nsec);
	}
	_exit(3);
}

int main(int argc, char **argv)
{
	pthread_t ex;

	SELFCHECK_SAVE(probe_me);
	if (argc > 3 || (argc > 1 && parse_count(argv[1], MAX_THREADS, &nthreads)) ||
	    (argc > 2 && parse_count(argv[2], 3600000, &delay_ms))) {
		fprintf(stderr, "usage: exit_group_mid_hit [THREADS [MS]]  (16 100)\n");
		return 2;
	}
	pthread_barrier_init(&start, NULL, (unsigned int)nthreads + 1);
	for (unsigned long k = 0; k < nthreads; k++) {
		workers[k].k = (int)k;
		if (pthread_create(&workers[k].th, NULL, hammer, &workers[k])) {
			fprintf(stderr, "exit_group_mid_hit: pthread_create failed\n");
			return 2;
		}
	}
	if (pthread_create(&ex, NULL, exiter, NULL)) {
		fprintf(stderr, "exit_group_mid_hit: pthread_create failed\n");
		return 2;
	}
	pthread_join(ex, NULL);
	return 1;	/* not reached: the exiter ends the process */
}
