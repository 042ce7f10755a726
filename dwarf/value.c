/* dwarf/value.c: the end of a variable's compilation -- the load of its
 * value and how it prints, chosen by its last DWARF type or by the
 * argument's :TYPE: a bitfield, a string (:string, char pointers, char
 * arrays, the string types of C++, Rust and Go), a struct or array printed
 * whole, a scalar. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <dwarf.h>

#include "dwarf/comp_int.h"
#include "dwarf/die_int.h"
#include "dwarf/typename_int.h"
#include "probes/err.h"
#include "probes/spec.h"

/* ARG's :string on a value that is no string (TN: its C type). */
static int err_not_string(struct comp *k, const struct probe_arg *arg, const char *tn)
{
	return ptap_err_set(k->err, arg->pos, -EINVAL,
			    "'%s' is %s, not a string or a pointer to one: :string cannot print "
			    "it", k->text, tn);
}

/* A bitfield member of TYPE: its container loaded, signed as TYPE (or UT) says. */
static int finish_bitfield(struct comp *k, const struct fetch_type *ut, Dwarf_Die *type)
{
	struct fetch_type *ft = &k->prog->type;
	struct fetch_type s;

	memset(ft, 0, sizeof(*ft));
	ft->kind = FT_BITFIELD;
	ft->size = k->bf_size;
	ft->bits = k->bf_bits;
	ft->bit_off = k->bf_off;
	if (comp_scalar_type(k->c, type, &s) && (s.kind == FT_SIGNED || (s.flags & FTF_SIGNED)))
		ft->flags |= FTF_SIGNED;
	if (ut && ut->kind == FT_UNSIGNED)
		ft->flags &= ~FTF_SIGNED;
	if (ut && ut->kind == FT_SIGNED)
		ft->flags |= FTF_SIGNED;
	if (k->state == LOC_MEM)
		return comp_emit(k, FETCH_OP_DEREF, k->bf_size, 0, 0);
	return 0;
}

/*
 * The pointer and length words of struct T (a string or slice type) at
 * PTR_OFF and LEN_OFF, into K's type: both within T, and where K's value is
 * (memory, or the pieces assembled).  0, or -ENOTSUP with K's error.
 */
static int place_words(struct comp *k, Dwarf_Die *t, Dwarf_Word ptr_off, Dwarf_Word len_off)
{
	struct fetch_type *ft = &k->prog->type;
	Dwarf_Word end = (ptr_off > len_off ? ptr_off : len_off) + 8;

	ft->ptr_off = (uint16_t)ptr_off;
	ft->len_off = (uint16_t)len_off;
	if (end > die_type_size(t) || end > UINT16_MAX)
		return comp_cannot(k, "its pointer and length are not within it");
	if (k->state == LOC_PIECES && end > k->pieces_len - k->prog->blob_off)
		return comp_cannot(k, "its pointer and length are not both in the pieces it is "
				      "held in");
	if (k->state == LOC_VALUE)
		return comp_cannot(k, "it is held in a register but larger than one");
	return 0;
}

/* A string type of C++, Rust or Go (T stripped): its bytes, bounded by its length. */
static int finish_counted(struct comp *k, Dwarf_Die *t, Dwarf_Word ptr_off, Dwarf_Word len_off)
{
	struct fetch_type *ft = &k->prog->type;

	memset(ft, 0, sizeof(*ft));
	ft->kind = FT_STRN;
	ft->size = 8;
	return place_words(k, t, ptr_off, len_off);
}

/* A slice type of Go, Rust or C++ (T stripped): its elements, as many as ptap prints. */
static int finish_slice(struct comp *k, Dwarf_Die *t, Dwarf_Word ptr_off, Dwarf_Word len_off,
			bool end, Dwarf_Die *elem)
{
	int r = comp_slice_desc(k->c, elem, &k->prog->type);

	if (r < 0)
		return r;
	if (end)
		k->prog->type.flags |= FTF_END;
	return place_words(k, t, ptr_off, len_off);
}

/* :string (UT) on T: a pointer's target, a char array in place, an address-sized integer. */
static int finish_string(struct comp *k, const struct probe_arg *arg,
			 const struct fetch_type *ut, Dwarf_Die *t, const char *tn)
{
	struct fetch_type *ft = &k->prog->type;
	int tag = dwarf_tag(t);
	Dwarf_Word po, lo;

	if (die_counted_string(t, &po, &lo))
		return finish_counted(k, t, po, lo);
	if (tag == DW_TAG_array_type && die_is_char_array(t)) {
		if (k->state != LOC_MEM && k->state != LOC_PIECES)
			return comp_cannot(k, "the array is not in memory");
		*ft = *ut;
		if (k->state == LOC_PIECES) {
			ft->kind = FT_CHARS;
			ft->len = k->pieces_len - k->prog->blob_off;
		}
		return 0;
	}
	if (tag == DW_TAG_pointer_type ||
	    (tag == DW_TAG_base_type && die_type_size(t) == 8 &&
	     die_udata(t, DW_AT_encoding, 0) != DW_ATE_float)) {
		*ft = *ut;
		return comp_to_value(k, 8);
	}
	return err_not_string(k, arg, tn);
}

/* A perf :TYPE (UT, not a string) on a scalar T: load that many bytes. */
static int finish_as_type(struct comp *k, const struct probe_arg *arg,
			  const struct fetch_type *ut, Dwarf_Die *t, const char *tn)
{
	struct fetch_type *ft = &k->prog->type;
	int tag = dwarf_tag(t);
	Dwarf_Word dsize, want;

	if (tag == DW_TAG_structure_type || tag == DW_TAG_union_type ||
	    tag == DW_TAG_array_type)
		return ptap_err_set(k->err, arg->pos, -EINVAL,
				    "'%s' is %s: a :%s cannot print it; give a member or an "
				    "element", k->text, tn, "TYPE");
	*ft = *ut;
	if (k->state == LOC_PIECES)	/* read from the assembled bytes */
		return 0;
	/* A TYPE wider than the variable: its own bytes, zero-extended,
	 * never the memory after it. */
	dsize = die_type_size(t);
	want = ut->size ? ut->size : 8;
	if (dsize && dsize < want && (dsize == 1 || dsize == 2 || dsize == 4)) {
		if (k->state == LOC_MEM)
			return comp_to_value(k, dsize);
		if (comp_emit(k, FETCH_OP_IMM, 0, 0, (int64_t)((1ULL << (dsize * 8)) - 1)) < 0)
			return -E2BIG;
		return comp_emit(k, FETCH_OP_ALU, FETCH_ALU_AND, 0, 0);
	}
	return comp_to_value(k, want);
}

/* A char array T printed as the characters it holds. */
static int finish_char_array(struct comp *k, Dwarf_Die *t)
{
	struct fetch_type *ft = &k->prog->type;

	memset(ft, 0, sizeof(*ft));
	ft->kind = FT_CHARS;
	/* unknown length (a flexible array member): a C string read in place */
	ft->len = die_array_count(t) >= 0 ? (uint32_t)die_type_size(t) : UINT32_MAX;
	if (k->state == LOC_PIECES) {
		if (ft->len > k->pieces_len - k->prog->blob_off)
			ft->len = k->pieces_len - k->prog->blob_off;
	} else if (k->state != LOC_MEM) {
		return comp_cannot(k, "the array is not in memory");
	}
	return 0;
}

/* A struct, union, class or array T (TAG) printed whole. */
static int finish_aggregate(struct comp *k, Dwarf_Die *t, int tag)
{
	struct fetch_type *ft = &k->prog->type;
	int r = tag == DW_TAG_array_type ? comp_array_desc(k->c, t, ft) :
					   comp_struct_desc(k->c, t, ft);

	if (r == -ENOTSUP)
		return comp_cannot(k, "ptap prints arrays of scalars with a known length whole; "
				      "give an element");
	if (r < 0)
		return r;
	if (k->state == LOC_VALUE) {
		/* a small aggregate in a register: its bytes into the buffer */
		if (ft->len > 8)
			return comp_cannot(k, "it is held in a register but larger than one");
		k->prog->composite = true;
		return comp_emit(k, FETCH_OP_PIECE, (uint8_t)ft->len, 0, 0);
	}
	if (k->state == LOC_PIECES && k->pieces_len - k->prog->blob_off < ft->len)
		ft->len = k->pieces_len - k->prog->blob_off;
	return 0;
}

/* A scalar of TYPE (TN: its C spelling), printed as DWARF says. */
static int finish_scalar(struct comp *k, Dwarf_Die *type, const char *tn)
{
	struct fetch_type *ft = &k->prog->type;

	if (!comp_scalar_type(k->c, type, ft)) {
		char why[320];

		snprintf(why, sizeof(why), "ptap cannot print its type, %s (long double, complex, "
			 "decimal float, function); a :TYPE reads its bytes as that", tn);
		return comp_cannot(k, why);
	}
	if (k->state == LOC_PIECES)
		return 0;
	return comp_to_value(k, ft->size);
}

/* No :TYPE: TYPE (T stripped) prints as DWARF says. */
static int finish_dwarf(struct comp *k, Dwarf_Die *type, Dwarf_Die *t, const char *tn)
{
	struct fetch_type *ft = &k->prog->type;
	int tag = dwarf_tag(t);
	Dwarf_Die pointee, elem;
	Dwarf_Word po, lo;
	bool end;

	if (tag == DW_TAG_pointer_type && die_type(t, &pointee) && die_is_char(&pointee)) {
		memset(ft, 0, sizeof(*ft));
		ft->kind = FT_STRING;
		return comp_to_value(k, 8);
	}
	if (tag == DW_TAG_array_type && die_is_char_array(t))
		return finish_char_array(k, t);
	if (die_counted_string(t, &po, &lo))
		return finish_counted(k, t, po, lo);
	/* (elements of no size, or of more than 255 bytes: the struct, as before) */
	if (die_slice(t, &po, &lo, &end, &elem) && die_type_size(&elem) &&
	    die_type_size(&elem) <= UINT8_MAX)
		return finish_slice(k, t, po, lo, end, &elem);
	if (tag == DW_TAG_structure_type || tag == DW_TAG_union_type || tag == DW_TAG_class_type ||
	    tag == DW_TAG_array_type)
		return finish_aggregate(k, t, tag);
	return finish_scalar(k, type, tn);
}

int comp_finish(struct comp *k, const struct probe_arg *arg, Dwarf_Die *type)
{
	const struct fetch_type *ut = arg->has_type ? &arg->type : NULL;
	bool string = ut && (ut->kind == FT_STRING || ut->kind == FT_USTRING);
	Dwarf_Die t;
	char tn[128];

	if (!die_strip_type(type, &t))
		return ptap_err_set(k->err, k->pos, -EINVAL, "'%s' is void", k->text);
	die_type_name(type, tn, sizeof(tn));
	if (k->bitfield && string)
		return err_not_string(k, arg, tn);
	if (k->bitfield)
		return finish_bitfield(k, ut, type);
	if (string)
		return finish_string(k, arg, ut, &t, tn);
	if (ut)
		return finish_as_type(k, arg, ut, &t, tn);
	return finish_dwarf(k, type, &t, tn);
}
