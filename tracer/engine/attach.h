/* tracer/engine/attach.h: attaching to running processes (-p), keeping their map
 * tables current without a seccomp filter (engine/mapsync.h). */
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

#endif
