/* tests/unit/test_json.c: the JSON reader (values, escapes, numbers, nesting,
 * malformed text with its position) and the compact writer. */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/err.h"
#include "probes/json.h"
#include "probes/record.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static struct json_doc *doc;

static void setup(void)
{
	cr_assert(eq(int, json_doc__new(&doc), 0));
}

static void teardown(void)
{
	json_doc__free(doc);
	doc = NULL;
}

TestSuite(json, .init = setup, .fini = teardown);

/* Parse the C string IN; the test fails if it does not parse. */
static const struct json_val *parse_ok(const char *in)
{
	struct ptap_err err = { .pos = -1 };
	const struct json_val *v = NULL;
	int r = json_doc__parse(doc, in, strlen(in), &v, &err);

	cr_assert(eq(int, r, 0), "'%s': %d %s", in, r, err.msg);
	cr_assert_not_null(v);
	return v;
}

/* V as compact JSON, in a static buffer. */
static const char *fmt(const struct json_val *v)
{
	static char buf[4096];
	size_t n = json_format(v, buf, sizeof(buf));

	cr_assert(lt(ulong, n, sizeof(buf)));
	cr_assert(eq(sz, strlen(buf), n));
	return buf;
}

/* ---- numbers ------------------------------------------------------------- */

static const struct {
	const char *in;
	enum json_type type;
	int64_t i;
	uint64_t u;
	double d;
	const char *out;	/* json_format() */
} numbers[] = {
	{ "0", JSON_INT, 0, 0, 0, "0" },
	{ "-0", JSON_INT, 0, 0, 0, "0" },
	{ "42", JSON_INT, 42, 0, 0, "42" },
	{ "-17", JSON_INT, -17, 0, 0, "-17" },
	{ "9223372036854775807", JSON_INT, INT64_MAX, 0, 0, "9223372036854775807" },
	{ "-9223372036854775808", JSON_INT, INT64_MIN, 0, 0, "-9223372036854775808" },
	{ "9223372036854775808", JSON_UINT, 0, 9223372036854775808ULL, 0, "9223372036854775808" },
	{ "18446744073709551615", JSON_UINT, 0, UINT64_MAX, 0, "18446744073709551615" },
	{ "18446744073709551616", JSON_DOUBLE, 0, 0, 18446744073709551616.0,
	  "1.8446744073709552e+19" },
	{ "-9223372036854775809", JSON_DOUBLE, 0, 0, -9223372036854775808.0,
	  "-9.223372036854776e+18" },
	{ "1.5", JSON_DOUBLE, 0, 0, 1.5, "1.5" },
	{ "-0.25", JSON_DOUBLE, 0, 0, -0.25, "-0.25" },
	{ "1e3", JSON_DOUBLE, 0, 0, 1000, "1e+03" },
	{ "2.5E-3", JSON_DOUBLE, 0, 0, 0.0025, "0.0025" },
	{ "1E+2", JSON_DOUBLE, 0, 0, 100, "1e+02" },
	{ "0.1", JSON_DOUBLE, 0, 0, 0.1, "0.1" },
	{ "1e-400", JSON_DOUBLE, 0, 0, 0, "0" },
	{ "  7\t\r\n", JSON_INT, 7, 0, 0, "7" },
};

Test(json, numbers)
{
	for (size_t k = 0; k < ARRAY_SIZE(numbers); k++) {
		const struct json_val *v = parse_ok(numbers[k].in);

		cr_expect(eq(uint, v->type, numbers[k].type),
			  "'%s': type %d", numbers[k].in, v->type);
		if (v->type == JSON_INT)
			cr_expect(eq(i64, v->i, numbers[k].i), "'%s': %lld", numbers[k].in,
				  (long long)v->i);
		else if (v->type == JSON_UINT)
			cr_expect(eq(u64, v->u, numbers[k].u), "'%s'", numbers[k].in);
		else if (v->type == JSON_DOUBLE)
			cr_expect(eq(dbl, v->d, numbers[k].d), "'%s': %.17g", numbers[k].in, v->d);
		cr_expect(eq(str, (char *)fmt(v), (char *)numbers[k].out), "'%s'", numbers[k].in);
	}
}

Test(json, literals)
{
	const struct json_val *v = parse_ok("true");

	cr_expect(eq(uint, v->type, JSON_BOOL));
	cr_expect(eq(int, v->b, true));
	v = parse_ok(" false ");
	cr_expect(eq(uint, v->type, JSON_BOOL));
	cr_expect(eq(int, v->b, false));
	v = parse_ok("null");
	cr_expect(eq(uint, v->type, JSON_NULL));
	cr_expect_str_eq(fmt(v), "null");
}

/* ---- strings ------------------------------------------------------------- */

#define S(lit) lit, sizeof(lit) - 1	/* a literal with its length (NULs included) */

static const struct {
	const char *in;		/* JSON text */
	const char *val;	/* the decoded bytes */
	size_t len;
	const char *out;	/* json_format() */
} strings[] = {
	{ "\"\"", S(""), "\"\"" },
	{ "\"SELECT 1\"", S("SELECT 1"), "\"SELECT 1\"" },
	{ "\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"", S("\"\\/\b\f\n\r\t"), "\"\\\"\\\\/\\b\\f\\n\\r\\t\"" },
	{ "\"caf\\u00e9\"", S("caf\xc3\xa9"), "\"caf\xc3\xa9\"" },
	{ "\"caf\xc3\xa9\"", S("caf\xc3\xa9"), "\"caf\xc3\xa9\"" },
	{ "\"\\u20AC\"", S("\xe2\x82\xac"), "\"\xe2\x82\xac\"" },
	{ "\"\\u0041\\u007f\"", S("A\x7f"), "\"A\\u007f\"" },
	{ "\"a\\u0000b\"", S("a\0b"), "\"a\\u0000b\"" },
	{ "\"\\u001b[0m\"", S("\x1b[0m"), "\"\\u001b[0m\"" },
	{ "\"\\ud83d\\ude00!\"", S("\xf0\x9f\x98\x80!"), "\"\xf0\x9f\x98\x80!\"" },
	{ "\"\\uD800\\uDC00\"", S("\xf0\x90\x80\x80"), "\"\xf0\x90\x80\x80\"" },
	{ "\"\\udbff\\udfff\"", S("\xf4\x8f\xbf\xbf"), "\"\xf4\x8f\xbf\xbf\"" },
	{ "\"\xf0\x9f\x98\x80\"", S("\xf0\x9f\x98\x80"), "\"\xf0\x9f\x98\x80\"" },
	{ "\"\xef\xbf\xbf\"", S("\xef\xbf\xbf"), "\"\xef\xbf\xbf\"" },
	{ "\"'single' \x7f\"", S("'single' \x7f"), "\"'single' \\u007f\"" },
};

Test(json, strings)
{
	for (size_t k = 0; k < ARRAY_SIZE(strings); k++) {
		const struct json_val *v = parse_ok(strings[k].in);

		cr_assert(eq(uint, v->type, JSON_STRING), "'%s'", strings[k].in);
		cr_expect(eq(sz, v->str.len, strings[k].len), "'%s': len %zu", strings[k].in,
			  v->str.len);
		cr_expect(eq(mem, ((struct cr_mem){ v->str.s, strings[k].len }),
			     ((struct cr_mem){ strings[k].val, strings[k].len })), "'%s'",
			  strings[k].in);
		cr_expect(eq(int, v->str.s[v->str.len], '\0'),
			  "'%s': NUL-terminated", strings[k].in);
		cr_expect(eq(str, (char *)fmt(v), (char *)strings[k].out), "'%s'", strings[k].in);
	}
}

/* ---- arrays and objects -------------------------------------------------- */

Test(json, nesting)
{
	const struct json_val *v = parse_ok(
		" { \"a\" : [ 1 , -2 , 3.5 , true , null , \"x\" , [ ] , { } ] ,\n"
		"   \"b\" : { \"c\" : { \"d\" : [ [ 7 ] ] } } , \"a\" : 0 , \"\" : \"empty\" } ");
	const struct json_val *a, *d;

	cr_assert(eq(uint, v->type, JSON_OBJECT));
	cr_assert(eq(sz, v->obj.n, 4));
	cr_expect_str_eq(v->obj.m[0].key, "a");
	cr_expect_str_eq(v->obj.m[1].key, "b");
	cr_expect_str_eq(v->obj.m[2].key, "a");
	cr_expect(eq(sz, v->obj.m[3].key_len, 0));
	a = json_get(v, "a");	/* the first of two */
	cr_assert(eq(ptr, (void *)a, &v->obj.m[0].val));
	cr_assert(eq(uint, a->type, JSON_ARRAY));
	cr_assert(eq(sz, a->arr.n, 8));
	cr_expect(eq(uint, a->arr.v[0].type, JSON_INT));
	cr_expect(eq(i64, a->arr.v[0].i, 1));
	cr_expect(eq(i64, a->arr.v[1].i, -2));
	cr_expect(eq(dbl, a->arr.v[2].d, 3.5));
	cr_expect(eq(int, a->arr.v[3].b, true));
	cr_expect(eq(uint, a->arr.v[4].type, JSON_NULL));
	cr_expect_str_eq(a->arr.v[5].str.s, "x");
	cr_expect(eq(uint, a->arr.v[6].type, JSON_ARRAY));
	cr_expect(eq(sz, a->arr.v[6].arr.n, 0));
	cr_expect(eq(uint, a->arr.v[7].type, JSON_OBJECT));
	cr_expect(eq(sz, a->arr.v[7].obj.n, 0));
	d = json_get(json_get(json_get(v, "b"), "c"), "d");
	cr_assert_not_null(d);
	cr_assert(eq(sz, d->arr.n, 1));
	cr_expect(eq(i64, d->arr.v[0].arr.v[0].i, 7));
	cr_expect_str_eq(json_get(v, "")->str.s, "empty");
	cr_expect_null(json_get(v, "z"));
	cr_expect_null(json_get(a, "a"), "not an object");
	cr_expect_null(json_get(NULL, "a"));
	cr_expect_str_eq(fmt(v), "{\"a\":[1,-2,3.5,true,null,\"x\",[],{}],"
				 "\"b\":{\"c\":{\"d\":[[7]]}},\"a\":0,\"\":\"empty\"}");
}

/* JSON_MAX_DEPTH arrays inside each other parse; one more does not. */
Test(json, depth_limit)
{
	char in[2 * JSON_MAX_DEPTH + 3];
	const struct json_val *v;
	struct ptap_err err = { .pos = -1 };
	size_t n;

	memset(in, '[', JSON_MAX_DEPTH);
	memset(in + JSON_MAX_DEPTH, ']', JSON_MAX_DEPTH);
	in[2 * JSON_MAX_DEPTH] = '\0';
	v = parse_ok(in);
	for (n = 1; v->arr.n; n++)
		v = &v->arr.v[0];
	cr_expect(eq(sz, n, JSON_MAX_DEPTH));

	memset(in, '[', JSON_MAX_DEPTH + 1);
	memset(in + JSON_MAX_DEPTH + 1, ']', JSON_MAX_DEPTH + 1);
	cr_assert(eq(int, json_doc__parse(doc, in, 2 * JSON_MAX_DEPTH + 2, &v, &err), -EINVAL));
	cr_expect_null(v);
	cr_expect(eq(int, err.pos, JSON_MAX_DEPTH));
	cr_expect_not_null(strstr(err.msg, "nested deeper than 256"), "%s", err.msg);
}

/* One document reused: a line bigger than a chunk, then small ones again. */
Test(json, doc_reused_across_sizes)
{
	size_t big = 300 * 1000;
	char *in = malloc(big + 3);
	const struct json_val *v;
	struct ptap_err err = { .pos = -1 };

	cr_assert_not_null(in);
	for (int round = 0; round < 3; round++) {
		in[0] = '"';
		memset(in + 1, 'a' + round, big);
		in[big + 1] = '"';
		cr_assert(eq(int, json_doc__parse(doc, in, big + 2, &v, &err), 0), "%s", err.msg);
		cr_assert(eq(sz, v->str.len, big));
		cr_expect(eq(int, v->str.s[0], 'a' + round));
		cr_expect(eq(int, v->str.s[big - 1], 'a' + round));
		v = parse_ok("{\"k\":[1,2,3]}");
		cr_expect(eq(i64, json_get(v, "k")->arr.v[2].i, 3));
	}
	/* many members: the member stack grows past its first size */
	{
		char obj[8192];
		size_t o = 0;

		obj[o++] = '{';
		for (int i = 0; i < 500; i++)
			o += snprintf(obj + o, sizeof(obj) - o, "%s\"k%d\":%d", i ? "," : "", i, i);
		obj[o++] = '}';
		obj[o] = '\0';
		v = parse_ok(obj);
		cr_assert(eq(sz, v->obj.n, 500));
		cr_expect_str_eq(v->obj.m[499].key, "k499");
		cr_expect(eq(i64, v->obj.m[499].val.i, 499));
		cr_expect(eq(i64, json_get(v, "k250")->i, 250));
	}
	free(in);
}

/* ---- malformed text ------------------------------------------------------ */

static const struct {
	const char *in;
	size_t len;
	int pos;		/* err.pos */
	const char *msg;	/* in err.msg */
} bad[] = {
	{ S(""), 0, "expected a value, found the end of the input" },
	{ S("   "), 3, "expected a value" },
	{ S("{"), 1, "expected a string (a member name), found the end" },
	{ S("{\"a\"}"), 4, "expected ':', found '}'" },
	{ S("{\"a\":}"), 5, "expected a value, found '}'" },
	{ S("{\"a\":1,}"), 7, "expected a string (a member name), found '}'" },
	{ S("{\"a\":1 \"b\":2}"), 7, "expected ',' or '}', found '\"'" },
	{ S("{1:2}"), 1, "expected a string (a member name), found '1'" },
	{ S("{'a':1}"), 1, "found '''" },
	{ S("[1,]"), 3, "expected a value, found ']'" },
	{ S("[1 2]"), 3, "expected ',' or ']', found '2'" },
	{ S("[1"), 2, "expected ',' or ']', found the end" },
	{ S("[,1]"), 1, "expected a value, found ','" },
	{ S("01"), 0, "a number cannot start with 0" },
	{ S("-"), 1, "expected a digit" },
	{ S("-a"), 1, "expected a digit" },
	{ S("1."), 2, "expected a digit after '.'" },
	{ S("1.e5"), 2, "expected a digit after '.'" },
	{ S("1e"), 2, "expected a digit in the exponent" },
	{ S("1e+"), 3, "expected a digit in the exponent" },
	{ S(".5"), 0, "expected a value, found '.'" },
	{ S("+1"), 0, "expected a value, found '+'" },
	{ S("1e999"), 0, "number out of range" },
	{ S("-1e999"), 0, "number out of range" },
	{ S("NaN"), 0, "expected a value, found 'N'" },
	{ S("Infinity"), 0, "expected a value" },
	{ S("tru"), 0, "expected a value" },
	{ S("truex"), 0, "unknown word" },
	{ S("nul"), 0, "expected a value" },
	{ S("True"), 0, "expected a value, found 'T'" },
	{ S("1 2"), 2, "expected the end after the value, found '2'" },
	{ S("{}x"), 2, "expected the end after the value, found 'x'" },
	{ S("{}\x01"), 2, "found byte 0x01" },
	{ S("\"abc"), 0, "unterminated string" },
	{ S("\"abc\\\""), 0, "unterminated string" },
	{ S("\"a\\x\""), 2, "invalid escape '\\x'" },
	{ S("\"a\\U0041\""), 2, "invalid escape '\\U'" },
	{ S("\"\\u12\""), 1, "\\u needs four hex digits" },
	{ S("\"\\u12g4\""), 1, "\\u needs four hex digits" },
	{ S("\"\\ud800\""), 1, "high surrogate \\ud800 without a low surrogate" },
	{ S("\"\\ud800\\u0041\""), 1, "high surrogate \\ud800 without a low" },
	{ S("\"\\ud800\\ud800\""), 1, "high surrogate" },
	{ S("\"x\\udc00\""), 2, "lone low surrogate \\udc00" },
	{ S("\"a\tb\""), 2, "control character 0x09 in a string" },
	{ S("\"a\nb\""), 2, "control character 0x0a" },
	{ S("\"a\0b\""), 2, "control character 0x00" },
	{ S("\"\xff\""), 1, "invalid UTF-8 byte 0xff" },
	{ S("\"ok\x80\""), 3, "invalid UTF-8 byte 0x80" },
	{ S("\"\xc0\xaf\""), 1, "invalid UTF-8 byte 0xc0" },
	{ S("\"\xe0\x80\xaf\""), 1, "invalid UTF-8 byte 0xe0" },
	{ S("\"\xed\xa0\x80\""), 1, "invalid UTF-8 byte 0xed" },
	{ S("\"\xf4\x90\x80\x80\""), 1, "invalid UTF-8 byte 0xf4" },
	{ S("\"\xe2\x82\""), 1, "invalid UTF-8 byte 0xe2" },
	{ S("{\"a\":\"b\"\n"), 9, "expected ',' or '}', found the end" },
};

Test(json, malformed)
{
	for (size_t k = 0; k < ARRAY_SIZE(bad); k++) {
		struct ptap_err err = { .pos = -1 };
		const struct json_val *v = (void *)1;
		int r = json_doc__parse(doc, bad[k].in, bad[k].len, &v, &err);

		cr_expect(eq(int, r, -EINVAL), "#%zu '%s': %d", k, bad[k].in, r);
		cr_expect_null(v, "#%zu '%s'", k, bad[k].in);
		cr_expect(eq(int, err.pos, bad[k].pos), "#%zu '%s': pos %d (%s)", k, bad[k].in,
			  err.pos, err.msg);
		cr_expect_not_null(strstr(err.msg, bad[k].msg), "#%zu '%s': '%s'", k, bad[k].in,
				   err.msg);
	}
	/* a good parse after all those */
	cr_expect(eq(i64, parse_ok("[1]")->arr.v[0].i, 1));
}

/* The text need not be NUL-terminated: LEN bounds it. */
Test(json, length_bounds_the_text)
{
	const struct json_val *v;
	struct ptap_err err = { .pos = -1 };

	cr_assert(eq(int, json_doc__parse(doc, "12345", 3, &v, &err), 0));
	cr_expect(eq(i64, v->i, 123));
	cr_assert(eq(int, json_doc__parse(doc, "\"abc\"", 4, &v, &err), -EINVAL));
	cr_expect_str_eq(err.msg, "unterminated string");
	cr_assert(eq(int, json_doc__parse(doc, "truex", 4, &v, &err), 0));
	cr_expect(eq(int, v->b, true));
	cr_assert(eq(int, json_doc__parse(doc, "1.5e3", 3, &v, &err), 0));
	cr_expect(eq(dbl, v->d, 1.5));
}

/* ---- the writer ---------------------------------------------------------- */

/* snprintf-like: the length needed, a NUL-terminated prefix when short. */
Test(json, format_into_short_buffers)
{
	const struct json_val *v = parse_ok("{\"q\":\"SELECT 1\",\"n\":[8,9]}");
	const char *full = "{\"q\":\"SELECT 1\",\"n\":[8,9]}";
	char buf[64];

	for (size_t len = 0; len <= strlen(full) + 1; len++) {
		memset(buf, 'Z', sizeof(buf));
		cr_assert(eq(sz, json_format(v, buf, len), strlen(full)), "len %zu", len);
		if (len) {
			cr_expect(eq(sz, strlen(buf),
				     len - 1 < strlen(full) ? len - 1 : strlen(full)));
			cr_expect(eq(int, strncmp(buf, full, strlen(buf)), 0),
				  "len %zu: '%s'", len, buf);
		} else {
			cr_expect(eq(int, buf[0], 'Z'), "nothing written for LEN 0");
		}
	}
}

/* S with the first FROM replaced by TO, in a static buffer. */
static const char *str_replace(const char *s, const char *from, const char *to)
{
	static char buf[2048];
	const char *at = strstr(s, from);

	cr_assert_not_null(at);
	snprintf(buf, sizeof(buf), "%.*s%s%s", (int)(at - s), s, to, at + strlen(from));
	return buf;
}

/* A line written by record__format_json() reads back and writes out the same. */
Test(json, record_lines_round_trip)
{
	static const char *const names[] = { "query_string", "len", "bad", "ratio", "cut", "ok" };
	const struct fetch_type types[] = {
		{ .kind = FT_STRING }, { .kind = FT_UNSIGNED, .size = 4 }, { .kind = FT_STRING },
		{ .kind = FT_FLOAT, .size = 8 }, { .kind = FT_STRING },
		{ .kind = FT_BOOL, .size = 1 },
	};
	double ratio = 0.1;
	struct fetch_val vals[6] = {
		{ .str = (char *)"it's \"q\"\t\x01 caf\xc3\xa9 \xff", .len = 18 },
		{ .u = 55 },
		{ .err = -EFAULT, .addr = 0 },
		{ 0 },
		{ .str = (char *)"SELECT", .len = 6, .truncated = true },
		{ .u = 1 },
	};
	struct record rec = {
		.ts = 602603598993ULL, .pid = 22751, .tid = 22752, .comm = "query_server",
		.event = "exec_query", .kind = REC_KIND_RETURN, .addr = 0x559e541105d0ULL,
		.ret_addr = 0x559e54110600ULL, .duration = 1500, .has_duration = true,
		.nargs = 6, .names = names, .types = types, .vals = vals,
	};
	const struct json_val *v, *args;
	char line[1024];
	size_t n;

	memcpy(&vals[3].u, &ratio, sizeof(ratio));
	n = record__format_json(&rec, line, sizeof(line));
	cr_assert(gt(sz, n, 1));
	cr_assert(eq(int, line[n - 1], '\n'));
	line[--n] = '\0';
	v = parse_ok(line);
	/* the same text, but for the invalid byte: written \u00ff, it reads as U+00FF (escape.h) */
	cr_expect_not_null(strstr(line, " caf\xc3\xa9 \\u00ff\""));
	cr_expect_str_eq(fmt(v), str_replace(line, "\\u00ff", "\xc3\xbf"));
	cr_expect(eq(llong, json_get(v, "ts")->i, 602603598993LL));
	cr_expect(eq(i64, json_get(v, "duration_ns")->i, 1500));
	cr_expect_str_eq(json_get(v, "kind")->str.s, "return");
	args = json_get(v, "args");
	cr_assert(eq(sz, args->obj.n, 6));
	cr_expect(eq(sz, json_get(args, "query_string")->str.len, 19));
	cr_expect(eq(mem, ((struct cr_mem){ json_get(args, "query_string")->str.s, 19 }),
		     ((struct cr_mem){ "it's \"q\"\t\x01 caf\xc3\xa9 \xc3\xbf", 19 })),
		  "the invalid byte 0xff comes back as U+00FF");
	cr_expect(eq(i64, json_get(args, "len")->i, 55));
	cr_expect_str_eq(json_get(json_get(args, "bad"), "error")->str.s, "bad address 0x0");
	cr_expect(eq(dbl, json_get(args, "ratio")->d, 0.1));
	cr_expect(eq(int, json_get(json_get(args, "cut"), "truncated")->b, true));
	cr_expect(eq(uint, json_get(args, "ok")->type, JSON_BOOL));
}
