/* tracer/session.h: one `ptap record` run -- options, probes, traced
 * processes and the output.  Passed explicitly; never a global. */
#ifndef PTAP_TRACER_SESSION_H
#define PTAP_TRACER_SESSION_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "probes/fetch.h"
#include "probes/record.h"
#include "tracer/events/output.h"

struct ctx_def;
struct probe;
struct thread;
struct proc;
struct aspace;
struct output;
struct mmapev;
struct inproc_ghost;
struct inproc_region;
struct stacks;

/* How map changes are seen (README.md, "How it works"). */
enum mmap_tracking {
	MMAP_SECCOMP,	/* launched: a seccomp filter stops the map syscalls */
	MMAP_RBRK,	/* attached: a breakpoint on the dynamic loader's r_brk re-reads the maps */
	MMAP_SYSCALL,	/* attached, --mmap-tracking=syscall: a stop at every syscall */
};

/* Where ptap runs (--cpu, tracer/host/placement.h). */
enum cpu_policy {
	CPU_FREE,	/* wherever the scheduler puts it */
	CPU_FOLLOW,	/* on the CPU of the threads it stops (SCHED_IDLE, guarded) */
};

struct placement;

#define SC_NR_MAX	1024	/* syscall numbers --syscalls' selection covers (sc_on) */

struct session {
	/* options */
	enum out_format format;
	clockid_t clock;
	const char *clock_name;		/* "monotonic" ...: stated in the output's first line */
	size_t string_max;
	const char *out_path;
	int verbose;
	bool attach;			/* -p: attached, detached at the end */
	bool no_follow;			/* --no-follow: children are let go */
	bool events_task;		/* --events task: fork, exec and exit records */
	bool events_mmap;		/* --events mmap: map-table changes (tracer/events/mmapev.h) */
	struct mmapev *mmapev;		/* their state, while tracing with events_mmap */
	bool retprobes;			/* a return probe: threads get a shadow stack */
	enum mmap_tracking mmap_tracking;
	enum cpu_policy cpu;		/* --cpu */
	struct placement *place;	/* --cpu=follow's state (NULL: none) */

	struct probe *probes;
	int nprobes;

	/* in-process probes (tracer/engine/inproc.h) */
	bool inproc_on;			/* allowed (--no-agent: not) */
	struct inproc_region **inproc;	/* the regions mapped in processes, drained */
	size_t ninproc, inproc_cap;
	bool inproc_gone;		/* a process exited or exec'd: sweep the regions */
	uint64_t inproc_bad;		/* records malformed (the process wrote over them) */
	uint64_t inproc_joined;		/* calls of return probes made whole in a process */
	uint64_t inproc_held_taken;	/* calls held in a process that ptap took (inproc.c) */
	uint64_t inproc_unknown;	/* records of a thread ptap does not know */
	struct inproc_ghost *ghosts;	/* threads gone with records still in a ring */
	size_t nghosts, ghosts_cap;

	/* --syscalls and --context (tracer/events/syscall.c) */
	uint8_t sc_on[SC_NR_MAX / 8];	/* the selected syscall numbers */
	int nsc;
	size_t sc_buflen;		/* bytes of one decoded argument's text */
	struct ctx_def *ctxs;
	int nctxs;
	int nslots;			/* unscoped contexts: slots per thread */
	struct record_ctx *ctx_rec;	/* NCTXS, scratch for one record */

	struct output *out;

	/* record -g (tracer/events/stack.h) */
	enum stack_mode { STACK_NONE, STACK_FP, STACK_DWARF } stack_mode;
	int stack_max;			/* --stack-max: frames a record shows */
	struct stacks *stacks;		/* the hit's scratch and the symbols known */
	int acct_kept;			/* --account: threads whose counter files are open */
	const struct stack_frame *hit_frames;	/* the stack of the hit at hand, at a stop */
	unsigned int hit_nframes;

	/* the traced world */
	struct thread **threads;	/* open hash by tid */
	size_t threads_cap, nthreads;
	pid_t cmd_pid;			/* the launched command's pid */
	int cmd_status;			/* its wait status, once it exited */
	bool cmd_exited;
	/*
	 * Tracing is over (a signal to ptap when attached, EPIPE on the output,
	 * --duration): attached, everything is detached; launched, every
	 * breakpoint is removed and the command runs on to its end.
	 */
	volatile bool ending;
	bool unplanted;			/* launched, tracing over: plant nothing more */
	bool detaching;			/* detach_all() runs: hits are rewound, not resumed */
	/* return probes' calls not recorded, for the summary */
	uint64_t ret_full;		/* a shadow stack was full: the return not recorded */
	uint64_t ret_unwound;		/* left by longjmp, an exception, a panic: no return */
	uint64_t ret_unmatched;		/* an exit with no frame: the entry not seen, or
					 * taken as left */
	/* stops waited for while ptap ran a syscall in another thread, in order */
	struct deferred { pid_t pid; int status; } *deferred;
	size_t ndeferred, deferred_head, deferred_cap;
};

/* Queue a wait status for the main loop.  0 or -ENOMEM. */
int session__defer(struct session *s, pid_t pid, int status);
/* Take the oldest queued wait status: true, or false when the queue is empty. */
bool session__undefer(struct session *s, pid_t *pid, int *status);
/* Now, in ns of the session's clock (the records' timestamps). */
uint64_t session__now(const struct session *s);

#endif
