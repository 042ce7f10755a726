/* agent/agent.h: what ptap and its in-process agent share (issue 20): the
 * agent is code ptap maps into a target, entered from a site's trampoline
 * (arch_agent_tramp_build()) with the site's registers and the address of
 * the site's struct agent_site, both in memory the two share.  It runs the
 * site's fetch programs with the same evaluator ptap runs
 * (probes/fetch_eval.c), its reads of the target's memory directly (ptap
 * catching a fault: agent_copy_read) or through a system call that fails
 * with EFAULT rather than fault, and appends one struct
 * agent_rec to the site's ring (probes/ring.h), waiting while the ring is
 * full.  Built freestanding into a flat, position-independent blob
 * (agent_blob.h), with no relocation: it can run at any address. */
#ifndef PTAP_AGENT_AGENT_H
#define PTAP_AGENT_AGENT_H

#include <stdint.h>

#include "probes/fetch.h"

/*
 * What the agent knows of the process it runs in, set by ptap (and again in
 * a fork child): what spares it a system call on every hit.
 */
struct agent_proc {
	uint64_t gettime;	/* the vDSO's clock_gettime in the target, 0: the system call */
	uint32_t tid_off;	/* a thread's tid is the 32 bits at the thread pointer + this
				 * (glibc's struct pthread, from libc's DWARF:
				 * dwarf/member.h); 0: the system call.  ptap sets it to 0
				 * while a vfork child runs on its parent's thread pointer */
	uint32_t direct;	/* not 0: the programs read memory directly, ptap catching a
				 * fault (agent_copy_read); 0: through process_vm_readv */
};

/* One site whose hits the agent records.  PROGS, RING and PROC are addresses in the target. */
struct agent_site {
	uint64_t progs;		/* NPROGS struct fetch_prog */
	uint64_t ring;		/* struct ring: the records */
	uint64_t addr;		/* the site (the record's addr) */
	uint64_t bias;		/* of its module, for the programs */
	uint64_t proc;		/* struct agent_proc */
	uint32_t nprogs;
	uint32_t probe;		/* ptap's index of the probe */
	uint32_t string_max;
	int32_t clock;		/* clockid_t of the records' time stamps */
};

/*
 * One hit, as the agent writes it: NVALS values, then the bytes of their
 * strings.  A value's str is an offset from the start of the record (0: no
 * bytes), since the two sides map the ring at different addresses.
 */
struct agent_rec {
	uint64_t ts;
	uint64_t addr;
	uint32_t tid;		/* the process is ptap's to name, from the tid */
	uint32_t probe, nvals;
	uint32_t pad;
	struct fetch_val vals[];
};

/* The entry: REGS as arch_agent_tramp_build() passes them, SITE a struct agent_site *. */
void agent_hit(uint64_t *regs, uint64_t site);

#endif
