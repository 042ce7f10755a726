/* samples/scen/ret_bt.c: code that reads return addresses, inside probed
 * calls.  N times (100), ret_work(D, 20) (samples/scen/ret.h, D 5) calls at
 * its bottom glibc's backtrace() (which unwinds through every ret_work frame
 * and their return addresses) and backtrace_symbols(); and ret_caller(i),
 * which returns __builtin_return_address(0), is checked against the address
 * after its call.  backtrace() sees main, traced or not (return probes
 * leave the stack alone).  Prints, for
 * the first call, "frames F main M" (M: 1 if main was among them) and
 * "caller OK|WRONG" (did ret_caller see its real caller); and "calls C,
 * W wrong" and EXIT-SUCCESS.  On fd 3: "calls C".  Exit 0 when every
 * return was right (whatever the backtrace), 1 otherwise, 2: usage. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <execinfo.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../selfcheck.h"
#include "scen.h"
#include "ret.h"

static unsigned long n = 100, depth = 5;
static int frames = -1, saw_main = -1;

static void bottom(long tag)
{
	void *buf[128];
	int got = backtrace(buf, 128), m = 0;
	char **names = backtrace_symbols(buf, got);

	for (int i = 0; i < got; i++) {
		Dl_info di;

		if (dladdr(buf[i], &di) && di.dli_sname && !strcmp(di.dli_sname, "main"))
			m = 1;
	}
	free(names);
	if (frames < 0) {
		frames = got;
		saw_main = m;
	}
	(void)tag;
}

__attribute__((noinline, noclone)) void *ret_caller(long i)
{
	asm volatile("" : : "r"(i));
	return __builtin_return_address(0);
}

int main(int argc, char **argv)
{
	int bad, caller_ok = 1;

	setvbuf(stdout, NULL, _IOLBF, 0);
	SELFCHECK_SAVE(ret_work);
	if (argc > 3 || (argc > 1 && parse_count(argv[1], 1000000, &n)) ||
	    (argc > 2 && parse_count(argv[2], 1000, &depth))) {
		fprintf(stderr, "usage: ret_bt [N [D]]  (100 5)\n");
		return 2;
	}
	ret_bottom = bottom;
	for (unsigned long i = 0; i < n; i++) {
		void *want, *got;

		ret_call((long)depth, 20);
		got = ret_caller((long)i);
		asm volatile("lea -7(%%rip), %0" : "=r"(want));	/* (roughly) here */
		if ((uintptr_t)got > (uintptr_t)want || (uintptr_t)want - (uintptr_t)got > 64)
			caller_ok = 0;
	}
	printf("frames %d main %d\n", frames, saw_main);
	printf("caller %s\n", caller_ok ? "OK" : "WRONG");
	if (ret_fd3())
		dprintf(3, "calls %ld\n", atomic_load(&ret_calls));
	bad = atomic_load(&ret_bad) != 0;
	printf("ret_bt: calls %ld, %ld wrong\n", atomic_load(&ret_calls), atomic_load(&ret_bad));
	printf("EXIT-SUCCESS\n");
	return bad;
}
