/* tracer/thread.h: one traced thread, and the session's table of them
 * (open addressing by tid). */
#ifndef PTAP_TRACER_THREAD_H
#define PTAP_TRACER_THREAD_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "arch/arch.h"

#define THREAD_MAX_HELD	16

struct aspace;
struct session;
struct shadow;
struct sc_call;

struct thread {
	pid_t tid, tgid;
	struct aspace *as;	/* NULL while a new child waits for its parent's event */
	char comm[17];
	bool stopped;		/* in a ptrace stop we have not resumed */
	bool want_exit;		/* resume with PTRACE_SYSCALL: we want this syscall's exit */
	bool exec_pending;	/* exec'd: plant probes at the execve syscall exit */
	long sc_nr;		/* the filtered syscall in flight (from its seccomp stop) */
	uint64_t sc_args[6];
	uint64_t clone_flags;	/* of the clone/clone3 in flight */
	bool quiet;		/* not followed (--no-follow): hits are not recorded */
	bool vfork_child;	/* runs on its parent's thread pointer (CLONE_VM, not a
				 * thread): counted by inproc_vfork() until its exec or end */
	bool sysmode;		/* resume with PTRACE_SYSCALL always (--mmap-tracking=syscall) */
	bool detach_at_stop;	/* let go at its first stop (a child not followed) */
	bool gstop;		/* in a group-stop (kill -STOP), seen at its event stop */
	int stop_kind;		/* enum stop_kind (engine/stop.h): the stop it is in, as
				 * attach and detach saw it (for choosing a thread to
				 * run a syscall through) */
	int pending_sig;	/* a real signal to pass on when it is detached */
	/*
	 * A hit not to record again: the call a signal interrupted at its probe
	 * (moved back out of the slot), re-run when the handler returns -- the
	 * very same registers.  A handler that jumps away leaves a state no
	 * later call matches.
	 */
	bool rehit;
	arch_regs_t rehit_regs;
	struct shadow *shadow;	/* return probes' pending calls (NULL: none) */
	size_t stack_hint;	/* where in its map table its stack was last found
				 * (maptab__find_near()) */
	uint64_t home_stack;	/* its own stack, as shadow.h names stacks: the mapping
				 * holding its TLS block (glibc puts a thread's at the
				 * top of its stack); 0: not looked up yet, 1: none */
	struct sc_call *sc;	/* --syscalls: the listed call in flight (NULL: none listed) */
	char **ctx_slot;	/* unscoped --context values, one slot each (syscall.c) */
	/* --account (tracer/events/account.h): its counter files, once it called EVENT */
	int acct_fd[4];		/* io, schedstat, stat, status */
	uint64_t nstops;	/* ptrace stops seen: the voluntary switches that are ptap's */
	bool acct_open;
	siginfo_t held[THREAD_MAX_HELD];	/* signals held while ptap ran a syscall in it */
	int nheld;
};

struct thread *thread__find(const struct session *s, pid_t tid);
/* Close T's --account counter files (it went, or exec'd): opened again at its next read. */
void thread__acct_close(struct session *s, struct thread *t);
/*
 * The table alone: a new thread in S's table (AS referenced when not NULL;
 * NULL on ENOMEM), and a thread out of it, freed.  The engine adds and
 * forgets threads through tasks_add() and tasks_forget() (engine/tasks.h),
 * which also give a thread its --syscalls state and record its unfinished
 * call: only those two call these.
 */
struct thread *thread__add(struct session *s, pid_t tid, pid_t tgid, struct aspace *as);
void thread__remove(struct session *s, struct thread *t);
/* Re-read the thread's name from /proc. */
void thread__read_comm(struct thread *t);
/* Resume T from its ptrace stop delivering SIG: PTRACE_SYSCALL when T->want_exit. */
void thread__resume(struct thread *t, int sig);
/* Call FN on every thread of the table (it may remove the current one). */
void thread__for_each(struct session *s, void (*fn)(struct session *, struct thread *, void *),
		      void *arg);

#endif
