/* tracer/engine/mapsync.h: keeping each map table in sync with its process
 * (the model is tracer/space/maptab.h).  Two sources: the syscalls ptap
 * stops on (seccomp RET_TRACE when launched, every syscall with
 * --mmap-tracking=syscall), whose exits update the table -- mmap, munmap,
 * mremap, mprotect; and clone/clone3, whose CLONE_UNTRACED is stripped at
 * entry, and fork/vfork, so that every new child's flags come from its own
 * syscall -- and, attached without syscall stops, the dynamic loader's
 * r_brk, where the maps are read again. */
#ifndef PTAP_TRACER_ENGINE_MAPSYNC_H
#define PTAP_TRACER_ENGINE_MAPSYNC_H

#include <stdbool.h>
#include <stdint.h>

struct aspace;
struct ptrace_syscall_info;
struct session;
struct thread;

/* The syscall numbers the launch filter returns SECCOMP_RET_TRACE for. */
extern const long mapsync_traced[];
extern const int mapsync_ntraced;

/*
 * At the seccomp stop of T's syscall (T->sc_nr, T->sc_args): strip
 * CLONE_UNTRACED from clone/clone3 and remember the flags of the clone
 * family (fork: 0, vfork: CLONE_VM|CLONE_VFORK).  Returns true
 * when the syscall's exit must be seen (the map-changing ones).
 */
bool mapsync_on_entry(struct session *s, struct thread *t);
/*
 * At the exit stop of a map-changing syscall: update the map table, forget
 * sites whose mapping went away, plant probes in new executable mappings.
 * 0, or -ESRCH when T exited or exec'd meanwhile (see plant_range()).
 */
int mapsync_on_exit(struct session *s, struct thread *t, const struct ptrace_syscall_info *info);
/* Remember PC (just after a syscall instruction) as a place to inject syscalls from. */
void mapsync_note_syscall_pc(struct aspace *as, uint64_t pc);
/*
 * Attached, T hit the loader's r_brk (the link map is about to change or
 * has changed): re-read its process's maps, drop the sites of
 * what went away, plant in what came.  0, or -ESRCH (T gone, its event
 * queued).
 */
int mapsync_rbrk(struct session *s, struct thread *t);

#endif
