/* tests/bench/threads64.c: a process of many threads to attach to.
 * usage: threads64 [THREADS [SECONDS]]  (default 64 threads, 60 s)
 * Starts THREADS threads that each call tick() every millisecond, prints
 * "ready" once all run, and exits after SECONDS (a bench that dies cannot
 * leave it behind for long). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long ticks[1024];

/* The function a bench probes: one call per thread and millisecond. */
__attribute__((noinline)) void tick(long id)
{
	ticks[id % 1024]++;
}

static pthread_barrier_t started;

/* A thread's loop: tick, sleep 1 ms, forever. */
static void *run(void *arg)
{
	struct timespec ms = { 0, 1000000 };

	pthread_barrier_wait(&started);
	for (;;) {
		tick((long)arg);
		nanosleep(&ms, NULL);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 64;
	unsigned secs = argc > 2 ? (unsigned)atoi(argv[2]) : 60;
	pthread_t th;

	if (n < 1)
		n = 1;
	pthread_barrier_init(&started, NULL, (unsigned)n + 1);
	for (long i = 0; i < n; i++)
		if (pthread_create(&th, NULL, run, (void *)i)) {
			fputs("threads64: pthread_create failed\n", stderr);
			return 1;
		}
	pthread_barrier_wait(&started);
	printf("ready\n");
	fflush(stdout);
	sleep(secs);
	return 0;
}
