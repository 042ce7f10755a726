/* dwarf/points.c: a probe point -> its sites in one module: functions,
 * their inlined instances and source lines from DWARF (libdw) when the
 * module has it, else ELF symbols.  Never calls ptrace; reads only the ELF
 * file and its debug info. */
#include <dwarf.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <elf.h>

#include "arch/arch.h"
#include "dwarf/debuginfo.h"
#include "dwarf/elfmod.h"
#include "dwarf/ifunc.h"
#include "dwarf/points.h"
#include "probes/err.h"
#include "probes/log.h"
#include "probes/spec.h"

#define NEAR_MAX	5	/* names suggested for an unknown function */
#define NEAR_LINES	5	/* lines suggested for a line without code */

/*
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
 * SRC:LINE.
 */

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

struct site_rec {
	struct dwarf_site s;
	uint64_t from;		/* an instruction start before S.vaddr in the same code range */
	int seq;		/* insertion order: of two sites at one address the first wins */
};

/* One dwarf_points() or dwarf_list_funcs() call. */
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

/* ---- small helpers ------------------------------------------------------- */

/* Make *PTR (capacity *CAP elements of SIZE) hold NEED.  0 or -ENOMEM. */
static int grow(void **ptr, size_t *cap, size_t size, size_t need)
{
	size_t ncap = *cap ? *cap : 16;
	void *p;

	if (need <= *cap)
		return 0;
	while (ncap < need)
		ncap *= 2;
	p = realloc(*ptr, ncap * size);
	if (!p)
		return -ENOMEM;
	*ptr = p;
	*cap = ncap;
	return 0;
}

static bool is_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

/*
 * Does SRC name PATH: the whole path, or its trailing components
 * ("structs.c" and "samples/structs.c" both name ".../samples/structs.c")?
 */
static bool src_match(const char *path, const char *src)
{
	size_t pl, sl;

	if (!path || !src)
		return false;
	while (src[0] == '.' && src[1] == '/')
		src += 2;
	pl = strlen(path);
	sl = strlen(src);
	if (sl > pl || strcmp(path + pl - sl, src))
		return false;
	if (sl == pl)
		return true;
	return src[0] != '/' && path[pl - sl - 1] == '/';
}

/* The name of DIE, through DW_AT_abstract_origin / DW_AT_specification. */
static const char *die_name(Dwarf_Die *die)
{
	Dwarf_Attribute a;

	return dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &a));
}

/* Does DIE describe code (DW_AT_low_pc or DW_AT_ranges on the DIE itself)? */
static bool has_code(Dwarf_Die *die)
{
	return dwarf_hasattr(die, DW_AT_low_pc) || dwarf_hasattr(die, DW_AT_ranges);
}

/*
 * Where the code of FN is entered (a DWARF address): DW_AT_entry_pc, else
 * DW_AT_low_pc, else for an inlined instance the lowest range start, for a
 * subprogram split into hot and cold parts its first range (the hot part,
 * which GCC lists first).  0, or -ENOENT when FN has no code.
 */
static int func_entry(Dwarf_Die *fn, bool inlined, Dwarf_Addr *entry)
{
	Dwarf_Addr base, start, end, first, low;
	ptrdiff_t off;

	off = dwarf_ranges(fn, 0, &base, &start, &end);
	if (off <= 0)
		return -ENOENT;
	first = low = start;
	while ((off = dwarf_ranges(fn, off, &base, &start, &end)) > 0)
		if (start < low)
			low = start;
	if (dwarf_entrypc(fn, entry) == 0)
		return 0;
	*entry = inlined ? low : first;
	return 0;
}

/* The range [*START, *END) of FN holding PC (DWARF addresses).  0 or -ENOENT. */
static int range_holding(Dwarf_Die *fn, Dwarf_Addr pc, Dwarf_Addr *rstart, Dwarf_Addr *rend)
{
	Dwarf_Addr base, start, end;
	ptrdiff_t off = 0;

	while ((off = dwarf_ranges(fn, off, &base, &start, &end)) > 0)
		if (pc >= start && pc < end) {
			*rstart = start;
			*rend = end;
			return 0;
		}
	return -ENOENT;
}

/* ---- names close to an unknown one ---------------------------------------- */

/* Edit distance of A and B, or a large number when it exceeds 3. */
static int edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	int prev[64], cur[64];

	if (la >= 64 || lb >= 64 || (la > lb ? la - lb : lb - la) > 3)
		return 1000;
	for (size_t j = 0; j <= lb; j++)
		prev[j] = j;
	for (size_t i = 1; i <= la; i++) {
		int best;

		cur[0] = best = i;
		for (size_t j = 1; j <= lb; j++) {
			int d = prev[j - 1] + (a[i - 1] != b[j - 1]);

			if (prev[j] + 1 < d)
				d = prev[j] + 1;
			if (cur[j - 1] + 1 < d)
				d = cur[j - 1] + 1;
			cur[j] = d;
			if (d < best)
				best = d;
		}
		if (best > 3)
			return 1000;
		memcpy(prev, cur, (lb + 1) * sizeof(int));
	}
	return prev[lb] <= 3 ? prev[lb] : 1000;
}

/* Lower is closer: an edit distance up to 3, then names containing WANT. */
static int near_score(const char *want, const char *name)
{
	int d = edit_distance(want, name);

	if (d < 1000)
		return d;
	if (strlen(want) >= 3 && strstr(name, want))
		return 4;
	return 1000;
}

static void near_add(struct near *nr, const char *name)
{
	int s = near_score(nr->want, name), i;

	if (s >= 1000 || !strcmp(name, nr->want))
		return;
	for (i = 0; i < nr->n; i++)
		if (!strcmp(nr->names[i], name))
			return;
	if (nr->n == NEAR_MAX && s >= nr->score[NEAR_MAX - 1])
		return;
	i = nr->n < NEAR_MAX ? nr->n++ : NEAR_MAX - 1;
	for (; i > 0 && nr->score[i - 1] > s; i--) {
		nr->names[i] = nr->names[i - 1];
		nr->score[i] = nr->score[i - 1];
	}
	nr->names[i] = name;
	nr->score[i] = s;
}

/* "no function 'exec_qurey' in PATH; nearest: exec_query, ..." */
static int err_no_function(struct pctx *c, const char *name, struct near *nr)
{
	const char *elfnear[NEAR_MAX];
	struct near all = { .want = name };
	char list[160] = "";
	int n = elfmod__nearest_funcs(c->mod, name, elfnear, NEAR_MAX);

	/* elfmod's order first (it also ranks prefixes), DWARF-only names after. */
	for (int i = 0; i < n && all.n < NEAR_MAX; i++) {
		all.names[all.n] = elfnear[i];
		all.score[all.n++] = i;
	}
	for (int i = 0; nr && i < nr->n && all.n < NEAR_MAX; i++) {
		bool dup = false;

		for (int j = 0; j < all.n; j++)
			dup |= !strcmp(all.names[j], nr->names[i]);
		if (!dup)
			all.names[all.n++] = nr->names[i];
	}
	for (int i = 0; i < all.n; i++) {
		size_t used = strlen(list);

		snprintf(list + used, sizeof(list) - used, "%s%s", i ? ", " : "", all.names[i]);
	}
	if (all.n > 0)
		return ptap_err_set(c->err, -1, -ENOENT, "no function '%s' in %s; nearest: %s",
				    name, elfmod__path(c->mod), list);
	return ptap_err_set(c->err, -1, -ENOENT, "no function '%s' in %s (and no similar names)",
			    name, elfmod__path(c->mod));
}

/* ---- instructions --------------------------------------------------------- */

int points_check_boundary(const struct elfmod *mod, uint64_t start, uint64_t vaddr,
			  struct ptap_err *err)
{
	uint64_t pc = start;

	while (pc < vaddr) {
		uint8_t code[ARCH_MAX_INSN];
		struct arch_insn insn;
		char why[96];
		int r;

		if (elfmod__read(mod, pc, code, sizeof(code)) < 0)
			break;
		r = arch_insn_analyze(code, sizeof(code), pc, &insn, why, sizeof(why));
		if (r == -EINVAL || insn.len == 0)
			return ptap_err_set(err, -1, -EINVAL,
					    "cannot decode the instruction at 0x%lx",
					    (unsigned long)pc);
		pc += insn.len;
	}
	if (pc != vaddr)
		return ptap_err_set(err, -1, -EINVAL,
				    "0x%lx is not an instruction boundary (the instruction before "
				    "it ends at 0x%lx)", (unsigned long)vaddr, (unsigned long)pc);
	return 0;
}

/* Does the instruction at VADDR decode?  (It may end near the segment end.) */
static int check_decodes(const struct elfmod *mod, uint64_t vaddr, const char *where,
			 struct ptap_err *err)
{
	uint8_t code[ARCH_MAX_INSN];
	struct arch_insn insn;
	char why[96];
	size_t n;
	int r;

	for (n = sizeof(code); n > 0; n--)
		if (elfmod__read(mod, vaddr, code, n) == 0)
			break;
	if (n == 0)
		return ptap_err_set(err, -1, -EINVAL, "cannot read the code at %s (0x%lx)", where,
				    (unsigned long)vaddr);
	r = arch_insn_analyze(code, n, vaddr, &insn, why, sizeof(why));
	if (r == -EINVAL || insn.len == 0)
		return ptap_err_set(err, -1, -EINVAL, "cannot decode the instruction at %s (0x%lx)",
				    where, (unsigned long)vaddr);
	return 0;
}

/* ---- sites ---------------------------------------------------------------- */

void site_skips__add(struct site_skips *sk, const char *where, const char *why)
{
	bool named = strstr(why, where) != NULL;

	pr_info("left out: %s%s%s\n", named ? "" : where, named ? "" : ": ", why);
	if (!sk)
		return;
	if (sk->n < SITE_SKIPS_SHOWN)
		snprintf(sk->first[sk->n], sizeof(sk->first[0]), "%s%s%s", named ? "" : where,
			 named ? "" : ": ", why);
	sk->n++;
}

/*
 * Add a site at link-time VADDR; FROM is an instruction start at or before
 * it in the same contiguous code (checked later).  CU and FN may be NULL
 * (ELF symbols).  FUNC and WHERE are copied.
 */
static int add_site(struct pctx *c, uint64_t vaddr, uint64_t from, const char *func,
		    const char *where, Dwarf_Die *cu, Dwarf_Die *fn, bool inlined, bool at_entry,
		    bool after_prologue)
{
	struct site_rec *r;

	if (grow((void **)&c->recs, &c->cap, sizeof(*c->recs), c->n + 1) < 0)
		return -ENOMEM;
	r = &c->recs[c->n];
	memset(r, 0, sizeof(*r));
	r->seq = c->n;
	r->from = from;
	r->s.vaddr = vaddr;
	r->s.func = strdup(func);
	r->s.where = strdup(where);
	c->n++;
	if (!r->s.func || !r->s.where)
		return -ENOMEM;
	if (cu && fn) {
		r->s.has_die = true;
		r->s.cu = *cu;
		r->s.fn = *fn;
	}
	r->s.inlined = inlined;
	r->s.at_entry = at_entry;
	r->s.after_prologue = after_prologue;
	return 0;
}

/* The source line of the site just added, when the point named it. */
static void set_last_line(struct pctx *c, const char *file, int line)
{
	c->recs[c->n - 1].s.file = file;
	c->recs[c->n - 1].s.line = line;
}

static void free_recs(struct pctx *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->recs[i].s.func);
		free(c->recs[i].s.where);
	}
	free(c->recs);
	c->recs = NULL;
	c->n = c->cap = 0;
}

static int cmp_rec(const void *pa, const void *pb)
{
	const struct site_rec *a = pa, *b = pb;

	if (a->s.vaddr != b->s.vaddr)
		return a->s.vaddr < b->s.vaddr ? -1 : 1;
	return a->seq - b->seq;
}

/*
 * Sort, drop duplicates, enforce --max-probes, check each site decodes and
 * starts an instruction, fill in file and line; hand the array out.
 */
static int finish_sites(struct pctx *c, struct dwarf_site **sites, int *n)
{
	size_t i, k = 0;
	int r;

	if (c->n)
		qsort(c->recs, c->n, sizeof(*c->recs), cmp_rec);
	for (i = 0; i < c->n; i++) {
		if (k && c->recs[k - 1].s.vaddr == c->recs[i].s.vaddr) {
			free(c->recs[i].s.func);
			free(c->recs[i].s.where);
			continue;
		}
		c->recs[k++] = c->recs[i];
	}
	c->n = k;
	if (c->n > (size_t)c->max_probes)
		return ptap_err_set(c->err, -1, -E2BIG,
				    "'%s' matches %zu sites; at most %d (raise it with "
				    "--max-probes %zu)", c->what, c->n, c->max_probes, c->n);
	for (i = 0, k = 0; i < c->n; i++) {
		struct ptap_err why = { .pos = -1 };
		struct site_rec *sr = &c->recs[i];

		r = points_check_boundary(c->mod, sr->from, sr->s.vaddr, &why);
		if (r == 0)
			r = check_decodes(c->mod, sr->s.vaddr, sr->s.where, &why);
		if (r < 0 && !c->lenient)
			return ptap_err_set(c->err, -1, r, "%s: %s", sr->s.where, why.msg);
		if (r < 0) {
			/* One function capstone cannot decode must not sink a glob. */
			site_skips__add(c->skips, sr->s.where, why.msg);
			free(sr->s.func);
			free(sr->s.where);
			continue;
		}
		c->recs[k++] = *sr;
		sr = &c->recs[k - 1];
		if (sr->s.has_die && !sr->s.file) {
			Dwarf_Line *l = dwarf_getsrc_die(&sr->s.cu, sr->s.vaddr - c->bias);

			if (l) {
				sr->s.file = dwarf_linesrc(l, NULL, NULL);
				dwarf_lineno(l, &sr->s.line);
			}
		}
	}
	c->n = k;
	if (!c->n)
		return ptap_err_set(c->err, -1, -EINVAL,
				    "no site of '%s' can be probed: %s", c->what, c->skips->first[0]);
	*sites = calloc(c->n, sizeof(**sites));
	if (!*sites)
		return -ENOMEM;
	for (i = 0; i < c->n; i++)
		(*sites)[i] = c->recs[i].s;
	*n = c->n;
	free(c->recs);
	c->recs = NULL;
	c->n = c->cap = 0;
	return 0;
}

void dwarf_sites_free(struct dwarf_site *sites, int n)
{
	for (int i = 0; sites && i < n; i++) {
		free(sites[i].func);
		free(sites[i].where);
	}
	free(sites);
}

/* ---- walking CUs ------------------------------------------------------------ */

static bool name_matches(struct fwalk *w, const char *name)
{
	if (!w->pat)
		return true;
	if (w->glob)
		return fnmatch(w->pat, name, 0) == 0;
	return !strcmp(w->pat, name);
}

static int found(struct fwalk *w, Dwarf_Die *fn, const char *name, bool inlined)
{
	struct finst *fi;

	if (w->src && !w->cu_src && !src_match(dwarf_decl_file(fn), w->src))
		return 0;
	if (grow((void **)&w->insts, &w->cap, sizeof(*w->insts), w->n + 1) < 0)
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
	if (!has_code(fn))
		return 0;
	if (name && name_matches(w, name))
		r = found(w, fn, name, false);
	if (r == 0 && w->want_entries) {
		Dwarf_Addr entry;

		if (func_entry(fn, false, &entry) == 0) {
			if (grow((void **)&w->entries, &w->cap_entries, sizeof(*w->entries),
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

	if (name && w->in_outer && has_code(die) && name_matches(w, name))
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
		default:
			break;
		}
		if (r < 0)
			return r;
	} while (dwarf_siblingof(&child, &child) == 0);
	return 0;
}

static int walk_cu(struct fwalk *w, Dwarf_Die *cu)
{
	w->cu = *cu;
	w->in_outer = false;
	w->cu_src = w->src && src_match(dwarf_diename(cu), w->src);
	return walk_scope(w, cu);
}

/* Walk every compile unit of the module. */
static int walk_all(struct fwalk *w)
{
	Dwarf_Off off = 0, next;
	size_t hsize;
	int r;

	while (dwarf_nextcu(w->c->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;

		if (dwarf_offdie(w->c->dw, off + hsize, &cu) &&
		    dwarf_tag(&cu) == DW_TAG_compile_unit) {
			r = walk_cu(w, &cu);
			if (r < 0)
				return r;
		}
		off = next;
	}
	return 0;
}

static void fwalk_exit(struct fwalk *w)
{
	free(w->insts);
	free(w->entries);
	w->insts = NULL;
	w->entries = NULL;
	w->n = w->cap = w->nentries = w->cap_entries = 0;
}

/* A function symbol named NAME (libdwfl's or elfmod's symbol table). */
struct symhit {
	uint64_t vaddr;
	uint64_t size;
	int type;
};

/*
 * Every function symbol called NAME: up to MAX into HITS (addresses
 * distinct).  Returns the count.
 */
static int find_syms(struct pctx *c, const char *name, struct symhit *hits, int max)
{
	Dwfl_Module *m = dbg__module(c->dbg);
	struct elfmod_sym es;
	int ns = m ? dwfl_module_getsymtab(m) : -1, n = 0;

	for (int i = 1; i < ns && n < max; i++) {
		GElf_Word shndx;
		GElf_Addr addr;
		GElf_Sym sym;
		const char *nm = dwfl_module_getsym_info(m, i, &sym, &addr, &shndx, NULL, NULL);
		int type = GELF_ST_TYPE(sym.st_info);
		bool dup = false;

		if (!nm || strcmp(nm, name) || shndx == SHN_UNDEF ||
		    (type != STT_FUNC && type != STT_GNU_IFUNC))
			continue;
		for (int j = 0; j < n; j++)
			dup |= hits[j].vaddr == addr;
		if (!dup)
			hits[n++] = (struct symhit){ addr, sym.st_size, type };
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

#define MAX_SYMHITS	32

/*
 * The instances of the function named NAME (not a glob).  With symbols,
 * only their CUs are walked (see the comment at the top); *SYMS gets the
 * symbols (up to MAX_SYMHITS) so callers can fall back to them.  Without,
 * every CU, with NEAR collecting similar DWARF names.
 */
static int find_named(struct pctx *c, struct fwalk *w, const char *name, struct symhit *syms,
		      int *nsyms)
{
	Dwarf_Off cus[MAX_SYMHITS];
	int ncus = 0;

	w->pat = name;
	*nsyms = find_syms(c, name, syms, MAX_SYMHITS);
	if (*nsyms == 0 || w->src)
		return walk_all(w);
	/* No .debug_aranges entry (clang emits none by default): read every unit. */
	for (int i = 0; i < *nsyms; i++) {
		Dwarf_Addr bias;

		if (!dwfl_module_addrdie(dbg__module(c->dbg), syms[i].vaddr, &bias))
			return walk_all(w);
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
		r = walk_cu(w, &cu_copy);
		if (r < 0)
			return r;
	}
	return 0;
}

/* ---- FUNC: entry or past the prologue --------------------------------------- */

/*
 * Does parameter PARAM of FN live in FN's own frame at PC (the entry), so
 * that it is not written yet?  -O0 code spills parameters below the CFA
 * (DW_OP_fbreg -N with a DW_OP_call_frame_cfa frame base) or relative to
 * %rbp / %rsp.  A stack-passed argument at or above the CFA (fbreg >= 0 at
 * -O2) is already there at the entry, as are registers, pieces of
 * registers, entry values and constants.
 */
static bool param_in_frame(Dwarf_Die *fn, Dwarf_Die *param, Dwarf_Addr pc)
{
	int fp = arch_reg_by_name("bp");
	Dwarf_Attribute attr;
	Dwarf_Op *ops;
	size_t nops;

	if (!dwarf_attr(param, DW_AT_location, &attr) ||
	    dwarf_getlocation_addr(&attr, pc, &ops, &nops, 1) <= 0)
		return false;
	for (size_t i = 0; i < nops; i++) {
		Dwarf_Sword off;
		int reg;

		switch (ops[i].atom) {
		case DW_OP_fbreg: {
			Dwarf_Attribute fa;
			Dwarf_Op *fops;
			size_t nf;

			/* A CFA frame base is right at the entry: only below it is the frame. */
			if (dwarf_attr(fn, DW_AT_frame_base, &fa) &&
			    dwarf_getlocation_addr(&fa, pc, &fops, &nf, 1) > 0 && nf == 1 &&
			    fops[0].atom == DW_OP_call_frame_cfa)
				return (Dwarf_Sword)ops[i].number < 0;
			return true;
		}
		case DW_OP_breg0 ... DW_OP_breg31:
			reg = ops[i].atom - DW_OP_breg0;
			off = ops[i].number;
			break;
		case DW_OP_bregx:
			reg = ops[i].number;
			off = ops[i].number2;
			break;
		default:
			continue;
		}
		/* At the entry the frame pointer is the caller's; below %rsp is nothing yet. */
		if (reg == fp || (reg == ARCH_DWARF_SP && off < 0))
			return true;
	}
	return false;
}

static bool params_in_frame(Dwarf_Die *fn, Dwarf_Addr entry)
{
	Dwarf_Die child;

	if (dwarf_child(fn, &child) != 0)
		return false;
	do {
		if (dwarf_tag(&child) == DW_TAG_formal_parameter &&
		    param_in_frame(fn, &child, entry))
			return true;
	} while (dwarf_siblingof(&child, &child) == 0);
	return false;
}

/*
 * The end of FN's prologue (perf's skip-prologue): the first line-table row
 * after ENTRY inside FN whose line differs from the entry row's; failing
 * that, the next row after the entry.  0, or -ENOENT.
 */
static int skip_prologue(Dwarf_Die *cu, Dwarf_Die *fn, Dwarf_Addr entry, Dwarf_Addr *out)
{
	Dwarf_Addr next_row = 0;
	Dwarf_Lines *lines;
	bool have_l0 = false;
	size_t nl;
	int l0 = 0;

	if (dwarf_getsrclines(cu, &lines, &nl) != 0)
		return -ENOENT;
	/* Rows are sorted by address: the entry's rows come first. */
	for (size_t i = 0; i < nl; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		bool stmt = false, endseq = false;
		Dwarf_Addr a;
		int ln;

		if (!l || dwarf_lineaddr(l, &a) != 0 || a < entry || dwarf_lineno(l, &ln) != 0)
			continue;
		dwarf_linebeginstatement(l, &stmt);
		dwarf_lineendsequence(l, &endseq);
		if (endseq || dwarf_haspc(fn, a) <= 0)
			continue;
		if (a == entry) {
			if (!have_l0)
				l0 = ln;
			have_l0 = true;
			continue;
		}
		if (!stmt || !have_l0)
			continue;
		if (!next_row)
			next_row = a;
		if (ln != l0 && ln != 0) {
			*out = a;
			return 0;
		}
	}
	if (!next_row)
		return -ENOENT;
	*out = next_row;
	return 0;
}

/* The out-of-line copy FI of NAME: its entry, or past the prologue at -O0. */
static int add_outofline(struct pctx *c, struct finst *fi, const char *name, const char *where)
{
	Dwarf_Addr entry, site;
	bool moved = false;

	if (func_entry(&fi->fn, false, &entry) < 0)
		return 0;
	site = entry;
	if (!c->at_entry && params_in_frame(&fi->fn, entry) && skip_prologue(&fi->cu, &fi->fn, entry, &site) == 0)
		moved = true;
	return add_site(c, site + c->bias, entry + c->bias, name, where, &fi->cu, &fi->fn, false,
			!moved, moved);
}

/* An inlined instance FI of NAME: its entry, named "NAME@CALLER+0xOFF". */
static int add_inlined(struct pctx *c, struct finst *fi, const char *name)
{
	Dwarf_Addr entry, oentry, rstart, rend;
	const char *caller = die_name(&fi->outer);
	char where[256];

	if (func_entry(&fi->fn, true, &entry) < 0 || func_entry(&fi->outer, false, &oentry) < 0)
		return 0;
	/* The boundary check decodes from the start of the caller's range holding it. */
	if (range_holding(&fi->outer, entry, &rstart, &rend) < 0)
		rstart = entry;
	if (entry >= oentry)
		snprintf(where, sizeof(where), "%s@%s+0x%lx", name, caller ? caller : "?",
			 (unsigned long)(entry - oentry));
	else
		snprintf(where, sizeof(where), "%s@%s-0x%lx", name, caller ? caller : "?",
			 (unsigned long)(oentry - entry));
	return add_site(c, entry + c->bias, rstart + c->bias, name, where, &fi->cu, &fi->fn, true,
			true, false);
}

/* Is line A nearer to NL->want than line B (of two as near, the lower)? */
static bool nearer(const struct nearlines *nl, int a, int b)
{
	int da = abs(a - nl->want), db = abs(b - nl->want);

	return da < db || (da == db && a < b);
}

/* Remember LINE if it is among the NEAR_LINES nearest to NL->want. */
static void nearlines_add(struct nearlines *nl, int line)
{
	int worst = 0;

	if (line <= 0)
		return;
	for (int i = 0; i < nl->n; i++)
		if (nl->lines[i] == line)
			return;
	if (nl->n < NEAR_LINES) {
		nl->lines[nl->n++] = line;
		return;
	}
	for (int i = 1; i < nl->n; i++)
		if (nearer(nl, nl->lines[worst], nl->lines[i]))
			worst = i;
	if (nearer(nl, line, nl->lines[worst]))
		nl->lines[worst] = line;
}

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/*
 * "no code at structs.c:40; lines with code near it: 38, 42, 43", or for
 * FUNC:RELLINE (FUNC set) "no code at f:4 (FILE:29); lines of f with code
 * near it: f:2, f:5".
 */
static int err_no_code(struct pctx *c, const char *file, int line, struct nearlines *nl,
		       const char *func)
{
	char list[160] = "";

	if (nl->n)
		qsort(nl->lines, nl->n, sizeof(int), cmp_int);
	for (int i = 0; i < nl->n; i++) {
		size_t used = strlen(list);

		if (func)
			snprintf(list + used, sizeof(list) - used, "%s%s:%d", i ? ", " : "", func,
				 nl->lines[i] - nl->base);
		else
			snprintf(list + used, sizeof(list) - used, "%s%d", i ? ", " : "",
				 nl->lines[i]);
	}
	if (func)
		return ptap_err_set(c->err, -1, -ENOENT,
				    "no code at %s:%d (%s:%d); lines of %s with code near it: %s",
				    func, line - nl->base, file, line, func, nl->n ? list : "none");
	if (!nl->n)
		return ptap_err_set(c->err, -1, -ENOENT, "no code at %s:%d in %s", file, line,
				    elfmod__path(c->mod));
	return ptap_err_set(c->err, -1, -ENOENT, "no code at %s:%d; lines with code near it: %s",
			    file, line, list);
}

/* FUNC+OFF in the out-of-line copy FI: OFF bytes from its entry, not moved. */
static int add_offset(struct pctx *c, struct finst *fi, const char *name)
{
	long off = c->pp->offset;
	Dwarf_Addr entry, rstart, rend;
	char where[192];

	if (func_entry(&fi->fn, false, &entry) < 0)
		return 0;
	if (range_holding(&fi->fn, entry, &rstart, &rend) < 0)
		rend = entry + 1;
	/* Past the entry's range is another part of the function (.cold): not OFF bytes on. */
	if (off < 0 || entry + off >= rend)
		return ptap_err_set(c->err, -1, -EINVAL, "offset %ld is outside %s (size %lu)", off,
				    name, (unsigned long)(rend - entry));
	snprintf(where, sizeof(where), "%s+%ld", name, off);
	return add_site(c, entry + off + c->bias, entry + c->bias, name, where, &fi->cu, &fi->fn,
			false, off == 0, false);
}

/*
 * FUNC:RELLINE in the instance FI: the lowest address of a statement row
 * for line DW_AT_decl_line + RELLINE of FUNC's file inside FI.  None: the
 * lines FI has code for go to C->nolines for the message.
 */
static int add_relline(struct pctx *c, struct finst *fi, const char *name)
{
	const char *file = dwarf_decl_file(&fi->fn);
	Dwarf_Addr best = 0, entry = 0, rstart, rend;
	bool have = false;
	Dwarf_Lines *lines;
	int decl, target, r;
	char where[256];
	size_t nl;

	if (!file || dwarf_decl_line(&fi->fn, &decl) != 0 ||
	    dwarf_getsrclines(&fi->cu, &lines, &nl) != 0)
		return 0;
	target = decl + c->pp->line;
	/* The message names the lines of one function: the last one tried. */
	if (c->nolines.file != file || c->nolines.base != decl)
		c->nolines.n = 0;
	c->nolines.want = target;
	c->nolines.base = decl;
	c->nolines.file = file;
	for (size_t i = 0; i < nl; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		bool stmt = false, endseq = false;
		const char *lf;
		Dwarf_Addr a;
		int ln;

		if (!l || dwarf_lineaddr(l, &a) != 0 || dwarf_lineno(l, &ln) != 0)
			continue;
		dwarf_linebeginstatement(l, &stmt);
		dwarf_lineendsequence(l, &endseq);
		lf = dwarf_linesrc(l, NULL, NULL);
		if (!stmt || endseq || !lf || (lf != file && strcmp(lf, file)) ||
		    dwarf_haspc(&fi->fn, a) <= 0)
			continue;
		if (ln != target) {
			nearlines_add(&c->nolines, ln);
			continue;
		}
		if (!have || a < best)
			best = a;
		have = true;
	}
	if (!have)
		return 0;
	func_entry(&fi->fn, fi->inlined, &entry);
	if (range_holding(&fi->outer, best, &rstart, &rend) < 0)
		rstart = best;
	if (fi->inlined) {
		Dwarf_Addr oentry = best;
		const char *caller = die_name(&fi->outer);

		func_entry(&fi->outer, false, &oentry);
		snprintf(where, sizeof(where), "%s:%d@%s+0x%lx", name, c->pp->line,
			 caller ? caller : "?", (unsigned long)(best - oentry));
	} else {
		snprintf(where, sizeof(where), "%s:%d", name, c->pp->line);
	}
	bool moved = false;

	/* FUNC:0 or a RELLINE on the opening line at -O0: past the prologue */
	if (!fi->inlined && best == entry && !c->at_entry && params_in_frame(&fi->fn, entry) &&
	    skip_prologue(&fi->cu, &fi->fn, entry, &best) == 0)
		moved = true;
	r = add_site(c, best + c->bias, rstart + c->bias, name, where, &fi->cu, &fi->fn,
		     fi->inlined, best == entry, moved);
	if (r == 0)
		set_last_line(c, file, target);
	return r;
}

/* ---- ELF symbols (no DWARF, or a function DWARF does not describe) ---------- */

static int refuse_sym(struct pctx *c, const char *name, int type)
{
	if (type == STT_GNU_IFUNC)
		return ptap_err_set(c->err, -1, -EINVAL,
				    "'%s' in %s is an IFUNC's resolver: it runs once, when the "
				    "dynamic loader binds the IFUNC; probe the IFUNC by its own name "
				    "(its implementations: ptap list -x %s)", name,
				    elfmod__path(c->mod), elfmod__path(c->mod));
	return ptap_err_set(c->err, -1, -EINVAL, "'%s' in %s is not a function", name,
			    elfmod__path(c->mod));
}

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

static int cmp_fentry(const void *pa, const void *pb)
{
	const struct fentry *a = pa, *b = pb;

	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

/* The out-of-line function starting at link-time ADDR among ENTRIES (sorted), or NULL. */
static const struct fentry *entry_at(const struct fentry *entries, size_t n, uint64_t addr)
{
	struct fentry key = { .addr = addr };

	return n ? bsearch(&key, entries, n, sizeof(*entries), cmp_fentry) : NULL;
}

static int cmp_u64(const void *pa, const void *pb)
{
	uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;

	return a < b ? -1 : a > b;
}

/* The addresses of the module's IFUNC symbols, sorted, into C->ifuncs. */
static int load_ifuncs(struct pctx *c)
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
		if (grow((void **)&c->ifuncs, &cap, sizeof(*c->ifuncs), c->nifuncs + 1) < 0)
			return -ENOMEM;
		c->ifuncs[c->nifuncs++] = addr;
	}
	if (c->nifuncs)
		qsort(c->ifuncs, c->nifuncs, sizeof(*c->ifuncs), cmp_u64);
	return 0;
}

/* Does an IFUNC symbol start at link-time ADDR (C->ifuncs loaded)? */
static bool at_ifunc(struct pctx *c, uint64_t addr)
{
	return c->nifuncs &&
	       bsearch(&addr, c->ifuncs, c->nifuncs, sizeof(*c->ifuncs), cmp_u64) != NULL;
}

/*
 * Is FI an IFUNC resolver (an IFUNC symbol starts it) or inlined into one?
 * A resolver runs once, when the dynamic linker binds the symbol: never a
 * site.
 */
static bool is_ifunc(struct pctx *c, struct finst *fi)
{
	Dwarf_Addr entry;

	return c->nifuncs && func_entry(&fi->outer, false, &entry) == 0 &&
	       at_ifunc(c, entry + c->bias);
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
static int add_glob_syms(struct pctx *c, const char *glob, const struct fentry *entries,
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
		if (grow((void **)&syms, &cap, sizeof(*syms), n + 1) < 0) {
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
		e = entry_at(entries, nentries, syms[i].addr);
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

/* ---- the kinds of points ----------------------------------------------------- */

static int no_line_info(struct pctx *c)
{
	return ptap_err_set(c->err, -1, -ENOTSUP,
			    "'%s' needs DWARF line info; %s has no debug info (build with -g or "
			    "install its debug package)", c->what, elfmod__path(c->mod));
}

/*
 * The out-of-line DWARF function whose entry is link-time VADDR, into *FI
 * (its CU, DIE): 1 when there is one, 0 when not, or -errno.
 */
static int die_at_entry(struct pctx *c, uint64_t vaddr, struct finst *fi)
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
	r = walk_cu(&aw, &cuc);
	if (aw.nentries)
		qsort(aw.entries, aw.nentries, sizeof(*aw.entries), cmp_fentry);
	if (r == 0)
		e = entry_at(aw.entries, aw.nentries, vaddr);
	if (e)
		*fi = (struct finst){ .cu = cuc, .fn = e->fn, .outer = e->fn };
	fwalk_exit(&aw);
	return r < 0 ? r : e != NULL;
}

/*
 * A symbol of FUNC that no DWARF function found by name starts at: an
 * alias (open64 for __libc_open64) takes the DIE of the function starting
 * there; else (assembly) the bare symbol.
 */
static int add_unnamed_sym(struct pctx *c, const char *func, const struct symhit *sym)
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
static int add_ifunc(struct pctx *c, const char *name, const struct symhit *sym)
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
static int add_glob_ifuncs(struct pctx *c, const char *glob)
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
		if (grow((void **)&fs, &cap, sizeof(*fs), n + 1) < 0) {
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

/* A glob that matched only what cannot be probed: the first reason. */
static int err_glob_nothing(struct pctx *c, const char *glob, bool dropped)
{
	if (c->skips->n)
		return ptap_err_set(c->err, -1, -ENOTSUP, "no site of '%s' can be probed (%d "
				    "site%s); %s%s", glob, c->skips->n, c->skips->n == 1 ? "" : "s",
				    c->skips->n > 1 ? "the first: " : "", c->skips->first[0]);
	return ptap_err_set(c->err, -1, -ENOENT, "no function matches '%s' in %s%s", glob,
			    elfmod__path(c->mod), dropped ? " but inlined ones (--no-inlines)" : "");
}

/* FUNC (a name or a glob, maybe @SRC). */
static int points_func(struct pctx *c, struct fwalk *w)
{
	const struct probe_point *pp = c->pp;
	struct symhit syms[MAX_SYMHITS];
	struct near nr = { .want = pp->func };
	int nsyms = 0, dropped = 0, ifunc = 0, offinl = 0, r;

	if (w->glob) {
		w->pat = pp->func;
		w->want_entries = true;
		r = walk_all(w);
	} else {
		w->near = &nr;
		r = find_named(c, w, pp->func, syms, &nsyms);
	}
	if (r == 0)
		r = load_ifuncs(c);
	if (r < 0)
		return r;
	for (size_t i = 0; i < w->n; i++) {
		struct finst *fi = &w->insts[i];
		const char *name = w->glob ? fi->name : pp->func;

		if (fi->inlined && c->no_inlines) {
			dropped++;
			continue;
		}
		if (is_ifunc(c, fi)) {
			ifunc++;
			continue;
		}
		if (pp->line)
			r = add_relline(c, fi, name);
		else if (pp->offset && fi->inlined)
			offinl++;
		else if (pp->offset)
			r = add_offset(c, fi, name);
		else if (fi->inlined)
			r = add_inlined(c, fi, name);
		else
			r = add_outofline(c, fi, name, name);
		if (r < 0)
			return r;
	}
	if (w->glob && (pp->line || pp->offset) && c->n == 0)
		return ptap_err_set(c->err, -1, -ENOENT, "no function matching '%s' in %s has %s",
				    pp->func, elfmod__path(c->mod), pp->line ? "that line" :
				    "an out-of-line copy");
	if (w->glob && (pp->line || pp->offset))
		return 0;
	if (w->glob) {
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
	/* FUNC@SRC asks for a DWARF file: symbols do not count there. */
	for (int i = 0; i < nsyms && !pp->src; i++) {
		bool covered = false;

		for (size_t k = 0; k < c->n && !covered; k++)
			covered = !c->recs[k].s.inlined && c->recs[k].from == syms[i].vaddr;
		if (covered)
			continue;
		if (syms[i].type == STT_GNU_IFUNC)
			r = add_ifunc(c, pp->func, &syms[i]);
		else if (at_ifunc(c, syms[i].vaddr))
			ifunc++;	/* the resolver itself, by its own name */
		else
			r = add_unnamed_sym(c, pp->func, &syms[i]);
		if (r < 0)
			return r;
	}
	if (c->n == 0 && ifunc)
		return refuse_sym(c, pp->func, STT_GNU_IFUNC);
	if (c->n == 0 && offinl)
		return ptap_err_set(c->err, -1, -EINVAL,
				    "'%s' has no out-of-line copy in %s (only %d inlined "
				    "instance%s); FUNC+OFF needs one: give a line (FUNC:RELLINE) "
				    "instead", pp->func, elfmod__path(c->mod), offinl,
				    offinl == 1 ? "" : "s");
	if (c->n == 0 && pp->line && c->nolines.n)
		return err_no_code(c, c->nolines.file, pp->line + c->nolines.base,
				   &c->nolines, pp->func);
	if (c->n == 0 && pp->line && (w->n || nsyms))
		return ptap_err_set(c->err, -1, -ENOENT, "no line-table rows for '%s' in %s",
				    pp->func, elfmod__path(c->mod));
	if (c->n == 0 && dropped && pp->retprobe)
		return ptap_err_set(c->err, -1, -ENOENT,
				    "'%s' exists only inlined in %s (%d instance%s): an inlined copy "
				    "is not called, so it has no return to probe; probe the lines "
				    "after it (FILE:LINE) or its caller", pp->func,
				    elfmod__path(c->mod), dropped, dropped == 1 ? "" : "s");
	if (c->n == 0 && dropped)
		return ptap_err_set(c->err, -1, -ENOENT,
				    "'%s' exists only inlined in %s (%d instance%s) and "
				    "--no-inlines leaves no site", pp->func, elfmod__path(c->mod),
				    dropped, dropped == 1 ? "" : "s");
	if (c->n == 0 && pp->src)
		return ptap_err_set(c->err, -1, -ENOENT, "no function '%s' in %s in %s", pp->func,
				    pp->src, elfmod__path(c->mod));
	if (c->n == 0)
		return err_no_function(c, pp->func, nsyms ? NULL : &nr);
	return 0;
}

/*
 * The functions holding DWARF address PC in CU: *FN the innermost
 * (subprogram or inlined instance), *OUTER the out-of-line function (a
 * top-level subprogram with code there).  0, or -ENOENT.
 */
static int funcs_at(Dwarf_Die *cu, Dwarf_Addr pc, Dwarf_Die *fn, Dwarf_Die *outer)
{
	Dwarf_Die *scopes = NULL, child;
	bool have_fn = false, have_outer = false;
	int n = dwarf_getscopes(cu, pc, &scopes);

	for (int i = 0; i < n && !have_fn; i++) {
		int tag = dwarf_tag(&scopes[i]);

		if ((tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine) &&
		    has_code(&scopes[i]) && dwarf_haspc(&scopes[i], pc) > 0) {
			*fn = scopes[i];
			have_fn = true;
		}
	}
	free(scopes);
	/* After an inlined instance, dwarf_getscopes may go on with its origin's scopes. */
	if (have_fn && dwarf_child(cu, &child) == 0) {
		do {
			if (dwarf_tag(&child) == DW_TAG_subprogram && has_code(&child) &&
			    dwarf_haspc(&child, pc) > 0) {
				*outer = child;
				have_outer = true;
			}
		} while (!have_outer && dwarf_siblingof(&child, &child) == 0);
	}
	if (have_fn && !have_outer && dwarf_tag(fn) == DW_TAG_subprogram) {
		*outer = *fn;
		have_outer = true;
	}
	return have_fn && have_outer ? 0 : -ENOENT;
}

/* A site at DWARF address PC of CU, in whatever function holds it. */
static int add_pc_site(struct pctx *c, Dwarf_Die *cu, Dwarf_Addr pc, Dwarf_Die *fn,
		       Dwarf_Die *outer, const char *where, bool exact)
{
	bool inlined = dwarf_tag(fn) == DW_TAG_inlined_subroutine, moved = false;
	Dwarf_Addr entry = 0, rstart, rend;
	const char *name = die_name(fn);

	func_entry(fn, inlined, &entry);
	/* A line that is a function's first (its opening line at -O0): past the
	 * prologue, as gdb's `break FILE:LINE` does; an 0xADDR stays put. */
	if (!exact && !inlined && pc == entry && !c->at_entry && params_in_frame(fn, entry) &&
	    skip_prologue(cu, fn, entry, &pc) == 0)
		moved = true;
	if (range_holding(outer, pc, &rstart, &rend) < 0)
		rstart = pc;
	return add_site(c, pc + c->bias, rstart + c->bias, name ? name : "?", where, cu, fn,
			inlined, pc == entry, moved);
}

/* Does CU's line table name a file SRC matches? */
static bool cu_has_src(Dwarf_Die *cu, const char *src)
{
	Dwarf_Files *files;
	size_t nf;

	if (dwarf_getsrcfiles(cu, &files, &nf) != 0)
		return false;
	for (size_t i = 0; i < nf; i++)
		if (src_match(dwarf_filesrc(files, i, NULL, NULL), src))
			return true;
	return false;
}

/*
 * SRC:LINE in CU: for each function (or inlined instance) with a statement
 * row for the line, the lowest such address.
 */
static int srcline_cu(struct pctx *c, Dwarf_Die *cu, struct nearlines *nl, int *dropped)
{
	const char *last = NULL, *src = c->pp->src;
	Dwarf_Off *seen = NULL;
	size_t nl_rows, nseen = 0, cap = 0;
	Dwarf_Lines *lines;
	char where[192];
	bool match = false;
	int r = 0;

	if (dwarf_getsrclines(cu, &lines, &nl_rows) != 0)
		return 0;
	snprintf(where, sizeof(where), "%s:%d", src, c->pp->line);
	for (size_t i = 0; i < nl_rows && r == 0; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		bool stmt = false, endseq = false, dup = false;
		Dwarf_Die fn, outer;
		const char *lf;
		Dwarf_Addr a;
		int ln;

		if (!l || dwarf_lineaddr(l, &a) != 0 || dwarf_lineno(l, &ln) != 0)
			continue;
		lf = dwarf_linesrc(l, NULL, NULL);
		if (lf != last) {
			last = lf;
			match = src_match(lf, src);
		}
		dwarf_linebeginstatement(l, &stmt);
		dwarf_lineendsequence(l, &endseq);
		if (!match || endseq)
			continue;
		if (ln != c->pp->line) {
			nearlines_add(nl, ln);
			continue;
		}
		if (!stmt || funcs_at(cu, a, &fn, &outer) < 0)
			continue;
		for (size_t k = 0; k < nseen && !dup; k++)
			dup = seen[k] == dwarf_dieoffset(&fn);
		if (dup)
			continue;
		r = grow((void **)&seen, &cap, sizeof(*seen), nseen + 1);
		if (r < 0)
			break;
		seen[nseen++] = dwarf_dieoffset(&fn);
		if (c->no_inlines && dwarf_tag(&fn) == DW_TAG_inlined_subroutine) {
			(*dropped)++;
			continue;
		}
		r = add_pc_site(c, cu, a, &fn, &outer, where, false);
		if (r == 0)
			set_last_line(c, lf, ln);
	}
	free(seen);
	return r;
}

/* SRC:LINE: every CU whose line table has a file SRC matches. */
static int points_srcline(struct pctx *c)
{
	struct nearlines nl = { .want = c->pp->line };
	Dwarf_Off off = 0, next;
	bool file_found = false;
	int dropped = 0, r;
	size_t hsize;

	while (dwarf_nextcu(c->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;

		if (dwarf_offdie(c->dw, off + hsize, &cu) && cu_has_src(&cu, c->pp->src)) {
			file_found = true;
			r = srcline_cu(c, &cu, &nl, &dropped);
			if (r < 0)
				return r;
		}
		off = next;
	}
	if (!file_found)
		return ptap_err_set(c->err, -1, -ENOENT, "no source file '%s' in the DWARF of %s",
				    c->pp->src, elfmod__path(c->mod));
	if (c->n == 0 && dropped)
		return ptap_err_set(c->err, -1, -ENOENT,
				    "%s:%d has code only in inlined instances (%d) and "
				    "--no-inlines leaves no site", c->pp->src, c->pp->line,
				    dropped);
	if (c->n == 0)
		return err_no_code(c, c->pp->src, c->pp->line, &nl, NULL);
	return 0;
}

/* 0xADDR: the function holding it (DWARF, else the ELF symbol). */
static int points_addr(struct pctx *c)
{
	uint64_t a = c->pp->addr;
	struct elfmod_sym sym;
	char where[32];

	snprintf(where, sizeof(where), "0x%lx", (unsigned long)a);
	if (c->dw) {
		Dwarf_Addr bias;
		Dwarf_Die *cu = dwfl_module_addrdie(dbg__module(c->dbg), a, &bias);
		Dwarf_Die cuc, fn, outer;

		if (cu) {
			cuc = *cu;
			if (funcs_at(&cuc, a - c->bias, &fn, &outer) == 0)
				return add_pc_site(c, &cuc, a - c->bias, &fn, &outer, where, true);
		}
	}
	/* An int3 inside an instruction would corrupt it: the address must start one. */
	if (elfmod__sym_at(c->mod, a, &sym) < 0)
		return ptap_err_set(c->err, -1, -EINVAL,
				    "0x%lx is not inside a function of %s; give FUNC+OFF or the "
				    "address of an instruction in a function", (unsigned long)a,
				    elfmod__path(c->mod));
	return add_site(c, a, sym.vaddr, sym.name, where, NULL, NULL, false, a == sym.vaddr,
			false);
}

/* FUNC, FUNC+OFF or a glob from ELF symbols alone (no DWARF). */
static int points_elf(struct pctx *c)
{
	const struct probe_point *pp = c->pp;
	struct symhit syms[MAX_SYMHITS];
	int n, r;

	r = load_ifuncs(c);
	if (r < 0)
		return r;
	if (is_glob(pp->func)) {
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

/* The point as the user wrote it (for messages). */
static void describe(const struct probe_point *pp, char *buf, size_t len)
{
	int n = 0;

	switch (pp->kind) {
	case PP_ADDR:
		snprintf(buf, len, "0x%lx", (unsigned long)pp->addr);
		return;
	case PP_SRCLINE:
		snprintf(buf, len, "%s:%d", pp->src ? pp->src : "?", pp->line);
		return;
	case PP_FUNC:
		break;
	}
	n = snprintf(buf, len, "%s", pp->func ? pp->func : "?");
	if (pp->src && n >= 0 && (size_t)n < len)
		n += snprintf(buf + n, len - n, "@%s", pp->src);
	if (pp->offset && n >= 0 && (size_t)n < len)
		n += snprintf(buf + n, len - n, "+%ld", pp->offset);
	if (pp->line && n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - n, ":%d", pp->line);
}

int dwarf_points(struct dbg *dbg, const struct elfmod *mod, const struct probe_point *pp,
		 const struct point_opts *o, struct dwarf_site **sites, int *n,
		 struct ptap_err *err)
{
	struct pctx c = { .dbg = dbg, .mod = mod, .pp = pp, .err = err };
	struct fwalk w = { .c = &c };
	int r;

	*sites = NULL;
	*n = 0;
	if (!dbg)
		return ptap_err_set(err, -1, -EINVAL, "no debug info handle for %s",
				    elfmod__path(mod));
	c.dw = dbg__dwarf(dbg);
	c.bias = dbg__bias(dbg);
	c.max_probes = o && o->max_probes > 0 ? o->max_probes : POINTS_MAX_DEFAULT;
	c.no_inlines = o && o->no_inlines;
	c.at_entry = o && o->at_entry;
	c.skips = o && o->skips ? o->skips : &c.own_skips;
	describe(pp, c.what, sizeof(c.what));
	if (pp->retprobe && pp->kind != PP_FUNC)
		return ptap_err_set(err, -1, -EINVAL, "'%s': %%return needs a function: "
				    "FUNC%%return", c.what);
	/* an inlined copy is not called: it has no return address to take over */
	if (pp->retprobe)
		c.no_inlines = true;
	if (!c.dw && (pp->kind == PP_SRCLINE || pp->line || pp->src))
		return no_line_info(&c);
	if (pp->kind == PP_FUNC && pp->offset && pp->line)
		return ptap_err_set(err, -1, -EINVAL, "'%s': +OFF cannot be combined with :LINE",
				    c.what);
	switch (pp->kind) {
	case PP_ADDR:
		r = points_addr(&c);
		break;
	case PP_SRCLINE:
		r = points_srcline(&c);
		break;
	case PP_FUNC:
	default:
		w.glob = is_glob(pp->func);
		w.src = pp->src;
		c.lenient = w.glob;
		r = c.dw ? points_func(&c, &w) : points_elf(&c);
		break;
	}
	if (r == 0)
		r = finish_sites(&c, sites, n);
	free_recs(&c);
	fwalk_exit(&w);
	free(c.ifuncs);
	return r;
}

/* ---- ptap list -------------------------------------------------------------- */

struct litem {
	const char *name;
	Dwarf_Die fn;
	bool has_die;
	bool inlined;
	bool ifunc;		/* an IFUNC symbol: VADDR, SIZE are its resolver's */
	uint64_t vaddr, size;
	size_t seq;
};

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
 * Each name once: of several definitions (static functions of one name in
 * two files) the first out-of-line one in DWARF order gives FILE:LINE.
 * Besides DWARF's functions, ELF function symbols DWARF has no name for:
 * aliases (open64 of __libc_open64, with that function's FILE:LINE) and
 * assembly (no FILE); compiler-made parts (foo.cold) and IFUNC resolvers
 * are left out, IFUNC symbols come with their implementations.
 */
int dwarf_list_funcs(struct dbg *dbg, const struct elfmod *mod, const char *glob,
		     void (*cb)(const struct list_func *f, void *priv), void *priv)
{
	struct pctx c = { .dbg = dbg, .mod = mod };
	struct fwalk w = { .c = &c, .pat = glob, .glob = glob && is_glob(glob),
			   .want_entries = true };
	Dwfl_Module *m = dbg ? dbg__module(dbg) : NULL;
	struct litem *items = NULL;
	size_t n = 0, cap = 0;
	int ns, r = 0;

	if (!dbg)
		return -EINVAL;
	c.dw = dbg__dwarf(dbg);
	c.bias = dbg__bias(dbg);
	if (c.dw)
		r = walk_all(&w);
	if (r == 0)
		r = load_ifuncs(&c);
	if (r == 0)
		r = grow((void **)&items, &cap, sizeof(*items), w.n + 1);
	for (size_t i = 0; r == 0 && i < w.n; i++)
		if (!is_ifunc(&c, &w.insts[i]))
			items[n++] = (struct litem){ .name = w.insts[i].name,
						     .fn = w.insts[i].fn, .has_die = true,
						     .inlined = w.insts[i].inlined, .seq = i };
	if (w.nentries)
		qsort(w.entries, w.nentries, sizeof(*w.entries), cmp_fentry);
	ns = r == 0 && m ? dwfl_module_getsymtab(m) : -1;
	for (int i = 1; i < ns; i++) {
		const struct fentry *e;
		GElf_Word shndx;
		GElf_Addr addr;
		GElf_Sym sym;
		const char *nm = dwfl_module_getsym_info(m, i, &sym, &addr, &shndx, NULL, NULL);
		int type = GELF_ST_TYPE(sym.st_info);

		if (!nm || !*nm || shndx == SHN_UNDEF ||
		    (type != STT_FUNC && type != STT_GNU_IFUNC) ||
		    (c.dw && strchr(nm, '.')) || (glob && !name_matches(&w, nm)) ||
		    (type == STT_FUNC && at_ifunc(&c, addr)))
			continue;
		r = grow((void **)&items, &cap, sizeof(*items), n + 1);
		if (r < 0)
			break;
		if (type == STT_GNU_IFUNC) {
			items[n++] = (struct litem){ .name = nm, .ifunc = true, .vaddr = addr,
						     .size = sym.st_size, .seq = w.n + i };
			continue;
		}
		e = entry_at(w.entries, w.nentries, addr);
		items[n] = (struct litem){ .name = nm, .has_die = e != NULL, .seq = w.n + i };
		if (e)
			items[n].fn = e->fn;
		n++;
	}
	if (r == 0)
		qsort(items, n, sizeof(*items), cmp_litem);
	for (size_t i = 0; r == 0 && i < n; i++) {
		struct list_func f = { .name = items[i].name };

		if (i && !strcmp(items[i].name, items[i - 1].name))
			continue;
		if (items[i].ifunc) {
			r = list_ifunc(&c, &items[i], cb, priv);
			continue;
		}
		if (items[i].has_die) {
			f.file = dwarf_decl_file(&items[i].fn);
			if (!f.file || dwarf_decl_line(&items[i].fn, &f.line) != 0)
				f.line = 0;
		}
		cb(&f, priv);
	}
	free(items);
	free(c.ifuncs);
	fwalk_exit(&w);
	return r;
}
