/* samples/scen/attach_target.c: a running process to attach to (scenario 24,
 * already-traced: refused attaches; and attach/detach tests).
 * usage: attach_target SECONDS [STATUS]
 * Lets any tracer of its user attach (Yama 1), keeps probe_me's first bytes,
 * then 2 threads call probe_me(i, "x") with i = 0, 1, ... sleeping 1 ms after
 * each call, for SECONDS seconds.  Prints "READY PID" once both threads run,
 * and at the end "calls N" (both threads together), BYTES-OK (or
 * BYTES-CORRUPT) and, when the bytes and every result were right,
 * EXIT-SUCCESS; exits STATUS (default 0) then, 1 otherwise. */
#include <pthread.h>
#include <stdatomic.h>

#include "../selfcheck.h"

/* The probed function: a + the first byte of s. */
__attribute__((noinline)) long probe_me(long a, const char *s)
{
	asm volatile("" ::: "memory");
	return a + s[0];
}

static struct timespec deadline;
static atomic_long calls, wrong;
static atomic_int started;

static int past_deadline(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec > deadline.tv_sec ||
	       (now.tv_sec == deadline.tv_sec && now.tv_nsec >= deadline.tv_nsec);
}

static void *worker(void *arg)
{
	struct timespec ms = { 0, 1000000 };

	(void)arg;
	atomic_fetch_add(&started, 1);
	for (long i = 0; !past_deadline(); i++) {
		if (probe_me(i, "x") != i + 'x')
			atomic_fetch_add(&wrong, 1);
		atomic_fetch_add(&calls, 1);
		nanosleep(&ms, NULL);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct timespec ms = { 0, 1000000 };
	int secs = argc > 1 ? atoi(argv[1]) : 3;
	int status = argc > 2 ? atoi(argv[2]) : 0;
	pthread_t th[2];
	int ok;

	selfcheck_allow_tracers();
	SELFCHECK_SAVE(probe_me);
	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_sec += secs;
	for (int i = 0; i < 2; i++)
		if (pthread_create(&th[i], NULL, worker, NULL)) {
			printf("attach_target: pthread_create failed\n");
			return 1;
		}
	while (atomic_load(&started) < 2)
		nanosleep(&ms, NULL);
	printf("READY %d\n", (int)getpid());
	fflush(stdout);
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	printf("calls %ld\n", atomic_load(&calls));
	if (atomic_load(&wrong))
		printf("attach_target: %ld wrong results\n", atomic_load(&wrong));
	ok = selfcheck_verify() && !atomic_load(&wrong);
	if (!ok)
		return 1;
	printf("EXIT-SUCCESS\n");
	return status;
}
