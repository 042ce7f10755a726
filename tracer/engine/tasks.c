/* tracer/engine/tasks.c: threads and processes coming and going (tasks.h):
 * a new child registered at its parent's clone event, with its address
 * space shared or copied; an exec, which replaces the address space; an
 * exit; a stop from a tid not yet known.  Shared by the main loop and by
 * detach_all(), which must follow them too while it stops everything. */
#include <errno.h>
#include <linux/sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "arch/arch.h"
#include "probes/err.h"
#include "probes/log.h"
#include "tracer/engine/calls.h"
#include "tracer/engine/inproc.h"
#include "tracer/engine/plant.h"
#include "tracer/engine/ptrace.h"
#include "tracer/engine/shadow.h"
#include "tracer/engine/tasks.h"
#include "tracer/events/mmapev.h"
#include "tracer/events/syscall.h"
#include "tracer/events/taskrec.h"
#include "tracer/host/fdlimit.h"
#include "tracer/host/privs.h"
#include "tracer/session.h"
#include "tracer/space/aspace.h"
#include "tracer/space/maptab.h"
#include "tracer/space/mem.h"
#include "tracer/thread.h"

struct thread *tasks_add(struct session *s, pid_t tid, pid_t tgid, struct aspace *as)
{
	struct thread *t = thread__add(s, tid, tgid, as);

	if (t && syscall_thread_init(s, t) < 0) {
		syscall_thread_free(t);
		thread__remove(s, t);
		return NULL;
	}
	return t;
}

/* A vfork child T leaves its parent's memory (its exec, its end): counted off once. */
static void vfork_left(struct thread *t)
{
	if (t->vfork_child)
		inproc_vfork(t, false);
	t->vfork_child = false;
}

void tasks_forget(struct session *s, struct thread *t)
{
	vfork_left(t);	/* gone without an exec (_exit) */
	syscall_unfinished(s, t);	/* never seen to return: recorded so */
	inproc_thread_gone(s, t);
	syscall_thread_free(t);
	thread__remove(s, t);
}

void tasks_exited(struct session *s, pid_t pid, int status)
{
	struct thread *t = thread__find(s, pid);

	if (pid == s->cmd_pid) {
		s->cmd_status = status;
		s->cmd_exited = true;
	}
	if (t && t->tid == t->tgid)
		taskrec_exit(s, t, status);
	if (t) {
		inproc_held_of(s, t);	/* a call it held in the process: its frame too */
		calls_thread_gone(s, t);
	}
	if (t)
		tasks_forget(s, t);
}

/* Other threads of an exec'ing process are gone (ptrace(2), "execve(2) under ptrace"). */
static void drop_siblings(struct session *s, struct thread *t, void *arg)
{
	const struct thread *leader = arg;

	if (t != leader && t->tgid == leader->tgid)
		tasks_forget(s, t);
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
	struct ptap_err err = { .pos = -1 };

	if (privs_check_owner("/proc", t->tgid, &err) == 0)
		return false;
	pr_warn("%s; not traced after its exec\n", err.msg);
	pt_detach(t->tid, 0);
	tasks_forget(s, t);
	return true;
}

void tasks_exec(struct session *s, struct thread *t)
{
	struct aspace *as;
	int r;

	thread__for_each(s, drop_siblings, t);
	if (exec_refused(s, t))
		return;
	inproc_note_gone(s);
	inproc_exec(s, t);	/* out of the rings it wrote: a fork child's are its parent's too */
	if (t->as->refs > 1) {		/* a vfork child leaving its parent's memory */
		vfork_left(t);
		aspace__put(t->as);
		t->as = NULL;
		r = aspace__new(t->tgid, &as);
		t->as = r == 0 ? as : NULL;
	} else {
		r = aspace__reset(t->as, t->tgid);
	}
	if (r == 0)
		r = maptab__load_proc(t->as->mt, t->tgid);
	if (r < 0) {
		char hint[160];

		pr_warn("pid %d: cannot read the map table after exec: %s%s; its probes stay "
			"unplanted\n", t->tgid, strerror(-r), fdlimit_hint(-r, hint, sizeof(hint)));
	}
	thread__read_comm(t);
	t->sc_nr = -1;
	if (t->shadow)			/* the old image's stack is gone */
		shadow__clear(t->shadow);
	thread__acct_close(s, t);		/* its tid may be the leader's now: opened again */
	taskrec_exec(s, t);
	if (r == 0)
		mmapev_table(s, t);	/* the new image's mappings */
	if (t->quiet && t->as)		/* not followed: its new image gets no probes */
		t->as->unplanted = true;
	if (t->quiet && s->attach && !s->detaching) {
		/* a vfork child, not followed, left its parent's memory: let it go */
		pt_detach(t->tid, 0);
		tasks_forget(s, t);
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
	char hint[160];
	int r;

	if (flags & CLONE_VM)
		return aspace__get(t->as);
	r = aspace__clone(t->as, pid, &as);
	if (r == 0)
		return as;	/* checked against the child's memory by plant_fork_fixup() */
	/* Left running, the child would die on its first inherited int3. */
	pr_err("pid %d: cannot copy the probe table for its child %d (%s%s); killing the child\n",
	       t->tgid, pid, strerror(-r), fdlimit_hint(-r, hint, sizeof(hint)));
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

struct thread *tasks_clone_child(struct session *s, struct thread *t, int ev)
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
		c = tasks_add(s, pid, pid, NULL);
	if (!c)
		return NULL;
	c->tgid = flags & CLONE_THREAD ? t->tgid : pid;
	c->sysmode = t->sysmode;
	c->quiet = t->quiet || (s->no_follow && !(flags & CLONE_THREAD));
	aspace__put(c->as);	/* seized while attaching, before this event came */
	c->as = child_aspace(t, pid, flags);
	memcpy(c->comm, t->comm, sizeof(c->comm));
	if ((flags & CLONE_VM) && !(flags & CLONE_THREAD) && !c->vfork_child) {
		inproc_vfork(t, true);	/* on its parent's thread pointer */
		c->vfork_child = true;
	}
	/* a fork child's stack is a copy: its pending calls return in it too */
	if (c->shadow && t->shadow && !(flags & CLONE_VM)) {
		inproc_held_of(s, t);	/* with the call it holds in the process */
		shadow__copy(c->shadow, t->shadow);
	}
	if (c->as && !(flags & CLONE_VM)) {
		if (plant_fork_fixup(s, c) < 0)
			pr_warn("pid %d: cannot check its probe table against its memory\n", pid);
		/* not followed, or tracing is over: no breakpoint may stay in it */
		if (c->quiet || c->as->unplanted) {
			plant_restore(c->as, false);	/* it has not run yet */
			c->detach_at_stop = s->attach && c->quiet;
		}
	}
	if (!(flags & CLONE_THREAD))
		taskrec_fork(s, t, pid);
	return c;
}

/* A stop from a tid we do not know: a new child whose parent's event is still to come. */
void tasks_unknown(struct session *s, pid_t pid, int st)
{
	struct thread *t;

	if (!WIFSTOPPED(st))
		return;
	t = tasks_add(s, pid, pid, NULL);
	if (!t) {
		pr_err("out of memory tracking new thread %d\n", pid);
		return;
	}
	t->stopped = true;
}
