/* dwarf/funclist.c: `ptap list` -- every function of a module (matching a
 * glob), from DWARF and the symbol tables, each name once, sorted; an IFUNC
 * with the implementations its resolver can select. */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>
#include <elf.h>
#include <elfutils/libdwfl.h>

#include "dwarf/debuginfo_int.h"
#include "dwarf/demangle.h"
#include "dwarf/die_int.h"
#include "dwarf/fwalk_int.h"
#include "dwarf/ifunc.h"
#include "dwarf/pctx_int.h"
#include "dwarf/points.h"
#include "dwarf/syms_int.h"
#include "probes/err.h"

struct litem {
	const char *name;	/* as shown: demangled when MANGLED */
	const char *mangled;	/* its symbol's or DWARF's linkage name, when demangled */
	char *own;		/* NAME, when it is ours to free */
	Dwarf_Die fn;
	bool has_die;
	bool inlined;
	bool ifunc;		/* an IFUNC symbol: VADDR, SIZE are its resolver's */
	uint64_t vaddr, size;
	size_t seq;
};

static int cmp_str(const void *pa, const void *pb)
{
	return strcmp(*(char *const *)pa, *(char *const *)pb);
}

/* By name; for one name DWARF before symbols, out-of-line before inlined, walk order. */
static int cmp_litem(const void *pa, const void *pb)
{
	const struct litem *a = pa, *b = pb;
	int d = strcmp(a->name, b->name);

	if (d)
		return d;
	if (a->has_die != b->has_die)
		return b->has_die - a->has_die;
	if (a->inlined != b->inlined)
		return a->inlined - b->inlined;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/*
 * Tell CB about the IFUNC IT: the names of the implementations its resolver
 * can select, sorted, or why they cannot be told.  0 or -ENOMEM.
 */
static int list_ifunc(struct pctx *c, const struct litem *it,
		      void (*cb)(const struct list_func *f, void *priv), void *priv)
{
	struct list_func f = { .name = it->name, .ifunc = true };
	struct ptap_err why = { .pos = -1 };
	struct ifunc_impl *impls = NULL;
	char (*addrs)[24] = NULL;
	const char **names = NULL;
	int n = ifunc_impls_why(c->dbg, c->mod, it->vaddr, it->size, &impls, &why);

	if (n == -ENOMEM)
		return n;
	if (n > 0) {
		names = calloc(n, sizeof(*names));
		addrs = calloc(n, sizeof(*addrs));
		if (!names || !addrs) {
			n = -ENOMEM;
			goto out;
		}
		for (int i = 0; i < n; i++) {
			snprintf(addrs[i], sizeof(addrs[i]), "0x%lx", (unsigned long)impls[i].vaddr);
			names[i] = impls[i].name ? impls[i].name : addrs[i];
		}
		qsort(names, n, sizeof(*names), cmp_str);
		f.nimpls = n;
		f.impls = names;
	} else {
		f.why = why.msg;
	}
	cb(&f, priv);
	n = 0;
out:
	free(impls);
	free(names);
	free(addrs);
	return n;
}

/*
 * ELF function symbols for `ptap list` (matching GLOB), after the DWARF
 * ones W found, into *ITEMS (*N of *CAP): IFUNC symbols, and function
 * symbols other than compiler-made parts (with DWARF: foo.cold) and IFUNC
 * resolvers, those starting a DWARF function with its DIE.  0 or -ENOMEM.
 */
static int add_sym_items(struct pctx *c, struct fwalk *w, const char *glob,
			 struct litem **items, size_t *n, size_t *cap)
{
	Dwfl_Module *m = dbg__module(c->dbg);
	int ns = m ? dwfl_module_getsymtab(m) : -1;

	for (int i = 1; i < ns; i++) {
		const struct fentry *e;
		GElf_Word shndx;
		GElf_Addr addr;
		GElf_Sym sym;
		const char *nm = dwfl_module_getsym_info(m, i, &sym, &addr, &shndx, NULL, NULL);
		int type = GELF_ST_TYPE(sym.st_info);
		struct litem *it;

		if (!nm || !*nm || shndx == SHN_UNDEF ||
		    (type != STT_FUNC && type != STT_GNU_IFUNC) ||
		    (c->dw && strchr(nm, '.')) || (glob && !name_matches(w, nm)) ||
		    (type == STT_FUNC && at_ifunc(c, addr)))
			continue;
		if (points_grow((void **)items, cap, sizeof(**items), *n + 1) < 0)
			return -ENOMEM;
		it = &(*items)[(*n)++];
		if (type == STT_GNU_IFUNC) {
			*it = (struct litem){ .name = nm, .ifunc = true, .vaddr = addr,
					      .size = sym.st_size, .seq = w->n + i };
			continue;
		}
		e = fentry_at(w->entries, w->nentries, addr);
		*it = (struct litem){ .name = nm, .has_die = e != NULL, .seq = w->n + i };
		if (e)
			it->fn = e->fn;
	}
	return 0;
}

/*
 * C++ and Rust names as their source writes them: each item with a mangled
 * name demangled (without its parameters); a name that two different
 * functions have (overloads) with them, so that each says which one it is.
 * With a GLOB, the items it names by either name are kept, the others
 * left out.  Sorted again.  0 or -ENOMEM.
 */
static int demangle_items(struct litem *items, size_t *n, const char *glob)
{
	size_t k = 0;

	for (size_t i = 0; i < *n; i++) {
		struct litem *it = &items[i];
		const char *m = it->mangled ? it->mangled : it->name;

		if ((it->own = demangle(m, false))) {
			it->mangled = m;
			it->name = it->own;
		}
	}
	qsort(items, *n, sizeof(*items), cmp_litem);
	for (size_t i = 0; i < *n;) {
		size_t j = i + 1;
		char *first = NULL;
		bool over = false;

		while (j < *n && !strcmp(items[j].name, items[i].name))
			j++;
		/* two of one name whose parameters differ (not a constructor's C1 and C2) */
		for (size_t o = i; j - i > 1 && o < j && !over; o++) {
			char *full = items[o].mangled ? demangle(items[o].mangled, true) : NULL;

			if (full && first)
				over = strcmp(full, first) != 0;
			if (full && !first)
				first = full;
			else
				free(full);
		}
		free(first);
		for (; over && i < j; i++) {
			char *full = items[i].mangled ? demangle(items[i].mangled, true) : NULL;

			if (!full)
				continue;
			free(items[i].own);
			items[i].own = full;
			items[i].name = full;
		}
		i = j;
	}
	for (size_t i = 0; i < *n; i++) {
		if (glob && !demangle_match(glob, true, items[i].name) &&
		    !(items[i].mangled && fnmatch(glob, items[i].mangled, 0) == 0)) {
			free(items[i].own);
			continue;
		}
		items[k++] = items[i];
	}
	*n = k;
	qsort(items, *n, sizeof(*items), cmp_litem);
	return 0;
}

/*
 * Where FN's code starts, from the line table, for a function whose DWARF
 * gives no line (Go's): *FILE and *LINE, else *LINE 0.
 */
static void entry_line(Dwarf_Die *fn, const char **file, int *line)
{
	Dwarf_Die cu;
	Dwarf_Addr entry;
	Dwarf_Line *l;

	*line = 0;
	if (!dwarf_diecu(fn, &cu, NULL, NULL) || die_func_entry(fn, false, &entry) != 0 ||
	    !(l = dwarf_getsrc_die(&cu, entry)) || dwarf_lineno(l, line) != 0)
		return;
	*file = dwarf_linesrc(l, NULL, NULL);	/* the line's own file */
}

/* Tell CB about each of ITEMS (sorted), each name once.  0 or -ENOMEM. */
static int tell_items(struct pctx *c, struct litem *items, size_t n,
		      void (*cb)(const struct list_func *f, void *priv), void *priv)
{
	int r = 0;

	for (size_t i = 0; r == 0 && i < n; i++) {
		struct list_func f = { .name = items[i].name };

		if (i && !strcmp(items[i].name, items[i - 1].name))
			continue;
		if (items[i].ifunc) {
			r = list_ifunc(c, &items[i], cb, priv);
			continue;
		}
		if (items[i].has_die) {
			f.file = dwarf_decl_file(&items[i].fn);
			if (!f.file || dwarf_decl_line(&items[i].fn, &f.line) != 0)
				entry_line(&items[i].fn, &f.file, &f.line);
		}
		cb(&f, priv);
	}
	return r;
}

/*
 * Each name once: of several definitions (static functions of one name in
 * two files) the first out-of-line one in DWARF order gives FILE:LINE.
 * Besides DWARF's functions, ELF function symbols DWARF has no name for:
 * aliases (open64 of __libc_open64, with that function's FILE:LINE) and
 * assembly (no FILE); compiler-made parts (foo.cold) and IFUNC resolvers
 * are left out, IFUNC symbols come with their implementations.
 */
int points__list_funcs(struct dbg *dbg, const struct elfmod *mod, const char *glob,
		       void (*cb)(const struct list_func *f, void *priv), void *priv)
{
	struct pctx c = { .dbg = dbg, .mod = mod };
	/* a glob is matched against the names shown (demangled), and the symbols' own */
	struct fwalk w = { .c = &c, .want_entries = true };
	struct litem *items = NULL;
	size_t n = 0, cap = 0;
	int r = 0;

	if (!dbg)
		return -EINVAL;
	c.dw = dbg__dwarf(dbg);
	c.bias = dbg__bias(dbg);
	if (c.dw)
		r = fwalk_all(&w);
	if (r == 0)
		r = load_ifuncs(&c);
	if (r == 0)
		r = points_grow((void **)&items, &cap, sizeof(*items), w.n + 1);
	for (size_t i = 0; r == 0 && i < w.n; i++)
		if (!is_ifunc(&c, &w.insts[i].outer))
			items[n++] = (struct litem){ .name = w.insts[i].name,
						     .mangled = die_linkage_name(&w.insts[i].fn),
						     .fn = w.insts[i].fn, .has_die = true,
						     .inlined = w.insts[i].inlined, .seq = i };
	if (w.nentries)
		qsort(w.entries, w.nentries, sizeof(*w.entries), cmp_fentry);
	if (r == 0)
		r = add_sym_items(&c, &w, NULL, &items, &n, &cap);
	if (r == 0)
		r = demangle_items(items, &n, glob);
	if (r == 0)
		r = tell_items(&c, items, n, cb, priv);
	for (size_t i = 0; i < n; i++)
		free(items[i].own);
	free(items);
	free(c.ifuncs);
	fwalk_exit(&w);
	return r;
}
