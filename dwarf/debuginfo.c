/* dwarf/debuginfo.c: one libdwfl session per module, found by build-id
 * (or by path when the file has none) in a run-wide cache. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dwarf/debuginfo.h"
#include "dwarf/elfmod.h"
#include "probes/err.h"
#include "probes/log.h"

struct dbg {
	char *path;
	uint8_t *build_id;
	size_t build_id_len;
	char *dipath;		/* the debuginfo_path the Dwfl_Callbacks point at */
	Dwfl_Callbacks cb;
	Dwfl *dwfl;
	Dwfl_Module *mod;
	Dwarf *dw;
	Dwarf_Addr bias;
	Dwarf_CFI *cfi;
	Dwarf_Addr cfi_bias;
	const char *debug_path;
	struct dbg *next;
};

static struct dbg *cache;

static bool same_module(const struct dbg *d, const struct elfmod *mod, const uint8_t *id,
			size_t idlen)
{
	if (id && d->build_id)
		return idlen == d->build_id_len && !memcmp(id, d->build_id, idlen);
	return !id && !d->build_id && !strcmp(d->path, elfmod__path(mod));
}

/*
 * libdwfl's search path: "+" checks .gnu_debuglink CRCs; the empty entry is
 * the module's own directory, ".debug" a subdirectory of it; absolute
 * entries are searched for .build-id/NN/REST.debug and for the module's path
 * under them.  DIR goes first.
 */
static char *search_path(const char *dir)
{
	char *p;

	if (asprintf(&p, "+:%s%s.debug:/usr/lib/debug", dir ? dir : "", dir ? "::" : "") < 0)
		return NULL;
	return p;
}

static void dbg_free(struct dbg *d)
{
	if (d->dwfl)
		dwfl_end(d->dwfl);
	free(d->path);
	free(d->build_id);
	free(d->dipath);
	free(d);
}

static int dbg_open(struct dbg *d, const struct elfmod *mod, const char *dir,
		    struct ptap_err *err)
{
	const char *mainfile = NULL, *debugfile = NULL;

	d->dipath = search_path(dir);
	d->path = strdup(elfmod__path(mod));
	if (!d->dipath || !d->path)
		return -ENOMEM;
	d->cb.find_elf = dwfl_build_id_find_elf;
	d->cb.find_debuginfo = dwfl_standard_find_debuginfo;
	d->cb.section_address = dwfl_offline_section_address;
	d->cb.debuginfo_path = &d->dipath;
	d->dwfl = dwfl_begin(&d->cb);
	if (!d->dwfl)
		return ptap_err_set(err, -1, -ENOMEM, "libdwfl: %s", dwfl_errmsg(-1));
	dwfl_report_begin(d->dwfl);
	/* Base 0 added to p_vaddr: module addresses are link-time addresses. */
	d->mod = dwfl_report_elf(d->dwfl, d->path, d->path, -1, 0, true);
	if (!d->mod || dwfl_report_end(d->dwfl, NULL, NULL) != 0)
		return ptap_err_set(err, -1, -ENOEXEC, "libdwfl cannot open %s: %s", d->path,
				    dwfl_errmsg(-1));
	d->dw = dwfl_module_getdwarf(d->mod, &d->bias);
	d->cfi = dwfl_module_dwarf_cfi(d->mod, &d->cfi_bias);
	if (!d->cfi)
		d->cfi = dwfl_module_eh_cfi(d->mod, &d->cfi_bias);
	dwfl_module_info(d->mod, NULL, NULL, NULL, NULL, NULL, &mainfile, &debugfile);
	if (d->dw)
		d->debug_path = debugfile ? debugfile : mainfile ? mainfile : d->path;
	pr_debug("%s: DWARF %s (bias 0x%lx)\n", d->path,
		 d->debug_path ? d->debug_path : "none", (unsigned long)d->bias);
	return 0;
}

int dbg__get(const struct elfmod *mod, const char *dir, struct dbg **out, struct ptap_err *err)
{
	const uint8_t *id = NULL;
	size_t idlen = 0;
	struct dbg *d;
	int r;

	if (elfmod__build_id(mod, &id, &idlen) < 0)
		id = NULL;
	for (d = cache; d; d = d->next)
		if (same_module(d, mod, id, idlen)) {
			*out = d;
			return 0;
		}
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	if (id) {
		d->build_id = malloc(idlen);
		if (!d->build_id) {
			free(d);
			return -ENOMEM;
		}
		memcpy(d->build_id, id, idlen);
		d->build_id_len = idlen;
	}
	r = dbg_open(d, mod, dir, err);
	if (r < 0) {
		dbg_free(d);
		return r;
	}
	d->next = cache;
	cache = d;
	*out = d;
	return 0;
}

Dwarf *dbg__dwarf(const struct dbg *d) { return d->dw; }
uint64_t dbg__bias(const struct dbg *d) { return d->bias; }
Dwarf_CFI *dbg__cfi(const struct dbg *d) { return d->cfi; }
uint64_t dbg__cfi_bias(const struct dbg *d) { return d->cfi_bias; }
Dwfl_Module *dbg__module(const struct dbg *d) { return d->mod; }
const char *dbg__debug_path(const struct dbg *d) { return d->debug_path; }
const char *dbg__path(const struct dbg *d) { return d->path; }

void dbg__cache_clear(void)
{
	while (cache) {
		struct dbg *d = cache;

		cache = d->next;
		dbg_free(d);
	}
}
