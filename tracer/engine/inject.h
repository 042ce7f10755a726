/* tracer/engine/inject.h: running a system call inside a stopped tracee. */
#ifndef PTAP_TRACER_ENGINE_INJECT_H
#define PTAP_TRACER_ENGINE_INJECT_H

#include <stdint.h>

struct session;
struct thread;

/*
 * Run system call NR(ARGS) in T, which is in a ptrace stop, then put its
 * registers back as they were.  The syscall instruction is the address
 * space's known one (recorded at an earlier syscall stop), else two bytes
 * written at T's pc for the duration (used right after exec, when the
 * process is a single thread).  A signal that arrives meanwhile is held and
 * re-sent to the thread afterwards; other threads' stops are queued for the
 * main loop (session__defer).  *RET gets the syscall's return value (-errno
 * on failure).  0; -ESRCH when T exited or exec'd meanwhile (the event is
 * queued: leave T alone, do not resume it); or -errno.
 */
int inject_syscall(struct session *s, struct thread *t, long nr, const uint64_t args[6],
		   long *ret);

#endif
