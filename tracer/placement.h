/* tracer/placement.h: where ptap runs (--cpu): with follow, ptap keeps to
 * the CPU its stopped threads run on, so that a hit does not cost two
 * cross-CPU wakeups.  Only ptap's own scheduling is changed, never a target's. */
#ifndef PTAP_TRACER_PLACEMENT_H
#define PTAP_TRACER_PLACEMENT_H

#include <stdbool.h>
#include <stdint.h>

struct session;
struct thread;

/*
 * Start the policy S->cpu asks for.  Call it after the command is launched
 * (the command must not inherit ptap's scheduling).  It never fails: when
 * ptap cannot use the policy (see placement.c) it says why at -v and runs
 * as with --cpu=free.
 */
void placement_init(struct session *s);
/*
 * T is in a ptrace stop ptap is about to handle (NULL: a thread not known
 * yet).  Cheap: most calls make no syscall.
 */
void placement_note_stop(struct session *s, struct thread *t);
/* Back to ptap's own scheduling and affinity; the figures at -v. */
void placement_fini(struct session *s);

/* ---- the pure parts, for the unit tests ---------------------------------- */

/* The CPU a thread last ran on, from the text of /proc/TID/stat (field 39); -1 if absent. */
int placement_stat_cpu(const char *stat);
/* The run delay (ns spent runnable, waiting for a CPU) from /proc/.../schedstat; -1 if absent. */
int64_t placement_schedstat_delay(const char *schedstat);

/*
 * The guard that decides when ptap may be SCHED_IDLE.  SCHED_IDLE is what
 * keeps a resumed thread on ptap's CPU (the kernel takes a CPU running only
 * SCHED_IDLE tasks as idle), but it also lets any other process's task take
 * the CPU from ptap: so ptap is SCHED_IDLE only while stops come often
 * (else there is little to gain) and while, over each interval, it waited
 * for a CPU less than a share of the time.  Starved, it backs off to its
 * own policy for a while that doubles at each new starvation.
 */
struct place_guard {
	bool idle;		/* SCHED_IDLE now */
	uint64_t t0;		/* start of the interval (ns) */
	uint64_t delay0;	/* run delay then (ns) */
	uint64_t stops0;	/* stops seen then */
	uint64_t backoff;	/* the next back-off (ns) */
	uint64_t until;		/* no SCHED_IDLE before this time */
	uint64_t idle_since;	/* when it became idle */
	uint64_t nstarved;	/* back-offs, for the figures */
};

#define PLACE_INTERVAL_NS	10000000ULL	/* 10 ms: one guard check */
#define PLACE_MIN_STOPS		20		/* per interval (2000/s): below, not idle */
#define PLACE_STARVED_PCT	80		/* waited more than this % of an interval */
#define PLACE_BACKOFF_NS	1000000000ULL	/* the first back-off: 1 s, doubling */
#define PLACE_BACKOFF_MAX_NS	64000000000ULL
#define PLACE_CALM_NS		10000000000ULL	/* idle this long unstarved: back-off reset */

void placement_guard_init(struct place_guard *g, uint64_t now, uint64_t delay, uint64_t stops);
/*
 * An interval's end: NOW, the run delay and the stops seen so far.  Returns
 * whether ptap should be SCHED_IDLE for the next interval (and notes it).
 * Call it when at least PLACE_INTERVAL_NS passed since the last call.
 */
bool placement_guard_step(struct place_guard *g, uint64_t now, uint64_t delay, uint64_t stops);

#endif
