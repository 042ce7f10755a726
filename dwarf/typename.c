/* dwarf/typename.c: a DWARF type's C spelling ("const char *",
 * "struct query *", "int (*)[4]"), for messages and `ptap vars`. */
#include <stdio.h>
#include <string.h>

#include <dwarf.h>

#include "dwarf/die_int.h"
#include "dwarf/typename_int.h"

static bool is_qualifier(int tag)
{
	return tag == DW_TAG_const_type || tag == DW_TAG_volatile_type ||
	       tag == DW_TAG_restrict_type || tag == DW_TAG_atomic_type;
}

/*
 * Whether qualifier QUAL (a DW_TAG_*_type DIE) is one of an array whose elements
 * carry it too.  C has no qualified arrays: `const char s[]` is an array of
 * const char, and GCC gives both the array and its elements the const; it is
 * said once, on the elements, as gdb does.
 */
static bool qual_of_qualified_elems(Dwarf_Die *qual)
{
	int tag = dwarf_tag(qual);
	Dwarf_Die t;

	if (!die_type(qual, &t))
		return false;
	for (int i = 0; i < 16 && is_qualifier(dwarf_tag(&t)); i++)
		if (!die_type(&t, &t))
			return false;
	if (dwarf_tag(&t) != DW_TAG_array_type)
		return false;
	/* the elements, through arrays of arrays and their other qualifiers */
	for (int i = 0; i < 16 && die_type(&t, &t); i++) {
		if (dwarf_tag(&t) == tag)
			return true;
		if (!is_qualifier(dwarf_tag(&t)) && dwarf_tag(&t) != DW_TAG_array_type)
			return false;
	}
	return false;
}

/* C spelling: PREFIX collects what goes left of the name, SUFFIX right. */
static void type_name_rec(Dwarf_Die *type, char *pre, char *suf, size_t len, int depth)
{
	char tmp[256];
	Dwarf_Die next;
	const char *name = dwarf_diename(type);

	if (depth > 16) {
		bufcat(pre, len, "...");
		return;
	}
	switch (dwarf_tag(type)) {
	case DW_TAG_base_type:
	case DW_TAG_typedef:
	case DW_TAG_unspecified_type:
		bufcat(pre, len, name ? name : "?");
		return;
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
	case DW_TAG_enumeration_type:
	case DW_TAG_class_type:
		snprintf(tmp, sizeof(tmp), "%s %s",
			 dwarf_tag(type) == DW_TAG_structure_type ? "struct" :
			 dwarf_tag(type) == DW_TAG_union_type ? "union" :
			 dwarf_tag(type) == DW_TAG_class_type ? "class" : "enum",
			 name ? name : "{...}");
		bufcat(pre, len, tmp);
		return;
	case DW_TAG_const_type:
	case DW_TAG_volatile_type:
	case DW_TAG_restrict_type:
	case DW_TAG_atomic_type: {
		const char *q = dwarf_tag(type) == DW_TAG_const_type ? "const" :
				dwarf_tag(type) == DW_TAG_volatile_type ? "volatile" :
				dwarf_tag(type) == DW_TAG_restrict_type ? "restrict" : "_Atomic";

		if (!die_type(type, &next)) {
			snprintf(tmp, sizeof(tmp), "%s void", q);
			bufcat(pre, len, tmp);
			return;
		}
		if (qual_of_qualified_elems(type)) {	/* "const char[14]", not "const const" */
			type_name_rec(&next, pre, suf, len, depth + 1);
			return;
		}
		/* "const char", but "char *const" */
		if (dwarf_tag(&next) == DW_TAG_pointer_type) {
			type_name_rec(&next, pre, suf, len, depth + 1);
			snprintf(tmp, sizeof(tmp), "%s", q);
			bufcat(pre, len, tmp);
			return;
		}
		snprintf(tmp, sizeof(tmp), "%s ", q);
		bufcat(pre, len, tmp);
		type_name_rec(&next, pre, suf, len, depth + 1);
		return;
	}
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
		if (!die_type(type, &next)) {
			bufcat(pre, len, "void *");
			return;
		}
		if (dwarf_tag(&next) == DW_TAG_subroutine_type) {
			bufcat(pre, len, "void (*)()");
			return;
		}
		type_name_rec(&next, pre, suf, len, depth + 1);
		if (dwarf_tag(&next) == DW_TAG_array_type) {
			bufcat(pre, len, " (*");
			memmove(suf + 1, suf, strnlen(suf, len - 2) + 1);
			suf[0] = ')';
			return;
		}
		/* PRE is empty when the pointee has no name (corrupt DWARF) */
		bufcat(pre, len, pre[0] && pre[strlen(pre) - 1] == '*' ? "*" : " *");
		return;
	case DW_TAG_array_type: {

		long dims[ARRAY_MAX_DIMS];
		int nd = die_array_dims(type, dims, ARRAY_MAX_DIMS);

		for (int i = 0; i < nd && i < ARRAY_MAX_DIMS; i++) {
			if (dims[i] >= 0)
				snprintf(tmp, sizeof(tmp), "[%ld]", dims[i]);
			else
				snprintf(tmp, sizeof(tmp), "[]");
			bufcat(suf, len, tmp);
		}
		if (die_type(type, &next))
			type_name_rec(&next, pre, suf, len, depth + 1);
		return;
	}
	case DW_TAG_subroutine_type:
		bufcat(pre, len, "void ()");
		return;
	default:
		bufcat(pre, len, name ? name : "?");
	}
}

const char *die_type_name(Dwarf_Die *type_die, char *buf, size_t len)
{
	char pre[256] = "", suf[128] = "";

	if (!type_die) {
		snprintf(buf, len, "void");
		return buf;
	}
	type_name_rec(type_die, pre, suf, sizeof(pre) < sizeof(suf) ? sizeof(pre) : sizeof(suf),
		      0);
	snprintf(buf, len, "%s%s", pre, suf);
	return buf;
}
