/* agent/agent.h: what ptap and its in-process agent share (issue 20): the
 * agent is code ptap maps into a target, entered from a site's trampoline
 * (arch_agent_tramp_build()) with the site's registers and the address of
 * the site's struct agent_site, both in memory the two share.  It runs the
 * site's fetch programs with the same evaluator ptap runs
 * (probes/fetch_eval.c), its reads of the target's memory directly (ptap
 * catching a fault: agent_copy_read) or through a system call that fails
 * with EFAULT rather than fault, and appends one struct
 * agent_rec to the thread's ring (probes/ring.h), waiting while the ring is
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
	/*
	 * The rings: a thread records into ring (tid & ring_mask), ring_stride
	 * bytes apart from a site's ring (the first), so that threads on other
	 * CPUs do not write the same words at every record; the first ring's
	 * bell is the rings' bell, and its reader word theirs (only it is in
	 * ptap's robust list: tracer/engine/inproc.c)
	 */
	uint32_t ring_mask;
	uint32_t pad;
	uint64_t ring_stride;
};

/* What a site's record is for (struct agent_site's kind). */
enum {
	AGENT_ENTRY,		/* a probe's hit: its arguments */
	AGENT_RET_ENTRY,	/* a return probe's entry: where its return address is, that
				 * address, the arguments fetched at the entry */
	AGENT_EXIT,		/* an exit (a ret) of a return probe's function: the sp, the
				 * arguments fetched at the return ($retval) */
};

/* One site whose hits the agent records.  Addresses are in the target. */
struct agent_site {
	uint64_t progs;		/* NPROGS struct fetch_prog */
	uint64_t ring;		/* the first struct ring of the process's (agent_proc's ring_mask) */
	uint64_t addr;		/* the site (the record's addr) */
	uint64_t bias;		/* of its module, for the programs */
	uint64_t proc;		/* struct agent_proc */
	uint64_t ra_prog;	/* AGENT_RET_ENTRY: the struct fetch_prog of the return
				 * address's slot */
	uint64_t run;		/* bit I: program I runs here (the others make no value) */
	uint32_t nprogs;
	uint32_t probe;		/* ptap's index of the probe */
	uint32_t string_max;
	int32_t clock;		/* clockid_t of the records' time stamps */
	uint32_t kind;		/* AGENT_ENTRY ... */
	uint32_t rec_len;	/* bytes of its record: the struct agent_rec, NPROGS values,
				 * each program's fetch_prog__buflen() */
	uint64_t next;		/* the site of the next probe at this address, 0: none (the
				 * agent makes a record for each, in this order) */
	uint64_t filter;	/* AGENT_ENTRY: its probe's struct agent_filter, 0: none */
	/*
	 * AGENT_RET_ENTRY, AGENT_EXIT: the bytes an exit's record takes
	 * (AGENT_REC_ALIGN()); 0: never kept.  Where the entry's site is alone
	 * at its address its record is kept in the ring until the exit adds
	 * its own (ring_hold()), if that is alone at its address too
	 */
	uint32_t hold;
	uint32_t owner;		/* AGENT_EXIT: ptap's index of its return probe */
};

/*
 * A probe's --filter, matched by the agent (probes/filter.h's
 * filter__eval(), on the values it fetched): a hit it leaves out is not
 * written to the ring, only counted here.  One per probe and region.
 */
struct agent_filter {
	uint64_t left_out;	/* hits left out, added to atomically */
	uint64_t pad;
	_Alignas(16) unsigned char filter[];	/* the struct filter, filter__size() bytes */
};

/* At most this many programs a site (struct agent_site's run) */
#define AGENT_PROGS_MAX	64
/* At most this many sites in a chain (struct agent_site's next): a loop written by the
 * process ends there */
#define AGENT_CHAIN_MAX	64

/*
 * One probe's record of a hit, as the agent writes it: NVALS values, then
 * the bytes of their strings.  A value's str is an offset from the start of
 * the record (0: no bytes), since the two sides map the ring at different
 * addresses.  The records of one hit's probes (a chain of sites) share a
 * slot of the ring while they fit, one after another: NEXT is where the
 * next one begins, from the start of the slot's first (0: the last).
 */
struct agent_rec {
	uint64_t ts;
	uint64_t addr;
	uint64_t bias;		/* the site's */
	uint64_t slot;		/* AGENT_RET_ENTRY: where the return address is; AGENT_EXIT:
				 * the sp (where it is at the ret) */
	uint64_t ra;		/* AGENT_RET_ENTRY: the return address, with AGENT_REC_RA */
	uint32_t tid;		/* the process is ptap's to name, from the tid */
	uint32_t probe, nvals;
	uint32_t flags;		/* AGENT_REC_RA */
	uint32_t next;		/* a multiple of 8 */
	uint32_t pad;
	struct fetch_val vals[];
};

/* Where a record of LEN bytes (a site's rec_len) ends in a slot: the next one begins. */
#define AGENT_REC_ALIGN(len)	(((len) + 7) & ~(uint64_t)7)

#define AGENT_REC_RA	1u	/* the return address was read */
#define AGENT_REC_LEFT_OUT 2u	/* --filter left it out (counted in its agent_filter): a record
				 * in a slot with others, skipped */

/* The entry: REGS as arch_agent_tramp_build() passes them, SITE a struct agent_site *. */
void agent_hit(uint64_t *regs, uint64_t site);

#endif
