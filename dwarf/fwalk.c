/* dwarf/fwalk.c: walks over a module's compile units collecting the
 * functions and inlined instances whose name matches, and the out-of-line
 * functions' entries.
 *
 * How a name is found quickly (issue #3, item 8: libc's debug file has
 * ~2000 CUs).  A plain FUNC is first looked up as a symbol: libdwfl's
 * symbol table (the debug file's .symtab too, so __libc_open64 is found
 * though .dynsym lacks it) and elfmod's.  Each symbol's CU comes from
 * .debug_aranges (dwfl_module_addrdie), and only those CUs are walked for
 * the subprogram and its inlined instances: in non-LTO code an inlined
 * instance lives in the CU of its abstract origin, which is the CU that
 * also holds the out-of-line copy.  A function defined in a header and
 * inlined into CUs that have no out-of-line copy of their own is missed
 * there; FUNC@HEADER (which walks every CU) finds those instances.
 * Every CU is walked only when the name has no symbol (a function that
 * exists only inlined, or an unknown name), for globs, FUNC@SRC and
 * SRC:LINE. */
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>
#include <elfutils/libdwfl.h>

#include "dwarf/debuginfo_int.h"
#include "dwarf/demangle.h"
#include "dwarf/die_int.h"
#include "dwarf/fwalk_int.h"
#include "dwarf/nosite_int.h"
#include "dwarf/pctx_int.h"
#include "dwarf/syms_int.h"

bool name_matches(struct fwalk *w, const char *name)
{
	if (!w->pat)
		return true;
	size_t n = strlen(w->pat);

	if (w->glob)
		return fnmatch(w->pat, name, 0) == 0;
	/* a template's instances by its bare name, as gdb takes them: twice is twice<int> */
	return !strcmp(w->pat, name) ||
	       (!strncmp(w->pat, name, n) && name[n] == '<' && !strchr(w->pat, '<'));
}

bool die_matches(struct fwalk *w, Dwarf_Die *fn, const char *name)
{
	const char *ln;
	char *d;
	bool ok;

	if (!w->qual)
		return name_matches(w, name);
	ln = die_linkage_name(fn);
	d = ln ? demangle(ln, demangle_has_params(w->qual)) : NULL;
	ok = d && demangle_match(w->qual, w->qual_glob, d);
	free(d);
	return ok;
}

static int found(struct fwalk *w, Dwarf_Die *fn, const char *name, bool inlined)
{
	struct finst *fi;

	if (w->src && !w->cu_src && !src_match(dwarf_decl_file(fn), w->src))
		return 0;
	if (points_grow((void **)&w->insts, &w->cap, sizeof(*w->insts), w->n + 1) < 0)
		return -ENOMEM;
	fi = &w->insts[w->n];
	fi->cu = w->cu;
	fi->fn = *fn;
	fi->outer = inlined ? w->outer : *fn;
	fi->name = name;
	fi->inlined = inlined;
	fi->seq = w->n++;
	return 0;
}

static int walk_scope(struct fwalk *w, Dwarf_Die *parent);

static int visit_subprogram(struct fwalk *w, Dwarf_Die *fn)
{
	Dwarf_Die saved = w->outer;
	bool saved_in = w->in_outer;
	const char *name;
	int r = 0;

	if (dwarf_hasattr(fn, DW_AT_declaration))
		return 0;
	name = die_name(fn);
	/* Abstract instances (inlined-only functions) count as names too. */
	if (name && w->near)
		near_add(w->near, name);
	if (!die_has_code(fn))
		return 0;
	if (name && die_matches(w, fn, name))
		r = found(w, fn, name, false);
	if (r == 0 && w->want_entries) {
		Dwarf_Addr entry;

		if (die_func_entry(fn, false, &entry) == 0) {
			if (points_grow((void **)&w->entries, &w->cap_entries, sizeof(*w->entries),
					w->nentries + 1) < 0)
				return -ENOMEM;
			w->entries[w->nentries].addr = entry + w->c->bias;
			w->entries[w->nentries++].fn = *fn;
		}
	}
	if (r < 0)
		return r;
	w->outer = *fn;
	w->in_outer = true;
	r = walk_scope(w, fn);
	w->outer = saved;
	w->in_outer = saved_in;
	return r;
}

static int visit_inlined(struct fwalk *w, Dwarf_Die *die)
{
	const char *name = die_name(die);
	int r = 0;

	if (name && w->in_outer && die_has_code(die) && die_matches(w, die, name))
		r = found(w, die, name, true);
	return r < 0 ? r : walk_scope(w, die);
}

/* The functions and inlined instances under PARENT (scopes only; types are skipped). */
static int walk_scope(struct fwalk *w, Dwarf_Die *parent)
{
	Dwarf_Die child;
	int r = 0;

	if (dwarf_child(parent, &child) != 0)
		return 0;
	do {
		switch (dwarf_tag(&child)) {
		case DW_TAG_subprogram:
			r = visit_subprogram(w, &child);
			break;
		case DW_TAG_inlined_subroutine:
			r = visit_inlined(w, &child);
			break;
		case DW_TAG_lexical_block:
		case DW_TAG_namespace:
			r = walk_scope(w, &child);
			break;
		/* a C++ lambda's operator() (in its class, in the function), a Rust method */
		case DW_TAG_class_type:
		case DW_TAG_structure_type:
		case DW_TAG_union_type:
			if (w->cu_types)
				r = walk_scope(w, &child);
			break;
		default:
			break;
		}
		if (r < 0)
			return r;
	} while (dwarf_siblingof(&child, &child) == 0);
	return 0;
}

int fwalk_cu(struct fwalk *w, Dwarf_Die *cu)
{
	w->cu = *cu;
	w->in_outer = false;
	int lang = dwarf_srclang(cu);

	w->cu_src = w->src && src_match(dwarf_diename(cu), w->src);
	/* C's structs hold no code: not walked, libc's thousands of them */
	w->cu_types = lang == DW_LANG_C_plus_plus || lang == DW_LANG_C_plus_plus_03 ||
		      lang == DW_LANG_C_plus_plus_11 || lang == DW_LANG_C_plus_plus_14 ||
		      lang == 0x2a || lang == 0x2b ||	/* C++17, C++20 (DWARF 5.x) */
		      lang == DW_LANG_ObjC_plus_plus || lang == DW_LANG_Rust;
	return walk_scope(w, cu);
}

/* Walk every compile unit of the module. */
int fwalk_all(struct fwalk *w)
{
	Dwarf_Off off = 0, next;
	size_t hsize;
	int r;

	while (dwarf_nextcu(w->c->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;

		if (dwarf_offdie(w->c->dw, off + hsize, &cu) &&
		    dwarf_tag(&cu) == DW_TAG_compile_unit) {
			r = fwalk_cu(w, &cu);
			if (r < 0)
				return r;
		}
		off = next;
	}
	return 0;
}

void fwalk_exit(struct fwalk *w)
{
	free(w->insts);
	free(w->entries);
	w->insts = NULL;
	w->entries = NULL;
	w->n = w->cap = w->nentries = w->cap_entries = 0;
}

/*
 * The instances of the function named NAME (not a glob).  With symbols,
 * only their CUs are walked (see the comment at the top); *SYMS gets the
 * symbols (up to MAX_SYMHITS) so callers can fall back to them.  Without,
 * every CU, with NEAR collecting similar DWARF names.
 */
int find_named(struct pctx *c, struct fwalk *w, const char *name, struct symhit *syms,
	       int *nsyms)
{
	Dwarf_Off cus[MAX_SYMHITS];
	int ncus = 0;

	w->pat = name;
	*nsyms = find_syms(c, name, syms, MAX_SYMHITS);
	if (*nsyms == 0 || w->src)
		return fwalk_all(w);
	/* No .debug_aranges entry (clang emits none by default): read every unit. */
	for (int i = 0; i < *nsyms; i++) {
		Dwarf_Addr bias;

		if (!dwfl_module_addrdie(dbg__module(c->dbg), syms[i].vaddr, &bias))
			return fwalk_all(w);
	}
	for (int i = 0; i < *nsyms; i++) {
		Dwarf_Addr bias;
		Dwarf_Die *cu = dwfl_module_addrdie(dbg__module(c->dbg), syms[i].vaddr, &bias);
		Dwarf_Die cu_copy;
		bool dup = false;
		int r;

		if (!cu)
			continue;
		for (int j = 0; j < ncus; j++)
			dup |= cus[j] == dwarf_dieoffset(cu);
		if (dup)
			continue;
		cus[ncus++] = dwarf_dieoffset(cu);
		cu_copy = *cu;
		r = fwalk_cu(w, &cu_copy);
		if (r < 0)
			return r;
	}
	return 0;
}

int cmp_fentry(const void *pa, const void *pb)
{
	const struct fentry *a = pa, *b = pb;

	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

/* The out-of-line function starting at link-time ADDR among ENTRIES (sorted), or NULL. */
const struct fentry *fentry_at(const struct fentry *entries, size_t n, uint64_t addr)
{
	struct fentry key = { .addr = addr };

	return n ? bsearch(&key, entries, n, sizeof(*entries), cmp_fentry) : NULL;
}

/*
 * The out-of-line DWARF function whose entry is link-time VADDR, into *FI
 * (its CU, DIE): 1 when there is one, 0 when not, or -errno.
 */
int die_at_entry(struct pctx *c, uint64_t vaddr, struct finst *fi)
{
	struct fwalk aw = { .c = c, .pat = "", .want_entries = true };
	const struct fentry *e = NULL;
	Dwarf_Die *cu = NULL;
	Dwarf_Addr bias;
	Dwarf_Die cuc;
	int r;

	if (c->dw)
		cu = dwfl_module_addrdie(dbg__module(c->dbg), vaddr, &bias);
	if (!cu)
		return 0;
	cuc = *cu;
	r = fwalk_cu(&aw, &cuc);
	if (aw.nentries)
		qsort(aw.entries, aw.nentries, sizeof(*aw.entries), cmp_fentry);
	if (r == 0)
		e = fentry_at(aw.entries, aw.nentries, vaddr);
	if (e)
		*fi = (struct finst){ .cu = cuc, .fn = e->fn, .outer = e->fn };
	fwalk_exit(&aw);
	return r < 0 ? r : e != NULL;
}
