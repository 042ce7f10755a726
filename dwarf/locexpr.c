/* dwarf/locexpr.c: a variable's DWARF location expression, evaluated for
 * the site's address (location lists included), translated op by op into
 * the fetch stack machine (perf's convert_variable_location()): registers,
 * frame base and CFA, entry values, pieces, constants.  An op ptap cannot
 * follow exactly is an error naming the reason, never a guess. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>

#include "arch/arch.h"
#include "dwarf/comp_int.h"
#include "dwarf/debuginfo_int.h"
#include "dwarf/die_int.h"
#include "dwarf/points.h"
#include "probes/err.h"

int comp_emit(struct comp *k, uint8_t op, uint8_t size, uint16_t reg, int64_t imm)
{
	struct fetch_op *last = k->prog->nops ? &k->prog->ops[k->prog->nops - 1] : NULL;

	/* Fold offsets: breg7 8; plus_uconst -56 is one step.  Addresses wrap
	 * (modulo 2^64, as the evaluator adds): no signed overflow. */
	if (op == FETCH_OP_ADD_IMM && last && last->op == FETCH_OP_ADD_IMM) {
		last->imm = (int64_t)((uint64_t)last->imm + (uint64_t)imm);
		return 0;
	}
	if (op == FETCH_OP_ADD_IMM && last && (last->op == FETCH_OP_ADDR || last->op == FETCH_OP_IMM)) {
		last->imm = (int64_t)((uint64_t)last->imm + (uint64_t)imm);
		return 0;
	}
	if (fetch_prog__emit(k->prog, op, size, reg, imm) < 0)
		return ptap_err_set(k->err, k->pos, -E2BIG,
				    "cannot fetch '%s': its location needs more than %d steps",
				    k->text, FETCH_MAX_OPS);
	return 0;
}

int comp_cannot(struct comp *k, const char *why)
{
	return ptap_err_set(k->err, k->pos, -ENOTSUP, "cannot fetch '%s' at %s: %s", k->text,
			    k->c->site->where, why);
}

static int reg_ok(struct comp *k, Dwarf_Word reg)
{
	char why[96];

	if (reg < ARCH_DWARF_NREGS_ALL)
		return 0;
	snprintf(why, sizeof(why), "it lives in DWARF register %lu, which ptap does not read",
		 (unsigned long)reg);
	return comp_cannot(k, why);
}

static int compile_ops(struct comp *k, const Dwarf_Op *ops, size_t nops, int depth);

/* DW_OP_call_frame_cfa: the CFA at the site, from the call frame information. */
int comp_cfa(struct comp *k, int depth)
{
	Dwarf_Attribute *saved = k->attr;
	Dwarf_Frame *frame = NULL;
	Dwarf_Op *ops = NULL;
	size_t nops = 0;
	int r = dbg__cfi_frame(k->c->dbg, k->c->site->vaddr, &frame);

	if (r == -ENODATA)
		return comp_cannot(k, "its frame base needs call frame information, and there is none");
	if (r < 0 || dwarf_frame_cfa(frame, &ops, &nops) != 0 || !ops) {
		free(frame);
		return comp_cannot(k, "no call frame information for the site's address");
	}
	k->attr = NULL;
	r = compile_ops(k, ops, nops, depth + 1);
	k->attr = saved;
	free(frame);
	return r;
}

/* The enclosing out-of-line function's DW_AT_frame_base, evaluated at the site. */
static int compile_fbreg(struct comp *k, int depth)
{
	Dwarf_Die *scopes = NULL;
	Dwarf_Die fn = k->c->site->die->fn;
	/* The site's function and the DIEs that physically hold it: for an
	 * inlined instance, the out-of-line function it was inlined into
	 * (dwarf_getscopes() would go to the abstract definition instead). */
	int n = dwarf_getscopes_die(&fn, &scopes);
	int r = -ENOENT;

	for (int i = 0; i < n; i++) {
		Dwarf_Attribute a;
		Dwarf_Op *expr;
		size_t len;

		/* the out-of-line function holding the pc: an inlined function's
		 * abstract definition, also among the scopes, has no frame base */
		if (dwarf_tag(&scopes[i]) != DW_TAG_subprogram ||
		    !dwarf_attr(&scopes[i], DW_AT_frame_base, &a))
			continue;
		if (dwarf_getlocation_addr(&a, var_site_pc(k->c), &expr, &len, 1) != 1)
			break;
		Dwarf_Attribute *saved = k->attr;

		/* the frame base's value is pushed (a DW_OP_regN base: that register's) */
		k->attr = &a;
		r = compile_ops(k, expr, len, depth + 1);
		k->attr = saved;
		break;
	}
	free(scopes);
	if (r == -ENOENT)
		return comp_cannot(k, "the frame base of its function is unknown at this address");
	return r;
}

static const struct { unsigned int op; uint8_t alu; } alu_ops[] = {
	{ DW_OP_minus, FETCH_ALU_SUB }, { DW_OP_mul, FETCH_ALU_MUL },
	{ DW_OP_div, FETCH_ALU_DIV },	{ DW_OP_mod, FETCH_ALU_MOD },
	{ DW_OP_and, FETCH_ALU_AND },	{ DW_OP_or, FETCH_ALU_OR },
	{ DW_OP_xor, FETCH_ALU_XOR },	{ DW_OP_shl, FETCH_ALU_SHL },
	{ DW_OP_shr, FETCH_ALU_SHR },	{ DW_OP_shra, FETCH_ALU_SHRA },
	{ DW_OP_neg, FETCH_ALU_NEG },	{ DW_OP_not, FETCH_ALU_NOT },
};

/*
 * Is the site the entry of the out-of-line function that holds it?  Only
 * there does a register still hold the value it had when that function was
 * called: DW_OP_entry_value means the entry of the concrete function, not
 * of an inlined instance's first instruction.
 */
static bool at_function_entry(const struct var_ctx *c)
{
	Dwarf_Die fn = c->site->die->fn;
	Dwarf_Die *scopes = NULL;
	Dwarf_Addr entry;
	bool yes = false;
	int n = dwarf_getscopes_die(&fn, &scopes);

	for (int i = 0; i < n; i++) {
		if (dwarf_tag(&scopes[i]) != DW_TAG_subprogram ||
		    (!dwarf_hasattr(&scopes[i], DW_AT_low_pc) &&
		     !dwarf_hasattr(&scopes[i], DW_AT_ranges)))
			continue;
		yes = dwarf_entrypc(&scopes[i], &entry) == 0 && entry == var_site_pc(c);
		break;
	}
	free(scopes);
	return yes;
}

static int compile_entry_value(struct comp *k, const Dwarf_Op *op)
{
	Dwarf_Attribute a;
	Dwarf_Op *sub;
	size_t nsub;

	/* The sub-expression is carried as a block; libdw decodes it. */
	if (!k->attr || dwarf_getlocation_attr(k->attr, op, &a) != 0)
		return comp_cannot(k, "its entry value cannot be decoded");
	if (dwarf_getlocation(&a, &sub, &nsub) != 0 || nsub != 1 ||
	    !((sub[0].atom >= DW_OP_reg0 && sub[0].atom <= DW_OP_reg31) ||
	      sub[0].atom == DW_OP_regx))
		return comp_cannot(k, "its value is computed from an entry value ptap cannot follow");
	if (!at_function_entry(k->c))
		return comp_cannot(k, "it is only known as the value a register had when the function "
				      "was entered, which is lost here; probe the function's entry");
	Dwarf_Word reg = sub[0].atom == DW_OP_regx ? sub[0].number :
			 (Dwarf_Word)(sub[0].atom - DW_OP_reg0);

	if (reg_ok(k, reg) < 0)
		return -ENOTSUP;
	return comp_emit(k, FETCH_OP_REG, 0, (uint16_t)reg, 0);
}

static int compile_op(struct comp *k, const Dwarf_Op *op, int depth, bool *value)
{
	unsigned int a = op->atom;
	Dwarf_Word reg;

	if (a >= DW_OP_lit0 && a <= DW_OP_lit31)
		return comp_emit(k, FETCH_OP_IMM, 0, 0, a - DW_OP_lit0);
	if ((a >= DW_OP_reg0 && a <= DW_OP_reg31) || a == DW_OP_regx) {
		reg = a == DW_OP_regx ? op->number : a - DW_OP_reg0;
		if (reg_ok(k, reg) < 0)
			return -ENOTSUP;
		*value = true;
		return comp_emit(k, FETCH_OP_REG, 0, (uint16_t)reg, 0);
	}
	if ((a >= DW_OP_breg0 && a <= DW_OP_breg31) || a == DW_OP_bregx) {
		int64_t off = a == DW_OP_bregx ? (int64_t)op->number2 : (int64_t)op->number;

		reg = a == DW_OP_bregx ? op->number : a - DW_OP_breg0;
		if (reg_ok(k, reg) < 0 || comp_emit(k, FETCH_OP_REG, 0, (uint16_t)reg, 0) < 0)
			return -ENOTSUP;
		return off ? comp_emit(k, FETCH_OP_ADD_IMM, 0, 0, off) : 0;
	}
	for (size_t i = 0; i < sizeof(alu_ops) / sizeof(alu_ops[0]); i++)
		if (alu_ops[i].op == a)
			return comp_emit(k, FETCH_OP_ALU, alu_ops[i].alu, 0, 0);
	switch (a) {
	case DW_OP_addr:
		return comp_emit(k, FETCH_OP_ADDR, 0, 0,
				 (int64_t)(op->number + dbg__bias(k->c->dbg)));
	case DW_OP_const1u: case DW_OP_const2u: case DW_OP_const4u: case DW_OP_const8u:
	case DW_OP_constu:
	case DW_OP_const1s: case DW_OP_const2s: case DW_OP_const4s: case DW_OP_const8s:
	case DW_OP_consts:
		return comp_emit(k, FETCH_OP_IMM, 0, 0, (int64_t)op->number);
	case DW_OP_plus_uconst:
		return comp_emit(k, FETCH_OP_ADD_IMM, 0, 0, (int64_t)op->number);
	case DW_OP_plus:
		return comp_emit(k, FETCH_OP_ADD, 0, 0, 0);
	case DW_OP_deref:
		return comp_emit(k, FETCH_OP_DEREF, 8, 0, 0);
	case DW_OP_deref_size:
		if (op->number != 1 && op->number != 2 && op->number != 4 && op->number != 8)
			return comp_cannot(k, "a DW_OP_deref_size of an odd size");
		return comp_emit(k, FETCH_OP_DEREF, (uint8_t)op->number, 0, 0);
	case DW_OP_dup:
		return comp_emit(k, FETCH_OP_STACK, FETCH_STACK_DUP, 0, 0);
	case DW_OP_drop:
		return comp_emit(k, FETCH_OP_STACK, FETCH_STACK_DROP, 0, 0);
	case DW_OP_swap:
		return comp_emit(k, FETCH_OP_STACK, FETCH_STACK_SWAP, 0, 0);
	case DW_OP_over:
		return comp_emit(k, FETCH_OP_STACK, FETCH_STACK_OVER, 0, 0);
	case DW_OP_fbreg:
		if (compile_fbreg(k, depth) < 0)
			return -ENOTSUP;
		return op->number ? comp_emit(k, FETCH_OP_ADD_IMM, 0, 0, (int64_t)op->number) : 0;
	case DW_OP_call_frame_cfa:
		return comp_cfa(k, depth);
	case DW_OP_stack_value:
		*value = true;
		return 0;
	case DW_OP_implicit_value: {
		Dwarf_Block b;
		Dwarf_Attribute at;
		uint64_t v = 0;

		if (op->number > 8)
			return comp_cannot(k, "its value is an implicit constant of more than 8 bytes");
		if (!k->attr || dwarf_getlocation_attr(k->attr, op, &at) != 0 ||
		    dwarf_formblock(&at, &b) != 0)
			return comp_cannot(k, "its implicit value cannot be decoded");
		memcpy(&v, b.data, b.length < 8 ? b.length : 8);
		*value = true;
		return comp_emit(k, FETCH_OP_IMM, 0, 0, (int64_t)v);
	}
	case DW_OP_entry_value:
	case DW_OP_GNU_entry_value:
		return compile_entry_value(k, op);
	case DW_OP_implicit_pointer:
	case DW_OP_GNU_implicit_pointer:
		return comp_cannot(k, "it is an implicit pointer (the object it points to was "
				      "optimized away)");
	case DW_OP_form_tls_address:
	case DW_OP_GNU_push_tls_address:
		return comp_cannot(k, "it is a thread-local variable, which ptap does not read yet");
	case DW_OP_addrx:
	case DW_OP_GNU_addr_index:
	case DW_OP_constx:
	case DW_OP_GNU_const_index: {
		/* DWARF 5 (clang): the address is in .debug_addr */
		Dwarf_Attribute at;
		Dwarf_Addr addr;

		if (!k->attr || dwarf_getlocation_attr(k->attr, op, &at) != 0 ||
		    dwarf_formaddr(&at, &addr) != 0)
			return comp_cannot(k, "its address index cannot be resolved");
		if (a == DW_OP_constx || a == DW_OP_GNU_const_index)
			return comp_emit(k, FETCH_OP_IMM, 0, 0, (int64_t)addr);
		return comp_emit(k, FETCH_OP_ADDR, 0, 0, (int64_t)(addr + dbg__bias(k->c->dbg)));
	}
	case DW_OP_GNU_parameter_ref:
		return comp_cannot(k, "it is a parameter the caller's value of which is not recorded");
	}
	char why[96];

	snprintf(why, sizeof(why), "its location uses DWARF operation 0x%x, which ptap does not "
		 "evaluate", a);
	return comp_cannot(k, why);
}

static int compile_ops(struct comp *k, const Dwarf_Op *ops, size_t nops, int depth)
{
	size_t start = 0;
	bool value = false;
	uint32_t piece_off = 0;

	if (depth > 4)
		return comp_cannot(k, "its location is nested too deeply");
	for (size_t i = 0; i < nops; i++) {
		if (ops[i].atom == DW_OP_piece) {
			if (i == start)
				return comp_cannot(k, "part of it is optimized out at this address");
			if (ops[i].number > 8 || ops[i].number == 0)
				return comp_cannot(k, "it has a piece larger than 8 bytes");
			if (piece_off + ops[i].number > FETCH_MAX_BLOB)
				return comp_cannot(k, "it is too large");
			if (comp_emit(k, FETCH_OP_PIECE, (uint8_t)ops[i].number, value ? 0 : 1,
				      piece_off) < 0)
				return -E2BIG;
			piece_off += (uint32_t)ops[i].number;
			k->prog->composite = true;
			start = i + 1;
			value = false;
			continue;
		}
		if (ops[i].atom == DW_OP_bit_piece)
			return comp_cannot(k, "it is split into bit pieces");
		int r = compile_op(k, &ops[i], depth, &value);

		if (r < 0)
			return r;
	}
	if (k->prog->composite) {
		if (start != nops)
			return comp_cannot(k, "its location mixes pieces and a whole value");
		k->state = LOC_PIECES;
		k->pieces_len = piece_off;
		return 0;
	}
	if (depth == 0)
		k->state = value ? LOC_VALUE : LOC_MEM;
	return 0;
}

/* The variable's location at the site.  0, or -errno (ERR says why). */
int comp_location(struct comp *k, const struct var_info *cv)
{
	struct var_info vcopy = *cv, *v = &vcopy;
	Dwarf_Attribute a;
	Dwarf_Op *expr;
	size_t len;
	int n;

	if (dwarf_attr_integrate(&v->die, DW_AT_const_value, &a)) {
		uint64_t uv;

		if (die_const_value(&a, &uv) < 0)
			return comp_cannot(k, "its constant value is a block ptap does not read");
		k->state = LOC_VALUE;
		return comp_emit(k, FETCH_OP_IMM, 0, 0, (int64_t)uv);
	}
	if (!dwarf_attr(&v->die, DW_AT_location, &a) &&
	    !dwarf_attr_integrate(&v->die, DW_AT_location, &a))
		goto optimized;
	n = dwarf_getlocation_addr(&a, var_site_pc(k->c), &expr, &len, 1);
	if (n < 0)
		return comp_cannot(k, "its location cannot be decoded");
	if (n == 0 || len == 0)
		goto optimized;
	k->attr = &a;
	n = compile_ops(k, expr, len, 0);
	k->attr = NULL;
	return n;
optimized:
	return ptap_err_set(k->err, k->pos, -ENOENT,
			    "cannot fetch '%s' at %s: optimized out at this address (`ptap vars` "
			    "lists what can be fetched there)", k->text, k->c->site->where);
}
