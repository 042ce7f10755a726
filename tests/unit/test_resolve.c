/* tests/unit/test_resolve.c: dwarf/resolve.c on the samples: a glob leaves
 * out the sites that cannot be probed (issue 17 item 5). */
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
#include "dwarf/resolve.h"
#include "probes/err.h"
#include "probes/spec.h"
#include "tests/unit/unit_paths.h"


struct rx {
	struct elfmod *mod;
	struct dbg_cache *dc;
	struct resolved_probe *rps;
	int n;
	struct site_skips skips;
	struct ptap_err err;
};

static void rx_open(struct rx *x, const char *rel)
{
	struct ptap_err err = { .pos = -1 };

	memset(x, 0, sizeof(*x));
	cr_assert(eq(int, elfmod__open(unit_path(rel), &x->mod, &err), 0), "%s", err.msg);
	cr_assert(eq(int, dbg_cache__new(&x->dc), 0));
}

/* Resolve PROBE in X's module (skips counted when SKIPS); the return value. */
static int rx_resolve(struct rx *x, const char *probe, bool skips)
{
	struct resolve_opts o = { .dbgs = x->dc, .max_probes = 128,
				  .skips = skips ? &x->skips : NULL };
	struct probe_spec *spec;
	int r;

	resolved_probes_free(x->rps, x->n);
	x->rps = NULL;
	x->n = 0;
	memset(&x->skips, 0, sizeof(x->skips));
	x->err = (struct ptap_err){ .pos = -1 };
	cr_assert(eq(int, probe_spec__parse(probe, &spec, &x->err), 0), "%s: %s", probe,
		  x->err.msg);
	r = resolve_probes(x->mod, spec, &o, &x->rps, &x->n, &x->err);
	probe_spec__free(spec);
	return r;
}

static void rx_close(struct rx *x)
{
	resolved_probes_free(x->rps, x->n);
	dbg_cache__free(x->dc);
	elfmod__close(x->mod);
}

/* TEXT contains PART (both printed when not). */
static void expect_in(const char *text, const char *part)
{
	cr_assert_not_null(strstr(text, part), "'%s' is not in '%s'", part, text);
}

/* The functions of X's sites, in order, space-separated. */
static const char *rx_funcs(const struct rx *x)
{
	static char buf[512];
	size_t used = 0;

	buf[0] = '\0';
	for (int i = 0; i < x->n && used < sizeof(buf); i++)
		used += snprintf(buf + used, sizeof(buf) - used, "%s%s", i ? " " : "",
				 x->rps[i].func);
	return buf;
}

/* gl_lock starts with "lock incl": the glob keeps the three others. */
Test(resolve_glob, leaves_out_a_site_that_cannot_be_probed)
{
	struct rx x;

	rx_open(&x, "samples/scen/libglob_lock.so");
	cr_assert(eq(int, rx_resolve(&x, "gl_* x=%di:s64", true), 0), "%s", x.err.msg);
	cr_assert(eq(str, (char *)rx_funcs(&x), "gl_add gl_sub gl_twice"));
	cr_assert(eq(int, x.skips.n, 1));
	expect_in(x.skips.first[0], "cannot probe gl_lock: its first instruction 'lock inc");
	expect_in(x.skips.first[0], "(lock prefix)");
	/* without a place to count them, the same sites */
	cr_assert(eq(int, rx_resolve(&x, "gl_* x=%di:s64", false), 0), "%s", x.err.msg);
	cr_assert(eq(int, x.n, 3));
	rx_close(&x);
}

/* No site left: an error with the reason; a function named alone: an error. */
Test(resolve_glob, fails_when_no_site_is_left)
{
	struct rx x;

	rx_open(&x, "samples/scen/libglob_lock.so");
	cr_assert(eq(int, rx_resolve(&x, "gl_lo*", true), -ENOTSUP));
	cr_assert(eq(int, x.n, 0));
	expect_in(x.err.msg, "no site of 'gl_lo*' can be probed (1 site); cannot probe gl_lock: "
		  "its first instruction 'lock inc");
	cr_assert(eq(int, rx_resolve(&x, "gl_lock", true), -ENOTSUP));
	cr_assert(eq(int, x.skips.n, 0));
	expect_in(x.err.msg, "cannot probe gl_lock: its first instruction 'lock inc");
	rx_close(&x);
}

/*
 * An IFUNC's implementations each take the probe's arguments: the DWARF
 * parameter s of each (they all call it s), $retval typed from each.
 */
Test(resolve_ifunc, arguments_on_every_implementation)
{
	struct rx x;

	rx_open(&x, "samples/ifunc-O2");
	cr_assert(eq(int, rx_resolve(&x, "text_len s", true), 0), "%s", x.err.msg);
	cr_assert(eq(str, (char *)rx_funcs(&x), "text_len text_len text_len"));
	for (int i = 0; i < x.n; i++) {
		cr_assert(eq(int, x.rps[i].nargs, 1));
		cr_assert(eq(str, x.rps[i].names[0], "s"));
		cr_assert(eq(int, x.rps[i].progs[0].type.kind, FT_STRING), "%s", x.rps[i].where);
	}
	cr_assert(eq(int, rx_resolve(&x, "text_len%return $retval", true), 0), "%s", x.err.msg);
	for (int i = 0; i < x.n; i++) {
		cr_assert(x.rps[i].retprobe);
		cr_assert(eq(int, x.rps[i].progs[0].type.kind, FT_UNSIGNED), "%s", x.rps[i].where);
	}
	cr_assert(eq(int, x.skips.n, 0));
	rx_close(&x);
}
