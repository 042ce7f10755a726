/* dwarf/strtype.c: the string and slice types of C++, Rust and Go -- a
 * struct holding a pointer to the bytes or elements and their count -- told
 * by their DWARF names, and where in them the two words are, found from
 * their DWARF members (never hard-coded offsets, which change with the
 * library's version). */
#include <string.h>

#include <dwarf.h>

#include "dwarf/die_int.h"

/* How many structs deep a Rust Vec's pointer is looked for (buf.inner.ptr.pointer...). */
#define PTR_DEPTH	6

/* Rust's fat pointers (&str, &[T], Box<str>): { data_ptr, length } */
static const char *const rs_ptr[] = { "data_ptr", NULL };
static const char *const rs_len[] = { "length", NULL };

static bool is_struct(Dwarf_Die *t)
{
	return dwarf_tag(t) == DW_TAG_structure_type || dwarf_tag(t) == DW_TAG_class_type;
}

/* The member at the end of PATH's members in struct T: its offset in T, its type stripped. */
static bool member_path_type(Dwarf_Die *t, const char *const *path, Dwarf_Word *off,
			     Dwarf_Die *type)
{
	Dwarf_Die cur = *t, m, mt;
	Dwarf_Word at = 0;

	for (; *path; path++) {
		Dwarf_Word base, o;

		if (!is_struct(&cur) || die_find_member(&cur, *path, &m, &base) < 0 ||
		    !die_member_offset(&m, &o) || !die_type(&m, &mt) || !die_strip_type(&mt, &cur))
			return false;
		at += base + o;
	}
	*off = at;
	*type = cur;
	return true;
}

/* The 8-byte word at the end of PATH's members in struct T: its offset in T. */
static bool member_path(Dwarf_Die *t, const char *const *path, Dwarf_Word *off)
{
	Dwarf_Die type;

	return member_path_type(t, path, off, &type) && die_type_size(&type) == 8;
}

/* The first pointer among T's members, depth first through member structs: its offset. */
static bool first_pointer(Dwarf_Die *t, int depth, Dwarf_Word *off)
{
	Dwarf_Die m, mt;

	if (depth > PTR_DEPTH || dwarf_child(t, &m) != 0)
		return false;
	do {
		Dwarf_Word o;

		if (dwarf_tag(&m) != DW_TAG_member || !die_member_offset(&m, &o) ||
		    !die_type(&m, &mt) || !die_strip_type(&mt, &mt))
			continue;
		if (dwarf_tag(&mt) == DW_TAG_pointer_type) {
			*off = o;
			return true;
		}
		if (is_struct(&mt) && first_pointer(&mt, depth + 1, off)) {
			*off += o;
			return true;
		}
	} while (dwarf_siblingof(&m, &m) == 0);
	return false;
}

static bool starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* Is T from a unit of language LANG (a C struct string is no Go string)? */
static bool lang_is(Dwarf_Die *t, int lang)
{
	Dwarf_Die cu;

	return dwarf_diecu(t, &cu, NULL, NULL) && dwarf_srclang(&cu) == lang;
}

/* Are both words within T (a declaration's size unknown: no)? */
static bool within(Dwarf_Die *t, Dwarf_Word a, Dwarf_Word b)
{
	return (a > b ? a : b) + 8 <= die_type_size(t);
}

static bool counted_string(Dwarf_Die *t, Dwarf_Word *ptr_off, Dwarf_Word *len_off);

bool die_counted_string(Dwarf_Die *t, Dwarf_Word *ptr_off, Dwarf_Word *len_off)
{
	return counted_string(t, ptr_off, len_off) && within(t, *ptr_off, *len_off);
}

static bool counted_string(Dwarf_Die *t, Dwarf_Word *ptr_off, Dwarf_Word *len_off)
{
	static const char *const cxx_ptr[] = { "_M_dataplus", "_M_p", NULL };
	static const char *const cxx_len[] = { "_M_string_length", NULL };
	static const char *const view_ptr[] = { "_M_str", NULL };
	static const char *const view_len[] = { "_M_len", NULL };
	static const char *const string_vec[] = { "vec", NULL };
	static const char *const vec_len[] = { "vec", "len", NULL };
	static const char *const go_ptr[] = { "str", NULL };
	static const char *const go_len[] = { "len", NULL };
	const char *name = is_struct(t) ? dwarf_diename(t) : NULL;
	Dwarf_Word at;

	if (!name)
		return false;
	/* libstdc++'s std::string (std::__cxx11::basic_string<char, ...>) and string_view */
	if (starts(name, "basic_string<char,") || strcmp(name, "basic_string<char>") == 0)
		return member_path(t, cxx_ptr, ptr_off) && member_path(t, cxx_len, len_off);
	if (starts(name, "basic_string_view<char,") || strcmp(name, "basic_string_view<char>") == 0)
		return member_path(t, view_ptr, ptr_off) && member_path(t, view_len, len_off);
	/* Rust's str behind a fat pointer: &str, &mut str, *const str, Box<str> */
	if ((strcmp(name, "&str") == 0 || strcmp(name, "&mut str") == 0 ||
	     strcmp(name, "*const str") == 0 || strcmp(name, "*mut str") == 0 ||
	     starts(name, "alloc::boxed::Box<str,") || strcmp(name, "Box<str>") == 0) &&
	    lang_is(t, DW_LANG_Rust))
		return member_path(t, rs_ptr, ptr_off) && member_path(t, rs_len, len_off);
	/* Rust's String: a Vec<u8> whose buffer's pointer lies a few structs down */
	if ((strcmp(name, "String") == 0 || strcmp(name, "alloc::string::String") == 0) &&
	    lang_is(t, DW_LANG_Rust)) {
		Dwarf_Die m, mt;
		Dwarf_Word base, o;

		if (!member_path(t, vec_len, len_off) ||
		    die_find_member(t, string_vec[0], &m, &base) < 0 ||
		    !die_member_offset(&m, &o) || !die_type(&m, &mt) || !die_strip_type(&mt, &mt) ||
		    !first_pointer(&mt, 0, &at))
			return false;
		*ptr_off = base + o + at;
		return true;
	}
	/* Go's string: struct string { str *uint8; len int } */
	if (strcmp(name, "string") == 0 && lang_is(t, DW_LANG_Go))
		return member_path(t, go_ptr, ptr_off) && member_path(t, go_len, len_off);
	return false;
}

/* The type of T's template parameter (Vec<T>'s T), stripped. */
static bool template_type(Dwarf_Die *t, Dwarf_Die *out)
{
	Dwarf_Die c, ct;

	if (dwarf_child(t, &c) != 0)
		return false;
	do {
		if (dwarf_tag(&c) == DW_TAG_template_type_parameter && die_type(&c, &ct))
			return die_strip_type(&ct, out);
	} while (dwarf_siblingof(&c, &c) == 0);
	return false;
}

/* *ELEM: what pointer type P points to, stripped. */
static bool pointee(Dwarf_Die *p, Dwarf_Die *elem)
{
	Dwarf_Die pt;

	return dwarf_tag(p) == DW_TAG_pointer_type && die_type(p, &pt) && die_strip_type(&pt, elem);
}

static bool slice(Dwarf_Die *t, Dwarf_Word *ptr_off, Dwarf_Word *len_off, bool *end,
		  Dwarf_Die *elem);

bool die_slice(Dwarf_Die *t, Dwarf_Word *ptr_off, Dwarf_Word *len_off, bool *end, Dwarf_Die *elem)
{
	return slice(t, ptr_off, len_off, end, elem) && within(t, *ptr_off, *len_off);
}

static bool slice(Dwarf_Die *t, Dwarf_Word *ptr_off, Dwarf_Word *len_off, bool *end,
		  Dwarf_Die *elem)
{
	static const char *const go_ptr[] = { "array", NULL };
	static const char *const go_len[] = { "len", NULL };
	static const char *const vec_buf[] = { "buf", NULL };
	static const char *const vec_len[] = { "len", NULL };
	static const char *const cxx_start[] = { "_M_impl", "_M_start", NULL };
	static const char *const cxx_finish[] = { "_M_impl", "_M_finish", NULL };
	const char *name = is_struct(t) ? dwarf_diename(t) : NULL;
	Dwarf_Die p, buf;
	Dwarf_Word at;

	*end = false;
	if (!name)
		return false;
	/* Go: struct []T { array *T; len int; cap int } */
	if (starts(name, "[]") && lang_is(t, DW_LANG_Go))
		return member_path_type(t, go_ptr, ptr_off, &p) && pointee(&p, elem) &&
		       member_path(t, go_len, len_off);
	/* Rust: &[T], &mut [T], *const [T], *mut [T]: { data_ptr, length } */
	if ((starts(name, "&[") || starts(name, "&mut [") || starts(name, "*const [") ||
	     starts(name, "*mut [")) && lang_is(t, DW_LANG_Rust))
		return member_path_type(t, rs_ptr, ptr_off, &p) && pointee(&p, elem) &&
		       member_path(t, rs_len, len_off);
	/* Rust: Vec<T>, its buffer's pointer (of u8 in newer Rusts) a few structs down */
	if ((starts(name, "alloc::vec::Vec<") || starts(name, "Vec<")) && lang_is(t, DW_LANG_Rust))
		return template_type(t, elem) && member_path(t, vec_len, len_off) &&
		       member_path_type(t, vec_buf, &at, &buf) && first_pointer(&buf, 0, ptr_off) &&
		       (*ptr_off += at, true);
	/* libstdc++'s std::vector<T>: _M_impl's _M_start and _M_finish, the end */
	if (starts(name, "vector<")) {
		*end = true;
		return member_path_type(t, cxx_start, ptr_off, &p) && pointee(&p, elem) &&
		       member_path(t, cxx_finish, len_off);
	}
	return false;
}
