/* dwarf/points.h: a probe point (perf probe's FUNC[@SRC][+OFF|:RELLINE],
 * SRC:LINE, 0xADDR, globs) -> the sites in one module (dwarf/site.h), from
 * DWARF when the module has it, else from ELF symbols.  Never calls ptrace. */
#ifndef PTAP_DWARF_POINTS_H
#define PTAP_DWARF_POINTS_H

#include <stdbool.h>
#include <stdint.h>

#include "dwarf/site.h"

struct dbg;
struct elfmod;
struct probe_point;
struct ptap_err;

#define POINTS_MAX_DEFAULT	128	/* --max-probes */

struct point_opts {
	int max_probes;		/* more sites than this is an error naming --max-probes */
	bool no_inlines;	/* --no-inlines: only out-of-line copies */
	bool at_entry;		/* FUNC stays at its entry even at -O0: the probe reads
				 * only registers and $argN, which the ABI defines there */
	struct site_skips *skips;	/* a glob's sites left out go here (may be NULL) */
};

/*
 * The sites of PP in MOD (DBG: its debug info, whose dbg__has_dwarf() may be
 * false), sorted by address, without duplicates.  0 with *SITES (the caller
 * frees it with points__free()) and *N >= 1; else -errno with ERR:
 *   -ENOENT  no such function (ERR names the nearest), file or line
 *   -E2BIG   more than O->max_probes sites (ERR names --max-probes)
 *   -EINVAL  an offset outside the function or not on an instruction boundary
 *
 * FUNC: the function's entry when every parameter's location there is a
 * register, an entry value, a constant or a stack argument at or above the
 * CFA (optimized code); past the prologue (the first line-table row after
 * the entry whose line differs from the entry's) when a parameter lives in
 * the function's own frame (below the CFA, or off %rbp: -O0), the way perf
 * probe decides; plus
 * every inlined instance (DW_TAG_inlined_subroutine) unless O->no_inlines,
 * each at its entry pc.  FUNC+OFF: OFF bytes from the entry (not moved),
 * checked to start an instruction.  FUNC:RELLINE: the line DW_AT_decl_line
 * + RELLINE inside FUNC.  SRC:LINE: every function with code for that line
 * (SRC matches a file name by its trailing path components).  FUNC@SRC:
 * only functions of that file.  Globs (* ? [) match DWARF function names,
 * or ELF symbol names when there is no DWARF.  0xADDR: the function holding
 * it.  FUNC%return: out-of-line copies only (an inlined one is not called).
 */
int points__find(struct dbg *dbg, const struct elfmod *mod, const struct probe_point *pp,
		 const struct point_opts *o, struct point_site **sites, int *n,
		 struct ptap_err *err);
void points__free(struct point_site *sites, int n);

/* One function `ptap list` shows. */
struct list_func {
	const char *name;
	const char *file;	/* FILE and LINE of its definition when DWARF knows them, */
	int line;		/* else NULL, 0 */
	bool ifunc;		/* an IFUNC: the functions its resolver can select follow */
	int nimpls;		/* how many (0: the resolver cannot be followed, see WHY) */
	const char *const *impls;	/* their names ("0x1234" for one without a symbol),
					 * sorted by name */
	const char *why;	/* NIMPLS 0: why the resolver cannot be followed */
};

/*
 * `ptap list`: every function of MOD matching GLOB (NULL: all), one per
 * call to CB, sorted by name, each name once (what F points to lives until
 * CB returns).  An IFUNC is listed by its name with the implementations its
 * resolver can select (dwarf/ifunc.h); the resolver itself is not.  0, or
 * -errno.
 */
int points__list_funcs(struct dbg *dbg, const struct elfmod *mod, const char *glob,
		       void (*cb)(const struct list_func *f, void *priv), void *priv);

/*
 * Is VADDR an instruction boundary of code starting at START (an
 * instruction start: a function's entry or the start of one of its
 * ranges)?  Decodes from START: an int3 planted inside an instruction would
 * corrupt it.  0, or -EINVAL with ERR.
 */
int points__check_boundary(const struct elfmod *mod, uint64_t start, uint64_t vaddr,
			   struct ptap_err *err);

#endif
