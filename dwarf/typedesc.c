/* dwarf/typedesc.c: how a value of a DWARF type prints -- the fetch_type
 * of a scalar (integer, bool, float, pointer, enum with its enumerators)
 * and the type descriptors of a struct, union or array printed whole,
 * allocated in the probe's tpool. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <dwarf.h>

#include "dwarf/comp_int.h"
#include "dwarf/die_int.h"

#define ARRAY_MAX_ELEMS		64	/* an array printed whole: at most this many */

static int enum_desc(const struct var_ctx *c, Dwarf_Die *t, struct fetch_type *ft)
{
	Dwarf_Die e;
	unsigned int n = 0;
	struct type_desc *d = tpool_alloc(c->pool, sizeof(*d));
	struct type_enumerator *en;
	bool neg = false;

	if (!d)
		return -ENOMEM;
	n = die_count_children(t, DW_TAG_enumerator);
	/* Signed when the underlying type is (DWARF 3+ says which), else when
	 * an enumerator is written as a negative number (DW_FORM_sdata < 0). */
	Dwarf_Die under;

	if (die_type(t, &under) && die_strip_type(&under, &under)) {
		Dwarf_Word enc = die_udata(&under, DW_AT_encoding, 0);

		neg = enc == DW_ATE_signed || enc == DW_ATE_signed_char;
	}
	en = tpool_alloc(c->pool, (n ? n : 1) * sizeof(*en));
	if (!en)
		return -ENOMEM;
	n = 0;
	if (dwarf_child(t, &e) == 0)
		do {
			Dwarf_Attribute a;
			uint64_t v = 0;

			if (dwarf_tag(&e) != DW_TAG_enumerator)
				continue;
			if (dwarf_attr(&e, DW_AT_const_value, &a) && die_const_value(&a, &v) == 0 &&
			    dwarf_whatform(&a) == DW_FORM_sdata && (int64_t)v < 0)
				neg = true;
			en[n].value = (int64_t)v;
			en[n].name = tpool_strdup(c->pool, dwarf_diename(&e) ? dwarf_diename(&e) : "?");
			n++;
		} while (dwarf_siblingof(&e, &e) == 0);
	d->name = tpool_strdup(c->pool, dwarf_diename(t) ? dwarf_diename(t) : "enum");
	d->n = n;
	d->enums = en;
	ft->kind = FT_ENUM;
	ft->size = (uint8_t)die_udata(t, DW_AT_byte_size, 4);
	ft->desc = d;
	if (neg)
		ft->flags |= FTF_SIGNED;
	return 0;
}

bool comp_scalar_type(const struct var_ctx *c, Dwarf_Die *type, struct fetch_type *ft)
{
	Dwarf_Die t;

	memset(ft, 0, sizeof(*ft));
	if (!die_strip_type(type, &t))
		return false;
	switch (dwarf_tag(&t)) {
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
		ft->kind = FT_HEX;
		ft->size = 8;
		return true;
	case DW_TAG_enumeration_type:
		return enum_desc(c, &t, ft) == 0;
	case DW_TAG_base_type:
		break;
	default:
		return false;
	}
	Dwarf_Word size = die_udata(&t, DW_AT_byte_size, 0);

	if (size != 1 && size != 2 && size != 4 && size != 8)
		return false;
	ft->size = (uint8_t)size;
	switch (die_udata(&t, DW_AT_encoding, 0)) {
	case DW_ATE_boolean:
		ft->kind = FT_BOOL;
		break;
	case DW_ATE_float:
		if (size != 4 && size != 8)
			return false;
		ft->kind = FT_FLOAT;
		break;
	case DW_ATE_signed:
	case DW_ATE_signed_char:
		ft->kind = FT_SIGNED;
		break;
	case DW_ATE_unsigned:
	case DW_ATE_unsigned_char:
	case DW_ATE_UTF:
		ft->kind = FT_UNSIGNED;
		break;
	default:
		return false;	/* complex, decimal float, ...: not printed as an integer */
	}
	return true;
}

/* Describe struct/union T's members, one level deep. */
int comp_struct_desc(const struct var_ctx *c, Dwarf_Die *t, struct fetch_type *ft)
{
	struct type_desc *d = tpool_alloc(c->pool, sizeof(*d));
	struct type_member *mem;
	Dwarf_Die m;
	unsigned int n = 0;
	Dwarf_Word len = die_udata(t, DW_AT_byte_size, 0);
	char name[160];

	if (!d)
		return -ENOMEM;
	n = die_count_children(t, DW_TAG_member);
	mem = tpool_alloc(c->pool, (n ? n : 1) * sizeof(*mem));
	if (!mem)
		return -ENOMEM;
	n = 0;
	if (dwarf_child(t, &m) == 0)
		do {
			struct type_member *x = &mem[n];
			Dwarf_Die mt, st;
			Dwarf_Word pos, bits;

			if (dwarf_tag(&m) != DW_TAG_member)
				continue;
			x->name = tpool_strdup(c->pool, dwarf_diename(&m) ? dwarf_diename(&m) : "");
			Dwarf_Word moff;

			if (!die_member_offset(&m, &moff)) {
				x->type.kind = FT_OPAQUE;	/* offset unknown: never guessed */
				n++;
				continue;
			}
			x->off = (uint32_t)moff;
			if (!die_type(&m, &mt) || !die_strip_type(&mt, &st)) {
				x->type.kind = FT_OPAQUE;
			} else if (die_member_bitpos(&m, &pos, &bits)) {
				uint8_t size, shift;
				uint32_t off;
				struct fetch_type s;

				if (!bitfield_container(pos, bits, len, &off, &size, &shift)) {
					x->type.kind = FT_OPAQUE;
					n++;
					continue;
				}
				x->off = off;
				x->type.kind = FT_BITFIELD;
				x->type.size = size;
				x->type.bits = (uint8_t)bits;
				x->type.bit_off = shift;
				if (comp_scalar_type(c, &mt, &s) &&
				    (s.kind == FT_SIGNED || (s.flags & FTF_SIGNED)))
					x->type.flags |= FTF_SIGNED;
			} else if (dwarf_tag(&st) == DW_TAG_array_type && die_is_char_array(&st) &&
				   die_array_count(&st) >= 0) {
				x->type.kind = FT_CHARS;
				x->type.len = (uint32_t)die_type_size(&st);
			} else if (!comp_scalar_type(c, &mt, &x->type)) {
				x->type.kind = FT_OPAQUE;
			}
			n++;
		} while (dwarf_siblingof(&m, &m) == 0);
	snprintf(name, sizeof(name), "%s %s",
		 dwarf_tag(t) == DW_TAG_union_type ? "union" : "struct",
		 dwarf_diename(t) ? dwarf_diename(t) : "{...}");
	d->name = tpool_strdup(c->pool, name);
	d->n = n;
	d->members = mem;
	ft->kind = FT_STRUCT;
	ft->len = (uint32_t)(len < FETCH_MAX_BLOB ? len : FETCH_MAX_BLOB);
	ft->desc = d;
	return 0;
}

/*
 * COUNT elements of type ELEM, ESIZE bytes each, as a struct of members
 * "[0]", "[1]", ... (a scalar each, or {...}) into FT.  0 or -ENOMEM.
 */
static int elems_desc(const struct var_ctx *c, Dwarf_Die *elem, Dwarf_Word esize, long count,
		      struct fetch_type *ft)
{
	struct type_desc *d = tpool_alloc(c->pool, sizeof(*d));
	struct type_member *mem = tpool_alloc(c->pool, (count ? count : 1) * sizeof(*mem));
	struct fetch_type et;
	char name[32];

	if (!d || !mem)
		return -ENOMEM;
	if (!comp_scalar_type(c, elem, &et))
		et = (struct fetch_type){ .kind = FT_OPAQUE };
	for (long i = 0; i < count; i++) {
		snprintf(name, sizeof(name), "[%ld]", i);
		mem[i].name = tpool_strdup(c->pool, name);
		if (!mem[i].name)
			return -ENOMEM;
		mem[i].off = (uint32_t)(i * esize);
		mem[i].type = et;
	}
	d->name = "array";
	d->n = (unsigned int)count;
	d->members = mem;
	memset(ft, 0, sizeof(*ft));
	ft->kind = FT_STRUCT;
	ft->len = (uint32_t)(count * esize);
	ft->desc = d;
	return 0;
}

/* An array of scalars printed whole: a struct of members "[0]", "[1]", ... */
int comp_array_desc(const struct var_ctx *c, Dwarf_Die *t, struct fetch_type *ft)
{
	Dwarf_Die elem;
	Dwarf_Word esize;
	long count = die_array_count(t);
	bool sub;

	if (!die_array_elem(t, &elem, &esize, &sub))
		return -ENOMEM;
	if (count < 0 || sub || !esize)
		return -ENOTSUP;
	if (count > ARRAY_MAX_ELEMS)
		count = ARRAY_MAX_ELEMS;
	return elems_desc(c, &elem, esize, count, ft);
}

int comp_slice_desc(const struct var_ctx *c, Dwarf_Die *elem, struct fetch_type *ft)
{
	Dwarf_Word esize = die_type_size(elem);
	long count = ARRAY_MAX_ELEMS;
	int r;

	if (!esize || esize > UINT8_MAX)
		return -ENOTSUP;
	if (count > (long)(FETCH_MAX_BLOB / esize))
		count = (long)(FETCH_MAX_BLOB / esize);
	r = elems_desc(c, elem, esize, count, ft);
	if (r < 0)
		return r;
	ft->kind = FT_SLICE;
	ft->size = (uint8_t)esize;
	ft->len = (uint32_t)count;	/* elements */
	return 0;
}
