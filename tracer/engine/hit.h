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
 * then holds the real address); if it is about to run the return
 * trampoline, make the return (recorded) and move it to the real address.
 */
void hit_slot_signal(struct session *s, struct thread *t, int sig);

/*
 * Put back every return address T's return probes swapped for the
 * trampoline (still on its stack), and forget them: detach, tracing over, a
 * fork child let go.  T is stopped.
 */
void hit_restore_returns(struct thread *t);

/*
 * Detach: put back every return address the return probes of every thread
 * swapped for the trampoline, the newest swap of a slot first (a slot may be
 * in several threads' shadow stacks: a coroutine moved, a thread's stack
 * reused), and forget them.  The threads are stopped.
 */
void hit_restore_all(struct session *s);

/*
 * T exited: the calls its return probes took over that are still on a stack
 * (a coroutine it ran, to be resumed by another thread) go to a sibling, in
 * case the sibling returns through them.
 */
void hit_thread_gone(struct session *s, struct thread *t);

#endif
