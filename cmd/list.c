/* cmd/list.c: `ptap list -x BINARY [GLOB]` -- the functions of
 * BINARY, one per line as NAME<TAB>FILE:LINE (just NAME when there is no
 * DWARF for it; an IFUNC: NAME<TAB>(ifunc) -> IMPL, IMPL...), sorted by name.  Exit 0; 1 when nothing matches; 2 for a
 * usage error or a BINARY that cannot be read. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "dwarf/debuginfo.h"
#include "dwarf/elfmod.h"
#include "dwarf/points.h"
#include "probes/err.h"
#include "probes/log.h"
#include "tracer/host/libpath.h"

static const char list_usage[] =
	"usage: ptap list -x BINARY [GLOB]\n"
	"  functions of BINARY (matching GLOB) with their source FILE:LINE\n"
	"  -x, --exec BINARY        the executable or shared library\n"
	"      --debuginfo-dir DIR  look for separate debug files in DIR first\n"
	"  -v, --verbose            more messages (repeat for more)\n";

static void print_func(const struct list_func *f, void *priv)
{
	int *count = priv;

	if (f->ifunc && f->nimpls) {
		printf("%s\t(ifunc) ->", f->name);
		for (int i = 0; i < f->nimpls; i++)
			printf("%s %s", i ? "," : "", f->impls[i]);
		printf("\n");
	} else if (f->ifunc) {
		printf("%s\t(ifunc) -> ? (%s)\n", f->name, f->why);
	} else if (f->file && f->line > 0) {
		printf("%s\t%s:%d\n", f->name, f->file, f->line);
	} else if (f->file) {
		printf("%s\t%s\n", f->name, f->file);
	} else {
		printf("%s\n", f->name);
	}
	(*count)++;
}

enum { OPT_DEBUGINFO_DIR = 256 };

int cmd_list(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "exec", required_argument, NULL, 'x' },
		{ "debuginfo-dir", required_argument, NULL, OPT_DEBUGINFO_DIR },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	const char *bin = NULL, *dir = NULL, *glob = NULL;
	struct ptap_err err = { .pos = -1 };
	struct elfmod *mod = NULL;
	char binpath[4096];
	struct dbg_cache *dc = NULL;
	struct dbg *dbg = NULL;
	int c, r, count = 0, status;

	while ((c = getopt_long(argc, argv, "+x:vh", longopts, NULL)) != -1) {
		switch (c) {
		case 'x':
			bin = optarg;
			break;
		case OPT_DEBUGINFO_DIR:
			dir = optarg;
			break;
		case 'v':
			log_more_verbose();
			break;
		case 'h':
			fputs(list_usage, stdout);
			return 0;
		default:
			return cmd_see_help("list");
		}
	}
	if (!bin) {
		pr_err("list: give the binary with -x BINARY\n");
		return cmd_see_help("list");
	}
	if (optind < argc)
		glob = argv[optind++];
	if (optind < argc) {
		pr_err("list: one GLOB at most ('%s' is extra)\n", argv[optind]);
		return cmd_see_help("list");
	}
	r = elfmod__open(libpath_or(bin, binpath, sizeof(binpath)), &mod, &err);
	if (r == 0)
		r = dbg_cache__new(&dc);
	if (r == 0)
		r = dbg_cache__get(dc, mod, dir, &dbg, &err);
	if (r < 0) {
		pr_err("%s\n", err.msg[0] ? err.msg : strerror(-r));
		dbg_cache__free(dc);
		elfmod__close(mod);
		return 2;
	}
	r = points__list_funcs(dbg, mod, glob, print_func, &count);
	if (r < 0) {
		pr_err("cannot list the functions of %s: %s\n", bin, strerror(-r));
		status = 2;
	} else if (count == 0) {
		const char *hint = elfmod__stripped(mod) && !dbg__has_dwarf(dbg) ?
			": " ELFMOD_STRIPPED_SAID " or give --debuginfo-dir" : "";

		if (glob)
			pr_err("no function matches '%s' in %s%s\n", glob, bin, hint);
		else
			pr_err("no functions in %s%s\n", bin, hint);
		status = 1;
	} else {
		status = 0;
	}
	if (fflush(stdout) != 0 && status == 0) {
		pr_err("list: cannot write the output\n");
		status = 2;
	}
	dbg_cache__free(dc);
	elfmod__close(mod);
	return status;
}
