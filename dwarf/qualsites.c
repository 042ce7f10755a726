/* dwarf/qualsites.c: the sites of a FUNC written as C++ and Rust write it
 * (ns::Db::query, ns::Db::query(std::string const&, int), 'app::*'): the
 * function symbols whose demangled name it names (dwarf/demangle.h), each
 * found as by its own symbol name (dwarf/funcsites.c, dwarf/elfsyms.c) and
 * its sites named by its demangled name. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>
#include <elf.h>
#include <elfutils/libdwfl.h>

#include "dwarf/debuginfo_int.h"
#include "dwarf/demangle.h"
#include "dwarf/die_int.h"
#include "dwarf/elfmod.h"
#include "dwarf/elfsyms_int.h"
#include "dwarf/funcsites_int.h"
#include "dwarf/fwalk_int.h"
#include "dwarf/nosite_int.h"
#include "dwarf/pctx_int.h"
#include "dwarf/syms_int.h"
#include "probes/err.h"
#include "probes/spec.h"

/* A function symbol FUNC names: its own name, its demangled one. */
struct qual {
	const char *sym;	/* borrowed from libdwfl's symbol table */
	char *name;
	uint64_t vaddr;
};

struct quals {
	struct qual *v;
	size_t n, cap;
	char **seen;		/* every demangled name, for the nearest ones */
	size_t nseen, cap_seen;
};

static void quals_free(struct quals *q)
{
	for (size_t i = 0; i < q->n; i++)
		free(q->v[i].name);
	for (size_t i = 0; i < q->nseen; i++)
		free(q->seen[i]);
	free(q->v);
	free(q->seen);
}

/*
 * The defined function symbols of C's module whose demangled name PAT
 * names (with parameters when PAT has them), each symbol name once, into
 * *Q; with NR, the demangled names near PAT too.  0 or -ENOMEM.
 */
static int find_quals(struct pctx *c, const char *pat, struct near *nr, struct quals *q)
{
	Dwfl_Module *m = dbg__module(c->dbg);
	int ns = m ? dwfl_module_getsymtab(m) : -1;
	bool params = demangle_has_params(pat), glob = points_is_glob(pat);

	for (int i = 1; i < ns; i++) {
		GElf_Addr addr;
		GElf_Sym sym;
		const char *nm = func_sym(m, i, &addr, &sym);
		bool dup = false;
		char *d;

		if (!nm || !(d = demangle(nm, params)))
			continue;
		if (!demangle_match(pat, glob, d)) {
			if (nr && points_grow((void **)&q->seen, &q->cap_seen, sizeof(*q->seen),
					      q->nseen + 1) == 0) {
				q->seen[q->nseen++] = d;
				near_add(nr, d);
			} else {
				free(d);
			}
			continue;
		}
		for (size_t k = 0; k < q->n && !dup; k++)
			dup = !strcmp(q->v[k].sym, nm);
		if (dup || points_grow((void **)&q->v, &q->cap, sizeof(*q->v), q->n + 1) < 0) {
			free(d);
			if (dup)
				continue;
			return -ENOMEM;
		}
		q->v[q->n++] = (struct qual){ .sym = nm, .name = d, .vaddr = addr };
	}
	return 0;
}

/* MSG with SYM, where it says it, written NAME (the user wrote that). */
static void msg_rename(char *msg, size_t size, const char *sym, const char *name)
{
	size_t sl = strlen(sym), nl = strlen(name);
	char *p;

	while ((p = strstr(msg, sym)) && strlen(msg) - sl + nl < size) {
		memmove(p + nl, p + sl, strlen(p + sl) + 1);
		memcpy(p, name, nl);
	}
}

/* Site K of C, found by symbol SYM (NULL: by its own DWARF name), named NAME (its "where" too). */
static int rename_one(struct pctx *c, size_t k, const char *sym, const char *name)
{
	struct point_site *s = &c->recs[k].s;
	const char *was = sym ? sym : s->func ? s->func : "";
	size_t sl = strlen(was);
	char *func = strdup(name), *where = NULL;

	if (func && !strncmp(s->where, was, sl) &&
	    asprintf(&where, "%s%s", name, s->where + sl) < 0)
		where = NULL;
	if (!func || (!strncmp(s->where, was, sl) && !where)) {
		free(func);
		return -ENOMEM;
	}
	free(s->func);
	s->func = func;
	if (where) {
		free(s->where);
		s->where = where;
	}
	return 0;
}

/* The sites from recs[FROM..] of C, found by symbol SYM (NULL: each by its
 * own DWARF name), named NAME (their "where" too). */
static int rename_sites(struct pctx *c, size_t from, const char *sym, const char *name)
{
	for (size_t k = from; k < c->n; k++)
		if (rename_one(c, k, sym, name) < 0)
			return -ENOMEM;
	return 0;
}

/*
 * FUNC known by DWARF alone (inlined wherever it is called, like a Rust
 * closure or a C++ lambda with no copy of its own): the functions whose
 * DWARF linkage name, demangled, it names.  0 with their sites, 1 when
 * there are none (C's error untouched), or -errno.
 */
static int dwarf_only(struct pctx *c, bool glob)
{
	struct fwalk w = { .c = c, .glob = true, .src = c->pp->src, .qual = c->pp->func,
			   .qual_glob = glob };
	struct ptap_err *err = c->err, why = { .pos = -1 };
	size_t from = c->n;
	int r;

	c->err = &why;
	r = points_func(c, &w);
	fwalk_exit(&w);
	c->err = err;
	if (r == -ENOMEM)
		return r;
	if (c->n == from)
		return 1;
	if (!glob)	/* some found, some not probed (a glob): those are named in the skips */
		return rename_sites(c, from, NULL, c->pp->func);
	/* a glob's: each by the name it matched */
	for (size_t k = from; k < c->n; k++) {
		struct site_rec *sr = &c->recs[k];
		const char *ln = sr->s.has_die ? die_linkage_name(&sr->die.fn) : NULL;
		char *d = ln ? demangle(ln, false) : NULL;

		r = rename_one(c, k, NULL, d ? d : c->pp->func);
		free(d);
		if (r < 0)
			return r;
	}
	return 0;
}

int points_qualified(struct pctx *c)
{
	const struct probe_point *pp = c->pp;
	bool glob = points_is_glob(pp->func);
	struct near nr = { .want = pp->func };
	struct ptap_err *err = c->err, first = { .pos = -1 };
	struct quals q = { .n = 0 };
	int r = find_quals(c, pp->func, glob ? NULL : &nr, &q), first_r = 0;

	if (r == 0 && q.n == 0 && c->dw && (r = dwarf_only(c, glob)) <= 0) {
		quals_free(&q);
		return r;
	}
	if (r == 1)	/* nor in DWARF */
		r = 0;
	if (r == 0 && q.n == 0)
		r = glob ? ptap_err_set(err, -1, -ENOENT, "no function matching '%s' in %s",
					pp->func, elfmod__path(c->mod)) :
			   err_no_function(c, pp->func, &nr);
	/* FUNC@SRC: those whose DWARF function is declared in SRC (a symbol has no file) */
	if (r == 0 && pp->src) {
		size_t k = 0;

		for (size_t i = 0; i < q.n; i++) {
			struct finst fi;
			int d = r == 0 && c->dw ? die_at_entry(c, q.v[i].vaddr, &fi) : 0;
			const char *file = d == 1 ? dwarf_decl_file(&fi.fn) : NULL;

			if (d < 0)
				r = d;
			if (r == 0 && file && src_match(file, pp->src))
				q.v[k++] = q.v[i];
			else
				free(q.v[i].name);
		}
		q.n = k;
	}
	if (r == 0 && q.n == 0 && pp->src)
		r = ptap_err_set(err, -1, -ENOENT, "no function '%s' declared in %s in %s", pp->func,
				 pp->src, elfmod__path(c->mod));
	/* several functions (overloads, a glob): one that cannot be probed is left out */
	c->lenient |= q.n > 1;
	for (size_t i = 0; r == 0 && i < q.n; i++) {
		struct probe_point one = *pp;
		struct fwalk w = { .c = c };
		struct ptap_err why = { .pos = -1 };
		size_t from = c->n;

		one.func = (char *)q.v[i].sym;
		one.src = NULL;	/* chosen above */
		c->pp = &one;
		c->err = &why;
		free(c->ifuncs);	/* loaded again */
		c->ifuncs = NULL;
		c->nifuncs = 0;
		r = c->dw ? points_func(c, &w) : points_elf(c);
		fwalk_exit(&w);
		c->pp = pp;
		c->err = err;
		if (r == 0)
			r = rename_sites(c, from, q.v[i].sym, q.v[i].name);
		if (r == -ENOMEM)
			break;
		msg_rename(why.msg, sizeof(why.msg), q.v[i].sym, q.v[i].name);
		if (r < 0 && q.n == 1 && err)
			*err = why;
		if (r < 0 && q.n > 1) {
			if (!first_r) {
				first = why;
				first_r = r;
			}
			site_skips__add(c->skips, q.v[i].name, why.msg);
			r = 0;
		}
	}
	if (r == 0 && c->n == 0 && first_r) {
		if (err)
			*err = first;
		r = first_r;
	}
	quals_free(&q);
	return r;
}
