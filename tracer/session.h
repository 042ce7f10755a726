/* tracer/session.h: one `ptap record` run -- options, probes, traced
 * processes and the output.  Passed explicitly; never a global. */
#ifndef PTAP_TRACER_SESSION_H
#define PTAP_TRACER_SESSION_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "dwarf/resolve.h"
#include "probes/fetch.h"

struct thread;
struct proc;
struct aspace;
struct output;

/* One resolved probe (one -e, one site in its module). */
struct probe {
	char *event;			/* record name */
	char *module;			/* path of the ELF file it lives in */
	uint64_t dev, ino;		/* that file's identity, matched against mappings */
	struct resolved_probe rp;	/* link-time address, instruction, fetch programs */
	/* scratch for one hit, sized at start so the hit path never allocates */
	struct fetch_val *vals;
	char *strbuf;			/* the arguments' buffers, one allocation */
	char **bufs;			/* NARGS: each one's fetch_prog__buflen() bytes */
	struct fetch_type *types;	/* NARGS, for records */
	uint64_t planted;		/* sites planted, over all address spaces */
	char why[160];			/* why the last planting failed, for the summary */
};

enum out_format { OUT_TEXT, OUT_JSON };

struct session {
	/* options */
	enum out_format format;
	clockid_t clock;
	size_t string_max;
	const char *out_path;
	int verbose;

	struct probe *probes;
	int nprobes;

	struct output *out;

	/* the traced world */
	struct thread **threads;	/* open hash by tid */
	size_t threads_cap, nthreads;
	pid_t cmd_pid;			/* the launched command's pid */
	int cmd_status;			/* its wait status, once it exited */
	bool cmd_exited;
	/* stops waited for while ptap ran a syscall in another thread, in order */
	struct deferred { pid_t pid; int status; } *deferred;
	size_t ndeferred, deferred_head, deferred_cap;
};

/* Queue a wait status for the main loop.  0 or -ENOMEM. */
int session__defer(struct session *s, pid_t pid, int status);
/* Take the oldest queued wait status: true, or false when the queue is empty. */
bool session__undefer(struct session *s, pid_t *pid, int *status);

#endif
