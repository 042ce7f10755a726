/* samples/scen/ret_jump.c: longjmp out of probed calls, many times.  Two
 * recursive functions: ret_work (samples/scen/ret.h, -O2) and ret_o0 (built
 * -O0: a return probe with DWARF arguments is planted past its prologue and
 * finds the return address through the CFI), each returning
 * tag * 1000 + depth, checked at every level.  MODE:
 *   rec N D    N times ret_work(D, 30) and ret_o0(D, 31, "o0")
 *   jump N D   N times ret_work(D, 32) or ret_o0(D, 33, "o0") in turn, each
 *              longjmp'ing at its bottom back to the loop (nothing returns);
 *              then 10 times each as in rec (tags 34, 35), which must return
 *   loop N D   N times ret_o0_loop(D, &acc) (-O0 too), whose body is one
 *              do-while loop: its first line, where a return probe with
 *              DWARF arguments is planted, is also the loop's head, run D
 *              times in one call; it returns D * (D + 1) / 2
 * In jump mode it prints HALF after N / 2 iterations and END after the loop,
 * each followed by a 300 ms pause (the test reads ptap's memory there).
 * On fd 3, if open: "calls C" (returns of either).  Prints EXIT-SUCCESS;
 * exit 0 when every check passed, 1 otherwise, 2: usage. */
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../selfcheck.h"
#include "scen.h"
#include "ret.h"

static unsigned long n = 1000, depth = 10;
static jmp_buf back;

static void bottom(long tag)
{
	if (tag == 32 || tag == 33)
		longjmp(back, 1);
}

__attribute__((noinline, noclone, optimize("O0")))
long ret_o0(long depth, long tag, const char *name)
{
	long r;

	if (depth == 0) {
		bottom(tag);
		r = tag * 1000;
	} else {
		r = ret_o0(depth - 1, tag, name);
		if (r != tag * 1000 + depth - 1)
			ret_note_bad("ret_o0's callee returned", depth, tag, r,
				     tag * 1000 + depth - 1);
		r++;
	}
	if (name[0] != 'o')
		ret_note_bad("name", depth, tag, name[0], 'o');
	atomic_fetch_add(&ret_calls, 1);
	return r;
}

__attribute__((noinline, noclone, optimize("O0")))
long ret_o0_loop(long n, long *acc)
{
	do {
		*acc += n;
	} while (--n > 0);
	return *acc;
}

static void o0_call(long d, long tag)
{
	long r = ret_o0(d, tag, "o0");

	if (r != tag * 1000 + d)
		ret_note_bad("ret_o0 returned", d, tag, r, tag * 1000 + d);
}

int main(int argc, char **argv)
{
	volatile unsigned long i = 0;
	int jump, bad;

	setvbuf(stdout, NULL, _IOLBF, 0);
	SELFCHECK_SAVE(ret_work);
	SELFCHECK_SAVE(ret_o0);
	if (argc < 2 || argc > 4 ||
	    (strcmp(argv[1], "rec") && strcmp(argv[1], "jump") && strcmp(argv[1], "loop")) ||
	    (argc > 2 && parse_count(argv[2], 100000000, &n)) ||
	    (argc > 3 && parse_count(argv[3], 10000, &depth))) {
		fprintf(stderr, "usage: ret_jump rec|jump|loop [N [D]]  (1000 10)\n");
		return 2;
	}
	jump = !strcmp(argv[1], "jump");
	SELFCHECK_SAVE(ret_o0_loop);
	if (!strcmp(argv[1], "loop")) {
		for (unsigned long k = 0; k < n; k++) {
			long acc = 0, r = ret_o0_loop((long)depth, &acc);

			if (r != (long)(depth * (depth + 1) / 2))
				ret_note_bad("ret_o0_loop returned", (long)depth, 0, r,
					     (long)(depth * (depth + 1) / 2));
			else
				atomic_fetch_add(&ret_calls, 1);
		}
		n = 0;
	}
	ret_bottom = bottom;
	setjmp(back);
	while (i < n) {
		unsigned long k = i++;

		if (jump && k == n / 2) {
			printf("HALF\n");
			usleep(300000);
		}
		if (jump && k % 2 == 0) {
			ret_call((long)depth, 32);
		} else if (jump) {
			o0_call((long)depth, 33);
		} else {
			ret_call((long)depth, 30);
			o0_call((long)depth, 31);
		}
		if (jump) {
			printf("ret_jump: returned in jump mode\n");
			atomic_fetch_add(&ret_bad, 1);
		}
	}
	if (jump) {
		printf("END\n");
		usleep(300000);
		for (int k = 0; k < 10; k++) {
			ret_call((long)depth, 34);
			o0_call((long)depth, 35);
		}
	}
	if (ret_fd3())
		dprintf(3, "calls %ld\n", atomic_load(&ret_calls));
	bad = atomic_load(&ret_bad) != 0;
	printf("ret_jump: %s: calls %ld, %ld wrong\n", argv[1], atomic_load(&ret_calls),
	       atomic_load(&ret_bad));
	if (!selfcheck_verify())
		bad = 1;
	printf("EXIT-SUCCESS\n");
	return bad;
}
