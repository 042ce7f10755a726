/* samples/many_funcs.c: 130 small functions, many_00 .. many_129, each
 * called once in order -- more than a glob may match without --max-probes
 * (128).  When fd 3 is open, the program states there what ptap prints for
 * -e 'many_* x' (text, normalized), one line per call. */
#include <stdio.h>

#include "expect.h"

#define F(a, b)                                                           \
	__attribute__((noinline)) int many_##a##b(int x)                  \
	{                                                                 \
		return x * 1000 + a * 10 + b;                             \
	}
#define F10(a) F(a, 0) F(a, 1) F(a, 2) F(a, 3) F(a, 4) F(a, 5) F(a, 6) F(a, 7) F(a, 8) F(a, 9)
#define P(a, b) { many_##a##b, #a #b },
#define P10(a) P(a, 0) P(a, 1) P(a, 2) P(a, 3) P(a, 4) P(a, 5) P(a, 6) P(a, 7) P(a, 8) P(a, 9)

F10(0) F10(1) F10(2) F10(3) F10(4) F10(5) F10(6) F10(7) F10(8) F10(9) F10(10) F10(11) F10(12)

static const struct {
	int (*fn)(int);
	const char *suffix;
} funcs[] = {
	P10(0) P10(1) P10(2) P10(3) P10(4) P10(5) P10(6) P10(7) P10(8) P10(9) P10(10) P10(11)
	P10(12)
};

int main(void)
{
	FILE *ex = ex_open();
	long sum = 0;

	for (unsigned i = 0; i < sizeof(funcs) / sizeof(funcs[0]); i++) {
		if (ex)
			fprintf(ex, "many_%s: x=%u\n", funcs[i].suffix, i);
		sum += funcs[i].fn((int)i);
	}
	printf("many_funcs: %zu functions, sum %ld\n", sizeof(funcs) / sizeof(funcs[0]), sum);
	if (ex)
		fclose(ex);
	return 0;
}
