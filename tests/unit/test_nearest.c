/* tests/unit/test_nearest.c: probes/nearest.c - the ranking of names close
 * to a mistyped one (edits, then prefixes, then substrings). */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <string.h>

#include "probes/nearest.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static const char *const io_names[] = {
	"read", "write", "pread64", "pwrite64", "readv", "writev", "preadv", "pwritev",
	"preadv2", "pwritev2", "readahead", "readlink", "close",
};

Test(nearest, typo_finds_the_call_first)
{
	const char *out[5];
	int n = nearest_names("preed64", io_names, ARRAY_SIZE(io_names), out, 5);

	/* pread64 is one edit away; preadv and preadv2 three, pwrite64 more */
	cr_assert(eq(int, n, 1));
	cr_assert_str_eq(out[0], "pread64");
	n = nearest_names("wirte", io_names, ARRAY_SIZE(io_names), out, 5);
	cr_assert(ge(int, n, 1));
	cr_assert_str_eq(out[0], "write");	/* a swap is two edits; writev is three */
}

/* Ties within a tier go by distance, then by name; the tiers come in order. */
Test(nearest, ranking_order)
{
	static const char *const names[] = {
		"target_fn_long_name",	/* prefix, 11 longer: tier 1 */
		"my_target_f_wrapper",	/* substring elsewhere: tier 2 */
		"target_fn",		/* holds the query, 1 longer: tier 0, dist 1 */
		"tarbet_f",		/* one substitution: tier 0, dist 1 */
		"target_f",		/* exact: tier 0, dist 0 */
		"zzz",			/* too short: not considered */
		"target_xyz",		/* 3 edits > max(2, 8/3): out */
	};
	static const char *const want[] = { "target_f", "tarbet_f", "target_fn",
					    "target_fn_long_name", "my_target_f_wrapper" };
	const char *out[8];
	int n = nearest_names("target_f", names, ARRAY_SIZE(names), out, 8), i;

	cr_assert(eq(int, n, (int)ARRAY_SIZE(want)));
	for (i = 0; i < n; i++)
		cr_assert(eq(str, (char *)out[i], (char *)want[i]), "%d", i);
}

Test(nearest, max_keeps_the_best)
{
	const char *out[2] = { "untouched", "untouched" };
	int n = nearest_names("pread", io_names, ARRAY_SIZE(io_names), out, 1);

	/* preadv and read are both one edit away: the name breaks the tie */
	cr_assert(eq(int, n, 1));
	cr_assert_str_eq(out[0], "preadv");
	cr_assert_str_eq(out[1], "untouched");
	n = nearest_names("pread", io_names, ARRAY_SIZE(io_names), out, 2);
	cr_assert(eq(int, n, 2));
	cr_assert_str_eq(out[0], "preadv");
	cr_assert_str_eq(out[1], "read");
	cr_assert(eq(int, nearest_names("pread", io_names, ARRAY_SIZE(io_names), out, 0), 0));
	cr_assert(eq(int, nearest_names("pread", io_names, ARRAY_SIZE(io_names), out, -1), 0));
	cr_assert(eq(int, nearest_names("pread", io_names, 0, out, 2), 0));
}

Test(nearest, nothing_close)
{
	const char *out[5];

	cr_assert(eq(int, nearest_names("zzzzzzzzzzzzzzzz", io_names, ARRAY_SIZE(io_names), out, 5),
		     0));
	/* within the length slack but too many edits */
	cr_assert(eq(int, nearest_names("qqqq", io_names, ARRAY_SIZE(io_names), out, 5), 0));
}

/* A short query still gets max(2, len/3) edits: "raed" -> read (a swap is 2). */
Test(nearest, short_query)
{
	const char *out[5];
	int n = nearest_names("raed", io_names, ARRAY_SIZE(io_names), out, 5);

	cr_assert(ge(int, n, 1));
	cr_assert_str_eq(out[0], "read");
}

/* A longer name is considered past the slack only when it holds the query. */
Test(nearest, length_slack)
{
	static const char *const names[] = { "abcdefgh", "abxdefghij" };
	const char *out[4];
	int n = nearest_names("abc", names, ARRAY_SIZE(names), out, 4);

	cr_assert(eq(int, n, 1));
	cr_assert_str_eq(out[0], "abcdefgh");
}

Test(nearest, duplicates_listed_once)
{
	static const char *const names[] = { "pread64", "read", "pread64", "read" };
	const char *out[4];
	int n = nearest_names("pread6", names, ARRAY_SIZE(names), out, 4);

	cr_assert(eq(int, n, 2));
	cr_assert_str_eq(out[0], "pread64");
	cr_assert_str_eq(out[1], "read");
}

/* The incremental form, with a query cut short ("puts@GLIBC_2.2.5" -> "puts"). */
Test(nearest, incremental_with_query_length)
{
	static const char *const names[] = { "putc", "puts", "fputs", "putchar", "exit" };
	const char *query = "puts@GLIBC_2.2.5";
	const char *out[5];
	struct nearest nr;
	size_t i;
	int n;

	cr_assert(eq(int, nearest__init(&nr, query, 4, 5), 0));
	for (i = 0; i < ARRAY_SIZE(names); i++)
		nearest__add(&nr, names[i]);
	n = nearest__names(&nr, out);
	/* putchar is 4 edits away, exit too */
	cr_assert(eq(int, n, 3));
	cr_assert_str_eq(out[0], "puts");
	cr_assert_str_eq(out[1], "fputs");	/* holds it, 1 longer */
	cr_assert_str_eq(out[2], "putc");	/* one substitution */
	nearest__exit(&nr);
	cr_assert_null(nr.best);
	nearest__exit(&nr);
	nearest__exit(NULL);
	/* MAX 0: nothing allocated, nothing kept */
	cr_assert(eq(int, nearest__init(&nr, query, 4, 0), 0));
	nearest__add(&nr, "puts");
	cr_assert(eq(int, nearest__names(&nr, out), 0));
	nearest__exit(&nr);
}
