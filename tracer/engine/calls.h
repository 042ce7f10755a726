/* tracer/engine/calls.h: the calls of return probes -- a thread's calls
 * pending (shadow.h), paired with their returns -- as a stop (hit.c) or the
 * agent (inproc.c) sees their entries and exits. */
#ifndef PTAP_TRACER_ENGINE_CALLS_H
#define PTAP_TRACER_ENGINE_CALLS_H

#include <stdbool.h>
#include <stdint.h>

struct fetch_ctx;
struct fetch_val;
struct probe;
struct session;
struct site;
struct thread;

/*
 * Which stack SLOT is on: the end of the mapping holding it (a stack grows
 * down from there), 0 when ptap does not know it.
 */
uint64_t calls_stack_id(struct thread *t, uint64_t slot);
/* The return probe an exit probe Q belongs to. */
struct probe *calls_exit_owner(const struct session *s, const struct probe *q);
/*
 * Return probe P's entry at site ST on T, at a stop (CTX: its registers and
 * memory): the call's frame, with the arguments fetched at the entry.
 */
void calls_enter(struct session *s, struct thread *t, const struct site *st, struct probe *p,
		 const struct fetch_ctx *ctx, uint64_t ts);
/*
 * T at exit Q of a return probe's function, at a stop (TAKEN: a conditional
 * tail call that jumps): the call's return record, its frame popped.
 */
void calls_exit(struct session *s, struct thread *t, struct probe *q,
		const struct fetch_ctx *ctx, uint64_t ts, bool taken);

/*
 * Whether return probe P's calls may be held in the process from the entry
 * to the exit (agent.h's hold): nothing of ptap's looks at them meanwhile
 * (a --context scope, a site past the prologue that a loop passes again).
 */
bool calls_may_hold(const struct probe *p);

/* How a frame made in the process is pushed (struct calls_made's how). */
enum {
	CALLS_AT_ENTRY,		/* as at a stop at the entry */
	CALLS_JOINED,		/* with its exit, in one record: pushed even while detaching */
	CALLS_FOR_EXIT,		/* taken from the process for an exit: pushed even while
				 * detaching */
	CALLS_KEPT,		/* taken from the process for a fork or a thread's end: on top,
				 * the frames of calls it made kept (their entries were read first) */
};

/*
 * A return probe's entry or exit recorded inside the process
 * (tracer/engine/inproc.h): what the agent made there, in place of what a
 * stop fetches.
 */
struct calls_made {
	uint64_t ts;
	uint64_t addr, bias;	/* the site */
	uint64_t slot;		/* entry: where the return address is; exit: the sp */
	uint64_t ra;		/* entry: the return address, when RA_OK */
	bool ra_ok;
	const struct fetch_val *vals;	/* the probe's NARGS: those fetched there */
	int how;		/* entry: CALLS_AT_ENTRY ... */
};

/* Return probe P's entry on T: the call's frame, as at a stop. */
void calls_enter_made(struct session *s, struct thread *t, struct probe *p,
		      const struct calls_made *m);
/* Exit Q (a ret) of a return probe's function on T: its return record, as at a stop. */
void calls_exit_made(struct session *s, struct thread *t, struct probe *q,
		     const struct calls_made *m);

/*
 * A call of return probe Q's owner made whole in the process: its entry IN
 * and its exit OUT (Q) on T, one after the other, as the two above would
 * make them.
 */
void calls_whole_made(struct session *s, struct thread *t, struct probe *q,
		      const struct calls_made *in, const struct calls_made *out);

/*
 * T exited: the calls of return probes still pending on it (a coroutine it
 * ran, to be resumed by another thread) go to a sibling, which may return
 * from them.
 */
void calls_thread_gone(struct session *s, struct thread *t);

#endif
