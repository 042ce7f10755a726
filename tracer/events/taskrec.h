/* tracer/events/taskrec.h: `--events task` records: a traced process forked,
 * exec'd or exited.  Written only when the session asks for them
 * (events_task) and the thread is followed. */
#ifndef PTAP_TRACER_EVENTS_TASKREC_H
#define PTAP_TRACER_EVENTS_TASKREC_H

#include <sys/types.h>

struct session;
struct thread;

/* T's process forked (or cloned a process, not a thread) CHILD. */
void taskrec_fork(struct session *s, const struct thread *t, pid_t child);
/* T's process exec'd: its new program, from /proc/PID/exe. */
void taskrec_exec(struct session *s, const struct thread *t);
/* T's process ended with wait STATUS: its exit status, or the signal that killed it. */
void taskrec_exit(struct session *s, const struct thread *t, int status);

#endif
