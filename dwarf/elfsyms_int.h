/* dwarf/elfsyms_int.h: sites from ELF symbols (dwarf/elfsyms.c): a module
 * without DWARF, functions DWARF does not describe, globs, IFUNCs.  Private
 * to dwarf/. */
#ifndef PTAP_DWARF_ELFSYMS_INT_H
#define PTAP_DWARF_ELFSYMS_INT_H

#include <stddef.h>

struct fentry;
struct pctx;
struct symhit;

/* The function symbols matching GLOB no site has yet (ENTRIES: DWARF's functions). */
int add_glob_syms(struct pctx *c, const char *glob, const struct fentry *entries,
		  size_t nentries);
/* A symbol SYM of FUNC no DWARF function found by name starts at. */
int add_unnamed_sym(struct pctx *c, const char *func, const struct symhit *sym);
/* The IFUNC NAME: a site at each implementation its resolver can select. */
int add_ifunc(struct pctx *c, const char *name, const struct symhit *sym);
/* The IFUNC symbols matching GLOB (add_ifunc()), those that fail left out. */
int add_glob_ifuncs(struct pctx *c, const char *glob);
int points_elf(struct pctx *c);				/* no DWARF: FUNC, FUNC+OFF, globs */

#endif
