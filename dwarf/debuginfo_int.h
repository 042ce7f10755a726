/* dwarf/debuginfo_int.h: the libdw and libdwfl handles of a module's debug
 * information (struct dbg, dwarf/debuginfo.h); private to dwarf/. */
#ifndef PTAP_DWARF_DEBUGINFO_INT_H
#define PTAP_DWARF_DEBUGINFO_INT_H

#include <stdbool.h>
#include <stdint.h>

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>

#include "dwarf/debuginfo.h"

/* The DWARF, or NULL when there is none.  Its addresses plus dbg__bias()
 * are the module's link-time virtual addresses (elfmod's). */
Dwarf *dbg__dwarf(const struct dbg *d);
uint64_t dbg__bias(const struct dbg *d);
/*
 * The frame at link-time VADDR from the call frame information: .debug_frame,
 * else .eh_frame where .debug_frame has no entry for it (Rust's, say, which
 * may cover only the standard library).  0 with *FRAME (the caller frees
 * it); -ENOENT: no entry; -ENODATA: no CFI at all.
 */
int dbg__cfi_frame(const struct dbg *d, uint64_t vaddr, Dwarf_Frame **frame);
/* The libdwfl module: dwfl_module_getsym*() see the separate debug file's
 * .symtab too (functions a stripped library keeps out of .dynsym).
 * Addresses there are link-time addresses. */
Dwfl_Module *dbg__module(const struct dbg *d);
/*
 * Where a goroutine's id lies in Go's runtime.g (the register ABI keeps the
 * running goroutine's g in r14 in Go code): 0 with *OFF, or -ENOENT (no Go
 * DWARF, or Go's older stack-based ABI).  Looked up once.
 */
int dbg__go_goid(struct dbg *d, uint64_t *off);
/*
 * The function symbol (of libdwfl's table: with the debug file's .symtab)
 * whose bytes hold link-time VADDR: 0 with *OUT, or -ENOENT.  A binary
 * search in a table read once (dwfl_module_addrinfo() looks at every
 * symbol each time: a check of a few bytes of padding in libc took
 * milliseconds).
 */
struct dbg_func {
	const char *name;	/* libdwfl's */
	uint64_t start, size;
	uint32_t idx;		/* in libdwfl's table */
	uint8_t rank;		/* 0 global, 1 weak, 2 local */
};
int dbg__func_at(struct dbg *d, uint64_t vaddr, struct dbg_func *out);
/* All of them, by address (into *FUNCS): how many. */
size_t dbg__funcs(struct dbg *d, const struct dbg_func **funcs);
/*
 * The targets of the direct branches and calls of every function of the
 * module, sorted: kept with D for dwarf/resolve.c, which fills it once
 * (DONE) the first time a jump site is checked.
 */
struct dbg_targets {
	uint64_t *to;
	size_t n;
	bool done;		/* made (or tried) */
	bool failed;		/* not known (out of memory): no jump site in the module */
};
struct dbg_targets *dbg__targets(struct dbg *d);
/*
 * The targets from the cache (dwarf/debuginfo.c), made from NMOD functions
 * of the module's table and NDBG of the debug file's: 0 with them in
 * D's struct dbg_targets (to, n), or -ENOENT, -EINVAL (none, or not whole).
 */
int dbg__targets_load(struct dbg *d, uint64_t nmod, uint64_t ndbg);
/* D's struct dbg_targets into the cache, made so: the next run loads them. */
void dbg__targets_store(const struct dbg *d, uint64_t nmod, uint64_t ndbg);

#endif
