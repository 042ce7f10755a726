/* tracer/engine/plant.h: planting probe sites into an address space as the
 * modules they live in are mapped. */
#ifndef PTAP_TRACER_ENGINE_PLANT_H
#define PTAP_TRACER_ENGINE_PLANT_H

#include <stdbool.h>
#include <stdint.h>

struct aspace;
struct session;
struct site;
struct thread;

/*
 * Plant every probe whose module has an executable mapping overlapping
 * [LO, HI) of T's address space and is not planted there yet.  T is in a
 * ptrace stop (a scratch page may have to be mapped through it).  Returns the
 * number of sites planted, or -ESRCH when T exited or exec'd meanwhile (its
 * event is queued for the main loop: do not resume T).  FRESH: the range
 * was mapped just now and no thread can have run in it, so probes may be
 * jump sites there (aspace.h).
 */
int plant_range(struct session *s, struct thread *t, uint64_t lo, uint64_t hi, bool fresh);

/*
 * Which probes may be jump sites (struct site): none unless ALLOW (launched,
 * not --no-jumps); never the loader's r_brk; and not one whose jump would
 * cover another probe's address.  Probes at one address agree.  Once, after
 * every probe is resolved.
 */
void plant_decide_jumps(struct session *s, bool allow);

/*
 * Does ST describe C's memory: C maps ST's module at ST->addr (ST->map_gen is
 * updated to that mapping), the int3 is in place, and the slot holds ST's
 * out-of-line copy?
 */
bool plant_site_in_memory(struct thread *c, struct site *st);
/*
 * C is a fork child that has not run yet.  Its memory is its parent's at the
 * moment of the fork, but the table it was given is the parent's when ptap
 * saw the fork event: other threads may have mapped, unmapped or planted in
 * between.  Re-read C's map table and keep only the sites its memory really
 * holds.  0 or -errno.
 */
int plant_fork_fixup(struct session *s, struct thread *c);

/*
 * Put back the original bytes of every site of AS that is still ours (the
 * byte is our int3 in the mapping it was planted in) and mark AS unplanted.
 * RUNNING: threads of AS may be running.  Each int3's byte goes back in one
 * write; a jump site's several bytes cannot, so its jump stays and its
 * trampoline's int3 becomes a nop (launched, tracing over: the code runs as
 * it would, untrapped).  Else every jump goes too.
 */
void plant_restore(struct aspace *as, bool running);

#endif
