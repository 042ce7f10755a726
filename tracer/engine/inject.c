/* tracer/engine/inject.c: remote system calls.  The thread runs a real syscall
 * instruction with our registers; PTRACE_SYSCALL brings it back at the
 * syscall-exit stop, where its registers are restored.  No single-step. */
#include <errno.h>
#include <linux/ptrace.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "arch/arch.h"
#include "probes/log.h"
#include "tracer/engine/inject.h"
#include "tracer/engine/ptrace.h"
#include "tracer/engine/stop.h"
#include "tracer/session.h"
#include "tracer/space/aspace.h"
#include "tracer/space/mem.h"
#include "tracer/thread.h"

/* Hold a signal that arrived while T ran our syscall: re-sent afterwards. */
static void hold_signal(struct thread *t, int sig)
{
	siginfo_t *si = &t->held[t->nheld];

	if (t->nheld == THREAD_MAX_HELD) {
		pr_warn("tid %d: more than %d signals arrived while ptap ran a syscall in it; "
			"signal %d lost\n", t->tid, THREAD_MAX_HELD, sig);
		return;
	}
	if (pt_getsiginfo(t->tid, si) < 0) {
		memset(si, 0, sizeof(*si));
		si->si_signo = sig;
	}
	t->nheld++;
}

/*
 * Re-send held signals in order.  One sent with sigqueue/tgkill (si_code < 0)
 * keeps its siginfo (rt_tgsigqueueinfo(2)); the kernel lets no one else
 * forge kernel or kill() codes, so those arrive as from tgkill(2).
 */
static void release_signals(struct thread *t)
{
	for (int i = 0; i < t->nheld; i++) {
		siginfo_t *si = &t->held[i];

		if (si->si_code >= 0 ||
		    syscall(SYS_rt_tgsigqueueinfo, t->tgid, t->tid, si->si_signo, si) < 0)
			syscall(SYS_tgkill, t->tgid, t->tid, si->si_signo);
	}
	t->nheld = 0;
}

/*
 * Resume T until the exit stop of the syscall it is about to make.  Other
 * stops of T on the way: its entry stop, our own seccomp stop (the injected
 * call may be one the filter traces), a group-stop, or a signal (held).
 * Stops of other threads are queued for the main loop: waiting for T alone
 * could hang, as a zombie leader is reported only after its threads are
 * reaped (ptrace(2), BUGS).  Returns 0 at the exit stop, or -ESRCH when T
 * exited or exec'd meanwhile: that event is queued and T must not be touched.
 */
static int run_to_syscall_exit(struct session *s, struct thread *t)
{
	bool entered = false;
	int r = pt_syscall(t->tid, 0);

	while (r == 0) {
		struct stop st;
		int status;
		pid_t pid = waitpid(-1, &status, __WALL);

		if (pid < 0) {
			r = errno == EINTR ? 0 : -errno;
			continue;
		}
		if (pid != t->tid) {
			r = session__defer(s, pid, status);
			continue;
		}
		if (WIFSTOPPED(status)) {
			stop_classify(t->tid, status, &st);
			t->nstops++;	/* a voluntary switch of ptap's (--account) */
		}
		if (!WIFSTOPPED(status) || st.kind == STOP_EXEC) {
			session__defer(s, pid, status);
			return -ESRCH;
		}
		switch (st.kind) {
		case STOP_SC_ENTRY:
		case STOP_SECCOMP:	/* our call may be one the filter traces */
			entered = true;
			break;
		case STOP_SC_EXIT:
			if (entered)
				return 0;
			break;
		case STOP_BREAKPOINT:
		case STOP_SIGNAL:
			hold_signal(t, st.sig);
			break;
		default:
			break;
		}
		r = pt_syscall(t->tid, 0);
	}
	return r;
}

int inject_syscall(struct session *s, struct thread *t, long nr, const uint64_t args[6],
		   long *ret)
{
	uint8_t orig[ARCH_SYSCALL_INSN_LEN];
	arch_regs_t saved, regs;
	uint64_t pc = t->as->syscall_pc;
	bool patched = false;
	int r = pt_getregs(t->tid, &saved);

	if (r < 0)
		return r;
	if (!pc) {
		pc = arch_regs_pc(&saved);
		if (mem_read(t->tid, pc, orig, sizeof(orig)) != sizeof(orig))
			return -EFAULT;
		r = mem_write(t->as->memfd, pc, arch_syscall_insn, sizeof(orig));
		if (r < 0)
			return r;
		patched = true;
	}
	regs = saved;
	arch_syscall_setup(&regs, pc, nr, args);
	r = pt_setregs(t->tid, &regs);
	if (r == 0)
		r = run_to_syscall_exit(s, t);
	if (r == -ESRCH)	/* gone or a new image: nothing of ours to put back */
		return r;
	if (r == 0 && (r = pt_getregs(t->tid, &regs)) == 0)
		*ret = arch_syscall_result(&regs);
	if (patched)
		mem_write(t->as->memfd, pc, orig, sizeof(orig));
	/* A call T was blocked in when it stopped is not restarted by the kernel now. */
	arch_syscall_restart(&saved);
	pt_setregs(t->tid, &saved);
	release_signals(t);
	return r;
}
