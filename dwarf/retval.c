/* dwarf/retval.c: what a return probe reads -- the address of the return
 * address at its site, and $retval in the registers the SysV x86-64 ABI
 * returns it in, typed from DWARF. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <dwarf.h>

#include "arch/arch.h"
#include "dwarf/comp_int.h"
#include "dwarf/die_int.h"
#include "dwarf/points.h"
#include "dwarf/typename_int.h"
#include "dwarf/var_int.h"
#include "probes/err.h"
#include "probes/spec.h"

int var_compile_ra_slot(const struct var_ctx *c, struct fetch_prog *prog, struct ptap_err *err)
{
	struct comp k = { .c = c, .prog = prog, .err = err, .pos = -1,
			  .text = "the return address" };

	memset(prog, 0, sizeof(*prog));
	prog->type.size = 8;
	/* At the entry the call has just pushed it: the stack pointer points at it. */
	if ((c->site->at_entry && !c->site->after_prologue) || c->site->sp_at_ra)
		return comp_emit(&k, FETCH_OP_REG, 0, ARCH_DWARF_SP, 0);
	if (comp_cfa(&k, 0) < 0)
		return -ENOTSUP;
	return comp_emit(&k, FETCH_OP_ADD_IMM, 0, 0, ARCH_RA_CFA_OFF);
}

enum eb_class { EB_NONE, EB_INT, EB_SSE };

/*
 * The SysV x86-64 classes of the eightbytes of an aggregate of type T at
 * byte BASE: a float or double makes its eightbyte SSE unless something else
 * shares it (INTEGER wins).  False when the aggregate goes in memory
 * (long double, an unaligned member, an offset that is not a constant).
 */
static bool classify(Dwarf_Die *type, Dwarf_Word base, uint8_t cls[2], int depth)
{
	Dwarf_Die t, m, mt;
	Dwarf_Word size, off;

	if (depth > 16 || !die_strip_type(type, &t))
		return false;
	size = die_type_size(&t);
	switch (dwarf_tag(&t)) {
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
	case DW_TAG_class_type:
		if (dwarf_child(&t, &m) != 0)
			return true;
		do {
			Dwarf_Word pos, bits;

			if (dwarf_tag(&m) != DW_TAG_member || dwarf_hasattr(&m, DW_AT_external))
				continue;
			if (die_member_bitpos(&m, &pos, &bits)) {	/* a bitfield: integer bits */
				cls[(base * 8 + pos) / 64 > 1 ? 1 : (base * 8 + pos) / 64] = EB_INT;
				continue;
			}
			if (!die_member_offset(&m, &off) || !die_type(&m, &mt) ||
			    !classify(&mt, base + off, cls, depth + 1))
				return false;
		} while (dwarf_siblingof(&m, &m) == 0);
		return true;
	case DW_TAG_array_type: {
		Dwarf_Die elem;
		Dwarf_Word esize;
		bool sub;
		long n = die_array_count(&t);

		if (!die_array_elem(&t, &elem, &esize, &sub) || n < 0 || !esize)
			return n == 0;
		for (long i = 0; i < n; i++)
			if (!classify(&elem, base + i * esize, cls, depth + 1))
				return false;
		return true;
	}
	default:
		break;
	}
	if (size == 0 || base % size || base + size > 16)
		return false;	/* unaligned, or x87 long double (16 bytes) */
	if (dwarf_tag(&t) == DW_TAG_base_type && die_udata(&t, DW_AT_encoding, 0) == DW_ATE_float) {
		if (size > 8)
			return false;
		if (cls[base / 8] == EB_NONE)
			cls[base / 8] = EB_SSE;
		return true;
	}
	cls[base / 8] = EB_INT;
	if (size > 8)
		cls[1] = EB_INT;	/* __int128 */
	return true;
}

/* A struct returned in registers: its eightbytes, each from the next register of its class. */
static int retval_pieces(struct comp *k, Dwarf_Word size, const uint8_t cls[2])
{
	static const uint16_t int_regs[] = { ARCH_DWARF_RET_INT0, ARCH_DWARF_RET_INT1 };
	static const uint16_t sse_regs[] = { ARCH_DWARF_RET_SSE0, ARCH_DWARF_RET_SSE1 };
	int ni = 0, ns = 0;

	k->prog->composite = true;
	for (Dwarf_Word i = 0; i * 8 < size; i++) {
		uint16_t reg;
		Dwarf_Word len = size - i * 8 > 8 ? 8 : size - i * 8;

		if (cls[i] == EB_NONE)
			continue;
		reg = cls[i] == EB_SSE ? sse_regs[ns++] : int_regs[ni++];
		if (comp_emit(k, FETCH_OP_REG, 0, reg, 0) < 0 ||
		    comp_emit(k, FETCH_OP_PIECE, (uint8_t)len, 0, (int64_t)(i * 8)) < 0)
			return -E2BIG;
	}
	k->state = LOC_PIECES;
	k->pieces_len = (uint32_t)size;
	return 0;
}

bool var_retval_untyped(const struct var_ctx *c)
{
	Dwarf_Die fn = c->site->die->fn, type, t;

	return die_type(&fn, &type) && die_strip_type(&type, &t) &&
	       dwarf_tag(&t) == DW_TAG_unspecified_type;
}

/*
 * A Go function's first result (Go's DWARF lists results as parameters,
 * DW_AT_variable_parameter, "~r0" when unnamed): its type into *TYPE.
 */
/* Go's register ABI on x86-64: integer results in these (DWARF numbers), floats in xmm0-14. */
static const uint16_t go_int_regs[] = { 0 /* rax */, 3 /* rbx */, 2 /* rcx */, 5 /* rdi */,
					4 /* rsi */, 8, 9, 10, 11 };
#define GO_FLOAT_REGS	15

/* Is Go type T (stripped) a float, passed in an xmm register? */
static bool go_is_float(Dwarf_Die *t)
{
	return dwarf_tag(t) == DW_TAG_base_type &&
	       die_udata(t, DW_AT_encoding, 0) == DW_ATE_float;
}

/*
 * Result K of Go function FN (its DW_AT_variable_parameter children, in
 * order): its type, and the first integer register (*IREG) or float
 * register (*FREG) it comes back in, counting those of the results before
 * it (a string two words, a slice three).  0; -ENOENT: no result K; -ERANGE:
 * Go returns them in memory (more than the registers hold).
 */
static int go_result(Dwarf_Die *fn, long k, Dwarf_Die *type, int *ireg, int *freg)
{
	Dwarf_Die child, t;
	Dwarf_Attribute a;
	long i = 0;
	bool var;

	*ireg = *freg = 0;
	if (dwarf_child(fn, &child) != 0)
		return -ENOENT;
	do {
		if (dwarf_tag(&child) != DW_TAG_formal_parameter ||
		    !dwarf_attr(&child, DW_AT_variable_parameter, &a) ||
		    dwarf_formflag(&a, &var) != 0 || !var)
			continue;
		if (!die_type(&child, type) || !die_strip_type(type, &t))
			return -ENOENT;
		if (i++ == k)
			return *ireg < (int)(sizeof(go_int_regs) / sizeof(go_int_regs[0])) &&
			       *freg < GO_FLOAT_REGS ? 0 : -ERANGE;
		if (go_is_float(&t))
			(*freg)++;
		else
			*ireg += (int)((die_type_size(&t) + 7) / 8);
	} while (dwarf_siblingof(&child, &child) == 0);
	return -ENOENT;
}

/*
 * Go's result K of TYPE (T stripped), from the registers it came back in
 * (IREG, FREG: the first): one integer or float register, or a string,
 * slice or other value of integer words assembled from several.
 */
static int go_result_regs(struct comp *k, Dwarf_Die *type, Dwarf_Die *t, int ireg, int freg)
{
	Dwarf_Word size = die_type_size(t), words = (size + 7) / 8, po, lo;
	Dwarf_Die elem;
	bool end;
	char tn[128], why[240];

	if (go_is_float(t) && size <= 8) {
		k->state = LOC_VALUE;
		return comp_emit(k, FETCH_OP_REG, 0, (uint16_t)(ARCH_DWARF_RET_SSE0 + freg), 0);
	}
	if (size <= 8 && (dwarf_tag(t) == DW_TAG_base_type || dwarf_tag(t) == DW_TAG_pointer_type)) {
		k->state = LOC_VALUE;
		return comp_emit(k, FETCH_OP_REG, 0, go_int_regs[ireg], 0);
	}
	if (!die_counted_string(t, &po, &lo) && !die_slice(t, &po, &lo, &end, &elem)) {
		snprintf(why, sizeof(why), "it is %s, which Go returns in registers by its fields; "
			 "ptap reads a Go result that is an integer, pointer, float, string or slice",
			 die_type_name(type, tn, sizeof(tn)));
		return comp_cannot(k, why);
	}
	if (ireg + words > sizeof(go_int_regs) / sizeof(go_int_regs[0]))
		return comp_cannot(k, "Go returns it in memory, which ptap does not read");
	k->prog->composite = true;
	for (Dwarf_Word w = 0; w < words; w++)
		if (comp_emit(k, FETCH_OP_REG, 0, go_int_regs[ireg + w], 0) < 0 ||
		    comp_emit(k, FETCH_OP_PIECE, 8, 0, (int64_t)(w * 8)) < 0)
			return -E2BIG;
	k->state = LOC_PIECES;
	k->pieces_len = (uint32_t)(words * 8);
	return 0;
}

/* A Go function's result K (Go names them ~r0, ~r1, ...): $retval is ~r0. */
static int go_retval(struct comp *k, const struct probe_arg *arg, Dwarf_Die *fn)
{
	Dwarf_Die type, t;
	long n = arg->expr->n;
	int ireg, freg, r = go_result(fn, n, &type, &ireg, &freg);

	if (r == -ENOENT && !n)
		return ptap_err_set(k->err, arg->pos, -EINVAL, "%s returns void: there is no $retval",
				    k->c->site->func);
	if (r == -ENOENT)
		return ptap_err_set(k->err, arg->pos, -EINVAL, "%s has no result ~r%ld", k->c->site->func,
				    n);
	if (r == -ERANGE)
		return comp_cannot(k, "Go returns it in memory, which ptap does not read");
	if (!die_strip_type(&type, &t))
		return comp_cannot(k, "its type is void");
	r = go_result_regs(k, &type, &t, ireg, freg);
	return r < 0 ? r : comp_finish(k, arg, &type);
}

int var_compile_retval(const struct var_ctx *c, const struct probe_arg *arg,
		       struct fetch_prog *prog, struct ptap_err *err)
{
	struct comp k = { .c = c, .prog = prog, .err = err, .pos = arg->pos, .text = arg->text };
	Dwarf_Die fn = c->site->die->fn, type, t;
	bool go = dwarf_srclang(&c->site->die->cu) == DW_LANG_Go;
	Dwarf_Word size;
	int tag, r;

	memset(prog, 0, sizeof(*prog));
	if (go)
		return go_retval(&k, arg, &fn);
	if (arg->expr->n)
		return ptap_err_set(err, arg->pos, -EINVAL, "%s is a Go function's result; %s is "
				    "not a Go function", arg->expr->name, c->site->func);
	if (!die_type(&fn, &type) || !die_strip_type(&type, &t))
		return ptap_err_set(err, arg->pos, -EINVAL, "%s returns void: there is no $retval",
				    c->site->func);
	tag = dwarf_tag(&t);
	size = die_type_size(&t);
	if (tag == DW_TAG_structure_type || tag == DW_TAG_union_type || tag == DW_TAG_class_type) {
		uint8_t cls[2] = { EB_NONE, EB_NONE };

		if (size <= 16 && size > 0 && classify(&t, 0, cls, 0)) {
			r = retval_pieces(&k, size, cls);
		} else {
			/* in memory: the caller's buffer, whose address comes back in rax */
			r = comp_emit(&k, FETCH_OP_REG, 0, ARCH_DWARF_RET_INT0, 0);
			k.state = LOC_MEM;
		}
	} else if (tag == DW_TAG_base_type &&
		   die_udata(&t, DW_AT_encoding, 0) == DW_ATE_float && size <= 8) {
		r = comp_emit(&k, FETCH_OP_REG, 0, ARCH_DWARF_RET_SSE0, 0);
		k.state = LOC_VALUE;
	} else if (tag == DW_TAG_base_type && (size > 8 ||
		   die_udata(&t, DW_AT_encoding, 0) == DW_ATE_complex_float)) {
		char tn[128], why[200];

		snprintf(why, sizeof(why), "it is %s, returned in registers ptap does not read "
			 "(x87 or a pair); a :TYPE reads %%ax as that",
			 die_type_name(&type, tn, sizeof(tn)));
		return comp_cannot(&k, why);
	} else {
		r = comp_emit(&k, FETCH_OP_REG, 0, ARCH_DWARF_RET_INT0, 0);
		k.state = LOC_VALUE;
	}
	return r < 0 ? r : comp_finish(&k, arg, &type);
}
