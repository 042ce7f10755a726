/* tracer/engine/detach.c: letting traced processes go as they were (README.md,
 * "How it works").  Every thread is stopped first: a byte is
 * put back only while no thread can be inside the code it belongs to, a
 * scratch page is unmapped only once no thread runs in it, and a thread is
 * detached from a stop whose meaning we know. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "arch/arch.h"
#include "probes/log.h"
#include "tracer/engine/detach.h"
#include "tracer/engine/hit.h"
#include "tracer/engine/inject.h"
#include "tracer/engine/inproc.h"
#include "tracer/engine/plant.h"
#include "tracer/engine/ptrace.h"
#include "tracer/engine/stop.h"
#include "tracer/engine/tasks.h"
#include "tracer/host/procstatus.h"
#include "tracer/session.h"
#include "tracer/space/aspace.h"
#include "tracer/space/maptab.h"
#include "tracer/space/mem.h"
#include "tracer/space/stacks.h"
#include "tracer/thread.h"

/* How long to wait for every thread to stop before letting go of the rest. */
#define STOP_ALL_TIMEOUT_NS	5000000000ULL

static void unplant_one(struct session *s, struct thread *t, void *arg)
{
	(void)s;
	(void)arg;
	if (t->as && !t->as->unplanted)
		plant_restore(t->as, true);
}

void detach_unplant_all(struct session *s)
{
	s->unplanted = true;
	thread__for_each(s, unplant_one, NULL);
	pr_info("tracing ended: breakpoints removed; waiting for the command to finish\n");
}

/* Can a system call be run through T now without changing what T does next? */
static bool can_inject(const struct thread *t)
{
	return t->stopped && t->as && !t->gstop && !t->pending_sig &&
	       (t->stop_kind == STOP_EVENT || t->stop_kind == STOP_SC_EXIT ||
		t->stop_kind == STOP_SIGNAL || t->stop_kind == STOP_BREAKPOINT);
}

/* Unmap T's address space's scratch pages through T.  No thread may be in them. */
static void unmap_scratch(struct session *s, struct thread *t)
{
	struct aspace *as = t->as;

	while (as->nscratch > 0) {
		const struct scratch *sc = &as->scratch[as->nscratch - 1];
		uint64_t args[6] = { sc->start, sc->len };
		long ret;

		if (inject_syscall(s, t, SYS_munmap, args, &ret) < 0 || ret < 0) {
			pr_debug("pid %d: scratch page 0x%lx left mapped\n", t->tgid,
				 (unsigned long)sc->start);
			return;
		}
		maptab__remove(as->mt, sc->start, sc->start + sc->len);
		as->nscratch--;
	}
}

void detach_child(struct session *s, struct thread *c)
{
	if (c->stop_kind == STOP_NONE)	/* its first stop, before its parent's event */
		c->stop_kind = STOP_EVENT;
	if (c->as && c->as->refs == 1 && can_inject(c))
		unmap_scratch(s, c);
	pt_detach(c->tid, 0);
	tasks_forget(s, c);
}

/* One wait status while stopping everything: note the stop, resume nothing. */
static void detach_event(struct session *s, pid_t pid, int status)
{
	struct thread *t;
	struct stop st;

	if (WIFEXITED(status) || WIFSIGNALED(status)) {
		tasks_exited(s, pid, status);
		return;
	}
	t = thread__find(s, pid);
	if (!t) {
		tasks_unknown(s, pid, status);
		t = thread__find(s, pid);
		if (t)
			t->stop_kind = STOP_EVENT;
		return;
	}
	t->stopped = true;
	stop_classify(t->tid, status, &st);
	t->stop_kind = st.kind;
	switch (st.kind) {
	case STOP_SC_ENTRY:
	case STOP_SC_EXIT:
	case STOP_SC_UNREAD:
		t->exec_pending = false;
		return;
	case STOP_EVENT:
		t->gstop = st.group;
		return;
	case STOP_CLONE:
	case STOP_VFORK:
		tasks_clone_child(s, t, st.ev);
		return;
	case STOP_EXEC:
		tasks_exec(s, t);
		return;
	case STOP_BREAKPOINT:	/* ours: recorded, and the thread left at the probe address */
		if (t->as && hit_handle(s, t) != -ENOENT)
			return;
		t->stop_kind = STOP_SIGNAL;
		break;
	case STOP_SIGNAL:
		if (inproc_read_fault(t, st.sig))
			return;
		break;
	case STOP_NONE:
	case STOP_SECCOMP:
	case STOP_OTHER:
		return;
	}
	hit_slot_signal(t, st.sig);
	t->pending_sig = st.sig;
}

static void interrupt_one(struct session *s, struct thread *t, void *arg)
{
	(void)s;
	(void)arg;
	if (!t->stopped)
		pt_interrupt(t->tid);	/* ESRCH: exiting, its exit status is on the way */
}

/* A zombie thread (a leader that called pthread_exit) never stops: do not wait for it. */
static bool is_zombie(const struct thread *t)
{
	char path[64], buf[256], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", t->tgid, t->tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return true;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	p = strrchr(buf, ')');
	return !p || p[1] != ' ' || p[2] == 'Z' || p[2] == 'X';
}

static void count_running(struct session *s, struct thread *t, void *arg)
{
	(void)s;
	*(size_t *)arg += !t->stopped && !is_zombie(t);
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/*
 * Take in stops until every thread is stopped (or time is up), interrupting
 * the running ones when INTERRUPT (and new children as they come).
 */
static void wait_stops(struct session *s, bool interrupt)
{
	const struct timespec ms = { 0, 1000000 };
	uint64_t deadline = mono_ns() + STOP_ALL_TIMEOUT_NS;

	if (interrupt)
		thread__for_each(s, interrupt_one, NULL);
	for (;;) {
		size_t running = 0;
		int st;
		pid_t pid;

		if (session__undefer(s, &pid, &st)) {
			detach_event(s, pid, st);
			continue;
		}
		thread__for_each(s, count_running, &running);
		if (!running)
			return;
		pid = waitpid(-1, &st, __WALL | WNOHANG);
		if (pid > 0) {
			detach_event(s, pid, st);
			if (interrupt)	/* a child that came meanwhile must stop too */
				thread__for_each(s, interrupt_one, NULL);
			continue;
		}
		if (pid < 0 && errno != EINTR)
			return;
		if (mono_ns() > deadline) {
			pr_warn("%zu thread(s) did not stop within 5 s; letting them go as they are\n",
				running);
			return;
		}
		nanosleep(&ms, NULL);
	}
}

/* Is SIG pending for thread T itself (SigPnd in its /proc status)? */
static bool sig_pending(const struct thread *t, int sig)
{
	return procstatus_field(t->tgid, t->tid, "SigPnd", 16, 0) & (1ULL << (sig - 1));
}

static void release_trap(struct session *s, struct thread *t, void *arg)
{
	(void)s;
	if (!t->stopped || !t->as || !sig_pending(t, SIGTRAP))
		return;
	t->stopped = false;
	if (pt_cont(t->tid, 0) == 0)
		++*(int *)arg;
}

/*
 * A thread that hit an int3 just before it was interrupted reports the
 * interrupt (or a group-stop) first, its SIGTRAP still queued: detached so,
 * the SIGTRAP would kill it.  Let each such thread take its SIGTRAP now, as
 * a hit (recorded and rewound, see detach_event()).
 */
static void drain_traps(struct session *s)
{
	for (int round = 0; round < 3; round++) {
		int n = 0;

		thread__for_each(s, release_trap, &n);
		if (!n)
			return;
		wait_stops(s, false);
	}
}

/*
 * A new child whose parent's clone event never came (the parent died in
 * between): a thread shares its process's memory; a process got a copy of
 * its parent's, int3s included.
 */
static void adopt_orphan(struct session *s, struct thread *t, void *arg)
{
	pid_t tgid, ppid;
	struct thread *p;

	(void)arg;
	if (t->as)
		return;
	tgid = (pid_t)procstatus_field(t->tid, 0, "Tgid", 10, 0);
	ppid = (pid_t)procstatus_field(t->tid, 0, "PPid", 10, 0);
	p = thread__find(s, tgid && tgid != t->tid ? tgid : ppid);
	if (!p || !p->as)
		return;
	t->tgid = tgid ? tgid : t->tid;
	if (t->tgid == p->tgid) {
		t->as = aspace__get(p->as);
	} else if (aspace__clone(p->as, t->tid, &t->as) == 0) {
		t->as->unplanted = false;
		plant_fork_fixup(s, t);
	}
}

static void unslot_one(struct session *s, struct thread *t, void *arg)
{
	(void)s;
	(void)arg;
	if (t->stopped && t->as)
		hit_slot_signal(t, 0);
}

/*
 * Is PC, with the stack at SP, code of ours: a trampoline (a jump site's,
 * or one calling the agent) or the agent, or the vDSO called from the agent
 * (a return address into the agent among the words at SP)?  Unmapped under
 * a thread there, or one that will return there, it would fault.
 */
static bool pc_is_ours(const struct thread *t, uint64_t pc, uint64_t sp)
{
	const struct aspace *as = t->as;
	uint64_t words[32];
	const struct map_entry *e;
	ssize_t n;

	for (size_t i = 0; i < as->nscratch; i++)
		if (pc - as->scratch[i].start < as->scratch[i].len)
			return true;
	e = maptab__find(as->mt, pc);
	if (!as->agent_hi || !e || !e->path || strcmp(e->path, "[vdso]"))
		return false;
	n = mem_read(t->tid, sp, words, sizeof(words));
	for (ssize_t i = 0; i < n / 8; i++)
		if (words[i] - as->agent_lo < as->agent_hi - as->agent_lo)
			return true;
	return false;
}

static bool in_our_code(const struct thread *t, const arch_regs_t *regs)
{
	return pc_is_ours(t, arch_regs_pc(regs), arch_regs_sp(regs));
}

/* The flags word pushfq left at SP, without the trap flag. */
static void clear_pushed_tf(const struct thread *t, uint64_t sp)
{
	uint64_t flags;

	if (mem_read(t->tid, sp, &flags, sizeof(flags)) == sizeof(flags) &&
	    (flags & ARCH_FLAGS_TF)) {
		flags &= ~(uint64_t)ARCH_FLAGS_TF;
		mem_write(t->as->memfd, sp, &flags, sizeof(flags));
	}
}

static bool frame_into_ours(const uint64_t *w, void *arg)
{
	const struct thread *t = arg;

	return pc_is_ours(t, w[ARCH_SIGFRAME_PC], w[ARCH_SIGFRAME_SP]);
}

/* T's mappings as they are now, read once for the stepping of handlers */
struct live_maps {
	struct maptab *mt;
	pid_t tgid;		/* whose they are (0: none read) */
	uint64_t deadline;	/* of the stepping, for every thread together */
};

/*
 * Do T's stacks, from SP up, hold a signal frame whose saved pc is code of
 * ours: a signal handler running on top of the agent or a trampoline, which
 * would return into it once the handler is done (stacks.h)?  1 yes, 0 no,
 * -1 not known.  Against T's mappings as they are (LM, read again when a
 * stack is in none of them: attached, ptap's own table does not know a
 * thread's stack mapped since, nor one a handler maps), read through T
 * (the process's own /proc entry is empty once its leader exited).
 */
static int handler_frame(const struct thread *t, struct live_maps *lm, uint64_t sp)
{
	const struct stacks_scan sc = { .frame = frame_into_ours, .arg = (void *)t };
	int r = -1;

	for (int round = 0; round < 2 && r < 0; round++) {
		if (lm->tgid != t->tgid || round) {
			lm->tgid = 0;
			if (!lm->mt || maptab__load_proc(lm->mt, t->tid) < 0)
				return -1;
			lm->tgid = t->tgid;
		}
		r = stacks_scan(t->tid, lm->mt, sp, &sc);
	}
	return r;
}

#define STEP_OUT_MAX	100000	/* instructions: the agent, its rings closed, returns in far fewer */
/* How long the signal handlers that interrupted code of ours are waited for, all together (handler_out()) */
#define HANDLER_WAIT_NS	1000000000ULL

/*
 * T's next stop: its pid with the status in *ST, or -1; by DEADLINE, or 0
 * with T interrupted and that stop in *ST.
 */
static pid_t wait_until(pid_t tid, int *st, uint64_t deadline)
{
	pid_t r;

	for (unsigned int i = 0;; i++) {
		r = waitpid(tid, st, __WALL | WNOHANG);
		if (r != 0 && !(r < 0 && errno == EINTR))
			return r;
		if (mono_ns() > deadline)
			break;
		if (i < 64)
			sched_yield();
		else
			nanosleep(&(struct timespec){ 0, 100000 }, NULL);
	}
	pt_interrupt(tid);
	while ((r = waitpid(tid, st, __WALL)) < 0 && errno == EINTR)
		;
	return r == tid ? 0 : -1;
}

/*
 * Single-step T, stopped at REGS, by one instruction: 0, or -1 when it
 * could not be stepped, is gone, stopped at an event (a fork, an exec:
 * noted) or DEADLINE passed (0: none).  With a deadline, a signal that
 * stopped T is delivered by the next step (a handler of the program's
 * stepped through for long must not lose one); without, it is kept for
 * the detach.
 */
static int step1(struct session *s, struct thread *t, const arch_regs_t *regs,
		 uint64_t deadline)
{
	arch_regs_t after;
	uint8_t op = 0;
	int st = 0, sig = deadline ? t->pending_sig : 0;
	pid_t r;

	/* a pushfq stepped over pushes the trap flag: a popfq (the program's, or
	 * the trampoline's on a CPU without sahf: arch.h) would set it again, and
	 * the thread, detached, die of a SIGTRAP */
	mem_read(t->tid, arch_regs_pc(regs), &op, 1);
	if (pt_step(t->tid, sig) < 0)
		return -1;
	if (sig)
		t->pending_sig = 0;
	r = deadline ? wait_until(t->tid, &st, deadline) : waitpid(t->tid, &st, __WALL);
	if (r < 0)
		return -1;
	if (WIFEXITED(st) || WIFSIGNALED(st)) {
		tasks_exited(s, t->tid, st);
		return -1;
	}
	if (WIFSTOPPED(st) && (st >> 16) && (st >> 16) != PTRACE_EVENT_STOP) {
		detach_event(s, t->tid, st);	/* a new child is known, at least */
		return -1;
	}
	/* the agent's fault first, whatever is pending: else the step faults for ever */
	if (WIFSTOPPED(st) && WSTOPSIG(st) != SIGTRAP && !(st >> 16) &&
	    !inproc_read_fault(t, WSTOPSIG(st)) && !t->pending_sig)
		t->pending_sig = WSTOPSIG(st);
	/* only where the step ran the pushfq: a signal may have stopped it before */
	if (op == ARCH_PUSHF_OP && WIFSTOPPED(st) && WSTOPSIG(st) == SIGTRAP &&
	    pt_getregs(t->tid, &after) == 0 && arch_regs_pc(&after) == arch_regs_pc(regs) + 1)
		clear_pushed_tf(t, arch_regs_sp(&after));
	return r ? 0 : -1;
}

/*
 * Single-step T out of code of ours (in_our_code()), so that it can be
 * unmapped: out of a trampoline, the thread runs the relocated instructions
 * and is back in its own code; in the agent (its rings closed, it records
 * no more), it returns to the trampoline first.  A signal that comes
 * meanwhile is kept for the detach, as at any stop.  The instructions
 * stepped, or -1 (said; the pages stay mapped).
 */
static int step_while_ours(struct session *s, struct thread *t)
{
	pid_t tid = t->tid;
	arch_regs_t regs;
	int steps = 0;

	while (pt_getregs(tid, &regs) == 0 && in_our_code(t, &regs)) {
		if (steps++ == STEP_OUT_MAX || step1(s, t, &regs, 0) < 0) {
			if (thread__find(s, tid) != t)
				return -1;	/* gone (T with it) */
			pr_warn("tid %d: still in ptap's code at 0x%lx: its pages stay mapped\n",
				t->tid, (unsigned long)arch_regs_pc(&regs));
			t->as->keep_scratch = true;
			return -1;
		}
	}
	return steps;
}

/*
 * Is T, stopped at REGS, on a system call that forks or execs: at its
 * syscall instruction, or, FIRST (its stop as ptap found it), at the
 * call's entry?
 */
static bool at_fork_or_exec(const struct thread *t, const arch_regs_t *regs, bool first)
{
	uint8_t insn[ARCH_SYSCALL_INSN_LEN];
	long nr;

	if (first && (t->stop_kind == STOP_SC_ENTRY || t->stop_kind == STOP_SECCOMP))
		nr = arch_syscall_nr(regs);
	else if (mem_read(t->tid, arch_regs_pc(regs), insn, sizeof(insn)) == sizeof(insn) &&
		 !memcmp(insn, arch_syscall_insn, sizeof(insn)))
		nr = arch_syscall_next_nr(regs);
	else
		return false;
	switch (nr) {
	case SYS_clone: case SYS_clone3: case SYS_fork: case SYS_vfork:
	case SYS_execve: case SYS_execveat:
		return true;
	default:
		return false;
	}
}

/* What keeps ptap's pages in a process, most often */
#define HANDLER_OVER_OURS	"a signal handler interrupted ptap's code and will return into it"

/* T's process keeps ptap's pages (unmap_one() leaves them), for WHY: said. */
static void keep_pages(struct thread *t, const char *why)
{
	pr_warn("tid %d: %s: ptap's pages stay mapped in pid %d\n", t->tid, why, t->tgid);
	t->as->keep_scratch = true;
}

/*
 * T runs a signal handler that interrupted code of ours: it would return
 * into it (handler_frame(), with LM).  Every byte of ours is back in
 * the program's code by now, so single-step it, the other threads
 * stopped, until the handler has returned there and T is out again
 * (step_while_ours()), or it left another way (siglongjmp): the
 * instructions stepped.  -1 when DEADLINE passes first (a handler
 * that waits for another thread, or for what comes after the detach), or
 * it is about to fork or exec: T is stopped where it got to, and the pages
 * stay mapped (said).
 */
static int handler_out(struct session *s, struct thread *t, struct live_maps *lm)
{
	uint64_t start = mono_ns();
	const char *why = start > lm->deadline ? "the time for handlers was spent on others" :
			  "it had not returned";
	pid_t tid = t->tid;
	arch_regs_t regs;
	int steps = 0, r;
	bool look = true;	/* at the stacks, at the next instruction */

	while (pt_getregs(tid, &regs) == 0) {
		if (in_our_code(t, &regs)) {	/* the handler has returned, maybe */
			int n = step_while_ours(s, t);

			if (n < 0)
				return -1;	/* said, or gone */
			steps += n;
			look = true;
			continue;
		}
		if (look || !(steps & 4095)) {
			look = false;
			r = handler_frame(t, lm, arch_regs_sp(&regs));
			if (!r)
				return steps;
			if (r < 0) {
				why = "its stack is in no mapping";
				break;
			}
		}
		if (at_fork_or_exec(t, &regs, !steps)) {
			why = "it is about to fork or exec";
			break;
		}
		if (step1(s, t, &regs, lm->deadline) < 0) {
			if (mono_ns() <= lm->deadline)
				why = "it stopped at a fork, exec or exit";
			break;
		}
		steps++;
	}
	if (thread__find(s, tid) == t) {
		char what[256];

		snprintf(what, sizeof(what), HANDLER_OVER_OURS " (stepped %d instructions in %.2f s: %s)",
			 steps, (mono_ns() - start) / 1e9, why);
		keep_pages(t, what);
	}
	return -1;
}

/*
 * After T was stepped: the trap flag, and a SIGTRAP a step queued, taken
 * back.
 */
static void after_steps(struct thread *t)
{
	arch_regs_t regs;

	/*
	 * Stepped over a popfq (above), the kernel takes the trap flag
	 * for the program's own (x86's is_setting_trap_flag()) and leaves it
	 * set at the detach: the program never sets it, so it goes here.
	 */
	if (pt_getregs(t->tid, &regs) == 0 && (arch_regs_flags(&regs) & ARCH_FLAGS_TF)) {
		arch_regs_set_flags(&regs, arch_regs_flags(&regs) & ~(uint64_t)ARCH_FLAGS_TF);
		pt_setregs(t->tid, &regs);
	}
	/*
	 * A step over a system call queues a SIGTRAP of its own at the call's
	 * exit: taken here, at a stop it is not passed on from (it would kill
	 * the process once detached).  No instruction runs before it is.
	 */
	for (int i = 0; i < 4 && sig_pending(t, SIGTRAP); i++) {
		int st;

		if (pt_step(t->tid, 0) < 0 || waitpid(t->tid, &st, __WALL) != t->tid ||
		    !WIFSTOPPED(st))
			return;
	}
}

/* Step T out of code of ours (step_while_ours()), before the bytes go back. */
static void step_out(struct session *s, struct thread *t, void *arg)
{
	pid_t tid = t->tid;
	int steps;

	(void)arg;
	/*
	 * One in a group-stop (kill -STOP) too: stepped, it runs out of it, but
	 * the detach puts it back (a tracee let go while its process is stopped
	 * stops again), as for the munmap of unmap_moved().
	 */
	if (!t->stopped || !t->as || !t->as->nscratch)
		return;
	steps = step_while_ours(s, t);
	if (thread__find(s, tid) != t || !steps)
		return;		/* gone, or not in our code */
	if (steps > 0)
		pr_debug("tid %d: stepped out of ptap's code in %d instructions\n", tid, steps);
	after_steps(t);
}

/*
 * A thread of an address space with pages of ours that did not stop
 * (wait_stops() gave up: a vfork parent waiting for its child, which ptap
 * holds, cannot be interrupted): its stacks cannot be read, so the pages
 * stay.
 */
static void running_one(struct session *s, struct thread *t, void *arg)
{
	(void)s;
	(void)arg;
	if (t->stopped || !t->as || !t->as->nscratch || t->as->keep_scratch || is_zombie(t))
		return;
	keep_pages(t, "it did not stop, so its stacks cannot be looked at for a signal handler "
		   "over ptap's code");
}

/*
 * A thread in a signal handler that interrupted code of ours: stepped
 * until the handler has returned (handler_out()), after the bytes went
 * back (a probe's int3 in the handler's way would be taken for a step).
 */
static void handler_one(struct session *s, struct thread *t, void *arg)
{
	struct live_maps *lm = arg;
	pid_t tid = t->tid;
	arch_regs_t regs;
	int r;

	if (!t->stopped || !t->as || !t->as->nscratch || t->as->keep_scratch)
		return;
	if (pt_getregs(tid, &regs) < 0)
		return;		/* gone */
	r = handler_frame(t, lm, arch_regs_sp(&regs));
	if (!r)
		return;
	/* its process stopped (kill -STOP), or it waits for its vfork child: not run */
	if (r < 0 || t->gstop || t->stop_kind == STOP_VFORK) {
		keep_pages(t, r < 0 ? "its stack is in no mapping, so a signal handler over "
				      "ptap's code cannot be looked for" :
			      t->gstop ? HANDLER_OVER_OURS ", its process stopped" :
			      HANDLER_OVER_OURS ", at a vfork");
		return;
	}
	pr_debug("tid %d: in a signal handler that interrupted ptap's code: stepping it until it "
		 "returns\n", tid);
	if (handler_out(s, t, lm) >= 0)
		pr_debug("tid %d: out of the handler and ptap's code\n", tid);
	if (thread__find(s, tid) == t)
		after_steps(t);
}

static void handlers_out(struct session *s)
{
	struct live_maps lm = { .mt = maptab__new(), .deadline = mono_ns() + HANDLER_WAIT_NS };

	thread__for_each(s, running_one, NULL);
	thread__for_each(s, handler_one, &lm);
	maptab__free(lm.mt);
}

static void restore_one(struct session *s, struct thread *t, void *arg)
{
	(void)s;
	(void)arg;
	if (t->as && !t->as->unplanted)
		plant_restore(t->as, false);
}

/*
 * Can T unmap its address space's scratch pages as it stands?  As
 * can_inject(), and also in a group-stop (kill -STOP): the munmap runs the
 * thread out of it, but the detach puts it back (ptrace(2): a tracee let go
 * while its process is stopped stops again), so it stays as it was.
 */
static bool can_unmap_through(const struct thread *t)
{
	return can_inject(t) || (t->stopped && t->as && t->gstop && !t->pending_sig &&
				 t->stop_kind == STOP_EVENT);
}

static void unmap_one(struct session *s, struct thread *t, void *arg)
{
	(void)arg;
	if (t->as && t->as->nscratch && !t->as->keep_scratch && can_unmap_through(t))
		unmap_scratch(s, t);
}

/* Has T's address space scratch pages still mapped that T could run a munmap for, once moved? */
static bool can_move_to_inject(const struct thread *t)
{
	return t->stopped && t->as && t->as->nscratch && !t->as->keep_scratch && !t->gstop &&
	       !can_unmap_through(t) && t->stop_kind != STOP_VFORK && t->stop_kind != STOP_NONE;
}

/*
 * One thread of each address space whose scratch pages are still mapped
 * (none of its threads could run the munmap where it stopped) is let run
 * into an interrupt stop, where it can: one with a signal on its way
 * delivers it now, with its siginfo, as detaching would have (a handler
 * starts; a SIGCHLD to a forking server is the common case); one at a fork
 * event or a syscall entry goes on with its call (a blocking call is
 * interrupted and restarted, as at the attach).  Every byte of ours is back
 * already, so what the thread runs meanwhile is its own code.  ARG counts
 * the threads moved.
 */
static void move_to_inject(struct session *s, struct thread *t, void *arg)
{
	(void)s;
	if (!can_move_to_inject(t) || t->as->moving)
		return;
	t->as->moving = true;
	t->stopped = false;
	if (pt_cont(t->tid, t->pending_sig) < 0)
		return;		/* gone: its exit status is on the way */
	t->pending_sig = 0;
	pt_interrupt(t->tid);
	++*(int *)arg;
}

static void moved_clear(struct session *s, struct thread *t, void *arg)
{
	(void)s;
	(void)arg;
	if (t->as)
		t->as->moving = false;
}

/* Unmap the scratch pages no stopped thread could unmap where it stood. */
static void unmap_moved(struct session *s)
{
	for (int round = 0; round < 3; round++) {
		int n = 0;

		thread__for_each(s, move_to_inject, &n);
		thread__for_each(s, moved_clear, NULL);
		if (!n)
			return;
		wait_stops(s, false);
		drain_traps(s);
		thread__for_each(s, unmap_one, NULL);
	}
}

/* Detach the leaders (ARG true) or the other threads (false). */
static void detach_one(struct session *s, struct thread *t, void *arg)
{
	bool leaders = *(bool *)arg;

	if ((t->tid == t->tgid) != leaders)
		return;
	if (t->stopped)
		pt_detach(t->tid, t->gstop ? 0 : t->pending_sig);
	tasks_forget(s, t);
}

void detach_all(struct session *s)
{
	bool leaders = false;

	s->detaching = true;
	wait_stops(s, true);
	drain_traps(s);
	thread__for_each(s, adopt_orphan, NULL);
	thread__for_each(s, unslot_one, NULL);
	inproc_end(s);		/* the agent records no more, and waits for no room */
	thread__for_each(s, step_out, NULL);
	thread__for_each(s, restore_one, NULL);
	handlers_out(s);
	thread__for_each(s, unmap_one, NULL);
	unmap_moved(s);
	/* a leader's exit is reported only once its threads are gone: them first */
	thread__for_each(s, detach_one, &leaders);
	leaders = true;
	thread__for_each(s, detach_one, &leaders);
	s->detaching = false;
}
