/* dwarf/ifunc.h: an IFUNC symbol -> the implementations its resolver can
 * select, found by decoding the resolver (arch_ifunc_targets()) and named
 * from the symbol tables.  Never calls ptrace. */
#ifndef PTAP_DWARF_IFUNC_H
#define PTAP_DWARF_IFUNC_H

#include <stdint.h>

struct dbg;
struct elfmod;
struct ptap_err;

#define IFUNC_IMPLS_MAX		32	/* more than this: refused */

struct ifunc_impl {
	uint64_t vaddr;		/* link-time address of the implementation */
	const char *name;	/* its function symbol (borrowed: valid until the dbg_cache
				 * holding DBG is freed and elfmod__close()), or NULL when
				 * none starts there */
};

/*
 * The implementations the IFUNC NAME of MOD, whose resolver is at link-time
 * VADDR and SIZE bytes long (0: the size of the function symbol holding
 * it), can select.  DBG gives the symbol tables names come from (a separate
 * debug file's .symtab too).  Returns the count (>= 1) with *OUT sorted by
 * address (the caller frees it), or -ENOTSUP with ERR saying why the
 * resolver cannot be told (it computes or loads what it returns, jumps out
 * of itself, returns an address that is not code...), -ENOMEM.
 */
int ifunc_impls(struct dbg *dbg, const struct elfmod *mod, const char *name, uint64_t vaddr,
		uint64_t size, struct ifunc_impl **out, struct ptap_err *err);
/* The same, with only the reason in ERR ("its resolver (at 0x...) cannot be followed: ..."). */
int ifunc_impls_why(struct dbg *dbg, const struct elfmod *mod, uint64_t vaddr, uint64_t size,
		    struct ifunc_impl **out, struct ptap_err *err);

#endif
