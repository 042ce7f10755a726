/* tracer/engine/detach.h: letting traced processes go as they were -- every
 * byte of ours put back, scratch pages unmapped, each thread detached from
 * a stop whose meaning is known -- and, launched, removing the breakpoints
 * when tracing ends before the command does. */
#ifndef PTAP_TRACER_ENGINE_DETACH_H
#define PTAP_TRACER_ENGINE_DETACH_H

struct session;
struct thread;

/*
 * Let every traced thread go, leaving each process as it was (README.md,
 * "How it works"): stop them all, handle what they were doing (a hit is recorded
 * and rewound, a thread in an out-of-line slot is moved back), restore every
 * byte that is still ours, unmap the scratch pages, and detach non-leaders
 * first, each with its pending signal; group-stopped ones stay stopped.
 * Empties S's thread table.
 */
void detach_all(struct session *s);

/*
 * C is a child not followed (--no-follow, attached), at its first stop, its
 * breakpoints already removed: unmap its scratch pages, detach it, forget it.
 */
void detach_child(struct session *s, struct thread *c);

/* Launched and tracing is over: remove every breakpoint, plant no more. */
void detach_unplant_all(struct session *s);

#endif
