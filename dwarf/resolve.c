/* dwarf/resolve.c: probe spec -> sites (dwarf/points.h), each with its
 * displaced instruction and fetch programs (dwarf/args.c).  Never calls
 * ptrace; reads only the ELF and debug files. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>
#include <elfutils/libdw.h>

#include "arch/arch.h"
#include "dwarf/args_int.h"
#include "dwarf/debuginfo.h"
#include "dwarf/elfmod.h"
#include "dwarf/points.h"
#include "dwarf/resolve.h"
#include "dwarf/site_int.h"
#include "dwarf/var_int.h"
#include "probes/err.h"
#include "probes/log.h"
#include "probes/spec.h"

/* Functions larger than this are not decoded whole: their sites take an int3. */
#define JUMP_FN_MAX	(1u << 20)

/* Check the branches of SYM (of MOD) against RP's jump: 0 or -ENOTSUP. */
static int jump_check_sym(struct resolved_probe *rp, const struct elfmod *mod,
			  const struct elfmod_sym *sym, bool holds_site, struct ptap_err *why)
{
	uint8_t *fn;
	int r;

	if (!sym->size || sym->size > JUMP_FN_MAX)
		return ptap_err_set(why, -1, -ENOTSUP, "%s: no size, or too large", sym->name);
	fn = malloc(sym->size);
	if (!fn || elfmod__read(mod, sym->vaddr, fn, sym->size) < 0) {
		free(fn);
		return ptap_err_set(why, -1, -ENOTSUP, "cannot read %s", sym->name);
	}
	r = holds_site ? arch_jump_analyze(fn, sym->size, sym->vaddr, rp->vaddr, &rp->jump, why)
		       : arch_jump_check_part(fn, sym->size, sym->vaddr, rp->vaddr, &rp->jump, why);
	free(fn);
	return r;
}

/*
 * May RP's site be a jump site (arch.h)?  The function holding it is decoded
 * whole from the symbol table, and so is its "NAME.cold" part when gcc split
 * one off.  Never an error: a site that cannot be one takes an int3.
 */
static void decide_jump(struct resolved_probe *rp, const struct elfmod *mod)
{
	struct elfmod_sym sym, cold;
	struct ptap_err why = { .pos = -1 };
	char name[256];

	memset(&rp->jump, 0, sizeof(rp->jump));
	if (rp->insn.step != ARCH_STEP_OOL || elfmod__sym_at(mod, rp->vaddr, &sym) < 0)
		return;
	if (jump_check_sym(rp, mod, &sym, true, &why) == 0 &&
	    snprintf(name, sizeof(name), "%s.cold", sym.name) < (int)sizeof(name) &&
	    elfmod__find_sym(mod, name, &cold) == 0 &&
	    jump_check_sym(rp, mod, &cold, false, &why) < 0)
		memset(&rp->jump, 0, sizeof(rp->jump));
	if (!rp->jump.len)
		pr_debug("%s: an int3 site, not a jump site: %s\n", rp->where, why.msg);
}

static int decode_site(struct resolved_probe *rp, const struct elfmod *mod, struct ptap_err *err)
{
	uint8_t code[ARCH_MAX_INSN];
	struct ptap_err why = { .pos = -1 };
	size_t n;
	int r;

	if (elfmod__vaddr_to_offset(mod, rp->vaddr, &rp->file_off) < 0)
		return ptap_err_set(err, -1, -EINVAL, "0x%lx is not in a loadable segment of %s",
				    (unsigned long)rp->vaddr, elfmod__path(mod));
	/* The instruction may end near the segment end: try shorter reads. */
	for (n = sizeof(code); n > 0; n--)
		if (elfmod__read(mod, rp->vaddr, code, n) == 0)
			break;
	if (n == 0)
		return ptap_err_set(err, -1, -EINVAL, "cannot read the code at %s", rp->where);
	r = arch_insn_analyze(code, n, rp->vaddr, &rp->insn, &why);
	if (r == -ENOTSUP)
		return ptap_err_set(err, -1, -ENOTSUP, "cannot probe %s: its first instruction '%s' (%s)",
				    rp->where, rp->insn.text, why.msg);
	if (r < 0)
		return ptap_err_set(err, -1, -EINVAL, "cannot decode the instruction at %s",
				    rp->where);
	decide_jump(rp, mod);
	return 0;
}

/*
 * Languages whose runtimes walk the stack by return addresses, where a return
 * address swapped for ptap's trampoline (which has no unwind information and
 * is in no function the runtime knows) breaks the program; Go's also re-runs
 * a function's entry (skip_go_stack_check()).
 */
enum fn_lang { LANG_OTHER, LANG_CXX, LANG_GO, LANG_RUST };

/* rustc's mangling: v0 ("_R…"), or legacy ("_ZN…17h<16 hex digits>E", a hash C++ never has). */
static bool is_rust_mangled(const char *name)
{
	size_t n = strlen(name);

	if (!strncmp(name, "_R", 2))
		return true;
	if (strncmp(name, "_ZN", 3) || n < 3 + 20 || strncmp(name + n - 20, "17h", 3) ||
	    name[n - 1] != 'E')
		return false;
	return strspn(name + n - 17, "0123456789abcdef") == 16;
}

/*
 * SITE's language: its compile unit's DW_AT_language; without DWARF for it,
 * the runtime its module holds (RT, from elfmod__runtime()), else its symbol's
 * mangling.
 */
static enum fn_lang site_lang(const struct point_site *site, enum elfmod_runtime rt)
{
	if (site->has_die) {
		switch (dwarf_srclang(&site->die->cu)) {
		case DW_LANG_C_plus_plus:
		case DW_LANG_C_plus_plus_03:
		case DW_LANG_C_plus_plus_11:
		case DW_LANG_C_plus_plus_14:
			return LANG_CXX;
		case DW_LANG_Go:
			return LANG_GO;
		case DW_LANG_Rust:
			return LANG_RUST;
		default:
			return LANG_OTHER;
		}
	}
	if (rt == ELFMOD_RT_GO)
		return LANG_GO;
	if (rt == ELFMOD_RT_RUST || is_rust_mangled(site->func))
		return LANG_RUST;
	return !strncmp(site->func, "_Z", 2) ? LANG_CXX : LANG_OTHER;
}

/*
 * Refuse a return probe on SITE when its language's runtime walks the stack
 * by return addresses.  Without DWARF for SITE, say how the language was told.
 */
static int check_ret_lang(const struct point_site *site, enum elfmod_runtime rt,
			  const struct elfmod *mod, struct ptap_err *err)
{
	const char *base = strrchr(elfmod__path(mod), '/');
	const char *alt = site->has_die ? ", or the lines of its return statements" : "";
	char how[160] = "";

	base = base ? base + 1 : elfmod__path(mod);
	if (!site->has_die && rt != ELFMOD_RT_NONE)
		snprintf(how, sizeof(how), " (no DWARF: %.100s holds the %s runtime)", base,
			 rt == ELFMOD_RT_GO ? "Go" : "Rust");
	else if (!site->has_die)
		snprintf(how, sizeof(how), " (no DWARF: by its mangled name)");
	switch (site_lang(site, rt)) {
	case LANG_CXX:
		return ptap_err_set(err, -1, -ENOTSUP,
				    "cannot probe the return of %s: it is C++, and an exception "
				    "unwinding through a probed call would meet ptap's return "
				    "trampoline instead of the caller (std::terminate); probe its "
				    "entry%s", site->where, alt);
	case LANG_GO:
		return ptap_err_set(err, -1, -ENOTSUP,
				    "cannot probe the return of %s: it is Go%s, and Go grows a "
				    "goroutine's stack by copying it, finding each frame's caller "
				    "by its return address: ptap's return trampoline there ends "
				    "the program (fatal error: unknown caller pc); probe its "
				    "entry%s", site->where, how, alt);
	case LANG_RUST:
		return ptap_err_set(err, -1, -ENOTSUP,
				    "cannot probe the return of %s: it is Rust%s, and a panic "
				    "unwinding through a probed call would meet ptap's return "
				    "trampoline instead of the caller (fatal runtime error: failed "
				    "to initiate panic); probe its entry%s", site->where, how, alt);
	default:
		return 0;
	}
}

/* A return probe's site: where its return address is, and what may stop it. */
static int resolve_return(struct resolved_probe *rp, const struct var_ctx *vc,
			  enum elfmod_runtime rt, struct ptap_err *err)
{
	const struct point_site *site = vc->site;
	int r;

	rp->retprobe = true;
	r = check_ret_lang(site, rt, vc->mod, err);
	if (r < 0)
		return r;
	rp->noreturn = site->has_die && dwarf_hasattr_integrate(&site->die->fn, DW_AT_noreturn);
	/* as var_compile_ra_slot() tells them apart: sp at the entry, the CFA past it */
	rp->ret_past_entry = !site->at_entry || site->after_prologue;
	return var_compile_ra_slot(vc, &rp->ra_prog, err);
}

/*
 * A Go function's entry probe goes past the stack-bound check at its entry
 * (arch_go_stack_check_len()): Go re-runs the entry after growing the stack or
 * preempting the goroutine there, which would record one call twice.  Only
 * FUNC's own entry moves (not FUNC+OFF, FUNC:RELLINE, FUNC%return or inlined copies).
 */
static void skip_go_stack_check(struct point_site *site, const struct elfmod *mod,
				const struct probe_spec *spec, enum elfmod_runtime rt)
{
	uint8_t code[64];
	size_t n, len;

	if (spec->point.kind != PP_FUNC || spec->point.offset || spec->point.line ||
	    spec->point.retprobe || !site->at_entry || site->inlined || site->after_prologue ||
	    site_lang(site, rt) != LANG_GO)
		return;
	/* the function may end near its segment's end: try shorter reads */
	for (n = sizeof(code); n > 0 && elfmod__read(mod, site->vaddr, code, n) < 0; n--)
		;
	len = arch_go_stack_check_len(code, n, site->vaddr);
	if (!len)
		return;
	pr_debug("%s: past Go's stack-bound check, at +%zu\n", site->where, len);
	site->vaddr += len;
	site->at_entry = false;
	site->after_prologue = true;
}

static int resolve_site(struct resolved_probe *rp, struct elfmod *mod, struct dbg *dbg,
			const struct elfmod *exe, const struct point_site *entry,
			const struct probe_spec *spec, enum elfmod_runtime rt, struct ptap_err *err)
{
	struct point_site site = *entry;
	struct var_ctx vc = { .dbg = dbg, .mod = mod, .site = &site, .pool = &rp->pool,
			      .exe = exe };
	int r;

	skip_go_stack_check(&site, mod, spec, rt);
	rp->vaddr = site.vaddr;
	rp->where = strdup(site.where);
	rp->func = strdup(site.func);
	if (!rp->where || !rp->func)
		return -ENOMEM;
	r = decode_site(rp, mod, err);
	if (r == 0 && spec->point.retprobe)
		r = resolve_return(rp, &vc, rt, err);
	if (r == 0)
		r = args_compile(rp, &vc, spec, err);
	return r;
}

/* Is SPEC's point a glob (FUNC with * ? or [)? */
static bool spec_is_glob(const struct probe_spec *spec)
{
	return spec->point.kind == PP_FUNC && spec->point.func &&
	       strpbrk(spec->point.func, "*?[") != NULL;
}

/* resolve_probes() with MOD's debug information DBG. */
static int resolve_in(struct dbg *dbg, struct elfmod *mod, const struct probe_spec *spec,
		      const struct resolve_opts *o, struct resolved_probe **out, int *n,
		      struct ptap_err *err)
{
	struct point_opts po = { .max_probes = o->max_probes ? o->max_probes : POINTS_MAX_DEFAULT,
				 .no_inlines = o->no_inlines, .at_entry = true,
				 .skips = o->skips };
	bool glob = spec_is_glob(spec);
	struct site_skips local = { .n = 0 }, *skips = o->skips ? o->skips : &local;
	struct ptap_err first = { .pos = -1 };
	struct resolved_probe *rps = NULL;
	struct point_site *sites = NULL;
	enum elfmod_runtime rt = ELFMOD_RT_NONE;
	int nsites = 0, k = 0, first_r = 0, r;

	po.skips = skips;
	/* Past the prologue only for DWARF variables: %REG and $argN mean the entry. */
	for (int i = 0; i < spec->nargs; i++)
		if (spec->args[i].expr->kind == ARG_VAR || spec->args[i].expr->kind == ARG_PARAMS ||
		    spec->args[i].expr->kind == ARG_VARS)
			po.at_entry = false;
	r = points__find(dbg, mod, &spec->point, &po, &sites, &nsites, err);
	if (r < 0)
		return r;
	rps = calloc(nsites, sizeof(*rps));
	if (!rps) {
		points__free(sites, nsites);
		return -ENOMEM;
	}
	/* where DWARF does not tell a site's language; once: it reads every symbol name */
	for (int i = 0; i < nsites; i++)
		if (!sites[i].has_die) {
			rt = elfmod__runtime(mod);
			break;
		}
	for (int i = 0; i < nsites && r == 0; i++) {
		struct ptap_err why = { .pos = -1 };

		r = resolve_site(&rps[k], mod, dbg, o->exe, &sites[i], spec, rt, &why);
		if (r == 0) {
			k++;
			continue;
		}
		resolved_probe__exit(&rps[k]);
		memset(&rps[k], 0, sizeof(rps[k]));
		/* A glob plants what it can: one site that cannot be probed is left out. */
		if (glob && r != -ENOMEM) {
			if (!first_r) {
				first = why;
				first_r = r;
			}
			site_skips__add(skips, sites[i].where, why.msg);
			r = 0;
			continue;
		}
		if (err)
			*err = why;
		/* One site that cannot be probed as asked fails the probe: say which. */
		if (nsites > 1 && err) {
			size_t used = strlen(err->msg);

			snprintf(err->msg + used, sizeof(err->msg) - used, " (at %.80s, one of %d sites%s)",
				 sites[i].where, nsites,
				 sites[i].inlined ? "; --no-inlines leaves out inlined copies" : "");
		}
	}
	if (r == 0 && k == 0) {
		/* Nothing left of the glob: an error, with the first reason. */
		r = ptap_err_set(err, first.pos, first_r, "no site of '%s' can be probed (%d site%s); "
				 "%s%s", spec->point.func, skips->n, skips->n == 1 ? "" : "s",
				 skips->n > 1 ? "the first: " : "", first.msg);
	}
	points__free(sites, nsites);
	if (r < 0) {
		resolved_probes_free(rps, k);
		return r;
	}
	*out = rps;
	*n = k;
	return 0;
}

int resolve_probes(struct elfmod *mod, const struct probe_spec *spec,
		   const struct resolve_opts *o, struct resolved_probe **out, int *n,
		   struct ptap_err *err)
{
	struct dbg_cache *own = NULL;
	struct dbg *dbg;
	int r = o->dbgs ? 0 : dbg_cache__new(&own);

	*out = NULL;
	*n = 0;
	if (r == 0)
		r = dbg_cache__get(o->dbgs ? o->dbgs : own, mod, o->debuginfo_dir, &dbg, err);
	if (r == 0)
		r = resolve_in(dbg, mod, spec, o, out, n, err);
	/* the probes keep copies of what they need */
	dbg_cache__free(own);
	return r;
}

void resolved_probe__exit(struct resolved_probe *rp)
{
	for (int i = 0; rp->names && i < rp->nargs; i++)
		free(rp->names[i]);
	free(rp->names);
	free(rp->at_return);
	free(rp->progs);
	free(rp->where);
	free(rp->func);
	tpool_free(&rp->pool);
}

void resolved_probes_free(struct resolved_probe *rps, int n)
{
	for (int i = 0; rps && i < n; i++)
		resolved_probe__exit(&rps[i]);
	free(rps);
}
