/* tests/unit/test_escape.c: escaping hostile target bytes for text and JSON. */
#include <criterion/criterion.h>
#include <string.h>

#include "probes/escape.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define S(lit) lit, sizeof(lit) - 1	/* a literal with its length (NULs included) */

struct esc_row {
	const char *what;
	const char *in;
	size_t len;
	const char *text;	/* ESC_TEXT output */
	const char *json;	/* ESC_JSON output */
};

static const struct esc_row rows[] = {
	{ "plain", S("SELECT 1"), "SELECT 1", "SELECT 1" },
	{ "empty", S(""), "", "" },
	{ "quotes", S("say \"hi\""), "say \\\"hi\\\"", "say \\\"hi\\\"" },
	{ "backslash", S("a\\b"), "a\\\\b", "a\\\\b" },
	{ "named controls", S("\n\t\r"), "\\n\\t\\r", "\\n\\t\\r" },
	{ "backspace, form feed", S("\b\f"), "\\x08\\x0c", "\\b\\f" },
	{ "other controls", S("\x01\x1b[0m\x1f"), "\\x01\\x1b[0m\\x1f", "\\u0001\\u001b[0m\\u001f" },
	{ "NUL", S("a\0b"), "a\\x00b", "a\\u0000b" },
	{ "DEL", S("\x7f"), "\\x7f", "\\u007f" },
	{ "2-byte", S("caf\xc3\xa9"), "caf\xc3\xa9", "caf\xc3\xa9" },
	{ "3-byte", S("\xe2\x82\xac 5"), "\xe2\x82\xac 5", "\xe2\x82\xac 5" },
	{ "4-byte", S("\xf0\x9f\x98\x80"), "\xf0\x9f\x98\x80", "\xf0\x9f\x98\x80" },
	{ "U+10FFFF", S("\xf4\x8f\xbf\xbf"), "\xf4\x8f\xbf\xbf", "\xf4\x8f\xbf\xbf" },
	{ "U+FFFF", S("\xef\xbf\xbf"), "\xef\xbf\xbf", "\xef\xbf\xbf" },
	{ "lone continuation", S("a\x80z"), "a\\x80z", "a\\u0080z" },
	{ "latin-1 byte", S("caf\xe9!"), "caf\\xe9!", "caf\\u00e9!" },
	{ "overlong 2-byte /", S("\xc0\xaf"), "\\xc0\\xaf", "\\u00c0\\u00af" },
	{ "overlong C1", S("\xc1\xbf"), "\\xc1\\xbf", "\\u00c1\\u00bf" },
	{ "overlong 3-byte", S("\xe0\x80\xaf"), "\\xe0\\x80\\xaf", "\\u00e0\\u0080\\u00af" },
	{ "overlong 4-byte", S("\xf0\x8f\xbf\xbf"), "\\xf0\\x8f\\xbf\\xbf",
	  "\\u00f0\\u008f\\u00bf\\u00bf" },
	{ "surrogate", S("\xed\xa0\x80"), "\\xed\\xa0\\x80", "\\u00ed\\u00a0\\u0080" },
	{ "above U+10FFFF", S("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80",
	  "\\u00f4\\u0090\\u0080\\u0080" },
	{ "F5 lead", S("\xf5\x80"), "\\xf5\\x80", "\\u00f5\\u0080" },
	{ "FF", S("\xff"), "\\xff", "\\u00ff" },
	{ "truncated at end", S("ok\xe2\x82"), "ok\\xe2\\x82", "ok\\u00e2\\u0082" },
	{ "truncated mid-string", S("\xe2\x82x"), "\\xe2\\x82x", "\\u00e2\\u0082x" },
	{ "4-byte cut by ASCII", S("\xf0\x9f\x98!"), "\\xf0\\x9f\\x98!", "\\u00f0\\u009f\\u0098!" },
	{ "valid after invalid", S("\xff\xc3\xa9"), "\\xff\xc3\xa9", "\\u00ff\xc3\xa9" },
	{ "slash and quote", S("/'"), "/'", "/'" },
};

Test(escape, text_and_json)
{
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		size_t consumed = 12345;
		char out[128];
		size_t n;

		n = escape_str(rows[i].in, rows[i].len, ESC_TEXT, out, sizeof(out), &consumed);
		cr_expect_str_eq(out, rows[i].text, "text %s", rows[i].what);
		cr_expect_eq(n, strlen(rows[i].text), "text %s", rows[i].what);
		cr_expect_eq(consumed, rows[i].len, "text %s", rows[i].what);

		n = escape_str(rows[i].in, rows[i].len, ESC_JSON, out, sizeof(out), &consumed);
		cr_expect_str_eq(out, rows[i].json, "json %s", rows[i].what);
		cr_expect_eq(n, strlen(rows[i].json), "json %s", rows[i].what);
		cr_expect_eq(consumed, rows[i].len, "json %s", rows[i].what);
	}
}

struct limit_row {
	const char *what;
	const char *in;
	size_t len;
	enum esc_mode mode;
	size_t outlen;
	const char *out;
	size_t consumed;
};

static const struct limit_row limits[] = {
	{ "fits exactly", S("abc"), ESC_TEXT, 4, "abc", 3 },
	{ "one short", S("abcd"), ESC_TEXT, 4, "abc", 3 },
	{ "escape not split", S("ab\n"), ESC_TEXT, 4, "ab", 2 },
	{ "escape just fits", S("ab\n"), ESC_TEXT, 5, "ab\\n", 3 },
	{ "hex escape not split", S("a\x01"), ESC_TEXT, 5, "a", 1 },
	{ "hex escape fits", S("a\x01"), ESC_TEXT, 6, "a\\x01", 2 },
	{ "json escape not split", S("a\x01"), ESC_JSON, 7, "a", 1 },
	{ "json escape fits", S("a\x01"), ESC_JSON, 8, "a\\u0001", 2 },
	{ "utf-8 not split", S("a\xe2\x82\xac"), ESC_TEXT, 4, "a", 1 },
	{ "utf-8 fits", S("a\xe2\x82\xac"), ESC_TEXT, 5, "a\xe2\x82\xac", 4 },
	{ "room for the NUL only", S("abc"), ESC_TEXT, 1, "", 0 },
	{ "len 0", S(""), ESC_JSON, 1, "", 0 },
};

Test(escape, never_past_outlen)
{
	for (size_t i = 0; i < ARRAY_SIZE(limits); i++) {
		const struct limit_row *r = &limits[i];
		size_t consumed = 999;
		char out[32];
		size_t n;

		memset(out, '#', sizeof(out));
		n = escape_str(r->in, r->len, r->mode, out, r->outlen, &consumed);
		cr_expect_str_eq(out, r->out, "%s", r->what);
		cr_expect_eq(n, strlen(r->out), "%s", r->what);
		cr_expect_eq(consumed, r->consumed, "%s: consumed %zu", r->what, consumed);
		cr_expect_eq(out[r->outlen], '#', "%s: wrote past outlen", r->what);
	}
}

Test(escape, zero_outlen_writes_nothing)
{
	char out[4] = "###";
	size_t consumed = 7;

	cr_expect_eq(escape_str("abc", 3, ESC_TEXT, out, 0, &consumed), 0);
	cr_expect_eq(consumed, 0);
	cr_expect_str_eq(out, "###");
	cr_expect_eq(escape_str("abc", 3, ESC_JSON, out, sizeof(out), NULL), 3);
	cr_expect_str_eq(out, "abc");
}

/* Every byte value, alone: printable ASCII stays, all else is escaped. */
Test(escape, every_single_byte)
{
	for (int c = 0; c < 256; c++) {
		char in = (char)c, out[8];
		size_t n = escape_str(&in, 1, ESC_TEXT, out, sizeof(out), NULL);
		bool plain = c >= 0x20 && c < 0x7f && c != '"' && c != '\\';

		if (plain) {
			cr_expect_eq(n, 1, "0x%02x", c);
			cr_expect_eq(out[0], in, "0x%02x", c);
		} else {
			cr_expect(n == 2 || n == 4, "0x%02x: %zu", c, n);
			cr_expect_eq(out[0], '\\', "0x%02x", c);
		}
		n = escape_str(&in, 1, ESC_JSON, out, sizeof(out), NULL);
		cr_expect_eq(n, plain ? 1 : (out[1] == 'u' ? 6 : 2), "json 0x%02x", c);
		for (size_t j = 0; j < n; j++)
			cr_expect((unsigned char)out[j] >= 0x20 && (unsigned char)out[j] < 0x7f,
				  "json 0x%02x: raw byte in output", c);
	}
}
