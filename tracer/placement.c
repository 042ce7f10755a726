/* tracer/placement.c: --cpu=follow.  ptap runs SCHED_IDLE (guarded) and
 * moves itself to the CPU its stopped threads last ran on.
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
 * apart, checked every FOLLOW_EVERY stops.
 *
 * The cost of SCHED_IDLE is that any other task on the CPU comes first:
 * under load ptap would starve, and its stopped threads with it.  The guard
 * (placement_guard_step()) watches ptap's run delay and goes back to
 * SCHED_OTHER when it waited too long; a timer does the same when no stop
 * came for PLACE_SLEEP_NS, so that ptap never sleeps long as SCHED_IDLE (the
 * first hit after a quiet spell is not kept waiting behind other work).
 *
 * Leaving SCHED_IDLE needs CAP_SYS_NICE or an RLIMIT_NICE of 20 (sched(7)):
 * an ordinary user can enter it but never leave it.  Without the guard the
 * policy is not safe, so it is used only where ptap can leave it (checked
 * once, in a throwaway child); elsewhere --cpu=follow runs as --cpu=free.
 * The targets' affinity and policy are never touched, and the command is
 * launched before any of this, so it does not inherit it.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "probes/log.h"
#include "tracer/placement.h"
#include "tracer/session.h"
#include "tracer/thread.h"

#define FOLLOW_EVERY	64			/* stops between two looks at a thread's CPU */
#define PLACE_SLEEP_NS	30000000ULL		/* no stop for 30 ms: not SCHED_IDLE */

struct placement {
	struct place_guard g;
	cpu_set_t mask;		/* ptap's own affinity, put back after each move */
	int sched_fd;		/* /proc/thread-self/schedstat: ptap's run delay */
	int stat_fd;		/* /proc/TID/stat of STAT_TID, kept open for the next look */
	pid_t stat_tid;
	uint64_t nstops;
	uint64_t next_check;	/* the guard's next check (ns, CLOCK_MONOTONIC_COARSE) */
	uint64_t moves;
	uint64_t idle_t0;	/* when ptap last became SCHED_IDLE */
	uint64_t armed_at;	/* when the sleep timer was last armed */
	uint64_t idle_ns;	/* time spent SCHED_IDLE, for the figures */
	uint64_t woken;		/* times the sleep timer put ptap back */
	timer_t timer;
	bool timer_ok;
};

/* Set by the sleep timer's handler, which already put ptap back to SCHED_OTHER. */
static volatile sig_atomic_t place_woke;

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

void placement_guard_init(struct place_guard *g, uint64_t now, uint64_t delay, uint64_t stops)
{
	*g = (struct place_guard){ .t0 = now, .delay0 = delay, .stops0 = stops,
				   .backoff = PLACE_BACKOFF_NS };
}

bool placement_guard_step(struct place_guard *g, uint64_t now, uint64_t delay, uint64_t stops)
{
	uint64_t wall = now - g->t0, waited = delay - g->delay0, n = stops - g->stops0;
	/* stops per PLACE_INTERVAL_NS, however long this interval was */
	bool busy = wall && n * PLACE_INTERVAL_NS >= PLACE_MIN_STOPS * wall;
	bool starved = waited * 100 > wall * PLACE_STARVED_PCT;

	g->t0 = now;
	g->delay0 = delay;
	g->stops0 = stops;
	if (g->idle && starved) {
		g->nstarved++;
		g->until = now + g->backoff;
		g->backoff = g->backoff * 2 > PLACE_BACKOFF_MAX_NS ? PLACE_BACKOFF_MAX_NS :
			     g->backoff * 2;
		g->idle = false;
		return false;
	}
	if (g->idle && now - g->idle_since >= PLACE_CALM_NS)
		g->backoff = PLACE_BACKOFF_NS;
	if (g->idle != (busy && now >= g->until)) {
		g->idle = !g->idle;
		g->idle_since = now;
	}
	return g->idle;
}

/* ---- the policy ------------------------------------------------------------ */

static uint64_t coarse_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static int set_policy(int policy)
{
	struct sched_param sp = { .sched_priority = 0 };

	return sched_setscheduler(0, policy, &sp);
}

/* The sleep timer: no stop for a while, ptap is likely asleep in waitpid. */
static void on_sleep_timer(int sig)
{
	int e = errno;

	(void)sig;
	set_policy(SCHED_OTHER);
	place_woke = 1;
	errno = e;
}

static int try_idle_child(void *arg)
{
	(void)arg;
	_exit(set_policy(SCHED_IDLE) == 0 && set_policy(SCHED_OTHER) == 0 ? 0 : 1);
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

static int64_t read_delay(struct placement *p)
{
	char buf[128];
	ssize_t n = pread(p->sched_fd, buf, sizeof(buf) - 1, 0);

	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return placement_schedstat_delay(buf);
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
	if (sched_setaffinity(0, sizeof(p->mask), &p->mask) < 0 &&
	    sched_getaffinity(0, sizeof(p->mask), &p->mask) == 0)
		pr_debug("--cpu=follow: cannot restore ptap's CPU affinity: %s\n",
			 strerror(errno));
}

static void arm_sleep_timer(struct placement *p, bool on, uint64_t now)
{
	struct itimerspec it = { .it_value = { .tv_nsec = on ? (long)PLACE_SLEEP_NS : 0 } };

	p->armed_at = now;
	if (p->timer_ok)
		timer_settime(p->timer, 0, &it, NULL);
}

/*
 * Become SCHED_IDLE and arm the sleep timer (in that order: a timer firing
 * in between must find ptap idle), or disarm it and leave SCHED_IDLE.
 */
static void set_idle(struct placement *p, bool idle, uint64_t now)
{
	if (idle) {
		place_woke = 0;
		if (set_policy(SCHED_IDLE) < 0) {
			p->g.idle = false;
			return;
		}
		p->idle_t0 = now;
		arm_sleep_timer(p, true, now);
		return;
	}
	arm_sleep_timer(p, false, now);
	set_policy(SCHED_OTHER);
	p->idle_ns += now - p->idle_t0;
}

/* Why --cpu=follow cannot be used here, or NULL. */
static const char *follow_unusable(struct placement *p)
{
	if (sched_getscheduler(0) != SCHED_OTHER)
		return "ptap does not run under SCHED_OTHER (chrt?): its policy is left alone";
	if (sched_getaffinity(0, sizeof(p->mask), &p->mask) < 0 || CPU_COUNT(&p->mask) < 2)
		return "ptap may run on one CPU only";
	p->sched_fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
	if (p->sched_fd < 0 || read_delay(p) < 0)
		return "no /proc/thread-self/schedstat to watch ptap's run delay in";
	if (!can_leave_idle())
		return "ptap could not leave SCHED_IDLE again (that needs CAP_SYS_NICE or "
		       "RLIMIT_NICE 20), so it would starve under load";
	return NULL;
}

void placement_init(struct session *s)
{
	struct sigaction sa = { .sa_handler = on_sleep_timer, .sa_flags = SA_RESTART };
	struct sigevent ev = { .sigev_notify = SIGEV_THREAD_ID, .sigev_signo = SIGRTMIN + 2 };
	struct placement *p;
	const char *why;

	if (s->cpu != CPU_FOLLOW)
		return;
	p = calloc(1, sizeof(*p));
	if (!p)
		return;
	p->sched_fd = p->stat_fd = -1;
	why = follow_unusable(p);
	if (why) {
		pr_debug("--cpu=follow: %s; running as --cpu=free\n", why);
		if (p->sched_fd >= 0)
			close(p->sched_fd);
		free(p);
		return;
	}
	sigemptyset(&sa.sa_mask);
	ev._sigev_un._tid = gettid();
	p->timer_ok = sigaction(ev.sigev_signo, &sa, NULL) == 0 &&
		      timer_create(CLOCK_MONOTONIC, &ev, &p->timer) == 0;
	p->next_check = coarse_now() + PLACE_INTERVAL_NS;
	placement_guard_init(&p->g, coarse_now(), (uint64_t)read_delay(p), 0);
	s->place = p;
}

/* An interval is over: the guard says whether ptap stays, becomes or stops being SCHED_IDLE. */
static void check(struct placement *p, uint64_t now)
{
	int64_t delay = read_delay(p);
	bool was;

	p->next_check = now + PLACE_INTERVAL_NS;
	if (place_woke) {	/* the sleep timer put ptap back to SCHED_OTHER */
		place_woke = 0;
		if (p->g.idle) {
			p->woken++;
			p->g.idle = false;
			p->idle_ns += p->armed_at + PLACE_SLEEP_NS - p->idle_t0;
		}
	}
	was = p->g.idle;
	if (delay < 0)
		return;
	if (placement_guard_step(&p->g, now, (uint64_t)delay, p->nstops) != was)
		set_idle(p, p->g.idle, now);
	else if (was)
		arm_sleep_timer(p, true, now);	/* stops still come: not asleep */
}

void placement_note_stop(struct session *s, struct thread *t)
{
	struct placement *p = s->place;
	uint64_t now;
	int cpu;

	if (!p)
		return;
	p->nstops++;
	now = coarse_now();
	if (now >= p->next_check || place_woke)
		check(p, now);
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
	if (p->timer_ok)
		timer_delete(p->timer);
	if (p->g.idle)
		set_idle(p, false, coarse_now());
	signal(SIGRTMIN + 2, SIG_DFL);
	pr_debug("--cpu=follow: %lu stops, %lu moves, %.1f s SCHED_IDLE, %lu back-offs "
		 "(starved), %lu quiet spells\n", (unsigned long)p->nstops,
		 (unsigned long)p->moves, (double)p->idle_ns / 1e9, (unsigned long)p->g.nstarved,
		 (unsigned long)p->woken);
	if (p->stat_fd >= 0)
		close(p->stat_fd);
	close(p->sched_fd);
	free(p);
	s->place = NULL;
}
