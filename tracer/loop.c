/* tracer/loop.c: the event loop.  Every stop is classified from the wait
 * status (event << 16 | signal), PTRACE_GETSIGINFO and the syscall info
 * (ptrace(2), "Stopped states"): syscall stops carry SIGTRAP|0x80
 * (PTRACE_O_TRACESYSGOOD), so a plain SIGTRAP is a breakpoint or the
 * program's own trap. */
#include <errno.h>
#include <linux/ptrace.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>

#include "arch/arch.h"
#include "probes/log.h"
#include "tracer/aspace.h"
#include "tracer/hit.h"
#include "tracer/loop.h"
#include "tracer/maptab.h"
#include "tracer/mem.h"
#include "tracer/plant.h"
#include "tracer/ptrace.h"
#include "tracer/session.h"
#include "tracer/sysmap.h"
#include "tracer/thread.h"

volatile sig_atomic_t loop_stop_sig;
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

static void on_gone(struct session *s, pid_t pid, int status)
{
	struct thread *t = thread__find(s, pid);

	if (pid == s->cmd_pid) {
		s->cmd_status = status;
		s->cmd_exited = true;
	}
	if (t)
		thread__remove(s, t);
	if (s->cmd_exited && (pid == loop_forward_pid || pid == s->cmd_pid))
		thread__for_each(s, pick_forward, NULL);
}

static void on_seccomp(struct session *s, struct thread *t)
{
	struct ptrace_syscall_info info;

	if (pt_syscall_info(t->tid, &info) < 0 || info.op != PTRACE_SYSCALL_INFO_SECCOMP) {
		thread__resume(t, 0);
		return;
	}
	t->sc_nr = (long)info.seccomp.nr;
	memcpy(t->sc_args, info.seccomp.args, sizeof(t->sc_args));
	t->want_exit = sysmap_on_entry(s, t);
	thread__resume(t, 0);
}

static void on_syscall_stop(struct session *s, struct thread *t)
{
	struct ptrace_syscall_info info;
	int r = 0;

	if (pt_syscall_info(t->tid, &info) < 0 || info.op != PTRACE_SYSCALL_INFO_EXIT) {
		thread__resume(t, 0);
		return;
	}
	if (!t->as->syscall_pc)
		sysmap_note_syscall_pc(t->as, info.instruction_pointer);
	if (t->exec_pending) {
		t->exec_pending = false;
		r = plant_range(s, t, 0, UINT64_MAX);
	} else if (t->want_exit) {
		r = sysmap_on_exit(s, t, &info);
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

static void on_exec(struct session *s, struct thread *t)
{
	struct aspace *as;
	int r;

	thread__for_each(s, drop_siblings, t);
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
	t->exec_pending = r == 0;
	t->want_exit = r == 0;		/* plant at the execve exit, before any user code runs */
	t->sc_nr = -1;
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

static void on_clone(struct session *s, struct thread *t, int ev)
{
	unsigned long msg = 0;
	uint64_t flags = t->clone_flags;
	struct thread *c;
	pid_t pid;

	if (pt_geteventmsg(t->tid, &msg) < 0 || !msg) {
		thread__resume(t, 0);
		return;
	}
	pid = (pid_t)msg;
	if (!is_clone_family(t->sc_nr))		/* not seen at its seccomp stop */
		flags = ev == PTRACE_EVENT_VFORK ? CLONE_VM | CLONE_VFORK :
			ev == PTRACE_EVENT_CLONE ? CLONE_VM | CLONE_THREAD : 0;
	c = thread__find(s, pid);
	if (!c)
		c = thread__add(s, pid, pid, NULL);
	if (c) {
		c->tgid = flags & CLONE_THREAD ? t->tgid : pid;
		c->as = child_aspace(t, pid, flags);
		memcpy(c->comm, t->comm, sizeof(c->comm));
		if (c->as && !(flags & CLONE_VM) && plant_fork_fixup(s, c) < 0)
			pr_warn("pid %d: cannot check its probe table against its memory\n", pid);
		if (c->stopped && c->as)	/* its first stop came before this event */
			thread__resume(c, 0);
	}
	t->sc_nr = -1;
	thread__resume(t, 0);
}

static void on_event_stop(struct thread *t, int sig)
{
	if (!t->as)		/* a new child: held until its parent's clone event */
		return;
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
	thread__resume(t, SIGTRAP);	/* the program's own trap: deliver it */
}

/*
 * A synchronous fault raised by an out-of-line copy: the handler (and a core
 * dump) must see the probed instruction's address, not ptap's scratch page.
 * Returning from the handler re-runs the instruction through the probe,
 * which then records the call again.
 */
static void fault_in_slot(struct thread *t, int sig)
{
	arch_regs_t regs;
	uint64_t pc;

	if ((sig != SIGSEGV && sig != SIGBUS && sig != SIGFPE && sig != SIGILL) || !t->as ||
	    pt_getregs(t->tid, &regs) < 0)
		return;
	pc = arch_regs_pc(&regs);
	for (size_t i = 0; i < t->as->nsites; i++) {
		const struct site *st = &t->as->sites[i];

		if (st->slot && pc >= st->slot && pc < st->slot + st->insn.len) {
			arch_regs_set_pc(&regs, st->addr);
			pt_setregs(t->tid, &regs);
			return;
		}
	}
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
		on_exec(s, t);
		return;
	case PTRACE_EVENT_FORK:
	case PTRACE_EVENT_VFORK:
	case PTRACE_EVENT_CLONE:
		on_clone(s, t, ev);
		return;
	case PTRACE_EVENT_STOP:
		on_event_stop(t, sig);
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
	fault_in_slot(t, sig);
	thread__resume(t, sig);
}

/* A stop from a tid we do not know: a new child whose parent's event is still to come. */
static void on_unknown(struct session *s, pid_t pid, int st)
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

int loop_run(struct session *s)
{
	while (s->nthreads > 0) {
		struct thread *t;
		int st;
		pid_t pid;

		if (loop_stop_sig)
			pass_stop_signal(s);
		if (!session__undefer(s, &pid, &st))
			pid = waitpid(-1, &st, __WALL);
		if (pid < 0) {
			if (errno == EINTR)
				continue;
			if (errno == ECHILD)
				break;
			return -errno;
		}
		if (WIFEXITED(st) || WIFSIGNALED(st)) {
			on_gone(s, pid, st);
			continue;
		}
		t = thread__find(s, pid);
		if (!t)
			on_unknown(s, pid, st);
		else if (!t->as && (st >> 16) != PTRACE_EVENT_STOP)
			thread__resume(t, 0);	/* should not happen: a held child that was not held */
		else
			on_stop(s, t, st);
	}
	return 0;
}
