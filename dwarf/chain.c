/* dwarf/chain.c: the access chain of a variable expression (->m .m [i]
 * [i][j] *), each step moving the compiled location along the variable's
 * DWARF type: member offsets and bitfields, array elements, pointers
 * followed; a C++ reference is what it refers to, as gdb shows it. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <dwarf.h>

#include "dwarf/comp_int.h"
#include "dwarf/die_int.h"
#include "dwarf/typename_int.h"
#include "probes/err.h"
#include "probes/spec.h"

/* Make the top of the stack the value (load it when it is in memory). */
int comp_to_value(struct comp *k, Dwarf_Word size)
{
	if (k->state == LOC_MEM) {
		k->state = LOC_VALUE;
		return comp_emit(k, FETCH_OP_DEREF, (uint8_t)size, 0, 0);
	}
	if (k->state == LOC_PIECES)
		return comp_cannot(k, "it is assembled from register pieces, and a pointer held so "
				      "cannot be followed");
	return 0;
}

static int step_member(struct comp *k, Dwarf_Die *type, const struct arg_access *acc)
{
	Dwarf_Die t, m;
	Dwarf_Word off, base, pos, bits;
	char members[200], tn[128];
	int r;

	if (!die_strip_type(type, &t))
		return comp_cannot(k, "void has no members");
	if (acc->kind == ACC_ARROW) {
		if (dwarf_tag(&t) != DW_TAG_pointer_type)
			return ptap_err_set(k->err, k->pos, -EINVAL,
					    "'%s': '->%s' needs a pointer, but it is %s; use '.%s'",
					    k->text, acc->member, die_type_name(type, tn, sizeof(tn)),
					    acc->member);
		if (comp_to_value(k, 8) < 0)
			return -ENOTSUP;
		if (!die_type(&t, type) || !die_strip_type(type, &t))
			return comp_cannot(k, "it points to void");
		k->state = LOC_MEM;
	} else if (dwarf_tag(&t) == DW_TAG_pointer_type) {
		return ptap_err_set(k->err, k->pos, -EINVAL,
				    "'%s': '.%s' on a pointer (%s); use '->%s'", k->text,
				    acc->member, die_type_name(type, tn, sizeof(tn)), acc->member);
	}
	if (dwarf_tag(&t) != DW_TAG_structure_type && dwarf_tag(&t) != DW_TAG_union_type &&
	    dwarf_tag(&t) != DW_TAG_class_type)
		return ptap_err_set(k->err, k->pos, -EINVAL, "'%s': %s has no member '%s'",
				    k->text, die_type_name(type, tn, sizeof(tn)), acc->member);
	r = die_find_member(&t, acc->member, &m, &base);
	if (r == -ENOENT) {
		die_list_members(&t, members, sizeof(members));
		return ptap_err_set(k->err, k->pos, -ENOENT,
				    "'%s': %s has no member '%s'; its members: %s", k->text,
				    die_type_name(type, tn, sizeof(tn)), acc->member, members);
	}
	if (r < 0 || !die_member_offset(&m, &off))
		return comp_cannot(k, "the member's offset is not a constant");
	if (k->bitfield)
		return comp_cannot(k, "a bitfield has no members");
	off += base;
	if (die_member_bitpos(&m, &pos, &bits)) {
		uint32_t boff;

		/* POS counts from the start of the struct holding the member (an
		 * anonymous one is BASE bytes in): the container is at POS / 8. */
		if (!bitfield_container(pos + base * 8, bits, 0, &boff, &k->bf_size, &k->bf_off))
			return comp_cannot(k, "the bitfield spans more than 8 bytes");
		off = boff;
		k->bitfield = true;
		k->bf_bits = (uint8_t)bits;
	}
	if (!die_type(&m, type))
		return comp_cannot(k, "its member has no type");
	if (k->state == LOC_MEM)
		return off ? comp_emit(k, FETCH_OP_ADD_IMM, 0, 0, (int64_t)off) : 0;
	if (k->state == LOC_VALUE) {
		/* A small struct held in a register: shift the member down. */
		if (off && (comp_emit(k, FETCH_OP_IMM, 0, 0, (int64_t)off * 8) < 0 ||
			    comp_emit(k, FETCH_OP_ALU, FETCH_ALU_SHR, 0, 0) < 0))
			return -E2BIG;
		return 0;
	}
	/* Held in pieces: the member's bytes are part of the assembly. */
	if (off + die_type_size(type) > k->pieces_len - k->prog->blob_off && !k->bitfield)
		return comp_cannot(k, "the member lies outside the pieces it is held in");
	k->prog->blob_off += (uint16_t)off;
	return 0;
}

static int step_index(struct comp *k, Dwarf_Die *type, const struct arg_access *acc)
{
	Dwarf_Die t;
	Dwarf_Word esize;
	char tn[128];

	if (!die_strip_type(type, &t))
		return comp_cannot(k, "void cannot be indexed");
	if (dwarf_tag(&t) == DW_TAG_array_type) {
		long count = die_array_count(&t);
		bool sub;

		if (count >= 0 && (acc->index < 0 || acc->index >= count))
			return ptap_err_set(k->err, k->pos, -EINVAL,
					    "'%s': index %ld is outside %s", k->text, acc->index,
					    die_type_name(type, tn, sizeof(tn)));
		if (k->state != LOC_MEM && k->state != LOC_PIECES)
			return comp_cannot(k, "the array is not in memory at this address");
		if (!die_array_elem(&t, type, &esize, &sub))
			return comp_cannot(k, "the array has no element type");
		if (sub) {
			/* a[i] of a 2-D array: the rest of the dimensions, as an array */
			return comp_cannot(k, "index every dimension of a multi-dimensional array");
		}
		if (k->state == LOC_PIECES) {
			if ((acc->index + 1) * (long)esize > (long)(k->pieces_len - k->prog->blob_off))
				return comp_cannot(k, "the element lies outside the pieces it is held in");
			k->prog->blob_off += (uint16_t)(acc->index * (long)esize);
			return 0;
		}
	} else if (dwarf_tag(&t) == DW_TAG_pointer_type) {
		if (comp_to_value(k, 8) < 0)
			return -ENOTSUP;
		if (!die_type(&t, type))
			return comp_cannot(k, "it points to void");
		esize = die_type_size(type);
		if (!esize && acc->index)
			return comp_cannot(k, "the size of what it points to is unknown");
		k->state = LOC_MEM;
	} else {
		return ptap_err_set(k->err, k->pos, -EINVAL,
				    "'%s': [%ld] needs an array or a pointer, but it is %s", k->text,
				    acc->index, die_type_name(type, tn, sizeof(tn)));
	}
	int64_t off;

	if (__builtin_mul_overflow(acc->index, (int64_t)esize, &off))
		return ptap_err_set(k->err, k->pos, -EINVAL, "'%s': index %ld is too large",
				    k->text, acc->index);
	return off ? comp_emit(k, FETCH_OP_ADD_IMM, 0, 0, off) : 0;
}

/* 2-D arrays: a[i][j] as one step with both indexes. */
static int step_index2(struct comp *k, Dwarf_Die *type, long i, long j)
{
	long dims[ARRAY_MAX_DIMS];
	Dwarf_Die t, elem;
	int nd;

	if (!die_strip_type(type, &t) || dwarf_tag(&t) != DW_TAG_array_type || !die_type(&t, &elem))
		return 1;
	nd = die_array_dims(&t, dims, ARRAY_MAX_DIMS);
	if (nd != 2)
		return 1;
	if (dims[1] < 0)
		return comp_cannot(k, "the array's row length is not a constant");
	if (i < 0 || j < 0 || (dims[0] >= 0 && i >= dims[0]) || j >= dims[1])
		return ptap_err_set(k->err, k->pos, -EINVAL, "'%s': index [%ld][%ld] is outside "
				    "[%ld][%ld]", k->text, i, j, dims[0], dims[1]);
	if (k->state != LOC_MEM)
		return comp_cannot(k, "the array is not in memory at this address");
	*type = elem;
	long off = (i * dims[1] + j) * (long)die_type_size(&elem);

	return off ? comp_emit(k, FETCH_OP_ADD_IMM, 0, 0, off) : 0;
}

static int step_deref(struct comp *k, Dwarf_Die *type)
{
	Dwarf_Die t;
	char tn[128];

	if (!die_strip_type(type, &t) || dwarf_tag(&t) != DW_TAG_pointer_type)
		return ptap_err_set(k->err, k->pos, -EINVAL, "'%s': '*' needs a pointer, but it "
					"is %s", k->text, die_type_name(type, tn, sizeof(tn)));
	if (comp_to_value(k, 8) < 0)
		return -ENOTSUP;
	if (!die_type(&t, type))
		return comp_cannot(k, "it points to void");
	k->state = LOC_MEM;
	return 0;
}

int comp_follow_refs(struct comp *k, Dwarf_Die *type)
{
	Dwarf_Die t;

	while (die_strip_type(type, &t) && (dwarf_tag(&t) == DW_TAG_reference_type ||
					    dwarf_tag(&t) == DW_TAG_rvalue_reference_type)) {
		if (k->bitfield)
			return 0;
		if (comp_to_value(k, 8) < 0)
			return -ENOTSUP;
		if (!die_type(&t, type))
			return comp_cannot(k, "it refers to void");
		k->state = LOC_MEM;
	}
	return 0;
}

int comp_chain(struct comp *k, Dwarf_Die *type, const struct arg_expr *e)
{
	int r;

	for (int i = 0; i < e->nchain; i++) {
		const struct arg_access *acc = &e->chain[i];

		if ((r = comp_follow_refs(k, type)) < 0)
			return r;

		if (k->bitfield)
			return comp_cannot(k, "a bitfield has no members or elements");
		if (acc->kind == ACC_INDEX && i + 1 < e->nchain &&
		    e->chain[i + 1].kind == ACC_INDEX) {
			r = step_index2(k, type, acc->index, e->chain[i + 1].index);
			if (r < 0)
				return r;
			if (r == 0) {
				i++;
				continue;
			}
		}
		r = acc->kind == ACC_INDEX ? step_index(k, type, acc) : step_member(k, type, acc);
		if (r < 0)
			return r;
	}
	for (int i = 0; i < e->nderef; i++) {
		if (k->bitfield)
			return comp_cannot(k, "a bitfield cannot be dereferenced");
		if ((r = comp_follow_refs(k, type)) < 0 || (r = step_deref(k, type)) < 0)
			return r;
	}
	return comp_follow_refs(k, type);
}
