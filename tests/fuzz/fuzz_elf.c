/* tests/fuzz/fuzz_elf.c: ELF and DWARF loading on a mutated binary: what
 * `ptap list`, `ptap vars` and probe resolution do with it (dwarf/elfmod.h,
 * dwarf/debuginfo.h, dwarf/points.h, dwarf/varlist.h, dwarf/resolve.h), and the
 * map table's view of its first bytes (elfimage__from_mem). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dwarf/debuginfo.h"
#include "dwarf/elfimage.h"
#include "dwarf/elfmod.h"
#include "dwarf/points.h"
#include "dwarf/resolve.h"
#include "dwarf/varlist.h"
#include "probes/err.h"
#include "probes/spec.h"
#include "tests/fuzz/fuzz.h"

#define NFUNCS	3	/* functions probed per input: enough, and bounded */

struct funcs {
	char *name[NFUNCS];
	int n;
};

static void keep_func(const struct list_func *lf, void *priv)
{
	struct funcs *f = priv;

	if (f->n < NFUNCS)
		f->name[f->n++] = strdup(lf->name);
}

static int describe_var(const struct varlist_var *v, void *priv)
{
	(void)v;
	(void)priv;
	return 0;
}

/* `ptap vars -x BIN POINT --globals` without the printing. */
static void vars(struct dbg *dbg, struct elfmod *mod, const char *point)
{
	struct point_opts po = { .max_probes = 8 };
	struct ptap_err err = { .pos = -1 };
	struct probe_spec *spec = NULL;
	struct point_site *sites = NULL;
	int n = 0;

	if (probe_spec__parse(point, &spec, NULL) < 0)
		return;
	if (points__find(dbg, mod, &spec->point, &po, &sites, &n, &err) == 0) {
		for (int i = 0; i < n; i++)
			if (sites[i].has_die)
				varlist__walk(dbg, mod, &sites[i], true, describe_var, NULL);
		points__free(sites, n);
	}
	probe_spec__free(spec);
}

/* What `ptap record -e PROBE` resolves before it runs anything. */
static void resolve(struct dbg_cache *dc, struct elfmod *mod, const char *probe)
{
	struct resolve_opts ro = { .dbgs = dc, .max_probes = 8, .exe = mod };
	struct ptap_err err = { .pos = -1 };
	struct resolved_probe *rps = NULL;
	struct probe_spec *spec = NULL;
	int n = 0;

	if (probe_spec__parse(probe, &spec, NULL) < 0)
		return;
	if (resolve_probes(mod, spec, &ro, &rps, &n, &err) == 0)
		resolved_probes_free(rps, n);
	probe_spec__free(spec);
}

static void probe_funcs(struct dbg_cache *dc, struct dbg *dbg, struct elfmod *mod,
			const struct funcs *f)
{
	static const char *const fmts[] = {
		"%s", "%s $params", "%s%%return $retval $params", "%s+4 %%di:string $arg7",
		"%s:2 $vars",
	};
	char text[512];

	for (int i = 0; i < f->n; i++) {
		struct elfmod_sym sym;

		snprintf(text, sizeof(text), "%s", f->name[i]);
		vars(dbg, mod, text);
		for (size_t k = 0; k < sizeof(fmts) / sizeof(fmts[0]); k++) {
			snprintf(text, sizeof(text), fmts[k], f->name[i]);
			resolve(dc, mod, text);
		}
		if (elfmod__find_sym(mod, f->name[i], &sym) == 0) {
			uint8_t code[16];
			uint64_t off;

			elfmod__sym_at(mod, sym.vaddr + 1, &sym);
			elfmod__read(mod, sym.vaddr, code, sizeof(code));
			if (elfmod__vaddr_to_offset(mod, sym.vaddr, &off) == 0)
				elfmod__offset_to_vaddr(mod, off, &off);
			snprintf(text, sizeof(text), "0x%llx", (unsigned long long)sym.vaddr);
			resolve(dc, mod, text);
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool init;
	struct ptap_err err = { .pos = -1 };
	struct elfimage img;
	struct elfmod *mod = NULL;
	struct dbg_cache *dc = NULL;
	struct dbg *dbg = NULL;
	struct funcs f = { .n = 0 };
	const char *near[4];
	const uint8_t *id;
	size_t idlen;
	char path[64];
	int fd;

	if (!init) {
		fuzz_quiet();
		unsetenv("DEBUGINFOD_URLS");	/* no network */
		init = true;
	}
	elfimage__from_mem(data, size, &img);

	fd = fuzz_memfd(data, size, path, sizeof(path));
	if (fd < 0)
		return 0;
	if (elfmod__open(path, &mod, &err) == 0) {
		elfmod__build_id(mod, &id, &idlen);
		elfmod__base_vaddr(mod);
		elfmod__nearest_funcs(mod, "mian", near, 4);
		elfmod__copy_reloc(mod, "stdout");
		if (dbg_cache__new(&dc) == 0 && dbg_cache__get(dc, mod, NULL, &dbg, &err) == 0) {
			points__list_funcs(dbg, mod, NULL, keep_func, &f);
			probe_funcs(dc, dbg, mod, &f);
			vars(dbg, mod, "*");
			vars(dbg, mod, "f.c:3");
		}
		dbg_cache__free(dc);
		elfmod__close(mod);
	}
	for (int i = 0; i < f.n; i++)
		free(f.name[i]);
	close(fd);
	return 0;
}
