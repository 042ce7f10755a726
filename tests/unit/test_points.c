/* tests/unit/test_points.c: dwarf/points.h on the fixture built from
 * tests/unit/fixtures/ (-O0 -g and -O2 -g), on build/samples and on the
 * system's libc.  Expected addresses come from outside libdw: nm, objdump
 * -d and objdump --dwarf=decodedline; expected lines from the "L:" markers
 * in the fixture's source. */
#include <dwarf.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "dwarf/debuginfo.h"
#include "dwarf/elfmod.h"
#include "dwarf/points.h"
#include "dwarf/site_int.h"	/* private: the tests check the DIEs of the sites */
#include "probes/err.h"
#include "probes/spec.h"

#define LIBC		"/lib/x86_64-linux-gnu/libc.so.6"
#define FX_SRC		"tests/unit/fixtures/points_fx.c"
#define FX2_SRC		"tests/unit/fixtures/points_fx2.c"
#define MAXROWS		16

/* ---- paths ------------------------------------------------------------------ */

/* The build directory: the unit binary is $(O)/unit. */
static const char *build_dir(void)
{
	static char dir[PATH_MAX / 2];
	ssize_t n;

	if (dir[0])
		return dir;
	n = readlink("/proc/self/exe", dir, sizeof(dir) - 1);
	cr_assert(gt(long, n, 0));
	dir[n] = '\0';
	*strrchr(dir, '/') = '\0';
	return dir;
}

/* $(O)/REL, in one of a few rotating buffers. */
static const char *bpath(const char *rel)
{
	static char bufs[4][PATH_MAX];
	static int next;
	char *b = bufs[next++ % 4];

	snprintf(b, PATH_MAX, "%s/%s", build_dir(), rel);
	cr_assert(eq(int, access(b, R_OK), 0), "%s is missing: run `make unit`", b);
	return b;
}

/* The first line of SRC containing KEY. */
static int src_text_line(const char *src, const char *key)
{
	char text[512];
	FILE *f = fopen(src, "r");
	int n = 0;

	cr_assert_not_null(f, "cannot open %s (run the tests from the top directory)", src);
	while (fgets(text, sizeof(text), f)) {
		n++;
		if (strstr(text, key)) {
			fclose(f);
			return n;
		}
	}
	fclose(f);
	cr_fatal("no %s in %s", key, src);
	return 0;
}

/* The line of SRC holding MARKER ("L:add_body"). */
static int src_line(const char *src, const char *marker)
{
	char key[64];

	snprintf(key, sizeof(key), "/* %s */", marker);
	return src_text_line(src, key);
}

/* ---- independent expectations: nm and objdump --------------------------------- */

static FILE *run(const char *fmt, const char *a, const char *b)
{
	char cmd[1024];
	FILE *p;

	snprintf(cmd, sizeof(cmd), fmt, a, b);
	p = popen(cmd, "r");
	cr_assert_not_null(p, "%s", cmd);
	return p;
}

/* The addresses of the function symbols NAME of BIN (`nm`), ascending. */
static int nm_addrs(const char *bin, const char *name, uint64_t *out, int max)
{
	FILE *p = run("nm -n '%s' | awk '$3 == \"%s\" && $2 ~ /[Tt]/ { print $1 }'", bin, name);
	unsigned long a;
	int n = 0;

	while (n < max && fscanf(p, "%lx", &a) == 1)
		out[n++] = a;
	pclose(p);
	return n;
}

static uint64_t nm_addr(const char *bin, const char *name)
{
	uint64_t a[2] = { 0, 0 };

	cr_assert(eq(int, nm_addrs(bin, name, a, 2), 1), "nm: one %s in %s", name, bin);
	return a[0];
}

/* Statement rows of FILE (a basename):LINE in BIN, ascending, each address once. */
static int line_rows(const char *bin, const char *file, int line, uint64_t *out, int max)
{
	FILE *p = run("objdump --dwarf=decodedline '%s' | grep '^%s '", bin, file);
	char text[256];
	int n = 0;

	while (fgets(text, sizeof(text), p)) {
		char name[128];
		unsigned long a;
		int ln;
		size_t len = strcspn(text, "\n");

		text[len] = '\0';
		while (len && text[len - 1] == ' ')
			text[--len] = '\0';
		if (sscanf(text, "%127s %d %lx", name, &ln, &a) != 3 || ln != line ||
		    !len || text[len - 1] != 'x')
			continue;
		if (n && out[n - 1] == a)
			continue;
		cr_assert(lt(int, n, max));
		out[n++] = a;
	}
	pclose(p);
	return n;
}

/* The addresses of the first instructions of the function at ADDR in BIN (objdump -d). */
static int insn_addrs(const char *bin, uint64_t addr, uint64_t *out, int max)
{
	char fmt[256], a1[32], a2[32];
	FILE *p;
	char text[256];
	int n = 0;

	snprintf(a1, sizeof(a1), "%#lx", (unsigned long)addr);
	snprintf(a2, sizeof(a2), "%#lx", (unsigned long)addr + 32);
	snprintf(fmt, sizeof(fmt), "objdump -d --start-address=%%s --stop-address=%%s '%s'", bin);
	p = run(fmt, a1, a2);
	while (n < max && fgets(text, sizeof(text), p)) {
		unsigned long a;
		char colon;

		if (sscanf(text, " %lx%c", &a, &colon) == 2 && colon == ':' && text[0] == ' ')
			out[n++] = a;
	}
	pclose(p);
	return n;
}

/* ---- running points__find() ----------------------------------------------------- */

struct fx {
	struct elfmod *mod;
	struct dbg_cache *dc;
	struct dbg *dbg;
	struct point_site *sites;
	int n;
	struct ptap_err err;
};

static void fx_open(struct fx *f, const char *bin)
{
	struct ptap_err err = { .pos = -1 };

	memset(f, 0, sizeof(*f));
	cr_assert(eq(int, elfmod__open(bin, &f->mod, &err), 0), "%s", err.msg);
	cr_assert(eq(int, dbg_cache__new(&f->dc), 0));
	cr_assert(eq(int, dbg_cache__get(f->dc, f->mod, NULL, &f->dbg, &err), 0), "%s", err.msg);
}

/* Resolve POINT with MAX_PROBES (0: default) and NO_INLINES; the return value. */
static int fx_points(struct fx *f, const char *point, int max_probes, bool no_inlines)
{
	struct point_opts o = { .max_probes = max_probes ? max_probes : POINTS_MAX_DEFAULT,
				.no_inlines = no_inlines };
	struct probe_spec *spec;
	struct ptap_err perr = { .pos = -1 };
	int r;

	cr_assert(eq(int, probe_spec__parse(point, &spec, &perr), 0), "%s: %s", point, perr.msg);
	points__free(f->sites, f->n);
	f->sites = NULL;
	f->n = 0;
	f->err = (struct ptap_err){ .pos = -1 };
	r = points__find(f->dbg, f->mod, &spec->point, &o, &f->sites, &f->n, &f->err);
	probe_spec__free(spec);
	if (r == 0) {
		cr_assert(ge(int, f->n, 1));
		for (int i = 1; i < f->n; i++)
			cr_assert(lt(u64, f->sites[i - 1].vaddr, f->sites[i].vaddr),
				  "sorted, distinct");
	}
	return r;
}

static void fx_close(struct fx *f)
{
	points__free(f->sites, f->n);
	dbg_cache__free(f->dc);
	elfmod__close(f->mod);
}

static bool ends_with(const char *s, const char *tail)
{
	size_t ls = s ? strlen(s) : 0, lt = strlen(tail);

	return s && ls >= lt && !strcmp(s + ls - lt, tail);
}

static const char *die_name(Dwarf_Die *die)
{
	Dwarf_Attribute a;

	return dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &a));
}

/* ---- FUNC: entry or past the prologue -------------------------------------------- */

Test(points, func_O0_lands_after_the_prologue)
{
	const char *bin = bpath("tests/fixtures/points-O0");
	int body = src_line(FX_SRC, "L:add_body");
	uint64_t sym = nm_addr(bin, "fx_add"), rows[MAXROWS];
	struct fx f;

	cr_assert(eq(int, line_rows(bin, "points_fx.c", body, rows, MAXROWS), 1));
	fx_open(&f, bin);
	cr_assert(eq(int, fx_points(&f, "fx_add", 0, false), 0), "%s", f.err.msg);
	cr_assert(eq(int, f.n, 1));
	cr_assert(gt(u64, f.sites[0].vaddr, sym));
	cr_assert(eq(u64, f.sites[0].vaddr, rows[0]), "site 0x%lx, first statement row 0x%lx",
		  (unsigned long)f.sites[0].vaddr, (unsigned long)rows[0]);
	cr_assert(eq(int, f.sites[0].after_prologue, true));
	cr_assert(eq(int, f.sites[0].at_entry, false));
	cr_assert(eq(int, f.sites[0].inlined, false));
	cr_assert(eq(int, f.sites[0].has_die, true));
	cr_assert(eq(int, dwarf_tag(&f.sites[0].die->fn), DW_TAG_subprogram));
	cr_assert_str_eq(f.sites[0].func, "fx_add");
	cr_assert_str_eq(f.sites[0].where, "fx_add");
	cr_assert(ends_with(f.sites[0].file, "points_fx.c"), "%s", f.sites[0].file);
	cr_assert(eq(int, f.sites[0].line, body));
	fx_close(&f);
}

Test(points, func_O0_sample_first_statement)
{
	const char *bin = bpath("samples/query_server-O0");
	/* The body's first statement. */
	int first = src_text_line("samples/query_server.c", "int nrows = 1;");
	struct fx f;

	fx_open(&f, bin);
	cr_assert(eq(int, fx_points(&f, "exec_query", 0, false), 0), "%s", f.err.msg);
	cr_assert(eq(int, f.n, 1));
	cr_assert(gt(u64, f.sites[0].vaddr, nm_addr(bin, "exec_query")));
	cr_assert(eq(int, f.sites[0].after_prologue, true));
	cr_assert(eq(int, f.sites[0].line, first));
	fx_close(&f);
}

Test(points, func_O2_at_the_entry)
{
	const char *bin = bpath("tests/fixtures/points-O2");
	struct fx f;

	fx_open(&f, bin);
	cr_assert(eq(int, fx_points(&f, "fx_add", 0, false), 0), "%s", f.err.msg);
	cr_assert(eq(int, f.n, 1));
	cr_assert(eq(u64, f.sites[0].vaddr, nm_addr(bin, "fx_add")));
	cr_assert(eq(int, f.sites[0].at_entry, true));
	cr_assert(eq(int, f.sites[0].after_prologue, false));
	cr_assert_str_eq(f.sites[0].where, "fx_add");
	fx_close(&f);
}

/* -O2 passes a7 and a8 on the stack: at or above the CFA, valid at the entry. */
Test(points, func_O2_stack_arguments_stay_at_the_entry)
{
	const char *bin = bpath("samples/query_server-O2");
	struct fx f;

	fx_open(&f, bin);
	cr_assert(eq(int, fx_points(&f, "query_stats", 0, false), 0), "%s", f.err.msg);
	cr_assert(eq(int, f.n, 1));
	cr_assert(eq(u64, f.sites[0].vaddr, nm_addr(bin, "query_stats")));
	cr_assert(eq(int, f.sites[0].at_entry, true));
	fx_close(&f);
}

Test(points, func_plus_offset)
{
	const char *bin = bpath("tests/fixtures/points-O0");
	uint64_t sym = nm_addr(bin, "fx_add"), insn[8];
	char point[64], want[160];
	long mid = 0;
	struct fx f;
	int ni = insn_addrs(bin, sym, insn, 8);

	cr_assert(ge(int, ni, 4));
	int at = 0;

	for (int i = 0; i + 1 < ni && !mid; i++)
		if (insn[i + 1] - insn[i] > 1) {
			mid = insn[i] + 1 - sym;
			at = i;
		}
	cr_assert(gt(long, mid, 0));
	fx_open(&f, bin);
	snprintf(point, sizeof(point), "fx_add+%lu", (unsigned long)(insn[2] - sym));
	cr_assert(eq(int, fx_points(&f, point, 0, false), 0), "%s", f.err.msg);
	cr_assert(eq(int, f.n, 1));
	cr_assert(eq(u64, f.sites[0].vaddr, insn[2]));
	cr_assert_str_eq(f.sites[0].where, point);
	cr_assert_not(f.sites[0].after_prologue, "FUNC+OFF is not moved");
	cr_assert(eq(int, f.sites[0].at_entry, false));

	snprintf(point, sizeof(point), "fx_add+%ld", mid);
	cr_assert(eq(int, fx_points(&f, point, 0, false), -EINVAL));
	cr_assert_not_null(strstr(f.err.msg, "not an instruction boundary"), "%s", f.err.msg);
	/* the instruction it is inside, and the next one, as addresses and offsets */
	snprintf(want, sizeof(want), "inside the instruction at 0x%lx (+%lu), whose next is at "
		 "0x%lx (+%lu)", (unsigned long)insn[at], (unsigned long)(insn[at] - sym),
		 (unsigned long)insn[at + 1], (unsigned long)(insn[at + 1] - sym));
	cr_assert_not_null(strstr(f.err.msg, want), "%s\nwant: %s", f.err.msg, want);
	cr_assert(eq(int, fx_points(&f, "fx_add+100000", 0, false), -EINVAL));
	cr_assert_not_null(strstr(f.err.msg, "outside fx_add"), "%s", f.err.msg);
	fx_close(&f);
}

/* ---- lines --------------------------------------------------------------------- */

Test(points, src_line_in_two_inlined_instances)
{
	const char *bin = bpath("tests/fixtures/points-O0");
	int body = src_line(FX_SRC, "L:twice_body");
	uint64_t rows[MAXROWS];
	char point[64];
	struct fx f;

	cr_assert(eq(int, line_rows(bin, "points_fx.c", body, rows, MAXROWS), 2));
	fx_open(&f, bin);
	snprintf(point, sizeof(point), "points_fx.c:%d", body);
	cr_assert(eq(int, fx_points(&f, point, 0, false), 0), "%s", f.err.msg);
	cr_assert(eq(int, f.n, 2));
	for (int i = 0; i < 2; i++) {
		cr_assert(eq(u64, f.sites[i].vaddr, rows[i]));
		cr_assert(eq(int, f.sites[i].inlined, true));
		cr_assert(eq(int, dwarf_tag(&f.sites[i].die->fn), DW_TAG_inlined_subroutine));
		cr_assert_str_eq(f.sites[i].func, "fx_twice");
		cr_assert_str_eq(f.sites[i].where, point);
		cr_assert(eq(int, f.sites[i].line, body));
	}
	/* A path with directories names the same file. */
	snprintf(point, sizeof(point), "fixtures/points_fx.c:%d", body);
	cr_assert(eq(int, fx_points(&f, point, 0, false), 0), "%s", f.err.msg);
	cr_assert(eq(int, f.n, 2));
	snprintf(point, sizeof(point), "points_fx.c:%d", body);
	cr_assert(eq(int, fx_points(&f, point, 0, true), -ENOENT), "--no-inlines leaves nothing");
	fx_close(&f);
}

Test(points, src_line_without_code_lists_nearby_lines)
{
	const char *bin = bpath("tests/fixtures/points-O0");
	int body = src_line(FX_SRC, "L:twice_body");
	char point[64], want[96];
	struct fx f;

	fx_open(&f, bin);
	snprintf(point, sizeof(point), "points_fx.c:%d", body + 1);	/* a blank line */
	cr_assert(eq(int, fx_points(&f, point, 0, false), -ENOENT));
	snprintf(want, sizeof(want), "no code at points_fx.c:%d; lines with code near it: ",
		 body + 1);
	cr_assert_not_null(strstr(f.err.msg, want), "%s", f.err.msg);
	snprintf(want, sizeof(want), " %d, %d", body, body + 2);
	cr_assert_not_null(strstr(f.err.msg, want), "%s", f.err.msg);
	cr_assert(eq(int, fx_points(&f, "nosuch.c:3", 0, false), -ENOENT));
	cr_assert_not_null(strstr(f.err.msg, "no source file 'nosuch.c'"), "%s", f.err.msg);
	fx_close(&f);
}

Test(points, func_relative_line)
{
	const char *bin = bpath("tests/fixtures/points-O0");
	int decl = src_line(FX_SRC, "L:add_decl"), body = src_line(FX_SRC, "L:add_body");
	uint64_t rows[MAXROWS];
	char point[64];
	struct fx f;

	cr_assert(eq(int, line_rows(bin, "points_fx.c", body, rows, MAXROWS), 1));
	fx_open(&f, bin);
	snprintf(point, sizeof(point), "fx_add:%d", body - decl);
	cr_assert(eq(int, fx_points(&f, point, 0, false), 0), "%s", f.err.msg);
	cr_assert(eq(int, f.n, 1));
	cr_assert(eq(u64, f.sites[0].vaddr, rows[0]));
	cr_assert_str_eq(f.sites[0].where, point);
	cr_assert(eq(int, f.sites[0].line, body));
	/* The blank line after the body's first statement has no code. */
	snprintf(point, sizeof(point), "fx_add:%d", body - decl + 1);
	cr_assert(eq(int, fx_points(&f, point, 0, false), -ENOENT));
	snprintf(point, sizeof(point), "lines of fx_add with code near it: fx_add:%d",
		 body - decl - 1);
	cr_assert_not_null(strstr(f.err.msg, point), "%s", f.err.msg);
	fx_close(&f);
}

Test(points, func_at_src_chooses_the_file)
{
	const char *bin = bpath("tests/fixtures/points-O2");
	uint64_t dups[2];
	struct fx f;
	int line;

	cr_assert(eq(int, nm_addrs(bin, "fx_dup", dups, 2), 2));
	fx_open(&f, bin);
	cr_assert(eq(int, fx_points(&f, "fx_dup", 0, false), 0), "%s", f.err.msg);
	cr_assert(eq(int, f.n, 2), "both static fx_dup");
	cr_assert(eq(u64, f.sites[0].vaddr, dups[0]));
	cr_assert(eq(u64, f.sites[1].vaddr, dups[1]));

	cr_assert(eq(int, fx_points(&f, "fx_dup@points_fx2.c", 0, false), 0), "%s", f.err.msg);
	cr_assert(eq(int, f.n, 1));
	/* one of the two (the checks below tell it is points_fx2.c's) */
	cr_assert(eq(u64, f.sites[0].vaddr, f.sites[0].vaddr == dups[1] ? dups[1] : dups[0]),
		  "%#lx: neither %#lx nor %#lx", (unsigned long)f.sites[0].vaddr,
		  (unsigned long)dups[0], (unsigned long)dups[1]);
	cr_assert(ends_with(f.sites[0].file, "points_fx2.c"), "%s", f.sites[0].file);
	cr_assert(eq(int, ends_with(dwarf_decl_file(&f.sites[0].die->fn), "points_fx2.c"), true));
	cr_assert(eq(int, dwarf_decl_line(&f.sites[0].die->fn, &line), 0));
	cr_assert(eq(int, line, src_line(FX2_SRC, "L:dup2_decl")));

	cr_assert(eq(int, fx_points(&f, "fx_dup@points_fx.c", 0, false), 0), "%s", f.err.msg);
	cr_assert(eq(int, f.n, 1));
	cr_assert(eq(int, ends_with(dwarf_decl_file(&f.sites[0].die->fn), "/points_fx.c"), true));
	cr_assert(eq(int, fx_points(&f, "fx_dup@nosuch.c", 0, false), -ENOENT));
	fx_close(&f);
}

/* ---- globs and inlined instances ----------------------------------------------- */

Test(points, glob_matches_every_function)
{
	const char *bin = bpath("tests/fixtures/points-O2");
	const char *names[] = { "fx_add", "fx_caller1", "fx_caller2", "fx_dup_entry" };
	uint64_t dups[2];
	struct fx f;

	cr_assert(eq(int, nm_addrs(bin, "fx_dup", dups, 2), 2));
	fx_open(&f, bin);
	cr_assert(eq(int, fx_points(&f, "fx_*", 0, false), 0), "%s", f.err.msg);
	/* At -O2 fx_twice's instances start their callers: one site each. */
	cr_assert(eq(int, f.n, 6));
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		uint64_t a = nm_addr(bin, names[i]);
		bool seen = false;

		for (int k = 0; k < f.n; k++)
			seen |= f.sites[k].vaddr == a && f.sites[k].at_entry;
		cr_assert(seen, "no site at %s (0x%lx)", names[i], (unsigned long)a);
	}
	for (int k = 0, seen = 0; k < f.n; k++) {
		seen += f.sites[k].vaddr == dups[0] || f.sites[k].vaddr == dups[1];
		if (k == f.n - 1)
			cr_assert(eq(int, seen, 2));
	}

	cr_assert(eq(int, fx_points(&f, "fx_*", 3, false), -E2BIG));
	cr_assert_str_eq(f.err.msg, "'fx_*' matches 6 sites; at most 3 (raise it with "
			 "--max-probes 6)");
	cr_assert(eq(int, fx_points(&f, "zz_*", 0, false), -ENOENT));
	fx_close(&f);
}

/* WHERE is "fx_twice@CALLER+0xOFF" with OFF from CALLER's symbol. */
static void check_twice(const char *bin, struct point_site *s, const char *caller)
{
	uint64_t c = nm_addr(bin, caller);
	char want[96];

	cr_assert(eq(int, s->inlined, true));
	cr_assert(eq(int, s->at_entry, true));
	cr_assert(eq(int, s->has_die, true));
	cr_assert(eq(int, dwarf_tag(&s->die->fn), DW_TAG_inlined_subroutine));
	cr_assert_str_eq(die_name(&s->die->fn), "fx_twice");
	cr_assert_str_eq(s->func, "fx_twice");
	snprintf(want, sizeof(want), "fx_twice@%s+0x%lx", caller, (unsigned long)(s->vaddr - c));
	cr_assert_str_eq(s->where, want);
	cr_assert(ge(u64, s->vaddr, c));
}

Test(points, inlined_instances_O0_and_O2)
{
	int body = src_line(FX_SRC, "L:twice_body");
	const char *opt[] = { "tests/fixtures/points-O0", "tests/fixtures/points-O2" };

	for (int v = 0; v < 2; v++) {
		const char *bin = bpath(opt[v]);
		uint64_t none[1];
		struct fx f;

		/* Only inlined: no symbol, found by walking the CUs. */
		cr_assert(eq(int, nm_addrs(bin, "fx_twice", none, 1), 0));
		fx_open(&f, bin);
		cr_assert(eq(int, fx_points(&f, "fx_twice", 0, false), 0), "%s", f.err.msg);
		cr_assert(eq(int, f.n, 2), "%s", bin);
		check_twice(bin, &f.sites[0], "fx_caller1");
		check_twice(bin, &f.sites[1], "fx_caller2");
		if (v == 0) {
			uint64_t rows[MAXROWS];

			/* -O0: each instance starts at its first line's row. */
			cr_assert(eq(int, line_rows(bin, "points_fx.c", body, rows, MAXROWS), 2));
			cr_assert(eq(u64, f.sites[0].vaddr, rows[0]));
			cr_assert(eq(u64, f.sites[1].vaddr, rows[1]));
		} else {
			/* -O2: the callers are the inlined body. */
			cr_assert(eq(u64, f.sites[0].vaddr, nm_addr(bin, "fx_caller1")));
			cr_assert(eq(u64, f.sites[1].vaddr, nm_addr(bin, "fx_caller2")));
		}
		cr_assert(eq(int, fx_points(&f, "fx_twice", 0, true), -ENOENT));
		cr_assert_not_null(strstr(f.err.msg, "'fx_twice' exists only inlined"), "%s",
				   f.err.msg);
		cr_assert_not_null(strstr(f.err.msg, "(2 instances) and --no-inlines"), "%s",
				   f.err.msg);
		cr_assert(eq(int, fx_points(&f, "fx_tw*", 0, false), 0), "%s", f.err.msg);
		cr_assert(eq(int, f.n, 2));
		fx_close(&f);
	}
}

/* ---- bad names, addresses, no DWARF ----------------------------------------------- */

Test(points, unknown_function_names_the_nearest)
{
	struct fx f;

	fx_open(&f, bpath("tests/fixtures/points-O2"));
	cr_assert(eq(int, fx_points(&f, "fx_adx", 0, false), -ENOENT));
	cr_assert_not_null(strstr(f.err.msg, "no function 'fx_adx' in "), "%s", f.err.msg);
	cr_assert_not_null(strstr(f.err.msg, "; nearest: fx_add"), "%s", f.err.msg);
	/* fx_twice has no symbol: the suggestion comes from DWARF. */
	cr_assert(eq(int, fx_points(&f, "fx_twicee", 0, false), -ENOENT));
	cr_assert_not_null(strstr(f.err.msg, "nearest: "), "%s", f.err.msg);
	cr_assert_not_null(strstr(f.err.msg, "fx_twice"), "%s", f.err.msg);
	fx_close(&f);
}

/* FUNC%return: the out-of-line copy only (an inlined one is never called). */
Test(points, return_probe_out_of_line_only)
{
	struct fx f;

	fx_open(&f, bpath("tests/fixtures/points-O2"));
	cr_assert(eq(int, fx_points(&f, "fx_add%return", 0, false), 0), "%s", f.err.msg);
	cr_assert(eq(int, f.n, 1));
	cr_assert(eq(int, f.sites[0].inlined, false));
	cr_assert(eq(int, f.sites[0].at_entry, true));
	cr_assert_str_eq(f.sites[0].where, "fx_add");
	/* a glob keeps the out-of-line functions and leaves inlined instances out */
	cr_assert(eq(int, fx_points(&f, "fx_*", 0, false), 0), "%s", f.err.msg);
	int outofline = 0;

	for (int i = 0; i < f.n; i++)
		outofline += !f.sites[i].inlined;
	cr_assert(eq(int, fx_points(&f, "fx_*%return", 0, false), 0), "%s", f.err.msg);
	cr_assert(eq(int, f.n, outofline));
	for (int i = 0; i < f.n; i++)
		cr_assert_not(f.sites[i].inlined, "%s", f.sites[i].where);
	/* only inlined: nothing to probe, said so */
	cr_assert(eq(int, fx_points(&f, "fx_twice%return", 0, false), -ENOENT));
	cr_assert_not_null(strstr(f.err.msg, "exists only inlined"), "%s", f.err.msg);
	cr_assert_not_null(strstr(f.err.msg, "no return"), "%s", f.err.msg);
	fx_close(&f);
}

Test(points, address)
{
	const char *bin = bpath("tests/fixtures/points-O2");
	uint64_t sym = nm_addr(bin, "fx_add"), insn[4];
	char point[32];
	struct fx f;

	cr_assert(ge(int, insn_addrs(bin, sym, insn, 4), 2));
	fx_open(&f, bin);
	snprintf(point, sizeof(point), "%#lx", (unsigned long)insn[1]);
	cr_assert(eq(int, fx_points(&f, point, 0, false), 0), "%s", f.err.msg);
	cr_assert(eq(int, f.n, 1));
	cr_assert(eq(u64, f.sites[0].vaddr, insn[1]));
	cr_assert_str_eq(f.sites[0].func, "fx_add");
	cr_assert_str_eq(f.sites[0].where, point);
	cr_assert(eq(int, f.sites[0].at_entry, false));
	cr_assert(eq(int, f.sites[0].has_die, true));
	if (insn[1] - insn[0] > 1) {
		snprintf(point, sizeof(point), "%#lx", (unsigned long)insn[0] + 1);
		cr_assert(eq(int, fx_points(&f, point, 0, false), -EINVAL));
	}
	fx_close(&f);
}

Test(points, no_dwarf_uses_elf_symbols)
{
	const char *bin = bpath("samples/query_server-stripped");
	uint64_t sym;
	struct elfmod_sym es;
	struct fx f;

	fx_open(&f, bin);
	cr_assert_not(dbg__has_dwarf(f.dbg));
	cr_assert(eq(int, elfmod__find_sym(f.mod, "exec_query", &es), 0));
	sym = es.vaddr;
	cr_assert(eq(int, fx_points(&f, "exec_query", 0, false), 0), "%s", f.err.msg);
	cr_assert(eq(int, f.n, 1));
	cr_assert(eq(u64, f.sites[0].vaddr, sym));
	cr_assert(eq(int, f.sites[0].has_die, false));
	cr_assert_null(f.sites[0].file);
	cr_assert(eq(int, f.sites[0].at_entry, true));
	cr_assert(eq(int, fx_points(&f, "exec*", 0, false), 0), "%s", f.err.msg);
	cr_assert(eq(int, f.n, 1));
	cr_assert_str_eq(f.sites[0].func, "exec_query");
	cr_assert(eq(int, fx_points(&f, "query_server.c:30", 0, false), -ENOTSUP));
	cr_assert_not_null(strstr(f.err.msg, "'query_server.c:30' needs DWARF line info; "), "%s",
			   f.err.msg);
	cr_assert_not_null(strstr(f.err.msg, " has no debug info (build with -g or install its "
				  "debug package)"), "%s", f.err.msg);
	cr_assert(eq(int, fx_points(&f, "exec_query:2", 0, false), -ENOTSUP));
	cr_assert(eq(int, fx_points(&f, "exec_query@query_server.c", 0, false), -ENOTSUP));
	cr_assert(eq(int, fx_points(&f, "exec_qury", 0, false), -ENOENT));
	cr_assert_not_null(strstr(f.err.msg, "nearest: exec_query"), "%s", f.err.msg);
	fx_close(&f);
}

/* ---- libc with its separate debug file ----------------------------------------------- */

/* /usr/lib/debug/.build-id/NN/REST.debug of MOD, or "" when it is not installed. */
static void libc_debug_file(struct elfmod *mod, char *path, size_t len)
{
	const uint8_t *id;
	size_t n, used;

	cr_assert(eq(int, elfmod__build_id(mod, &id, &n), 0));
	used = snprintf(path, len, "/usr/lib/debug/.build-id/%02x/", id[0]);
	for (size_t i = 1; i < n; i++)
		used += snprintf(path + used, len - used, "%02x", id[i]);
	snprintf(path + used, len - used, ".debug");
	if (access(path, R_OK) != 0)
		path[0] = '\0';
}

Test(points, libc_open64_through_its_debug_file)
{
	char debug[PATH_MAX];
	struct fx f;
	uint64_t sym;

	fx_open(&f, LIBC);
	libc_debug_file(f.mod, debug, sizeof(debug));
	/* `make test` installs libc6-dbg (scripts/deps.sh): its absence is a failure */
	cr_assert(ne(chr, debug[0], '\0'),
		  "no libc debug file under /usr/lib/debug/.build-id: install libc6-dbg");
	cr_assert(dbg__has_dwarf(f.dbg));
	sym = nm_addr(debug, "__libc_open64");	/* .symtab of the debug file only */
	cr_assert(eq(int, fx_points(&f, "__libc_open64", 0, false), 0), "%s", f.err.msg);
	cr_assert(eq(int, f.n, 1));
	cr_assert(eq(u64, f.sites[0].vaddr, sym));
	cr_assert(eq(int, f.sites[0].has_die, true));
	cr_assert(f.sites[0].at_entry, "optimized: parameters in registers");
	cr_assert(ends_with(f.sites[0].file, "/open64.c"), "%s", f.sites[0].file);
	cr_assert_str_eq(die_name(&f.sites[0].die->fn), "__libc_open64");
	/* An alias takes the DIE of the function it names. */
	cr_assert(eq(int, fx_points(&f, "open64", 0, false), 0), "%s", f.err.msg);
	cr_assert(eq(int, f.n, 1));
	cr_assert(eq(u64, f.sites[0].vaddr, sym));
	cr_assert_str_eq(die_name(&f.sites[0].die->fn), "__libc_open64");
	cr_assert(eq(int, fx_points(&f, "__libc_opem64", 0, false), -ENOENT));
	cr_assert_not_null(strstr(f.err.msg, "nearest: __libc_open64"), "%s", f.err.msg);
	fx_close(&f);
}

/* ---- points__list_funcs() ------------------------------------------------------------- */

struct listed {
	char name[64][64];
	char file[64][PATH_MAX];
	int line[64];
	char impls[64][256];	/* an IFUNC's: "A B C", or "? WHY" */
	int n;
};

static void collect(const struct list_func *f, void *priv)
{
	struct listed *l = priv;
	size_t used = 0;

	cr_assert(lt(int, l->n, 64));
	snprintf(l->name[l->n], sizeof(l->name[0]), "%s", f->name);
	snprintf(l->file[l->n], sizeof(l->file[0]), "%s", f->file ? f->file : "");
	l->impls[l->n][0] = '\0';
	for (int i = 0; f->ifunc && i < f->nimpls; i++)
		used += snprintf(l->impls[l->n] + used, sizeof(l->impls[0]) - used, "%s%s",
				 i ? " " : "", f->impls[i]);
	if (f->ifunc && !f->nimpls)
		snprintf(l->impls[l->n], sizeof(l->impls[0]), "? %s", f->why);
	l->line[l->n++] = f->line;
}

static int find_listed(struct listed *l, const char *name)
{
	for (int i = 0; i < l->n; i++)
		if (!strcmp(l->name[i], name))
			return i;
	cr_fatal("%s not listed", name);
	return -1;
}

Test(points, list_functions_with_file_and_line)
{
	static struct listed l;
	struct fx f;
	int i;

	fx_open(&f, bpath("tests/fixtures/points-O2"));
	l.n = 0;
	cr_assert(eq(int, points__list_funcs(f.dbg, f.mod, "fx_*", collect, &l), 0));
	cr_assert(eq(int, l.n, 6), "fx_add fx_caller1 fx_caller2 fx_dup fx_dup_entry fx_twice");
	for (i = 1; i < l.n; i++)
		cr_assert(lt(str, l.name[i - 1], l.name[i]), "sorted, each name once");
	i = find_listed(&l, "fx_add");
	cr_assert(ends_with(l.file[i], "/points_fx.c"), "%s", l.file[i]);
	cr_assert(eq(int, l.line[i], src_line(FX_SRC, "L:add_decl")));
	i = find_listed(&l, "fx_twice");
	cr_assert(eq(int, l.line[i], src_line(FX_SRC, "L:twice_decl")));
	i = find_listed(&l, "fx_dup");
	cr_assert(ends_with(l.file[i], "/points_fx.c"), "the first file wins: %s", l.file[i]);
	cr_assert(eq(int, l.line[i], src_line(FX_SRC, "L:dup1_decl")));

	l.n = 0;
	cr_assert(eq(int, points__list_funcs(f.dbg, f.mod, "fx_caller?", collect, &l), 0));
	cr_assert(eq(int, l.n, 2));
	cr_assert_str_eq(l.name[0], "fx_caller1");
	cr_assert_str_eq(l.name[1], "fx_caller2");
	fx_close(&f);

	fx_open(&f, bpath("samples/query_server-stripped"));
	l.n = 0;
	cr_assert(eq(int, points__list_funcs(f.dbg, f.mod, "exec*", collect, &l), 0));
	cr_assert(eq(int, l.n, 1));
	cr_assert_str_eq(l.name[0], "exec_query");
	cr_assert_str_eq(l.file[0], "");
	cr_assert(eq(int, l.line[0], 0));
	fx_close(&f);
}

/* ---- IFUNCs ------------------------------------------------------------------------ */


/*
 * The sample's text_len: its resolver pick_len can return len_bytes,
 * len_words or len_fast (whatever it chooses here): one site at each, all
 * of function text_len, with the implementation's DIE.
 */
Test(points, ifunc_sample_sites_at_its_implementations)
{
	static const char *const impls[] = { "len_bytes", "len_fast", "len_words" };
	const char *bins[] = { bpath("samples/ifunc-O2"), bpath("samples/ifunc-O0") };
	struct fx f;

	for (int b = 0; b < 2; b++) {
		bool o0 = b == 1;

		fx_open(&f, bins[b]);
		cr_assert(eq(int, fx_points(&f, "text_len", 0, false), 0), "%s", f.err.msg);
		cr_assert(eq(int, f.n, 3));
		for (int i = 0; i < 3; i++) {
			uint64_t at = nm_addr(bins[b], impls[i]);
			char where[64];
			int k = 0;

			while (k < f.n && !(f.sites[k].vaddr >= at && f.sites[k].vaddr < at + 32))
				k++;
			cr_assert(lt(int, k, f.n), "%s: no site at %s", bins[b], impls[i]);
			snprintf(where, sizeof(where), "text_len->%s", impls[i]);
			cr_assert(eq(str, f.sites[k].func, "text_len"));
			cr_assert(eq(str, f.sites[k].where, where));
			cr_assert(f.sites[k].has_die);
			cr_assert(eq(str, (char *)die_name(&f.sites[k].die->fn), (char *)impls[i]));
			/* -O0 keeps s in the frame: past the prologue, as for any function */
			cr_assert(eq(int, f.sites[k].after_prologue, o0), "%s", where);
			if (!o0)
				cr_assert(eq(u64, f.sites[k].vaddr, at), "%s", where);
		}
		/* a glob takes the IFUNC with its implementations */
		cr_assert(eq(int, fx_points(&f, "text_*", 0, false), 0), "%s", f.err.msg);
		cr_assert(eq(int, f.n, 3));
		cr_assert(eq(str, f.sites[0].func, "text_len"));
		cr_assert(eq(int, fx_points(&f, "text_len+2", 0, false), -EINVAL));
		cr_assert_not_null(strstr(f.err.msg, "'text_len' is an IFUNC of "), "%s", f.err.msg);
		cr_assert(eq(int, fx_points(&f, "pick_len", 0, false), -EINVAL));
		cr_assert_not_null(strstr(f.err.msg, "is an IFUNC's resolver"), "%s", f.err.msg);
		fx_close(&f);
	}
}

static int cmp_addr(const void *pa, const void *pb)
{
	uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;

	return a < b ? -1 : a > b;
}

/*
 * The addresses a resolver of BIN at [START, START + SIZE) loads with a
 * rip-relative lea that are function symbols of SYMS (objdump and nm: not
 * ptap's decoder), ascending, distinct.
 */
static int lea_funcs(const char *bin, const char *syms, uint64_t start, uint64_t size,
		     uint64_t *out, int max)
{
	uint64_t leas[64];
	char cmd[3 * PATH_MAX], line[512];
	int nleas = 0, n = 0;
	unsigned long a;
	char type;
	FILE *p;

	snprintf(cmd, sizeof(cmd),
		 "objdump -d --start-address=%#lx --stop-address=%#lx '%s' | "
		 "sed -n 's/.*lea .*(%%rip),%%r[a-z0-9]* *# \\([0-9a-f]*\\).*/\\1/p'",
		 (unsigned long)start, (unsigned long)(start + size), bin);
	p = popen(cmd, "r");
	cr_assert_not_null(p, "%s", cmd);
	while (nleas < 64 && fscanf(p, "%lx", &a) == 1)
		leas[nleas++] = a;
	pclose(p);
	snprintf(cmd, sizeof(cmd), "nm '%s'", syms);
	p = popen(cmd, "r");
	cr_assert_not_null(p, "%s", cmd);
	while (fgets(line, sizeof(line), p)) {
		bool lea = false, dup = false;

		if (sscanf(line, "%lx %c", &a, &type) != 2)
			continue;	/* an undefined symbol: no address */

		for (int i = 0; i < nleas; i++)
			lea |= leas[i] == a;
		for (int i = 0; i < n; i++)
			dup |= out[i] == a;
		if (lea && !dup && (type == 'T' || type == 't') && n < max)
			out[n++] = a;
	}
	pclose(p);
	qsort(out, n, sizeof(*out), cmp_addr);
	return n;
}

/* libc's strlen: a site at each implementation its resolver can select. */
Test(points, libc_strlen_at_its_implementations)
{
	uint64_t want[16], resolver;
	char debug[PATH_MAX], cmd[PATH_MAX + 128];
	unsigned long size = 0;
	struct fx f;
	FILE *p;
	int n;

	fx_open(&f, LIBC);
	libc_debug_file(f.mod, debug, sizeof(debug));
	cr_assert(ne(chr, debug[0], '\0'),
		  "no libc debug file under /usr/lib/debug/.build-id: install libc6-dbg");
	snprintf(cmd, sizeof(cmd), "readelf -Ws '%s' 2>/dev/null | awk '$4 == \"IFUNC\" && "
		 "$8 == \"strlen\" { print $3; exit }'", debug);
	p = popen(cmd, "r");
	cr_assert(eq(int, fscanf(p, "%lu", &size), 1));
	pclose(p);
	resolver = nm_addr(debug, "strlen_ifunc");
	n = lea_funcs(LIBC, debug, resolver, size, want, 16);
	cr_assert(ge(int, n, 2), "objdump finds %d implementations", n);
	cr_assert(eq(int, fx_points(&f, "strlen", 0, false), 0), "%s", f.err.msg);
	cr_assert(eq(int, f.n, n));
	for (int i = 0; i < n; i++) {
		cr_assert(eq(u64, f.sites[i].vaddr, want[i]), "site %d", i);
		cr_assert(eq(str, f.sites[i].func, "strlen"));
		cr_assert(eq(int, strncmp(f.sites[i].where, "strlen->__strlen_", 17), 0), "%s",
			  f.sites[i].where);
	}
	cr_assert(eq(u64, want[0], nm_addr(debug, "__strlen_sse2")), "the baseline one is there");
	/* time's resolver returns a vDSO function it looks up: refused, with why */
	cr_assert(eq(int, fx_points(&f, "time", 0, false), -ENOTSUP));
	cr_assert_not_null(strstr(f.err.msg, "cannot tell which functions the IFUNC 'time' selects: "
				  "its resolver (at 0x"), "%s", f.err.msg);
	/* a glob leaves time out (points__find() counts why) and keeps the others */
	cr_assert(eq(int, fx_points(&f, "time*", 0, false), 0), "%s", f.err.msg);
	for (int i = 0; i < f.n; i++)
		cr_assert(ne(str, f.sites[i].func, "time"), "%s", f.sites[i].where);
	cr_assert(gt(int, f.n, 2));
	fx_close(&f);
}

Test(points, list_ifunc_with_implementations)
{
	static struct listed l;
	struct fx f;
	int i;

	fx_open(&f, bpath("samples/ifunc-O2"));
	l.n = 0;
	cr_assert(eq(int, points__list_funcs(f.dbg, f.mod, NULL, collect, &l), 0));
	i = find_listed(&l, "text_len");
	cr_assert(eq(str, l.impls[i], "len_bytes len_fast len_words"));
	cr_assert(eq(str, l.file[i], ""));
	for (i = 0; i < l.n; i++)
		cr_assert(ne(str, l.name[i], "pick_len"), "the resolver is not listed");
	fx_close(&f);

	fx_open(&f, LIBC);
	l.n = 0;
	cr_assert(eq(int, points__list_funcs(f.dbg, f.mod, "time", collect, &l), 0));
	cr_assert(eq(int, l.n, 1));
	cr_assert(eq(int, strncmp(l.impls[0], "? its resolver (at 0x", 21), 0), "%s", l.impls[0]);
	fx_close(&f);
}
