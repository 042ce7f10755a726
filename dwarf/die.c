/* dwarf/die.c: DIE helpers (perf's dwarf-aux): a DIE's type without
 * typedefs and qualifiers, constant attributes, sizes, array dimensions,
 * struct members and bitfields; a function's name, code ranges and entry;
 * bufcat(), with which names and lists of them are spelled.  Private to
 * dwarf/ (dwarf/die_int.h). */
#include <errno.h>
#include <string.h>

#include <dwarf.h>

#include "dwarf/die_int.h"

void bufcat(char *buf, size_t len, const char *s)
{
	size_t used = strnlen(buf, len), n = strlen(s);

	if (used + 1 >= len)
		return;
	if (n > len - used - 1)
		n = len - used - 1;
	memcpy(buf + used, s, n);
	buf[used + n] = 0;
}

bool die_type(Dwarf_Die *die, Dwarf_Die *out)
{
	Dwarf_Attribute a;

	return dwarf_attr_integrate(die, DW_AT_type, &a) && dwarf_formref_die(&a, out);
}

/* TYPE without typedefs and qualifiers; false for void. */
bool die_strip_type(Dwarf_Die *type, Dwarf_Die *out)
{
	*out = *type;
	for (int i = 0; i < 64; i++) {
		switch (dwarf_tag(out)) {
		case DW_TAG_typedef:
		case DW_TAG_const_type:
		case DW_TAG_volatile_type:
		case DW_TAG_restrict_type:
		case DW_TAG_atomic_type:
			if (!die_type(out, out))
				return false;
			continue;
		default:
			return true;
		}
	}
	return false;
}

/*
 * A constant attribute's value: DW_FORM_sdata is signed; udata and the
 * fixed-size data forms are zero-extended from their width, and the value
 * then takes the size and signedness of its type when it is printed (as gdb
 * reads them: an int 200 is often a one-byte 0xc8).
 */
int die_const_value(Dwarf_Attribute *a, uint64_t *out)
{
	Dwarf_Word w;
	Dwarf_Sword sw;
	unsigned int bits = 64;

	switch (dwarf_whatform(a)) {
	case DW_FORM_sdata:
	case DW_FORM_implicit_const:
		if (dwarf_formsdata(a, &sw) != 0)
			return -EINVAL;
		*out = (uint64_t)sw;
		return 0;
	case DW_FORM_data1: bits = 8; break;
	case DW_FORM_data2: bits = 16; break;
	case DW_FORM_data4: bits = 32; break;
	case DW_FORM_data8: case DW_FORM_udata: break;
	default:
		return -EINVAL;
	}
	if (dwarf_formudata(a, &w) != 0)
		return -EINVAL;
	*out = bits < 64 ? w & ((1ULL << bits) - 1) : w;
	return 0;
}

Dwarf_Word die_udata(Dwarf_Die *die, unsigned int name, Dwarf_Word def)
{
	Dwarf_Attribute a;
	Dwarf_Word w;

	if (!dwarf_attr_integrate(die, name, &a) || dwarf_formudata(&a, &w) != 0)
		return def;
	return w;
}

/* Is ATTR a constant (not a location or reference, as a VLA bound is)? */
bool die_const_form(Dwarf_Attribute *a)
{
	switch (dwarf_whatform(a)) {
	case DW_FORM_data1: case DW_FORM_data2: case DW_FORM_data4: case DW_FORM_data8:
	case DW_FORM_udata: case DW_FORM_sdata: case DW_FORM_implicit_const:
		return true;
	}
	return false;
}

/* Element counts of array T's dimensions into DIMS (-1: not a constant, as in
 * a VLA or a flexible array); returns how many dimensions there are. */
int die_array_dims(Dwarf_Die *t, long *dims, int max)
{
	Dwarf_Die sub;
	int n = 0;

	if (dwarf_child(t, &sub) != 0)
		return 0;
	do {
		Dwarf_Attribute a;
		Dwarf_Word w;
		long count = -1;

		if (dwarf_tag(&sub) != DW_TAG_subrange_type)
			continue;
		if (dwarf_attr(&sub, DW_AT_count, &a) && die_const_form(&a) && dwarf_formudata(&a, &w) == 0)
			count = (long)w;
		else if (dwarf_attr(&sub, DW_AT_upper_bound, &a) && die_const_form(&a) &&
			 dwarf_formudata(&a, &w) == 0)
			count = (long)w + 1;
		if (n < max)
			dims[n] = count;
		n++;
	} while (dwarf_siblingof(&sub, &sub) == 0);
	return n;
}

/* Bytes of TYPE, or 0 when unknown (void, an array of unknown length). */
Dwarf_Word die_type_size(Dwarf_Die *type)
{
	Dwarf_Die t;

	if (!die_strip_type(type, &t))
		return 0;
	if (dwarf_tag(&t) == DW_TAG_pointer_type || dwarf_tag(&t) == DW_TAG_reference_type)
		return die_udata(&t, DW_AT_byte_size, 8);
	if (dwarf_tag(&t) == DW_TAG_array_type) {
		long dims[ARRAY_MAX_DIMS];
		int nd = die_array_dims(&t, dims, ARRAY_MAX_DIMS);
		Dwarf_Word n = 1;
		Dwarf_Die elem;

		if (!die_type(&t, &elem) || nd > ARRAY_MAX_DIMS)
			return 0;
		for (int i = 0; i < nd; i++)
			n *= dims[i] < 0 ? 0 : (Dwarf_Word)dims[i];
		return n * die_type_size(&elem);
	}
	return die_udata(&t, DW_AT_byte_size, 0);
}

/* Element count of the first dimension of array T, or -1 when unknown. */
long die_array_count(Dwarf_Die *t)
{
	long dims[ARRAY_MAX_DIMS];

	return die_array_dims(t, dims, ARRAY_MAX_DIMS) > 0 ? dims[0] : -1;
}

/* The element type of array T after its first dimension, its size (0 when
 * unknown), and whether more dimensions follow (a 2-D array's row). */
bool die_array_elem(Dwarf_Die *t, Dwarf_Die *elem, Dwarf_Word *elem_size, bool *sub_array)
{
	long dims[ARRAY_MAX_DIMS];
	int nd = die_array_dims(t, dims, ARRAY_MAX_DIMS);
	Dwarf_Word inner = 1;

	if (!die_type(t, elem) || nd > ARRAY_MAX_DIMS)
		return false;
	*sub_array = nd > 1;
	for (int i = 1; i < nd; i++)
		inner *= dims[i] < 0 ? 0 : (Dwarf_Word)dims[i];
	*elem_size = inner * die_type_size(elem);
	return true;
}

bool die_is_char(Dwarf_Die *type)
{
	Dwarf_Die t;
	Dwarf_Word enc;

	if (!die_strip_type(type, &t) || dwarf_tag(&t) != DW_TAG_base_type)
		return false;
	enc = die_udata(&t, DW_AT_encoding, 0);
	return die_udata(&t, DW_AT_byte_size, 0) == 1 &&
	       (enc == DW_ATE_signed_char || enc == DW_ATE_unsigned_char);
}

/* An array whose elements are chars (a string stored in place). */
bool die_is_char_array(Dwarf_Die *array)
{
	Dwarf_Die elem;

	return die_type(array, &elem) && die_is_char(&elem);
}

/*
 * Byte offset of member M: DW_AT_data_member_location as a constant, or
 * (DWARF 2) as the expression DW_OP_plus_uconst N; absent means 0 (a union
 * member, or a bitfield placed by DW_AT_data_bit_offset).  False for any
 * other expression: the offset is then unknown, never guessed.
 */
bool die_member_offset(Dwarf_Die *m, Dwarf_Word *off)
{
	Dwarf_Attribute a;
	Dwarf_Op *ops;
	size_t n;

	*off = 0;
	if (!dwarf_attr(m, DW_AT_data_member_location, &a))
		return true;
	if (die_const_form(&a))
		return dwarf_formudata(&a, off) == 0;
	if (dwarf_getlocation(&a, &ops, &n) == 0 && n == 1 && ops[0].atom == DW_OP_plus_uconst) {
		*off = ops[0].number;
		return true;
	}
	return false;
}

/*
 * MEMBER of struct/union T, searched through anonymous members too: its DIE,
 * and in *BASE the byte offset of the anonymous struct(s) holding it (0 when
 * it is T's own).  -ENOENT, or -ENOTSUP when an offset on the way is not a
 * constant.
 */
int die_find_member(Dwarf_Die *t, const char *member, Dwarf_Die *out, Dwarf_Word *base)
{
	Dwarf_Die m;

	*base = 0;
	if (dwarf_child(t, &m) != 0)
		return -ENOENT;
	/* its own members first: one of a base class's name is hidden by it, as in C++ */
	do {
		const char *name = dwarf_tag(&m) == DW_TAG_member ? dwarf_diename(&m) : NULL;

		if (name && !strcmp(name, member)) {
			*out = m;
			return 0;
		}
	} while (dwarf_siblingof(&m, &m) == 0);
	dwarf_child(t, &m);
	/* then those of its anonymous structs and unions, and of its C++ base classes */
	do {
		Dwarf_Die mt, st;
		Dwarf_Word moff;
		int r;

		if ((dwarf_tag(&m) != DW_TAG_member && dwarf_tag(&m) != DW_TAG_inheritance) ||
		    (dwarf_tag(&m) == DW_TAG_member && dwarf_diename(&m)) ||
		    !die_type(&m, &mt) || !die_strip_type(&mt, &st))
			continue;
		r = die_find_member(&st, member, out, base);
		if (r == -ENOENT)
			continue;
		if (r == 0 && !die_member_offset(&m, &moff))
			r = -ENOTSUP;
		if (r == 0)
			*base += moff;
		return r;
	} while (dwarf_siblingof(&m, &m) == 0);
	return -ENOENT;
}

void die_list_members(Dwarf_Die *t, char *buf, size_t len)
{
	Dwarf_Die m;

	buf[0] = 0;
	if (dwarf_child(t, &m) != 0)
		return;
	do {
		const char *name = dwarf_diename(&m);

		if (dwarf_tag(&m) != DW_TAG_member || !name)
			continue;
		if (buf[0])
			bufcat(buf, len, ", ");
		bufcat(buf, len, name);
	} while (dwarf_siblingof(&m, &m) == 0);
}

/*
 * Bit position of bitfield member M from the start of its struct (little
 * endian), from DW_AT_data_bit_offset (DWARF 4+) or the older
 * DW_AT_bit_offset counted from the storage unit's most significant bit.
 */
bool die_member_bitpos(Dwarf_Die *m, Dwarf_Word *pos, Dwarf_Word *bits)
{
	Dwarf_Word moff;

	*bits = die_udata(m, DW_AT_bit_size, 0);
	if (!*bits)
		return false;
	if (dwarf_hasattr(m, DW_AT_data_bit_offset)) {
		*pos = die_udata(m, DW_AT_data_bit_offset, 0);
		return true;
	}
	Dwarf_Die mt;
	Dwarf_Word unit = die_udata(m, DW_AT_byte_size, 0);

	if (!unit && die_type(m, &mt))
		unit = die_type_size(&mt);
	if (!die_member_offset(m, &moff))
		moff = 0;	/* unknown: the caller checks die_member_offset() too */
	*pos = moff * 8 + unit * 8 - die_udata(m, DW_AT_bit_offset, 0) - *bits;
	return true;
}

/*
 * The smallest load covering BITS bits at bit POS: byte offset, size, shift.
 * LIMIT (when not 0) is the struct's size: the load is moved back to end
 * inside it.  False when no 8-byte load holds them all (a packed field
 * spanning 9 bytes).
 */
bool bitfield_container(Dwarf_Word pos, Dwarf_Word bits, Dwarf_Word limit, uint32_t *off,
			uint8_t *size, uint8_t *shift)
{
	uint8_t s = 1;
	Dwarf_Word o = pos / 8;

	if (pos % 8 + bits > 64)
		return false;
	while (s < 8 && pos % 8 + bits > (Dwarf_Word)s * 8)
		s *= 2;
	if (limit && o + s > limit && limit >= s && pos - (limit - s) * 8 + bits <= 64)
		o = limit - s;
	*off = (uint32_t)o;
	*size = s;
	*shift = (uint8_t)(pos - o * 8);
	return true;
}

/* How many children of DIE have TAG. */
unsigned int die_count_children(Dwarf_Die *die, int tag)
{
	Dwarf_Die c;
	unsigned int n = 0;

	if (dwarf_child(die, &c) == 0)
		do
			n += dwarf_tag(&c) == tag;
		while (dwarf_siblingof(&c, &c) == 0);
	return n;
}

/* ---- functions ---------------------------------------------------------- */

/* The name of DIE, through DW_AT_abstract_origin / DW_AT_specification. */
const char *die_name(Dwarf_Die *die)
{
	Dwarf_Attribute a;

	return dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &a));
}

/* Does DIE describe code (DW_AT_low_pc or DW_AT_ranges on the DIE itself)? */
bool die_has_code(Dwarf_Die *die)
{
	return dwarf_hasattr(die, DW_AT_low_pc) || dwarf_hasattr(die, DW_AT_ranges);
}

/*
 * Where the code of FN is entered (a DWARF address): DW_AT_entry_pc, else
 * DW_AT_low_pc, else for an inlined instance the lowest range start, for a
 * subprogram split into hot and cold parts its first range (the hot part,
 * which GCC lists first).  0, or -ENOENT when FN has no code.
 */
int die_func_entry(Dwarf_Die *fn, bool inlined, Dwarf_Addr *entry)
{
	Dwarf_Addr base, start, end, first, low;
	ptrdiff_t off;

	off = dwarf_ranges(fn, 0, &base, &start, &end);
	if (off <= 0)
		return -ENOENT;
	first = low = start;
	while ((off = dwarf_ranges(fn, off, &base, &start, &end)) > 0)
		if (start < low)
			low = start;
	if (dwarf_entrypc(fn, entry) == 0)
		return 0;
	*entry = inlined ? low : first;
	return 0;
}

/* The range [*START, *END) of FN holding PC (DWARF addresses).  0 or -ENOENT. */
int die_range_holding(Dwarf_Die *fn, Dwarf_Addr pc, Dwarf_Addr *rstart, Dwarf_Addr *rend)
{
	Dwarf_Addr base, start, end;
	ptrdiff_t off = 0;

	while ((off = dwarf_ranges(fn, off, &base, &start, &end)) > 0)
		if (pc >= start && pc < end) {
			*rstart = start;
			*rend = end;
			return 0;
		}
	return -ENOENT;
}

const char *die_linkage_name(Dwarf_Die *fn)
{
	Dwarf_Attribute a;
	const char *n = dwarf_formstring(dwarf_attr_integrate(fn, DW_AT_linkage_name, &a));

	return n ? n : dwarf_formstring(dwarf_attr_integrate(fn, DW_AT_MIPS_linkage_name, &a));
}
