/* samples/scen/ret_exec.c: exec and vfork inside probed calls
 * (samples/scen/ret.h's ret_work), by MODE:
 *   exec D      ret_work(D, 1) execs this program ("after") at its bottom
 *   thread D    main sits at the bottom of ret_work(D, 4) while a second
 *               thread's ret_work(D, 5) execs at its bottom
 *   vfork N D   N times: ret_work(D, 6) vforks at its bottom; the child
 *               calls ret_work(2, 7) on its parent's stack, then execs this
 *               program ("after"); the parent waits for it and returns
 * "after" calls ret_work(1, 8) 5 times and exits 0.  Every return checked.
 * On fd 3, if open: "calls C" from the process that ends (or runs the
 * loop), "after C" from each "after" image.  Prints EXIT-SUCCESS; exit 0
 * when every check passed, 1 otherwise, 2: usage. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../selfcheck.h"
#include "scen.h"
#include "ret.h"

static const char *mode;
static unsigned long n = 100, depth = 20;
static char *self;
static atomic_int thread_in;

static void run_after(void)
{
	char *argv[] = { self, "after", NULL };

	execv("/proc/self/exe", argv);
	perror("ret_exec: execv");
	_exit(3);
}

static void bottom(long tag)
{
	pid_t pid;
	int st;

	if (tag == 1 || tag == 5) {
		run_after();
	} else if (tag == 4) {
		atomic_store(&thread_in, 1);
		for (;;)
			pause();	/* until the other thread's exec ends this one */
	} else if (tag == 6) {
		pid = vfork();
		if (pid == 0) {
			ret_work(2, 7);	/* on the parent's stack, below its frames */
			run_after();
		}
		if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) ||
		    WEXITSTATUS(st) != 0) {
			printf("ret_exec: vfork child %d ended with status %#x\n", (int)pid, st);
			atomic_fetch_add(&ret_bad, 1);
		}
	}
}

static void *exec_thread(void *arg)
{
	(void)arg;
	while (!atomic_load(&thread_in))
		usleep(100);
	ret_call((long)depth, 5);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th;
	int bad;

	SELFCHECK_SAVE(ret_work);
	setvbuf(stdout, NULL, _IOLBF, 0);
	self = argv[0];
	if (argc < 2 || argc > 4 ||
	    (strcmp(argv[1], "exec") && strcmp(argv[1], "thread") && strcmp(argv[1], "vfork") &&
	     strcmp(argv[1], "after")) ||
	    (argc > 2 && parse_count(argv[2], 100000, !strcmp(argv[1], "vfork") ? &n : &depth)) ||
	    (argc > 3 && parse_count(argv[3], 1000, &depth))) {
		fprintf(stderr, "usage: ret_exec exec|thread D, vfork [N [D]]\n");
		return 2;
	}
	mode = argv[1];
	ret_bottom = bottom;
	if (!strcmp(mode, "exec")) {
		ret_call((long)depth, 1);
	} else if (!strcmp(mode, "thread")) {
		if (pthread_create(&th, NULL, exec_thread, NULL))
			return 2;
		ret_call((long)depth, 4);
	} else if (!strcmp(mode, "vfork")) {
		for (unsigned long i = 0; i < n; i++)
			ret_call((long)depth, 6);
	} else {
		for (int i = 0; i < 5; i++)
			ret_call(1, 8);
		if (ret_fd3())
			dprintf(3, "after %ld\n", atomic_load(&ret_calls));
		printf("ret_exec: after: %ld calls returned, %ld wrong\n",
		       atomic_load(&ret_calls), atomic_load(&ret_bad));
		return atomic_load(&ret_bad) != 0;
	}
	if (ret_fd3())
		dprintf(3, "calls %ld\n", atomic_load(&ret_calls));
	bad = atomic_load(&ret_bad) != 0;
	printf("ret_exec: %s: %ld calls returned, %ld wrong\n", mode, atomic_load(&ret_calls),
	       atomic_load(&ret_bad));
	if (!selfcheck_verify())
		bad = 1;
	printf("EXIT-SUCCESS\n");
	return bad;
}
