/* tracer/engine/attach.h: attaching to running processes (-p), keeping their map
 * tables current without a seccomp filter, and letting them go again. */
#ifndef PTAP_TRACER_ENGINE_ATTACH_H
#define PTAP_TRACER_ENGINE_ATTACH_H

#include <stddef.h>
#include <sys/types.h>

struct aspace;
struct elfmod;
struct session;
struct thread;

/*
 * The path of PID's dynamic loader (the file mapped at its AT_BASE), where
 * ptap's own probe goes: the function at r_debug.r_brk, _dl_debug_state,
 * which the loader calls before and after every change of the link map.
 * 0, -ENOENT for a static program (its maps are read once), or -errno.
 */
int attach_loader_path(pid_t pid, char *path, size_t len);

/*
 * Seize every thread of every process in PIDS (a thread id stands for its
 * process, with a note), stop them, read each map table (PROCMAP_QUERY or
 * /proc/PID/maps), plant the probes and let them run.  Checks every pid
 * first, and on any failure lets go of what it had attached: never half
 * attached.  0, or -errno after printing the cause and the fix.
 */
int attach_pids(struct session *s, const pid_t *pids, int n);

/*
 * T hit the loader's r_brk: re-read its process's maps, drop the sites of
 * what went away, plant in what came.  0, or -ESRCH (T gone, its event
 * queued).
 */
int attach_rbrk_resync(struct session *s, struct thread *t);

/*
 * Let every traced thread go, leaving each process as it was (DESIGN.md,
 * "Detach"): stop them all, handle what they were doing (a hit is recorded
 * and rewound, a thread in an out-of-line slot is moved back), restore every
 * byte that is still ours, unmap the scratch pages, and detach non-leaders
 * first, each with its pending signal; group-stopped ones stay stopped.
 * Empties S's thread table.
 */
void detach_all(struct session *s);

/*
 * Put back the original bytes of every site of AS that is still ours (the
 * byte is our int3 in the mapping it was planted in) and mark AS unplanted.
 * RUNNING: threads of AS may be running.  Each int3's byte goes back in one
 * write; a jump site's several bytes cannot, so its jump stays and its
 * trampoline's int3 becomes a nop (launched, tracing over: the code runs as
 * it would, untrapped).  Else every jump goes too.
 */
void detach_restore_bytes(struct aspace *as, bool running);

/*
 * C is a child not followed (--no-follow, attached), at its first stop, its
 * breakpoints already removed: unmap its scratch pages, detach it, forget it.
 */
void detach_child(struct session *s, struct thread *c);

/* Launched and tracing is over: remove every breakpoint, plant no more. */
void detach_unplant_all(struct session *s);

#endif
