/* tracer/engine/hit.h: one probe hit, from the int3 stop to the resumed thread. */
#ifndef PTAP_TRACER_ENGINE_HIT_H
#define PTAP_TRACER_ENGINE_HIT_H

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

#endif
