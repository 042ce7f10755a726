/* dwarf/site_int.h: what DWARF says of a probe site (struct point_site's
 * DIE, dwarf/site.h): its compile unit and function.  Private to dwarf/:
 * outside it a site is plain data. */
#ifndef PTAP_DWARF_SITE_INT_H
#define PTAP_DWARF_SITE_INT_H

#include <elfutils/libdw.h>

struct site_die {
	Dwarf_Die cu;		/* the compile unit */
	Dwarf_Die fn;		/* the DW_TAG_subprogram holding the site, or for an
				 * inlined instance its DW_TAG_inlined_subroutine */
};

#endif
