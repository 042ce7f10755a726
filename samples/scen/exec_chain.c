/* samples/scen/exec_chain.c: scenario 10, exec-chain.  exec_chain [MAX [MODE]]
 * (50, main): generation G (1 .. MAX; the first one) calls probe_me(i, "g<G>")
 * for its ten i = (G-1)*10 .. G*10-1, then execs /proc/self/exe as "exec_chain
 * MAX MODE G+1"; the last one exits with status MAX.  MODE main: the main
 * thread does all of it.  MODE thread: the main thread makes the first five
 * calls, then a second thread the other five and the exec, while the main
 * thread waits in pthread_join and a third thread calls probe_me(-1, "spin")
 * without end.  Records: MAX*10 with s="g..", i in order.  On fd 3 (kept
 * across the execs), if open, the last generation writes "calls N" (not
 * counting the spins) and "generations MAX".  Exit MAX when every check
 * passed, 1 otherwise (2: usage, 3: exec failed). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../selfcheck.h"
#define SCEN_OWN_PROBE_ME
#include "scen.h"

#define CALLS	10

static __thread long probe_sum;

/* The probed function: it reads both arguments, so a tracer that changed one shows. */
__attribute__((noinline, noclone)) void probe_me(long a, const char *s)
{
	probe_sum += a + s[0];
	asm volatile("" : : "r"(a), "r"(s) : "memory");
}

static unsigned long max_gen = 50, gen = 1;
static const char *mode = "main", *argv0;
static char name[32];
static int bad;
static __thread long want_sum;	/* what probe_sum should be */

/* probe_me for call numbers FROM .. TO-1 of this generation. */
static void calls(int from, int to)
{
	for (int j = from; j < to; j++) {
		long a = (long)(gen - 1) * CALLS + j;

		probe_me(a, name);
		want_sum += a + 'g';
	}
}

/* probe_me saw the arguments this thread passed. */
static void check_sum(void)
{
	if (probe_sum != want_sum) {
		printf("exec_chain: generation %lu: probe_me saw sum %ld, expected %ld\n", gen,
		       probe_sum, want_sum);
		bad = 1;
	}
}

/* The end of this generation: check, then exec the next one or exit with MAX. */
static void next_generation(void)
{
	char smax[24], sgen[24];
	char *const args[] = { (char *)argv0, smax, (char *)mode, sgen, NULL };

	check_sum();
	if (!selfcheck_verify())
		bad = 1;
	if (bad)
		exit(1);
	if (gen < max_gen) {
		snprintf(smax, sizeof(smax), "%lu", max_gen);
		snprintf(sgen, sizeof(sgen), "%lu", gen + 1);
		execv("/proc/self/exe", args);
		printf("exec_chain: generation %lu: exec failed: %s\n", gen, strerror(errno));
		exit(3);
	}
	if (fcntl(3, F_GETFD) != -1)
		dprintf(3, "calls %lu\ngenerations %lu\n", max_gen * CALLS, max_gen);
	printf("exec_chain: %lu generations, %lu calls\n", max_gen, max_gen * CALLS);
	printf("EXIT-SUCCESS\n");
	fflush(stdout);
	exit((int)max_gen);
}

static void *second_half(void *arg)
{
	(void)arg;
	calls(CALLS / 2, CALLS);
	next_generation();
	return NULL;
}

static void *spin(void *arg)
{
	(void)arg;
	for (;;)
		probe_me(-1, "spin");
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th, spinner;

	SELFCHECK_SAVE(probe_me);
	argv0 = argv[0];
	if (argc > 2)
		mode = argv[2];
	if (argc > 4 || (argc > 1 && parse_count(argv[1], 255, &max_gen)) ||
	    (strcmp(mode, "main") && strcmp(mode, "thread")) ||
	    (argc > 3 && parse_count(argv[3], max_gen, &gen))) {
		fprintf(stderr, "usage: exec_chain [MAX [main|thread]]  (50 main)\n");
		return 2;
	}
	snprintf(name, sizeof(name), "g%lu", gen);
	if (!strcmp(mode, "main")) {
		calls(0, CALLS);
		next_generation();
	}
	calls(0, CALLS / 2);
	check_sum();
	if (pthread_create(&spinner, NULL, spin, NULL) ||
	    pthread_create(&th, NULL, second_half, NULL)) {
		fprintf(stderr, "exec_chain: pthread_create failed\n");
		return 2;
	}
	pthread_join(th, NULL);
	return 1;	/* not reached: second_half execs or exits */
}
