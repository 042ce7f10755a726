/* tests/unit/test_record.c: value and record rendering, text and JSON,
 * against golden strings; records that do not fit. */
#include <criterion/criterion.h>
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
		cr_expect_str_eq(buf, values[i].text, "text %s", values[i].what);
		cr_expect_eq(n, strlen(values[i].text), "text %s", values[i].what);
		n = value__format_json(&values[i].t, &values[i].v, buf, sizeof(buf));
		cr_expect_str_eq(buf, values[i].json, "json %s", values[i].what);
		cr_expect_eq(n, strlen(values[i].json), "json %s", values[i].what);
	}
}

Test(record, value_that_does_not_fit_is_not_cut)
{
	struct fetch_type t = TY(STRING, 8);
	struct fetch_val v = STR("SELECT 1", true);
	char buf[16];

	memset(buf, '#', sizeof(buf));
	cr_expect_eq(value__format_text(&t, &v, buf, 13), 0);	/* needs 13 + NUL */
	cr_expect_str_eq(buf, "");
	cr_expect_eq(buf[13], '#');
	cr_expect_eq(value__format_text(&t, &v, buf, 14), 13);
	cr_expect_str_eq(buf, "\"SELECT 1\"...");
	cr_expect_eq(value__format_json(&t, &v, buf, sizeof(buf)), 0);
	cr_expect_str_eq(buf, "");
	cr_expect_eq(value__format_text(&t, &v, buf, 0), 0);
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

	cr_expect_eq(record__format_text(&rec, buf, sizeof(buf)), strlen(golden));
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

	cr_expect_eq(record__format_json(&rec, buf, sizeof(buf)), strlen(golden));
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
		cr_expect_str_eq(buf, full, "len %zu", len);
		cr_expect_eq(n, strlen(full));
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
	cr_expect_str_eq(buf, want, "len %zu", len);
	cr_expect_eq(n, strlen(want), "len %zu", len);
}

Test(record, text_cut_at_value_boundaries)
{
	char buf[512];

	for (size_t len = 0; len < 200; len++) {
		size_t n;

		memset(buf, '#', sizeof(buf));
		n = record__format_text(&rec, buf, len);
		cr_assert_eq(buf[len], '#', "len %zu: wrote past the buffer", len);
		if (!len) {
			cr_expect_eq(n, 0);
			continue;
		}
		if (len <= 16) {	/* too small for " ...(truncated)\n" */
			cr_expect_str_eq(buf, len >= 2 ? "\n" : "", "len %zu", len);
			continue;
		}
		cr_assert_lt(n, len);
		cr_expect_eq(buf[n - 1], '\n', "len %zu", len);
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
		cr_assert_eq(buf[len], '#', "len %zu: wrote past the buffer", len);
		if (!len) {
			cr_expect_eq(n, 0);
			continue;
		}
		cr_assert_lt(n, len);
		expect_cut(buf, n, len, JSON_HEAD, json_args, "}}\n", "},\"truncated\":true}\n",
			   "{\"truncated\":true}\n");
	}
}
