/* dwarf/funcsites.c: the sites of FUNC, FUNC+OFF and FUNC:RELLINE (a name
 * or a glob): in each function instance a CU walk found (dwarf/instsite.c),
 * and, where DWARF has none, in the ELF symbols of that name
 * (dwarf/elfsyms.c); else why there is none (dwarf/nosite.c). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>
#include <elf.h>

#include "dwarf/demangle.h"
#include "dwarf/die_int.h"
#include "dwarf/elfmod.h"
#include "dwarf/elfsyms_int.h"
#include "dwarf/funcsites_int.h"
#include "dwarf/fwalk_int.h"
#include "dwarf/instsite_int.h"
#include "dwarf/nosite_int.h"
#include "dwarf/pctx_int.h"
#include "dwarf/syms_int.h"
#include "probes/err.h"
#include "probes/spec.h"

/* A site in each instance W found (an IFUNC resolver is none; LEFT counts those left). */
static int add_insts(struct pctx *c, struct fwalk *w, struct func_left *left)
{
	const struct probe_point *pp = c->pp;
	int r = 0;

	for (size_t i = 0; i < w->n; i++) {
		struct finst *fi = &w->insts[i];
		const char *name = w->glob ? fi->name : pp->func;

		if (fi->inlined && c->no_inlines) {
			left->dropped++;
			continue;
		}
		if (is_ifunc(c, &fi->outer)) {
			left->ifunc++;
			continue;
		}
		if (pp->line)
			r = add_relline(c, fi, name);
		else if (pp->offset && fi->inlined)
			left->offinl++;
		else if (pp->offset)
			r = add_offset(c, fi, name);
		else if (fi->inlined)
			r = add_inlined(c, fi, name);
		else
			r = add_outofline(c, fi, name, name);
		if (r < 0)
			return r;
	}
	return 0;
}

/* A glob: besides DWARF's functions, aliases and functions DWARF does not describe. */
static int add_glob_rest(struct pctx *c, struct fwalk *w, int dropped)
{
	const struct probe_point *pp = c->pp;
	int r;

	if ((pp->line || pp->offset) && c->n == 0)
		return ptap_err_set(c->err, -1, -ENOENT, "no function matching '%s' in %s has %s",
				    pp->func, elfmod__path(c->mod), pp->line ? "that line" :
				    "an out-of-line copy");
	if (pp->line || pp->offset)
		return 0;
	/* Aliases and functions DWARF does not describe come from the symbols. */
	if (w->nentries)
		qsort(w->entries, w->nentries, sizeof(*w->entries), cmp_fentry);
	r = pp->src ? 0 : add_glob_syms(c, pp->func, w->entries, w->nentries);
	if (r == 0 && !pp->src)
		r = add_glob_ifuncs(c, pp->func);
	if (r == 0 && c->n == 0)
		r = err_glob_nothing(c, pp->func, dropped);
	return r;
}

/*
 * A plain FUNC: its symbols no DWARF instance covers (aliases, assembly,
 * IFUNCs).  FUNC@SRC asks for a DWARF file: symbols do not count there.
 */
static int add_named_syms(struct pctx *c, const struct symhit *syms, int nsyms,
			  struct func_left *left)
{
	const struct probe_point *pp = c->pp;
	int r = 0;

	for (int i = 0; i < nsyms && !pp->src; i++) {
		bool covered = false;

		for (size_t k = 0; k < c->n && !covered; k++)
			covered = !c->recs[k].s.inlined && c->recs[k].from == syms[i].vaddr;
		if (covered)
			continue;
		if (syms[i].type == STT_GNU_IFUNC)
			r = add_ifunc(c, pp->func, &syms[i]);
		else if (at_ifunc(c, syms[i].vaddr))
			left->ifunc++;	/* the resolver itself, by its own name */
		else
			r = add_unnamed_sym(c, pp->func, &syms[i]);
		if (r < 0)
			return r;
	}
	return 0;
}

/* NAME (demangled) without its template arguments: ns::twice<int> is ns::twice. */
static void untemplated(const char *name, char *out, size_t len)
{
	size_t o = 0;
	int depth = 0;
	bool args = false;	/* Rust's push::<&str>: the "::" dropped, "<" opens arguments */

	for (const char *p = name; *p && o + 1 < len; p++) {
		if (!depth && p > name && p[0] == ':' && p[1] == ':' && p[2] == '<') {
			p++;
			args = true;
			continue;
		}
		/* not a qualified path's own "<" (<A as Tr>::f, at the start or after '<' or ' ') */
		if (*p == '<' && (depth || args || (p > name && !strchr(" <:", p[-1]))))
			depth++;
		else if (*p == '>' && depth)
			depth--;
		else if (!depth)
			out[o++] = *p;
		args = false;
	}
	out[o] = 0;
}

/* By name (after the key's first character), the program's own first. */
static int cmp_names(const void *a, const void *b)
{
	const char *x = *(char *const *)a, *y = *(char *const *)b;
	int d = strcmp(x + 1, y + 1);

	return d ? d : x[0] - y[0];
}

/* The program's own first (their key's '0'), then shortest. */
static int cmp_shortest(const void *a, const void *b)
{
	const char *x = *(char *const *)a, *y = *(char *const *)b;
	size_t la = strlen(x), lb = strlen(y);

	if (x[0] != y[0])
		return x[0] - y[0];
	return la != lb ? (la < lb ? -1 : 1) : strcmp(x, y);
}

/* Was unit CU built elsewhere and linked in (Rust's standard library, compiled in /rustc/)? */
static bool lib_unit(Dwarf_Die *cu)
{
	Dwarf_Attribute a;
	const char *dir = dwarf_formstring(dwarf_attr((Dwarf_Die *)cu, DW_AT_comp_dir, &a));
	const char *name = dwarf_diename(cu);

	return (dir && !strncmp(dir, "/rustc/", 7)) || (name && !strncmp(name, "library/", 8));
}

/*
 * A bare C++ or Rust name W found in functions that are not one (their
 * qualified names differ, template arguments and overloads aside: fmt in
 * twenty types): which, and how to pick.  0 when it names one, or none
 * has a linkage name (C); -EINVAL with C's error; -ENOMEM.
 */
static int ambiguous(struct pctx *c, const struct fwalk *w)
{
	char **names = calloc(w->n ? w->n : 1, sizeof(*names)), list[600] = "";
	size_t n = 0, distinct = 0;
	int r = 0;

	if (!names)
		return -ENOMEM;
	for (size_t i = 0; i < w->n; i++) {
		const char *ln = die_linkage_name((Dwarf_Die *)&w->insts[i].fn);
		char *d = ln ? demangle(ln, false) : NULL, *k = NULL;

		/* keyed by whose: '0' the program's own, '1' a library's built in (Rust's std) */
		if (d && asprintf(&k, "%c%s", lib_unit(&w->insts[i].cu) ? '1' : '0', d) < 0)
			k = NULL;
		free(d);
		if (k)
			names[n++] = k;
	}
	/* one of each (sorted, the same untemplated names are neighbours), own and shortest first */
	for (size_t i = 0; i < n; i++)
		untemplated(names[i] + 1, names[i] + 1, strlen(names[i]));
	qsort(names, n, sizeof(*names), cmp_names);
	for (size_t i = 0; i < n; i++) {
		char *d = names[i];

		names[i] = NULL;
		if (!distinct || strcmp(d + 1, names[distinct - 1] + 1))
			names[distinct++] = d;
		else
			free(d);
	}
	qsort(names, distinct, sizeof(*names), cmp_shortest);
	for (size_t i = 0; i < distinct && i < 5; i++) {
		bufcat(list, sizeof(list), i ? ", " : "");
		bufcat(list, sizeof(list), names[i] + 1);
	}
	if (distinct > 1)
		r = ptap_err_set(c->err, -1, -EINVAL,
				 "'%s' names %zu different functions: %s%s; write the one you mean "
				 "as its language names it (the names above), FUNC@FILE, or a "
				 "glob ('*::%s') for all", c->pp->func, distinct, list,
				 distinct > 5 ? ", ..." : "", c->pp->func);
	for (size_t i = 0; i < distinct; i++)
		free(names[i]);
	free(names);
	return r;
}

/* FUNC (a name or a glob, maybe @SRC): collect its sites, else say why there are none. */
int points_func(struct pctx *c, struct fwalk *w)
{
	const struct probe_point *pp = c->pp;
	struct symhit syms[MAX_SYMHITS];
	struct near nr = { .want = pp->func };
	struct func_left left = { .ninsts = 0 };
	int nsyms = 0, r;

	if (w->glob) {
		w->pat = pp->func;
		w->want_entries = true;
		r = fwalk_all(w);
	} else {
		w->near = &nr;
		r = find_named(c, w, pp->func, syms, &nsyms);
		/* a bare name (not a symbol's mangled one, as qualsites.c asks) */
		if (r == 0 && !pp->src && !pp->line && strncmp(pp->func, "_Z", 2) &&
		    strncmp(pp->func, "_R", 2))
			r = ambiguous(c, w);
	}
	if (r == 0)
		r = load_ifuncs(c);
	if (r == 0)
		r = add_insts(c, w, &left);
	if (r < 0)
		return r;
	if (w->glob)
		return add_glob_rest(c, w, left.dropped);
	r = add_named_syms(c, syms, nsyms, &left);
	if (r < 0 || c->n)
		return r;
	left.ninsts = w->n;
	left.nsyms = nsyms;
	return err_no_func_site(c, nsyms ? NULL : &nr, &left);
}
