/* cmd/vars.c: `ptap vars -x BIN POINT` -- for each site of POINT,
 * every variable in scope with its type and where its value is (perf probe
 * -V's equivalent).  Reads files only; traces nothing. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "dwarf/debuginfo.h"
#include "dwarf/elfmod.h"
#include "dwarf/points.h"
#include "dwarf/varlist.h"
#include "probes/err.h"
#include "probes/log.h"
#include "probes/spec.h"
#include "tracer/host/libpath.h"

static const char vars_usage[] =
	"usage: ptap vars [OPTIONS] -x BINARY POINT\n"
	"  POINT: FUNC[@SRC][+OFF|:RELLINE] | SRC:LINE | 0xADDR (perf probe syntax; FUNC\n"
	"         may be a glob)\n"
	"  -x, --exec BINARY     the executable or library to read\n"
	"      --globals         also list the file-scope variables of each site's unit\n"
	"      --debuginfo-dir DIR  look for separate debug files in DIR first\n"
	"      --max-probes N    at most N sites (default 128)\n"
	"      --no-inlines      only out-of-line copies of functions\n"
	"Each site prints as `FUNC+OFF FILE:LINE` (an inlined copy: FUNC@CALLER+OFF),\n"
	"then one variable a line, parameters first: TYPE NAME, a tab, and in [] how\n"
	"its value is found there: frame (stack or frame pointer relative), register\n"
	"%REG, global, const, pieces, expr (computed), or optimized out / cannot fetch:\n"
	"WHY.  Globals are listed only with --globals.\n";

static int print_var(const struct varlist_var *v, void *priv)
{
	int *shown = priv;

	printf("\t%s%s%s\t[%s]\n", v->type,
	       v->type[0] && v->type[strlen(v->type) - 1] == '*' ? "" : " ", v->name, v->loc);
	(*shown)++;
	return 0;
}

static void print_site(struct dbg *dbg, const struct elfmod *mod, const struct point_site *site,
		       bool globals)
{
	uint64_t off;
	int shown = 0;

	/* Where exactly: FUNC+OFF from the function's entry, as perf probe -V says it. */
	if (varlist__func_offset(dbg, site, &off))
		printf("%s+%lu", site->func, (unsigned long)off);
	else
		printf("%s", site->where);
	if (site->file)
		printf(" %s:%d", site->file, site->line);
	printf("\n");
	if (!site->has_die)
		printf("\t(no DWARF for this function: only %%REG, $argN, +OFF(...) and @SYMBOL)\n");
	else if (varlist__walk(dbg, mod, site, globals, print_var, &shown) == 0 && !shown)
		printf("\t(no variables)\n");
}

enum { OPT_GLOBALS = 256, OPT_DEBUGINFO_DIR, OPT_MAX_PROBES, OPT_NO_INLINES };

int cmd_vars(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "exec", required_argument, NULL, 'x' },
		{ "globals", no_argument, NULL, OPT_GLOBALS },
		{ "debuginfo-dir", required_argument, NULL, OPT_DEBUGINFO_DIR },
		{ "max-probes", required_argument, NULL, OPT_MAX_PROBES },
		{ "no-inlines", no_argument, NULL, OPT_NO_INLINES },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct point_opts po = { .max_probes = POINTS_MAX_DEFAULT };
	struct ptap_err err = { .pos = -1 };
	const char *bin = NULL, *dir = NULL;
	struct probe_spec *spec = NULL;
	struct point_site *sites = NULL;
	struct elfmod *mod = NULL;
	char binpath[4096];
	struct dbg_cache *dc = NULL;
	struct dbg *dbg;
	bool globals = false;
	int c, n = 0, r;
	char *end;

	while ((c = getopt_long(argc, argv, "+x:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'x':
			bin = optarg;
			break;
		case OPT_GLOBALS:
			globals = true;
			break;
		case OPT_DEBUGINFO_DIR:
			dir = optarg;
			break;
		case OPT_MAX_PROBES:
			po.max_probes = (int)strtol(optarg, &end, 10);
			if (*end || po.max_probes < 1) {
				pr_err("--max-probes %s: give a positive number\n", optarg);
				return 2;
			}
			break;
		case OPT_NO_INLINES:
			po.no_inlines = true;
			break;
		case 'h':
			fputs(vars_usage, stdout);
			return 0;
		default:
			return cmd_see_help("vars");
		}
	}
	if (!bin || optind != argc - 1) {
		pr_err("vars: %s\n", !bin ? "give the binary with -x BINARY" : "give exactly one POINT");
		return cmd_see_help("vars");
	}
	r = probe_spec__parse(argv[optind], &spec, &err);
	if (r == 0 && spec->nargs)
		r = ptap_err_set(&err, spec->args[0].pos, -EINVAL,
				 "`ptap vars` takes a probe point only, no arguments");
	if (r == 0)
		r = elfmod__open(libpath_or(bin, binpath, sizeof(binpath)), &mod, &err);
	if (r == 0)
		r = dbg_cache__new(&dc);
	if (r == 0)
		r = dbg_cache__get(dc, mod, dir, &dbg, &err);
	if (r == 0)
		r = points__find(dbg, mod, &spec->point, &po, &sites, &n, &err);
	if (r < 0) {
		pr_err("%s: %s\n", argv[optind], err.msg[0] ? err.msg : strerror(-r));
		if (err.pos >= 0)
			fprintf(stderr, "  %s\n  %*s^\n", argv[optind], err.pos, "");
		r = 2;
		goto out;
	}
	if (!dbg__has_dwarf(dbg))
		pr_warn("%s has no DWARF debug info (build with -g, or install its debug "
			"package): no variables; %%REG, $argN and @SYMBOL still work\n", bin);
	for (int i = 0; i < n; i++)
		print_site(dbg, mod, &sites[i], globals);
	r = 0;
out:
	points__free(sites, n);
	probe_spec__free(spec);
	dbg_cache__free(dc);
	elfmod__close(mod);
	return r;
}
