/* samples/scen/ret_migrate.c: probed calls that one thread makes and another
 * returns from: a coroutine (makecontext/swapcontext, its own mmap'd stack)
 * started by thread 1 goes D + 1 calls deep into ret_work(D, 42)
 * (samples/scen/ret.h) and switches back to thread 1 at the bottom; thread 2
 * resumes the coroutine, which returns through all its calls on thread 2,
 * then back to thread 2's context.  HOW: "exit", thread 1 ends before thread
 * 2 starts; "live", thread 1 waits for the coroutine to end.  R rounds (10).
 * Every return checked.  On fd 3, if open: "calls C".  Prints EXIT-SUCCESS;
 * exit 0 when every check passed, 1 otherwise, 2: usage. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include "../selfcheck.h"
#include "scen.h"
#include "ret.h"

#define CORO_STACK	(256u << 10)

static unsigned long rounds = 10, depth = 20;
static ucontext_t uc_coro, uc_t1, uc_t2;
static atomic_int done, suspended;
static int live;

static void bottom(long tag)
{
	if (tag == 42)
		swapcontext(&uc_coro, &uc_t1);	/* on thread 1; comes back on thread 2 */
}

static void coro(void)
{
	ret_call((long)depth, 42);
	atomic_store(&done, 1);
}

static void *starter(void *stack)
{
	getcontext(&uc_coro);
	uc_coro.uc_stack.ss_sp = stack;
	uc_coro.uc_stack.ss_size = CORO_STACK;
	uc_coro.uc_link = &uc_t2;
	makecontext(&uc_coro, coro, 0);
	swapcontext(&uc_t1, &uc_coro);
	atomic_store(&suspended, 1);
	while (live && !atomic_load(&done))
		usleep(100);
	return NULL;
}

static void *finisher(void *arg)
{
	(void)arg;
	swapcontext(&uc_t2, &uc_coro);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th1, th2;
	char *stack;
	int bad;

	setvbuf(stdout, NULL, _IOLBF, 0);
	SELFCHECK_SAVE(ret_work);
	if (argc > 4 || (argc > 1 && parse_count(argv[1], 100000, &rounds)) ||
	    (argc > 2 && parse_count(argv[2], 1000, &depth)) ||
	    (argc > 3 && !(live = !strcmp(argv[3], "live")) && strcmp(argv[3], "exit"))) {
		fprintf(stderr, "usage: ret_migrate [ROUNDS [D [exit|live]]]  (10 20 exit)\n");
		return 2;
	}
	ret_bottom = bottom;
	stack = mmap(NULL, CORO_STACK, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (stack == MAP_FAILED)
		return 2;
	for (unsigned long r = 0; r < rounds; r++) {
		atomic_store(&done, 0);
		atomic_store(&suspended, 0);
		if (pthread_create(&th1, NULL, starter, stack))
			return 2;
		while (!atomic_load(&suspended))
			usleep(100);
		if ((!live && pthread_join(th1, NULL)) ||
		    pthread_create(&th2, NULL, finisher, NULL) || pthread_join(th2, NULL) ||
		    (live && pthread_join(th1, NULL)))
			return 2;
		if (!atomic_load(&done)) {
			printf("ret_migrate: round %lu: the coroutine did not finish\n", r);
			atomic_fetch_add(&ret_bad, 1);
		}
	}
	if (ret_fd3())
		dprintf(3, "calls %ld\n", atomic_load(&ret_calls));
	bad = atomic_load(&ret_bad) != 0;
	printf("ret_migrate: calls %ld, %ld wrong\n", atomic_load(&ret_calls),
	       atomic_load(&ret_bad));
	if (!selfcheck_verify())
		bad = 1;
	printf("EXIT-SUCCESS\n");
	return bad;
}
