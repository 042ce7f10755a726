/* tracer/host/placement.c: --cpu=follow.  ptap runs SCHED_IDLE (under a
 * watchdog) and moves itself to the CPU its stopped threads last ran on.
 *
 * Why: a hit is a stop (the target wakes ptap) and a PTRACE_CONT (ptap wakes
 * the target).  Left alone, the scheduler puts a woken task on an idle CPU
 * rather than on the busy one of its waker, so ptap and the target end up on
 * two CPUs and every hit wakes a CPU from idle twice (an IPI; in a VM, an exit
 * too).  A CPU running only SCHED_IDLE tasks counts as idle when a woken task
 * is placed (the kernel's sched_idle_cpu()), so a thread ptap resumes stays
 * on ptap's CPU and preempts it; when it stops, ptap runs on where it was
 * preempted, without a wakeup: the two take turns on one CPU like
 * coroutines, as they would pinned together.  ptap moves to the stopped
 * thread's CPU (and at once lets its affinity go again) when the two drift
 * apart, looked at every FOLLOW_EVERY stops.
 *
 * The cost of SCHED_IDLE is that any other task on the CPU comes first, for
 * as long as it runs: under load ptap would starve, and its stopped threads
 * with it.  ptap cannot notice that itself (it does not run), so a watchdog
 * thread (SCHED_OTHER, all signals blocked) ticks while ptap is SCHED_IDLE
 * and puts it back to SCHED_OTHER when it starved or went quiet (see
 * placement.h).  The watchdog sleeps on a futex while ptap is not idle.
 *
 * Leaving SCHED_IDLE needs CAP_SYS_NICE or an RLIMIT_NICE of 20 (sched(7)):
 * an ordinary user can enter it but never leave it.  Without the watchdog
 * the policy is not safe, so it is used only where ptap can leave it
 * (checked once, in a throwaway child); elsewhere --cpu=follow runs as
 * --cpu=free.  The targets' affinity and policy are never touched, and the
 * command is launched before any of this, so it does not inherit it.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "probes/log.h"
#include "tracer/host/placement.h"
#include "tracer/session.h"
#include "tracer/thread.h"

#define FOLLOW_EVERY	64	/* stops between two looks at a thread's CPU */

/* struct placement's state word, shared with the watchdog (a futex) */
#define ST_IDLE		1	/* ptap is, or is about to be, SCHED_IDLE: watch it */
#define ST_STOP		2	/* the watchdog ends */

/* why the watchdog put ptap back */
enum { OUT_NONE, OUT_STARVED, OUT_QUIET };

struct placement {
	struct place_guard g;	/* ptap's thread only */
	cpu_set_t mask;		/* ptap's own affinity, put back after each move */
	pid_t tid;		/* ptap's thread (the tracer) */
	int sched_fd;		/* its /proc/self/task/TID/schedstat: its run delay */
	int stat_fd;		/* /proc/TID/stat of STAT_TID, kept open for the next look */
	pid_t stat_tid;
	uint64_t nstops;
	uint64_t next_check;	/* the next interval's end (ns, CLOCK_MONOTONIC_COARSE) */
	uint64_t idle_t0;	/* when ptap last became SCHED_IDLE */
	uint64_t idle_ns;	/* time spent SCHED_IDLE, for the figures */
	uint64_t moves;
	/* shared with the watchdog */
	atomic_int state;		/* ST_* */
	atomic_int out;			/* OUT_*: the watchdog put ptap back */
	atomic_uint_fast64_t stops;	/* NSTOPS, published for the watchdog */
	pthread_t watchdog;
};

/* ---- pure parts ------------------------------------------------------------ */

int placement_stat_cpu(const char *stat)
{
	const char *p = strrchr(stat, ')');	/* the name (field 2) may hold anything */
	char *end;
	long v;

	if (!p)
		return -1;
	p++;
	/* fields 3 .. 38, each after a space; field 39 is the CPU */
	for (int field = 3; field <= 39; field++) {
		if (*p != ' ')
			return -1;
		p++;
		if (field == 39)
			break;
		p += strcspn(p, " ");
	}
	v = strtol(p, &end, 10);
	if (end == p || v < 0 || v >= CPU_SETSIZE || (*end && *end != ' ' && *end != '\n'))
		return -1;
	return (int)v;
}

int64_t placement_schedstat_delay(const char *schedstat)
{
	unsigned long long run, delay;

	if (sscanf(schedstat, "%llu %llu", &run, &delay) != 2)
		return -1;
	return (int64_t)delay;
}

void placement_guard_init(struct place_guard *g, uint64_t now, uint64_t stops, uint64_t sleeps)
{
	*g = (struct place_guard){ .t0 = now, .stops0 = stops, .sleeps0 = sleeps,
				   .backoff = PLACE_BACKOFF_NS };
}

bool placement_guard_step(struct place_guard *g, uint64_t now, uint64_t stops, uint64_t sleeps)
{
	uint64_t wall = now - g->t0, n = stops - g->stops0, z = sleeps - g->sleeps0;
	/* stops per PLACE_INTERVAL_NS, however long this interval was */
	bool busy = wall && n * PLACE_INTERVAL_NS >= PLACE_MIN_STOPS * wall;
	bool want;

	g->t0 = now;
	g->stops0 = stops;
	g->sleeps0 = sleeps;
	if (g->until && now >= g->until + PLACE_CALM_NS) {
		g->backoff = PLACE_BACKOFF_NS;
		g->until = 0;
	}
	if (g->idle)		/* how often it would sleep cannot be seen: look again now and then */
		want = busy && now - g->idle_since < PLACE_PROBE_NS;
	else
		want = busy && z * 100 >= n * PLACE_SLEEP_PCT && now >= g->until;
	g->nbusy += busy && !want && !g->idle && now >= g->until;
	if (want != g->idle) {
		g->idle = want;
		g->idle_since = now;
	}
	return g->idle;
}

void placement_guard_out(struct place_guard *g, uint64_t now, bool starved)
{
	g->idle = false;
	if (!starved) {
		g->nquiet++;
		return;
	}
	g->nstarved++;
	g->until = now + g->backoff;
	g->backoff = g->backoff * 2 > PLACE_BACKOFF_MAX_NS ? PLACE_BACKOFF_MAX_NS : g->backoff * 2;
}

bool placement_starved(uint64_t wall, uint64_t waited)
{
	return waited * 100 > wall * PLACE_STARVED_PCT;
}

/* ---- the watchdog ---------------------------------------------------------- */

static uint64_t mono_now(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static int set_policy(pid_t tid, int policy)
{
	struct sched_param sp = { .sched_priority = 0 };

	return sched_setscheduler(tid, policy, &sp);
}

/* Sleep while *WORD is VAL, at most TIMEOUT_NS (0: no limit), or until woken. */
static void futex_wait(atomic_int *word, int val, uint64_t timeout_ns)
{
	struct timespec ts = { .tv_sec = (time_t)(timeout_ns / 1000000000ULL),
			       .tv_nsec = (long)(timeout_ns % 1000000000ULL) };

	syscall(SYS_futex, (int *)word, FUTEX_WAIT_PRIVATE, val, timeout_ns ? &ts : NULL,
		NULL, 0);
}

static void futex_wake(atomic_int *word)
{
	syscall(SYS_futex, (int *)word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/* ptap's run delay (ns), or -1. */
static int64_t read_delay(const struct placement *p)
{
	char buf[128];
	ssize_t n = pread(p->sched_fd, buf, sizeof(buf) - 1, 0);

	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return placement_schedstat_delay(buf);
}

/* Put ptap back to SCHED_OTHER, for WHY; ptap's thread sees OUT at its next stop. */
static void put_back(struct placement *p, int why)
{
	set_policy(p->tid, SCHED_OTHER);
	atomic_store(&p->out, why);
	atomic_fetch_and(&p->state, ~ST_IDLE);
}

/* Tick while ptap is SCHED_IDLE: its run delay and its stops. */
static void watch(struct placement *p)
{
	uint64_t t0 = mono_now(CLOCK_MONOTONIC), last = t0;
	uint64_t s0 = atomic_load_explicit(&p->stops, memory_order_relaxed);
	int64_t d0 = read_delay(p);

	for (;;) {
		uint64_t t, s;
		int64_t d;

		futex_wait(&p->state, ST_IDLE, PLACE_TICK_NS);
		if (atomic_load(&p->state) != ST_IDLE)
			return;		/* ptap left SCHED_IDLE itself, or the end */
		t = mono_now(CLOCK_MONOTONIC);
		if (t - t0 < PLACE_TICK_NS / 2)
			continue;	/* woken early: too short to judge */
		d = read_delay(p);
		s = atomic_load_explicit(&p->stops, memory_order_relaxed);
		if (d < 0 || d0 < 0 || placement_starved(t - t0, (uint64_t)(d - d0))) {
			put_back(p, OUT_STARVED);
			return;
		}
		if (s != s0)
			last = t;
		else if (t - last >= PLACE_QUIET_NS) {
			put_back(p, OUT_QUIET);
			return;
		}
		t0 = t;
		d0 = d;
		s0 = s;
	}
}

static void *watchdog(void *arg)
{
	struct placement *p = arg;

	for (;;) {
		int v = atomic_load(&p->state);

		if (v & ST_STOP)
			return NULL;
		if (v & ST_IDLE)
			watch(p);
		else
			futex_wait(&p->state, v, 0);
	}
}

/* ---- ptap's side ----------------------------------------------------------- */

/*
 * Not instrumented by ASan (make unit-asan, integ-asan): on can_leave_idle's
 * static stack ASan cannot find the stack's bounds, and before _exit it would
 * warn so, in every run.
 */
__attribute__((no_sanitize_address)) static int try_idle_child(void *arg)
{
	(void)arg;
	_exit(set_policy(0, SCHED_IDLE) == 0 && set_policy(0, SCHED_OTHER) == 0 ? 0 : 1);
}

/*
 * Can ptap leave SCHED_IDLE once in it?  Tried in a child sharing ptap's
 * memory (cheap however large ptap is), with ptap's credentials and limits.
 */
static bool can_leave_idle(void)
{
	static char stack[16384] __attribute__((aligned(16)));
	int st;
	pid_t pid = clone(try_idle_child, stack + sizeof(stack), CLONE_VM | CLONE_VFORK | SIGCHLD,
			  NULL);

	if (pid < 0)
		return false;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return false;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

/* The CPU thread TID last ran on, or -1. */
static int thread_cpu(struct placement *p, pid_t tid)
{
	char buf[1024];
	ssize_t n;

	if (p->stat_tid != tid) {
		char path[40];

		if (p->stat_fd >= 0)
			close(p->stat_fd);
		snprintf(path, sizeof(path), "/proc/%d/stat", tid);
		p->stat_fd = open(path, O_RDONLY | O_CLOEXEC);
		p->stat_tid = p->stat_fd >= 0 ? tid : 0;
	}
	if (p->stat_fd < 0)
		return -1;
	n = pread(p->stat_fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0) {		/* gone: open again next time */
		close(p->stat_fd);
		p->stat_fd = -1;
		p->stat_tid = 0;
		return -1;
	}
	buf[n] = '\0';
	return placement_stat_cpu(buf);
}

/* Go to CPU, then let ptap's affinity go at once: only where it runs now changes. */
static void move_to(struct placement *p, int cpu)
{
	cpu_set_t one;

	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	if (sched_setaffinity(0, sizeof(one), &one) < 0)
		return;
	p->moves++;
	if (sched_setaffinity(0, sizeof(p->mask), &p->mask) < 0)
		pr_debug("--cpu=follow: cannot restore ptap's CPU affinity: %s\n",
			 strerror(errno));
}

/* Become SCHED_IDLE, the watchdog woken first (it must watch before ptap can starve). */
static void enter_idle(struct placement *p, uint64_t now)
{
	atomic_fetch_or(&p->state, ST_IDLE);
	futex_wake(&p->state);
	if (set_policy(0, SCHED_IDLE) < 0) {
		atomic_fetch_and(&p->state, ~ST_IDLE);
		p->g.idle = false;
		return;
	}
	p->idle_t0 = now;
}

static void leave_idle(struct placement *p, uint64_t now)
{
	set_policy(0, SCHED_OTHER);
	atomic_fetch_and(&p->state, ~ST_IDLE);
	futex_wake(&p->state);
	p->idle_ns += now - p->idle_t0;
}

/* The times ptap's thread slept (voluntary context switches: waitpid blocked, mostly). */
static uint64_t sleeps(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_THREAD, &ru) == 0 ? (uint64_t)ru.ru_nvcsw : 0;
}

/* Why --cpu=follow cannot be used here, or NULL. */
static const char *follow_unusable(struct placement *p)
{
	char path[64];

	if (sched_getscheduler(0) != SCHED_OTHER)
		return "ptap does not run under SCHED_OTHER (chrt?): its policy is left alone";
	if (sched_getaffinity(0, sizeof(p->mask), &p->mask) < 0 || CPU_COUNT(&p->mask) < 2)
		return "ptap may run on one CPU only";
	snprintf(path, sizeof(path), "/proc/self/task/%d/schedstat", p->tid);
	p->sched_fd = open(path, O_RDONLY | O_CLOEXEC);
	if (p->sched_fd < 0 || read_delay(p) < 0)
		return "no /proc/self/task/TID/schedstat to watch ptap's run delay in";
	if (!can_leave_idle())
		return "ptap could not leave SCHED_IDLE again (that needs CAP_SYS_NICE or "
		       "RLIMIT_NICE 20), so it would starve under load";
	return NULL;
}

/* The watchdog, with every signal blocked: ptap's signals must reach its own thread. */
static int start_watchdog(struct placement *p)
{
	sigset_t all, old;
	int r;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	r = pthread_create(&p->watchdog, NULL, watchdog, p);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return -r;
}

void placement_init(struct session *s)
{
	struct placement *p;
	const char *why;
	int r;

	if (s->cpu != CPU_FOLLOW)
		return;
	p = calloc(1, sizeof(*p));
	if (!p)
		return;
	p->tid = gettid();
	p->sched_fd = p->stat_fd = -1;
	why = follow_unusable(p);
	r = why ? 0 : start_watchdog(p);
	if (why || r < 0) {
		pr_debug("--cpu=follow: %s; running as --cpu=free\n", why ? why : strerror(-r));
		if (p->sched_fd >= 0)
			close(p->sched_fd);
		free(p);
		return;
	}
	p->next_check = mono_now(CLOCK_MONOTONIC_COARSE) + PLACE_INTERVAL_NS;
	placement_guard_init(&p->g, mono_now(CLOCK_MONOTONIC_COARSE), 0, sleeps());
	s->place = p;
}

/* The watchdog put ptap back to SCHED_OTHER: make sure of it, and tell the guard. */
static void was_put_back(struct placement *p, uint64_t now)
{
	int why = atomic_exchange(&p->out, OUT_NONE);

	if (!p->g.idle)
		return;		/* ptap had left by itself meanwhile */
	leave_idle(p, now);	/* again: ptap may have re-entered meanwhile */
	placement_guard_out(&p->g, now, why == OUT_STARVED);
}

void placement_note_stop(struct session *s, struct thread *t)
{
	struct placement *p = s->place;
	uint64_t now;
	int cpu;

	if (!p)
		return;
	atomic_store_explicit(&p->stops, ++p->nstops, memory_order_relaxed);
	now = mono_now(CLOCK_MONOTONIC_COARSE);
	if (atomic_load_explicit(&p->out, memory_order_relaxed) != OUT_NONE)
		was_put_back(p, now);
	if (now >= p->next_check) {
		bool was = p->g.idle;

		p->next_check = now + PLACE_INTERVAL_NS;
		if (placement_guard_step(&p->g, now, p->nstops, sleeps()) != was) {
			if (p->g.idle)
				enter_idle(p, now);
			else
				leave_idle(p, now);
		}
	}
	if (!t || !p->g.idle || p->nstops % FOLLOW_EVERY)
		return;
	cpu = thread_cpu(p, t->tid);
	if (cpu >= 0 && cpu != sched_getcpu() && CPU_ISSET(cpu, &p->mask))
		move_to(p, cpu);
}

void placement_fini(struct session *s)
{
	struct placement *p = s->place;

	if (!p)
		return;
	if (p->g.idle)
		leave_idle(p, mono_now(CLOCK_MONOTONIC_COARSE));
	atomic_fetch_or(&p->state, ST_STOP);
	futex_wake(&p->state);
	pthread_join(p->watchdog, NULL);
	pr_debug("--cpu=follow: %lu stops, %lu moves, %.2f s SCHED_IDLE, %lu times starved, "
		 "%lu quiet spells, %lu intervals of stops ptap did not sleep for\n",
		 (unsigned long)p->nstops, (unsigned long)p->moves, (double)p->idle_ns / 1e9,
		 (unsigned long)p->g.nstarved, (unsigned long)p->g.nquiet,
		 (unsigned long)p->g.nbusy);
	if (p->stat_fd >= 0)
		close(p->stat_fd);
	close(p->sched_fd);
	free(p);
	s->place = NULL;
}
