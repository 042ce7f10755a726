/* samples/scen/inproc_storm.c: hostile conditions for probes recorded inside
 * the process (issue 20), each ending with the target's own verdict.
 * usage: inproc_storm MODE N
 * probe_me(i, s) is the probed function ('probe_me i s:string'); it does not
 * read S.  Each mode says on fd 3, if open, "calls C" (the calls of
 * probe_me that ran its body, in this process) and "jumps J" (the handlers
 * that left by siglongjmp: each may have cut one call short at its entry),
 * and "STORM-OK" on stdout when it finished correctly (exit 0), else
 * "STORM-BAD" (exit 1).
 *   remap N    the main thread calls probe_me(i, p) N times, P pointing into
 *              a page another thread unmaps and maps again (and writes
 *              "remap" there) in a tight loop: a record holds "remap" or an
 *              error, and the process never faults;
 *   remap-handled N  remap N/2 times, then with handlers of SIGSEGV and
 *              SIGBUS installed (they say HANDLER-RAN and end the process,
 *              exit 1) N/2 more: the agent's faults are never the
 *              program's to see;
 *   handler-blocked N  after 0.3 s, installs a SIGSEGV handler, blocks
 *              SIGSEGV and at once calls probe_me(i, p) N times, P at a page
 *              unmapped; then unblocks it and raises it: the handler must
 *              run (an agent read that faulted while it was blocked would
 *              have had the kernel reset it, and the signal would kill);
 *   sigbus N   probe_me(i, p) N times, P by turns at "sigbus"
 *              in a file mapping and one page further, past the file's end
 *              (a read there is a SIGBUS): every other record an error;
 *   signals N  4 threads call probe_me(i, "thread") and ret_me(x) N times
 *              each while a fifth sends them SIGUSR1 without pause; the
 *              handler calls probe_me(-1, "handler") and ret_me(x), and
 *              every 8th handler siglongjmps back to the thread's loop, out
 *              of whatever it interrupted (the loop goes on from the same
 *              i); each call of ret_me in a thread has an x of its own (the
 *              loop's 0, 1, ..., the handlers' -1, -2, ...); says "rets R"
 *              too, the calls of ret_me seen to return;
 *   threads N  N threads created one after another, 4 alive at a time, each
 *              calling probe_me(i, "t") 10 times;
 *   handoff N  4 threads take turns: the one whose turn it is calls
 *              probe_me(turn, "handoff") and hands the turn on, N turns in
 *              all: each call made after the one before it, in another
 *              thread (whose records a tracer may keep apart);
 *   forks N    4 threads fork N times each; every child calls
 *              probe_me(i, "child") once and exits; the parents wait;
 *   count N    probe_me(i, "count") N times, then says on fd 3 "switches S":
 *              the context switches the thread made meanwhile (a tracer's
 *              stop is one, a probe run in the process none);
 *   sandbox N  forbids itself memfd_create(2) (a seccomp filter: EPERM),
 *              then runs "count N" under it (exec);
 *   alone N    4 threads call probe_me(i, "many") N times each, all at
 *              once; once they are done, the main thread calls
 *              probe_me(i, "alone") once a millisecond for 0.4 s (a process
 *              that wrote several rings, then one);
 *   exits N    two_exits(i) for i = 0 .. N-1 (inproc_storm_x86_64.S: 3i
 *              through an exit with no padding after its ret when i is
 *              odd, -i through the other), each result checked; then the
 *              same in a fork child. */
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../selfcheck.h"

static atomic_long calls, jumps;
static atomic_int stop;
static int bad;
/*
 * A thread's calls: one instruction (addq $1, %fs:...) that a signal cannot
 * cut in two, and that a tracer can move out of the way of a jump (a lock
 * prefix could not be: the probe would stay a trap).
 */
static __thread long tcalls;

__attribute__((noinline, noclone)) long probe_me(long i, const char *s)
{
	tcalls++;
	asm volatile("" : : "r"(i), "r"(s) : "memory");
	return i;
}

/*
 * ret_me(x) returns x + 1 ('ret_me%return $retval:s64 x=%di:s64'): its first
 * bytes, and those before its ret, hold no branch, so that its entry and
 * its exit are both recorded in the process.  No DWARF (asm).
 */
long ret_me(long x);
asm(".text\n"
    ".globl ret_me\n"
    ".type ret_me, @function\n"
    "ret_me:\n"
    "\tmov %rdi, %rax\n"
    "\tnopl 0(%rax, %rax, 1)\n"
    "\tadd $1, %rax\n"
    "\tnopl 0(%rax, %rax, 1)\n"
    "\tret\n"
    ".size ret_me, .-ret_me\n");
static atomic_long rets;
static __thread long trets;	/* a thread's calls of ret_me that returned */
/* a thread's calls of ret_me, each with an x of its own: the loop's 0, 1, ..., handlers' -1, -2, ... */
static __thread volatile long next_x, next_hx;

/* A thread's calls into the process's count, at its end. */
static void count_calls(void)
{
	atomic_fetch_add(&calls, tcalls);
	atomic_fetch_add(&rets, trets);
	tcalls = trets = 0;
}

/* FN(ARG) on 4 threads at once, until all 4 are done. */
static void four_threads(void *(*fn)(void *), void *arg)
{
	pthread_t t[4];

	for (int k = 0; k < 4; k++)
		if (pthread_create(&t[k], NULL, fn, arg))
			exit(2);
	for (int k = 0; k < 4; k++)
		pthread_join(t[k], NULL);
}

/* ---- remap ---------------------------------------------------------------- */

static char *page;
static long pagesz;

static void *remapper(void *arg)
{
	while (!atomic_load(&stop)) {
		if (munmap(page, pagesz))
			bad = 1;
		if (mmap(page, pagesz, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0) != page)
			bad = 1;
		strcpy(page, "remap");
	}
	return arg;
}

static void remap(long n)
{
	pthread_t t;

	pagesz = sysconf(_SC_PAGESIZE);
	page = mmap(NULL, pagesz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED)
		exit(2);
	strcpy(page, "remap");
	if (pthread_create(&t, NULL, remapper, NULL))
		exit(2);
	for (long i = 0; i < n; i++)
		probe_me(i, page);
	atomic_store(&stop, 1);
	pthread_join(t, NULL);
}

static void handler_ran(int sig)
{
	static const char msg[] = "HANDLER-RAN\n";

	(void)sig;
	if (write(1, msg, sizeof(msg) - 1) < 0)
		_exit(1);
	_exit(1);
}

static void remap_handled(long n)
{
	struct sigaction sa = { .sa_handler = handler_ran };

	remap(n / 2);
	if (sigaction(SIGSEGV, &sa, NULL) || sigaction(SIGBUS, &sa, NULL))
		exit(2);
	atomic_store(&stop, 0);
	remap(n - n / 2);
}

static volatile sig_atomic_t segv_handled;

static void segv_handler(int sig)
{
	(void)sig;
	segv_handled = 1;
}

static void handler_blocked(long n)
{
	struct sigaction sa = { .sa_handler = segv_handler };
	long psz = sysconf(_SC_PAGESIZE);
	char *gone = mmap(NULL, psz, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	sigset_t segv;

	if (gone == MAP_FAILED || munmap(gone, psz))
		exit(2);
	sigemptyset(&segv);
	sigaddset(&segv, SIGSEGV);
	/* longer than a tracer that only looked at its handlers now and then would wait */
	usleep(300000);
	if (sigaction(SIGSEGV, &sa, NULL) || pthread_sigmask(SIG_BLOCK, &segv, NULL))
		exit(2);
	for (long i = 0; i < n; i++)
		probe_me(i, gone);
	if (pthread_sigmask(SIG_UNBLOCK, &segv, NULL))
		exit(2);
	raise(SIGSEGV);		/* kills, unless the handler is still there */
	if (!segv_handled)
		bad = 1;
}

/* ---- exits ----------------------------------------------------------------- */

long two_exits(long i);

static int exits_run(long n)
{
	int wrong = 0;

	for (long i = 0; i < n; i++)
		if (two_exits(i) != (i & 1 ? 3 * i : -i))
			wrong = 1;
	return wrong;
}

static void exits(long n)
{
	pid_t pid;
	int st;

	if (exits_run(n))
		bad = 1;
	pid = fork();
	if (pid == 0)
		_exit(exits_run(n));
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		bad = 1;
}

/* ---- sigbus ---------------------------------------------------------------- */

static void sigbus(long n)
{
	long psz = sysconf(_SC_PAGESIZE);
	FILE *f = tmpfile();
	char *map;

	if (!f || fputs("sigbus", f) < 0 || fflush(f) ||
	    (map = mmap(NULL, 2 * psz, PROT_READ, MAP_SHARED, fileno(f), 0)) == MAP_FAILED)
		exit(2);
	for (long i = 0; i < n; i++)
		probe_me(i, map + (i % 2) * psz);
	munmap(map, 2 * psz);
	fclose(f);
}

/* ---- signals -------------------------------------------------------------- */

#define SIG_THREADS	4

static __thread sigjmp_buf *back;
static __thread long handled;
static pid_t tids[SIG_THREADS];

static void on_usr1(int sig)
{
	(void)sig;
	long x = -++next_hx;

	probe_me(-1, "handler");
	if (ret_me(x) != x + 1)
		bad = 1;
	trets++;
	if (back && ++handled % 8 == 0) {
		atomic_fetch_add(&jumps, 1);
		siglongjmp(*back, 1);
	}
}

static void *sig_worker(void *arg)
{
	long n = (long)arg;
	sigjmp_buf here;
	volatile long i = 0;

	/*
	 * The mask is set again here, once the stack is unwound, not by
	 * siglongjmp: that unblocks SIGUSR1 before it jumps, and the next
	 * one, always pending in this storm, would run its handler on top of
	 * the one jumping -- stacked without end once the handlers are slow
	 * (traced), until the thread's stack overflows
	 */
	if (sigsetjmp(here, 0)) {
		sigset_t usr1;

		sigemptyset(&usr1);
		sigaddset(&usr1, SIGUSR1);
		pthread_sigmask(SIG_UNBLOCK, &usr1, NULL);
	}
	back = &here;
	for (; i < n; i++) {
		long x = next_x++;

		probe_me(i, "thread");
		if (ret_me(x) != x + 1)
			bad = 1;
		trets++;
	}
	back = NULL;
	{	/* no handler after the count */
		sigset_t usr1;

		sigemptyset(&usr1);
		sigaddset(&usr1, SIGUSR1);
		pthread_sigmask(SIG_BLOCK, &usr1, NULL);
	}
	count_calls();
	return NULL;
}

struct worker {
	pthread_t t;
	long n;
	int k;
};

static void *sig_start(void *arg)
{
	struct worker *w = arg;

	tids[w->k] = (pid_t)syscall(SYS_gettid);
	return sig_worker((void *)w->n);
}

static void signals(long n)
{
	struct sigaction sa = { .sa_handler = on_usr1 };
	struct worker w[SIG_THREADS];
	int alive;

	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	for (int k = 0; k < SIG_THREADS; k++) {
		w[k] = (struct worker){ .n = n, .k = k };
		if (pthread_create(&w[k].t, NULL, sig_start, &w[k]))
			exit(2);
	}
	do {
		alive = 0;
		for (int k = 0; k < SIG_THREADS; k++)
			if (tids[k] && syscall(SYS_tgkill, getpid(), tids[k], SIGUSR1) == 0)
				alive++;
	} while (alive || !tids[0]);
	for (int k = 0; k < SIG_THREADS; k++)
		pthread_join(w[k].t, NULL);
}

/* ---- handoff --------------------------------------------------------------- */

#define HANDOFF_THREADS	4

static pthread_mutex_t turn_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t turn_moved = PTHREAD_COND_INITIALIZER;
static long turn, turns;

static void *handoff_worker(void *arg)
{
	long k = (long)arg;

	pthread_mutex_lock(&turn_lock);
	for (;;) {
		while (turn < turns && turn % HANDOFF_THREADS != k)
			pthread_cond_wait(&turn_moved, &turn_lock);
		if (turn >= turns)
			break;
		probe_me(turn, "handoff");
		turn++;
		pthread_cond_broadcast(&turn_moved);
	}
	pthread_mutex_unlock(&turn_lock);
	count_calls();
	return NULL;
}

static void handoff(long n)
{
	pthread_t t[HANDOFF_THREADS];

	turns = n;
	for (long k = 0; k < HANDOFF_THREADS; k++)
		if (pthread_create(&t[k], NULL, handoff_worker, (void *)k))
			exit(2);
	for (int k = 0; k < HANDOFF_THREADS; k++)
		pthread_join(t[k], NULL);
	if (turn != n)
		bad = 1;
}

/* ---- threads -------------------------------------------------------------- */

static void *short_life(void *arg)
{
	for (long i = 0; i < 10; i++)
		probe_me(i, "t");
	count_calls();
	return arg;
}

static void threads(long n)
{
	for (long i = 0; i < n; i += 4)
		four_threads(short_life, NULL);
}

/* ---- forks ---------------------------------------------------------------- */

static void *forker(void *arg)
{
	long n = (long)arg;

	for (long i = 0; i < n; i++) {
		int st;
		pid_t pid = fork();

		if (pid == 0) {
			probe_me(i, "child");
			_exit(0);
		}
		if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
			bad = 1;
	}
	return NULL;
}

static void forks(long n)
{
	four_threads(forker, (void *)n);
}

/* ---- alone --------------------------------------------------------------- */

static void *many(void *arg)
{
	long n = (long)arg;

	for (long i = 0; i < n; i++)
		probe_me(i, "many");
	count_calls();
	return NULL;
}

static void alone(long n)
{
	four_threads(many, (void *)n);
	for (long i = 0; i < 400; i++) {
		probe_me(i, "alone");
		nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
	}
}

/* ---- count, sandbox ------------------------------------------------------- */

/* The calling thread's context switches so far (voluntary and not). */
static long switches(void)
{
	FILE *f = fopen("/proc/thread-self/status", "r");
	char line[256];
	long n = 0, v;

	if (!f)
		exit(2);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "voluntary_ctxt_switches: %ld", &v) == 1 ||
		    sscanf(line, "nonvoluntary_ctxt_switches: %ld", &v) == 1)
			n += v;
	fclose(f);
	return n;
}

static void count(long n)
{
	long s0 = switches();

	for (long i = 0; i < n; i++)
		probe_me(i, "count");
	dprintf(3, "switches %ld\n", switches() - s0);
}

static void sandbox(const char *self, const char *n)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_memfd_create, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = sizeof(f) / sizeof(f[0]), .filter = f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog)) {
		perror("inproc_storm: seccomp");
		exit(2);
	}
	execl(self, self, "count", n, (char *)NULL);
	perror("inproc_storm: exec");
	exit(2);
}

int main(int argc, char **argv)
{
	long n = argc > 2 ? atol(argv[2]) : 1000;
	const char *mode = argc > 1 ? argv[1] : "";

	SELFCHECK_SAVE(probe_me);
	if (!strcmp(mode, "remap"))
		remap(n);
	else if (!strcmp(mode, "remap-handled"))
		remap_handled(n);
	else if (!strcmp(mode, "handler-blocked"))
		handler_blocked(n);
	else if (!strcmp(mode, "sigbus"))
		sigbus(n);
	else if (!strcmp(mode, "signals"))
		signals(n);
	else if (!strcmp(mode, "threads"))
		threads(n);
	else if (!strcmp(mode, "handoff"))
		handoff(n);
	else if (!strcmp(mode, "forks"))
		forks(n);
	else if (!strcmp(mode, "count"))
		count(n);
	else if (!strcmp(mode, "exits"))
		exits(n);
	else if (!strcmp(mode, "alone"))
		alone(n);
	else if (!strcmp(mode, "sandbox") && argc > 2)
		sandbox(argv[0], argv[2]);
	else
		return fprintf(stderr, "usage: inproc_storm remap|remap-handled|handler-blocked|sigbus|signals|threads|handoff|forks|count|exits|alone|sandbox N\n"), 2;
	count_calls();
	dprintf(3, "calls %ld\njumps %ld\nrets %ld\n", atomic_load(&calls), atomic_load(&jumps),
		atomic_load(&rets));
	if (!selfcheck_verify())
		bad = 1;
	printf(bad ? "STORM-BAD\n" : "STORM-OK\n");
	return bad;
}
