/* tests/unit/test_record.c: value and record rendering, text and JSON,
 * against golden strings; records that do not fit. */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "probes/record.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#define TY(k, s)	((struct fetch_type){ .kind = FT_##k, .size = (s) })
#define BF(b, o, s)	((struct fetch_type){ .kind = FT_BITFIELD, .size = (s), .bits = (b), \
					      .bit_off = (o) })
#define INT(v)		((struct fetch_val){ .u = (v) })
#define STR(s, t)	((struct fetch_val){ .str = (char *)(s), .len = sizeof(s) - 1, \
					     .truncated = (t), .addr = 0x1000 })
#define LEN(s, n, m)	((struct fetch_val){ .str = (char *)(s), .len = sizeof(s) - 1, \
					     .truncated = true, .full_len = (n), \
					     .full_len_min = (m) })
#define ERR(e, a)	((struct fetch_val){ .err = (e), .addr = (a) })

/* ---- values -------------------------------------------------------------- */

static const struct {
	const char *what;
	struct fetch_type t;
	struct fetch_val v;
	const char *text;
	const char *json;
} values[] = {
	{ "s8 of 0x1ff", TY(SIGNED, 1), INT(0x1ff), "-1", "-1" },
	{ "s8 of 0x7f", TY(SIGNED, 1), INT(0x7f), "127", "127" },
	{ "s16 min", TY(SIGNED, 2), INT(0x8000), "-32768", "-32768" },
	{ "s32", TY(SIGNED, 4), INT(0xfffffffe), "-2", "-2" },
	{ "s64", TY(SIGNED, 8), INT(0x8000000000000000ULL), "-9223372036854775808",
	  "-9223372036854775808" },
	{ "u8", TY(UNSIGNED, 1), INT(0x1ff), "255", "255" },
	{ "u32", TY(UNSIGNED, 4), INT(8), "8", "8" },
	{ "u64 max", TY(UNSIGNED, 8), INT(~0ULL), "18446744073709551615", "18446744073709551615" },
	{ "x16", TY(HEX, 2), INT(0x12345), "0x2345", "\"0x2345\"" },
	{ "x64", TY(HEX, 8), INT(0x1f), "0x1f", "\"0x1f\"" },
	{ "default", TY(DEFAULT, 0), INT(0xdeadbeefcafeULL), "0xdeadbeefcafe",
	  "\"0xdeadbeefcafe\"" },
	{ "symbol", TY(SYMBOL, 8), INT(0x401000), "0x401000", "\"0x401000\"" },
	{ "bitfield", BF(4, 3, 4), INT(0x5), "5", "5" },
	{ "bitfield masks", BF(4, 3, 4), INT(0x35), "5", "5" },
	{ "string", TY(STRING, 8), STR("SELECT 1", false), "\"SELECT 1\"", "\"SELECT 1\"" },
	{ "ustring", TY(USTRING, 8), STR("x", false), "\"x\"", "\"x\"" },
	{ "empty string", TY(STRING, 8), STR("", false), "\"\"", "\"\"" },
	{ "escaped string", TY(STRING, 8), STR("h\xc3\xa9\"\\\n\x01", false),
	  "\"h\xc3\xa9\\\"\\\\\\n\\x01\"", "\"h\xc3\xa9\\\"\\\\\\n\\u0001\"" },
	{ "invalid utf-8", TY(STRING, 8), STR("a\xff", false), "\"a\\xff\"", "\"a\\u00ff\"" },
	{ "truncated string", TY(STRING, 8), STR("abcd", true), "\"abcd\"...",
	  "{\"value\":\"abcd\",\"truncated\":true}" },
	{ "truncated, whole length known", TY(STRING, 8), LEN("abcd", 10, false),
	  "\"abcd\"...(+6 bytes)", "{\"value\":\"abcd\",\"truncated\":true,\"length\":10}" },
	{ "truncated, at least", TY(STRING, 8), LEN("abcd", 65540, true),
	  "\"abcd\"...(+65536 bytes or more)",
	  "{\"value\":\"abcd\",\"truncated\":true,\"length_min\":65540}" },
	{ "truncated, nothing past", TY(STRING, 8), LEN("abcd", 4, true),
	  "\"abcd\"...(+0 bytes or more)",
	  "{\"value\":\"abcd\",\"truncated\":true,\"length_min\":4}" },
	{ "truncated, full_len below len: not shown", TY(STRING, 8), LEN("abcd", 3, false),
	  "\"abcd\"...", "{\"value\":\"abcd\",\"truncated\":true}" },
	{ "truncated char array", TY(CHARS, 0), LEN("ab\n", 7, false), "\"ab\\n\"...(+4 bytes)",
	  "{\"value\":\"ab\\n\",\"truncated\":true,\"length\":7}" },
	{ "cut inside a character: ends before it", TY(STRING, 8),
	  LEN("SELECT \"\xe6", 18, false), "\"SELECT \\\"\"...(+10 bytes)",
	  "{\"value\":\"SELECT \\\"\",\"truncated\":true,\"length\":18}" },
	{ "cut after 2 of 3 bytes", TY(STRING, 8), LEN("\xe6\x97\xa5\xe6\x9c", 9, false),
	  "\"\xe6\x97\xa5\"...(+6 bytes)",
	  "{\"value\":\"\xe6\x97\xa5\",\"truncated\":true,\"length\":9}" },
	{ "cut inside a character, length unknown", TY(USTRING, 8), STR("ab\xf0\x9f\x98", true),
	  "\"ab\"...", "{\"value\":\"ab\",\"truncated\":true}" },
	{ "cut inside a character, at least", TY(STRING, 8), LEN("ab\xf0\x9f", 65540, true),
	  "\"ab\"...(+65538 bytes or more)",
	  "{\"value\":\"ab\",\"truncated\":true,\"length_min\":65540}" },
	{ "char array cut inside a character", TY(CHARS, 0), LEN("\xc3", 5, false),
	  "\"\"...(+5 bytes)", "{\"value\":\"\",\"truncated\":true,\"length\":5}" },
	{ "cut after an invalid byte: shown", TY(STRING, 8), LEN("ab\xff", 10, false),
	  "\"ab\\xff\"...(+7 bytes)",
	  "{\"value\":\"ab\\u00ff\",\"truncated\":true,\"length\":10}" },
	{ "whole string ending in a piece of a character: shown", TY(STRING, 8),
	  STR("ab\xe6\x97", false), "\"ab\\xe6\\x97\"", "\"ab\\u00e6\\u0097\"" },
	{ "full_len of a whole string: ignored", TY(STRING, 8),
	  ((struct fetch_val){ .str = "ab", .len = 2, .full_len = 9 }), "\"ab\"", "\"ab\"" },
	{ "forged record", TY(STRING, 8),
	  STR("x\nx 1/1 0.000000001: evil: (0x0)\r\x1b[2J\x1b]0;t\x07\xc2\x9b" "1m\xe2\x80\xae",
	      false),
	  "\"x\\nx 1/1 0.000000001: evil: (0x0)\\r\\x1b[2J\\x1b]0;t\\x07\\u009b1m\\u202e\"",
	  "\"x\\nx 1/1 0.000000001: evil: (0x0)\\r\\u001b[2J\\u001b]0;t\\u0007\\u009b1m"
	  "\\u202e\"" },
	{ "NULL string", TY(STRING, 8), ((struct fetch_val){ .null = true }), "NULL", "null" },
	{ "NULL ustring", TY(USTRING, 8), ((struct fetch_val){ .null = true }), "NULL", "null" },
	{ "bad address", TY(STRING, 8), ERR(-EFAULT, 0), "(error: bad address 0x0)",
	  "{\"error\":\"bad address 0x0\"}" },
	{ "bad address int", TY(UNSIGNED, 4), ERR(-EFAULT, 0xdead0010), 
	  "(error: bad address 0xdead0010)", "{\"error\":\"bad address 0xdead0010\"}" },
	{ "bad program", TY(DEFAULT, 8), ERR(-EINVAL, 0), "(error: Invalid argument)",
	  "{\"error\":\"Invalid argument\"}" },
	{ "gone", TY(SIGNED, 4), ERR(-ESRCH, 0), "(error: No such process)",
	  "{\"error\":\"No such process\"}" },
};

Test(record, formats_values)
{
	for (size_t i = 0; i < ARRAY_SIZE(values); i++) {
		char buf[128];
		size_t n;

		n = value__format_text(&values[i].t, &values[i].v, buf, sizeof(buf));
		cr_expect(eq(str, buf, (char *)values[i].text), "text %s", values[i].what);
		cr_expect(eq(sz, n, strlen(values[i].text)), "text %s", values[i].what);
		n = value__format_json(&values[i].t, &values[i].v, buf, sizeof(buf));
		cr_expect(eq(str, buf, (char *)values[i].json), "json %s", values[i].what);
		cr_expect(eq(sz, n, strlen(values[i].json)), "json %s", values[i].what);
	}
}

Test(record, value_that_does_not_fit_is_not_cut)
{
	struct fetch_type t = TY(STRING, 8);
	struct fetch_val v = STR("SELECT 1", true);
	char buf[16];

	memset(buf, '#', sizeof(buf));
	cr_expect(eq(sz, value__format_text(&t, &v, buf, 13), 0));	/* needs 13 + NUL */
	cr_expect_str_eq(buf, "");
	cr_expect(eq(int, buf[13], '#'));
	cr_expect(eq(sz, value__format_text(&t, &v, buf, 14), 13));
	cr_expect_str_eq(buf, "\"SELECT 1\"...");
	cr_expect(eq(sz, value__format_json(&t, &v, buf, sizeof(buf)), 0));
	cr_expect_str_eq(buf, "");
	cr_expect(eq(sz, value__format_text(&t, &v, buf, 0), 0));
}

Test(record, kind_names)
{
	static const char *const names[] = { "entry", "return", "syscall", "mmap", "fork",
					     "exec", "exit" };

	for (int k = REC_KIND_ENTRY; k <= REC_KIND_EXIT; k++)
		cr_expect_str_eq(rec_kind__name(k), names[k]);
	cr_expect_str_eq(rec_kind__name(99), "unknown");
}

/* ---- records ------------------------------------------------------------- */

static const char *const names[] = { "sql", "len", "flags", "ptr", "name", "delta", "q" };
static const struct fetch_type types[] = {
	TY(STRING, 8), TY(UNSIGNED, 4), TY(HEX, 4), TY(STRING, 8), TY(STRING, 8), TY(SIGNED, 1),
	TY(STRING, 8),
};
static const struct fetch_val vals[] = {
	STR("SELECT 1", false), INT(8), INT(0x1f), ERR(-EFAULT, 0), STR("abcd", true),
	INT(0xff), STR("say \"hi\"\n", false),
};

static const struct record rec = {
	.ts = 12345678901ULL, .pid = 1234, .tid = 1235, .comm = "query_server",
	.event = "exec_query", .kind = REC_KIND_ENTRY, .addr = 0x401136,
	.nargs = 7, .names = names, .types = types, .vals = vals,
};

#define TEXT_HEAD	"query_server 1234/1235 12.345678901: exec_query: (0x401136)"
static const char *const text_args[] = {
	" sql=\"SELECT 1\"", " len=8", " flags=0x1f", " ptr=(error: bad address 0x0)",
	" name=\"abcd\"...", " delta=-1", " q=\"say \\\"hi\\\"\\n\"",
};

#define JSON_HEAD	"{\"ts\":12345678901,\"pid\":1234,\"tid\":1235,\"comm\":\"query_server\"," \
			"\"event\":\"exec_query\",\"kind\":\"entry\",\"addr\":\"0x401136\",\"args\":{"
static const char *const json_args[] = {
	"\"sql\":\"SELECT 1\"", ",\"len\":8", ",\"flags\":\"0x1f\"",
	",\"ptr\":{\"error\":\"bad address 0x0\"}",
	",\"name\":{\"value\":\"abcd\",\"truncated\":true}", ",\"delta\":-1",
	",\"q\":\"say \\\"hi\\\"\\n\"",
};

Test(record, text_golden)
{
	static const char golden[] =
		"query_server 1234/1235 12.345678901: exec_query: (0x401136) sql=\"SELECT 1\" "
		"len=8 flags=0x1f ptr=(error: bad address 0x0) name=\"abcd\"... delta=-1 "
		"q=\"say \\\"hi\\\"\\n\"\n";
	char buf[512];

	cr_expect(eq(sz, record__format_text(&rec, buf, sizeof(buf)), strlen(golden)));
	cr_expect_str_eq(buf, golden);
}

Test(record, json_golden)
{
	static const char golden[] =
		"{\"ts\":12345678901,\"pid\":1234,\"tid\":1235,\"comm\":\"query_server\","
		"\"event\":\"exec_query\",\"kind\":\"entry\",\"addr\":\"0x401136\",\"args\":{"
		"\"sql\":\"SELECT 1\",\"len\":8,\"flags\":\"0x1f\","
		"\"ptr\":{\"error\":\"bad address 0x0\"},"
		"\"name\":{\"value\":\"abcd\",\"truncated\":true},\"delta\":-1,"
		"\"q\":\"say \\\"hi\\\"\\n\"}}\n";
	char buf[512];

	cr_expect(eq(sz, record__format_json(&rec, buf, sizeof(buf)), strlen(golden)));
	cr_expect_str_eq(buf, golden);
}

Test(record, header_fields_escaped_and_defaults)
{
	static const struct fetch_val v[] = { INT(42), STR("x", false) };
	struct record r = {
		.ts = 5, .pid = 1, .tid = 2, .comm = "a b\n\"", .event = "e\\v",
		.kind = REC_KIND_RETURN, .addr = 0, .nargs = 2, .vals = v,
	};
	char buf[256];

	record__format_text(&r, buf, sizeof(buf));
	cr_expect_str_eq(buf, "a b\\n\\\" 1/2 0.000000005: e\\\\v: (0x0) arg1=0x2a arg2=0x0\n");
	record__format_json(&r, buf, sizeof(buf));
	cr_expect_str_eq(buf, "{\"ts\":5,\"pid\":1,\"tid\":2,\"comm\":\"a b\\n\\\"\","
			 "\"event\":\"e\\\\v\",\"kind\":\"return\",\"addr\":\"0x0\","
			 "\"args\":{\"arg1\":\"0x2a\",\"arg2\":\"0x0\"}}\n");
	r.comm = "\x1b]0;t\x07\xc2\x9b";	/* a comm set to a terminal title */
	r.event = "e\xe2\x80\xae";
	record__format_text(&r, buf, sizeof(buf));
	cr_expect_str_eq(buf, "\\x1b]0;t\\x07\\u009b 1/2 0.000000005: e\\u202e: (0x0) "
			 "arg1=0x2a arg2=0x0\n");
	record__format_json(&r, buf, sizeof(buf));
	cr_expect_str_eq(buf, "{\"ts\":5,\"pid\":1,\"tid\":2,"
			 "\"comm\":\"\\u001b]0;t\\u0007\\u009b\","
			 "\"event\":\"e\\u202e\",\"kind\":\"return\",\"addr\":\"0x0\","
			 "\"args\":{\"arg1\":\"0x2a\",\"arg2\":\"0x0\"}}\n");
	r.comm = "a b\n\"";
	r.event = "e\\v";
	r.nargs = 0;
	record__format_json(&r, buf, sizeof(buf));
	cr_expect_str_eq(buf, "{\"ts\":5,\"pid\":1,\"tid\":2,\"comm\":\"a b\\n\\\"\","
			 "\"event\":\"e\\\\v\",\"kind\":\"return\",\"addr\":\"0x0\",\"args\":{}}\n");
}

/* The expected line for buffer size LEN: the whole record, or the header and
 * the arguments that fit, then the cut marker. */
static void expect_cut(const char *buf, size_t n, size_t len, const char *head,
		       const char *const *args, const char *end, const char *cut,
		       const char *only_cut)
{
	char want[1024], full[1024];
	size_t k;

	snprintf(full, sizeof(full), "%s", head);
	for (k = 0; k < ARRAY_SIZE(names); k++)
		strcat(full, args[k]);
	strcat(full, end);
	if (strlen(full) < len) {
		cr_expect(eq(str, (char *)buf, full), "len %zu", len);
		cr_expect(eq(sz, n, strlen(full)));
		return;
	}
	/* The most arguments that fit with the cut marker. */
	snprintf(want, sizeof(want), "%s", head);
	if (strlen(want) + strlen(cut) >= len) {
		snprintf(want, sizeof(want), "%s", len > strlen(only_cut) ? only_cut : "");
	} else {
		for (k = 0; strlen(want) + strlen(args[k]) + strlen(cut) < len; k++)
			strcat(want, args[k]);
		strcat(want, cut);
	}
	cr_expect(eq(str, (char *)buf, want), "len %zu", len);
	cr_expect(eq(sz, n, strlen(want)), "len %zu", len);
}

Test(record, text_cut_at_value_boundaries)
{
	char buf[512];

	for (size_t len = 0; len < 200; len++) {
		size_t n;

		memset(buf, '#', sizeof(buf));
		n = record__format_text(&rec, buf, len);
		cr_assert(eq(int, buf[len], '#'), "len %zu: wrote past the buffer", len);
		if (!len) {
			cr_expect(eq(sz, n, 0));
			continue;
		}
		if (len <= 16) {	/* too small for " ...(truncated)\n" */
			cr_expect(eq(str, buf, len >= 2 ? "\n" : ""), "len %zu", len);
			continue;
		}
		cr_assert(lt(sz, n, len));
		cr_expect(eq(int, buf[n - 1], '\n'), "len %zu", len);
		expect_cut(buf, n, len, TEXT_HEAD, text_args, "\n", " ...(truncated)\n",
			   " ...(truncated)\n");
	}
}

Test(record, json_cut_at_value_boundaries)
{
	char buf[512];

	for (size_t len = 0; len < 400; len++) {
		size_t n;

		memset(buf, '#', sizeof(buf));
		n = record__format_json(&rec, buf, len);
		cr_assert(eq(int, buf[len], '#'), "len %zu: wrote past the buffer", len);
		if (!len) {
			cr_expect(eq(sz, n, 0));
			continue;
		}
		cr_assert(lt(sz, n, len));
		expect_cut(buf, n, len, JSON_HEAD, json_args, "}}\n", "},\"truncated\":true}\n",
			   "{\"truncated\":true}\n");
	}
}

/* ---- DWARF kinds ----------------------------------------------------------- */

#define TYF(k, s, f)	((struct fetch_type){ .kind = FT_##k, .size = (s), .flags = (f) })

/* Text and JSON of T and V, compared with the expected strings. */
static void expect_value(const char *what, const struct fetch_type *t, const struct fetch_val *v,
			 const char *text, const char *json)
{
	char buf[1024];
	size_t n;

	n = value__format_text(t, v, buf, sizeof(buf));
	cr_expect(eq(str, buf, (char *)text), "text %s", what);
	cr_expect(eq(sz, n, strlen(text)), "text %s", what);
	cr_expect(le(sz, n, value__max_len(t, 256)), "text %s: over value__max_len", what);
	n = value__format_json(t, v, buf, sizeof(buf));
	cr_expect(eq(str, buf, (char *)json), "json %s", what);
	cr_expect(eq(sz, n, strlen(json)), "json %s", what);
	cr_expect(le(sz, n, value__max_len(t, 256)), "json %s: over value__max_len", what);
}

Test(record, formats_bools)
{
	struct fetch_type t = TY(BOOL, 1);
	struct fetch_val v = INT(1);

	expect_value("true", &t, &v, "true", "true");
	v = INT(0);
	expect_value("false", &t, &v, "false", "false");
	v = INT(0x100);		/* only its 1 byte counts */
	expect_value("u8 of 0x100", &t, &v, "false", "false");
	t = TY(BOOL, 4);
	v = INT(2);
	expect_value("4-byte 2", &t, &v, "true", "true");
}

static struct fetch_val float_val(float f)
{
	uint32_t w;

	memcpy(&w, &f, sizeof(w));
	return INT(0xdeadbeef00000000ULL | w);	/* the upper half is not the float's */
}

static struct fetch_val double_val(double d)
{
	uint64_t u;

	memcpy(&u, &d, sizeof(u));
	return INT(u);
}

Test(record, formats_floats_shortest)
{
	static const struct {
		const char *what;
		int size;
		double d;
		const char *text, *json;
	} rows[] = {
		{ "0.1f", 4, 0.1f, "0.1", "0.1" },
		{ "0.1", 8, 0.1, "0.1", "0.1" },
		{ "-2.5f", 4, -2.5f, "-2.5", "-2.5" },
		{ "-2.5", 8, -2.5, "-2.5", "-2.5" },
		{ "1e30f", 4, 1e30f, "1e+30", "1e+30" },
		{ "1e30", 8, 1e30, "1e+30", "1e+30" },
		{ "1/3f", 4, 1.0f / 3, "0.33333334", "0.33333334" },
		{ "1/3", 8, 1.0 / 3, "0.3333333333333333", "0.3333333333333333" },
		{ "0", 8, 0.0, "0", "0" },
		{ "-0", 8, -0.0, "-0", "-0" },
		{ "2^24+1 as float", 4, 16777217.0f, "16777216", "16777216" },
		{ "-DBL_MIN", 8, -2.2250738585072014e-308, "-2.2250738585072014e-308",
		  "-2.2250738585072014e-308" },
		{ "denormal min", 8, 4.9406564584124654e-324, "5e-324", "5e-324" },
		{ "nan", 8, __builtin_nan(""), "nan", "\"nan\"" },
		{ "-nan", 8, -__builtin_nan(""), "nan", "\"nan\"" },
		{ "nanf", 4, __builtin_nanf(""), "nan", "\"nan\"" },
		{ "inf", 8, __builtin_inf(), "inf", "\"inf\"" },
		{ "-inf", 8, -__builtin_inf(), "-inf", "\"-inf\"" },
		{ "inff", 4, __builtin_inff(), "inf", "\"inf\"" },
		{ "-inff", 4, -__builtin_inff(), "-inf", "\"-inf\"" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		struct fetch_type t = TY(FLOAT, rows[i].size);
		struct fetch_val v = rows[i].size == 4 ? float_val((float)rows[i].d) :
				     double_val(rows[i].d);

		expect_value(rows[i].what, &t, &v, rows[i].text, rows[i].json);
	}
}

static const struct type_enumerator color_enums[] = {
	{ 0, "RED" }, { 1, "GREEN" }, { -1, "NONE" }, { 0x7fffffff, "MAX" },
};
static const struct type_desc color = { "enum color", ARRAY_SIZE(color_enums), NULL, color_enums };

Test(record, formats_enums)
{
	static const struct {
		const char *what;
		struct fetch_type t;
		uint64_t u;
		const char *text, *json;
	} rows[] = {
		{ "named", TYF(ENUM, 4, 0), 1, "GREEN", "\"GREEN\"" },
		{ "zero", TYF(ENUM, 4, 0), 0, "RED", "\"RED\"" },
		{ "truncated to its size", TYF(ENUM, 4, 0), 0x100000001ULL, "GREEN", "\"GREEN\"" },
		{ "unnamed", TYF(ENUM, 4, 0), 7, "7", "7" },
		{ "unnamed unsigned", TYF(ENUM, 4, 0), 0xfffffff9, "4294967289", "4294967289" },
		{ "signed -1, named", TYF(ENUM, 4, FTF_SIGNED), 0xffffffff, "NONE", "\"NONE\"" },
		{ "signed -1 of s8, named", TYF(ENUM, 1, FTF_SIGNED), 0xff, "NONE", "\"NONE\"" },
		{ "signed, unnamed", TYF(ENUM, 4, FTF_SIGNED), 0xfffffff9, "-7", "-7" },
		{ "signed s8, unnamed", TYF(ENUM, 1, FTF_SIGNED), 0x80, "-128", "-128" },
		{ "signed, positive", TYF(ENUM, 4, FTF_SIGNED), 0x7fffffff, "MAX", "\"MAX\"" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		struct fetch_type t = rows[i].t;
		struct fetch_val v = INT(rows[i].u);

		t.desc = &color;
		expect_value(rows[i].what, &t, &v, rows[i].text, rows[i].json);
	}
	/* no description: the number */
	{
		struct fetch_type t = TYF(ENUM, 4, FTF_SIGNED);
		struct fetch_val v = INT(0xffffffff);

		expect_value("no desc", &t, &v, "-1", "-1");
	}
}

Test(record, formats_signed_bitfields)
{
	struct fetch_type t = { .kind = FT_BITFIELD, .size = 4, .bits = 3, .bit_off = 2,
				.flags = FTF_SIGNED };
	struct fetch_val v = INT(~1ULL);	/* the evaluator's sign-extended -2 */

	expect_value("signed -2", &t, &v, "-2", "-2");
	v = INT(6);				/* not extended yet: 0b110 is -2 too */
	expect_value("signed raw 6", &t, &v, "-2", "-2");
	v = INT(3);
	expect_value("signed 3", &t, &v, "3", "3");
	t.flags = 0;
	v = INT(6);
	expect_value("unsigned 6", &t, &v, "6", "6");
}

Test(record, formats_char_arrays)
{
	struct fetch_type t = { .kind = FT_CHARS, .len = 8 };
	struct fetch_val v = STR("ab\"\n", false);

	expect_value("chars", &t, &v, "\"ab\\\"\\n\"", "\"ab\\\"\\n\"");
	v = STR("abcd", true);
	expect_value("truncated", &t, &v, "\"abcd\"...",
		     "{\"value\":\"abcd\",\"truncated\":true}");
	v = ERR(-EFAULT, 0x10);
	expect_value("fault", &t, &v, "(error: bad address 0x10)",
		     "{\"error\":\"bad address 0x10\"}");
}

/*
 * struct s {             offset
 *	int x;              0
 *	char name[4];       4
 *	enum color c;       8
 *	struct in in;      12  (8 bytes: opaque)
 *	_Bool flag;        20
 *	int bf:3 (at bit 2 of the byte at 21)
 *	float f;           24
 *	char *p;           32  (a pointer: hex)
 *	unsigned late;     40  (past the 40 bytes fetched)
 * };
 */
static const struct type_member s_members[] = {
	{ "x", 0, { .kind = FT_SIGNED, .size = 4 } },
	{ "name", 4, { .kind = FT_CHARS, .len = 4 } },
	{ "c", 8, { .kind = FT_ENUM, .size = 4, .desc = &color } },
	{ "in", 12, { .kind = FT_OPAQUE, .len = 8 } },
	{ "flag", 20, { .kind = FT_BOOL, .size = 1 } },
	{ "bf", 21, { .kind = FT_BITFIELD, .size = 1, .bits = 3, .bit_off = 2,
		      .flags = FTF_SIGNED } },
	{ "f", 24, { .kind = FT_FLOAT, .size = 4 } },
	{ "p", 32, { .kind = FT_HEX, .size = 8 } },
	{ "late", 40, { .kind = FT_UNSIGNED, .size = 4 } },
};
static const struct type_desc s_desc = { "struct s", ARRAY_SIZE(s_members), s_members, NULL };

/* The 40 bytes of a struct s. */
static void fill_s(unsigned char *b)
{
	float f = 0.5f;
	uint64_t p = 0x1000;

	memset(b, 0xee, 40);
	memcpy(b, "\x01\0\0\0", 4);		/* x = 1 */
	memcpy(b + 4, "ab\0z", 4);		/* name = "ab" */
	memcpy(b + 8, "\0\0\0\0", 4);		/* c = RED */
	b[20] = 1;				/* flag */
	b[21] = 0x81 | (6 << 2);		/* bf = 0b110 = -2, other bits set */
	memcpy(b + 24, &f, 4);
	memcpy(b + 32, &p, 8);
}

Test(record, formats_structs)
{
	struct fetch_type t = { .kind = FT_STRUCT, .len = 44, .desc = &s_desc };
	unsigned char bytes[40];
	struct fetch_val v = { .str = (char *)bytes, .len = sizeof(bytes), .addr = 0x5000 };

	fill_s(bytes);
	expect_value("struct s", &t, &v,
		     "{x=1, name=\"ab\", c=RED, in={...}, flag=true, bf=-2, f=0.5, p=0x1000, "
		     "late=(error: not fetched)}",
		     "{\"x\":1,\"name\":\"ab\",\"c\":\"RED\",\"in\":\"{...}\",\"flag\":true,"
		     "\"bf\":-2,\"f\":0.5,\"p\":\"0x1000\",\"late\":{\"error\":\"not fetched\"}}");

	/* a char array filled to its end, an unnamed enum value, a negative x */
	memcpy(bytes, "\xfe\xff\xff\xff" "abcd" "\x09\0\0\0", 12);
	expect_value("struct s again", &t, &v,
		     "{x=-2, name=\"abcd\", c=9, in={...}, flag=true, bf=-2, f=0.5, p=0x1000, "
		     "late=(error: not fetched)}",
		     "{\"x\":-2,\"name\":\"abcd\",\"c\":9,\"in\":\"{...}\",\"flag\":true,"
		     "\"bf\":-2,\"f\":0.5,\"p\":\"0x1000\",\"late\":{\"error\":\"not fetched\"}}");

	/* fewer bytes: every member past them is an error, the opaque one too */
	v.len = 14;
	expect_value("cut short", &t, &v,
		     "{x=-2, name=\"abcd\", c=9, in=(error: not fetched), "
		     "flag=(error: not fetched), "
		     "bf=(error: not fetched), f=(error: not fetched), p=(error: not fetched), "
		     "late=(error: not fetched)}",
		     "{\"x\":-2,\"name\":\"abcd\",\"c\":9,\"in\":{\"error\":\"not fetched\"},"
		     "\"flag\":{\"error\":\"not fetched\"},\"bf\":{\"error\":\"not fetched\"},"
		     "\"f\":{\"error\":\"not fetched\"},\"p\":{\"error\":\"not fetched\"},"
		     "\"late\":{\"error\":\"not fetched\"}}");

	v = ERR(-EFAULT, 0x5000);
	expect_value("fault", &t, &v, "(error: bad address 0x5000)",
		     "{\"error\":\"bad address 0x5000\"}");
}

Test(record, formats_unions_and_odd_members)
{
	static const struct type_member u_members[] = {
		{ "i", 0, { .kind = FT_UNSIGNED, .size = 4 } },
		{ "f", 0, { .kind = FT_FLOAT, .size = 4 } },
		{ "s", 0, { .kind = FT_STRING, .size = 8 } },	/* a char *: its address */
		{ NULL, 0, { .kind = FT_OPAQUE, .len = 8 } },	/* anonymous struct */
		{ "q\"\n", 0, { .kind = FT_SIGNED, .size = 2 } },	/* escaped name */
		{ "ld", 0, { .kind = FT_FLOAT, .size = 16 } },	/* long double: opaque */
		{ "tail", 8, { .kind = FT_OPAQUE, .len = 0 } },	/* flexible array member */
	};
	static const struct type_desc u_desc = { "union u", ARRAY_SIZE(u_members), u_members,
						 NULL };
	struct fetch_type t = { .kind = FT_STRUCT, .len = 16, .desc = &u_desc };
	unsigned char bytes[16] = { 0x00, 0x00, 0x80, 0x3f, 0, 0, 0, 0 };	/* 1.0f */
	struct fetch_val v = { .str = (char *)bytes, .len = 8 };

	expect_value("union", &t, &v,
		     "{i=1065353216, f=1, s=0x3f800000, (anon)={...}, q\\\"\\n=0, "
		     "ld=(error: not fetched), tail={...}}",
		     "{\"i\":1065353216,\"f\":1,\"s\":\"0x3f800000\",\"(anon)\":\"{...}\","
		     "\"q\\\"\\n\":0,\"ld\":{\"error\":\"not fetched\"},\"tail\":\"{...}\"}");
	v.len = 16;
	expect_value("union, 16 bytes", &t, &v,
		     "{i=1065353216, f=1, s=0x3f800000, (anon)={...}, q\\\"\\n=0, ld={...}, "
		     "tail={...}}",
		     "{\"i\":1065353216,\"f\":1,\"s\":\"0x3f800000\",\"(anon)\":\"{...}\","
		     "\"q\\\"\\n\":0,\"ld\":\"{...}\",\"tail\":\"{...}\"}");
	/* no members known, and an opaque value on its own */
	t.desc = NULL;
	expect_value("no desc", &t, &v, "{...}", "\"{...}\"");
	t = (struct fetch_type){ .kind = FT_OPAQUE, .len = 8 };
	expect_value("opaque", &t, &v, "{...}", "\"{...}\"");
}

Test(record, struct_that_does_not_fit_is_not_cut)
{
	struct fetch_type t = { .kind = FT_STRUCT, .len = 44, .desc = &s_desc };
	unsigned char bytes[40];
	struct fetch_val v = { .str = (char *)bytes, .len = sizeof(bytes) };
	char buf[256];
	size_t full;

	fill_s(bytes);
	full = value__format_text(&t, &v, buf, sizeof(buf));
	cr_assert(gt(sz, full, 0));
	memset(buf, '#', sizeof(buf));
	cr_expect(eq(sz, value__format_text(&t, &v, buf, full), 0));
	cr_expect_str_eq(buf, "");
	cr_expect(eq(int, buf[full], '#'));
	cr_expect(eq(sz, value__format_text(&t, &v, buf, full + 1), full));
}

/* ---- upper bounds ---------------------------------------------------------- */

Test(record, max_len_bounds_every_error)
{
	struct fetch_type tys[] = { TY(UNSIGNED, 4), TY(BOOL, 1), TY(FLOAT, 8), TY(DEFAULT, 0) };

	for (size_t k = 0; k < ARRAY_SIZE(tys); k++) {
		for (int e = -200; e <= 200; e++) {
			struct fetch_val v = ERR(e, ~0ULL);
			char buf[512];

			if (!e)
				continue;
			cr_expect(le(sz, value__format_text(&tys[k], &v, buf, sizeof(buf)),
				     value__max_len(&tys[k], 0)), "err %d", e);
			cr_expect(le(sz, value__format_json(&tys[k], &v, buf, sizeof(buf)),
				     value__max_len(&tys[k], 0)), "err %d", e);
		}
	}
}

Test(record, max_len_bounds_numbers)
{
	static const uint64_t us[] = { 0, 1, 0x7fffffffffffffffULL, 0x8000000000000000ULL, ~0ULL,
				       0x800fffffffffffffULL /* a negative subnormal */ };
	struct fetch_type tys[] = { TY(SIGNED, 8), TY(UNSIGNED, 8), TY(HEX, 8), TY(SYMBOL, 8),
				      TY(BOOL, 8), TY(FLOAT, 4), TY(FLOAT, 8), TY(DEFAULT, 0),
				      BF(64, 0, 8), TYF(ENUM, 8, FTF_SIGNED) };

	for (size_t k = 0; k < ARRAY_SIZE(tys); k++) {
		for (size_t i = 0; i < ARRAY_SIZE(us); i++) {
			struct fetch_val v = INT(us[i]);
			char buf[512];

			cr_expect(le(sz, value__format_text(&tys[k], &v, buf, sizeof(buf)),
				     value__max_len(&tys[k], 0)), "type %zu: %s", k, buf);
			cr_expect(le(sz, value__format_json(&tys[k], &v, buf, sizeof(buf)),
				     value__max_len(&tys[k], 0)), "type %zu: %s", k, buf);
		}
	}
}

Test(record, max_len_bounds_escaped_strings)
{
	static char s[300];
	struct fetch_type t = TY(STRING, 8);
	struct fetch_val v = { .str = s, .len = 256, .truncated = true };
	static char buf[4096];
	size_t n;

	memset(s, 0x01, sizeof(s));	/* \x01 in text, \u0001 in JSON: the worst */
	n = value__format_json(&t, &v, buf, sizeof(buf));
	cr_expect(gt(sz, n, 256 * 6));
	cr_expect(le(sz, n, value__max_len(&t, 256)));
	cr_expect(le(sz, value__format_text(&t, &v, buf, sizeof(buf)), value__max_len(&t, 256)));
	/* with the longest length there is */
	v.full_len = ~0ULL;
	v.full_len_min = true;
	n = value__format_json(&t, &v, buf, sizeof(buf));
	cr_expect_not_null(strstr(buf, ",\"length_min\":18446744073709551615}"), "%s", buf);
	cr_expect(le(sz, n, value__max_len(&t, 256)));
	cr_expect(le(sz, value__format_text(&t, &v, buf, sizeof(buf)), value__max_len(&t, 256)));
	v.full_len = 0;
	v.full_len_min = false;
	t = (struct fetch_type){ .kind = FT_CHARS, .len = 300 };
	cr_expect(le(sz, value__format_json(&t, &v, buf, sizeof(buf)), value__max_len(&t, 256)));
	/* a char[4] is bounded by its length, not by strmax */
	t.len = 4;
	v.len = 4;
	v.truncated = false;
	n = value__format_json(&t, &v, buf, sizeof(buf));
	cr_expect(eq(sz, n, 2 + 4 * 6));
	cr_expect(le(sz, n, value__max_len(&t, 256)));
	cr_expect(lt(sz, value__max_len(&t, 256), 256));
}

Test(record, max_len_bounds_a_struct_of_escaped_strings)
{
	static const struct type_enumerator e_enums[] = {
		{ 5, "\x01\x02\x03\x04\x05\x06\x07\x08" },
	};
	static const struct type_desc e_desc = { "enum e", 1, NULL, e_enums };
	static const struct type_member members[] = {
		{ "\x01\x02\x03", 0, { .kind = FT_CHARS, .len = 64 } },
		{ "\"\\\"\\", 64, { .kind = FT_CHARS, .len = 64 } },
		{ "\x7f", 128, { .kind = FT_CHARS, .len = 64 } },
		{ "\x1f\x1f", 192, { .kind = FT_ENUM, .size = 4, .desc = &e_desc } },
		{ "\xff\xfe", 196, { .kind = FT_FLOAT, .size = 8 } },
		{ "\x01", 204, { .kind = FT_SIGNED, .size = 8 } },
		{ "\x02", 212, { .kind = FT_HEX, .size = 8 } },
		{ "\x03", 220, { .kind = FT_OPAQUE, .len = 4 } },
		{ "\x04", 224, { .kind = FT_CHARS, .len = 64 } },
		{ NULL, 288, { .kind = FT_UNSIGNED, .size = 8 } },
	};
	static const struct type_desc desc = { "struct worst", ARRAY_SIZE(members), members, NULL };
	struct fetch_type t = { .kind = FT_STRUCT, .len = 296, .desc = &desc };
	static char bytes[296];
	double d = -2.2250738585072014e-308;
	uint64_t minus = 0x8000000000000000ULL;
	struct fetch_val v = { .str = bytes, .len = sizeof(bytes) };
	size_t max = value__max_len(&t, 16);	/* strmax does not limit members */
	static char buf[8192];
	size_t text, json;

	memset(bytes, 0x01, 192);		/* no NUL: every array is 64 escapes */
	memcpy(bytes + 192, "\x05\0\0\0", 4);
	memcpy(bytes + 196, &d, 8);
	memcpy(bytes + 204, &minus, 8);
	memset(bytes + 212, 0xff, 8);
	memset(bytes + 224, 0x01, 64);
	memset(bytes + 288, 0xff, 8);
	text = value__format_text(&t, &v, buf, sizeof(buf));
	cr_expect(gt(sz, text, 4 * 64 * 4), "%s", buf);
	cr_expect(le(sz, text, max), "text %zu > %zu", text, max);
	json = value__format_json(&t, &v, buf, sizeof(buf));
	cr_expect(gt(sz, json, 4 * 64 * 6), "%s", buf);
	cr_expect(le(sz, json, max), "json %zu > %zu", json, max);
	/* a buffer of max + 1 bytes always takes it */
	cr_expect(eq(sz, value__format_json(&t, &v, buf, max + 1), json));
	cr_expect(eq(sz, value__format_text(&t, &v, buf, max + 1), text));
	/* and with every member past the bytes: errors, still bounded */
	v.len = 0;
	cr_expect(le(sz, value__format_json(&t, &v, buf, sizeof(buf)), max));
	cr_expect(le(sz, value__format_text(&t, &v, buf, sizeof(buf)), max));
}

/* ---- records with the new kinds ------------------------------------------ */

static unsigned char s_bytes[40];
static const char *const k_names[] = { "n", "s", "f", "ok", "c" };
static const struct fetch_type k_types[] = {
	TY(UNSIGNED, 4), { .kind = FT_STRUCT, .len = 40, .desc = &s_desc }, TY(FLOAT, 8),
	TY(BOOL, 1), { .kind = FT_ENUM, .size = 4, .desc = &color },
};
static struct fetch_val k_vals[5];
static const struct record k_rec = {
	.ts = 1000000001ULL, .pid = 7, .tid = 8, .comm = "c", .event = "e",
	.kind = REC_KIND_ENTRY, .addr = 0x10, .nargs = 5, .names = k_names, .types = k_types,
	.vals = k_vals,
};

static void setup_k(void)
{
	fill_s(s_bytes);
	k_vals[0] = INT(3);
	k_vals[1] = (struct fetch_val){ .str = (char *)s_bytes, .len = 40 };
	k_vals[2] = double_val(-2.5);
	k_vals[3] = INT(1);
	k_vals[4] = INT(1);
}

#define K_TEXT_HEAD	"c 7/8 1.000000001: e: (0x10)"
static const char *const k_text_args[] = {
	" n=3",
	" s={x=1, name=\"ab\", c=RED, in={...}, flag=true, bf=-2, f=0.5, p=0x1000, "
	"late=(error: not fetched)}",
	" f=-2.5", " ok=true", " c=GREEN",
};

#define K_JSON_HEAD	"{\"ts\":1000000001,\"pid\":7,\"tid\":8,\"comm\":\"c\"," \
			"\"event\":\"e\"," \
			"\"kind\":\"entry\",\"addr\":\"0x10\",\"args\":{"
static const char *const k_json_args[] = {
	"\"n\":3",
	",\"s\":{\"x\":1,\"name\":\"ab\",\"c\":\"RED\",\"in\":\"{...}\",\"flag\":true,"
	"\"bf\":-2,\"f\":0.5,\"p\":\"0x1000\",\"late\":{\"error\":\"not fetched\"}}",
	",\"f\":-2.5", ",\"ok\":true", ",\"c\":\"GREEN\"",
};

/* BUF as formatted into LEN bytes: the whole line, or the arguments that fit and CUT. */
static void expect_k_cut(const char *buf, size_t n, size_t len, const char *head,
			 const char *const *args, const char *end, const char *cut,
			 const char *only_cut)
{
	char want[2048];
	size_t k;

	snprintf(want, sizeof(want), "%s", head);
	for (k = 0; k < ARRAY_SIZE(k_names); k++)
		strcat(want, args[k]);
	strcat(want, end);
	if (strlen(want) >= len) {
		snprintf(want, sizeof(want), "%s", head);
		if (strlen(want) + strlen(cut) >= len) {
			snprintf(want, sizeof(want), "%s", len > strlen(only_cut) ? only_cut : "");
		} else {
			for (k = 0; strlen(want) + strlen(args[k]) + strlen(cut) < len; k++)
				strcat(want, args[k]);
			strcat(want, cut);
		}
	}
	cr_expect(eq(str, (char *)buf, want), "len %zu", len);
	cr_expect(eq(sz, n, strlen(want)), "len %zu", len);
}

Test(record, new_kinds_in_records_cut_at_value_boundaries, .init = setup_k)
{
	static char buf[1024];

	for (size_t len = 17; len < 400; len++) {
		size_t n;

		memset(buf, '#', sizeof(buf));
		n = record__format_text(&k_rec, buf, len);
		cr_assert(eq(int, buf[len], '#'), "len %zu: wrote past the buffer", len);
		expect_k_cut(buf, n, len, K_TEXT_HEAD, k_text_args, "\n", " ...(truncated)\n",
			     " ...(truncated)\n");
		memset(buf, '#', sizeof(buf));
		n = record__format_json(&k_rec, buf, len);
		cr_assert(eq(int, buf[len], '#'), "len %zu: wrote past the buffer", len);
		expect_k_cut(buf, n, len, K_JSON_HEAD, k_json_args, "}}\n",
			     "},\"truncated\":true}\n", "{\"truncated\":true}\n");
	}
}

/* A return record: the return address and the duration from the entry. */
Test(record, return_golden)
{
	struct record r = rec;
	char buf[512];

	r.event = "exec_query__return";
	r.kind = REC_KIND_RETURN;
	r.ret_addr = 0x4011a2;
	r.duration = 12345;
	r.has_duration = true;
	r.nargs = 2;
	cr_expect(eq(sz, record__format_text(&r, buf, sizeof(buf)), strlen(buf)));
	cr_expect_str_eq(buf, "query_server 1234/1235 12.345678901: exec_query__return: "
			      "(0x401136 <- 0x4011a2) duration=12345ns sql=\"SELECT 1\" len=8\n");
	record__format_json(&r, buf, sizeof(buf));
	cr_expect_str_eq(buf, "{\"ts\":12345678901,\"pid\":1234,\"tid\":1235,"
			      "\"comm\":\"query_server\",\"event\":\"exec_query__return\","
			      "\"kind\":\"return\",\"addr\":\"0x401136\",\"ret_addr\":\"0x4011a2\","
			      "\"duration_ns\":12345,\"args\":{\"sql\":\"SELECT 1\",\"len\":8}}\n");
	/* a duration of 0 is still shown; no return address, no arrow */
	r.ret_addr = 0;
	r.duration = 0;
	record__format_text(&r, buf, sizeof(buf));
	cr_expect_str_eq(buf, "query_server 1234/1235 12.345678901: exec_query__return: "
			      "(0x401136) duration=0ns sql=\"SELECT 1\" len=8\n");
}

/* ---- syscall records, contexts, the clock line (issue 6) -------------------- */

Test(record, syscall_values)
{
	struct fetch_val fd = { .u = 3, .str = (char *)"/tmp/a \"b\"", .len = 10 };
	struct fetch_val nofd = { .u = (uint64_t)-1 };
	struct fetch_val sym = { .str = (char *)"O_WRONLY|O_CREAT", .len = 16 };

	expect_value("fd", &TY(FD, 4), &fd, "3</tmp/a \\\"b\\\">",
		     "{\"fd\":3,\"path\":\"/tmp/a \\\"b\\\"\"}");
	expect_value("fd unknown", &TY(FD, 4), &nofd, "-1", "-1");
	expect_value("symbolic", &TY(SYM, 0), &sym, "O_WRONLY|O_CREAT", "\"O_WRONLY|O_CREAT\"");
}

Test(record, syscall_golden)
{
	static const char *const snames[] = { "fd", "count", "ret" };
	static const char *const cnames[] = { "query_string" };
	const struct fetch_type stypes[] = { TY(FD, 4), TY(UNSIGNED, 8), TY(SYM, 0) };
	const struct fetch_type ctypes[] = { TY(STRING, 8) };
	const struct fetch_val svals[] = {
		{ .u = 4, .str = (char *)"/tmp/db", .len = 7 }, INT(100),
		{ .str = (char *)"-ENOSPC", .len = 7 },
	};
	const struct fetch_val cvals[] = { STR("SELECT 1", false) };
	struct record_ctx ctx = { .event = "exec_query", .nargs = 1, .names = cnames,
				  .types = ctypes, .vals = cvals };
	struct record r = { .ts = 12345678901ULL, .pid = 7, .tid = 8, .comm = "qs",
			    .event = "pwrite64", .kind = REC_KIND_SYSCALL, .addr = 0x1234,
			    .duration = 5400, .has_duration = true, .nargs = 3, .names = snames,
			    .types = stypes, .vals = svals, .nctx = 1, .ctx = &ctx };
	char buf[512];

	cr_expect(eq(sz, record__format_text(&r, buf, sizeof(buf)), strlen(buf)));
	cr_expect_str_eq(buf, "qs 7/8 12.345678901: pwrite64: duration=5400ns fd=4</tmp/db> "
			      "count=100 ret=-ENOSPC {exec_query: query_string=\"SELECT 1\"}\n");
	cr_expect(eq(sz, record__format_json(&r, buf, sizeof(buf)), strlen(buf)));
	cr_expect_str_eq(buf, "{\"ts\":12345678901,\"pid\":7,\"tid\":8,\"comm\":\"qs\","
			      "\"event\":\"pwrite64\",\"kind\":\"syscall\",\"duration_ns\":5400,"
			      "\"args\":{\"fd\":{\"fd\":4,\"path\":\"/tmp/db\"},\"count\":100,"
			      "\"ret\":\"-ENOSPC\"},\"context\":{\"exec_query\":"
			      "{\"query_string\":\"SELECT 1\"}}}\n");
	/* no context current, not returned: no group, no duration */
	r.nctx = 0;
	r.has_duration = false;
	r.nargs = 2;
	record__format_text(&r, buf, sizeof(buf));
	cr_expect_str_eq(buf, "qs 7/8 12.345678901: pwrite64: fd=4</tmp/db> count=100\n");
	record__format_json(&r, buf, sizeof(buf));
	cr_expect_str_eq(buf, "{\"ts\":12345678901,\"pid\":7,\"tid\":8,\"comm\":\"qs\","
			      "\"event\":\"pwrite64\",\"kind\":\"syscall\",\"args\":{\"fd\":"
			      "{\"fd\":4,\"path\":\"/tmp/db\"},\"count\":100}}\n");
	/* a context that does not fit is left out whole, and the record says it was cut */
	r.nctx = 1;
	record__format_json(&r, buf, 150);
	cr_expect_not_null(strstr(buf, "\"truncated\":true}"), "%s", buf);
	cr_expect_null(strstr(buf, "context"), "%s", buf);
	record__format_text(&r, buf, 80);
	cr_expect_not_null(strstr(buf, "...(truncated)"), "%s", buf);
	cr_expect_null(strstr(buf, "{exec_query"), "%s", buf);
}

/* fork, exec and exit records have no address: none is shown (not "(0x0)"). */
Test(record, task_records_have_no_address)
{
	static const char *const tnames[] = { "child" };
	const struct fetch_type ttypes[] = { TY(SIGNED, 8) };
	const struct fetch_val tvals[] = { INT(4243) };
	static const struct {
		enum rec_kind kind;
		const char *text, *json;
	} rows[] = {
		{ REC_KIND_FORK, "sh 7/8 1.000000002: fork: child=4243\n",
		  "{\"ts\":1000000002,\"pid\":7,\"tid\":8,\"comm\":\"sh\",\"event\":\"fork\","
		  "\"kind\":\"fork\",\"args\":{\"child\":4243}}\n" },
		{ REC_KIND_EXEC, "sh 7/8 1.000000002: exec: child=4243\n",
		  "{\"ts\":1000000002,\"pid\":7,\"tid\":8,\"comm\":\"sh\",\"event\":\"exec\","
		  "\"kind\":\"exec\",\"args\":{\"child\":4243}}\n" },
		{ REC_KIND_EXIT, "sh 7/8 1.000000002: exit: child=4243\n",
		  "{\"ts\":1000000002,\"pid\":7,\"tid\":8,\"comm\":\"sh\",\"event\":\"exit\","
		  "\"kind\":\"exit\",\"args\":{\"child\":4243}}\n" },
		/* an mmap record's address is the mapping's: shown */
		{ REC_KIND_MMAP, "sh 7/8 1.000000002: mmap: (0x0) child=4243\n",
		  "{\"ts\":1000000002,\"pid\":7,\"tid\":8,\"comm\":\"sh\",\"event\":\"mmap\","
		  "\"kind\":\"mmap\",\"addr\":\"0x0\",\"args\":{\"child\":4243}}\n" },
	};
	char buf[256];

	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		struct record r = { .ts = 1000000002ULL, .pid = 7, .tid = 8, .comm = "sh",
				    .event = rec_kind__name(rows[i].kind), .kind = rows[i].kind,
				    .nargs = 1, .names = tnames, .types = ttypes, .vals = tvals };

		record__format_text(&r, buf, sizeof(buf));
		cr_expect(eq(str, buf, (char *)rows[i].text), "%s", r.event);
		record__format_json(&r, buf, sizeof(buf));
		cr_expect(eq(str, buf, (char *)rows[i].json), "%s", r.event);
	}
}

Test(record, clock_header)
{
	char buf[64];

	cr_expect(eq(sz, record__format_header_text("tai", buf, sizeof(buf)), 17));
	cr_expect_str_eq(buf, "# ptap clock=tai\n");
	cr_expect(eq(sz, record__format_header_json("boottime", buf, sizeof(buf)), strlen(buf)));
	cr_expect_str_eq(buf, "{\"kind\":\"clock\",\"clock\":\"boottime\"}\n");
	cr_expect(eq(sz, record__format_header_json("boottime", buf, 10), 0));
}

/* A slice of three s32: as many as were fetched, and the count when more. */
static const struct type_member slice_members[] = {
	{ "[0]", 0, { .kind = FT_SIGNED, .size = 4 } },
	{ "[1]", 4, { .kind = FT_SIGNED, .size = 4 } },
	{ "[2]", 8, { .kind = FT_SIGNED, .size = 4 } },
};
static const struct type_desc slice_desc = { "array", 3, slice_members, NULL };

Test(record, formats_slices)
{
	static const char bytes[12] = { 1, 0, 0, 0, (char)0xfe, (char)0xff, (char)0xff, (char)0xff,
					7, 0, 0, 0 };
	struct fetch_type t = { .kind = FT_SLICE, .size = 4, .len = 3, .desc = &slice_desc };
	struct fetch_val v = { .str = (char *)bytes, .len = 12 };

	expect_value("three", &t, &v, "{[0]=1, [1]=-2, [2]=7}", "[1,-2,7]");
	v.len = 8;
	expect_value("two", &t, &v, "{[0]=1, [1]=-2}", "[1,-2]");
	v.len = 0;
	expect_value("empty", &t, &v, "{}", "[]");
	v = (struct fetch_val){ .str = (char *)bytes, .len = 12, .truncated = true, .full_len = 10 };
	expect_value("cut", &t, &v, "{[0]=1, [1]=-2, [2]=7}...(+7 more)",
		     "{\"value\":[1,-2,7],\"truncated\":true,\"length\":10}");
	v = ERR(-EFAULT, 0x10);
	expect_value("fault", &t, &v, "(error: bad address 0x10)",
		     "{\"error\":\"bad address 0x10\"}");
}

/* ---- the fast text writer ------------------------------------------------ */

static const char *const plain_names[] = { "q", "n\xc3\xa9", "x", "s", NULL, "", "w\"" };
static const struct fetch_type plain_types[] = {
	TY(STRING, 8), TY(SIGNED, 8), TY(HEX, 2), TY(UNSIGNED, 1), TY(DEFAULT, 0), TY(CHARS, 8),
	TY(USTRING, 8),
};
static const struct fetch_val plain_vals[] = {
	STR("SELECT * FROM t WHERE a = 'x'", false), INT(0x8000000000000000ULL), INT(0x12345),
	INT(0x1ff), INT(0xdeadbeefcafeULL), STR("a\0b\x01\xe2\x80\xa8", false),
	STR("\xc3\xa9t\xc3\xa9 \\ \"q\"", false),
};

/* Twelve arguments: arg10 and on are two digits */
static const struct fetch_val twelve_vals[] = {
	INT(1), INT(2), INT(3), INT(4), INT(5), INT(6), INT(7), INT(8), INT(9), INT(10), INT(11),
	INT(12),
};
static const char *const twelve_names[] = { "a", "b", NULL, "d", "e", "f", "g", "h", "i", NULL,
					    "k", NULL };

/* Records the plain writer takes (PLAIN) or gives back. */
static const struct {
	const char *what;
	struct record r;
	bool plain;
} plain_recs[] = {
	{ "entry", { .ts = 12345678901ULL, .pid = 1234, .tid = 1235, .comm = "query_server",
		     .event = "exec_query", .kind = REC_KIND_ENTRY, .addr = 0x401136, .nargs = 7,
		     .names = plain_names, .types = plain_types, .vals = plain_vals }, true },
	{ "return", { .ts = 999999999ULL, .pid = 1, .tid = 2, .comm = "c\tomm",
		      .event = "f\xff\"n", .kind = REC_KIND_RETURN, .addr = 0x10,
		      .ret_addr = 0xffffffffffffffffULL, .duration = 18446744073709551615ULL,
		      .has_duration = true, .nargs = 2, .names = plain_names + 2,
		      .types = plain_types + 2, .vals = plain_vals + 2 }, true },
	/* the first's event at another address whose text goes in the same place (way 5) */
	{ "the same event at another address", { .ts = 5000000042ULL, .pid = 1234, .tid = 1235,
						 .comm = "query_server", .event = "exec_query",
						 .kind = REC_KIND_ENTRY, .addr = 0x401236,
						 .nargs = 1, .names = plain_names,
						 .types = plain_types, .vals = plain_vals }, true },
	{ "twelve arguments, no names", { .ts = 1, .pid = 3, .tid = 3, .comm = "c", .event = "e12",
					  .kind = REC_KIND_ENTRY, .addr = 0x20, .nargs = 12,
					  .vals = twelve_vals }, true },
	{ "twelve arguments, some names", { .ts = 1, .pid = 3, .tid = 3, .comm = "c",
					    .event = "e12", .kind = REC_KIND_ENTRY, .addr = 0x20,
					    .nargs = 12, .names = twelve_names,
					    .vals = twelve_vals }, true },
	/* the writer keeps "EVENT: (0xADDR" by address: another event there is not the first's */
	{ "another event at the same address", { .ts = 5000000042ULL, .pid = 1234, .tid = 1235,
						 .comm = "query_server", .event = "exec_querz",
						 .kind = REC_KIND_ENTRY, .addr = 0x401136,
						 .nargs = 1, .names = plain_names,
						 .types = plain_types, .vals = plain_vals }, true },
	{ "a long event name", { .ts = 7000000000ULL, .pid = 1234, .tid = 1235,
				 .comm = "query_server", .addr = 0x401136, .nargs = 1,
				 .event = "a_name_longer_than_the_writer_keeps_for_an_address_0123456789",
				 .kind = REC_KIND_ENTRY, .names = plain_names,
				 .types = plain_types, .vals = plain_vals }, true },
	{ "no names, no types", { .ts = 0, .pid = -1, .tid = -2, .comm = NULL, .event = "e",
				  .kind = REC_KIND_ENTRY, .addr = 0, .nargs = 3,
				  .vals = plain_vals + 1 }, true },
	{ "an argument that failed", { .ts = 1, .pid = 3, .tid = 3, .comm = "c", .event = "e",
				       .kind = REC_KIND_ENTRY, .nargs = 7, .names = names,
				       .types = types, .vals = vals }, false },
	{ "a syscall", { .ts = 1, .pid = 3, .tid = 3, .comm = "c", .event = "read",
			 .kind = REC_KIND_SYSCALL, .nargs = 1, .names = plain_names,
			 .types = plain_types, .vals = plain_vals }, false },
};

typedef size_t (*writer_fn)(const struct record *, char *, size_t);

/* At every length, the plain writer writes what the general one does, or gives the record back. */
static void plain_is_general(writer_fn plain_w, writer_fn general_w, const char *form)
{
	char plain[1024], general[1024];

	for (size_t i = 0; i < ARRAY_SIZE(plain_recs); i++) {
		const struct record *r = &plain_recs[i].r;
		size_t taken = 0;

		for (size_t len = 0; len < sizeof(plain); len++) {
			size_t p, g;

			memset(plain, '#', sizeof(plain));
			p = plain_w(r, plain, len);
			g = general_w(r, general, len);
			cr_assert(eq(int, plain[len], '#'), "%s %s, len %zu: wrote past the buffer",
				  form, plain_recs[i].what, len);
			if (!p)
				continue;
			taken++;
			cr_expect(eq(sz, p, g), "%s %s, len %zu", form, plain_recs[i].what, len);
			cr_expect(eq(str, plain, general), "%s %s, len %zu", form,
				  plain_recs[i].what, len);
		}
		cr_expect(eq(int, taken > 0, plain_recs[i].plain), "%s %s: taken at %zu lengths",
			  form, plain_recs[i].what, taken);
	}
}

Test(record, plain_text_is_general)
{
	plain_is_general(record__format_text_plain, record__format_text_general, "text");
}

Test(record, plain_json_is_general)
{
	plain_is_general(record__format_json_plain, record__format_json_general, "json");
}
