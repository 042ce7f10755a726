/* samples/inline.c: functions that exist only as inlined copies.  scale()
 * is always inlined (at -O0 too) into left() and right() and has no
 * out-of-line copy; clamp() is inlined there as well, but its address is
 * taken, so it also has an out-of-line copy, called through a pointer.
 *
 * When fd 3 is open, the program states there what ptap prints (text,
 * normalized) for these probes, one line per hit:
 *
 *   scale value factor		(every inlined instance)
 *   clamp v lo hi		(every inlined instance and the out-of-line copy)
 *
 * With INLINE_EXPECT=no-inlines in the environment it states only the hits
 * that `ptap record --no-inlines` sees: the calls of clamp's out-of-line
 * copy (scale then has no site at all).
 *
 * stdout gets the sum of the results; the exit status is 0.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expect.h"

#define PROBED __attribute__((noinline, noclone))

static FILE *ex;
static bool inlines_too = true;
long noted;

/* Out of line: the inlined callees call it, so their parameters live on
 * past their first instruction, in registers, at -O2 too. */
PROBED void note(int x)
{
	noted += x;
}

static inline __attribute__((always_inline)) int scale(int value, int factor)
{
	note(value);
	return value * factor + 1;
}

static inline __attribute__((always_inline)) int clamp(int v, int lo, int hi)
{
	note(hi - lo);
	return v < lo ? lo : v > hi ? hi : v;
}

/* Called through a volatile pointer: the out-of-line copy of clamp() runs. */
int (*volatile clamp_fp)(int, int, int) = clamp;

PROBED int left(int a)
{
	return scale(a, 3) + clamp(a, 0, 10);
}

PROBED int right(int b)
{
	return clamp(b * 2, -5, 5) - scale(b + 1, b);
}

/* What ptap should print when left(A) and right(B) run. */
static void state_left(int a)
{
	if (ex && inlines_too)
		fprintf(ex, "scale: value=%d factor=3\nclamp: v=%d lo=0 hi=10\n", a, a);
}

static void state_right(int b)
{
	if (ex && inlines_too)
		fprintf(ex, "clamp: v=%d lo=-5 hi=5\nscale: value=%d factor=%d\n", b * 2, b + 1, b);
}

int main(void)
{
	const char *mode = getenv("INLINE_EXPECT");
	long sum = 0;

	ex = ex_open();
	inlines_too = !mode || strcmp(mode, "no-inlines") != 0;
	for (int i = 0; i < 3; i++) {
		state_left(i * 7 - 4);
		sum += left(i * 7 - 4);
		state_right(10 - i * 6);
		sum += right(10 - i * 6);
		if (ex)
			fprintf(ex, "clamp: v=%d lo=%d hi=%d\n", i * 100, i, 150);
		sum += clamp_fp(i * 100, i, 150);
	}
	printf("inline: sum %ld, noted %ld\n", sum, noted);
	if (ex)
		fclose(ex);
	return 0;
}
