/* dwarf/points_int.h: a probe point being resolved into sites (struct pctx)
 * and the walk over compile units that finds functions (struct fwalk),
 * shared by the files dwarf/points.h's work is split into: points.c (the
 * sites, the entry point), fwalk.c (CU walks), funcsites.c (FUNC), lines.c
 * (SRC:LINE, 0xADDR), elfsyms.c (ELF symbols, IFUNCs), nosite.c (why there
 * is no site) and funclist.c (`ptap list`).  Private to dwarf/. */
#ifndef PTAP_DWARF_POINTS_INT_H
#define PTAP_DWARF_POINTS_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <elfutils/libdw.h>

#include "dwarf/points.h"
#include "dwarf/site_int.h"

struct dbg;
struct elfmod;
struct probe_point;
struct ptap_err;

#define NEAR_MAX	5	/* names suggested for an unknown function */
#define NEAR_LINES	5	/* lines suggested for a line without code */
#define MAX_SYMHITS	32	/* symbols of one name followed */

/* One function instance a CU walk found. */
struct finst {
	Dwarf_Die cu;
	Dwarf_Die fn;		/* DW_TAG_subprogram, or DW_TAG_inlined_subroutine */
	Dwarf_Die outer;	/* the out-of-line function holding FN (FN itself if not inlined) */
	const char *name;	/* borrowed from the Dwarf */
	bool inlined;
	int seq;		/* walk order */
};

/* An out-of-line function's entry: ELF symbols there are already described. */
struct fentry {
	Dwarf_Addr addr;	/* link-time address */
	Dwarf_Die fn;
};

/* Names close to an unknown one, best (lowest score) first. */
struct near {
	const char *want;
	const char *names[NEAR_MAX];
	int score[NEAR_MAX];
	int n;
};

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

/* A walk over CUs collecting the function instances whose name matches. */
struct fwalk {
	struct pctx *c;
	const char *pat;	/* FUNC or a glob; NULL: every function */
	bool glob;
	const char *src;	/* only functions declared in SRC or in a CU named SRC */
	bool cu_src;		/* the current CU's name matches SRC */
	Dwarf_Die cu;
	Dwarf_Die outer;
	bool in_outer;
	struct finst *insts;
	size_t n, cap;
	bool want_entries;	/* collect every out-of-line entry into ENTRIES */
	struct fentry *entries;
	size_t nentries, cap_entries;
	struct near *near;	/* when set: DWARF names close to PAT */
};

/* A function symbol named NAME (libdwfl's or elfmod's symbol table). */
struct symhit {
	uint64_t vaddr;
	uint64_t size;
	int type;
};

/* What a FUNC point's instances and symbols gave no site for, to say why. */
struct func_left {
	int dropped;		/* inlined instances --no-inlines (or %return) leaves out */
	int ifunc;		/* IFUNC resolvers, which are never a site */
	int offinl;		/* inlined instances FUNC+OFF cannot take */
	size_t ninsts;		/* instances the walk found */
	int nsyms;		/* symbols of the name */
};

/* ---- dwarf/points.c: the sites ------------------------------------------- */

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

/* ---- dwarf/fwalk.c: walking compile units -------------------------------- */

bool name_matches(struct fwalk *w, const char *name);	/* W's pattern (none: all) */
int fwalk_cu(struct fwalk *w, Dwarf_Die *cu);		/* one unit; 0 or -ENOMEM */
int fwalk_all(struct fwalk *w);				/* every unit; 0 or -ENOMEM */
void fwalk_exit(struct fwalk *w);			/* what W collected */
/* The instances of the function named NAME; *SYMS, *NSYMS: its symbols. */
int find_named(struct pctx *c, struct fwalk *w, const char *name, struct symhit *syms,
	       int *nsyms);
int cmp_fentry(const void *pa, const void *pb);		/* by address, for qsort */
/* The out-of-line function starting at link-time ADDR among ENTRIES (sorted), or NULL. */
const struct fentry *fentry_at(const struct fentry *entries, size_t n, uint64_t addr);
/* The out-of-line DWARF function whose entry is VADDR into *FI: 1, 0 (none), -errno. */
int die_at_entry(struct pctx *c, uint64_t vaddr, struct finst *fi);

/* ---- dwarf/funcsites.c: FUNC, FUNC+OFF, FUNC:RELLINE --------------------- */

/* Does a parameter of FN live in FN's own frame at its ENTRY (not written yet)? */
bool params_in_frame(Dwarf_Die *fn, Dwarf_Addr entry);
/* The end of FN's prologue (perf's skip-prologue) into *OUT.  0, or -ENOENT. */
int skip_prologue(Dwarf_Die *cu, Dwarf_Die *fn, Dwarf_Addr entry, Dwarf_Addr *out);
int add_outofline(struct pctx *c, struct finst *fi, const char *name, const char *where);
int add_offset(struct pctx *c, struct finst *fi, const char *name);
int add_relline(struct pctx *c, struct finst *fi, const char *name);
int points_func(struct pctx *c, struct fwalk *w);	/* FUNC (a name or a glob) */

/* ---- dwarf/lines.c: SRC:LINE and 0xADDR ----------------------------------- */

/* Remember LINE if it is among the NEAR_LINES nearest to NL->want. */
void nearlines_add(struct nearlines *nl, int line);
int points_srcline(struct pctx *c);
int points_addr(struct pctx *c);

/* ---- dwarf/elfsyms.c: ELF symbols and IFUNCs ------------------------------ */

/* Every function symbol called NAME: up to MAX into HITS.  The count. */
int find_syms(struct pctx *c, const char *name, struct symhit *hits, int max);
int refuse_sym(struct pctx *c, const char *name, int type);	/* -EINVAL with why */
int add_sym_site(struct pctx *c, const char *name, const struct symhit *sym, long off);
int load_ifuncs(struct pctx *c);			/* C->ifuncs; 0 or -ENOMEM */
bool at_ifunc(struct pctx *c, uint64_t addr);		/* an IFUNC symbol starts at ADDR */
bool is_ifunc(struct pctx *c, struct finst *fi);	/* FI is (in) an IFUNC resolver */
int add_glob_syms(struct pctx *c, const char *glob, const struct fentry *entries,
		  size_t nentries);
int add_unnamed_sym(struct pctx *c, const char *func, const struct symhit *sym);
int add_ifunc(struct pctx *c, const char *name, const struct symhit *sym);
int add_glob_ifuncs(struct pctx *c, const char *glob);
int points_elf(struct pctx *c);				/* no DWARF: FUNC, FUNC+OFF, globs */

/* ---- dwarf/nosite.c: why there is no site --------------------------------- */

void near_add(struct near *nr, const char *name);	/* NAME, if close to NR->want */
/* "no function 'exec_qurey' in PATH; nearest: exec_query, ..."  -ENOENT. */
int err_no_function(struct pctx *c, const char *name, struct near *nr);
/* "no code at structs.c:40; lines with code near it: ..."  -ENOENT. */
int err_no_code(struct pctx *c, const char *file, int line, struct nearlines *nl,
		const char *func);
/* A glob that matched only what cannot be probed: the first reason. */
int err_glob_nothing(struct pctx *c, const char *glob, bool dropped);
/* A plain FUNC left without a site (LEFT: what it found; NR: names close to it,
 * or NULL when it has symbols): why.  -ENOENT or -EINVAL with C->err. */
int err_no_func_site(struct pctx *c, struct near *nr, const struct func_left *left);

#endif
