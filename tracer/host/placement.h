/* tracer/host/placement.h: where ptap runs (--cpu): with follow, ptap keeps to
 * the CPU its stopped threads run on, so that a hit does not cost two
 * cross-CPU wakeups.  Only ptap's own scheduling is changed, never a target's. */
#ifndef PTAP_TRACER_HOST_PLACEMENT_H
#define PTAP_TRACER_HOST_PLACEMENT_H

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
 * SCHED_IDLE tasks as idle), but it also lets any other task take the CPU
 * from ptap for as long as it wants (over a second behind one busy loop).
 * So ptap is SCHED_IDLE only
 *   - while stops come often (else there is little to gain);
 *   - while, as SCHED_OTHER, it slept in waitpid for a good share of them:
 *     that sleep is what a shared CPU saves.  With several threads stopping
 *     at once ptap rarely sleeps, runs on a CPU of its own, and SCHED_IDLE
 *     would only let the threads it resumes take that CPU from it.  As that
 *     cannot be seen while idle, ptap goes back to SCHED_OTHER for one
 *     interval every PLACE_PROBE_NS to look again;
 *   - under a watchdog thread that puts it back to SCHED_OTHER as soon as it
 *     spent most of a tick waiting for a CPU (starved: ptap stays out for a
 *     back-off that doubles at each new starvation) or saw no stop for a
 *     while (asleep: the first stop after a quiet spell must not wait behind
 *     other work).  The threads ptap resumes preempt it too, but at the stop
 *     rates that make it idle they run for far less than a tick.
 * These are its pure parts: placement_guard_step() runs in ptap's thread at
 * each interval's end, placement_guard_out() when the watchdog put it back.
 */
struct place_guard {
	bool idle;		/* SCHED_IDLE now */
	uint64_t t0;		/* start of the interval (ns) */
	uint64_t stops0;	/* stops seen then */
	uint64_t sleeps0;	/* times ptap slept then */
	uint64_t backoff;	/* the next back-off (ns) */
	uint64_t until;		/* no SCHED_IDLE before this time */
	uint64_t idle_since;	/* when it became idle */
	uint64_t nstarved;	/* back-offs, for the figures */
	uint64_t nquiet;	/* quiet spells */
	uint64_t nbusy;		/* intervals busy but not sleeping: not idle */
};

#define PLACE_INTERVAL_NS	10000000ULL	/* 10 ms: one check of the stop rate */
#define PLACE_MIN_STOPS		20		/* per interval (2000/s): below, not idle */
#define PLACE_SLEEP_PCT		25		/* slept at this % of the stops, or more */
#define PLACE_PROBE_NS		1000000000ULL	/* idle this long: one interval to look again */
#define PLACE_TICK_NS		5000000ULL	/* the watchdog's tick: 5 ms */
#define PLACE_STARVED_PCT	80		/* waited more than this % of a tick */
#define PLACE_QUIET_NS		20000000ULL	/* no stop for 20 ms: asleep */
#define PLACE_BACKOFF_NS	1000000000ULL	/* the first back-off: 1 s, doubling */
#define PLACE_BACKOFF_MAX_NS	64000000000ULL
#define PLACE_CALM_NS		10000000000ULL	/* a back-off over this long: reset */

void placement_guard_init(struct place_guard *g, uint64_t now, uint64_t stops, uint64_t sleeps);
/*
 * An interval's end (at least PLACE_INTERVAL_NS after the last): NOW, the
 * stops seen so far and the times ptap slept so far (its voluntary context
 * switches).  Returns whether ptap should be SCHED_IDLE from now on (and
 * notes it).
 */
bool placement_guard_step(struct place_guard *g, uint64_t now, uint64_t stops, uint64_t sleeps);
/* The watchdog put ptap back to SCHED_OTHER at NOW: STARVED, or asleep. */
void placement_guard_out(struct place_guard *g, uint64_t now, bool starved);
/* Did ptap starve, having waited WAITED ns for a CPU over WALL ns? */
bool placement_starved(uint64_t wall, uint64_t waited);

#endif
