/* dwarf/points.c: a probe point -> its sites in one module (dwarf/points.h):
 * the point's kind decides where they come from (functions: funcsites.c,
 * source lines and addresses: lines.c, ELF symbols: elfsyms.c, which
 * collect them in a struct pctx: pctx.c); here they are sorted, checked to
 * start an instruction and handed out.
 * Never calls ptrace; reads only the ELF file and its debug info. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>

#include "arch/arch.h"
#include "dwarf/debuginfo_int.h"
#include "dwarf/demangle.h"
#include "dwarf/elfmod.h"
#include "dwarf/elfsyms_int.h"
#include "dwarf/funcsites_int.h"
#include "dwarf/fwalk_int.h"
#include "dwarf/lines_int.h"
#include "dwarf/pctx_int.h"
#include "dwarf/points.h"
#include "probes/err.h"
#include "probes/log.h"
#include "probes/spec.h"

int points__check_boundary(const struct elfmod *mod, uint64_t start, uint64_t vaddr,
			   struct ptap_err *err)
{
	uint64_t pc = start, last = start;

	while (pc < vaddr) {
		uint8_t code[ARCH_MAX_INSN];
		struct arch_insn insn;
		int r;

		if (elfmod__read(mod, pc, code, sizeof(code)) < 0)
			break;
		r = arch_insn_analyze(code, sizeof(code), pc, &insn, NULL);
		if (r == -EINVAL || insn.len == 0)
			return ptap_err_set(err, -1, -EINVAL,
					    "cannot decode the instruction at 0x%lx",
					    (unsigned long)pc);
		last = pc;
		pc += insn.len;
	}
	if (pc != vaddr)
		return ptap_err_set(err, -1, -EINVAL,
				    "0x%lx is not an instruction boundary: it is inside the "
				    "instruction at 0x%lx (+%lu), whose next is at 0x%lx (+%lu)",
				    (unsigned long)vaddr, (unsigned long)last,
				    (unsigned long)(last - start), (unsigned long)pc,
				    (unsigned long)(pc - start));
	return 0;
}

/* Does the instruction at VADDR decode?  (It may end near the segment end.) */
static int check_decodes(const struct elfmod *mod, uint64_t vaddr, const char *where,
			 struct ptap_err *err)
{
	uint8_t code[ARCH_MAX_INSN];
	struct arch_insn insn;
	size_t n;
	int r;

	for (n = sizeof(code); n > 0; n--)
		if (elfmod__read(mod, vaddr, code, n) == 0)
			break;
	if (n == 0)
		return ptap_err_set(err, -1, -EINVAL, "cannot read the code at %s (0x%lx)", where,
				    (unsigned long)vaddr);
	r = arch_insn_analyze(code, n, vaddr, &insn, NULL);
	if (r == -EINVAL || insn.len == 0)
		return ptap_err_set(err, -1, -EINVAL, "cannot decode the instruction at %s (0x%lx)",
				    where, (unsigned long)vaddr);
	return 0;
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
static int finish_sites(struct pctx *c, struct point_site **sites, int *n)
{
	struct site_die *dies;
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

		r = points__check_boundary(c->mod, sr->from, sr->s.vaddr, &why);
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
			Dwarf_Line *l = dwarf_getsrc_die(&sr->die.cu, sr->s.vaddr - c->bias);

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
	/* One block: the sites, then their DIEs (points__free() frees both). */
	*sites = calloc(c->n, sizeof(**sites) + sizeof(*dies));
	if (!*sites)
		return -ENOMEM;
	dies = (struct site_die *)(*sites + c->n);
	for (i = 0; i < c->n; i++) {
		(*sites)[i] = c->recs[i].s;
		if (c->recs[i].s.has_die) {
			dies[i] = c->recs[i].die;
			(*sites)[i].die = &dies[i];
		}
	}
	*n = c->n;
	free(c->recs);
	c->recs = NULL;
	c->n = c->cap = 0;
	return 0;
}

void points__free(struct point_site *sites, int n)
{
	for (int i = 0; sites && i < n; i++) {
		free(sites[i].func);
		free(sites[i].where);
	}
	free(sites);
}

static int no_line_info(struct pctx *c)
{
	return ptap_err_set(c->err, -1, -ENOTSUP,
			    "'%s' needs DWARF line info; %s has no debug info (build with -g or "
			    "install its debug package)", c->what, elfmod__path(c->mod));
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

int points__find(struct dbg *dbg, const struct elfmod *mod, const struct probe_point *pp,
		 const struct point_opts *o, struct point_site **sites, int *n,
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
	/* an inlined copy is not called: it has no return address, no exit of its own */
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
		w.glob = points_is_glob(pp->func);
		w.src = pp->src;
		c.lenient = w.glob;
		if (demangle_is_qualified(pp->func))
			r = points_qualified(&c);
		else
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
