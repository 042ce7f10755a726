/* dwarf/resolve.c: probe spec -> site address, displaced instruction and
 * fetch programs, from ELF symbols (DWARF names come with debug info
 * support).  Never calls ptrace; reads only the ELF file. */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <elf.h>

#include "arch/arch.h"
#include "dwarf/args_int.h"
#include "dwarf/elfmod.h"
#include "dwarf/points.h"
#include "dwarf/resolve.h"
#include "probes/err.h"
#include "probes/spec.h"

static bool is_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

/* "no function 'exec_qurey' in PATH; nearest: exec_query, ..." */
static int err_no_function(const struct elfmod *mod, const char *name, struct ptap_err *err)
{
	const char *near[5];
	char list[160] = "";
	int n = elfmod__nearest_funcs(mod, name, near, 5);

	for (int i = 0; i < n; i++) {
		size_t used = strlen(list);

		snprintf(list + used, sizeof(list) - used, "%s%s", i ? ", " : "", near[i]);
	}
	if (n > 0)
		return ptap_err_set(err, -1, -ENOENT, "no function '%s' in %s; nearest: %s", name,
				    elfmod__path(mod), list);
	return ptap_err_set(err, -1, -ENOENT, "no function '%s' in %s (and no similar names)", name,
			    elfmod__path(mod));
}

static int resolve_func(struct resolved_probe *rp, const struct elfmod *mod,
			const struct probe_point *pp, struct ptap_err *err)
{
	struct elfmod_sym sym;
	char where[160];

	if (is_glob(pp->func))
		return ptap_err_set(err, -1, -EINVAL,
				    "'%s': globs need the function list from DWARF, not supported yet; "
				    "name one function", pp->func);
	if (elfmod__find_sym(mod, pp->func, &sym) < 0)
		return err_no_function(mod, pp->func, err);
	if (sym.type == STT_GNU_IFUNC)
		return ptap_err_set(err, -1, -EINVAL,
				    "'%s' is an IFUNC resolver in %s; probe the implementation it "
				    "selects (see `nm -D`)", pp->func, elfmod__path(mod));
	if (sym.type != STT_FUNC)
		return ptap_err_set(err, -1, -EINVAL, "'%s' in %s is not a function", pp->func,
				    elfmod__path(mod));
	if (pp->offset < 0 || (sym.size && (uint64_t)pp->offset >= sym.size))
		return ptap_err_set(err, -1, -EINVAL, "offset %ld is outside %s (size %lu)",
				    pp->offset, pp->func, (unsigned long)sym.size);
	rp->vaddr = sym.vaddr + pp->offset;
	if (pp->offset && points_check_boundary(mod, sym.vaddr, rp->vaddr, err) < 0)
		return -EINVAL;
	if (pp->offset)
		snprintf(where, sizeof(where), "%s+%ld", pp->func, pp->offset);
	else
		snprintf(where, sizeof(where), "%s", pp->func);
	rp->where = strdup(where);
	return rp->where ? 0 : -ENOMEM;
}

static int resolve_point(struct resolved_probe *rp, const struct elfmod *mod,
			 const struct probe_point *pp, struct ptap_err *err)
{
	char where[32];

	if (pp->retprobe)
		return ptap_err_set(err, -1, -ENOTSUP,
				    "return probes (%s%%return) are not supported yet", pp->func);
	if (pp->kind == PP_SRCLINE || pp->line || pp->src)
		return ptap_err_set(err, -1, -ENOTSUP,
				    "source files and lines need DWARF line info, which ptap does not "
				    "read yet; use FUNC, FUNC+OFF or 0xADDR");
	if (pp->kind == PP_FUNC)
		return resolve_func(rp, mod, pp, err);
	struct elfmod_sym sym;

	/* An int3 inside an instruction would corrupt it: the address must start one. */
	if (elfmod__sym_at(mod, pp->addr, &sym) < 0)
		return ptap_err_set(err, -1, -EINVAL,
				    "0x%lx is not inside a function of %s; give FUNC+OFF or the "
				    "address of an instruction in a function", (unsigned long)pp->addr,
				    elfmod__path(mod));
	if (points_check_boundary(mod, sym.vaddr, pp->addr, err) < 0)
		return -EINVAL;
	rp->vaddr = pp->addr;
	snprintf(where, sizeof(where), "0x%lx", (unsigned long)pp->addr);
	rp->where = strdup(where);
	return rp->where ? 0 : -ENOMEM;
}

static int decode_site(struct resolved_probe *rp, const struct elfmod *mod, struct ptap_err *err)
{
	uint8_t code[ARCH_MAX_INSN];
	char why[96] = "";
	size_t n;
	int r;

	if (elfmod__vaddr_to_offset(mod, rp->vaddr, &rp->file_off) < 0)
		return ptap_err_set(err, -1, -EINVAL, "0x%lx is not in a loadable segment of %s",
				    (unsigned long)rp->vaddr, elfmod__path(mod));
	/* The instruction may end near the segment end: try shorter reads. */
	for (n = sizeof(code); n > 0; n--)
		if (elfmod__read(mod, rp->vaddr, code, n) == 0)
			break;
	if (n == 0)
		return ptap_err_set(err, -1, -EINVAL, "cannot read the code at %s", rp->where);
	r = arch_insn_analyze(code, n, rp->vaddr, &rp->insn, why, sizeof(why));
	if (r == -ENOTSUP)
		return ptap_err_set(err, -1, -ENOTSUP, "cannot probe %s: its first instruction '%s' %s",
				    rp->where, rp->insn.text, why);
	if (r < 0)
		return ptap_err_set(err, -1, -EINVAL, "cannot decode the instruction at %s",
				    rp->where);
	return 0;
}

int resolved_probe__init(struct resolved_probe *rp, struct elfmod *mod,
			 const struct probe_spec *spec, struct ptap_err *err)
{
	int r;

	memset(rp, 0, sizeof(*rp));
	r = resolve_point(rp, mod, &spec->point, err);
	if (r == 0)
		r = decode_site(rp, mod, err);
	if (r == 0)
		r = args_compile(rp, mod, spec, err);
	if (r < 0)
		resolved_probe__exit(rp);
	return r;
}

void resolved_probe__exit(struct resolved_probe *rp)
{
	if (!rp)
		return;
	for (int i = 0; rp->names && i < rp->nargs; i++)
		free(rp->names[i]);
	free(rp->names);
	free(rp->progs);
	free(rp->where);
	memset(rp, 0, sizeof(*rp));
}
