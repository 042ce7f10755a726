/* tracer/engine/hit.h: one probe hit, from the int3 stop to the resumed thread. */
#ifndef PTAP_TRACER_ENGINE_HIT_H
#define PTAP_TRACER_ENGINE_HIT_H

#include <stdbool.h>
#include <stdint.h>

struct fetch_val;
struct probe;
struct session;
struct thread;

/*
 * T stopped on a SIGTRAP from an int3.  If it is one of our sites: fetch the
 * arguments, write the record, step over the displaced instruction (out of
 * line or emulated; the int3 stays) and resume T: 0.  -ENOENT when the trap
 * is not ours (the caller delivers it), -ESRCH when T is gone.  While
 * S->detaching the hit is recorded and T is left stopped at the probe
 * address, to run the original instruction once the byte is back.
 * Allocates nothing; one stop per hit.
 */
int hit_handle(struct session *s, struct thread *t);

/*
 * T is stopped for signal SIG (0: stopped to be detached): if it is inside
 * an out-of-line slot, move it back to the original code (the signal frame
 * then holds the real address).
 */
void hit_slot_signal(struct thread *t, int sig);

/*
 * A return probe's entry or exit recorded inside the process
 * (tracer/engine/inproc.h): what the agent made there, in place of what
 * hit_handle() fetches at a stop.
 */
struct hit_made {
	uint64_t ts;
	uint64_t addr, bias;	/* the site */
	uint64_t slot;		/* entry: where the return address is; exit: the sp */
	uint64_t ra;		/* entry: the return address, when RA_OK */
	bool ra_ok;
	const struct fetch_val *vals;	/* the probe's NARGS: those fetched there */
};

/* Return probe P's entry on T: the call's frame, as at a stop. */
void hit_ret_enter_made(struct session *s, struct thread *t, struct probe *p,
			const struct hit_made *m);
/* Exit Q (a ret) of a return probe's function on T: its return record, as at a stop. */
void hit_ret_exit_made(struct session *s, struct thread *t, struct probe *q,
		       const struct hit_made *m);

/*
 * T exited: the calls of return probes still pending on it (a coroutine it
 * ran, to be resumed by another thread) go to a sibling, which may return
 * from them.
 */
void hit_thread_gone(struct session *s, struct thread *t);

#endif
