/* samples/scen/ret_fork.c: fork inside probed calls.  N times,
 * ret_work(D, 10) (samples/scen/ret.h) forks at its bottom; the child returns
 * through all D + 1 frames (a copy of its parent's stack), calls
 * ret_work(2, 11), checks ret_work's bytes (BYTES-OK: a child not followed
 * must have none of ptap's int3s left) and exits 0 (1 if a check failed);
 * the parent waits for it.  With "attach": prints READY and waits (10 s)
 * for a tracer and its breakpoint in ret_work before the loop, prints DONE
 * after it and waits for the tracer to go.  On fd 3, if open: "calls C"
 * (the parent's returns) and "child_calls K" for each child.  Prints "children N, M bad", BYTES-OK and
 * EXIT-SUCCESS; exit 0 when every check passed, 1 otherwise, 2: usage. */
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../selfcheck.h"
#include "scen.h"
#include "ret.h"

static unsigned long n = 50, depth = 20, bad_children;
static pid_t parent;

static void bottom(long tag)
{
	pid_t pid;
	int st;

	if (tag != 10)
		return;
	pid = fork();
	if (pid <= 0)
		return;		/* the child returns through its copy of the frames */
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		printf("ret_fork: child %d ended with status %#x\n", (int)pid, st);
		bad_children++;
	}
}

int main(int argc, char **argv)
{
	int attach = 0, bad;

	setvbuf(stdout, NULL, _IOLBF, 0);
	SELFCHECK_SAVE(ret_work);
	if (argc > 4 || (argc > 1 && parse_count(argv[1], 100000, &n)) ||
	    (argc > 2 && parse_count(argv[2], 1000, &depth)) ||
	    (argc > 3 && !(attach = !strcmp(argv[3], "attach")))) {
		fprintf(stderr, "usage: ret_fork [N [D [attach]]]  (50 20)\n");
		return 2;
	}
	parent = getpid();
	ret_bottom = bottom;
	if (attach) {
		selfcheck_allow_tracers();
		printf("READY\n");
		/* attached is not yet planted: every call of the loop must be seen */
		if (!selfcheck_wait_tracer(1, 10) || !selfcheck_wait_planted(0, 10)) {
			printf("ret_fork: no tracer came\n");
			return 1;
		}
	}
	for (unsigned long i = 0; i < n; i++) {
		long before = atomic_load(&ret_calls);

		ret_call((long)depth, 10);
		if (getpid() != parent) {
			ret_call(2, 11);
			bad = atomic_load(&ret_bad) != 0;
			if (!selfcheck_intact(0, selfcheck_tracer() > 0)) {
				printf("ret_fork: child %d: BYTES-CORRUPT\n", (int)getpid());
				bad = 1;
			}
			if (ret_fd3())
				dprintf(3, "child_calls %ld\n", atomic_load(&ret_calls) - before);
			_exit(bad);
		}
	}
	if (ret_fd3())
		dprintf(3, "calls %ld\n", atomic_load(&ret_calls));
	printf("ret_fork: children %lu, %lu bad\n", n, bad_children);
	if (attach) {
		printf("DONE\n");
		if (!selfcheck_wait_tracer(0, 20))
			printf("ret_fork: the tracer stayed\n");
	}
	bad = atomic_load(&ret_bad) != 0 || bad_children;
	if (!selfcheck_verify())
		bad = 1;
	printf("EXIT-SUCCESS\n");
	return bad;
}
