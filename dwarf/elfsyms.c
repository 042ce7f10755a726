/* dwarf/elfsyms.c: sites from ELF symbols (dwarf/syms.c finds them) -- a
 * module without DWARF, a function DWARF does not describe (assembly,
 * aliases), the symbols a glob matches -- and IFUNCs, probed at each
 * implementation their resolver can select. */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <elf.h>
#include <elfutils/libdwfl.h>

#include "dwarf/debuginfo_int.h"
#include "dwarf/elfmod.h"
#include "dwarf/elfsyms_int.h"
#include "dwarf/fwalk_int.h"
#include "dwarf/ifunc.h"
#include "dwarf/instsite_int.h"
#include "dwarf/nosite_int.h"
#include "dwarf/pctx_int.h"
#include "dwarf/syms_int.h"
#include "probes/err.h"
#include "probes/log.h"
#include "probes/spec.h"

/* FUNC or FUNC+OFF at the symbol SYM. */
static int add_sym_site(struct pctx *c, const char *name, const struct symhit *sym, long off)
{
	char where[192];

	if (sym->type != STT_FUNC)
		return refuse_sym(c, name, sym->type);
	if (off < 0 || (sym->size && (uint64_t)off >= sym->size))
		return ptap_err_set(c->err, -1, -EINVAL, "offset %ld is outside %s (size %lu)", off,
				    name, (unsigned long)sym->size);
	if (off)
		snprintf(where, sizeof(where), "%s+%ld", name, off);
	else
		snprintf(where, sizeof(where), "%s", name);
	return add_site(c, sym->vaddr + off, sym->vaddr, name, where, NULL, NULL, false, !off,
			false);
}

static int cmp_u64(const void *pa, const void *pb)
{
	uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;

	return a < b ? -1 : a > b;
}

struct gsym {
	const char *name;
	uint64_t addr;
};

static int cmp_gsym(const void *pa, const void *pb)
{
	const struct gsym *a = pa, *b = pb;
	int d = strcmp(a->name, b->name);

	return d ? d : a->addr < b->addr ? -1 : a->addr > b->addr;
}

static int cmp_str(const void *pa, const void *pb)
{
	return strcmp(*(char *const *)pa, *(char *const *)pb);
}

/*
 * Function symbols matching GLOB that no site has yet, each name once:
 * one starting a DWARF function (an alias: ENTRIES, sorted) takes that
 * function's DIE, others (assembly) are bare symbols.  With DWARF,
 * compiler-made parts of a function (foo.cold, foo.isra.0) are left out.
 */
int add_glob_syms(struct pctx *c, const char *glob, const struct fentry *entries,
		  size_t nentries)
{
	Dwfl_Module *m = dbg__module(c->dbg);
	int ns = m ? dwfl_module_getsymtab(m) : -1, r = 0;
	size_t n = 0, cap = 0, nsites = c->n;
	struct gsym *syms = NULL;
	uint64_t *starts = NULL;
	char **names = NULL;

	for (int i = 1; i < ns; i++) {
		GElf_Word shndx;
		GElf_Addr addr;
		GElf_Sym sym;
		const char *nm = dwfl_module_getsym_info(m, i, &sym, &addr, &shndx, NULL, NULL);

		if (!nm || !*nm || shndx == SHN_UNDEF || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
		    fnmatch(glob, nm, 0) != 0 || (c->dw && strchr(nm, '.')) ||
		    at_ifunc(c, addr))
			continue;
		if (points_grow((void **)&syms, &cap, sizeof(*syms), n + 1) < 0) {
			r = -ENOMEM;
			goto out;
		}
		syms[n++] = (struct gsym){ nm, addr };
	}
	if (!n)
		goto out;
	qsort(syms, n, sizeof(*syms), cmp_gsym);
	/* What the DWARF sites already cover: their names, their functions' entries. */
	names = malloc((nsites ? nsites : 1) * sizeof(*names));
	starts = malloc((nsites ? nsites : 1) * sizeof(*starts));
	if (!names || !starts) {
		r = -ENOMEM;
		goto out;
	}
	for (size_t k = 0; k < nsites; k++) {
		names[k] = c->recs[k].s.func;
		starts[k] = c->recs[k].s.inlined ? 0 : c->recs[k].from;
	}
	qsort(names, nsites, sizeof(*names), cmp_str);
	qsort(starts, nsites, sizeof(*starts), cmp_u64);
	for (size_t i = 0; i < n && r == 0; i++) {
		const struct fentry *e;
		char *key = (char *)syms[i].name;

		if ((i && !strcmp(syms[i].name, syms[i - 1].name)) ||
		    (nsites && bsearch(&key, names, nsites, sizeof(*names), cmp_str)) ||
		    (nsites && bsearch(&syms[i].addr, starts, nsites, sizeof(*starts), cmp_u64)))
			continue;
		e = fentry_at(entries, nentries, syms[i].addr);
		if (e) {
			struct finst alias = { .fn = e->fn, .outer = e->fn };

			if (!dwarf_diecu((Dwarf_Die *)&e->fn, &alias.cu, NULL, NULL))
				continue;
			r = add_outofline(c, &alias, syms[i].name, syms[i].name);
		} else {
			r = add_site(c, syms[i].addr, syms[i].addr, syms[i].name, syms[i].name,
				     NULL, NULL, false, true, false);
		}
	}
out:
	free(syms);
	free(names);
	free(starts);
	return r;
}

/*
 * A symbol of FUNC that no DWARF function found by name starts at: an
 * alias (open64 for __libc_open64) takes the DIE of the function starting
 * there; else (assembly) the bare symbol.
 */
int add_unnamed_sym(struct pctx *c, const char *func, const struct symhit *sym)
{
	struct finst alias;
	int r = die_at_entry(c, sym->vaddr, &alias);

	if (r < 0)
		return r;
	if (r) {
		if (c->pp->line)
			return add_relline(c, &alias, func);
		if (c->pp->offset)
			return add_offset(c, &alias, func);
		return add_outofline(c, &alias, func, func);
	}
	if (c->pp->line)
		return ptap_err_set(c->err, -1, -ENOTSUP,
				    "'%s' needs DWARF line info, and the DWARF of %s does not "
				    "describe %s (assembly?)", c->what, elfmod__path(c->mod), func);
	return add_sym_site(c, func, sym, c->pp->offset);
}

/*
 * The IFUNC NAME (symbol SYM): a site at each implementation its resolver
 * can select, each with NAME as its function (the event name), so that
 * whichever one the dynamic loader chose records.  An implementation DWARF
 * describes takes its DIE (parameters by name, past the prologue at -O0 as
 * any function); one it does not (assembly, like glibc's) the bare symbol.
 * WHERE: "NAME->IMPL", or "NAME->0xADDR" when no symbol names it.  A
 * resolver that cannot be followed: -ENOTSUP with the reason.
 */
int add_ifunc(struct pctx *c, const char *name, const struct symhit *sym)
{
	struct ifunc_impl *impls;
	int n, r = 0;

	if (c->pp->offset || c->pp->line)
		return ptap_err_set(c->err, -1, -EINVAL,
				    "'%s' is an IFUNC of %s: %s would be other code in each "
				    "implementation it selects; give one of them by its name (ptap "
				    "list -x %s '%s')", name, elfmod__path(c->mod),
				    c->pp->offset ? "+OFF" : ":RELLINE", elfmod__path(c->mod), name);
	n = ifunc_impls(c->dbg, c->mod, name, sym->vaddr, sym->size, &impls, c->err);
	if (n < 0)
		return n;
	for (int i = 0; i < n && r >= 0; i++) {
		struct finst fi;
		char where[256];

		if (impls[i].name)
			snprintf(where, sizeof(where), "%s->%s", name, impls[i].name);
		else
			snprintf(where, sizeof(where), "%s->0x%lx", name,
				 (unsigned long)impls[i].vaddr);
		r = die_at_entry(c, impls[i].vaddr, &fi);
		if (r > 0)
			r = add_outofline(c, &fi, name, where);
		else if (r == 0)
			r = add_site(c, impls[i].vaddr, impls[i].vaddr, name, where, NULL, NULL,
				     false, true, false);
	}
	free(impls);
	return r < 0 ? r : 0;
}

struct gifunc {
	const char *name;
	uint64_t addr, size;
	int rank;		/* 0 global, 1 weak, 2 local: the name to use first */
};

static int cmp_gifunc(const void *pa, const void *pb)
{
	const struct gifunc *a = pa, *b = pb;

	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	if (a->rank != b->rank)
		return a->rank - b->rank;
	return strcmp(a->name, b->name);
}

/*
 * The IFUNC symbols matching GLOB, one per resolver (its global name before
 * weak and local aliases: strlen, not __GI_strlen): their implementations
 * (add_ifunc()).  One whose resolver cannot be followed is left out with
 * the reason, as a site that cannot be probed.
 */
int add_glob_ifuncs(struct pctx *c, const char *glob)
{
	Dwfl_Module *m = dbg__module(c->dbg);
	int ns = m ? dwfl_module_getsymtab(m) : -1, r = 0;
	struct gifunc *fs = NULL;
	size_t n = 0, cap = 0;

	for (int i = 1; i < ns; i++) {
		GElf_Word shndx;
		GElf_Addr addr;
		GElf_Sym sym;
		const char *nm = dwfl_module_getsym_info(m, i, &sym, &addr, &shndx, NULL, NULL);
		int bind;

		if (!nm || !*nm || shndx == SHN_UNDEF || GELF_ST_TYPE(sym.st_info) != STT_GNU_IFUNC ||
		    fnmatch(glob, nm, 0) != 0)
			continue;
		if (points_grow((void **)&fs, &cap, sizeof(*fs), n + 1) < 0) {
			free(fs);
			return -ENOMEM;
		}
		bind = GELF_ST_BIND(sym.st_info);
		fs[n++] = (struct gifunc){ nm, addr, sym.st_size,
					   bind == STB_GLOBAL ? 0 : bind == STB_WEAK ? 1 : 2 };
	}
	if (n)
		qsort(fs, n, sizeof(*fs), cmp_gifunc);
	for (size_t i = 0; i < n && r == 0; i++) {
		struct symhit sh = { fs[i].addr, fs[i].size, STT_GNU_IFUNC };
		struct ptap_err why = { .pos = -1 }, *saved = c->err;

		if (i && fs[i].addr == fs[i - 1].addr)
			continue;
		c->err = &why;
		r = add_ifunc(c, fs[i].name, &sh);
		c->err = saved;
		if (r < 0 && r != -ENOMEM) {
			site_skips__add(c->skips, fs[i].name, why.msg);
			r = 0;
		}
	}
	free(fs);
	return r;
}

/* FUNC, FUNC+OFF or a glob from ELF symbols alone (no DWARF). */
int points_elf(struct pctx *c)
{
	const struct probe_point *pp = c->pp;
	struct symhit syms[MAX_SYMHITS];
	int n, r;

	r = load_ifuncs(c);
	if (r < 0)
		return r;
	if (points_is_glob(pp->func)) {
		if (pp->offset)
			return ptap_err_set(c->err, -1, -EINVAL, "'%s': a glob cannot take +OFF",
					    c->what);
		r = add_glob_syms(c, pp->func, NULL, 0);
		if (r == 0)
			r = add_glob_ifuncs(c, pp->func);
		if (r == 0 && c->n == 0)
			r = err_glob_nothing(c, pp->func, false);
		return r;
	}
	n = find_syms(c, pp->func, syms, MAX_SYMHITS);
	if (n == 0)
		return err_no_function(c, pp->func, NULL);
	for (int i = 0; i < n; i++) {
		if (syms[i].type == STT_GNU_IFUNC)
			r = add_ifunc(c, pp->func, &syms[i]);
		else if (at_ifunc(c, syms[i].vaddr))
			r = refuse_sym(c, pp->func, STT_GNU_IFUNC);	/* the resolver itself */
		else
			r = add_sym_site(c, pp->func, &syms[i], pp->offset);
		if (r < 0)
			return r;
	}
	return 0;
}
