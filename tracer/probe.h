/* tracer/probe.h: one probe as a record run holds it -- a -e resolved
 * against one module (dwarf/resolve.h), with the scratch its hits use, sized
 * at start so that the hit path never allocates.  The session owns the
 * array (session.h: probes, nprobes); cmd/record.c fills it. */
#ifndef PTAP_TRACER_PROBE_H
#define PTAP_TRACER_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dwarf/resolve.h"
#include "probes/fetch.h"

/* One resolved probe (one -e, one site in its module). */
struct filter;

struct probe {
	char *event;			/* record name */
	char *module;			/* path of the ELF file it lives in */
	uint64_t dev, ino;		/* that file's identity, matched against mappings */
	struct resolved_probe rp;	/* link-time address, instruction, fetch programs */
	/* scratch for one hit, sized at start so the hit path never allocates */
	struct fetch_val *vals;
	char *strbuf;			/* the arguments' buffers, one allocation */
	char **bufs;			/* NARGS: each one's fetch_prog__buflen() bytes */
	struct fetch_type *types;	/* NARGS, for records */
	uint64_t planted;		/* sites planted, over all address spaces */
	uint64_t nrec;			/* records written (return probes: their returns) */
	uint64_t nrec_err;		/* of those, with an argument that could not be read */
	struct filter *filter;		/* --filter: only matching hits are written; NULL: all */
	uint64_t nfiltered;		/* hits --filter left out */
	bool said_stop;			/* -v said once why its hits stop (plant.c) */
	char why[160];			/* why the last planting failed, for the summary */
	uint64_t fail_addr;		/* a glob's site: where it failed in this plant_range() */
	bool inproc;			/* recorded in the process (engine/inproc.h) where its
					 * site is a jump; decided before planting */
	bool rbrk;			/* ptap's own: the dynamic loader's r_brk, no record */
	/*
	 * An exit of a return probe's function (cmd/record.c adds one per exit
	 * the probe's rp.exits lists): its own site, no record of its own.
	 */
	int exit_of;			/* 1 + the index of that return probe, 0: not an exit */
	int exit_kind;			/* enum arch_exit_kind */
	/* a return probe (rp.retprobe): where each entry argument goes in a shadow frame */
	size_t *ent_off;		/* NARGS offsets (fetch_vals first, then the buffers) */
	size_t ent_len;			/* bytes of one frame's entry arguments */
	/* --account (tracer/events/account.h): a return probe's calls' cost */
	size_t acct_off;		/* where a frame's entry counters are in its data */
	const char **rec_names;		/* NARGS + ACCT_N: its records' names; NULL: not
					 * accounted (probe__accounted()) */
	/* --context (tracer/events/syscall.h) */
	bool hidden;			/* ptap's own scope probe: no record, no warning */
	int req;			/* the -e it comes from (cmd/record.c); -1: ptap's
					 * own (r_brk, a --context scope) */
	const char *glob;		/* that -e as written when its point is a glob (its
					 * sites' failures are told together), else NULL */
	int ctx1;			/* 1 + the context it feeds (a scope probe, or an
					 * unscoped context's event), 0: none */
	int *ctx_sel;			/* that context's NSEL argument indexes */
};

/* Does --account read the counters of P's calls (its records end with them)? */
static inline bool probe__accounted(const struct probe *p)
{
	return p->rec_names != NULL;
}

/* A probe the user asked for (an -e's, not an exit of its function): its records are told. */
static inline bool probe__asked(const struct probe *p)
{
	return p->req >= 0 && !p->exit_of;
}

#endif
