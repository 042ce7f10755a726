/* samples/scen/dlopen_cycle.c: scenario 17, dlopen-cycle: a probed
 * library loaded and unloaded again and again, at changing addresses.
 * usage: dlopen_cycle LIB_A LIB_B FILLER [CYCLES]  (default 200)
 * LIB_A and LIB_B are two copies (two files) of libdlc.so; FILLER is
 * libdlc_fill.so.  Cycle C (0..CYCLES-1) dlopens LIB_A when C is even and
 * LIB_B when odd, calls lib_probe(C * 10 + K) for K = 0..9, checks each
 * result, and dlcloses it.  In cycles where C % 4 is 2 or 3 the filler is
 * loaded first (and closed after), so each copy is seen at two or more
 * addresses.  A tracer probing lib_probe in both files must record exactly
 * CYCLES * 10 calls, with n = 0, 1, 2... in order, LIB_A's for even C / 10.
 * Says on fd 3, if open, "calls N", "addresses_a N" and "addresses_b N"
 * (distinct load addresses of lib_probe seen).  No byte self-check: the
 * probed code lives only while loaded (the harness compares the files).
 * Exits 0 when every load and result was right, 1 if not. */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "../selfcheck.h"

#define MAX_ADDRS 16

/* Note ADDR among the N distinct addresses in SEEN. */
static void seen_add(void *seen[], int *n, void *addr)
{
	for (int i = 0; i < *n; i++)
		if (seen[i] == addr)
			return;
	if (*n < MAX_ADDRS)
		seen[(*n)++] = addr;
}

int main(int argc, char **argv)
{
	long cycles = argc > 4 ? atol(argv[4]) : 200, calls = 0, bad = 0;
	void *seen_a[MAX_ADDRS], *seen_b[MAX_ADDRS];
	int na = 0, nb = 0;

	if (argc < 4 || cycles < 1) {
		fprintf(stderr, "usage: dlopen_cycle LIB_A LIB_B FILLER [CYCLES]\n");
		return 2;
	}
	for (long c = 0; c < cycles; c++) {
		const char *path = c % 2 ? argv[2] : argv[1];
		void *fill = NULL, *h;
		int (*fn)(int);

		if (c % 4 >= 2) {
			fill = dlopen(argv[3], RTLD_NOW);
			if (!fill) {
				fprintf(stderr, "dlopen_cycle: %s\n", dlerror());
				return 1;
			}
		}
		h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
		fn = h ? (int (*)(int))dlsym(h, "lib_probe") : NULL;
		if (!fn) {
			fprintf(stderr, "dlopen_cycle: %s\n", dlerror());
			return 1;
		}
		seen_add(c % 2 ? seen_b : seen_a, c % 2 ? &nb : &na, (void *)fn);
		for (int k = 0; k < 10; k++, calls++)
			if (fn((int)(c * 10 + k)) != (int)(c * 10 + k) * 2 + 1)
				bad++;
		dlclose(h);
		if (fill)
			dlclose(fill);
	}
	if (fcntl(3, F_GETFD) != -1)
		dprintf(3, "calls %ld\naddresses_a %d\naddresses_b %d\n", calls, na, nb);
	printf("dlopen_cycle: %ld calls, %ld wrong results, %d and %d addresses\n", calls, bad,
	       na, nb);
	printf("EXIT-SUCCESS\n");
	return bad ? 1 : 0;
}
