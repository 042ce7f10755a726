/* dwarf/die_int.h: DIE helpers for DWARF types and functions (dwarf/die.c),
 * in the style of perf's dwarf-aux.h; private to dwarf/.  The caller
 * provides every Dwarf_Die's storage. */
#ifndef PTAP_DWARF_DIE_INT_H
#define PTAP_DWARF_DIE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <elfutils/libdw.h>

#define ARRAY_MAX_DIMS	8	/* dimensions of an array ptap follows */

bool die_type(Dwarf_Die *die, Dwarf_Die *out);		/* DW_AT_type into OUT; false: none */
bool die_strip_type(Dwarf_Die *type, Dwarf_Die *out);	/* without typedefs, qualifiers */
int die_const_value(Dwarf_Attribute *a, uint64_t *out);	/* 0, or -EINVAL (a block) */
Dwarf_Word die_udata(Dwarf_Die *die, unsigned int name, Dwarf_Word def);
bool die_const_form(Dwarf_Attribute *a);		/* a constant, not a location */

int die_array_dims(Dwarf_Die *t, long *dims, int max);
Dwarf_Word die_type_size(Dwarf_Die *type);		/* 0: unknown */
long die_array_count(Dwarf_Die *t);			/* -1: unknown */
bool die_array_elem(Dwarf_Die *t, Dwarf_Die *elem, Dwarf_Word *elem_size, bool *sub_array);
bool die_is_char(Dwarf_Die *type);			/* a one-byte char type */
bool die_is_char_array(Dwarf_Die *array);		/* an array of chars */

/* Struct T is a string type of C++, Rust or Go (dwarf/strtype.c): where its
 * pointer to the bytes and its length in bytes are. */
bool die_counted_string(Dwarf_Die *t, Dwarf_Word *ptr_off, Dwarf_Word *len_off);
/* Struct T is a slice type of Go, Rust or C++ ([]T, &[T], Vec<T>,
 * std::vector<T>): where its pointer and its count (*END: its end pointer)
 * are, and its element type, stripped. */
bool die_slice(Dwarf_Die *t, Dwarf_Word *ptr_off, Dwarf_Word *len_off, bool *end, Dwarf_Die *elem);

bool die_member_offset(Dwarf_Die *m, Dwarf_Word *off);
int die_find_member(Dwarf_Die *t, const char *member, Dwarf_Die *out, Dwarf_Word *base);
void die_list_members(Dwarf_Die *t, char *buf, size_t len);	/* "a, b, c" */
bool die_member_bitpos(Dwarf_Die *m, Dwarf_Word *pos, Dwarf_Word *bits);
bool bitfield_container(Dwarf_Word pos, Dwarf_Word bits, Dwarf_Word limit, uint32_t *off,
			uint8_t *size, uint8_t *shift);
unsigned int die_count_children(Dwarf_Die *die, int tag);

/* The name of DIE, through DW_AT_abstract_origin / DW_AT_specification. */
const char *die_name(Dwarf_Die *die);
/* The linkage (mangled) name of function FN, through its declaration or
 * abstract origin, or NULL. */
const char *die_linkage_name(Dwarf_Die *fn);
bool die_has_code(Dwarf_Die *die);		/* DW_AT_low_pc or DW_AT_ranges */
/* Where the code of FN is entered (a DWARF address).  0, or -ENOENT. */
int die_func_entry(Dwarf_Die *fn, bool inlined, Dwarf_Addr *entry);
/* The range [*RSTART, *REND) of FN holding PC.  0 or -ENOENT. */
int die_range_holding(Dwarf_Die *fn, Dwarf_Addr pc, Dwarf_Addr *rstart, Dwarf_Addr *rend);

/* Append S to the string in BUF (LEN bytes), cut to fit. */
void bufcat(char *buf, size_t len, const char *s);

#endif
