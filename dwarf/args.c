/* dwarf/args.c: probe arguments -- %REG, $argN, +OFF(EXPR), @SYMBOL,
 * numbers, and DWARF variables through dwarf/var.c -- compiled into fetch
 * programs (probes/fetch.h).
 *
 * perf's rule for the outermost dereference: `+8(%si):u32` loads 4 bytes
 * at si+8, and `+0(%di):string` is the string AT di+0 (the string read is
 * the dereference).  Inner dereferences load 8-byte pointers.  `%di:string`
 * is the string at the address held in di; `@sym:string` is the string a
 * `char *` variable points to when sym is an 8-byte object, else the
 * characters stored at sym (a char array). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>
#include <elf.h>

#include "arch/arch.h"
#include "dwarf/args_int.h"
#include "dwarf/debuginfo_int.h"
#include "dwarf/elfmod.h"
#include "dwarf/points.h"
#include "dwarf/resolved.h"
#include "dwarf/var_int.h"
#include "probes/err.h"
#include "probes/log.h"
#include "probes/spec.h"

struct compile {
	struct fetch_prog *prog;
	const struct elfmod *mod;
	const struct var_ctx *vc;
	const struct probe_arg *arg;
	struct ptap_err *err;
};

static bool is_string(const struct fetch_type *t)
{
	return t->kind == FT_STRING || t->kind == FT_USTRING;
}

static int type_size(const struct fetch_type *t)
{
	return t->kind == FT_DEFAULT ? 8 : t->size ? t->size : 8;
}

static int emit(struct compile *c, uint8_t op, uint8_t size, uint16_t reg, int64_t imm,
		int pos)
{
	if (fetch_prog__emit(c->prog, op, size, reg, imm) < 0)
		return ptap_err_set(c->err, pos, -EINVAL, "expression too deep (at most %d steps)",
				    FETCH_MAX_OPS);
	return 0;
}

/* The value loaded at the end of an address: SIZE bytes, or nothing for a string. */
static int load(struct compile *c, bool outer, int64_t off, int pos)
{
	if (outer && is_string(&c->arg->type))
		return off ? emit(c, FETCH_OP_ADD_IMM, 0, 0, off, pos) : 0;
	return emit(c, FETCH_OP_DEREF, outer ? type_size(&c->arg->type) : 8, 0, off, pos);
}

static int compile_expr(struct compile *c, const struct arg_expr *e, bool outer);

static int compile_reg(struct compile *c, const struct arg_expr *e)
{
	int regno = arch_reg_by_name(e->name);

	if (regno < 0)
		return ptap_err_set(c->err, e->pos, -EINVAL,
				    "unknown register '%%%s' (%s registers: %%di %%si %%dx %%cx %%r8 "
				    "%%r9 %%ax %%bx %%bp %%sp %%ip %%r10-%%r15, or %%rdi ...)",
				    e->name, arch_name);
	return emit(c, FETCH_OP_REG, 0, regno, 0, e->pos);
}

/*
 * $argN past the parameters DWARF gives the function (not a variadic one):
 * what it reads is no argument of this call -- said, as perf probe reads it
 * all the same.
 */
static void argn_check(const struct compile *c, const struct arg_expr *e)
{
	Dwarf_Die fn, kid;
	long n = 0;

	if (!dbg__dwarf(c->vc->dbg) || !c->vc->site->has_die)
		return;
	fn = c->vc->site->die->fn;
	if (dwarf_tag(&fn) != DW_TAG_subprogram)
		return;
	if (dwarf_child(&fn, &kid) == 0) {
		do {
			if (dwarf_tag(&kid) == DW_TAG_unspecified_parameters)
				return;		/* ... */
			n += dwarf_tag(&kid) == DW_TAG_formal_parameter;
		} while (dwarf_siblingof(&kid, &kid) == 0);
	} else {
		bool proto = false;	/* f(void), not K&R's f() */
		Dwarf_Attribute a;

		if (!dwarf_attr(&fn, DW_AT_prototyped, &a) || dwarf_formflag(&a, &proto) != 0 ||
		    !proto)
			return;
	}
	if (e->n > n)
		pr_warn("$arg%ld at %s: the function has %ld parameter%s (DWARF): it reads "
			"what is there, no argument of the call\n", e->n, c->vc->site->where, n,
			n == 1 ? "" : "s");
}

static int compile_argn(struct compile *c, const struct arg_expr *e)
{
	long off = 0;
	int regno = arch_arg_location(e->n, &off);

	argn_check(c, e);
	if (regno >= 0)
		return emit(c, FETCH_OP_REG, 0, regno, 0, e->pos);
	/* On the stack: a load at sp + off, whatever the type (an integer argument). */
	if (emit(c, FETCH_OP_REG, 0, ARCH_DWARF_SP, 0, e->pos) < 0)
		return -EINVAL;
	return emit(c, FETCH_OP_DEREF, 8, 0, off, e->pos);
}

static int compile_symbol(struct compile *c, const struct arg_expr *e, bool outer)
{
	struct elfmod_sym sym;

	if (elfmod__find_sym(c->mod, e->name, &sym) < 0)
		return ptap_err_set(c->err, e->pos, -EINVAL, "no symbol '%s' in %s", e->name,
				    elfmod__path(c->mod));
	if (emit(c, FETCH_OP_ADDR, 0, 0, sym.vaddr + e->off, e->pos) < 0)
		return -EINVAL;
	/* A `char *` variable: the string is where it points. */
	if (outer && is_string(&c->arg->type) && sym.type == STT_OBJECT && sym.size == 8 && !e->off)
		return emit(c, FETCH_OP_DEREF, 8, 0, 0, e->pos);
	return load(c, outer, 0, e->pos);
}

static int compile_expr(struct compile *c, const struct arg_expr *e, bool outer)
{
	switch (e->kind) {
	case ARG_REG:
		return compile_reg(c, e);
	case ARG_ARGN:
		return compile_argn(c, e);
	case ARG_IMM:
		return emit(c, FETCH_OP_IMM, 0, 0, e->n, e->pos);
	case ARG_DEREF:
		if (compile_expr(c, e->inner, false) < 0)
			return -EINVAL;
		return load(c, outer, e->off, e->pos);
	case ARG_SYMBOL:
		return compile_symbol(c, e, outer);
	case ARG_RETVAL:
		/* typed from DWARF when the function has it, else the register
		 * (also inside +OFF(...): perf's raw return register) */
		if (outer && dbg__dwarf(c->vc->dbg) && c->vc->site->has_die &&
		    !var_retval_untyped(c->vc))
			return var_compile_retval(c->vc, c->arg, c->prog, c->err);
		if (e->n)
			return ptap_err_set(c->err, e->pos, -EINVAL, "%s needs DWARF debug info (its "
					    "type says which registers hold it)", e->name);
		return emit(c, FETCH_OP_REG, 0, ARCH_DWARF_RET_INT0, 0, e->pos);
	case ARG_VAR:
		if (!outer)
			return ptap_err_set(c->err, e->pos, -EINVAL,
					    "a DWARF variable cannot be inside +OFF(...): write the "
					    "member chain (VAR->member) instead");
		return var_compile(c->vc, c->arg, e, c->prog, c->err);
	case ARG_PARAMS:
	case ARG_VARS:
		return ptap_err_set(c->err, e->pos, -EINVAL, "$params and $vars stand alone");
	}
	return ptap_err_set(c->err, e->pos, -EINVAL, "unknown expression");
}

/* Room for one more argument. */
static int grow(struct resolved_probe *rp, int *cap)
{
	if (rp->nargs < *cap)
		return 0;
	int ncap = *cap ? *cap * 2 : 8;
	struct fetch_prog *progs = realloc(rp->progs, ncap * sizeof(*progs));

	if (!progs)
		return -ENOMEM;
	rp->progs = progs;
	char **names = realloc(rp->names, ncap * sizeof(*names));

	if (!names)
		return -ENOMEM;
	rp->names = names;
	bool *at_return = realloc(rp->at_return, ncap * sizeof(*at_return));

	if (!at_return)
		return -ENOMEM;
	rp->at_return = at_return;
	*cap = ncap;
	return 0;
}

static int add_name(struct resolved_probe *rp, const char *name)
{
	rp->names[rp->nargs] = strdup(name);
	if (!rp->names[rp->nargs])
		return -ENOMEM;
	rp->nargs++;
	return 0;
}

struct expand {
	struct resolved_probe *rp;
	const struct var_ctx *vc;
	int *cap;
	bool params;		/* $params: parameters only */
	int first;		/* the first argument this expansion adds */
	int pos;
	int ret;
	struct ptap_err *err;
};

/* $params / $vars: each variable fetchable at the site; the others are skipped, said. */
static int expand_cb(const struct var_info *v, void *priv)
{
	struct expand *x = priv;
	struct ptap_err verr = { .pos = -1 };

	if (x->params && !v->param)
		return 0;
	if ((x->ret = grow(x->rp, x->cap)) < 0)
		return 1;
	if (var_compile_info(x->vc, v, x->pos, &x->rp->progs[x->rp->nargs], &verr) < 0) {
		pr_warn("%s: %s: %s\n", x->rp->where, x->params ? "$params" : "$vars", verr.msg);
		return 0;
	}
	/* The walk goes outward in: an inner variable hides an outer one of its name. */
	for (int i = x->first; i < x->rp->nargs; i++)
		if (!strcmp(x->rp->names[i], v->name)) {
			x->rp->progs[i] = x->rp->progs[x->rp->nargs];
			return 0;
		}
	x->rp->at_return[x->rp->nargs] = false;	/* fetched at the entry */
	x->ret = add_name(x->rp, v->name);
	return x->ret < 0;
}

static int expand_vars(struct resolved_probe *rp, const struct var_ctx *vc,
		       const struct probe_arg *arg, int *cap, struct ptap_err *err)
{
	struct expand x = { .rp = rp, .vc = vc, .cap = cap, .params = arg->expr->kind == ARG_PARAMS,
			    .pos = arg->pos, .err = err, .first = rp->nargs };
	int r;

	if (arg->has_type || arg->name)
		return ptap_err_set(err, arg->pos, -EINVAL, "%s takes no NAME= and no :TYPE",
				    arg->text);
	if (!vc->site->has_die)
		return var_no_dwarf(vc, arg->text, arg->pos, err);
	r = var_walk(vc, false, expand_cb, &x);
	return r < 0 ? r : x.ret;
}

static int compile_arg(struct resolved_probe *rp, const struct var_ctx *vc,
		       const struct probe_arg *arg, int i, struct ptap_err *err)
{
	struct compile c = { .prog = &rp->progs[rp->nargs], .mod = vc->mod, .vc = vc, .arg = arg,
			     .err = err };
	char name[32];
	int r;

	memset(c.prog, 0, sizeof(*c.prog));
	c.prog->type = arg->type;
	if (c.prog->type.kind == FT_DEFAULT)
		c.prog->type.size = 8;
	if ((r = compile_expr(&c, arg->expr, true)) < 0)
		return r;
	/* A DWARF variable is named by its text, $retval "retval"; others "argN" (perf's rule). */
	if (!arg->name && arg->expr->kind == ARG_VAR)
		return add_name(rp, arg->text);
	if (!arg->name && arg->expr->kind == ARG_RETVAL)
		return add_name(rp, arg->expr->name ? arg->expr->name : "retval");
	return add_name(rp, probe_arg__name(arg, i, name, sizeof(name)));
}

/* Does E read $retval (then it is fetched at the return)? */
static bool uses_retval(const struct arg_expr *e)
{
	for (; e; e = e->inner)
		if (e->kind == ARG_RETVAL)
			return true;
	return false;
}

/*
 * A Go function's records carry the goroutine's id, goid (Go users think
 * in goroutines): runtime.g's goid, g in r14 (Go's register ABI), as one
 * more argument, fetched at the entry; not when an argument has that name.
 */
static int add_goid(struct resolved_probe *rp, const struct var_ctx *vc, int *cap)
{
	struct fetch_prog *prog;
	uint64_t off;
	int r;

	/* a Go function as DWARF describes it: not one without DWARF (C in a Go binary, built
	 * without -g), whose r14 is no goroutine's */
	if (!rp->go_stack || !vc->site->has_die || dwarf_srclang(&vc->site->die->cu) != DW_LANG_Go ||
	    dbg__go_goid(vc->dbg, &off) < 0)
		return 0;
	for (int i = 0; i < rp->nargs; i++)
		if (!strcmp(rp->names[i], "goid"))
			return 0;
	if ((r = grow(rp, cap)) < 0)
		return r;
	prog = &rp->progs[rp->nargs];
	memset(prog, 0, sizeof(*prog));
	prog->type = (struct fetch_type){ .kind = FT_UNSIGNED, .size = 8 };
	if (fetch_prog__emit(prog, FETCH_OP_REG, 0, ARCH_DWARF_G_REG, 0) < 0 ||
	    fetch_prog__emit(prog, FETCH_OP_DEREF, 8, 0, (int64_t)off) < 0)
		return -E2BIG;
	rp->at_return[rp->nargs] = false;
	return add_name(rp, "goid");
}

int args_compile(struct resolved_probe *rp, const struct var_ctx *vc,
		 const struct probe_spec *spec, struct ptap_err *err)
{
	int cap = 0, r;

	rp->nargs = 0;
	for (int i = 0; i < spec->nargs; i++) {
		const struct probe_arg *arg = &spec->args[i];

		r = grow(rp, &cap);
		if (r == 0 && (arg->expr->kind == ARG_PARAMS || arg->expr->kind == ARG_VARS))
			r = expand_vars(rp, vc, arg, &cap, err);
		else if (r == 0)
			r = compile_arg(rp, vc, arg, i, err);
		if (r < 0)
			return r;
		if (arg->expr->kind != ARG_PARAMS && arg->expr->kind != ARG_VARS)
			rp->at_return[rp->nargs - 1] = uses_retval(arg->expr);
		/* perf probe refuses it; ptap reads it, and says when */
		if (spec->point.retprobe && arg->expr->kind == ARG_VAR && var_is_local(vc, arg->expr))
			pr_warn("'%s' is a local variable of %s: a return probe reads it at the "
				"entry, before the function has set it (only $retval is read at "
				"the return)\n", arg->text, vc->site->where);
	}
	if ((r = add_goid(rp, vc, &cap)) < 0)
		return r;
	for (int i = 0; i < rp->nargs; i++)
		for (int j = 0; j < rp->progs[i].nops; j++)
			if (rp->progs[i].ops[j].op == FETCH_OP_REG &&
			    rp->progs[i].ops[j].reg >= ARCH_DWARF_NREGS) {
				if (rp->at_return && rp->at_return[i])
					rp->fpregs_ret = true;
				else
					rp->fpregs = true;
			}
	return 0;
}
