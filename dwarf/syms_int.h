/* dwarf/syms_int.h: a module's function symbols (dwarf/syms.c): those of
 * one name, and its IFUNCs.  Private to dwarf/. */
#ifndef PTAP_DWARF_SYMS_INT_H
#define PTAP_DWARF_SYMS_INT_H

#include <stdbool.h>
#include <stdint.h>

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>

struct pctx;

#define MAX_SYMHITS	32	/* symbols of one name followed */

/* A function symbol named NAME (libdwfl's or elfmod's symbol table). */
struct symhit {
	uint64_t vaddr;
	uint64_t size;
	int type;
};

/*
 * Symbol I of module M's table (libdwfl's: the debug file's .symtab too),
 * when it is a defined function or IFUNC: its name, *ADDR, *SYM; else NULL.
 */
const char *func_sym(Dwfl_Module *m, int i, GElf_Addr *addr, GElf_Sym *sym);
/* Every function symbol called NAME: up to MAX into HITS.  The count. */
int find_syms(struct pctx *c, const char *name, struct symhit *hits, int max);
int load_ifuncs(struct pctx *c);			/* C->ifuncs; 0 or -ENOMEM */
bool at_ifunc(struct pctx *c, uint64_t addr);		/* an IFUNC symbol starts at ADDR */
/* Is the out-of-line function FN an IFUNC resolver? */
bool is_ifunc(struct pctx *c, Dwarf_Die *fn);

#endif
