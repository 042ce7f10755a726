/* samples/scen/riprel_store.c: scenario 4, riprel-store-integrity.  Calls
 * riprel_store(i) (its first instruction: mov %edi, riprel_slot(%rip)) for i =
 * 0 .. ITER-1 (1000000) through riprel_call, which checks every register
 * around the call, and checks after each call that riprel_slot is i, and at
 * the end that the canaries on both sides of it are unchanged.  On fd 3, if
 * open: "calls N".  Exit 0 when every check passed, 1 otherwise. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>

#include "../selfcheck.h"

#define CANARY_WORDS	16

void riprel_store(int x);
void riprel_call(long x, unsigned long out[16]);
extern int riprel_slot;
extern const unsigned int riprel_canary_lo[CANARY_WORDS], riprel_canary_hi[CANARY_WORDS];

static const char *const reg_names[15] = {
	"rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "r8", "r9", "r10", "r11", "r12",
	"r13", "r14", "r15"
};

/* What riprel_call set each register to (rdi: x). */
static const unsigned long reg_want[15] = {
	0x1111111111111111, 0x2222222222222222, 0x3333333333333333, 0x4444444444444444,
	0x5555555555555555, 0, 0x7777777777777777, 0x8888888888888888, 0x9999999999999999,
	0xaaaaaaaaaaaaaaaa, 0xbbbbbbbbbbbbbbbb, 0xcccccccccccccccc, 0xdddddddddddddddd,
	0xeeeeeeeeeeeeeeee, 0xffffffffffffffff
};

/* CF PF AF ZF SF TF OF, and what cmp %rax, %rax leaves in them: PF and ZF */
#define FLAGS_CHECKED	0x9d5UL
#define FLAGS_WANT	0x044UL

static unsigned long bad;

static void wrong(unsigned long i, const char *what, unsigned long got, unsigned long want)
{
	if (bad++ < 20)
		printf("riprel_store: call %lu: %s %#lx, expected %#lx\n", i, what, got, want);
}

int main(int argc, char **argv)
{
	unsigned long iterations = 1000000, out[16];
	char *end;

	SELFCHECK_SAVE(riprel_store);
	SELFCHECK_SAVE(riprel_call);
	if (argc > 1) {
		errno = 0;
		iterations = strtoul(argv[1], &end, 10);
		if (argc > 2 || errno || end == argv[1] || *end || iterations > 1UL << 31) {
			fprintf(stderr, "usage: riprel_store [ITER]  (1000000)\n");
			return 2;
		}
	}
	for (unsigned long i = 0; i < iterations; i++) {
		riprel_call((long)i, out);
		for (int r = 0; r < 15; r++) {
			unsigned long want = r == 5 ? i : reg_want[r];

			if (out[r] != want)
				wrong(i, reg_names[r], out[r], want);
		}
		if ((out[15] & FLAGS_CHECKED) != FLAGS_WANT)
			wrong(i, "flags", out[15] & FLAGS_CHECKED, FLAGS_WANT);
		if (riprel_slot != (int)i)
			wrong(i, "riprel_slot", (unsigned int)riprel_slot, i);
	}
	for (int w = 0; w < CANARY_WORDS; w++) {
		if (riprel_canary_lo[w] != 0xa5a5a5a5)
			wrong(iterations, "riprel_canary_lo word", riprel_canary_lo[w], 0xa5a5a5a5);
		if (riprel_canary_hi[w] != 0x5a5a5a5a)
			wrong(iterations, "riprel_canary_hi word", riprel_canary_hi[w], 0x5a5a5a5a);
	}
	if (fcntl(3, F_GETFD) != -1)
		dprintf(3, "calls %lu\n", iterations);
	if (bad)
		printf("riprel_store: %lu checks failed\n", bad);
	else
		printf("riprel_store: all checks passed\n");
	if (!selfcheck_verify())
		bad++;
	printf("EXIT-SUCCESS\n");
	return bad ? 1 : 0;
}
