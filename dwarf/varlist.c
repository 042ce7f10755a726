/* dwarf/varlist.c: the variables at a site as `ptap vars` lists them:
 * each one's C type and how its value is found there. */
#include <stdio.h>
#include <string.h>

#include "arch/arch.h"
#include "dwarf/debuginfo_int.h"
#include "dwarf/die_int.h"
#include "dwarf/points.h"
#include "dwarf/typename_int.h"
#include "dwarf/var_int.h"
#include "dwarf/varlist.h"
#include "probes/err.h"

/* The kind of location a compiled program reads, for `ptap vars`. */
static void loc_text(const struct fetch_prog *p, char *loc, size_t len)
{
	const struct fetch_op *o = p->ops;

	if (p->composite) {
		snprintf(loc, len, "pieces");
	} else if (p->nops == 1 && o[0].op == FETCH_OP_REG) {
		const char *rn = arch_reg_name(o[0].reg);

		if (rn)
			snprintf(loc, len, "register %s", rn);
		else
			snprintf(loc, len, "register %%xmm%d", o[0].reg - ARCH_DWARF_NREGS);
	} else if (p->nops >= 1 && o[0].op == FETCH_OP_REG &&
		   (o[0].reg == ARCH_DWARF_SP || (int)o[0].reg == arch_reg_by_name("bp"))) {
		snprintf(loc, len, "frame");	/* relative to the stack or frame pointer */
	} else if (p->nops >= 1 && o[0].op == FETCH_OP_ADDR) {
		snprintf(loc, len, "global");
	} else if (p->nops == 1 && o[0].op == FETCH_OP_IMM) {
		snprintf(loc, len, "const");
	} else {
		snprintf(loc, len, "expr");
	}
}

/*
 * Describe V at the site: its C type ("const char *") into TYPE and how its
 * value is found there into LOC (see dwarf/varlist.h).  True when it can be
 * fetched.
 */
static bool var_describe(const struct var_ctx *c, const struct var_info *v, char *type,
			 size_t tlen, char *loc, size_t llen)
{
	struct fetch_prog prog;
	struct ptap_err err = { .pos = -1 };
	Dwarf_Die t;
	Dwarf_Die die = v->die;

	die_type_name(die_type(&die, &t) ? &t : NULL, type, tlen);
	if (var_compile_info(c, v, -1, &prog, &err) < 0) {
		const char *why = strstr(err.msg, ": ");

		if (strstr(err.msg, "optimized out"))
			snprintf(loc, llen, "optimized out");
		else
			snprintf(loc, llen, "cannot fetch%s", why ? why : "");
		return false;
	}
	loc_text(&prog, loc, llen);
	return true;
}

struct describe {
	const struct var_ctx *vc;
	int (*cb)(const struct varlist_var *v, void *priv);
	void *priv;
};

static int describe_cb(const struct var_info *v, void *priv)
{
	const struct describe *d = priv;
	char type[160], loc[160];
	struct varlist_var lv = { .name = v->name, .type = type, .loc = loc };

	var_describe(d->vc, v, type, sizeof(type), loc, sizeof(loc));
	return d->cb(&lv, d->priv);
}

int varlist__walk(struct dbg *dbg, const struct elfmod *mod, const struct point_site *site,
		  bool globals, int (*cb)(const struct varlist_var *v, void *priv), void *priv)
{
	struct tpool pool = { 0 };
	struct var_ctx vc = { .dbg = dbg, .mod = mod, .site = site, .pool = &pool };
	struct describe d = { .vc = &vc, .cb = cb, .priv = priv };
	int r = var_walk(&vc, globals, describe_cb, &d);

	tpool_free(&pool);
	return r;
}

bool varlist__func_offset(struct dbg *dbg, const struct point_site *site, uint64_t *off)
{
	Dwarf_Addr entry;

	if (!site->has_die || site->inlined || dwarf_entrypc(&site->die->fn, &entry) != 0 ||
	    site->vaddr - dbg__bias(dbg) <= entry)
		return false;
	*off = site->vaddr - dbg__bias(dbg) - entry;
	return true;
}
