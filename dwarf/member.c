/* dwarf/member.c: a struct member's offset, by names (member.h). */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include <dwarf.h>
#include <elfutils/libdw.h>

#include "dwarf/debuginfo_int.h"
#include "dwarf/elfmod.h"
#include "dwarf/member.h"
#include "probes/err.h"

/* MEMBER of the struct DIE S: its constant DW_AT_data_member_location. */
static bool member_of(Dwarf_Die *s, const char *member, uint64_t *off)
{
	Dwarf_Die m;
	Dwarf_Attribute a;
	Dwarf_Word w;

	if (dwarf_child(s, &m) != 0)
		return false;
	do {
		const char *n = dwarf_diename(&m);

		if (dwarf_tag(&m) == DW_TAG_member && n && !strcmp(n, member) &&
		    dwarf_attr_integrate(&m, DW_AT_data_member_location, &a) &&
		    dwarf_formudata(&a, &w) == 0) {
			*off = w;
			return true;
		}
	} while (dwarf_siblingof(&m, &m) == 0);
	return false;
}

/* The first complete "struct TYPE" among the top-level DIEs of DW's compile units. */
static int find_in(Dwarf *dw, const char *type, const char *member, uint64_t *off)
{
	Dwarf_Off o = 0, next;
	size_t hsize;

	while (dwarf_nextcu(dw, o, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu, d;

		if (dwarf_offdie(dw, o + hsize, &cu) && dwarf_child(&cu, &d) == 0) {
			do {
				const char *n = dwarf_diename(&d);

				if (dwarf_tag(&d) == DW_TAG_structure_type && n && !strcmp(n, type) &&
				    !dwarf_hasattr(&d, DW_AT_declaration))
					return member_of(&d, member, off) ? 0 : -ENOENT;
			} while (dwarf_siblingof(&d, &d) == 0);
		}
		o = next;
	}
	return -ENOENT;
}

int dwarf_member_offset(const char *path, const char *debuginfo_dir, const char *type,
			const char *member, uint64_t *off)
{
	struct ptap_err err = { .pos = -1 };
	struct dbg_cache *dc = NULL;
	struct elfmod *mod = NULL;
	struct dbg *dbg;
	int r = elfmod__open(path, &mod, &err);

	if (r == 0)
		r = dbg_cache__new(&dc);
	if (r == 0)
		r = dbg_cache__get(dc, mod, debuginfo_dir, &dbg, &err);
	if (r == 0)
		r = dbg__dwarf(dbg) ? find_in(dbg__dwarf(dbg), type, member, off) : -ENOENT;
	dbg_cache__free(dc);
	elfmod__close(mod);
	return r;
}
