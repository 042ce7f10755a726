/* dwarf/fwalk_int.h: walks over a module's compile units collecting
 * function instances by name (dwarf/fwalk.c).  Private to dwarf/. */
#ifndef PTAP_DWARF_FWALK_INT_H
#define PTAP_DWARF_FWALK_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <elfutils/libdw.h>

struct near;
struct pctx;
struct symhit;

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

/* A walk over CUs collecting the function instances whose name matches. */
struct fwalk {
	struct pctx *c;
	const char *pat;	/* FUNC or a glob; NULL: every function */
	bool glob;
	const char *src;	/* only functions declared in SRC or in a CU named SRC */
	bool cu_src;		/* the current CU's name matches SRC */
	bool cu_types;		/* the current CU is C++ or Rust: functions inside types too */
	Dwarf_Die cu;
	Dwarf_Die outer;
	bool in_outer;
	struct finst *insts;
	size_t n, cap;
	bool want_entries;	/* collect every out-of-line entry into ENTRIES */
	struct fentry *entries;
	size_t nentries, cap_entries;
	struct near *near;	/* when set: DWARF names close to PAT */
	/* when set: functions whose linkage name, demangled, QUAL names (a C++
	 * or Rust name, maybe a glob: QUAL_GLOB), whatever PAT says */
	const char *qual;
	bool qual_glob;
};

bool name_matches(struct fwalk *w, const char *name);	/* W's pattern (none: all) */
bool die_matches(struct fwalk *w, Dwarf_Die *fn, const char *name);	/* FN named NAME: W's? */
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

#endif
