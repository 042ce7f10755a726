/* dwarf/syms.c: a module's function symbols: those of one name (libdwfl's
 * symbol table, the debug file's .symtab too, and elfmod's), and its IFUNC
 * symbols, whose resolvers are never a site. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <elf.h>
#include <elfutils/libdwfl.h>

#include "dwarf/debuginfo_int.h"
#include "dwarf/die_int.h"
#include "dwarf/elfmod.h"
#include "dwarf/pctx_int.h"
#include "dwarf/syms_int.h"

const char *func_sym(Dwfl_Module *m, int i, GElf_Addr *addr, GElf_Sym *sym)
{
	GElf_Word shndx;
	const char *nm = dwfl_module_getsym_info(m, i, sym, addr, &shndx, NULL, NULL);
	int type = GELF_ST_TYPE(sym->st_info);

	return nm && shndx != SHN_UNDEF && (type == STT_FUNC || type == STT_GNU_IFUNC) ? nm : NULL;
}

/*
 * Every function symbol called NAME: up to MAX into HITS (addresses
 * distinct).  Returns the count.
 */
int find_syms(struct pctx *c, const char *name, struct symhit *hits, int max)
{
	Dwfl_Module *m = dbg__module(c->dbg);
	struct elfmod_sym es;
	int ns = m ? dwfl_module_getsymtab(m) : -1, n = 0;

	for (int i = 1; i < ns && n < max; i++) {
		GElf_Addr addr;
		GElf_Sym sym;
		const char *nm = func_sym(m, i, &addr, &sym);
		bool dup = false;

		if (!nm || strcmp(nm, name))
			continue;
		for (int j = 0; j < n; j++)
			dup |= hits[j].vaddr == addr;
		if (!dup)
			hits[n++] = (struct symhit){ addr, sym.st_size, GELF_ST_TYPE(sym.st_info) };
	}
	if (n < max && elfmod__find_sym(c->mod, name, &es) == 0 &&
	    (es.type == STT_FUNC || es.type == STT_GNU_IFUNC)) {
		bool dup = false;

		for (int j = 0; j < n; j++)
			dup |= hits[j].vaddr == es.vaddr;
		if (!dup)
			hits[n++] = (struct symhit){ es.vaddr, es.size, es.type };
	}
	return n;
}

static int cmp_u64(const void *pa, const void *pb)
{
	uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;

	return a < b ? -1 : a > b;
}

/* The addresses of the module's IFUNC symbols, sorted, into C->ifuncs. */
int load_ifuncs(struct pctx *c)
{
	Dwfl_Module *m = dbg__module(c->dbg);
	int ns = m ? dwfl_module_getsymtab(m) : -1;
	size_t cap = 0;

	for (int i = 1; i < ns; i++) {
		GElf_Word shndx;
		GElf_Addr addr;
		GElf_Sym sym;

		if (!dwfl_module_getsym_info(m, i, &sym, &addr, &shndx, NULL, NULL) ||
		    GELF_ST_TYPE(sym.st_info) != STT_GNU_IFUNC || shndx == SHN_UNDEF)
			continue;
		if (points_grow((void **)&c->ifuncs, &cap, sizeof(*c->ifuncs), c->nifuncs + 1) < 0)
			return -ENOMEM;
		c->ifuncs[c->nifuncs++] = addr;
	}
	if (c->nifuncs)
		qsort(c->ifuncs, c->nifuncs, sizeof(*c->ifuncs), cmp_u64);
	return 0;
}

/* Does an IFUNC symbol start at link-time ADDR (C->ifuncs loaded)? */
bool at_ifunc(struct pctx *c, uint64_t addr)
{
	return c->nifuncs &&
	       bsearch(&addr, c->ifuncs, c->nifuncs, sizeof(*c->ifuncs), cmp_u64) != NULL;
}

/*
 * Is the out-of-line function FN an IFUNC resolver (an IFUNC symbol starts
 * it)?  A resolver runs once, when the dynamic linker binds the symbol:
 * never a site, nor what is inlined into it.
 */
bool is_ifunc(struct pctx *c, Dwarf_Die *fn)
{
	Dwarf_Addr entry;

	return c->nifuncs && die_func_entry(fn, false, &entry) == 0 &&
	       at_ifunc(c, entry + c->bias);
}
