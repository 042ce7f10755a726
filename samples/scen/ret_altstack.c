/* samples/scen/ret_altstack.c: return probes and signal handlers on a
 * sigaltstack.  A worker thread, on a stack of our own, calls ret_work
 * (samples/scen/ret.h) while a SA_ONSTACK handler calls it too, on an
 * alternate stack placed PLACE: "heap" (malloc'd, far from the thread's
 * stack), "below" or "above" (a mapping of its own right next to the
 * thread's stack), "inside" (the top of the thread's stack mapping, above
 * the stack itself).  MODE:
 *   sync N D   N times: ret_work(D, i % 100) raises SIGUSR1 at its bottom;
 *              the handler calls ret_work(20, 500) (20 deep inside D deep)
 *   async MS   for MS ms ret_work(10, i % 100) in a loop while SIGALRM
 *              comes every 500 us; its handler calls ret_work(3, 700)
 *   jump N D   N times: ret_work(D, 1) raises SIGUSR1 at its bottom; the
 *              handler's ret_work(D, 2) siglongjmps at its bottom back to
 *              the loop: no call ever returns; then ret_work(3, 600) 10 times,
 *              which return
 * Every return is checked (ret.h).  On fd 3, if open: "calls C" (the calls
 * that returned: ptap records as many returns) and "handled H".  Prints
 * EXIT-SUCCESS; exit 0 when every check passed, 1 otherwise, 2: usage. */
#include <malloc.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <time.h>

#include "../selfcheck.h"
#include "scen.h"
#include "ret.h"

#define STACK_LEN	(1u << 20)
#define ALT_LEN		(256u << 10)

static const char *mode, *place;
static unsigned long n = 1000, depth = 30;
static atomic_long handled;
static __thread int in_handler;
static __thread sigjmp_buf back;

static void on_sig(int sig)
{
	int saved = errno;

	(void)sig;
	in_handler = 1;
	atomic_fetch_add(&handled, 1);
	if (!strcmp(mode, "sync"))
		ret_call(20, 500);
	else if (!strcmp(mode, "async"))
		ret_call(3, 700);
	else
		ret_call((long)depth, 2);	/* jumps away at its bottom */
	in_handler = 0;
	errno = saved;
}

/* At ret_work's bottom: the main calls raise the signal (sync: tags 0-99,
 * jump: 1), the jump mode's handler jumps away (2); the others return. */
static void bottom(long tag)
{
	if (!strcmp(mode, "async") || tag == 600 || tag == 500)
		return;
	if (!in_handler)
		raise(SIGUSR1);
	else if (tag == 2)
		siglongjmp(back, 1);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *work(void *alt)
{
	stack_t ss = { .ss_sp = alt, .ss_size = ALT_LEN };
	volatile unsigned long jumps = 0;
	sigset_t set;

	if (sigaltstack(&ss, NULL)) {
		perror("sigaltstack");
		exit(2);
	}
	sigemptyset(&set);
	sigaddset(&set, SIGALRM);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	if (!strcmp(mode, "sync")) {
		for (unsigned long i = 0; i < n; i++)
			ret_call((long)depth, (long)(i % 100));
	} else if (!strcmp(mode, "async")) {
		struct itimerval it = { { 0, 500 }, { 0, 500 } };
		double end = now() + n / 1000.0;

		setitimer(ITIMER_REAL, &it, NULL);
		for (unsigned long i = 0; now() < end; i++)
			ret_call(10, (long)(i % 100));
		memset(&it, 0, sizeof(it));
		setitimer(ITIMER_REAL, &it, NULL);
	} else {
		sigsetjmp(back, 1);
		in_handler = 0;
		while (jumps < n) {
			jumps++;
			ret_call((long)depth, 1);
			printf("ret_altstack: ret_work returned in jump mode\n");
			atomic_fetch_add(&ret_bad, 1);
		}
		for (int i = 0; i < 10; i++)
			ret_call(3, 600);
	}
	return NULL;
}

/* A mapping of LEN bytes at exactly ADDR, or NULL. */
static char *map_at(char *addr, size_t len)
{
	char *p = mmap(addr, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* The worker's stack and its alternate stack, placed as PLACE says.  0 or -1. */
static int place_stacks(char **stack, char **alt)
{
	char *region = mmap(NULL, STACK_LEN + ALT_LEN, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (region == MAP_FAILED)
		return -1;
	*stack = region;
	if (!strcmp(place, "inside")) {
		*alt = region + STACK_LEN;
		return 0;
	}
	/* two mappings of their own: the worker's stack at one end of the region */
	munmap(region, STACK_LEN + ALT_LEN);
	if (!strcmp(place, "below")) {
		*alt = map_at(region, ALT_LEN);
		*stack = map_at(region + ALT_LEN, STACK_LEN);
	} else if (!strcmp(place, "above")) {
		*stack = map_at(region, STACK_LEN);
		*alt = map_at(region + STACK_LEN, ALT_LEN);
	} else {
		*stack = map_at(region, STACK_LEN);
		mallopt(M_MMAP_THRESHOLD, 64 << 20);	/* from the heap, not an mmap */
		*alt = malloc(ALT_LEN);
	}
	return *stack && *alt ? 0 : -1;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_sig, .sa_flags = SA_ONSTACK | SA_RESTART };
	char *stack, *alt;
	pthread_attr_t attr;
	pthread_t th;
	sigset_t set;
	int bad;

	SELFCHECK_SAVE(ret_work);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 3 || argc > 5 ||
	    (strcmp(argv[1], "sync") && strcmp(argv[1], "async") && strcmp(argv[1], "jump")) ||
	    (strcmp(argv[2], "heap") && strcmp(argv[2], "below") && strcmp(argv[2], "above") &&
	     strcmp(argv[2], "inside")) ||
	    (argc > 3 && parse_count(argv[3], 10000000, &n)) ||
	    (argc > 4 && parse_count(argv[4], 2000, &depth))) {
		fprintf(stderr, "usage: ret_altstack sync|async|jump heap|below|above|inside "
			"[N [DEPTH]]\n");
		return 2;
	}
	mode = argv[1];
	place = argv[2];
	ret_bottom = bottom;
	if (place_stacks(&stack, &alt))
		return 2;
	printf("ret_altstack: %s, stack %p-%p, alternate stack %p-%p\n", mode, (void *)stack,
	       (void *)(stack + STACK_LEN), (void *)alt, (void *)(alt + ALT_LEN));
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGALRM, &sa, NULL);
	/* SIGALRM goes to the process: only the worker takes it */
	sigemptyset(&set);
	sigaddset(&set, SIGALRM);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	pthread_attr_init(&attr);
	pthread_attr_setstack(&attr, stack, STACK_LEN);
	if (pthread_create(&th, &attr, work, alt)) {
		fprintf(stderr, "ret_altstack: pthread_create failed\n");
		return 2;
	}
	pthread_join(th, NULL);
	if (ret_fd3())
		dprintf(3, "calls %ld\nhandled %ld\n", atomic_load(&ret_calls),
			atomic_load(&handled));
	bad = atomic_load(&ret_bad) != 0;
	printf("ret_altstack: %ld calls returned, %ld signals handled, %ld wrong\n",
	       atomic_load(&ret_calls), atomic_load(&handled), atomic_load(&ret_bad));
	if (!selfcheck_verify())
		bad = 1;
	printf("EXIT-SUCCESS\n");
	return bad;
}
