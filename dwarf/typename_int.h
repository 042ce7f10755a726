/* dwarf/typename_int.h: the C spelling of a DWARF type (dwarf/typename.c),
 * for messages and `ptap vars`; private to dwarf/. */
#ifndef PTAP_DWARF_TYPENAME_INT_H
#define PTAP_DWARF_TYPENAME_INT_H

#include <stddef.h>

#include <elfutils/libdw.h>

/* The C spelling of TYPE_DIE (NULL: void) into BUF; returns BUF. */
const char *die_type_name(Dwarf_Die *type_die, char *buf, size_t len);

#endif
