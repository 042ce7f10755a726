/* tracer/engine/loop.c: the event loop.  Every stop is classified from the wait
 * status (event << 16 | signal), PTRACE_GETSIGINFO and the syscall info
 * (ptrace(2), "Stopped states"): syscall stops carry SIGTRAP|0x80
 * (PTRACE_O_TRACESYSGOOD), so a plain SIGTRAP is a breakpoint or the
 * program's own trap. */
#include <errno.h>
#include <linux/ptrace.h>
#include <sched.h>
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
#include "tracer/space/aspace.h"
#include "tracer/engine/attach.h"
#include "tracer/engine/hit.h"
#include "tracer/engine/loop.h"
#include "tracer/space/maptab.h"
#include "tracer/space/mem.h"
#include "tracer/events/mmapev.h"
#include "tracer/events/output.h"
#include "tracer/host/placement.h"
#include "tracer/engine/plant.h"
#include "tracer/host/privs.h"
#include "tracer/engine/ptrace.h"
#include "tracer/session.h"
#include "tracer/engine/shadow.h"
#include "tracer/events/syscall.h"
#include "tracer/engine/mapsync.h"
#include "tracer/thread.h"

volatile sig_atomic_t loop_stop_sig;
volatile sig_atomic_t loop_end;
volatile pid_t loop_forward_pid;

/* ---- task records (--events task) ---------------------------------------- */

static void task_record(struct session *s, const struct thread *t, enum rec_kind kind,
			const char *name, const struct fetch_type *type,
			const struct fetch_val *val)
{
	const char *names[1] = { name };
	struct record rec = { .ts = session__now(s), .pid = t->tgid, .tid = t->tid,
			      .comm = t->comm, .event = rec_kind__name(kind), .kind = kind,
			      .nargs = 1, .names = names, .types = type, .vals = val };

	if (s->events_task && !t->quiet)
		output__record(s->out, &rec);
}

static void task_int(struct session *s, const struct thread *t, enum rec_kind kind,
		     const char *name, long v)
{
	static const struct fetch_type type = { .kind = FT_SIGNED, .size = 8 };
	struct fetch_val val = { .u = (uint64_t)v };

	task_record(s, t, kind, name, &type, &val);
}

static void task_str(struct session *s, const struct thread *t, enum rec_kind kind,
		     const char *name, char *str)
{
	static const struct fetch_type type = { .kind = FT_STRING, .size = 8 };
	struct fetch_val val = { .str = str, .len = strlen(str), .addr = 1 };

	task_record(s, t, kind, name, &type, &val);
}

static void task_exit(struct session *s, const struct thread *t, int status)
{
	char name[32];

	if (WIFEXITED(status)) {
		task_int(s, t, REC_KIND_EXIT, "status", WEXITSTATUS(status));
		return;
	}
	snprintf(name, sizeof(name), "SIG%s", sigabbrev_np(WTERMSIG(status)) ?: "?");
	task_str(s, t, REC_KIND_EXIT, "signal", name);
}

static void task_exec(struct session *s, const struct thread *t)
{
	char link[40], path[4096];
	ssize_t n;

	if (!s->events_task)
		return;
	snprintf(link, sizeof(link), "/proc/%d/exe", t->tgid);
	n = readlink(link, path, sizeof(path) - 1);
	path[n > 0 ? n : 0] = '\0';
	task_str(s, t, REC_KIND_EXEC, "filename", path);
}

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

void loop_gone(struct session *s, pid_t pid, int status)
{
	struct thread *t = thread__find(s, pid);

	if (pid == s->cmd_pid) {
		s->cmd_status = status;
		s->cmd_exited = true;
	}
	if (t && t->tid == t->tgid)
		task_exit(s, t, status);
	if (t)
		hit_thread_gone(s, t);
	if (t)
		thread__remove(s, t);
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
	if (syscall_selected(s, nr) && syscall_entry(s, t, nr, t->sc_args, sp))
		t->want_exit = true;
	thread__resume(t, 0);
}

static void on_seccomp(struct session *s, struct thread *t)
{
	struct ptrace_syscall_info info;

	if (pt_syscall_info(t->tid, &info) < 0 || info.op != PTRACE_SYSCALL_INFO_SECCOMP) {
		thread__resume(t, 0);
		return;
	}
	syscall_enter(s, t, (long)info.seccomp.nr, info.seccomp.args, info.stack_pointer);
}

static void on_syscall_stop(struct session *s, struct thread *t)
{
	struct ptrace_syscall_info info;
	int r = 0;

	if (pt_syscall_info(t->tid, &info) < 0) {
		thread__resume(t, 0);
		return;
	}
	if (info.op == PTRACE_SYSCALL_INFO_ENTRY) {
		/* --mmap-tracking=syscall: what the seccomp stop does when launched */
		syscall_enter(s, t, (long)info.entry.nr, info.entry.args, info.stack_pointer);
		return;
	}
	if (info.op != PTRACE_SYSCALL_INFO_EXIT) {
		thread__resume(t, 0);
		return;
	}
	if (!t->as->syscall_pc)
		mapsync_note_syscall_pc(t->as, info.instruction_pointer);
	syscall_exit(s, t, &info);
	if (t->exec_pending) {
		t->exec_pending = false;
		r = plant_range(s, t, 0, UINT64_MAX, true);	/* nothing of the new image ran */
	} else if (t->want_exit) {
		r = mapsync_on_exit(s, t, &info);
	}
	t->want_exit = false;
	t->sc_nr = -1;
	if (r == -ESRCH)	/* exited or exec'd meanwhile: that event is queued */
		return;
	thread__resume(t, 0);
}

/* Other threads of an exec'ing process are gone (ptrace(2), "execve(2) under ptrace"). */
static void drop_siblings(struct session *s, struct thread *t, void *arg)
{
	const struct thread *leader = arg;

	if (t != leader && t->tgid == leader->tgid)
		thread__remove(s, t);
}

/*
 * A ptap holding CAP_SYS_PTRACE (not root) has just seen T exec a program
 * that runs with other credentials (setuid, setgid, file capabilities: the
 * kernel let them take effect because ptap's capability was in its tracer
 * credentials).  Its user could not trace that program without ptap, so let
 * it go before anything of the new image is read: nothing planted in it yet.
 * True when T is gone from S.
 */
static bool exec_refused(struct session *s, struct thread *t)
{
	char msg[512];

	if (privs_check_owner("/proc", t->tgid, msg, sizeof(msg)) == 0)
		return false;
	pr_warn("%s; not traced after its exec\n", msg);
	pt_detach(t->tid, 0);
	thread__remove(s, t);
	return true;
}

void loop_exec(struct session *s, struct thread *t)
{
	struct aspace *as;
	int r;

	thread__for_each(s, drop_siblings, t);
	if (exec_refused(s, t))
		return;
	if (t->as->refs > 1) {		/* a vfork child leaving its parent's memory */
		aspace__put(t->as);
		t->as = NULL;
		r = aspace__new(t->tgid, &as);
		t->as = r == 0 ? as : NULL;
	} else {
		r = aspace__reset(t->as, t->tgid);
	}
	if (r == 0)
		r = maptab__load_proc(t->as->mt, t->tgid);
	if (r < 0)
		pr_warn("pid %d: cannot read the map table after exec: %s; its probes stay unplanted\n",
			t->tgid, strerror(-r));
	thread__read_comm(t);
	t->sc_nr = -1;
	if (t->shadow)			/* the old image's stack is gone */
		shadow__clear(t->shadow);
	task_exec(s, t);
	if (r == 0)
		mmapev_table(s, t);	/* the new image's mappings */
	if (t->quiet && t->as)		/* not followed: its new image gets no probes */
		t->as->unplanted = true;
	if (t->quiet && s->attach && !s->detaching) {
		/* a vfork child, not followed, left its parent's memory: let it go */
		pt_detach(t->tid, 0);
		thread__remove(s, t);
		return;
	}
	t->exec_pending = r == 0 && !s->detaching;
	t->want_exit = t->exec_pending;	/* plant at the execve exit, before any user code runs */
	if (!s->detaching)
		thread__resume(t, 0);
}

static bool is_clone_family(long nr)
{
	return nr == SYS_clone || nr == SYS_clone3 || nr == SYS_fork || nr == SYS_vfork;
}

/* The child's address space: shared (CLONE_VM), else a copy holding the same int3s. */
static struct aspace *child_aspace(struct thread *t, pid_t pid, uint64_t flags)
{
	struct aspace *as;

	if (flags & CLONE_VM)
		return aspace__get(t->as);
	if (aspace__clone(t->as, pid, &as) == 0)
		return as;	/* checked against the child's memory by plant_fork_fixup() */
	/* Left running, the child would die on its first inherited int3. */
	pr_err("pid %d: cannot copy the probe table for its child %d; killing the child\n",
	       t->tgid, pid);
	kill(pid, SIGKILL);
	return NULL;
}

/*
 * The flags of the clone T is inside (at its event stop), read from its
 * registers: attached, no seccomp stop saw the call.  From the event alone
 * when they cannot be read.
 */
static uint64_t clone_flags_now(struct thread *t, int ev)
{
	uint64_t flags = ev == PTRACE_EVENT_VFORK ? CLONE_VM | CLONE_VFORK :
			 ev == PTRACE_EVENT_CLONE ? CLONE_VM | CLONE_THREAD : 0;
	arch_regs_t regs;
	uint64_t v;

	if (ev != PTRACE_EVENT_CLONE || pt_getregs(t->tid, &regs) < 0)
		return flags;
	/* its first argument: the flags (clone), or its struct clone_args (clone3) */
	if (arch_syscall_nr(&regs) == SYS_clone)
		return arch_syscall_arg(&regs, 0);
	if (arch_syscall_nr(&regs) == SYS_clone3 &&
	    mem_read(t->tid, arch_syscall_arg(&regs, 0), &v, sizeof(v)) == sizeof(v))
		return v;
	return flags;
}

struct thread *loop_clone_child(struct session *s, struct thread *t, int ev)
{
	unsigned long msg = 0;
	uint64_t flags = t->clone_flags;
	struct thread *c;
	pid_t pid;

	if (pt_geteventmsg(t->tid, &msg) < 0 || !msg)
		return NULL;
	pid = (pid_t)msg;
	if (!is_clone_family(t->sc_nr))		/* not seen at its seccomp stop */
		flags = clone_flags_now(t, ev);
	t->sc_nr = -1;
	c = thread__find(s, pid);
	if (!c)
		c = thread__add(s, pid, pid, NULL);
	if (!c)
		return NULL;
	c->tgid = flags & CLONE_THREAD ? t->tgid : pid;
	c->sysmode = t->sysmode;
	c->quiet = t->quiet || (s->no_follow && !(flags & CLONE_THREAD));
	aspace__put(c->as);	/* seized while attaching, before this event came */
	c->as = child_aspace(t, pid, flags);
	memcpy(c->comm, t->comm, sizeof(c->comm));
	/* a fork child's stack is a copy: it returns through the trampoline too */
	if (c->shadow && t->shadow && !(flags & CLONE_VM))
		shadow__copy(c->shadow, t->shadow);
	if (c->as && !(flags & CLONE_VM)) {
		if (plant_fork_fixup(s, c) < 0)
			pr_warn("pid %d: cannot check its probe table against its memory\n", pid);
		/* not followed, or tracing is over: no breakpoint may stay in it */
		/* (its return addresses go back in detach_child() when it is let go;
		 * kept traced, its returns through the trampoline just go unrecorded) */
		if (c->quiet || c->as->unplanted) {
			detach_restore_bytes(c->as, false);	/* it has not run yet */
			c->detach_at_stop = s->attach && c->quiet;
		}
	}
	if (!(flags & CLONE_THREAD))
		task_int(s, t, REC_KIND_FORK, "child", pid);
	return c;
}

/* A new child at its first stop, its parent's event seen: run it, or let it go. */
static void child_go(struct session *s, struct thread *c)
{
	if (c->detach_at_stop)
		detach_child(s, c);
	else
		thread__resume(c, 0);
}

static void on_clone(struct session *s, struct thread *t, int ev)
{
	struct thread *c = loop_clone_child(s, t, ev);

	if (c && c->stopped && c->as)	/* its first stop came before this event */
		child_go(s, c);
	thread__resume(t, 0);
}

static void on_event_stop(struct session *s, struct thread *t, int sig)
{
	if (!t->as)		/* a new child: held until its parent's clone event */
		return;
	if (t->detach_at_stop) {
		detach_child(s, t);
		return;
	}
	/* attached while stopped (kill -STOP): plant now that it runs again */
	if (sig == SIGTRAP)
		t->gstop = false;
	if (t->as->plant_pending && sig == SIGTRAP) {
		t->as->plant_pending = false;
		if (plant_range(s, t, 0, UINT64_MAX, false) == -ESRCH)
			return;
	}
	if (sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU) {
		/* A group-stop: stay stopped until SIGCONT, but keep tracing. */
		t->stopped = false;
		if (pt_listen(t->tid) < 0)
			thread__resume(t, 0);
		return;
	}
	thread__resume(t, 0);
}

static void on_sigtrap(struct session *s, struct thread *t)
{
	siginfo_t si;
	int r;

	if (pt_getsiginfo(t->tid, &si) == 0 && arch_is_bp_trap(si.si_code)) {
		r = hit_handle(s, t);
		if (r == 0 || r == -ESRCH)
			return;
	}
	hit_slot_signal(s, t, SIGTRAP);	/* the program's own trap: deliver it, */
	thread__resume(t, SIGTRAP);	/* never from inside a slot */
}

static void on_stop(struct session *s, struct thread *t, int st)
{
	int sig = WSTOPSIG(st), ev = st >> 16;

	t->stopped = true;
	if (sig == (SIGTRAP | 0x80)) {
		on_syscall_stop(s, t);
		return;
	}
	switch (ev) {
	case PTRACE_EVENT_SECCOMP:
		on_seccomp(s, t);
		return;
	case PTRACE_EVENT_EXEC:
		loop_exec(s, t);
		return;
	case PTRACE_EVENT_FORK:
	case PTRACE_EVENT_VFORK:
	case PTRACE_EVENT_CLONE:
		on_clone(s, t, ev);
		return;
	case PTRACE_EVENT_STOP:
		on_event_stop(s, t, sig);
		return;
	case 0:
		break;
	default:
		thread__resume(t, 0);
		return;
	}
	if (sig == SIGTRAP) {
		on_sigtrap(s, t);
		return;
	}
	hit_slot_signal(s, t, sig);
	thread__resume(t, sig);
}

/* A stop from a tid we do not know: a new child whose parent's event is still to come. */
void loop_unknown(struct session *s, pid_t pid, int st)
{
	struct thread *t;

	if (!WIFSTOPPED(st))
		return;
	t = thread__add(s, pid, pid, NULL);
	if (!t) {
		pr_err("out of memory tracking new thread %d\n", pid);
		return;
	}
	t->stopped = true;
}

/*
 * Tracing is over (loop_end, or the output is a closed pipe).  Attached:
 * let everything go.  Launched: remove the breakpoints; the command runs on
 * (it cannot be detached, see launch.h) and its end ends the session.
 */
static void end_tracing(struct session *s)
{
	loop_end = 0;
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

static pid_t wait_any(int *st)
{
	static const volatile sig_atomic_t *const flags[] = { &loop_end, &loop_stop_sig,
							      &loop_flush, NULL };
	long r = arch_wait4_cancellable(-1, st, __WALL, flags);

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

static void on_flush_timer(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)si;
	loop_flush = 1;
	loop_signal(uc);
}

static void flush_timer_init(void)
{
	struct sigaction sa = { .sa_sigaction = on_flush_timer,
				.sa_flags = SA_SIGINFO | SA_RESTART };
	struct sigevent ev = { .sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGRTMIN };

	sigemptyset(&sa.sa_mask);
	flush_timer_ok = sigaction(SIGRTMIN, &sa, NULL) == 0 &&
			 timer_create(CLOCK_MONOTONIC, &ev, &flush_timer) == 0;
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

int loop_run(struct session *s)
{
	flush_timer_init();
	while (s->nthreads > 0) {
		struct thread *t;
		int st;
		pid_t pid;

		flush_due(s);

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
		if (pid < 0) {
			if (errno == EINTR)
				continue;
			if (errno == ECHILD)
				break;
			return -errno;
		}
		if (WIFEXITED(st) || WIFSIGNALED(st)) {
			loop_gone(s, pid, st);
			continue;
		}
		t = thread__find(s, pid);
		placement_note_stop(s, t);
		if (!t)
			loop_unknown(s, pid, st);
		else if (!t->as && (st >> 16) != PTRACE_EVENT_STOP)
			thread__resume(t, 0);	/* should not happen: a held child that was not held */
		else
			on_stop(s, t, st);
	}
	return 0;
}
