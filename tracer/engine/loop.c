/* tracer/engine/loop.c: the event loop.  Wait for any traced thread, have
 * its stop classified (stop.h), dispatch it -- a hit to hit.c, a syscall to
 * mapsync.c and the --syscalls records, a clone, exec or exit to tasks.c --
 * and resume it.  Ends tracing on a signal to ptap or a closed output. */
#include <errno.h>
#include <linux/ptrace.h>
#include <sched.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "arch/arch.h"
#include "probes/log.h"
#include "probes/record.h"
#include "tracer/engine/detach.h"
#include "tracer/engine/hit.h"
#include "tracer/engine/inproc.h"
#include "tracer/engine/loop.h"
#include "tracer/engine/mapsync.h"
#include "tracer/engine/plant.h"
#include "tracer/engine/ptrace.h"
#include "tracer/engine/stop.h"
#include "tracer/engine/tasks.h"
#include "tracer/events/mmapev.h"
#include "tracer/events/output.h"
#include "tracer/events/syscall.h"
#include "tracer/host/placement.h"
#include "tracer/host/privs.h"
#include "tracer/session.h"
#include "tracer/space/aspace.h"
#include "tracer/space/maptab.h"
#include "tracer/space/mem.h"
#include "tracer/thread.h"

volatile sig_atomic_t loop_stop_sig;
volatile sig_atomic_t loop_end;
volatile pid_t loop_forward_pid;

static void pick_forward(struct session *s, struct thread *t, void *arg)
{
	(void)s;
	(void)arg;
	loop_forward_pid = t->tgid;
}

static void send_stop(struct session *s, struct thread *t, void *arg)
{
	(void)s;
	if (t->tid == t->tgid)
		kill(t->tgid, *(int *)arg);
}

/*
 * The command exited but traced descendants live on: a signal to ptap goes
 * to all of them (they are what keeps the session going).
 */
static void pass_stop_signal(struct session *s)
{
	int sig = loop_stop_sig;

	loop_stop_sig = 0;
	if (sig && s->cmd_exited)
		thread__for_each(s, send_stop, &sig);
}

/* PID exited or was killed: forget it; the command gone, ptap's signals go to a process left. */
static void on_gone(struct session *s, pid_t pid, int status)
{
	tasks_exited(s, pid, status);
	if (s->cmd_exited && (pid == loop_forward_pid || pid == s->cmd_pid))
		thread__for_each(s, pick_forward, NULL);
}

/*
 * T is about to run syscall NR(ARGS) (a seccomp stop, or a syscall-entry stop
 * when attached with syscall stops), with stack pointer SP: the map table's
 * and --syscalls' part, then on.  Its exit stop is wanted if either needs it.
 */
static void syscall_enter(struct session *s, struct thread *t, long nr, const __u64 *args,
			  uint64_t sp)
{
	t->sc_nr = nr;
	memcpy(t->sc_args, args, sizeof(t->sc_args));
	t->want_exit = mapsync_on_entry(s, t);
	if (nr == SYS_rt_sigaction)
		inproc_sigaction(t, t->sc_args);
	if (syscall_selected(s, nr) && syscall_entry(s, t, nr, t->sc_args, sp))
		t->want_exit = true;
	thread__resume(t, 0);
}

/* T at a syscall-exit stop (SC): the map table's and --syscalls' part, then on. */
static void on_syscall_exit(struct session *s, struct thread *t,
			    const struct ptrace_syscall_info *sc)
{
	int r = 0;

	if (!t->as->syscall_pc)
		mapsync_note_syscall_pc(t->as, sc->instruction_pointer);
	syscall_exit(s, t, sc);
	if (t->exec_pending) {
		t->exec_pending = false;
		r = plant_range(s, t, 0, UINT64_MAX, true);	/* nothing of the new image ran */
	} else if (t->want_exit) {
		r = mapsync_on_exit(s, t, sc);
	}
	t->want_exit = false;
	t->sc_nr = -1;
	if (r == -ESRCH)	/* exited or exec'd meanwhile: that event is queued */
		return;
	thread__resume(t, 0);
}

/* A new child at its first stop, its parent's event seen: run it, or let it go. */
static void child_go(struct session *s, struct thread *c)
{
	if (c->detach_at_stop)
		detach_child(s, c);
	else if (c->tid == c->tgid || inproc_thread_new(s, c) != -ESRCH)	/* a thread: its ring */
		thread__resume(c, 0);
}

static void on_clone(struct session *s, struct thread *t, int ev)
{
	struct thread *c = tasks_clone_child(s, t, ev);

	if (c && c->stopped && c->as)	/* its first stop came before this event */
		child_go(s, c);
	thread__resume(t, 0);
}

static void on_event_stop(struct session *s, struct thread *t, const struct stop *st)
{
	if (!t->as)		/* a new child: held until its parent's clone event */
		return;
	if (t->detach_at_stop) {
		detach_child(s, t);
		return;
	}
	/* attached while stopped (kill -STOP): plant now that it runs again */
	if (!st->group)
		t->gstop = false;
	if (t->as->plant_pending && !st->group) {
		t->as->plant_pending = false;
		if (plant_range(s, t, 0, UINT64_MAX, false) == -ESRCH)
			return;
	}
	if (st->group) {
		/* A group-stop: stay stopped until SIGCONT, but keep tracing. */
		t->stopped = false;
		if (pt_listen(t->tid) < 0)
			thread__resume(t, 0);
		return;
	}
	/* a new thread's first stop, after its parent's event: its ring */
	if (t->tid != t->tgid && inproc_thread_new(s, t) == -ESRCH)
		return;
	thread__resume(t, 0);
}

/* T trapped on an int3: a hit, or the program's own int3 (delivered, never from inside a slot). */
static void on_breakpoint(struct session *s, struct thread *t)
{
	int r = hit_handle(s, t);

	if (r == 0 || r == -ESRCH)
		return;
	hit_slot_signal(t, SIGTRAP);
	thread__resume(t, SIGTRAP);
}

static void on_stop(struct session *s, struct thread *t, int status)
{
	struct stop st;

	t->stopped = true;
	stop_classify(t->tid, status, &st);
	if (!t->as && st.kind != STOP_EVENT) {
		thread__resume(t, 0);	/* should not happen: a held child that was not held */
		return;
	}
	/* the agent's own system calls (a futex, a read): not the program's */
	if ((st.kind == STOP_SC_ENTRY || st.kind == STOP_SECCOMP || st.kind == STOP_SC_EXIT) &&
	    inproc_owns_pc(t->as, st.sc.instruction_pointer)) {
		thread__resume(t, 0);
		return;
	}
	switch (st.kind) {
	case STOP_SC_ENTRY:	/* --mmap-tracking=syscall: what the seccomp stop does when launched */
		syscall_enter(s, t, (long)st.sc.entry.nr, st.sc.entry.args, st.sc.stack_pointer);
		return;
	case STOP_SECCOMP:
		syscall_enter(s, t, (long)st.sc.seccomp.nr, st.sc.seccomp.args,
			      st.sc.stack_pointer);
		return;
	case STOP_SC_EXIT:
		on_syscall_exit(s, t, &st.sc);
		return;
	case STOP_EXEC:
		tasks_exec(s, t);
		return;
	case STOP_CLONE:
	case STOP_VFORK:
		on_clone(s, t, st.ev);
		return;
	case STOP_EVENT:
		on_event_stop(s, t, &st);
		return;
	case STOP_BREAKPOINT:
		on_breakpoint(s, t);
		return;
	case STOP_SIGNAL:
		if (inproc_read_fault(t, st.sig)) {	/* the agent's, not the program's */
			thread__resume(t, 0);
			return;
		}
		hit_slot_signal(t, st.sig);	/* never delivered inside a slot */
		thread__resume(t, st.sig);
		return;
	case STOP_NONE:
	case STOP_SC_UNREAD:
	case STOP_OTHER:
		thread__resume(t, 0);
		return;
	}
}

/*
 * Tracing is over (loop_end, or the output is a closed pipe).  Attached:
 * let everything go.  Launched: remove the breakpoints; the command runs on
 * (it cannot be detached, see launch.h) and its end ends the session.
 */
static void end_tracing(struct session *s)
{
	loop_end = 0;
	inproc_end(s);
	if (s->attach)
		detach_all(s);
	else if (!s->unplanted)
		detach_unplant_all(s);
}

/*
 * ptap's own signals (SIGINT ...) only set flags (loop_end, loop_stop_sig)
 * and cancel a wait that is under way (loop_signal()); the loop acts on the
 * flags.  The wait tests them itself: no signal mask to change, no system
 * call beyond the wait.
 */
/* Set by the flush timer's handler: write the records the output holds. */
static volatile sig_atomic_t loop_flush;
/* Set by the drain timer's: take the records the agent wrote in the processes. */
static volatile sig_atomic_t loop_drain;

/*
 * A stop already there first, then a wait the handlers can cancel: under
 * hits faster than ptap writes them, the bell rings again during each drain
 * (inproc.c), and a wait cancelled at once would leave every stop waiting.
 */
static pid_t wait_any(int *st)
{
	static const volatile sig_atomic_t *const flags[] = { &loop_end, &loop_stop_sig,
							      &loop_flush, &loop_drain, NULL };
	long r = wait4(-1, st, __WALL | WNOHANG, NULL);

	if (r == 0)
		r = arch_wait4_cancellable(-1, st, __WALL, flags);
	else if (r < 0)
		r = -errno;

	if (r < 0) {
		errno = (int)-r;
		return -1;
	}
	return (pid_t)r;
}

void loop_signal(void *ucontext)
{
	arch_wait4_cancel(ucontext);
}

/*
 * Records wait in the output's buffer (tracer/events/output.c) until it fills or
 * a later record finds them 100 ms old.  So that a trace that went quiet
 * still shows its last ones, a timer armed when the loop goes on after an
 * event ends the wait FLUSH_NS later and the loop writes them: at most one
 * timer_settime() and one wake-up per FLUSH_NS, none while idle.
 */
#define FLUSH_NS	100000000L

static timer_t flush_timer;
static bool flush_timer_ok, flush_armed;

/* A loop timer's signal: its flag (the timer's value) set, the wait cancelled. */
static void on_timer(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	*(volatile sig_atomic_t *)si->si_value.sival_ptr = 1;
	loop_signal(uc);
}

/* A timer whose signal SIGNO sets FLAG and cancels the loop's wait.  True when made. */
static bool loop_timer(int signo, volatile sig_atomic_t *flag, timer_t *timer)
{
	struct sigaction sa = { .sa_sigaction = on_timer, .sa_flags = SA_SIGINFO | SA_RESTART };
	struct sigevent ev = { .sigev_notify = SIGEV_SIGNAL, .sigev_signo = signo,
			       .sigev_value.sival_ptr = (void *)flag };

	sigemptyset(&sa.sa_mask);
	return sigaction(signo, &sa, NULL) == 0 && timer_create(CLOCK_MONOTONIC, &ev, timer) == 0;
}

static void flush_timer_init(void)
{
	flush_timer_ok = loop_timer(SIGRTMIN, &loop_flush, &flush_timer);
}

static void flush_timer_arm(void)
{
	struct itimerspec it = { .it_value = { .tv_nsec = FLUSH_NS } };

	if (flush_timer_ok && !flush_armed)
		flush_armed = timer_settime(flush_timer, 0, &it, NULL) == 0;
}

static void flush_due(struct session *s)
{
	if (!loop_flush)
		return;
	loop_flush = 0;
	flush_armed = false;
	output__flush(s->out);
}

/*
 * In-process probes record without a stop, so nothing wakes the loop for
 * them: while a region is mapped, a timer does, every DRAIN_NS while a ring
 * that fills wakes ptap at once (its process's bell: inproc.c), every
 * DRAIN_UNBELLED_NS while some process's does not (inproc_bells_reach_all():
 * more processes than the bells' thread waits on, no futex_waitv(2), no
 * robust list).  A thread that finds its ring full waits for a drain
 * (agent/agent.c): the bell asks for it, else the timer.  Every wait
 * status is preceded by a drain too (inproc.h: order).
 * The timer is the cost of recording slowly: under pgbench, PostgreSQL's
 * two backends recording 50,000 queries a second, ptap's CPU time was
 * 550-1270 ns a record at every 2 ms, 340-690 at every 10 ms (6 runs in
 * turn), with a fifth of the context switches.
 */
#define DRAIN_NS		10000000L
#define DRAIN_UNBELLED_NS	2000000L

static timer_t drain_timer;
static bool drain_timer_on, drain_timer_made;
static long drain_every;	/* the timer's period now, ns; 0: none */
static bool drain_timer_failed;	/* a timer_settime() failed: said once */
static pthread_t loop_thread;
/* -v: the drains at the timer or a bell, the bells among them (another thread's), before a stop */
static uint64_t drains_signalled, drains_rung, drains_at_stops;

/* A ring's bell rang (inproc_on_bell(); another thread of ptap's): drain now, as at the timer. */
static void loop_bell(void)
{
	if (!loop_drain && pthread_sigqueue(loop_thread, SIGRTMIN + 1,
					    (union sigval){ .sival_ptr = (void *)&loop_drain }) == 0)
		__atomic_fetch_add(&drains_rung, 1, __ATOMIC_RELAXED);
}

/*
 * The drain timer's period: DRAIN_NS, or the shorter one while a bell does
 * not reach some process's rings (a region not linked, futex_waitv missing
 * or refused): looked at before every wait, a process just linked included.
 */
static void drain_timer_period(struct session *s)
{
	long ns = inproc_bells_reach_all(s) ? DRAIN_NS : DRAIN_UNBELLED_NS;
	struct itimerspec it = { .it_value = { .tv_nsec = ns }, .it_interval = { .tv_nsec = ns } };

	if (!drain_timer_made || ns == drain_every || drain_timer_failed)
		return;
	if (timer_settime(drain_timer, 0, &it, NULL) == 0) {
		drain_every = ns;
		return;
	}
	drain_timer_failed = true;
	if (drain_every)
		pr_warn("the drain timer stays at every %ld ms (%s)\n", drain_every / 1000000,
			strerror(errno));
	else
		pr_warn("no drain timer (%s): in-process records are written only at the next "
			"stop or bell\n", strerror(errno));
}

static void drain_timer_start(struct session *s)
{
	drain_timer_on = true;	/* tried once */
	drain_every = 0;
	drain_timer_failed = false;
	if (!(drain_timer_made = loop_timer(SIGRTMIN + 1, &loop_drain, &drain_timer)))
		pr_warn("no drain timer (%s): in-process records are written only at the next "
			"stop\n", strerror(errno));
	drain_timer_period(s);
	if (drain_timer_made) {	/* the signal's handler is there */
		loop_thread = pthread_self();
		inproc_on_bell(loop_bell);
	}
}

/* The rings drained; COUNT: the drains of the timer and the bells, or those before a stop. */
static void drain(struct session *s, uint64_t *count)
{
	loop_drain = 0;
	(*count)++;
	if (inproc_drain(s))
		flush_timer_arm();
}

static int loop_events(struct session *s)
{
	while (s->nthreads > 0) {
		struct thread *t;
		int st;
		pid_t pid;

		flush_due(s);
		if (!drain_timer_on && inproc_active(s))
			drain_timer_start(s);
		else if (drain_timer_on)
			drain_timer_period(s);
		if (loop_drain)
			drain(s, &drains_signalled);

		if (loop_end || (output__error(s->out) == EPIPE && !s->unplanted)) {
			end_tracing(s);
			continue;
		}
		if (loop_stop_sig)
			pass_stop_signal(s);
		if (!session__undefer(s, &pid, &st))
			pid = wait_any(&st);
		if (pid > 0)
			flush_timer_arm();
		if (pid > 0 && inproc_active(s))
			drain(s, &drains_at_stops);	/* what the thread recorded before this stop, first */
		if (pid < 0) {
			if (errno == EINTR)
				continue;
			if (errno == ECHILD)
				break;
			return -errno;
		}
		if (WIFEXITED(st) || WIFSIGNALED(st)) {
			inproc_note_gone(s);
			on_gone(s, pid, st);
			continue;
		}
		t = thread__find(s, pid);
		placement_note_stop(s, t);
		if (t)
			t->nstops++;	/* each a voluntary context switch of its (--account) */
		if (!t)
			tasks_unknown(s, pid, st);
		else
			on_stop(s, t, st);
	}
	return 0;
}

int loop_run(struct session *s)
{
	int r;

	flush_timer_init();
	drains_signalled = drains_rung = drains_at_stops = 0;
	r = loop_events(s);
	if (drain_timer_on && drain_every)
		pr_info("the rings drained %lu times at the timer (every %ld ms at the end) or a "
			"bell (%lu bells), %lu times before a stop\n",
			(unsigned long)drains_signalled, drain_every / 1000000,
			(unsigned long)__atomic_load_n(&drains_rung, __ATOMIC_RELAXED),
			(unsigned long)drains_at_stops);
	if (drain_timer_made)
		timer_delete(drain_timer);
	drain_timer_on = drain_timer_made = false;
	inproc_fini(s);		/* the records of processes that just ended */
	return r;
}
