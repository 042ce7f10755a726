/* tests/unit/test_obuf.c: the output buffer's number writers (probes/obuf.c) against
 * snprintf over edge values, and its all-or-nothing rule at every buffer size. */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "probes/obuf.h"

/* Edge values: 0, 1, each power of 10 and of 2 and its neighbours, the extremes. */
static size_t edge_values(uint64_t *v, size_t max)
{
	size_t n = 0;
	uint64_t p = 1;

	v[n++] = 0;
	v[n++] = UINT64_MAX;
	v[n++] = UINT64_MAX - 1;
	v[n++] = (uint64_t)INT64_MAX;
	v[n++] = (uint64_t)INT64_MIN;
	v[n++] = (uint64_t)INT64_MIN + 1;
	for (int i = 0; i < 20 && n + 3 <= max; i++, p *= 10) {	/* 1 ... 10^19 */
		v[n++] = p - 1;
		v[n++] = p;
		v[n++] = p + 1;
	}
	for (int i = 0; i < 64 && n + 3 <= max; i++) {
		v[n++] = (1ULL << i) - 1;
		v[n++] = 1ULL << i;
		v[n++] = (1ULL << i) + 1;
	}
	for (int i = 0; i < 64 && n + 1 <= max; i++)	/* negatives, as uint64_t */
		v[n++] = 0 - (1ULL << i);
	return n;
}

/* A few thousand more, spread over every length (xorshift, fixed seed). */
static uint64_t next_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

enum num_kind { N_U64, N_S64, N_HEX, N_PAD };

/* V written by the obuf writer of KIND (N_PAD: WIDTH) into a fresh buffer of CAP bytes. */
static size_t ob_num(enum num_kind kind, uint64_t v, unsigned int width, char *buf, size_t cap,
		     bool *over)
{
	struct obuf ob;

	ob_init(&ob, buf, cap);
	switch (kind) {
	case N_U64:
		ob_u64(&ob, v);
		break;
	case N_S64:
		ob_s64(&ob, (int64_t)v);
		break;
	case N_HEX:
		ob_hex(&ob, v);
		break;
	case N_PAD:
		ob_u64_pad(&ob, v, width);
		break;
	}
	*over = ob.over;
	return ob.pos;
}

static int snprintf_num(enum num_kind kind, uint64_t v, unsigned int width, char *buf, size_t len)
{
	switch (kind) {
	case N_U64:
		return snprintf(buf, len, "%" PRIu64, v);
	case N_S64:
		return snprintf(buf, len, "%" PRId64, (int64_t)v);
	case N_HEX:
		return snprintf(buf, len, "0x%" PRIx64, v);
	default:
		return snprintf(buf, len, "%0*" PRIu64, (int)width, v);
	}
}

static const char *const kind_names[] = { "u64", "s64", "hex", "pad" };

/* KIND of V: the same text as snprintf with room, and nothing at all without. */
static void check_num(enum num_kind kind, uint64_t v, unsigned int width)
{
	char want[64], got[64];
	int n = snprintf_num(kind, v, width, want, sizeof(want));
	bool over;
	size_t w;

	w = ob_num(kind, v, width, got, sizeof(got), &over);
	cr_assert(eq(str, got, want), "%s %" PRIu64 " width %u", kind_names[kind], v, width);
	cr_assert(eq(ulong, w, (size_t)n), "%s %" PRIu64 ": length", kind_names[kind], v);
	cr_assert(eq(int, over, false));
	/* exactly fits (N digits + the NUL); one byte short: refused whole */
	w = ob_num(kind, v, width, got, n + 1, &over);
	cr_assert(eq(int, over, false), "%s %" PRIu64 ": exact fit", kind_names[kind], v);
	cr_assert(eq(sz, w, (size_t)n), "%s %" PRIu64 ": exact fit", kind_names[kind], v);
	cr_assert(eq(str, got, want), "%s %" PRIu64 ": exact fit", kind_names[kind], v);
	memset(got, '#', sizeof(got));
	w = ob_num(kind, v, width, got, n, &over);
	cr_assert(eq(int, over, true), "%s %" PRIu64 ": one byte short", kind_names[kind], v);
	cr_assert(eq(sz, w, 0), "%s %" PRIu64 ": one byte short", kind_names[kind], v);
	cr_assert(eq(chr, got[0], '\0'), "%s %" PRIu64 ": one byte short wrote something",
		  kind_names[kind], v);
	cr_assert(eq(chr, got[1], '#'), "%s %" PRIu64 ": one byte short wrote something",
		  kind_names[kind], v);
}

Test(obuf, numbers_as_snprintf_at_edges)
{
	uint64_t v[256];
	size_t n = edge_values(v, sizeof(v) / sizeof(v[0]));

	cr_assert(gt(sz, n, 200));
	for (size_t i = 0; i < n; i++) {
		check_num(N_U64, v[i], 0);
		check_num(N_S64, v[i], 0);
		check_num(N_HEX, v[i], 0);
		for (unsigned int w = 0; w <= 20; w++)
			check_num(N_PAD, v[i], w);
	}
}

Test(obuf, numbers_as_snprintf_random)
{
	uint64_t s = 0x9e3779b97f4a7c15ULL;

	for (int i = 0; i < 20000; i++) {
		/* every magnitude: shift a random value right by 0..63 bits */
		uint64_t v = next_rand(&s) >> (i % 64);

		check_num(N_U64, v, 0);
		check_num(N_S64, v, 0);
		check_num(N_S64, 0 - v, 0);
		check_num(N_HEX, v, 0);
		check_num(N_PAD, v % 1000000000ULL, 9);	/* a timestamp's nanoseconds */
		check_num(N_PAD, v % 1000, 3);		/* perfetto's microsecond decimals */
	}
}

/* V's nanoseconds (V mod 10^9), as the text writer puts them after a time's seconds. */
static void check_dec9(uint64_t v)
{
	char want[16], got[16];
	char *end;

	snprintf(want, sizeof(want), "%09" PRIu64, v % 1000000000u);
	memset(got, '#', sizeof(got));
	end = put_dec9(got, v);
	*end = '\0';
	cr_assert(eq(str, got, want), "put_dec9 %" PRIu64, v);
}

Test(obuf, nanoseconds_as_snprintf)
{
	uint64_t v[256], s = 0x9e3779b97f4a7c15ULL;
	size_t n = edge_values(v, sizeof(v) / sizeof(v[0]));

	for (size_t i = 0; i < n; i++)
		check_dec9(v[i]);
	for (int i = 0; i < 20000; i++)
		check_dec9(next_rand(&s) >> (i % 64));
}

Test(obuf, literal_values)
{
	static const struct {
		enum num_kind kind;
		uint64_t v;
		unsigned int width;
		const char *out;
	} rows[] = {
		{ N_U64, 0, 0, "0" },
		{ N_U64, UINT64_MAX, 0, "18446744073709551615" },
		{ N_S64, (uint64_t)INT64_MIN, 0, "-9223372036854775808" },
		{ N_S64, (uint64_t)-1, 0, "-1" },
		{ N_S64, (uint64_t)INT64_MAX, 0, "9223372036854775807" },
		{ N_HEX, 0, 0, "0x0" },	/* not "%#llx" ("0") */
		{ N_HEX, 0xdeadbeefcafeULL, 0, "0xdeadbeefcafe" },
		{ N_HEX, UINT64_MAX, 0, "0xffffffffffffffff" },
		{ N_PAD, 5, 9, "000000005" },
		{ N_PAD, 0, 3, "000" },
		{ N_PAD, 1234, 3, "1234" },	/* wider than WIDTH: all its digits */
		{ N_PAD, 7, 25, "00000000000000000007" },	/* WIDTH taken as 20 */
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		char buf[64];
		bool over;
		size_t n = ob_num(rows[i].kind, rows[i].v, rows[i].width, buf, sizeof(buf), &over);

		cr_expect(eq(str, buf, (char *)rows[i].out), "row %zu", i);
		cr_expect(eq(sz, n, strlen(rows[i].out)), "row %zu", i);
	}
}

/* Pieces after a refusal are refused too, even when they would fit. */
Test(obuf, nothing_after_a_refusal)
{
	char buf[8];
	struct obuf ob;

	ob_init(&ob, buf, sizeof(buf));
	ob_puts(&ob, "ab");
	ob_u64(&ob, 123456);		/* 2 + 6 > 7: refused */
	cr_assert(eq(int, ob.over, true));
	ob_putc(&ob, 'c');
	ob_hex(&ob, 1);
	cr_expect_str_eq(buf, "ab");
	cr_expect(eq(sz, ob.pos, 2));
	cr_expect(eq(sz, ob_done(&ob), 0));
	cr_expect_str_eq(buf, "");
	ob_init(&ob, buf, 0);		/* no room at all: refused, nothing written */
	ob_s64(&ob, 1);
	cr_expect(eq(int, ob.over, true));
	cr_expect(eq(sz, ob.pos, 0));
}

/* Numbers after text: appended at POS, the NUL after them. */
Test(obuf, appends)
{
	char buf[64];
	struct obuf ob;

	ob_init(&ob, buf, sizeof(buf));
	ob_puts(&ob, "t=");
	ob_u64(&ob, 12136);
	ob_putc(&ob, '.');
	ob_u64_pad(&ob, 681853777, 9);
	ob_putc(&ob, ' ');
	ob_s64(&ob, -2);
	ob_putc(&ob, ' ');
	ob_hex(&ob, 0x401000);
	cr_expect_str_eq(buf, "t=12136.681853777 -2 0x401000");
	cr_expect(eq(sz, ob_done(&ob), strlen("t=12136.681853777 -2 0x401000")));
}
