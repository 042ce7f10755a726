/* dwarf/resolve.h: a probe spec resolved against one ELF module: the
 * link-time site address, its decoded first instruction, and one fetch
 * program per argument.  Never calls ptrace. */
#ifndef PTAP_DWARF_RESOLVE_H
#define PTAP_DWARF_RESOLVE_H

#include <stdint.h>

#include "arch/arch.h"
#include "probes/fetch.h"

struct elfmod;
struct probe_spec;
struct ptap_err;

struct resolved_probe {
	uint64_t vaddr;		/* link-time address of the site */
	uint64_t file_off;	/* its file offset (from the PT_LOAD holding it) */
	char *where;		/* "exec_query" or "exec_query+4": for messages */
	struct arch_insn insn;	/* the instruction the breakpoint displaces */
	int nargs;
	struct fetch_prog *progs;	/* NARGS programs */
	char **names;		/* NARGS record names ("arg1" for unnamed) */
};

/*
 * Resolve SPEC in MOD.  0; -ENOENT when the function does not exist (ERR
 * names the nearest ones); -EINVAL for an argument that cannot be compiled
 * (ERR has its column); -ENOTSUP when the site's instruction can be neither
 * run out of line nor emulated (ERR says why).  The caller releases OUT with
 * resolved_probe__exit().
 */
int resolved_probe__init(struct resolved_probe *out, struct elfmod *mod,
			 const struct probe_spec *spec, struct ptap_err *err);
void resolved_probe__exit(struct resolved_probe *rp);

#endif
