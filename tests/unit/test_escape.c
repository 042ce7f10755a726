/* tests/unit/test_escape.c: escaping hostile target bytes for text and JSON. */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <stdint.h>
#include <stdio.h>
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
	{ "ESC OSC title BEL", S("\x1b]0;t\x07"), "\\x1b]0;t\\x07", "\\u001b]0;t\\u0007" },
	{ "C1 CSI U+009B", S("\xc2\x9b" "2J"), "\\u009b2J", "\\u009b2J" },
	{ "C1 first and last", S("\xc2\x80\xc2\x9f"), "\\u0080\\u009f", "\\u0080\\u009f" },
	{ "NBSP after C1", S("\xc2\xa0"), "\xc2\xa0", "\xc2\xa0" },
	{ "raw 0x9b byte", S("\x9b"), "\\x9b", "\\u009b" },
	{ "line separators", S("a\xe2\x80\xa8" "b\xe2\x80\xa9"), "a\\u2028b\\u2029",
	  "a\\u2028b\\u2029" },
	{ "RLO", S("\xe2\x80\xae" "cba"), "\\u202ecba", "\\u202ecba" },
	{ "LRE..RLO", S("\xe2\x80\xaa\xe2\x80\xab\xe2\x80\xac\xe2\x80\xad"),
	  "\\u202a\\u202b\\u202c\\u202d", "\\u202a\\u202b\\u202c\\u202d" },
	{ "isolates", S("\xe2\x81\xa6\xe2\x81\xa7\xe2\x81\xa8\xe2\x81\xa9"),
	  "\\u2066\\u2067\\u2068\\u2069", "\\u2066\\u2067\\u2068\\u2069" },
	{ "LRM RLM ALM", S("\xe2\x80\x8e\xe2\x80\x8f\xd8\x9c"), "\\u200e\\u200f\\u061c",
	  "\\u200e\\u200f\\u061c" },
	{ "neighbours kept", S("\xe2\x80\xa7\xe2\x80\xaf\xe2\x81\xa5\xe2\x81\xaa\xe2\x80\x8d"),
	  "\xe2\x80\xa7\xe2\x80\xaf\xe2\x81\xa5\xe2\x81\xaa\xe2\x80\x8d",
	  "\xe2\x80\xa7\xe2\x80\xaf\xe2\x81\xa5\xe2\x81\xaa\xe2\x80\x8d" },
	{ "arabic kept", S("\xd8\x9b\xd8\x9d"), "\xd8\x9b\xd8\x9d", "\xd8\x9b\xd8\x9d" },
};

Test(escape, text_and_json)
{
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		size_t consumed = 12345;
		char out[128];
		size_t n;

		n = escape_str(rows[i].in, rows[i].len, ESC_TEXT, out, sizeof(out), &consumed);
		cr_expect(eq(str, out, (char *)rows[i].text), "text %s", rows[i].what);
		cr_expect(eq(sz, n, strlen(rows[i].text)), "text %s", rows[i].what);
		cr_expect(eq(sz, consumed, rows[i].len), "text %s", rows[i].what);

		n = escape_str(rows[i].in, rows[i].len, ESC_JSON, out, sizeof(out), &consumed);
		cr_expect(eq(str, out, (char *)rows[i].json), "json %s", rows[i].what);
		cr_expect(eq(sz, n, strlen(rows[i].json)), "json %s", rows[i].what);
		cr_expect(eq(sz, consumed, rows[i].len), "json %s", rows[i].what);
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
		cr_expect(eq(str, out, (char *)r->out), "%s", r->what);
		cr_expect(eq(sz, n, strlen(r->out)), "%s", r->what);
		cr_expect(eq(sz, consumed, r->consumed), "%s: consumed %zu", r->what, consumed);
		cr_expect(eq(int, out[r->outlen], '#'), "%s: wrote past outlen", r->what);
	}
}

Test(escape, zero_outlen_writes_nothing)
{
	char out[4] = "###";
	size_t consumed = 7;

	cr_expect(eq(sz, escape_str("abc", 3, ESC_TEXT, out, 0, &consumed), 0));
	cr_expect(eq(sz, consumed, 0));
	cr_expect_str_eq(out, "###");
	cr_expect(eq(sz, escape_str("abc", 3, ESC_JSON, out, sizeof(out), NULL), 3));
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
			cr_expect(eq(sz, n, 1), "0x%02x", c);
			cr_expect(eq(int, out[0], in), "0x%02x", c);
		} else {
			/* \n, \", ... or \xNN */
			cr_expect(eq(sz, n, out[1] == 'x' ? 4 : 2), "0x%02x", c);
			cr_expect(eq(int, out[0], '\\'), "0x%02x", c);
		}
		n = escape_str(&in, 1, ESC_JSON, out, sizeof(out), NULL);
		cr_expect(eq(sz, n, plain ? 1 : (out[1] == 'u' ? 6 : 2)), "json 0x%02x", c);
		for (size_t j = 0; j < n; j++) {
			cr_expect(ge(u8, out[j], 0x20), "json 0x%02x: raw byte in output", c);
			cr_expect(lt(u8, out[j], 0x7f), "json 0x%02x: raw byte in output", c);
		}
	}
}

/* ---- against a reference ------------------------------------------------------
 * A slow escaper written from escape.h's contract alone, its escapes made by
 * snprintf, to compare escape_str() with on many inputs and every OUTLEN. */

/* The length of the valid UTF-8 character at S (N bytes left), or 0: decode, then check. */
static size_t ref_utf8(const unsigned char *s, size_t n)
{
	static const uint32_t min_cp[] = { 0, 0, 0x80, 0x800, 0x10000 };
	size_t len = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc0 ? 2 : 0;
	uint32_t cp;

	if (s[0] >= 0xf8 || !len || len > n)
		return 0;
	cp = s[0] & (0x7f >> len);
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if (cp < min_cp[len] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

/* The code point of the valid N-byte UTF-8 character at S. */
static uint32_t ref_cp(const unsigned char *s, size_t n)
{
	uint32_t cp = s[0] & (0x7f >> n);

	for (size_t i = 1; i < n; i++)
		cp = cp << 6 | (s[i] & 0x3f);
	return cp;
}

/* The characters escape.h says are escaped as \uNNNN. */
static bool ref_escaped(uint32_t cp)
{
	return (cp >= 0x80 && cp <= 0x9f) || cp == 0x2028 || cp == 0x2029 || cp == 0x061c ||
	       cp == 0x200e || cp == 0x200f || (cp >= 0x202a && cp <= 0x202e) ||
	       (cp >= 0x2066 && cp <= 0x2069);
}

static size_t ref_escape(const char *s, size_t len, enum esc_mode mode, char *out, size_t outlen,
			 size_t *consumed)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, o = 0;

	while (outlen && i < len) {
		char piece[8];
		size_t n = 1, w;

		if (u[i] >= 0x80 && (n = ref_utf8(u + i, len - i)) && ref_escaped(ref_cp(u + i, n))) {
			w = (size_t)snprintf(piece, sizeof(piece), "\\u%04x", ref_cp(u + i, n));
		} else if (u[i] >= 0x80 && n) {
			memcpy(piece, s + i, n);
			w = n;
		} else if (u[i] == '\n' || u[i] == '\t' || u[i] == '\r' || u[i] == '"' ||
			   u[i] == '\\' || (mode == ESC_JSON && (u[i] == '\b' || u[i] == '\f'))) {
			n = 1;
			w = (size_t)snprintf(piece, sizeof(piece), "\\%c",
					     u[i] == '\n' ? 'n' : u[i] == '\t' ? 't' :
					     u[i] == '\r' ? 'r' : u[i] == '\b' ? 'b' :
					     u[i] == '\f' ? 'f' : u[i]);
		} else if (u[i] < 0x20 || u[i] >= 0x7f) {
			n = 1;
			w = (size_t)snprintf(piece, sizeof(piece),
					     mode == ESC_JSON ? "\\u%04x" : "\\x%02x", u[i]);
		} else {
			piece[0] = s[i];
			w = 1;
		}
		if (w > outlen - 1 - o)
			break;
		memcpy(out + o, piece, w);
		o += w;
		i += n;
	}
	if (outlen)
		out[o] = '\0';
	*consumed = i;
	return o;
}

/* escape_str() and the reference agree on S[0..LEN), in both modes, at every OUTLEN. */
static void check_against_ref(const char *s, size_t len, const char *what)
{
	static const enum esc_mode modes[] = { ESC_TEXT, ESC_JSON };
	char got[512], want[512];

	cr_assert(le(ulong, len * 6 + 2, sizeof(got)));
	for (size_t m = 0; m < 2; m++) {
		for (size_t outlen = 0; outlen <= len * 6 + 2; outlen++) {
			const char *mode = m ? "json" : "text";
			size_t gc = 999, wc = 999, gn, wn;

			memset(got, '#', sizeof(got));
			memset(want, '#', sizeof(want));
			gn = escape_str(s, len, modes[m], got, outlen, &gc);
			wn = ref_escape(s, len, modes[m], want, outlen, &wc);
			cr_assert(eq(sz, gn, wn), "%s (%s, outlen %zu): length", what, mode,
				  outlen);
			cr_assert(eq(sz, gc, wc), "%s (%s, outlen %zu): bytes consumed", what, mode,
				  outlen);
			cr_assert(eq(mem, ((struct cr_mem){ got, outlen + 1 }),
				     ((struct cr_mem){ want, outlen + 1 })),
				  "%s (%s, outlen %zu): \"%.*s\", want \"%.*s\"", what, mode, outlen,
				  (int)gn, got, (int)wn, want);
		}
	}
}

/* Each byte value alone, and at each position of a plain run of 35 bytes (the
 * escaper tests plain bytes 16 and 8 at a time: before, inside and after
 * two blocks of 16, and in the tail). */
Test(escape, every_byte_everywhere_as_reference)
{
	static const char run[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHI";

	for (int c = 0; c < 256; c++) {
		char in[sizeof(run)];

		check_against_ref((char *)&c, 1, "alone");
		for (size_t pos = 0; pos < sizeof(run) - 1; pos++) {
			memcpy(in, run, sizeof(run));
			in[pos] = (char)c;
			check_against_ref(in, sizeof(run) - 1, "in a run");
		}
	}
}

/* UTF-8 sequences, valid and not, after plain runs of 0..9 bytes. */
Test(escape, utf8_after_runs_as_reference)
{
	static const char *const seqs[] = {
		"\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80", "\xf4\x8f\xbf\xbf", "\xef\xbf\xbf",
		"\xc0\xaf", "\xc1\xbf", "\xe0\x80\xaf", "\xe0\xa0\x80", "\xed\x9f\xbf",
		"\xed\xa0\x80", "\xf0\x8f\xbf\xbf", "\xf0\x90\x80\x80", "\xf4\x90\x80\x80",
		"\xf5\x80\x80\x80", "\xff", "\x80", "\xe2\x82", "\xf0\x9f\x98", "\xc3",
		"\xc2\x9b", "\xc2\x85", "\xc2\xa0", "\xe2\x80\xae", "\xe2\x80\xa8",
		"\xe2\x81\xa9", "\xe2\x80\x8f", "\xd8\x9c", "\xe2\x80",
	};

	for (size_t i = 0; i < sizeof(seqs) / sizeof(seqs[0]); i++) {
		for (size_t run = 0; run < 10; run++) {
			char in[32];
			size_t n = strlen(seqs[i]);

			memcpy(in, "0123456789", run);
			memcpy(in + run, seqs[i], n);
			check_against_ref(in, run + n, "utf-8 at the end");
			memcpy(in + run + n, "xyz\"", 4);	/* then more, cut or not */
			check_against_ref(in, run + n + 4, "utf-8 then text");
		}
	}
}

/* Random strings, mostly plain ASCII with the odd special byte, as target strings are. */
Test(escape, random_strings_as_reference)
{
	static const char special[] = "\"\\\n\t\r\b\f\x01\x1f\x7f\x80\xbf\xc3\xa9\xe2\x82\xac"
				      "\xf0\x9f\x98\x80\xed\xa0\xff\xc2\x9b\xe2\x80\xae\xa8";
	uint64_t s = 88172645463325252ULL;

	for (int k = 0; k < 3000; k++) {
		char in[64];
		size_t len = k % 64;

		for (size_t i = 0; i < len; i++) {
			s ^= s << 13;
			s ^= s >> 7;
			s ^= s << 17;
			in[i] = s % 5 ? (char)(0x20 + (s >> 8) % 0x5f) :
				special[(s >> 8) % (sizeof(special) - 1)];
		}
		check_against_ref(in, len, "random");
	}
}

/* ---- utf8_whole_len(): where a string cut at a byte limit ends ----------- */

static const struct {
	const char *what;
	const char *in;
	size_t len;
	size_t whole;
} wholes[] = {
	{ "empty", S(""), 0 },
	{ "ASCII", S("SELECT"), 6 },
	{ "whole 2-byte", S("caf\xc3\xa9"), 5 },
	{ "whole 3-byte", S("\xe6\x97\xa5"), 3 },
	{ "whole 4-byte", S("a\xf0\x9f\x98\x80"), 5 },
	{ "2-byte cut after its lead", S("caf\xc3"), 3 },
	{ "3-byte cut after its lead", S("SELECT \"\xe6"), 8 },
	{ "3-byte cut after 2", S("SELECT \"\xe6\x97"), 8 },
	{ "4-byte cut after 1", S("a\xf0"), 1 },
	{ "4-byte cut after 2", S("a\xf0\x9f"), 1 },
	{ "4-byte cut after 3", S("a\xf0\x9f\x98"), 1 },
	{ "lead alone", S("\xe2"), 0 },
	{ "U+10FFFF cut", S("x\xf4\x8f\xbf"), 1 },
	{ "whole, then a stray continuation", S("\xc3\xa9\x80"), 3 },
	{ "stray continuations only", S("\x80\x80\x80\x80"), 4 },
	{ "invalid lead C0", S("a\xc0"), 2 },
	{ "invalid lead F5", S("a\xf5\x80"), 3 },
	{ "FF", S("a\xff"), 2 },
	{ "overlong E0 80: invalid already", S("a\xe0\x80"), 3 },
	{ "E0 A0: a valid start", S("a\xe0\xa0"), 1 },
	{ "surrogate ED A0: invalid already", S("a\xed\xa0"), 3 },
	{ "overlong F0 8F: invalid already", S("a\xf0\x8f"), 3 },
	{ "F4 90, above U+10FFFF: invalid already", S("a\xf4\x90\x80"), 4 },
	{ "2-byte lead, then a continuation too many", S("a\xc3\xa9\xa9"), 4 },
	{ "ASCII after a lead", S("\xe6x"), 2 },
	{ "NUL last", S("a\0"), 2 },
};

Test(escape, utf8_whole_len_drops_a_cut_character)
{
	for (size_t i = 0; i < ARRAY_SIZE(wholes); i++) {
		size_t got = utf8_whole_len(wholes[i].in, wholes[i].len);

		cr_expect(eq(sz, got, wholes[i].whole), "%s", wholes[i].what);
	}
}

/* Every valid character of each length, cut after each of its bytes, behind 0..4 plain ones:
 * only the whole character is kept, and escape_str() then finds no invalid byte. */
Test(escape, utf8_whole_len_every_cut)
{
	static const char *const chars[] = {
		"\xc2\x80", "\xc3\xa9", "\xdf\xbf", "\xe0\xa0\x80", "\xe6\x97\xa5",
		"\xed\x9f\xbf", "\xee\x80\x80", "\xef\xbf\xbf", "\xf0\x90\x80\x80",
		"\xf0\x9f\x98\x80", "\xf3\xbf\xbf\xbf", "\xf4\x8f\xbf\xbf",
	};

	for (size_t i = 0; i < ARRAY_SIZE(chars); i++) {
		size_t n = strlen(chars[i]);

		for (size_t run = 0; run <= 4; run++) {
			char in[16], out[64];

			memcpy(in, "abcd", run);
			memcpy(in + run, chars[i], n);
			size_t w = utf8_whole_len(in, run + n);

			cr_expect(eq(sz, w, run + n), "char %zu whole", i);
			for (size_t k = 1; k < n; k++) {
				w = utf8_whole_len(in, run + k);
				cr_expect(eq(sz, w, run), "char %zu cut after %zu of %zu bytes",
					  i, k, n);
				escape_str(in, w, ESC_TEXT, out, sizeof(out), NULL);
				cr_expect_null(strstr(out, "\\x"), "char %zu: %s", i, out);
			}
		}
	}
}
