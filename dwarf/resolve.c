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
#include "dwarf/debuginfo_int.h"
#include "dwarf/demangle.h"
#include "dwarf/elfmod.h"
#include "dwarf/points.h"
#include "dwarf/resolve.h"
#include "dwarf/site_int.h"
#include "dwarf/var_int.h"
#include "probes/array.h"
#include "probes/err.h"
#include "probes/log.h"
#include "probes/spec.h"

/* Functions larger than this are not decoded whole: their sites take an int3. */
#define JUMP_FN_MAX	(1u << 20)

/*
 * The function symbol holding VADDR: from the module's symbol table, else
 * from libdwfl's (which reads the separate debug file's .symtab too: a
 * stripped library's local functions).  0 or -ENOENT.
 */
static int fn_sym_at(const struct elfmod *mod, struct dbg *dbg, uint64_t vaddr,
		     struct elfmod_sym *sym)
{
	struct dbg_func f;

	if (elfmod__sym_at(mod, vaddr, sym) == 0 && sym->size)
		return 0;
	if (!dbg || dbg__func_at(dbg, vaddr, &f) < 0)
		return -ENOENT;
	*sym = (struct elfmod_sym){ .name = f.name, .vaddr = f.start, .size = f.size,
				    .type = STT_FUNC };
	return 0;
}

/* ---- the branches of the whole module ---------------------------------------
 *
 * A jump site must not have code jump into its bytes after the first.  Its
 * own function's branches are checked as it is decoded; other functions
 * may jump there too (glibc's __mempcpy_*_erms jumps to __memmove_*_erms + 3,
 * a hand-written function to a label of its neighbour's), so every
 * function the module's symbols (and its debug file's) name is decoded
 * once, and the targets of all their direct branches and calls kept,
 * sorted, with the module's struct dbg.
 */

/* The direct branch targets of MOD's code [LO, LO + LEN) onto T (CAP: its room). */
static int add_targets(const struct elfmod *mod, uint64_t lo, uint64_t len,
		       struct dbg_targets *t, size_t *cap)
{
	struct arch_branches br;
	uint8_t *code;
	int r = 0;

	if (!len || len > JUMP_FN_MAX)
		return 0;
	code = malloc(len);
	if (!code)
		return -ENOMEM;
	if (elfmod__read(mod, lo, code, len) == 0 && (r = arch_branches_of(code, len, lo, &br)) == 0) {
		for (size_t i = 0; i < br.n && r == 0; i++) {
			r = array_grow((void **)&t->to, cap, sizeof(*t->to), t->n + 1);
			if (r == 0)
				t->to[t->n++] = br.b[i].to;
		}
		arch_branches_free(&br);
	}
	free(code);
	return r;
}

static int cmp_u64(const void *pa, const void *pb)
{
	uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;

	return a < b ? -1 : a > b;
}

/* MOD's branch targets (made the first time), or NULL when they cannot be known. */
static const struct dbg_targets *module_targets(const struct elfmod *mod, struct dbg *dbg)
{
	struct dbg_targets *t = dbg ? dbg__targets(dbg) : NULL;
	const struct dbg_func *funcs;
	struct elfmod_sym sym;
	size_t cap = 0, nf, j = 0;
	int r = 0;

	if (!t || t->failed)
		return NULL;
	if (t->done)
		return t;
	t->done = true;
	nf = dbg__funcs(dbg, &funcs);
	if (dbg__targets_load(dbg, elfmod__nfuncs(mod), nf) == 0)
		return t;
	for (size_t i = 0; i < elfmod__nfuncs(mod) && r == 0; i++) {
		elfmod__func(mod, i, &sym);
		r = add_targets(mod, sym.vaddr, sym.size, t, &cap);
	}
	/* the debug file's, but those the module's own table named (the same code) */
	for (size_t i = 0; i < nf && r == 0; i++)
		if (i == 0 || funcs[i].start != funcs[i - 1].start)
			if (elfmod__sym_at(mod, funcs[i].start, &sym) < 0 ||
			    sym.vaddr != funcs[i].start || sym.size != funcs[i].size)
				r = add_targets(mod, funcs[i].start, funcs[i].size, t, &cap);
	if (r < 0) {
		free(t->to);
		t->to = NULL;
		t->n = 0;
		t->failed = true;
		return NULL;
	}
	if (t->n > 1)
		qsort(t->to, t->n, sizeof(*t->to), cmp_u64);
	for (size_t i = 0; i < t->n; i++)
		if (!j || t->to[i] != t->to[j - 1])
			t->to[j++] = t->to[i];
	t->n = j;
	dbg__targets_store(dbg, elfmod__nfuncs(mod), nf);
	return t;
}

/*
 * May a jump replace (PC, PC + LEN) as far as the rest of MOD goes: no
 * branch or call elsewhere lands in it?  True, or false with WHY.
 */
static bool no_branch_into(const struct elfmod *mod, struct dbg *dbg, uint64_t pc,
			   unsigned int len, struct ptap_err *why)
{
	const struct dbg_targets *t = module_targets(mod, dbg);
	size_t lo = 0, hi;

	if (!t)
		return ptap_err_set(why, -1, -ENOTSUP, "the module's branches are not known"),
		       false;
	for (hi = t->n; lo < hi;) {	/* the first target past PC */
		size_t mid = lo + (hi - lo) / 2;

		if (t->to[mid] <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < t->n && t->to[lo] < pc + len) {
		ptap_err_set(why, -1, -ENOTSUP, "code elsewhere in the module jumps to 0x%lx, in "
			     "the bytes a jump would replace", (unsigned long)t->to[lo]);
		return false;
	}
	return true;
}

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
 * Does a symbol other than those starting at OWN[0..NOWN) (the function's
 * parts) begin or lie in (PC, PC + LEN), the bytes a jump at PC would
 * replace after its first?  Another entry into them (an assembly
 * function's second name, the next function past the padding) would land
 * inside the jump.  True with WHY.
 */
static bool other_sym_in(const struct elfmod *mod, struct dbg *dbg, const uint64_t *own,
			 int nown, uint64_t pc, unsigned int len, struct ptap_err *why)
{
	struct elfmod_sym other;

	for (uint64_t a = pc + 1; a < pc + len; a++) {
		bool mine = false;

		if (fn_sym_at(mod, dbg, a, &other) < 0)
			continue;
		for (int k = 0; k < nown; k++)
			mine |= other.vaddr == own[k];
		if (!mine) {
			ptap_err_set(why, -1, -ENOTSUP, "%s at 0x%lx, in the bytes a jump would "
				     "replace", other.name ? other.name : "another symbol",
				     (unsigned long)a);
			return true;
		}
	}
	return false;
}

/*
 * May RP's site be a jump site (arch.h)?  The function holding it is decoded
 * whole from the symbol table, and so is its "NAME.cold" part when gcc split
 * one off.  Never an error: a site that cannot be one takes an int3.
 */
static void decide_jump(struct resolved_probe *rp, const struct elfmod *mod, struct dbg *dbg)
{
	struct elfmod_sym sym, cold;
	struct ptap_err why = { .pos = -1 };
	char name[256];

	memset(&rp->jump, 0, sizeof(rp->jump));
	if (rp->insn.step != ARCH_STEP_OOL)
		ptap_err_set(&why, -1, -ENOTSUP, "'%s' is a branch", rp->insn.text);
	/*
	 * The module's own symbol table only (the debug file names local
	 * assembly functions too, whose bounds are less sure)
	 */
	else if (elfmod__sym_at(mod, rp->vaddr, &sym) < 0 || !sym.size)
		ptap_err_set(&why, -1, -ENOTSUP, "its function is not in the module's symbol "
			     "table");
	else if (jump_check_sym(rp, mod, &sym, true, &why) < 0)
		;	/* no jump (arch_jump_analyze()) */
	else if (other_sym_in(mod, dbg, &sym.vaddr, 1, rp->vaddr, rp->jump.len, &why) ||
		 !no_branch_into(mod, dbg, rp->vaddr, rp->jump.len, &why) ||
		 (snprintf(name, sizeof(name), "%s.cold", sym.name) < (int)sizeof(name) &&
		  elfmod__find_sym(mod, name, &cold) == 0 &&
		  jump_check_sym(rp, mod, &cold, false, &why) < 0))
		memset(&rp->jump, 0, sizeof(rp->jump));
	if (!rp->jump.len) {
		pr_debug("%s: an int3 site, not a jump site: %s\n", rp->where, why.msg);
		free(rp->nojump);
		rp->nojump = why.msg[0] ? strdup(why.msg) : NULL;
	}
}

static int decode_site(struct resolved_probe *rp, const struct elfmod *mod, struct dbg *dbg,
		       struct ptap_err *err)
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
	decide_jump(rp, mod, dbg);
	return 0;
}

/*
 * Is SITE in Go?  Its compile unit's DW_AT_language; without DWARF for it,
 * the runtime its module holds (RT, from elfmod__runtime()).  Go re-runs a
 * function's entry (skip_go_stack_check()) and moves a goroutine's stack
 * (struct resolved_probe's go_stack).
 */
static bool site_is_go(const struct point_site *site, enum elfmod_runtime rt)
{
	if (site->has_die)
		return dwarf_srclang(&site->die->cu) == DW_LANG_Go;
	return rt == ELFMOD_RT_GO;
}

/* At most this many exits in one function. */
#define EXITS_MAX	4096

/* The exits of the part [LO, HI) of a function whose parts are PARTS: appended to *OUT. */
static int part_exits(const struct elfmod *mod, const struct arch_range *parts, int nparts,
		      int k, struct arch_exit *out, int *n, struct ptap_err *why)
{
	uint64_t len = parts[k].hi - parts[k].lo;
	uint8_t *code;
	int r;

	if (len > JUMP_FN_MAX)
		return ptap_err_set(why, -1, -ENOTSUP, "it is larger than %u bytes", JUMP_FN_MAX);
	code = malloc(len);
	if (!code || elfmod__read(mod, parts[k].lo, code, len) < 0) {
		free(code);
		return ptap_err_set(why, -1, -ENOTSUP, "its code cannot be read");
	}
	r = arch_func_exits(code, len, parts[k].lo, parts, nparts, out + *n, EXITS_MAX - *n, why);
	free(code);
	if (r == -ENOSPC)
		return ptap_err_set(why, -1, -ENOTSUP, "it has more than %d exits", EXITS_MAX);
	if (r < 0)
		return r;
	*n += r;
	return 0;
}


/*
 * The part of the function SYM (of MOD) that its exits EX[0..N) jump into:
 * gcc's "NAME.cold", the function symbol of that name holding one of their
 * targets (two static functions may share a name: the one jumped to).
 */
static bool cold_part(const struct elfmod *mod, struct dbg *dbg, const struct elfmod_sym *sym,
		      const struct arch_exit *ex, int n, struct arch_range *part)
{
	size_t len = strlen(sym->name);
	struct elfmod_sym c;

	for (int i = 0; i < n; i++)
		if (ex[i].kind == ARCH_EXIT_TAIL && fn_sym_at(mod, dbg, ex[i].to, &c) == 0 &&
		    !strncmp(c.name, sym->name, len) && !strcmp(c.name + len, ".cold")) {
			*part = (struct arch_range){ c.vaddr, c.vaddr + c.size };
			return true;
		}
	return false;
}

/* The instruction at EX into E: 0, or -ENOTSUP with WHY. */
static int exit_insn(const struct elfmod *mod, const struct arch_exit *ex,
		     struct resolved_exit *e, struct ptap_err *why)
{
	uint8_t code[ARCH_MAX_INSN];
	struct ptap_err how = { .pos = -1 };

	e->vaddr = ex->pc;
	e->kind = ex->kind;
	if (elfmod__vaddr_to_offset(mod, e->vaddr, &e->file_off) < 0 ||
	    elfmod__read(mod, e->vaddr, code, ex->len) < 0)
		return ptap_err_set(why, -1, -ENOTSUP, "its %s at 0x%lx is not in a loadable "
				    "segment", ex->kind == RESOLVED_CALL ? "entry" : "exit",
				    (unsigned long)e->vaddr);
	if (arch_insn_analyze(code, ex->len, e->vaddr, &e->insn, &how) < 0)
		return ptap_err_set(why, -1, -ENOTSUP, "its %s at 0x%lx cannot be probed: %s",
				    ex->kind == RESOLVED_CALL ? "entry (which tells its calls "
				    "apart)" : "exit", (unsigned long)e->vaddr, how.msg);
	return 0;
}

/*
 * A part of a function whose exits' jumps are checked: its code and its
 * branches, read and decoded once for all of them (part_decoded()).
 */
struct part {
	struct arch_range r;
	uint8_t *code;		/* NULL: not yet, or it could not be (too big, unreadable) */
	struct arch_branches br;
	bool tried;
};

/* P's branches (its code in P->code), or NULL when it cannot be read or decoded. */
static const struct arch_branches *part_decoded(const struct elfmod *mod, struct part *p)
{
	uint64_t len = p->r.hi - p->r.lo;

	if (!p->tried) {
		p->tried = true;
		p->code = len <= JUMP_FN_MAX ? malloc(len) : NULL;
		if (p->code && (elfmod__read(mod, p->r.lo, p->code, len) < 0 ||
				arch_branches_of(p->code, len, p->r.lo, &p->br) < 0)) {
			free(p->code);
			p->code = NULL;
		}
	}
	return p->code ? &p->br : NULL;
}

static void parts_free(struct part *parts, int n)
{
	for (int k = 0; k < n; k++) {
		if (parts[k].code)
			arch_branches_free(&parts[k].br);
		free(parts[k].code);
	}
}

/*
 * E's jump (from E's vaddr - its at) goes unless no branch of PARTS[0..N)
 * but part SKIP lands in its bytes after the first, and no symbol but the
 * parts' own begins or lies there: code elsewhere may call it, or it is
 * the next function, past the padding.
 */
static void jump_check(const struct elfmod *mod, struct dbg *dbg, struct resolved_exit *e,
		       struct part *parts, int n, int skip)
{
	struct ptap_err why = { .pos = -1 };
	uint64_t start = e->vaddr - e->jump.at, own[2];

	for (int k = 0; k < n && k < 2; k++)
		own[k] = parts[k].r.lo;
	if (e->jump.len && other_sym_in(mod, dbg, own, n < 2 ? n : 2, start, e->jump.len, &why))
		memset(&e->jump, 0, sizeof(e->jump));
	for (int k = 0; k < n && e->jump.len; k++) {
		const struct arch_branches *br = k == skip ? NULL : part_decoded(mod, &parts[k]);

		if (k != skip && !br)
			ptap_err_set(&why, -1, -ENOTSUP, "its code at 0x%lx cannot be read or "
				     "decoded", (unsigned long)parts[k].r.lo);
		if (k != skip && (!br || arch_branches_check(parts[k].code, br, start, e->jump.len,
							     false, &why) < 0))
			memset(&e->jump, 0, sizeof(e->jump));
	}
	if (e->jump.len && !no_branch_into(mod, dbg, start, e->jump.len, &why))
		memset(&e->jump, 0, sizeof(e->jump));
	if (!e->jump.len && why.msg[0] && !e->nojump)
		e->nojump = strdup(why.msg);
}

/*
 * May exit E, a ret or a tail call's jmp, be a jump site?  With padding
 * after it (arch_exit_jump()); else, a ret, with the instructions before it
 * (arch_exit_jump_before(), in the part of PARTS[0..N) holding it: EX as
 * arch_func_exits() found it there).  Never an error: else it takes an
 * int3.
 */
static void exit_jump(const struct elfmod *mod, struct dbg *dbg, struct resolved_exit *e,
		      const struct arch_exit *ex, struct part *parts, int n)
{
	struct ptap_err why = { .pos = -1 };
	const struct arch_branches *br;
	uint8_t code[16];
	int k = -1;
	size_t len;

	for (len = sizeof(code); len > 0 && elfmod__read(mod, e->vaddr, code, len) < 0; len--)
		;
	if (!len)
		return;
	if (arch_exit_jump(code, len, e->vaddr, &e->jump, &why) < 0) {
		if (e->insn.step != ARCH_STEP_RET) {
			e->nojump = strdup("a short jmp with no padding after it");
			return;
		}
		for (k = 0; k < n && !(e->vaddr >= parts[k].r.lo && e->vaddr < parts[k].r.hi); k++)
			;
		br = k < n ? part_decoded(mod, &parts[k]) : NULL;
		if (!br || arch_exit_jump_before(parts[k].code, br, ex, &e->jump, &why) < 0) {
			memset(&e->jump, 0, sizeof(e->jump));
			/* "... and too few instructions before it to make a jump's 5 bytes" */
			if (asprintf(&e->nojump, "no padding after the ret, and %s",
				     br ? why.msg : "its function cannot be decoded") < 0)
				e->nojump = NULL;
			return;
		}
	}
	jump_check(mod, dbg, e, parts, n, k);	/* K: checked by arch_exit_jump_before() */
}

/*
 * The exits of the function holding RP's site (arch_func_exits(): each ret,
 * each jump out of it), which a return probe plants: the function from the
 * symbol table, with its "NAME.cold" part when gcc split one off.  A site
 * past the prologue adds the function's entry (RESOLVED_CALL).  0, or
 * -ENOTSUP with ERR when they cannot all be known.
 */
static int find_exits(struct resolved_probe *rp, const struct elfmod *mod, struct dbg *dbg,
		      struct ptap_err *err)
{
	struct arch_range parts[2];
	struct part decoded[2];
	struct arch_exit *ex;
	struct elfmod_sym sym;
	struct ptap_err why = { .pos = -1 };
	int nparts = 1, n = 0, r = 0;

	if (fn_sym_at(mod, dbg, rp->vaddr, &sym) < 0)
		return ptap_err_set(err, -1, -ENOTSUP, "cannot probe the return of %s: the symbol "
				    "table does not say where its function ends, and ptap puts a "
				    "breakpoint on each of its exits", rp->where);
	parts[0] = (struct arch_range){ sym.vaddr, sym.vaddr + sym.size };
	ex = calloc(EXITS_MAX, sizeof(*ex));
	if (!ex)
		return -ENOMEM;
	r = part_exits(mod, parts, 1, 0, ex, &n, &why);
	if (r == 0 && cold_part(mod, dbg, &sym, ex, n, &parts[1])) {
		nparts = 2;
		n = 0;
		for (int k = 0; k < nparts && r == 0; k++)
			r = part_exits(mod, parts, nparts, k, ex, &n, &why);
	}
	/* a site further in than the entry: a loop may pass it again, the entry tells calls apart */
	if (r == 0 && rp->ret_past_entry && rp->vaddr != sym.vaddr && n < EXITS_MAX) {
		uint8_t code[ARCH_MAX_INSN];
		struct arch_insn insn;
		size_t len;

		for (len = sizeof(code); len > 0 && elfmod__read(mod, sym.vaddr, code, len) < 0; len--)
			;
		ex[n++] = (struct arch_exit){ .pc = sym.vaddr, .kind = RESOLVED_CALL,
					      .len = arch_insn_analyze(code, len, sym.vaddr, &insn,
								       &why) < 0 ? (uint8_t)len
										 : insn.len };
	}
	if (r == 0 && n && !(rp->exits = calloc(n, sizeof(*rp->exits))))
		r = -ENOMEM;
	for (int k = 0; k < nparts; k++)
		decoded[k] = (struct part){ .r = parts[k] };
	for (int i = 0; r == 0 && i < n; i++) {
		r = exit_insn(mod, &ex[i], &rp->exits[i], &why);
		if (r == 0 && (ex[i].kind == ARCH_EXIT_RET ||
			       rp->exits[i].insn.step == ARCH_STEP_JMP))	/* not a jcc */
			exit_jump(mod, dbg, &rp->exits[i], &ex[i], decoded, nparts);
		else if (r == 0 && ex[i].kind != RESOLVED_CALL)
			rp->exits[i].nojump = strdup("a conditional tail call");
	}
	parts_free(decoded, nparts);
	free(ex);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return ptap_err_set(err, -1, -ENOTSUP, "cannot probe the return of %s: %s (ptap "
				    "puts a breakpoint on each of the function's exits); probe its "
				    "entry, or the lines of its return statements", rp->where,
				    why.msg);
	rp->nexits = n;
	return 0;
}

/* A return probe's site: where its return address is, and where the function leaves. */
static int resolve_return(struct resolved_probe *rp, const struct var_ctx *vc,
			  const struct elfmod *mod, struct ptap_err *err)
{
	const struct point_site *site = vc->site;
	int r;

	rp->retprobe = true;
	rp->noreturn = site->has_die && dwarf_hasattr_integrate(&site->die->fn, DW_AT_noreturn);
	/* as var_compile_ra_slot() tells them apart: sp at the entry, the CFA past it */
	rp->ret_past_entry = (!site->at_entry || site->after_prologue) && !site->sp_at_ra;
	r = find_exits(rp, mod, vc->dbg, err);
	return r < 0 ? r : var_compile_ra_slot(vc, &rp->ra_prog, err);
}

/*
 * A Go function's entry probe goes past the stack-bound check at its entry
 * (arch_go_stack_check_len()): Go re-runs the entry after growing the stack or
 * preempting the goroutine there, which would record one call twice.  Only
 * FUNC's own entry moves, and FUNC%return's (not FUNC+OFF, FUNC:RELLINE or inlined copies).
 */
static void skip_go_stack_check(struct point_site *site, const struct elfmod *mod,
				const struct probe_spec *spec, enum elfmod_runtime rt)
{
	uint8_t code[64];
	size_t n, len;

	if (spec->point.kind != PP_FUNC || spec->point.offset || spec->point.line ||
	    !site->at_entry || site->inlined || site->after_prologue || !site_is_go(site, rt))
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
	site->sp_at_ra = true;
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
	rp->go_stack = site_is_go(&site, rt);
	rp->vaddr = site.vaddr;
	rp->where = strdup(site.where);
	rp->func = strdup(site.func);
	if (!rp->where || !rp->func)
		return -ENOMEM;
	r = decode_site(rp, mod, dbg, err);
	if (r == 0 && spec->point.retprobe)
		r = resolve_return(rp, &vc, mod, err);
	if (r == 0)
		r = args_compile(rp, &vc, spec, err);
	return r;
}

/* Is SPEC's point a glob (FUNC with * ? or [)? */
static bool spec_is_glob(const struct probe_spec *spec)
{
	return spec->point.kind == PP_FUNC && spec->point.func && name_is_glob(spec->point.func);
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
	for (int i = 0; rp->exits && i < rp->nexits; i++)
		free(rp->exits[i].nojump);
	free(rp->exits);
	free(rp->nojump);
	tpool_free(&rp->pool);
}

void resolved_probes_free(struct resolved_probe *rps, int n)
{
	for (int i = 0; rps && i < n; i++)
		resolved_probe__exit(&rps[i]);
	free(rps);
}
