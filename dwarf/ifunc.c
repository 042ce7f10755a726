/* dwarf/ifunc.c: the implementations an IFUNC's resolver can select.  The
 * dynamic loader calls the resolver (the IFUNC symbol's value) once and
 * binds the symbol to what it returns; which one depends on the CPU, so
 * every address the resolver's code can return is a candidate, and probing
 * them all records the calls whichever the loader chose. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <elf.h>
#include <elfutils/libdwfl.h>

#include "arch/arch.h"
#include "dwarf/debuginfo_int.h"
#include "dwarf/elfmod.h"
#include "dwarf/ifunc.h"
#include "probes/err.h"

/* The function symbol starting at link-time VADDR, or NULL. */
static const char *func_at(struct dbg *dbg, const struct elfmod *mod, uint64_t vaddr)
{
	Dwfl_Module *m = dbg ? dbg__module(dbg) : NULL;
	struct elfmod_sym es;
	GElf_Off off = 1;
	GElf_Sym sym;
	const char *nm = m ? dwfl_module_addrinfo(m, vaddr, &off, &sym, NULL, NULL, NULL) : NULL;

	if (nm && off == 0 && GELF_ST_TYPE(sym.st_info) == STT_FUNC)
		return nm;
	if (elfmod__sym_at(mod, vaddr, &es) == 0 && es.vaddr == vaddr && es.type == STT_FUNC)
		return es.name;
	return NULL;
}

int ifunc_impls_why(struct dbg *dbg, const struct elfmod *mod, uint64_t vaddr, uint64_t size,
		    struct ifunc_impl **out, struct ptap_err *err)
{
	uint64_t addrs[IFUNC_IMPLS_MAX];
	struct elfmod_sym holder;
	struct ptap_err why = { .pos = -1 };
	uint8_t *code;
	int n;

	*out = NULL;
	if (!size && elfmod__sym_at(mod, vaddr, &holder) == 0 && holder.vaddr == vaddr)
		size = holder.size;
	if (size > ARCH_IFUNC_FN_MAX)
		size = ARCH_IFUNC_FN_MAX + 1;	/* arch_ifunc_targets() says it is too long */
	code = malloc(size ? size : 1);
	if (!code)
		return -ENOMEM;
	if (size && elfmod__read(mod, vaddr, code, size) < 0)
		size = 0;
	n = arch_ifunc_targets(code, size, vaddr, addrs, IFUNC_IMPLS_MAX, &why);
	free(code);
	if (n == -ENOMEM)
		return n;
	if (n == 0)
		n = ptap_err_set(&why, -1, -ENOTSUP, "it returns no address");
	if (n < 0)
		return ptap_err_set(err, -1, -ENOTSUP, "its resolver (at 0x%lx) cannot be followed: "
				    "%s", (unsigned long)vaddr, why.msg);
	for (int i = 0; i < n; i++)
		if (!elfmod__is_code(mod, addrs[i]))
			return ptap_err_set(err, -1, -ENOTSUP, "its resolver (at 0x%lx) returns "
					    "0x%lx, which is not code", (unsigned long)vaddr,
					    (unsigned long)addrs[i]);
	*out = calloc(n, sizeof(**out));
	if (!*out)
		return -ENOMEM;
	for (int i = 0; i < n; i++)
		(*out)[i] = (struct ifunc_impl){ .vaddr = addrs[i],
						 .name = func_at(dbg, mod, addrs[i]) };
	return n;
}

int ifunc_impls(struct dbg *dbg, const struct elfmod *mod, const char *name, uint64_t vaddr,
		uint64_t size, struct ifunc_impl **out, struct ptap_err *err)
{
	struct ptap_err why = { .pos = -1 };
	int n = ifunc_impls_why(dbg, mod, vaddr, size, out, &why);

	if (n == -ENOTSUP)
		return ptap_err_set(err, -1, n, "cannot tell which functions the IFUNC '%s' selects: "
				    "%s; probe an implementation by its own name", name, why.msg);
	return n;
}
