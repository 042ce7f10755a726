/* tracer/engine/ptrace.c: ptrace(2) wrappers returning 0 or -errno. */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/ptrace.h>

#include "tracer/engine/ptrace.h"

static int pt_ret(long r)
{
	return r < 0 ? -errno : 0;
}

int pt_seize(pid_t tid, unsigned long options)
{
	return pt_ret(ptrace(PTRACE_SEIZE, tid, 0L, options));
}

int pt_cont(pid_t tid, int sig)
{
	return pt_ret(ptrace(PTRACE_CONT, tid, 0L, (long)sig));
}

int pt_step(pid_t tid, int sig)
{
	return pt_ret(ptrace(PTRACE_SINGLESTEP, tid, 0L, (long)sig));
}

int pt_syscall(pid_t tid, int sig)
{
	return pt_ret(ptrace(PTRACE_SYSCALL, tid, 0L, (long)sig));
}

int pt_interrupt(pid_t tid)
{
	return pt_ret(ptrace(PTRACE_INTERRUPT, tid, 0L, 0L));
}

int pt_detach(pid_t tid, int sig)
{
	return pt_ret(ptrace(PTRACE_DETACH, tid, 0L, (long)sig));
}

int pt_listen(pid_t tid)
{
	return pt_ret(ptrace(PTRACE_LISTEN, tid, 0L, 0L));
}

int pt_getregs(pid_t tid, arch_regs_t *regs)
{
	return pt_ret(ptrace(PTRACE_GETREGS, tid, 0L, regs));
}

int pt_getfpregs(pid_t tid, arch_fpregs_t *fp)
{
	return pt_ret(ptrace(PTRACE_GETFPREGS, tid, 0L, fp));
}

int pt_setregs(pid_t tid, const arch_regs_t *regs)
{
	return pt_ret(ptrace(PTRACE_SETREGS, tid, 0L, regs));
}

int pt_getsiginfo(pid_t tid, siginfo_t *si)
{
	return pt_ret(ptrace(PTRACE_GETSIGINFO, tid, 0L, si));
}

int pt_geteventmsg(pid_t tid, unsigned long *msg)
{
	return pt_ret(ptrace(PTRACE_GETEVENTMSG, tid, 0L, msg));
}

/*
 * *INFO is zeroed first: the kernel writes only what the stop has, and
 * valgrind (3.19) does not know PTRACE_GET_SYSCALL_INFO, so memcheck would
 * take what it writes for uninitialised.
 */
int pt_syscall_info(pid_t tid, struct ptrace_syscall_info *info)
{
	long r;

	memset(info, 0, sizeof(*info));
	r = ptrace(PTRACE_GET_SYSCALL_INFO, tid, (void *)sizeof(*info), info);
	return r < 0 ? -errno : (int)r;
}
