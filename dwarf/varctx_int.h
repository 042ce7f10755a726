/* dwarf/varctx_int.h: a probe site as the variable compilers see it
 * (struct var_ctx) and one variable in scope there (struct var_info), shared
 * by dwarf/var_int.h's callers and the steps of dwarf/comp_int.h; type-only
 * but for var_site_pc().  Private to dwarf/. */
#ifndef PTAP_DWARF_VARCTX_INT_H
#define PTAP_DWARF_VARCTX_INT_H

#include <stdbool.h>
#include <stdint.h>

#include <elfutils/libdw.h>

#include "dwarf/debuginfo_int.h"
#include "dwarf/site.h"
#include "dwarf/site_int.h"
#include "dwarf/tpool.h"

struct dbg;
struct elfmod;

struct var_ctx {
	struct dbg *dbg;
	const struct elfmod *mod;
	const struct point_site *site;
	struct tpool *pool;
	const struct elfmod *exe;	/* the command's executable, or NULL: a library's
					 * global copied into it is refused */
};

/* One variable visible at a site. */
struct var_info {
	const char *name;
	Dwarf_Die die;
	bool param;
	bool global;		/* file scope (listed by `ptap vars --globals`) */
};

/* The site's address as a DWARF address (link-time minus the debug info's bias). */
static inline uint64_t var_site_pc(const struct var_ctx *c)
{
	return c->site->vaddr - dbg__bias(c->dbg);
}

#endif
