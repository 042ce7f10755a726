/* tracer/engine/tasks.h: threads and processes coming and going -- clone,
 * exec, exit -- as the main loop (loop.c) and detach (detach.c) both see
 * them.  None of these resumes a thread, except tasks_exec() outside a
 * detach. */
#ifndef PTAP_TRACER_ENGINE_TASKS_H
#define PTAP_TRACER_ENGINE_TASKS_H

#include <sys/types.h>

struct aspace;
struct session;
struct thread;

/*
 * A new thread TID of process TGID in S's table, its address space AS (a
 * reference taken; NULL: not known yet), with its --syscalls buffers.
 * NULL on ENOMEM.
 */
struct thread *tasks_add(struct session *s, pid_t tid, pid_t tgid, struct aspace *as);
/* Forget T: a listed syscall it was inside is recorded as unfinished. */
void tasks_forget(struct session *s, struct thread *t);

/* PID exited or was killed (a wait status): forget it (and record the exit). */
void tasks_exited(struct session *s, pid_t pid, int status);
/* A stop of an unknown PID: a new child whose parent's event has not come yet. */
void tasks_unknown(struct session *s, pid_t pid, int status);
/* T is at its fork/vfork/clone event EV: the child, registered, not resumed (or NULL). */
struct thread *tasks_clone_child(struct session *s, struct thread *t, int ev);
/* T is at its exec event: the new image's tables (T resumed unless S->detaching). */
void tasks_exec(struct session *s, struct thread *t);

#endif
