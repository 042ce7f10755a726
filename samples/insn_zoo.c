/* samples/insn_zoo.c: calls every zoo_* function of insn_zoo_<arch>.S ITER
 * times from each of THREADS threads and checks every result, so a tracer
 * probing their first instructions can be shown not to change what they do.
 * If fd 3 is open it says there how often each function was called. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

extern const long zoo_answer[2];
extern const uint64_t zoo_vec[2];
extern long zoo_cell;
extern char zoo_call_ret[];

long zoo_push(long x);
long zoo_endbr(long x);
long zoo_sub(long x);
long zoo_movload(void);
long zoo_movstore(long x);
const long *zoo_lea(void);
long zoo_addr8(long a, long b, long c, long d, long e);
long zoo_movdqu(void);
unsigned long zoo_fs(void);
long zoo_xchg(long x);
void *zoo_call(void);
long zoo_jmp(long x);
/* zoo_jcc and zoo_syscall are called from inline asm below */
void zoo_ret(void);

enum zoo {
	Z_PUSH, Z_ENDBR, Z_SUB, Z_MOVLOAD, Z_MOVSTORE, Z_LEA, Z_ADDR8, Z_MOVDQU,
	Z_FS, Z_XCHG, Z_CALL, Z_JMP, Z_JCC, Z_RET, Z_SYSCALL, Z_NR
};

static const char *const zoo_names[Z_NR] = {
	"zoo_push", "zoo_endbr", "zoo_sub", "zoo_movload", "zoo_movstore", "zoo_lea",
	"zoo_addr8", "zoo_movdqu", "zoo_fs", "zoo_xchg", "zoo_call", "zoo_jmp",
	"zoo_jcc", "zoo_ret", "zoo_syscall",
};

static atomic_ulong zoo_calls[Z_NR];
static atomic_ulong zoo_bad;
static unsigned long iterations = 1000;
/* zoo_movstore stores to one shared cell and reads it back: one at a time */
static pthread_mutex_t cell_lock = PTHREAD_MUTEX_INITIALIZER;

static void mismatch(enum zoo z, int thread, unsigned long i, const char *what,
		     unsigned long got, unsigned long want)
{
	atomic_fetch_add(&zoo_bad, 1);
	printf("insn_zoo: thread %d call %lu: %s %s %#lx, expected %#lx\n", thread, i,
	       zoo_names[z], what, got, want);
}

/* One call of Z made, which gave GOT. */
static void check(enum zoo z, int thread, unsigned long i, unsigned long got,
		  unsigned long want)
{
	atomic_fetch_add(&zoo_calls[z], 1);
	if (got != want)
		mismatch(z, thread, i, "returned", got, want);
}

/*
 * Calls from inline asm: step below the red zone first (the call pushes),
 * and use lea, which leaves the flags alone, so the cmp's ZF reaches
 * zoo_jcc's first instruction.  The callees touch only the registers listed.
 */
static long call_zoo_jcc(long x, long a, long b)
{
	long ret;

	asm volatile("lea -128(%%rsp), %%rsp\n\t"
		     "cmp %[b], %[a]\n\t"
		     "call zoo_jcc\n\t"
		     "lea 128(%%rsp), %%rsp"
		     : "=a"(ret), "+D"(x)
		     : [a] "r"(a), [b] "r"(b)
		     : "cc", "memory", "rcx", "rdx", "rsi", "r8", "r9", "r10", "r11");
	return ret;
}

/* zoo_syscall's first instruction is syscall: rax = NR on entry. */
static long call_zoo_syscall(long nr)
{
	long ret = nr;

	asm volatile("lea -128(%%rsp), %%rsp\n\t"
		     "call zoo_syscall\n\t"
		     "lea 128(%%rsp), %%rsp"
		     : "+a"(ret)
		     :
		     : "cc", "memory", "rcx", "r11");
	return ret;
}

static unsigned long read_canary(void)
{
	unsigned long v;

	asm volatile("mov %%fs:0x28, %0" : "=r"(v));
	return v;
}

static void *worker(void *arg)
{
	const int t = (int)(intptr_t)arg;
	const unsigned long canary = read_canary();
	const long tid = syscall(SYS_gettid);

	for (unsigned long i = 0; i < iterations; i++) {
		const long x = (long)i * 3 + t;
		long stored = ((long)t << 32) | (long)i;

		check(Z_PUSH, t, i, zoo_push(x), x * 2 + 1);
		check(Z_ENDBR, t, i, zoo_endbr(x), x + 2);
		check(Z_SUB, t, i, zoo_sub(x), x + 3);
		check(Z_MOVLOAD, t, i, zoo_movload(), 42);
		pthread_mutex_lock(&cell_lock);
		check(Z_MOVSTORE, t, i, zoo_movstore(stored), stored);
		if (zoo_cell != stored)
			mismatch(Z_MOVSTORE, t, i, "left zoo_cell at", zoo_cell, stored);
		pthread_mutex_unlock(&cell_lock);
		check(Z_LEA, t, i, (uintptr_t)zoo_lea(), (uintptr_t)zoo_answer);
		check(Z_ADDR8, t, i, zoo_addr8(-1, -2, -3, -4, x), x + 42);
		check(Z_MOVDQU, t, i, zoo_movdqu(), zoo_vec[0]);
		check(Z_FS, t, i, zoo_fs(), canary);
		check(Z_XCHG, t, i, zoo_xchg(x), x + 5);
		check(Z_CALL, t, i, (uintptr_t)zoo_call(), (uintptr_t)zoo_call_ret);
		check(Z_JMP, t, i, zoo_jmp(x), x + 1);
		/* ZF set on even calls, clear on odd ones: both ways of jne */
		check(Z_JCC, t, i, call_zoo_jcc(x, (long)(i & 1), 0), x + 7);
		zoo_ret();
		check(Z_RET, t, i, 0, 0);	/* it returned: that is the result */
		check(Z_SYSCALL, t, i, call_zoo_syscall(SYS_gettid), tid);
	}
	return NULL;
}

static int parse_count(const char *s, unsigned long min, unsigned long *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || v < min || s[0] == '-')
		return -1;
	*out = v;
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long nthreads = 1, total = 0;
	pthread_t *th;

	if (argc > 3 || (argc > 1 && parse_count(argv[1], 0, &iterations)) ||
	    (argc > 2 && parse_count(argv[2], 1, &nthreads)) || nthreads > 1024) {
		fprintf(stderr, "usage: insn_zoo [ITER] [THREADS]  (defaults 1000 and 1)\n");
		return 2;
	}
	th = calloc(nthreads, sizeof(*th));
	if (!th)
		return 2;
	for (unsigned long t = 0; t < nthreads; t++) {
		int err = pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t);

		if (err) {
			fprintf(stderr, "insn_zoo: pthread_create: %s\n", strerror(err));
			return 2;
		}
	}
	for (unsigned long t = 0; t < nthreads; t++)
		pthread_join(th[t], NULL);
	free(th);

	if (fcntl(3, F_GETFD) != -1) {
		for (int z = 0; z < Z_NR; z++)
			dprintf(3, "%s %lu\n", zoo_names[z], (unsigned long)zoo_calls[z]);
	}
	for (int z = 0; z < Z_NR; z++)
		total += zoo_calls[z];
	if (zoo_bad) {
		printf("insn_zoo: %lu of %lu results wrong\n", (unsigned long)zoo_bad, total);
		return 1;
	}
	printf("insn_zoo: all %lu results correct\n", total);
	return 0;
}
