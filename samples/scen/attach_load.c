/* samples/scen/attach_load.c: a target for attaching and detaching while it
 * works (scenarios 6, 14, 20, 21 and 22 of tests/integ/t_attach.sh).
 *
 *   attach_load spawn SECONDS   threads born and dying all the time, each
 *                               calling probe_me(SEQ, "spawn") a few times
 *   attach_load busyspawn SECONDS  the main thread alone, computing, making
 *                               no system call (attached then, ptap knows no
 *                               syscall instruction of the process); after
 *                               SECONDS / 2, 3 threads spawning as with spawn
 *   attach_load hammer SECONDS  8 threads calling probe_me(SEQ, "hammer")
 *                               as fast as they can, and a 9th forking a child
 *                               every 10 ms that calls probe_me(-1, "child")
 *                               10 times and exits with 0 (BYTES-OK checked)
 *   attach_load block SECONDS   the main thread blocked in read() of stdin,
 *                               a second in nanosleep(SECONDS); both must come
 *                               back without EINTR (say "READ x" and
 *                               "SLEPT n.n" with the time slept)
 *   attach_load fork SECONDS    a server: every 50 ms forks a child that calls
 *                               probe_me(CHILD_PID, "child") 5 times and exits
 *   attach_load sighold SECONDS [MS]  one thread calling probe_me(SEQ, "sighold")
 *                               as fast as it can, a second sending it SIGUSR1
 *                               every 20 us; the handler looks where it
 *                               interrupted the thread: the first time that is
 *                               code in no mapping the process had at the start
 *                               (a tracer's trampoline or agent), it says HELD
 *                               and waits there for a SIGUSR2 (or MS
 *                               milliseconds), then returns into that code
 *                               (and no more SIGUSR1 comes); the process ends
 *                               at the SIGUSR2, or after SECONDS
 *   attach_load sighold-alt SECONDS [MS]  as sighold, but the handler raises
 *                               SIGURG, whose handler, on an alternate stack,
 *                               says HELD and waits
 *   attach_load sighold SECONDS MS tick|late|zombie|exec|vfork|newalt  as
 *                               sighold, and: the waiting handler calls
 *                               held_tick(3) at each turn (tick;
 *                               attach_load_x86_64.S: only an int3 fits it;
 *                               says TICK-WRONG when it is not 0x33); or the
 *                               two threads start only once a tracer is there
 *                               (their stacks mapped after the attach); or as
 *                               late, and the main thread then exits (zombie:
 *                               /proc/PID/maps is empty, another thread ends
 *                               the process); or the handler execs "echo
 *                               EXECED" after 0.2 s (exec); or the handler
 *                               first vforks (vfork: clone(CLONE_VM |
 *                               CLONE_VFORK) on a stack of its own), the child
 *                               says HELD and sleeps 1.5 s; or after 0.3 s the
 *                               handler maps an alternate stack and raises
 *                               SIGURG, whose handler computes on it a while
 *                               (newalt)
 *   attach_load dlopen N LIB    waits for a tracer to plant probe_me (the tracer
 *                               must probe it), then N times: dlopen LIB,
 *                               call its plugin_handle("req-I", I) for I = 0..2,
 *                               dlclose; says "CYCLES n" and waits for the
 *                               tracer to go
 *
 * SEQ counts calls from 1 over the whole process.  It prints "READY" when it
 * runs, then at the end "CALLS n" (calls made), BYTES-OK or BYTES-CORRUPT
 * (TRACED-AT-END instead when a tracer is still there),
 * "DIED n" (children killed by a signal) and EXIT-SUCCESS, and exits 0. */
#define _GNU_SOURCE	/* REG_RIP */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "samples/selfcheck.h"

static atomic_long seq;
static atomic_long children_died;
static atomic_int stop;
static long sink;

__attribute__((noinline)) long probe_me(long a, const char *s)
{
	__asm__ volatile("" : : "r"(s) : "memory");
	sink += a;
	return a + 1;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *short_lived(void *arg)
{
	(void)arg;
	for (int i = 0; i < 5; i++)
		probe_me(atomic_fetch_add(&seq, 1) + 1, "spawn");
	return NULL;
}

static void *spawner(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop)) {
		pthread_t t[4];
		int n = 0;

		for (int i = 0; i < 4; i++)
			n += pthread_create(&t[n], NULL, short_lived, NULL) == 0;
		for (int i = 0; i < n; i++)
			pthread_join(t[i], NULL);
	}
	return NULL;
}

static void *hammer(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop))
		probe_me(atomic_fetch_add(&seq, 1) + 1, "hammer");
	return NULL;
}

/* Reap children (FLAGS: WNOHANG, or 0 to wait for all), counting those that died. */
static void reap(int flags)
{
	pid_t pid;
	int st;

	while ((pid = waitpid(-1, &st, flags)) > 0 || (pid < 0 && errno == EINTR)) {
		if (pid < 0)
			continue;
		if (WIFSIGNALED(st) || (WIFEXITED(st) && WEXITSTATUS(st) != 0)) {
			atomic_fetch_add(&children_died, 1);
			printf("child %d: %s %d\n", pid, WIFSIGNALED(st) ? "signal" : "exit",
			       WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
		}
	}
}

/* Fork a child every PERIOD_MS that calls probe_me N times with ARG (-1: its pid). */
static void fork_loop(int period_ms, int n, long arg)
{
	struct timespec p = { 0, period_ms * 1000000L };

	while (!atomic_load(&stop)) {
		pid_t pid;

		fflush(stdout);
		pid = fork();
		if (pid == 0) {
			long a = arg == -1 ? (long)getpid() : arg;

			for (int i = 0; i < n; i++)
				probe_me(a, "child");
			/* the tracer may be detaching from us: wait it out, a while */
			if (!selfcheck_wait_tracer(0, 3))
				_exit(0);	/* traced to the end: nothing to compare */
			_exit(selfcheck_verify() ? 0 : 4);
		}
		reap(WNOHANG);
		nanosleep(&p, NULL);
	}
	reap(0);
}

static void *forker(void *arg)
{
	(void)arg;
	fork_loop(10, 10, -2);
	return NULL;
}

static void *server(void *arg)
{
	(void)arg;
	fork_loop(50, 5, -1);
	return NULL;
}

static void *sleeper(void *arg)
{
	double secs = *(double *)arg, t0 = now_s();
	struct timespec ts = { (time_t)secs, (long)((secs - (time_t)secs) * 1e9) };
	int r = nanosleep(&ts, NULL);

	printf("SLEPT %.1f%s\n", now_s() - t0, r ? " EINTR" : "");
	return NULL;
}

static void *prober(void *arg)
{
	struct timespec ms = { 0, 1000000 };

	(void)arg;
	while (!atomic_load(&stop)) {
		probe_me(atomic_fetch_add(&seq, 1) + 1, "block");
		nanosleep(&ms, NULL);
	}
	return NULL;
}

/* sighold: the executable mappings at the start, and the handler's state */
static struct { unsigned long lo, hi; } code0[64];
static int ncode0;
static volatile sig_atomic_t held, released;
static long hold_ms;
static int hold_alt;
static const char *hold_what = "";	/* tick, late, exec */

long held_tick(long n);
static pthread_t holder;

static void note_code(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512], perm[8];

	while (f && ncode0 < 64 && fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx-%lx %7s", &code0[ncode0].lo, &code0[ncode0].hi, perm) == 3 &&
		    perm[2] == 'x')
			ncode0++;
	if (f)
		fclose(f);
}

static void on_usr2(int sig)
{
	(void)sig;
	released = 1;
}

/* sighold vfork: the child says HELD, then sleeps 1.5 s, its parent (the handler) waiting */
static int vfork_child(void *arg)
{
	static const char msg[] = "HELD\n";

	(void)arg;
	if (write(1, msg, sizeof(msg) - 1) < 0)
		_exit(1);
	nanosleep(&(struct timespec){ 1, 500000000 }, NULL);
	_exit(0);
}

/* Say HELD, then wait for a SIGUSR2 (or hold_ms) */
static void hold(void)
{
	static const char msg[] = "HELD\n", back[] = "VFORK-BACK\n", newalt[] = "NEWALT\n";
	static char vstack[65536] __attribute__((aligned(16)));
	struct timespec ms = { 0, 1000000 };
	bool alt_done = false;
	double start;

	if (!strcmp(hold_what, "vfork")) {	/* as posix_spawn does: a stack of its own */
		if (clone(vfork_child, vstack + sizeof(vstack), CLONE_VM | CLONE_VFORK | SIGCHLD,
			  NULL) < 0 || write(1, back, sizeof(back) - 1) < 0)
			return;
	} else if (write(1, msg, sizeof(msg) - 1) < 0) {
		return;
	}
	start = now_s();

	/* on_usr2 runs in any thread */
	for (double end = start + hold_ms / 1e3; !released && !(hold_ms && now_s() >= end);) {
		if (!strcmp(hold_what, "tick") && held_tick(3) != 0x33) {
			static const char bad[] = "TICK-WRONG\n";

			if (write(1, bad, sizeof(bad) - 1) < 0)
				return;
		}
		if (!strcmp(hold_what, "newalt") && !alt_done && now_s() > start + 0.3) {
			stack_t ss = { .ss_size = 65536 };

			alt_done = true;
			ss.ss_sp = mmap(NULL, ss.ss_size, PROT_READ | PROT_WRITE,
					MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			if (ss.ss_sp != MAP_FAILED && sigaltstack(&ss, NULL) == 0)
				raise(SIGURG);
			if (write(1, newalt, sizeof(newalt) - 1) < 0)
				return;
		}
		if (!strcmp(hold_what, "exec") && now_s() > start + 0.2)
			execl("/bin/echo", "echo", "EXECED", (char *)NULL);
		nanosleep(&ms, NULL);
	}
}

/* sighold-alt: the hold in a second handler, on the thread's alternate stack */
static volatile long urg_sink;
static void on_urg(int sig)
{
	(void)sig;
	if (!strcmp(hold_what, "newalt")) {	/* a long computation on a stack mapped just now */
		for (long i = 0; i < 3000000; i++)
			urg_sink += i;
		return;
	}
	hold();
}

static void on_usr1(int sig, siginfo_t *si, void *uc)
{
	unsigned long pc = (unsigned long)((ucontext_t *)uc)->uc_mcontext.gregs[REG_RIP];

	(void)sig;
	(void)si;
	if (held)
		return;
	for (int i = 0; i < ncode0; i++)
		if (pc >= code0[i].lo && pc < code0[i].hi)
			return;
	held = 1;
	if (hold_alt)
		raise(SIGURG);
	else
		hold();
}

static void *sighold_loop(void *arg)
{
	(void)arg;
	if (hold_alt) {
		stack_t ss = { .ss_size = 65536 };

		ss.ss_sp = mmap(NULL, ss.ss_size, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (ss.ss_sp == MAP_FAILED || sigaltstack(&ss, NULL) < 0)
			return NULL;
	}
	while (!atomic_load(&stop))
		probe_me(atomic_fetch_add(&seq, 1) + 1, "sighold");
	return NULL;
}

static void *pinger(void *arg)
{
	struct timespec us = { 0, 20000 };

	(void)arg;
	while (!atomic_load(&stop) && !held) {
		pthread_kill(holder, SIGUSR1);
		nanosleep(&us, NULL);
	}
	return NULL;
}

static void sighold_start(pthread_t *th, int *n)
{
	struct sigaction sa = { .sa_sigaction = on_usr1, .sa_flags = SA_SIGINFO | SA_RESTART };

	if (!ncode0)
		note_code();
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	sa.sa_handler = on_urg;
	sa.sa_flags = SA_ONSTACK | SA_RESTART;
	sigaction(SIGURG, &sa, NULL);
	signal(SIGUSR2, on_usr2);
	pthread_create(&holder, NULL, sighold_loop, NULL);
	th[(*n)++] = holder;
	pthread_create(&th[(*n)++], NULL, pinger, NULL);
}

/* zombie: the main thread gone, this one ends the process */
static void *zombie_finisher(void *arg)
{
	double end = *(double *)arg;

	while (!released && now_s() < end)
		nanosleep(&(struct timespec){ 0, 10000000 }, NULL);
	atomic_store(&stop, 1);
	nanosleep(&(struct timespec){ 0, 100000000 }, NULL);
	printf("BYTES-OK\nEXIT-SUCCESS\n");
	fflush(stdout);
	exit(0);
}

static int dlopen_cycles(int n, const char *lib)
{
	int done = 0;

	printf("READY\n");
	/* a tracer is there at its PTRACE_SEIZE: start once probe_me is planted */
	if (!selfcheck_wait_tracer(1, 10) || !selfcheck_wait_planted(0, 10))
		return 1;
	for (int c = 0; c < n; c++) {
		void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
		int (*fn)(const char *, int) = h ? (int (*)(const char *, int))dlsym(h,
										 "plugin_handle") : NULL;

		if (!fn) {
			printf("dlopen %s: %s\n", lib, dlerror());
			return 1;
		}
		for (int i = 0; i < 3; i++) {
			char req[16];

			snprintf(req, sizeof(req), "req-%d", i);
			fn(req, i);
		}
		dlclose(h);
		done++;
	}
	printf("CYCLES %d\n", done);
	if (!selfcheck_wait_tracer(0, 20))
		return 1;
	selfcheck_verify();
	printf("EXIT-SUCCESS\n");
	return 0;
}

int main(int argc, char **argv)
{
	double secs = argc > 2 ? atof(argv[2]) : 3;
	const char *mode = argc > 1 ? argv[1] : "hammer";
	struct timespec run = { (time_t)secs, (long)((secs - (time_t)secs) * 1e9) };
	pthread_t th[9];
	int n = 0;

	selfcheck_allow_tracers();
	SELFCHECK_SAVE(probe_me);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(mode, "dlopen") && argc > 3)
		return dlopen_cycles(atoi(argv[2]), argv[3]);
	if (!strcmp(mode, "spawn")) {
		pthread_create(&th[n++], NULL, spawner, NULL);
	} else if (!strcmp(mode, "busyspawn")) {
		double start = now_s();

		printf("READY\n");
		/* the vDSO's clock: no system call */
		while (now_s() < start + secs) {
			for (volatile int i = 0; i < 100000; i++)
				sink += i;
			for (; n < 3 && now_s() >= start + secs / 2; n++)
				pthread_create(&th[n], NULL, spawner, NULL);
		}
		atomic_store(&stop, 1);
		goto join;
	} else if (!strcmp(mode, "hammer")) {
		for (int i = 0; i < 8; i++)
			pthread_create(&th[n++], NULL, hammer, NULL);
		pthread_create(&th[n++], NULL, forker, NULL);
	} else if (!strcmp(mode, "block")) {
		char c;
		ssize_t r;

		pthread_create(&th[n++], NULL, sleeper, &secs);
		pthread_create(&th[n++], NULL, prober, NULL);
		printf("READY\n");
		r = read(0, &c, 1);
		printf("READ %s\n", r == 1 ? (char[2]){ c, 0 } : r == 0 ? "EOF" : strerror(errno));
		atomic_store(&stop, 1);
		goto join;
	} else if (!strcmp(mode, "sighold") || !strcmp(mode, "sighold-alt")) {
		double end = now_s() + secs;

		hold_ms = argc > 3 ? atol(argv[3]) : 0;
		hold_what = argc > 4 ? argv[4] : "";
		hold_alt = !strcmp(mode, "sighold-alt");
		if (!strcmp(hold_what, "late") || !strcmp(hold_what, "zombie")) {
			note_code();
			printf("READY\n");
			fflush(stdout);
			if (!selfcheck_wait_tracer(1, 10))
				return 1;
			nanosleep(&(struct timespec){ 0, 200000000 }, NULL);
			sighold_start(th, &n);
			if (!strcmp(hold_what, "zombie")) {
				static double zend;
				pthread_t fin;

				zend = end;
				pthread_create(&fin, NULL, zombie_finisher, &zend);
				/* the leader a zombie; not pthread_exit(): its unwinder's dlopen of
				 * libgcc_s would have ptap read the mappings again */
				syscall(SYS_exit, 0);
			}
		} else {
			sighold_start(th, &n);
			printf("READY\n");
		}
		while (!released && now_s() < end)
			nanosleep(&(struct timespec){ 0, 10000000 }, NULL);
		atomic_store(&stop, 1);
		goto join;
	} else if (!strcmp(mode, "fork")) {
		pthread_create(&th[n++], NULL, server, NULL);
	} else {
		fprintf(stderr, "usage: attach_load spawn|busyspawn|hammer|block|sighold[-alt]|fork SECONDS | "
			"dlopen N LIB\n");
		return 2;
	}
	printf("READY\n");
	nanosleep(&run, NULL);
	atomic_store(&stop, 1);
join:
	for (int i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	printf("CALLS %ld\n", atomic_load(&seq));
	if (selfcheck_tracer() > 0)
		printf("TRACED-AT-END\n");	/* the int3s are still there: nothing to compare */
	else
		selfcheck_verify();
	printf("DIED %ld\n", atomic_load(&children_died));
	printf("EXIT-SUCCESS\n");
	return 0;
}
