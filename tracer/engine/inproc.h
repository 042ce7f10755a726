/* tracer/engine/inproc.h: in-process probes, ptap's side (issue 20; the
 * agent's side is agent/agent.h).  A probe whose record needs nothing but
 * its fetch programs is a jump to a trampoline that calls the agent, which
 * ptap maps into the process with a region of memory the two share (a
 * memfd): the process's struct agent_proc, its sites' struct agent_site
 * and fetch programs, and the ring the agent appends records to.  The
 * thread never stops; ptap drains the rings and writes the records as it
 * writes a stop's.
 *
 * Order: a thread's records in a ring precede anything it does after (the
 * agent returns only once its record is committed), so draining every ring
 * before handling any stop keeps each thread's records in the order it made
 * them, with its syscalls, task and map events and return records.
 */
#ifndef PTAP_TRACER_ENGINE_INPROC_H
#define PTAP_TRACER_ENGINE_INPROC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct aspace;
struct probe;
struct session;
struct site;
struct thread;

/* May probe P be recorded in the process?  Decided once, before planting. */
bool inproc_probe_ok(const struct session *s, const struct probe *p);
/* Why P's hits stop the thread rather than run in the process (NULL: they need not). */
const char *inproc_why_not(const struct session *s, const struct probe *p);
/*
 * Make jump site ST of probe P, in T's process, call the agent: its struct
 * agent_site in the process's region, which is mapped at the first one.
 * 0 with ST->agent set; -errno when it cannot (then ST stays a trapping
 * jump site: said once per process at -v).  -ESRCH: T is gone.
 */
int inproc_site(struct session *s, struct thread *t, struct site *st, struct probe *p);
/*
 * Another probe P at in-process site ST (its site made by inproc_site()):
 * the agent records it too, after those before it.  0, or -ENOSPC/-ENOTSUP
 * (P is then not planted there).
 */
int inproc_site_add(struct session *s, struct thread *t, struct site *st, struct probe *p);
/* T's process mapped libraries: its libc, where the agent finds a thread's tid, may be one. */
void inproc_libs_mapped(struct thread *t);
/* Does PC lie in the agent's code in AS (its system calls are not the program's)? */
bool inproc_owns_pc(const struct aspace *as, uint64_t pc);
/*
 * T stopped for signal SIG: a fault of the agent's read of memory (a bad
 * pointer)?  Then T goes on in the agent, the read failed (inproc.c,
 * "reading memory"), and the signal must not be delivered.
 */
bool inproc_read_fault(struct thread *t, int sig);
/*
 * T is about to run rt_sigaction(ARGS) (a seccomp stop: launched, the
 * filter stops it for SIGSEGV and SIGBUS only): a handler of either turns
 * the agent's direct reads off before the kernel installs it.
 */
void inproc_sigaction(struct thread *t, const uint64_t *args);
/*
 * FN, called from another thread of ptap's, makes the loop drain the rings
 * soon (inproc.c, "the bells"): set once the loop can take it.
 */
void inproc_on_bell(void (*fn)(void));
/*
 * Does a ring that fills wake ptap at once in every process that has one
 * (the bells' thread runs and waits on every process's bell)?  Else some
 * wait for the loop's timer.
 */
bool inproc_bells_reach_all(const struct session *s);
/* Is any region mapped (the loop then drains on a timer)? */
bool inproc_active(const struct session *s);
/*
 * Write the records the rings hold, up to the time of the call (inproc.c's
 * drain_one(): a later one waits for the next drain).  The number written.
 */
size_t inproc_drain(struct session *s);
/*
 * A process may have gone (exit, exec): regions no process maps any more
 * are drained and freed at the next drain.
 */
void inproc_note_gone(struct session *s);
/*
 * T is about to be forgotten: its records still in a ring (behind one
 * another thread has not finished) keep its name until they are written.
 */
void inproc_thread_gone(struct session *s, const struct thread *t);
/*
 * A vfork child of T's process runs on T's thread pointer (BEGIN), or left
 * its parent's memory (its exec, its end): while any does, the agent asks
 * the kernel for the tid.
 */
void inproc_vfork(struct thread *t, bool begin);
/*
 * T is at exit Q of a return probe's function at time TS, its sp at SLOT:
 * a call of Q's probe there entered before, held in the process (agent.h's hold) is taken from it and
 * its frame pushed first -- its exit is not to find it there (a stop, a
 * coroutine gone to another thread).
 */
void inproc_held_for_exit(struct session *s, struct thread *t, const struct probe *q,
			  uint64_t slot, uint64_t ts);
/* T forks or is gone: the call it holds in its process, if any, taken and pushed. */
void inproc_held_of(struct session *s, struct thread *t);
/*
 * T execs: the call it holds in the rings it wrote, if any, taken (its frame
 * goes with the old image's), and the slots it left taken there freed --
 * rings a fork or vfork child shares with its parent, which go on.
 */
void inproc_exec(struct session *s, struct thread *t);
/*
 * T, stopped, is a thread new to ptap (attached, or just made) in a process
 * with a region: its ring's pages mapped at once (ring_warm()).  0, or
 * -ESRCH (T is gone: leave it alone).
 */
int inproc_thread_new(struct session *s, struct thread *t);
/* A fork child C: whether it holds its parent's region (mapped before the fork). */
void inproc_fork_fixup(struct thread *c);
/* Tracing ends: the last records written, the agent told to record no more. */
void inproc_end(struct session *s);
/* The session ends: every record written, every region freed. */
void inproc_fini(struct session *s);

#endif
