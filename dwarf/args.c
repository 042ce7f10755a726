/* dwarf/args.c: probe arguments without DWARF -- %REG, $argN, +OFF(EXPR),
 * @SYMBOL and numbers -- compiled into fetch programs (probes/fetch.h).
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

#include <elf.h>

#include "arch/arch.h"
#include "dwarf/args_int.h"
#include "dwarf/elfmod.h"
#include "dwarf/resolve.h"
#include "probes/err.h"
#include "probes/spec.h"

struct compile {
	struct fetch_prog *prog;
	const struct elfmod *mod;
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

static int compile_argn(struct compile *c, const struct arg_expr *e)
{
	long off = 0;
	int regno = arch_arg_location(e->n, &off);

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
		return ptap_err_set(c->err, e->pos, -EINVAL,
				    "$retval needs a return probe (FUNC%%return), not supported yet");
	case ARG_VAR:
	case ARG_PARAMS:
	case ARG_VARS:
		return ptap_err_set(c->err, e->pos, -EINVAL,
				    "'%s' needs DWARF debug info, which ptap does not read yet; "
				    "register arguments still work: %%REG, $argN, +OFF(EXPR), @SYMBOL",
				    c->arg->text);
	}
	return ptap_err_set(c->err, e->pos, -EINVAL, "unknown expression");
}

static int compile_arg(struct resolved_probe *rp, const struct elfmod *mod,
		       const struct probe_arg *arg, int i, struct ptap_err *err)
{
	struct compile c = { .prog = &rp->progs[i], .mod = mod, .arg = arg, .err = err };
	char name[32];

	c.prog->type = arg->type;
	if (c.prog->type.kind == FT_DEFAULT)
		c.prog->type.size = 8;
	if (compile_expr(&c, arg->expr, true) < 0)
		return -EINVAL;
	rp->names[i] = strdup(probe_arg__name(arg, i, name, sizeof(name)));
	return rp->names[i] ? 0 : -ENOMEM;
}

int args_compile(struct resolved_probe *rp, const struct elfmod *mod,
		 const struct probe_spec *spec, struct ptap_err *err)
{
	rp->nargs = spec->nargs;
	if (!spec->nargs)
		return 0;
	rp->progs = calloc(spec->nargs, sizeof(*rp->progs));
	rp->names = calloc(spec->nargs, sizeof(*rp->names));
	if (!rp->progs || !rp->names)
		return -ENOMEM;
	for (int i = 0; i < spec->nargs; i++) {
		int r = compile_arg(rp, mod, &spec->args[i], i, err);

		if (r < 0)
			return r;
	}
	return 0;
}
