/* tracer/engine/stop.h: what a ptrace stop is, from its wait status and what
 * ptrace says of it (ptrace(2), "Stopped states").  The one classifier of
 * the main loop (loop.c), of detach (detach.c), of syscall injection
 * (inject.c) and of attaching (attach.c): each decides what to do, none
 * decodes a wait status itself. */
#ifndef PTAP_TRACER_ENGINE_STOP_H
#define PTAP_TRACER_ENGINE_STOP_H

#include <linux/ptrace.h>
#include <stdbool.h>
#include <sys/types.h>

enum stop_kind {
	STOP_NONE,		/* no stop classified (a thread running, or just seized) */
	STOP_EVENT,		/* PTRACE_EVENT_STOP: PTRACE_INTERRUPT, a new child's first
				 * stop, or a group-stop (.group) */
	STOP_SC_ENTRY,		/* syscall-entry stop (PTRACE_SYSCALL): .sc.entry */
	STOP_SC_EXIT,		/* syscall-exit stop: .sc.exit */
	STOP_SC_UNREAD,		/* a syscall or seccomp stop whose info could not be read
				 * (the thread is gone) or says neither entry nor exit */
	STOP_SECCOMP,		/* PTRACE_EVENT_SECCOMP, the call about to run: .sc.seccomp */
	STOP_CLONE,		/* PTRACE_EVENT_FORK or _CLONE (.ev) */
	STOP_VFORK,		/* PTRACE_EVENT_VFORK: resumed, the parent waits for the
				 * child's exec or exit */
	STOP_EXEC,		/* PTRACE_EVENT_EXEC: a new image, the other threads gone */
	STOP_OTHER,		/* another event stop (PTRACE_EVENT_EXIT, VFORK_DONE) */
	STOP_BREAKPOINT,	/* SIGTRAP from an int3: ptap's, or the program's own */
	STOP_SIGNAL,		/* a signal-delivery stop (.sig), to pass on */
};

struct stop {
	enum stop_kind kind;
	int sig;		/* WSTOPSIG without the 0x80 of a syscall stop */
	int ev;			/* PTRACE_EVENT_*, 0 for none */
	bool group;		/* STOP_EVENT: a group-stop (kill -STOP, SIGTSTP ...) */
	struct ptrace_syscall_info sc;	/* the syscall stops and STOP_SECCOMP */
};

/*
 * Classify the stop that wait STATUS (WIFSTOPPED) reports for thread TID,
 * asking ptrace what the status alone cannot say: PTRACE_GET_SYSCALL_INFO at
 * a syscall or seccomp stop, PTRACE_GETSIGINFO at a SIGTRAP (an int3's
 * si_code is the kernel's; a kill(SIGTRAP) is not a breakpoint).
 */
void stop_classify(pid_t tid, int status, struct stop *out);

/* Is SIG one that puts a process in a group-stop (SIGSTOP, SIGTSTP, SIGTTIN, SIGTTOU)? */
bool stop_is_group_signal(int sig);

#endif
