/* tests/unit/test_filter.c: --filter expressions (probes/filter.h) --
 * comparisons on numbers (signed by their type), floats and strings, globs,
 * && || ! and parentheses, pid/tid/comm, values that could not be read, and
 * the errors a bad expression gets (with the column). */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/err.h"
#include "probes/fetch.h"
#include "probes/filter.h"
#include "probes/record.h"

static const char *const names[] = { "q", "len", "neg", "ratio", "desc->n", "retval", "s",
				       "f32", "color", "*pp", "~r1" };
static const struct type_enumerator colors[] = { { 0, "RED" }, { 5, "BLUE" } };
static const struct type_desc color_desc = { .name = "enum color", .n = 2, .enums = colors };
static struct fetch_type types[] = {
	{ .kind = FT_STRING },
	{ .kind = FT_UNSIGNED, .size = 4 },
	{ .kind = FT_SIGNED, .size = 2 },
	{ .kind = FT_FLOAT, .size = 8 },
	{ .kind = FT_SIGNED, .size = 8 },
	{ .kind = FT_DEFAULT, .size = 8 },
	{ .kind = FT_STRUCT, .len = 16 },
	{ .kind = FT_FLOAT, .size = 4 },
	{ .kind = FT_ENUM, .size = 4, .desc = &color_desc },
	{ .kind = FT_UNSIGNED, .size = 8 },
	{ .kind = FT_SIGNED, .size = 8 },
};
#define NARGS	(sizeof(names) / sizeof(names[0]))

/* A record: q the string Q (NULL: a NULL pointer), len LEN, neg -5 as a
 * 16-bit value, ratio 2.5, desc->n 7, retval 0xffffffffffffffff. */
struct rec {
	struct fetch_val vals[NARGS];
	struct record r;
};

static void make(struct rec *x, const char *q, unsigned int len)
{
	double ratio = 2.5;

	memset(x, 0, sizeof(*x));
	x->vals[0] = (struct fetch_val){ .str = (char *)q, .len = q ? strlen(q) : 0, .null = !q };
	x->vals[1].u = len;
	x->vals[2].u = 0xfffb;	/* -5 in 16 bits */
	memcpy(&x->vals[3].u, &ratio, sizeof(ratio));
	x->vals[4].u = 7;
	x->vals[5].u = ~0ULL;
	{
		float f = 0.1f;
		uint32_t w;

		memcpy(&w, &f, sizeof(w));
		x->vals[7].u = w;
	}
	x->vals[8].u = 5;	/* BLUE */
	x->vals[9].u = 1;
	x->vals[10].u = (uint64_t)-3;
	x->r = (struct record){ .pid = 100, .tid = 101, .comm = "postgres", .event = "e",
				.nargs = NARGS, .names = names, .types = types, .vals = x->vals };
}

/* Does EXPR match the record of Q and LEN?  The expression must compile. */
static bool matches(const char *expr, const char *q, unsigned int len)
{
	struct ptap_err err = { .pos = -1 };
	struct filter *f;
	struct rec x;
	bool m;

	cr_assert(eq(int, filter__compile(expr, names, types, NARGS, &f, &err), 0),
		  "'%s': %s", expr, err.msg);
	make(&x, q, len);
	m = filter__match(f, &x.r);
	filter__free(f);
	return m;
}

/* One expression on one record: EXPR on the record of Q and LEN (make()) gives WANT. */
struct mcase {
	const char *expr, *q;
	unsigned int len;
	bool want;
};

static void check_cases(const struct mcase *c, size_t n)
{
	for (size_t i = 0; i < n; i++)
		cr_expect(eq(int, matches(c[i].expr, c[i].q, c[i].len), c[i].want), "'%s' on \"%s\"",
			  c[i].expr, c[i].q ? c[i].q : "(NULL)");
}

#define CHECK(cases)	check_cases(cases, sizeof(cases) / sizeof(cases[0]))

Test(filter, numbers)
{
	static const struct mcase cases[] = {
		{ "len > 10", "x", 11, true },
		{ "len > 10", "x", 10, false },
		{ "len >= 10 && len <= 10 && len == 10", "x", 10, true },
		{ "len != 0x0a", "x", 11, true },
		{ "len != 0x0a", "x", 10, false },
		/* signed by the type: a 16-bit -5 */
		{ "neg == -5", "x", 0, true },
		{ "neg < 0", "x", 0, true },
		{ "desc->n == 7", "x", 0, true },
		/* unsigned 64 bits: the largest value, not -1 */
		{ "retval == 18446744073709551615", "x", 0, true },
		{ "$retval > 0", "x", 0, true },
		{ "retval == -1", "x", 0, false },
		/* an unsigned value against a negative number: mathematically */
		{ "len > -1", "x", 0, true },
		{ "ratio > 2 && ratio < 2.6 && ratio != 2.4", "x", 0, true },
		/* a float as it prints: 0.1f equals 0.1 */
		{ "f32 == 0.1 && f32 <= 0.1 && f32 >= 0.1", "x", 0, true },
		/* enums by name, true and false, names starting with * and ~ */
		{ "color == BLUE && color != RED && color > 0", "x", 0, true },
		{ "*pp == true && *pp != false", "x", 0, true },
		{ "~r1 == -3", "x", 0, true },
	};

	CHECK(cases);
}

Test(filter, strings)
{
	static const struct mcase cases[] = {
		{ "q == \"SELECT 1\"", "SELECT 1", 0, true },
		{ "q == 'SELECT'", "SELECT 1", 0, false },
		{ "q ~ \"*pg_class*\"", "select * from pg_class where x", 0, true },
		{ "q ~ \"*pg_class*\"", "select 1", 0, false },
		{ "q ~ 'SEL?CT [0-9]'", "SELECT 1", 0, true },
		{ "q ~ '[!a-z]*'", "SELECT 1", 0, true },
		{ "q ~ '[!A-Z]*'", "SELECT 1", 0, false },
		{ "q < \"b\" && q >= \"a\"", "abc", 0, true },
		{ "q == \"tab\\there\\x21\"", "tab\there!", 0, true },
		{ "q == \"\"", "", 0, true },
		/* a NULL string is no string: equals nothing, not even "", and != holds */
		{ "q == \"\"", NULL, 0, false },
		{ "q ~ \"*\"", NULL, 0, false },
		{ "q < \"z\"", NULL, 0, false },
		{ "q != \"\"", NULL, 0, true },
		{ "!(q == \"\")", NULL, 0, true },
		/* no space before ~; a leading 0 is decimal */
		{ "q~'SEL*'", "SELECT 1", 0, true },
		{ "len == 036 && len == 0x24", "x", 36, true },
		{ "comm == 'postgres' && pid == 100 && tid == 101", "x", 0, true },
	};

	CHECK(cases);
}

Test(filter, logic)
{
	static const struct mcase cases[] = {
		{ "len == 1 || len == 2 && q == 'no'", "x", 1, true },
		/* && binds tighter than || */
		{ "(len == 1 || len == 2) && q == 'no'", "x", 1, false },
		{ "!len == 2", "x", 1, true },
		{ "!!(len == 1)", "x", 1, true },
	};

	CHECK(cases);
}

Test(filter, unreadable_matches_nothing)
{
	struct ptap_err err = { .pos = -1 };
	struct filter *f, *g;
	struct rec x;

	cr_assert(eq(int, filter__compile("q ~ '*'", names, types, NARGS, &f, &err), 0));
	cr_assert(eq(int, filter__compile("!(q == 'a')", names, types, NARGS, &g, &err), 0));
	make(&x, "abc", 0);
	x.vals[0].err = -EFAULT;
	cr_assert(not(filter__match(f, &x.r)));
	cr_assert(filter__match(g, &x.r));
	filter__free(f);
	filter__free(g);
}

/* EXPR is refused at column POS with a message containing WHAT. */
static void refused(const char *expr, int pos, const char *what)
{
	struct ptap_err err = { .pos = -1 };
	struct filter *f = (struct filter *)1;

	cr_assert(eq(int, filter__compile(expr, names, types, NARGS, &f, &err), -EINVAL),
		  "'%s' compiled", expr);
	cr_assert(eq(ptr, f, NULL));
	cr_assert(eq(int, err.pos, pos), "'%s': %s", expr, err.msg);
	cr_assert(not(eq(ptr, strstr(err.msg, what), NULL)), "'%s': '%s' lacks '%s'", expr,
		  err.msg, what);
}

Test(filter, errors)
{
	refused("lenn > 3", 0, "no argument 'lenn' in this probe's records: it has q, len, neg");
	refused("len > 3 && nope == 1", 11, "pid, tid, comm");
	refused("len > \"x\"", 6, "compare it with a number");
	refused("q > 3", 4, "compare it with a quoted string");
	refused("len ~ 3", 6, "~ matches strings");
	refused("s == 1", 0, "is not a number or a string");
	refused("len = 3", 4, "expected a comparison");
	refused("len > 3 &", 8, "expected && or ||");
	refused("(len > 3", 8, "expected ')'");
	refused("q == 'abc", 5, "closing quote");
	refused("len > 1.5", 6, "with a point");
	refused("len > 99999999999999999999", 6, "beyond 64 bits");
	refused("", 0, "expected an argument's name");
	refused("q == '\\q'", 6, "unknown escape");
	refused("color == GREEN", 9, "a name of this enum");
	refused("len == maybe", 7, "expected a number (or true, false)");
}

Test(filter, glob)
{
	cr_assert(filter__glob("a*b*c", 5, "aXXbYYc", 7));
	cr_assert(not(filter__glob("a*b*c", 5, "aXXbYY", 6)));
	cr_assert(filter__glob("*", 1, "", 0));
	cr_assert(filter__glob("[]]x", 4, "]x", 2));
	cr_assert(filter__glob("[x", 2, "[x", 2));
	/* bytes, NULs included */
	cr_assert(filter__glob("a?b", 3, "a\0b", 3));
	cr_assert(not(filter__glob("a?b", 3, "ab", 2)));
}

/*
 * Floats compare by their bits (the evaluator runs where no floating-point
 * register may be used, in the agent): the same answers as C's comparisons,
 * for negative values, -0 against 0, a float32 subnormal, infinities.
 */
Test(filter, floats_by_bits)
{
	static const double dv[] = { -2.5, -0.0, 0.0, 1e-310, 0.1, 3.0, 1e300, -1e300 };
	static const float fv[] = { -2.5f, -0.0f, 0.0f, 1e-40f, 0.1f, 3.0f, 1e30f, -1e30f };
	static const char *const lits[] = { "-2.5", "0", "0.1", "3", "-1e301", "1e-45", "1e30" };
	static const char *const ops[] = { "==", "!=", "<", "<=", ">", ">=" };

	for (size_t i = 0; i < sizeof(dv) / sizeof(dv[0]); i++)
		for (size_t l = 0; l < sizeof(lits) / sizeof(lits[0]); l++)
			for (size_t o = 0; o < sizeof(ops) / sizeof(ops[0]); o++) {
				struct ptap_err err = { .pos = -1 };
				double lit = strtod(lits[l], NULL), flit = (double)(float)lit;
				char e64[64], e32[64];
				struct filter *f64, *f32;
				struct rec x;
				bool w64, w32;
				uint32_t w;

				snprintf(e64, sizeof(e64), "ratio %s %s", ops[o], lits[l]);
				snprintf(e32, sizeof(e32), "f32 %s %s", ops[o], lits[l]);
				cr_assert(eq(int, filter__compile(e64, names, types, NARGS, &f64, &err), 0));
				cr_assert(eq(int, filter__compile(e32, names, types, NARGS, &f32, &err), 0));
				make(&x, "x", 0);
				memcpy(&x.vals[3].u, &dv[i], sizeof(dv[i]));
				memcpy(&w, &fv[i], sizeof(w));
				x.vals[7].u = w;
				switch (o) {
				case 0: w64 = dv[i] == lit; w32 = fv[i] == flit; break;
				case 1: w64 = dv[i] != lit; w32 = fv[i] != flit; break;
				case 2: w64 = dv[i] < lit; w32 = fv[i] < flit; break;
				case 3: w64 = dv[i] <= lit; w32 = fv[i] <= flit; break;
				case 4: w64 = dv[i] > lit; w32 = fv[i] > flit; break;
				default: w64 = dv[i] >= lit; w32 = fv[i] >= flit; break;
				}
				cr_expect(eq(int, filter__match(f64, &x.r), w64), "%g: '%s'", dv[i], e64);
				cr_expect(eq(int, filter__match(f32, &x.r), w32), "%g: '%s'",
					  (double)fv[i], e32);
				filter__free(f64);
				filter__free(f32);
			}
}
