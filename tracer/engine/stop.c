/* tracer/engine/stop.c: classifying ptrace stops (stop.h).  A syscall stop
 * carries SIGTRAP|0x80 (PTRACE_O_TRACESYSGOOD), an event stop its event in
 * bits 16-23, so a plain SIGTRAP is a breakpoint or the program's own trap. */
#include <signal.h>
#include <sys/wait.h>

#include "arch/arch.h"
#include "tracer/engine/ptrace.h"
#include "tracer/engine/stop.h"

bool stop_is_group_signal(int sig)
{
	return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU;
}

/* A syscall stop: entry or exit, as PTRACE_GET_SYSCALL_INFO says. */
static enum stop_kind syscall_kind(pid_t tid, struct ptrace_syscall_info *sc)
{
	if (pt_syscall_info(tid, sc) <= 0)
		return STOP_SC_UNREAD;
	if (sc->op == PTRACE_SYSCALL_INFO_ENTRY)
		return STOP_SC_ENTRY;
	if (sc->op == PTRACE_SYSCALL_INFO_EXIT)
		return STOP_SC_EXIT;
	return STOP_SC_UNREAD;
}

static enum stop_kind event_kind(pid_t tid, int ev, struct stop *out)
{
	switch (ev) {
	case PTRACE_EVENT_STOP:
		out->group = stop_is_group_signal(out->sig);
		return STOP_EVENT;
	case PTRACE_EVENT_SECCOMP:
		if (pt_syscall_info(tid, &out->sc) <= 0 ||
		    out->sc.op != PTRACE_SYSCALL_INFO_SECCOMP)
			return STOP_SC_UNREAD;
		return STOP_SECCOMP;
	case PTRACE_EVENT_FORK:
	case PTRACE_EVENT_CLONE:
		return STOP_CLONE;
	case PTRACE_EVENT_VFORK:
		return STOP_VFORK;
	case PTRACE_EVENT_EXEC:
		return STOP_EXEC;
	default:
		return STOP_OTHER;
	}
}

void stop_classify(pid_t tid, int status, struct stop *out)
{
	siginfo_t si;

	out->sig = WSTOPSIG(status) & ~0x80;
	out->ev = status >> 16;
	out->group = false;
	if (WSTOPSIG(status) == (SIGTRAP | 0x80))
		out->kind = syscall_kind(tid, &out->sc);
	else if (out->ev)
		out->kind = event_kind(tid, out->ev, out);
	else if (out->sig == SIGTRAP && pt_getsiginfo(tid, &si) == 0 &&
		 arch_is_bp_trap(si.si_code))
		out->kind = STOP_BREAKPOINT;
	else
		out->kind = STOP_SIGNAL;
}
