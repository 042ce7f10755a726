/* dwarf/pctx_int.h: one probe point being resolved into sites (struct
 * pctx): the sites collected so far and the helpers every finder below
 * dwarf/points.c shares (dwarf/pctx.c).  Private to dwarf/. */
#ifndef PTAP_DWARF_PCTX_INT_H
#define PTAP_DWARF_PCTX_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <elfutils/libdw.h>

#include "dwarf/site.h"
#include "dwarf/site_int.h"

struct dbg;
struct elfmod;
struct probe_point;
struct ptap_err;

#define NEAR_LINES	5	/* lines suggested for a line without code */

/* Lines with code nearest to a line without (for the message). */
struct nearlines {
	int want;
	int lines[NEAR_LINES];
	int n;
	const char *file;	/* FUNC:RELLINE: the function's file */
	int base;		/* FUNC:RELLINE: its DW_AT_decl_line */
};

/* A site being collected. */
struct site_rec {
	struct point_site s;	/* S.die is set when the sites are handed out */
	struct site_die die;	/* when S.has_die */
	uint64_t from;		/* an instruction start before S.vaddr in the same code range */
	int seq;		/* insertion order: of two sites at one address the first wins */
};

/* One points__find() or points__list_funcs() call. */
struct pctx {
	struct dbg *dbg;
	const struct elfmod *mod;
	Dwarf *dw;		/* NULL: ELF symbols only */
	Dwarf_Addr bias;	/* DWARF address + BIAS = link-time address */
	const struct probe_point *pp;
	int max_probes;
	bool no_inlines;
	bool at_entry;		/* never move FUNC past its prologue */
	struct ptap_err *err;
	char what[192];		/* the point as written, for messages */
	bool lenient;		/* a glob: skip sites that do not decode */
	struct site_skips *skips;	/* where a glob's skipped sites are counted */
	struct site_skips own_skips;	/* SKIPS when the caller gives none */
	struct site_rec *recs;
	size_t n, cap;
	uint64_t *ifuncs;	/* IFUNC symbol addresses, sorted */
	size_t nifuncs;
	struct nearlines nolines;	/* FUNC:RELLINE without code: lines that have some */
};

/* Make *PTR (capacity *CAP elements of SIZE) hold NEED.  0 or -ENOMEM. */
int points_grow(void **ptr, size_t *cap, size_t size, size_t need);
bool points_is_glob(const char *s);		/* FUNC with * ? [ */
/* Does SRC name PATH (the whole path, or its trailing components)? */
bool src_match(const char *path, const char *src);
/*
 * Add a site at link-time VADDR; FROM is an instruction start at or before
 * it in the same contiguous code (checked later).  CU and FN may be NULL
 * (ELF symbols).  FUNC and WHERE are copied.  0 or -ENOMEM.
 */
int add_site(struct pctx *c, uint64_t vaddr, uint64_t from, const char *func,
	     const char *where, Dwarf_Die *cu, Dwarf_Die *fn, bool inlined, bool at_entry,
	     bool after_prologue);
/* The source line of the site just added, when the point named it. */
void set_last_line(struct pctx *c, const char *file, int line);

#endif
