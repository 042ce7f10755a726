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
static bool go_result_type(Dwarf_Die *fn, Dwarf_Die *type)
{
	Dwarf_Die child;
	Dwarf_Attribute a;
	bool var;

	if (dwarf_child(fn, &child) != 0)
		return false;
	do {
		if (dwarf_tag(&child) == DW_TAG_formal_parameter &&
		    dwarf_attr(&child, DW_AT_variable_parameter, &a) &&
		    dwarf_formflag(&a, &var) == 0 && var)
			return die_type(&child, type);
	} while (dwarf_siblingof(&child, &child) == 0);
	return false;
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
	if ((!die_type(&fn, &type) && !(go && go_result_type(&fn, &type))) ||
	    !die_strip_type(&type, &t))
		return ptap_err_set(err, arg->pos, -EINVAL, "%s returns void: there is no $retval",
				    c->site->func);
	tag = dwarf_tag(&t);
	size = die_type_size(&t);
	/* Go's register ABI: the first integer result in rax, the first float in xmm0, as here */
	if (go && (size > 8 || (tag != DW_TAG_base_type && tag != DW_TAG_pointer_type))) {
		char tn[128], why[200];

		snprintf(why, sizeof(why), "its first result is %s, which Go returns in several "
			 "registers; ptap reads a Go $retval that is one integer, pointer or float",
			 die_type_name(&type, tn, sizeof(tn)));
		return comp_cannot(&k, why);
	}
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
