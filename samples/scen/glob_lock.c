/* samples/scen/glob_lock.c: a glob whose sites include one that cannot be
 * probed (issue 17 item 5), in a library loaded after the start.
 * usage: glob_lock LIB [N [attach]]  (default 100)
 * With "attach", prints "READY" and waits (up to 10 s) for a tracer to plant
 * glob_lock_ready (the tracer must probe it) first.
 * dlopens LIB (libglob_lock.so) and calls, for x = 0 .. N-1, gl_lock(x),
 * gl_add(x, 1000), gl_sub(x, 7) and gl_twice(x), checking every result and
 * that gl_lock ran N times.  LIB "-" loads nothing (the library is never
 * mapped).  Says on fd 3, if open, one line per call of the three plain
 * functions, as ptap records 'gl_* x=%di:s64' after normalize(): "gl_add:
 * x=X".  Exits 0 when every result was right, 1 if not, 2 on bad usage. */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../selfcheck.h"
#include "scen.h"

/* Never called: attached, the tracer probes it, and the calls start once it is planted. */
__attribute__((noinline, used)) void glob_lock_ready(void)
{
	__asm__ volatile("");
}

int main(int argc, char **argv)
{
	long (*lock)(long), (*add)(long, long), (*sub)(long, long), (*twice)(long);
	int (*count)(void);
	unsigned long n = 100, bad = 0;
	int stated = fcntl(3, F_GETFD) != -1;
	void *h;

	if (argc < 2 || argc > 4 || (argc > 2 && parse_count(argv[2], 1UL << 24, &n)) ||
	    (argc > 3 && strcmp(argv[3], "attach"))) {
		fprintf(stderr, "usage: glob_lock LIB [N [attach]]\n");
		return 2;
	}
	if (argc > 3) {
		printf("READY\n");
		fflush(stdout);
		SELFCHECK_SAVE(glob_lock_ready);
		if (!selfcheck_wait_tracer(1, 10) || !selfcheck_wait_planted(0, 10)) {
			fprintf(stderr, "glob_lock: no tracer came\n");
			return 1;
		}
	}
	if (!strcmp(argv[1], "-")) {
		printf("glob_lock: nothing loaded\nBYTES-OK\nEXIT-SUCCESS\n");
		return 0;
	}
	h = dlopen(argv[1], RTLD_NOW);
	lock = h ? (long (*)(long))dlsym(h, "gl_lock") : NULL;
	add = h ? (long (*)(long, long))dlsym(h, "gl_add") : NULL;
	sub = h ? (long (*)(long, long))dlsym(h, "gl_sub") : NULL;
	twice = h ? (long (*)(long))dlsym(h, "gl_twice") : NULL;
	count = h ? (int (*)(void))dlsym(h, "locks_run") : NULL;
	if (!lock || !add || !sub || !twice || !count) {
		fprintf(stderr, "glob_lock: %s\n", dlerror());
		return 1;
	}
	SELFCHECK_SAVE(lock);
	SELFCHECK_SAVE(add);
	SELFCHECK_SAVE(sub);
	SELFCHECK_SAVE(twice);
	for (unsigned long i = 0; i < n; i++) {
		long x = (long)i;

		bad += lock(x) != x + 1;
		bad += add(x, 1000) != x + 1000;
		bad += sub(x, 7) != x - 7;
		bad += twice(x) != 2 * x;
		if (stated)
			dprintf(3, "gl_add: x=%ld\ngl_sub: x=%ld\ngl_twice: x=%ld\n", x, x, x);
	}
	if ((unsigned long)count() != n) {
		printf("glob_lock: gl_lock ran %d times, not %lu\n", count(), n);
		bad++;
	}
	printf("glob_lock: %lu calls of each, %lu wrong results\n", n, bad);
	if (!selfcheck_verify())
		bad++;
	printf("EXIT-SUCCESS\n");
	return bad ? 1 : 0;
}
