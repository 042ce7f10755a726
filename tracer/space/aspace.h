/* tracer/space/aspace.h: one address space (mm) of the traced world: its map
 * table, the probe sites planted in it, and its scratch pages.  Shared by the
 * threads of a process and by a vfork child until it execs. */
#ifndef PTAP_TRACER_SPACE_ASPACE_H
#define PTAP_TRACER_SPACE_ASPACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "arch/arch.h"

struct probe;
struct maptab;
struct inproc_region;
struct unwinder;

#define SITE_MAX_PROBES	8
#define ASPACE_MAX_DEAD	256
#define SCRATCH_LEN	4096ULL		/* one scratch page: out-of-line slots, trampolines */
#define SCRATCH_SLOTS	(SCRATCH_LEN / ARCH_SLOT_SIZE)

struct site {
	uint64_t addr;		/* runtime address of the breakpoint */
	uint64_t bias;		/* runtime - link-time address of the module */
	uint64_t slot;		/* out-of-line slot (a jump site: its trampoline), or 0 when
				 * the instruction is emulated */
	uint64_t map_gen;	/* generation of the mapping it was planted in */
	struct probe *probes[SITE_MAX_PROBES];	/* every probe at this address */
	int nprobes;
	struct arch_insn insn;	/* at the runtime address (branch targets rebased) */
	/*
	 * A jump site (arch.h): JUMP.LEN bytes at ADDR jump to the trampoline
	 * at SLOT, whose int3 traps; the thread goes on from there, no
	 * register written.  Only planted where nothing can have run yet (a
	 * mapping just made, launched).  LEN 0: an int3 at ADDR.
	 */
	struct arch_jump jump;
	/*
	 * In-process (engine/inproc.h): the jump site's trampoline calls the
	 * agent at AGENT_FN with the struct agent_site at AGENT, both in the
	 * process; no trap.  0: the trampoline traps.  Another probe at the
	 * address adds its struct agent_site to the chain (its next); AGENT_LAST
	 * is the chain's last, as ptap made it.
	 */
	uint64_t agent, agent_fn, agent_last;
};

struct scratch {
	uint64_t start, len;	/* the page(s) ptap mapped into the target */
	uint64_t used;		/* bytes handed out as slots */
	uint64_t owner[SCRATCH_SLOTS];	/* the jump site each trampoline serves, 0: none */
};

struct aspace {
	int refs;
	pid_t pid;		/* a process whose /proc/PID/mem reaches this mm */
	int memfd;		/* /proc/PID/mem, or -1 */
	struct maptab *mt;
	struct site *sites;	/* sorted by addr */
	size_t nsites, sites_cap;
	struct site *dead;	/* recently dropped sites, a ring: their int3 may live on */
	size_t ndead, dead_next;
	struct scratch *scratch;
	size_t nscratch, scratch_cap;
	uint64_t syscall_pc;	/* address of a syscall instruction here, or 0 */
	/*
	 * Breakpoints removed for good (tracing ended, or a child not followed):
	 * nothing is planted here any more, and a thread that trapped on an
	 * int3 just before it was removed is sent back to run the original.
	 */
	bool unplanted;
	bool no_inject;		/* attached under a seccomp filter: no syscall is run in it */
	bool moving;		/* detach: a thread of it is let run to a stop it can unmap from */
	bool plant_pending;	/* attached with no thread to plant through: at its next stop */
	bool keep_scratch;	/* detach: a thread could not be moved out of them */
	/*
	 * In-process probes (engine/inproc.h): the region shared with ptap
	 * mapped here (a fork child shares its parent's), NULL: none; the
	 * agent's code at [AGENT_LO, AGENT_HI); INPROC_FAILED: it could not be
	 * mapped (said once), the probes here trap.
	 */
	struct inproc_region *inproc;
	uint64_t agent_lo, agent_hi;
	bool inproc_failed;
	uint32_t rings_warm;	/* the rings of INPROC whose pages are mapped here (a bit each) */
	/* record -g (tracer/events/stack.h): the modules for CFI and symbols, as of map gen UNW_GEN */
	struct unwinder *unw;
	uint64_t unw_gen;
};

/* A new, empty address space for PID.  0 or -errno. */
int aspace__new(pid_t pid, struct aspace **out);
/* A copy for a fork child CHILD (its memory holds the same int3 bytes and scratch pages). */
int aspace__clone(const struct aspace *as, pid_t child, struct aspace **out);
struct aspace *aspace__get(struct aspace *as);
void aspace__put(struct aspace *as);	/* frees at the last reference; NULL is fine */
/* Forget everything (after exec) and reopen /proc/PID/mem for the new image. */
int aspace__reset(struct aspace *as, pid_t pid);

struct site *aspace__find_site(const struct aspace *as, uint64_t addr);
/* Insert a copy of SITE, keeping the table sorted.  0 or -ENOMEM. */
int aspace__add_site(struct aspace *as, const struct site *site);
/* Forget the site at ADDR (its byte was never written). */
void aspace__remove_site(struct aspace *as, uint64_t addr);
/*
 * Forget sites in [LO, HI) whose mapping went away or was replaced (a new
 * generation): their int3 went with the old mapping.  Returns the count dropped.
 */
int aspace__drop_stale_sites(struct aspace *as, uint64_t lo, uint64_t hi);
/* Drop the site at index I into the ring of dead sites. */
void aspace__kill_site(struct aspace *as, size_t i);
/*
 * A dropped site at ADDR, or NULL.  Its int3 may still be in memory: copied
 * by the target itself (text remapped through a copy), or in a fork child
 * whose parent's table moved on before ptap saw the fork.
 */
const struct site *aspace__find_dead(const struct aspace *as, uint64_t addr);
/* The trampoline at SLOT serves the jump site at ADDR (0: none). */
void aspace__set_slot_owner(struct aspace *as, uint64_t slot, uint64_t addr);
/* The jump site whose trampoline's int3 is at TRAMP, or NULL: the hit path's lookup. */
struct site *aspace__find_jump(const struct aspace *as, uint64_t tramp);
/*
 * Is TRAMP in the first slot of a jump site's trampoline (its int3), live
 * or dropped (its module unmapped while a thread was on its way there)?
 */
bool aspace__is_tramp(const struct aspace *as, uint64_t tramp);
/* The site whose out-of-line slot holds PC, or NULL. */
const struct site *aspace__site_by_slot(const struct aspace *as, uint64_t pc);
/* Sites in [OLD, OLD+LEN) moved with an mremap to NEW. */
void aspace__move_sites(struct aspace *as, uint64_t old, uint64_t len, uint64_t new_);

#endif
