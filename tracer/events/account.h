/* tracer/events/account.h: --account EVENT: what each call of a return
 * probe's function cost the system, from the thread's own counters in
 * /proc/PID/task/TID/ (io, schedstat, stat, status) read at its entry and
 * its return, the differences on the return record as arguments of their
 * own.  Read at stops: an accounted probe is never recorded in the process. */
#ifndef PTAP_TRACER_EVENTS_ACCOUNT_H
#define PTAP_TRACER_EVENTS_ACCOUNT_H

#include <stdbool.h>
#include <stdint.h>

#include "probes/fetch.h"

struct probe;
struct session;
struct thread;

enum {
	ACCT_READ_BYTES,	/* io: bytes read from storage (not the page cache) */
	ACCT_WRITE_BYTES,	/* io: bytes dirtied, to be written to storage */
	ACCT_CANCELLED,		/* io: dirtied bytes not written after all (truncated) */
	ACCT_CPU_NS,		/* schedstat: time on a CPU */
	ACCT_RUNQ_NS,		/* schedstat: time runnable, waiting for a CPU */
	ACCT_MINFLT,		/* stat: faults served without I/O */
	ACCT_MAJFLT,		/* stat: faults that read from storage */
	ACCT_NVCSW,		/* status: voluntary context switches (blocked, slept) */
	ACCT_NIVCSW,		/* status: involuntary ones (preempted) */
	ACCT_N
};

/* Their names, as the records show them: probes/record.h's record_account_names. */

/* A snapshot of a thread's counters; ERR: why it could not be read (-errno), else 0. */
struct acct {
	uint64_t v[ACCT_N];
	int ferr[4];		/* per file (io, schedstat, stat, status): -errno, or 0 */
	int tid;		/* whose */
	uint64_t nstops;	/* its stops then (thread.h): ptap's part of ACCT_NVCSW */
};

/*
 * The --account EVENTs (repeatable; each must be a return probe's event):
 * their probes marked, their record arrays grown by ACCT_N.  0, or the
 * exit status after saying what is wrong.
 */
int account_setup(struct session *s, const char *const *events, int n);

/*
 * T's counters now into A: its files opened at its first read and kept
 * open (for the first threads: past ACCT_KEEP_MAX of them, opened and
 * closed at each read, so that many threads do not use up ptap's
 * descriptors).  A file that cannot be read fails its counters alone.
 */
void account_read(struct session *s, struct thread *t, struct acct *a);

/*
 * The differences from ENTRY to now on T, into VALS[0..ACCT_N): errors when
 * either read of a counter's file failed, or when ENTRY was another thread's (FETCH_ERR_MOVED:
 * a goroutine, a coroutine resumed elsewhere).
 */
void account_diff(struct session *s, struct thread *t, const struct acct *entry,
		  struct fetch_val *vals);

#endif
