/* tracer/inject.c: remote system calls.  The thread runs a real syscall
 * instruction with our registers; PTRACE_SYSCALL brings it back at the
 * syscall-exit stop, where its registers are restored.  No single-step. */
#include <errno.h>
#include <linux/ptrace.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "arch/arch.h"
#include "probes/log.h"
#include "tracer/aspace.h"
#include "tracer/inject.h"
#include "tracer/mem.h"
#include "tracer/ptrace.h"
#include "tracer/session.h"
#include "tracer/thread.h"

/*
 * Resume T until the exit stop of the syscall it is about to make.  Other
 * stops on the way: its entry stop, our own seccomp stop (the injected call
 * may be one the filter traces), a group-stop, or a signal, which is held
 * back in T->pending_sig.
 */
static int run_to_syscall_exit(struct thread *t, int *status)
{
	bool entered = false;

	for (;;) {
		struct ptrace_syscall_info info;
		int st, r = pt_syscall(t->tid, 0);

		if (r < 0)
			return r;
		if (waitpid(t->tid, &st, __WALL) < 0)
			return -errno;
		if (WIFEXITED(st) || WIFSIGNALED(st)) {
			*status = st;
			return -ESRCH;
		}
		if (WSTOPSIG(st) == (SIGTRAP | 0x80)) {
			if (pt_syscall_info(t->tid, &info) < 0)
				continue;
			if (info.op == PTRACE_SYSCALL_INFO_ENTRY)
				entered = true;
			else if (info.op == PTRACE_SYSCALL_INFO_EXIT && entered)
				return 0;
		} else if ((st >> 16) == PTRACE_EVENT_SECCOMP) {
			entered = true;
		} else if ((st >> 16) == 0 && WSTOPSIG(st) != SIGTRAP) {
			if (t->pending_sig)
				pr_warn("tid %d: signal %d arrived while ptap ran a syscall in it; "
					"delivered after signal %d\n", t->tid, WSTOPSIG(st),
					t->pending_sig);
			else
				t->pending_sig = WSTOPSIG(st);
		}
	}
}

int inject_syscall(struct session *s, struct thread *t, long nr, const uint64_t args[6],
		   long *ret, int *status)
{
	uint8_t orig[ARCH_SYSCALL_INSN_LEN];
	arch_regs_t saved, regs;
	uint64_t pc = t->as->syscall_pc;
	bool patched = false;
	int r;

	(void)s;
	r = pt_getregs(t->tid, &saved);
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
		r = run_to_syscall_exit(t, status);
	if (r == 0 && (r = pt_getregs(t->tid, &regs)) == 0)
		*ret = arch_syscall_result(&regs);
	if (patched && r != -ESRCH)
		mem_write(t->as->memfd, pc, orig, sizeof(orig));
	if (r != -ESRCH)
		pt_setregs(t->tid, &saved);
	if (t->pending_sig && r != -ESRCH) {
		/* The held signal's siginfo is not kept: it is re-sent as from tgkill. */
		syscall(SYS_tgkill, t->tgid, t->tid, t->pending_sig);
		t->pending_sig = 0;
	}
	return r;
}
