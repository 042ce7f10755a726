/* dwarf/varlist.h: what `ptap vars` shows of a site -- where it is in its
 * function, and each variable in scope there with its C type and how its
 * value is found (perf probe -V's equivalent).  Never calls ptrace. */
#ifndef PTAP_DWARF_VARLIST_H
#define PTAP_DWARF_VARLIST_H

#include <stdbool.h>
#include <stdint.h>

struct dbg;
struct point_site;
struct elfmod;

/* One variable in scope at a site; its strings live until the callback returns. */
struct varlist_var {
	const char *name;
	const char *type;	/* its C type: "const char *" */
	const char *loc;	/* how its value is found there: "register %di" (also an
				 * entry value still in its register), "frame" (stack or
				 * frame pointer relative), "global", "const", "pieces",
				 * "expr" (computed), or "optimized out" / "cannot fetch:
				 * WHY" */
};

/*
 * The variables in scope at SITE of MOD (DBG: its debug info), innermost
 * function first: its parameters, then its locals scope by scope, outermost
 * scope first; with GLOBALS, then the compile unit's file-scope variables.
 * CB is called for each; a non-zero return stops the walk and is returned;
 * else 0, or -ENOMEM.
 */
int varlist__walk(struct dbg *dbg, const struct elfmod *mod, const struct point_site *site,
		  bool globals, int (*cb)(const struct varlist_var *v, void *priv), void *priv);

/*
 * Is SITE OFF bytes (> 0) past the entry of the out-of-line function DWARF
 * says holds it?  Then perf probe -V names it FUNC+OFF.  False for an
 * inlined instance, a site without DWARF, or one at the entry.
 */
bool varlist__func_offset(struct dbg *dbg, const struct point_site *site, uint64_t *off);

#endif
