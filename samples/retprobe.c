/* samples/retprobe.c: return probes (FUNC%return, issue 5), one scenario per mode.
 * usage: retprobe MODE [ARG]
 *
 * When fd 3 is open, each mode states there what ptap records for the probes
 * listed with it below, in ptap's normalized text form (tests/integ/lib.sh
 * `normalize`: "EVENT: NAME=VALUE ..."), one line per return in the order the
 * returns happen.  Lines without ": " are facts for the test, not records
 * (sleep, fork).  Arguments other than $retval are the values at the entry.
 * Every mode checks its own results: on success it prints "retprobe: MODE ok"
 * (plus details) on stdout and exits 0; otherwise it says what went wrong and
 * exits 1.
 *
 *   recurse [N]	rec_depth%return $retval n
 *	rec_depth(N) recurses (not a loop: the asm after the call keeps each
 *	frame) down to rec_depth(0) and returns N: N+1 records, innermost first,
 *	retval=n n=n.  N defaults to 10000.
 *   threads		thread_work%return $retval idx k
 *	4 threads (idx 0..3) each call thread_work(idx, k) for k = 0..999,
 *	which returns idx*1000+k.  Stated grouped by idx: 1000 lines per thread,
 *	in that thread's order (threads interleave; compare per tid).
 *   longjmp		jumper%return $retval x; long_mid%return $retval x d;
 *			long_outer%return $retval x; long_all%return $retval n
 *	long_all(6) calls long_outer(x), x = 0..5; long_outer setjmps, then
 *	long_mid(x, x) recurses x levels and calls jumper(x).  Even x: jumper
 *	returns x*10, each long_mid adds 1, long_outer adds 1.  Odd x: jumper
 *	longjmps to long_outer, skipping jumper and x+1 long_mid frames (no
 *	records), and long_outer returns -x.  long_all returns the sum.
 *   siglongjmp		sig_victim%return $retval x; sig_in_handler%return $retval x;
 *			sig_outer%return $retval x; sig_all%return $retval n
 *	sig_all(6) calls sig_outer(x), x = 0..5, which sigsetjmps and calls
 *	sig_victim(x).  Even x: sig_victim returns x*10, sig_outer adds 1.  Odd
 *	x: sig_victim arms a 1 ms timer and spins in its own code; the SIGALRM
 *	handler calls sig_in_handler(x) (returns x*7) and siglongjmps to
 *	sig_outer, skipping sig_victim's frame; sig_outer returns -x.
 *   handler		handler_target%return $retval v
 *	handler_target(1) raises SIGUSR1 after its entry; the handler calls
 *	handler_target(2).  Returns v*100: retval=200 v=2, then retval=100 v=1.
 *	Twice: the handler on the thread's stack, then on a sigaltstack.
 *   structs		the probes in STRUCT_PROBES below (`retprobe probes` prints them)
 *	values returned in registers (ints truncated to their type: the upper
 *	bits of rax are left non-zero on purpose), struct pair/mixed/lmixed/
 *	dpair/fvec/small in rax/rdx/xmm0/xmm1, struct big (40 bytes) through
 *	the hidden pointer, double, float, bool, enum, char * (:string), int *,
 *	and a void function (no $retval).
 *   tail		tail_a%return $retval x; tail_b%return $retval x;
 *			tail_c%return $retval y
 *	A chain: tail_a(x) tail-calls tail_b(x + 1) (at -O2, gcc 12: "jmp
 *	tail_b", no call; at -O0 a call), which tail-calls tail_c((x+1)*3),
 *	which returns its y, for x = 1..3.  At -O2 tail_a and tail_b leave at
 *	their jumps: their records first, their $retval not known yet, then
 *	tail_c's; at -O0 tail_c's record, then tail_b's, then tail_a's.
 *	Then tail_cond(0), which returns -1, and tail_cond(7), a conditional
 *	tail call to tail_c(7) (tail_cond%return $retval x=%di:s32).
 *	tail_switch's switch is a jump table at -O0: tail_switch%return is
 *	refused there.
 *   fork		forker%return $retval x
 *	forker(x) forks; the child returns x*10+1 (its record carries its own
 *	pid), states it, exits 0; the parent waits for it inside forker and
 *	returns x*10 (or -1 when the child did not exit 0).  x = 1, 2.  Facts:
 *	"forker x=X parent=PID child=PID".
 *   sleep [MS]		timed_sleep%return $retval ms
 *	timed_sleep(MS) sleeps MS ms (default 50) and returns MS; fact:
 *	"timed_sleep measured_ns=N sleep_ns=M": the monotonic time around the
 *	call and MS in ns, so sleep_ns <= duration <= measured_ns.
 *   block [THREADS]	blocker%return $retval idx  (and the entry: blocker idx)
 *	for attach tests: THREADS (default 1) threads loop on blocker(idx),
 *	which sleeps 100 ms and returns that thread's call count; each checks
 *	every value.  Prints "READY PID" once all run, "block: thread I calls
 *	N" every 10 calls; on SIGTERM, "block: ok calls=N" (all threads), then
 *	BYTES-OK (samples/selfcheck.h) and exits 0.  Nothing on fd 3.  Killed
 *	by SIGALRM after 120 s if nobody ended it.
 *   noreturn		nr_before%return $retval x; die_now%return code
 *	nr_before(3) returns 30; die_now(5), a noreturn function, exits 5:
 *	ptap warns about it and records nothing for it.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>

#include "expect.h"
#include "selfcheck.h"

/* Probed functions: one out-of-line copy each, called with the standard ABI
 * (no clone, no IPA-changed calling convention, no known return value). */
#define PROBED __attribute__((noinline, noclone, noipa))

static FILE *ex;		/* fd 3, or NULL */
static int failures;

/* A self-check failed: say so on stdout; the mode ends with exit 1. */
#define CHECK(cond, ...)                                        \
	do {                                                    \
		if (!(cond)) {                                  \
			printf("retprobe: FAIL " __VA_ARGS__);  \
			putchar('\n');                          \
			failures++;                             \
		}                                               \
	} while (0)

/* ---- recurse ------------------------------------------------------------ */

PROBED long rec_depth(long n)
{
	long r;

	if (n == 0)
		return 0;
	r = rec_depth(n - 1);
	/* after the call: keeps the frame (no tail recursion turned into a loop) */
	asm volatile("" : "+r"(r) : : "memory");
	return r + 1;
}

static void mode_recurse(long n)
{
	long r = rec_depth(n);

	CHECK(r == n, "rec_depth(%ld) = %ld", n, r);
	for (long i = 0; ex && i <= n; i++)
		fprintf(ex, "rec_depth__return: retval=%ld n=%ld\n", i, i);
	printf("retprobe: recurse %ld\n", r);
}

/* ---- threads ------------------------------------------------------------ */

#define NTHREADS 4
#define NCALLS 1000

static pthread_barrier_t start_line;
static long thread_bad[NTHREADS];

PROBED long thread_work(int idx, int k)
{
	asm volatile("" : : : "memory");
	return idx * 1000L + k;
}

static void *thread_main(void *arg)
{
	int idx = (int)(intptr_t)arg;

	pthread_barrier_wait(&start_line);
	for (int k = 0; k < NCALLS; k++)
		if (thread_work(idx, k) != idx * 1000L + k)
			thread_bad[idx]++;
	return NULL;
}

static void mode_threads(void)
{
	pthread_t th[NTHREADS];

	pthread_barrier_init(&start_line, NULL, NTHREADS);
	for (int i = 0; i < NTHREADS; i++)
		if (pthread_create(&th[i], NULL, thread_main, (void *)(intptr_t)i)) {
			printf("retprobe: pthread_create failed\n");
			exit(1);
		}
	for (int i = 0; i < NTHREADS; i++) {
		pthread_join(th[i], NULL);
		CHECK(thread_bad[i] == 0, "thread %d: %ld wrong results", i, thread_bad[i]);
	}
	for (int i = 0; ex && i < NTHREADS; i++)
		for (int k = 0; k < NCALLS; k++)
			fprintf(ex, "thread_work__return: retval=%ld idx=%d k=%d\n",
				i * 1000L + k, i, k);
	printf("retprobe: threads %d x %d\n", NTHREADS, NCALLS);
}

/* ---- longjmp ------------------------------------------------------------ */

static jmp_buf long_env;

PROBED int jumper(int x)
{
	if (x & 1)
		longjmp(long_env, 1);
	asm volatile("" : : : "memory");
	return x * 10;
}

/* D more levels of itself, then jumper(X); each level adds 1. */
PROBED int long_mid(int x, int d)
{
	int r = d ? long_mid(x, d - 1) : jumper(x);

	asm volatile("" : "+r"(r) : : "memory");
	return r + 1;
}

PROBED int long_outer(int x)
{
	volatile int r;

	if (setjmp(long_env))
		return -x;
	r = long_mid(x, x);
	return r + 1;
}

PROBED long long_all(int n)
{
	long sum = 0;

	for (int x = 0; x < n; x++)
		sum += long_outer(x);
	return sum;
}

static void mode_longjmp(void)
{
	long sum = 0, got;

	for (int x = 0; x < 6; x++) {
		int want = x & 1 ? -x : x * 10 + x + 2;

		sum += want;
		if (!ex)
			continue;
		if (x & 1) {
			fprintf(ex, "long_outer__return: retval=%d x=%d\n", -x, x);
			continue;
		}
		fprintf(ex, "jumper__return: retval=%d x=%d\n", x * 10, x);
		for (int d = 0; d <= x; d++)
			fprintf(ex, "long_mid__return: retval=%d x=%d d=%d\n", x * 10 + d + 1, x, d);
		fprintf(ex, "long_outer__return: retval=%d x=%d\n", want, x);
	}
	if (ex)
		fprintf(ex, "long_all__return: retval=%ld n=6\n", sum);
	got = long_all(6);
	CHECK(got == sum, "long_all(6) = %ld, want %ld", got, sum);
	printf("retprobe: longjmp sum %ld\n", got);
}

/* ---- siglongjmp --------------------------------------------------------- */

static sigjmp_buf sig_env;
static volatile sig_atomic_t sig_x;
static volatile long spins;

PROBED int sig_in_handler(int x)
{
	asm volatile("" : : : "memory");
	return x * 7;
}

static void on_alarm(int sig)
{
	(void)sig;
	if (sig_in_handler(sig_x) != sig_x * 7)
		failures++;
	siglongjmp(sig_env, 1);
}

PROBED int sig_victim(int x)
{
	if (x & 1) {
		struct itimerval one_ms = { .it_value = { 0, 1000 } };

		sig_x = x;
		setitimer(ITIMER_REAL, &one_ms, NULL);
		for (;;)	/* here, in its own code, until the handler jumps away */
			spins++;
	}
	asm volatile("" : : : "memory");
	return x * 10;
}

PROBED int sig_outer(int x)
{
	if (sigsetjmp(sig_env, 1))
		return -x;
	return sig_victim(x) + 1;
}

PROBED long sig_all(int n)
{
	long sum = 0;

	for (int x = 0; x < n; x++)
		sum += sig_outer(x);
	return sum;
}

static void mode_siglongjmp(void)
{
	struct sigaction sa = { .sa_handler = on_alarm };
	long sum = 0, got;
	sigset_t now;

	sigaction(SIGALRM, &sa, NULL);
	for (int x = 0; x < 6; x++) {
		int want = x & 1 ? -x : x * 10 + 1;

		sum += want;
		if (ex && x & 1)
			fprintf(ex, "sig_in_handler__return: retval=%d x=%d\n", x * 7, x);
		else if (ex)
			fprintf(ex, "sig_victim__return: retval=%d x=%d\n", x * 10, x);
		if (ex)
			fprintf(ex, "sig_outer__return: retval=%d x=%d\n", want, x);
	}
	if (ex)
		fprintf(ex, "sig_all__return: retval=%ld n=6\n", sum);
	got = sig_all(6);
	CHECK(got == sum, "sig_all(6) = %ld, want %ld", got, sum);
	sigprocmask(SIG_SETMASK, NULL, &now);
	CHECK(!sigismember(&now, SIGALRM), "SIGALRM still blocked after siglongjmp");
	printf("retprobe: siglongjmp sum %ld\n", got);
}

/* ---- handler ------------------------------------------------------------ */

static volatile int handler_result;

PROBED int handler_target(int v)
{
	if (v == 1)
		raise(SIGUSR1);
	asm volatile("" : : : "memory");
	return v * 100;
}

static void on_usr1(int sig)
{
	(void)sig;
	handler_result = handler_target(2);
}

static void mode_handler(void)
{
	static char alt[1 << 16];
	stack_t ss = { .ss_sp = alt, .ss_size = sizeof(alt) };
	struct sigaction sa = { .sa_handler = on_usr1 };

	for (int round = 0; round < 2; round++) {
		int r;

		if (round == 1) {	/* the second time on an alternate stack */
			sigaltstack(&ss, NULL);
			sa.sa_flags = SA_ONSTACK;
		}
		sigaction(SIGUSR1, &sa, NULL);
		handler_result = 0;
		r = handler_target(1);
		CHECK(r == 100 && handler_result == 200, "round %d: %d, in the handler %d",
		      round, r, handler_result);
		if (ex)
			fputs("handler_target__return: retval=200 v=2\n"
			      "handler_target__return: retval=100 v=1\n", ex);
	}
}

/* ---- structs and other types --------------------------------------------- */

/* What test_retprobe_structs records (-e each), in this order of events. */
static const char *const STRUCT_PROBES[] = {
	"ret_pair%return a $retval b",
	"ret_mixed%return $retval",
	"ret_lmixed%return $retval",
	"ret_dpair%return $retval",
	"ret_fvec%return $retval",
	"ret_small%return $retval",
	"ret_big%return $retval base",
	"ret_double%return $retval x",
	"ret_float%return $retval",
	"ret_bool%return $retval x",
	"ret_enum%return $retval",
	"ret_str%return $retval:string i",
	"ret_ptr%return $retval i",
	"ret_schar%return $retval",
	"ret_short%return $retval",
	"ret_ushort%return $retval",
	"ret_int%return $retval",
	"ret_uint%return u=$retval",
	"ret_long%return $retval",
	"ret_ulong%return $retval",
	"ret_void%return v",
};

struct pair {			/* INTEGER, INTEGER: rax, rdx */
	long a;
	long b;
};

struct mixed {			/* SSE, INTEGER: xmm0, rax */
	double x;
	long y;
};

struct lmixed {			/* INTEGER, SSE: rax, xmm0 */
	long n;
	double d;
};

struct dpair {			/* SSE, SSE: xmm0, xmm1 */
	double a;
	double b;
};

struct fvec {			/* one SSE eightbyte: both in xmm0 */
	float x;
	float y;
};

struct small {			/* one INTEGER eightbyte: all three in rax */
	int a;
	short s;
	unsigned short u;
};

struct big {			/* 40 bytes, MEMORY: the caller's buffer, its address in rax */
	long a, b, c, d, e;
};

enum level { LOW, MID, HIGH };

static int g_ints[4];
static const char *const words[] = { "zero", "one \"quoted\"\n", "" };

PROBED struct pair ret_pair(long a, long b)
{
	return (struct pair){ a, b };
}

PROBED struct mixed ret_mixed(double x, long y)
{
	return (struct mixed){ x, y };
}

PROBED struct lmixed ret_lmixed(long n, double d)
{
	return (struct lmixed){ n, d };
}

PROBED struct dpair ret_dpair(double a, double b)
{
	return (struct dpair){ a, b };
}

PROBED struct fvec ret_fvec(float x, float y)
{
	return (struct fvec){ x, y };
}

PROBED struct small ret_small(int a, int s)
{
	return (struct small){ a, (short)s, (unsigned short)s };
}

PROBED struct big ret_big(long base)
{
	return (struct big){ base, base * 2, base * 3, base * 4, base * 5 };
}

PROBED double ret_double(double x)
{
	return x * 2;
}

PROBED float ret_float(float x)
{
	return x / 2;
}

PROBED bool ret_bool(int x)
{
	return x > 0;
}

PROBED enum level ret_enum(int x)
{
	return (enum level)x;
}

PROBED const char *ret_str(int i)
{
	return words[i];
}

PROBED int *ret_ptr(int i)
{
	return i < 0 ? NULL : &g_ints[i];
}

/* The narrow integers come from a wider register: rax holds more than the
 * value (ret_schar(0x180): eax 0x180, the signed char is -128;
 * ret_int(0x100000005): rax 0x100000005, the int is 5). */
PROBED signed char ret_schar(int x)
{
	return (signed char)x;
}

PROBED short ret_short(int x)
{
	return (short)x;
}

PROBED unsigned short ret_ushort(int x)
{
	return (unsigned short)x;
}

/* The "a" constraint keeps all 64 bits of X in rax: only eax is the value. */
PROBED int ret_int(long x)
{
	asm("" : "+a"(x));
	return (int)x;
}

PROBED unsigned ret_uint(long x)
{
	asm("" : "+a"(x));
	return (unsigned)x;
}

PROBED long ret_long(long x)
{
	return -x;
}

PROBED unsigned long ret_ulong(int x)
{
	return (unsigned long)x;
}

static volatile long void_sink;

PROBED void ret_void(int v)
{
	void_sink += v;
}

static void ex_level(enum level l)
{
	static const char *const names[] = { "LOW", "MID", "HIGH" };

	if ((unsigned)l < 3)
		fputs(names[l], ex);
	else
		fprintf(ex, "%d", (int)l);
}

static void mode_structs(void)
{
	static const long pairs[][2] = { { 1, 2 }, { -3, 1L << 40 } };
	static const struct mixed mixeds[] = { { 1.5, -7 }, { 0.1, 42 } };
	static const double doubles[] = { 0.05, -1.25, 5e29 };
	static const float floats[] = { 0.2f, -5.0f, 3e-30f };
	static const int ints[] = { 5, -5 };
	static const int levels[] = { 0, 2, 7 };
	static const int schars[] = { 0x180, 0x7f };
	static const int shorts[] = { 0x1fffe, 300 };
	static const long longs[] = { 0x100000005L, -7 };
	static const long uints[] = { 4000000000L, 0x1ffffffffL };
	double dsum = 0;
	long sum = 0;

	for (int i = 0; i < 2; i++) {
		struct pair p = ret_pair(pairs[i][0], pairs[i][1]);

		CHECK(p.a == pairs[i][0] && p.b == pairs[i][1], "ret_pair");
		if (ex)
			fprintf(ex, "ret_pair__return: a=%ld retval={a=%ld, b=%ld} b=%ld\n",
				pairs[i][0], p.a, p.b, pairs[i][1]);
	}
	for (int i = 0; i < 2; i++) {
		struct mixed m = ret_mixed(mixeds[i].x, mixeds[i].y);

		CHECK(m.x == mixeds[i].x && m.y == mixeds[i].y, "ret_mixed");
		if (ex) {
			fputs("ret_mixed__return: retval={x=", ex);
			ex_double(ex, m.x);
			fprintf(ex, ", y=%ld}\n", m.y);
		}
	}
	{
		struct lmixed l = ret_lmixed(9, -2.25);
		struct dpair d = ret_dpair(0.5, 1e300);
		struct fvec f = ret_fvec(1.25f, -0.1f);
		struct small s = ret_small(-1, -300);

		CHECK(l.n == 9 && l.d == -2.25, "ret_lmixed");
		CHECK(d.a == 0.5 && d.b == 1e300, "ret_dpair");
		CHECK(f.x == 1.25f && f.y == -0.1f, "ret_fvec");
		CHECK(s.a == -1 && s.s == -300 && s.u == 65236, "ret_small");
		if (ex) {
			fprintf(ex, "ret_lmixed__return: retval={n=%ld, d=", l.n);
			ex_double(ex, l.d);
			fputs("}\nret_dpair__return: retval={a=", ex);
			ex_double(ex, d.a);
			fputs(", b=", ex);
			ex_double(ex, d.b);
			fputs("}\nret_fvec__return: retval={x=", ex);
			ex_float(ex, f.x);
			fputs(", y=", ex);
			ex_float(ex, f.y);
			fprintf(ex, "}\nret_small__return: retval={a=%d, s=%d, u=%u}\n", s.a, s.s, s.u);
		}
	}
	for (long base = 3; base > -20; base -= 14) {
		struct big b = ret_big(base);

		CHECK(b.a == base && b.e == base * 5, "ret_big");
		if (ex)
			fprintf(ex, "ret_big__return: retval={a=%ld, b=%ld, c=%ld, d=%ld, e=%ld}"
				" base=%ld\n", b.a, b.b, b.c, b.d, b.e, base);
	}
	for (int i = 0; i < 3; i++) {
		double r = ret_double(doubles[i]);

		dsum += r;
		if (ex) {
			fputs("ret_double__return: retval=", ex);
			ex_double(ex, r);
			fputs(" x=", ex);
			ex_double(ex, doubles[i]);
			fputc('\n', ex);
		}
	}
	for (int i = 0; i < 3; i++) {
		float r = ret_float(floats[i]);

		dsum += r;
		if (ex) {
			fputs("ret_float__return: retval=", ex);
			ex_float(ex, r);
			fputc('\n', ex);
		}
	}
	for (int i = 0; i < 2; i++) {
		bool b = ret_bool(ints[i]);

		CHECK(b == (ints[i] > 0), "ret_bool");
		if (ex) {
			fputs("ret_bool__return: retval=", ex);
			ex_bool(ex, b);
			fprintf(ex, " x=%d\n", ints[i]);
		}
	}
	for (int i = 0; i < 3; i++) {
		enum level l = ret_enum(levels[i]);

		if (ex) {
			fputs("ret_enum__return: retval=", ex);
			ex_level(l);
			fputc('\n', ex);
		}
	}
	for (int i = 0; i < 3; i++) {
		const char *s = ret_str(i);

		CHECK(s == words[i], "ret_str");
		if (ex) {
			fputs("ret_str__return: retval=", ex);
			ex_str(ex, s);
			fprintf(ex, " i=%d\n", i);
		}
	}
	for (int i = -1; i < 2; i++) {
		int *p = ret_ptr(i);

		if (ex) {
			fputs("ret_ptr__return: retval=", ex);
			ex_ptr(ex, p);
			fprintf(ex, " i=%d\n", i);
		}
	}
	for (int i = 0; i < 2; i++) {
		signed char c = ret_schar(schars[i]);
		short h = ret_short(shorts[i]);
		unsigned short uh = ret_ushort(shorts[i]);

		sum += c + h + uh;
		if (ex)
			fprintf(ex, "ret_schar__return: retval=%d\n", c);
		if (ex)
			fprintf(ex, "ret_short__return: retval=%d\n", h);
		if (ex)
			fprintf(ex, "ret_ushort__return: retval=%u\n", uh);
	}
	for (int i = 0; i < 2; i++) {
		int n = ret_int(longs[i]);
		unsigned u = ret_uint(uints[i]);
		long l = ret_long(longs[i]);
		unsigned long ul = ret_ulong(-i);

		sum += n + u + l + (long)ul;
		if (ex)
			fprintf(ex, "ret_int__return: retval=%d\nret_uint__return: u=%u\n"
				"ret_long__return: retval=%ld\nret_ulong__return: retval=%lu\n",
				n, u, l, ul);
	}
	for (int v = 1; v <= 2; v++) {
		ret_void(v);
		if (ex)
			fprintf(ex, "ret_void__return: v=%d\n", v);
	}
	printf("retprobe: structs %ld %g\n", sum, dsum);
}

/* ---- tail ------------------------------------------------------------------ */

PROBED int tail_c(int y)
{
	asm volatile("" : : : "memory");
	return y;
}

PROBED int tail_b(int x)
{
	return tail_c(x * 3);
}

/* At -O2 (gcc 12.2) this is "add $1,%edi; jmp tail_b": a tail call, checked
 * with objdump -d; tail_b tail-calls tail_c, which returns straight to
 * tail_a's caller. */
PROBED int tail_a(int x)
{
	return tail_b(x + 1);
}

/*
 * A conditional tail call, which gcc does not write and clang does:
 * tail_cond(x) jumps to tail_c(x) when x is not 0, else returns -1.  No
 * DWARF: probed as tail_cond%return $retval x=%di:s32 ($retval is %ax, x64).
 * Its first 7 bytes hold no branch: its entry is a jump site (recorded in
 * the process), its conditional tail call stops the thread.
 */
int tail_cond(int x);
asm(".text\n"
    ".globl tail_cond\n"
    ".type tail_cond, @function\n"
    "tail_cond:\n"
    "\tmov %edi, %eax\n"
    "\tnopl 0(%rax, %rax, 1)\n"
    "\ttest %edi, %edi\n"
    "\tjne tail_c\n"
    "\tmov $-1, %eax\n"
    "\tret\n"
    ".size tail_cond, .-tail_cond\n");

/* A switch gcc 12 compiles at -O0 to a jump table ("jmp *%rax"; at -O2 to a
 * table of the values): there its exits cannot all be known, and a return
 * probe on it is refused. */
PROBED int tail_switch(int x)
{
	switch (x) {
	case 0: return 17;
	case 1: return 4;
	case 2: return 91;
	case 3: return 33;
	case 4: return 8;
	case 5: return 61;
	case 6: return 25;
	case 7: return 70;
	case 8: return 12;
	case 9: return 46;
	default: return -1;
	}
}

static void mode_tail(void)
{
	CHECK(tail_switch(2) == 91, "tail_switch(2) = %d", tail_switch(2));
	for (int x = 0; x <= 7; x += 7) {
		int r = tail_cond(x);

		CHECK(r == (x ? x : -1), "tail_cond(%d) = %d", x, r);
		if (ex && x)
			fprintf(ex, "tail_cond__return: retval=(error: not known: left by a tail "
				"call) x=%d\ntail_c__return: retval=%d y=%d\n", x, r, x);
		else if (ex)
			fprintf(ex, "tail_cond__return: retval=0xffffffff x=0\n");
	}
	for (int x = 1; x <= 3; x++) {
		int r = tail_a(x);

		CHECK(r == (x + 1) * 3, "tail_a(%d) = %d", x, r);
#ifdef __OPTIMIZE__
		if (ex)
			fprintf(ex, "tail_a__return: retval=(error: not known: left by a tail call) "
				"x=%d\ntail_b__return: retval=(error: not known: left by a tail call) "
				"x=%d\ntail_c__return: retval=%d y=%d\n", x, x + 1, r, r);
#else
		if (ex)
			fprintf(ex, "tail_c__return: retval=%d y=%d\ntail_b__return: retval=%d x=%d\n"
				"tail_a__return: retval=%d x=%d\n", r, r, r, x + 1, r, x);
#endif
	}
}

/* ---- fork ----------------------------------------------------------------- */

static pid_t last_child;

PROBED int forker(int x)
{
	int status;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -2;
	if (pid == 0)
		return x * 10 + 1;
	last_child = pid;
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		return -1;
	return x * 10;
}

static void mode_fork(void)
{
	for (int x = 1; x <= 2; x++) {
		int r = forker(x);

		if (r == x * 10 + 1) {	/* the child */
			if (ex)
				fprintf(ex, "forker__return: retval=%d x=%d\n", r, x);
			fflush(NULL);
			_exit(0);
		}
		CHECK(r == x * 10, "forker(%d) = %d (the child failed)", x, r);
		if (ex)
			fprintf(ex, "forker__return: retval=%d x=%d\nforker x=%d parent=%d child=%d\n",
				r, x, x, (int)getpid(), (int)last_child);
	}
}

/* ---- sleep ---------------------------------------------------------------- */

PROBED long timed_sleep(long ms)
{
	struct timespec ts = { ms / 1000, ms % 1000 * 1000000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
	return ms;
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void mode_sleep(long ms)
{
	long long t0, t1;
	long r;

	t0 = now_ns();
	r = timed_sleep(ms);
	t1 = now_ns();
	CHECK(r == ms, "timed_sleep(%ld) = %ld", ms, r);
	CHECK(t1 - t0 >= ms * 1000000LL, "slept %lld ns", t1 - t0);
	if (ex)
		fprintf(ex, "timed_sleep__return: retval=%ld ms=%ld\n"
			"timed_sleep measured_ns=%lld sleep_ns=%lld\n", r, ms, t1 - t0,
			ms * 1000000LL);
	printf("retprobe: sleep %ld ms took %lld ns\n", ms, t1 - t0);
}

/* ---- block ---------------------------------------------------------------- */

#define MAXBLOCK 8

static long block_count[MAXBLOCK];
static volatile int block_stop;
static long block_bad;

/* 100 ms asleep (where an attach or detach finds the thread), then the
 * thread's count. */
PROBED long blocker(int idx)
{
	struct timespec ts = { 0, 100000000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
	return ++block_count[idx];
}

static void *block_main(void *arg)
{
	int idx = (int)(intptr_t)arg;

	for (long mine = 1; !block_stop; mine++) {
		long r = blocker(idx);

		if (r != mine) {
			printf("block: BAD thread %d call %ld returned %ld\n", idx, mine, r);
			__atomic_add_fetch(&block_bad, 1, __ATOMIC_SEQ_CST);
			mine = r;
		}
		if (mine % 10 == 0) {
			printf("block: thread %d calls %ld\n", idx, mine);
			fflush(stdout);
		}
	}
	return NULL;
}

static int mode_block(int n)
{
	pthread_t th[MAXBLOCK];
	sigset_t term;
	long total = 0;
	int sig;

	alarm(120);	/* a safety net: a test that lost track of it */
	selfcheck_allow_tracers();
	SELFCHECK_SAVE(blocker);
	sigemptyset(&term);
	sigaddset(&term, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &term, NULL);	/* inherited: only sigwait takes it */
	for (int i = 0; i < n; i++)
		if (pthread_create(&th[i], NULL, block_main, (void *)(intptr_t)i)) {
			printf("block: pthread_create failed\n");
			return 1;
		}
	printf("READY %d\n", (int)getpid());
	fflush(stdout);
	sigwait(&term, &sig);
	block_stop = 1;
	for (int i = 0; i < n; i++) {
		pthread_join(th[i], NULL);
		total += block_count[i];
	}
	if (block_bad) {
		printf("block: %ld wrong results\n", block_bad);
		return 1;
	}
	printf("block: ok calls=%ld\n", total);
	return selfcheck_verify() ? 0 : 1;
}

/* ---- noreturn ------------------------------------------------------------- */

PROBED int nr_before(int x)
{
	asm volatile("" : : : "memory");
	return x * 10;
}

__attribute__((noreturn)) PROBED void die_now(int code)
{
	printf("retprobe: noreturn exits %d\n", code);
	fflush(NULL);
	exit(code);
}

static void mode_noreturn(void)
{
	int r = nr_before(3);

	CHECK(r == 30, "nr_before(3) = %d", r);
	if (ex) {
		fprintf(ex, "nr_before__return: retval=%d x=3\n", r);
		fflush(ex);
	}
	die_now(failures ? 1 : 5);
}

/* ---- main ----------------------------------------------------------------- */

/* ARG as a count in [1, MAX], or DEF when absent; exits 2 when not one. */
static long count_arg(const char *arg, long def, long max)
{
	char *end;
	long v;

	if (!arg)
		return def;
	v = strtol(arg, &end, 10);
	if (*end || end == arg || v < 0 || v > max) {
		fprintf(stderr, "retprobe: bad count '%s'\n", arg);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	const char *arg = argc > 2 ? argv[2] : NULL;

	ex = ex_open();
	if (!strcmp(mode, "recurse"))
		mode_recurse(count_arg(arg, 10000, 100000));
	else if (!strcmp(mode, "threads"))
		mode_threads();
	else if (!strcmp(mode, "longjmp"))
		mode_longjmp();
	else if (!strcmp(mode, "siglongjmp"))
		mode_siglongjmp();
	else if (!strcmp(mode, "handler"))
		mode_handler();
	else if (!strcmp(mode, "structs"))
		mode_structs();
	else if (!strcmp(mode, "tail"))
		mode_tail();
	else if (!strcmp(mode, "fork"))
		mode_fork();
	else if (!strcmp(mode, "sleep"))
		mode_sleep(count_arg(arg, 50, 60000));
	else if (!strcmp(mode, "block"))
		return mode_block((int)count_arg(arg, 1, MAXBLOCK));
	else if (!strcmp(mode, "noreturn"))
		mode_noreturn();
	else if (!strcmp(mode, "probes")) {	/* the structs probes, one per line */
		for (size_t i = 0; i < sizeof(STRUCT_PROBES) / sizeof(*STRUCT_PROBES); i++)
			puts(STRUCT_PROBES[i]);
		return 0;
	} else {
		fprintf(stderr, "usage: retprobe recurse [N] | threads | longjmp | siglongjmp | "
			"handler | structs | tail | fork | sleep [MS] | block [THREADS] | "
			"noreturn | probes\n");
		return 2;
	}
	if (ex)
		fclose(ex);
	if (failures)
		return 1;
	printf("retprobe: %s ok\n", mode);
	return 0;
}
