/* probes/escape.c: escaping of target strings for text and JSON output.
 * Pure: works on caller buffers, never allocates. */
#include <stdbool.h>
#include <string.h>

#include "probes/escape.h"

static const char hexdig[] = "0123456789abcdef";

/*
 * The length of the valid UTF-8 sequence at S (LEN bytes available), or 0
 * when S does not start one: a stray continuation byte, an overlong form, a
 * surrogate (U+D800..U+DFFF), a code point above U+10FFFF, or a sequence cut
 * short by the end of the input.  The ranges are those of RFC 3629, section 4.
 */
static size_t utf8_len(const unsigned char *s, size_t len)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n;

	if (s[0] < 0x80)
		return 1;
	if (s[0] < 0xc2 || s[0] > 0xf4)
		return 0;
	if (s[0] < 0xe0) {
		n = 2;
	} else if (s[0] < 0xf0) {
		n = 3;
		if (s[0] == 0xe0)
			lo = 0xa0;	/* overlong */
		else if (s[0] == 0xed)
			hi = 0x9f;	/* surrogates */
	} else {
		n = 4;
		if (s[0] == 0xf0)
			lo = 0x90;	/* overlong */
		else if (s[0] == 0xf4)
			hi = 0x8f;	/* above U+10FFFF */
	}
	if (len < n || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

static bool needs_escape(unsigned char c)
{
	return c < 0x20 || c == 0x7f || c == '"' || c == '\\';
}

/* The letter of C's two-character escape (\n ...), or 0 when it has none. */
static char named_escape(unsigned char c, enum esc_mode mode)
{
	switch (c) {
	case '\n':
		return 'n';
	case '\t':
		return 't';
	case '\r':
		return 'r';
	case '"':
		return '"';
	case '\\':
		return '\\';
	case '\b':
		return mode == ESC_JSON ? 'b' : 0;
	case '\f':
		return mode == ESC_JSON ? 'f' : 0;
	}
	return 0;
}

/* The escape sequence for byte C into TMP; returns its length. */
static size_t escape_byte(unsigned char c, enum esc_mode mode, char *tmp)
{
	char named = named_escape(c, mode);

	tmp[0] = '\\';
	if (named) {
		tmp[1] = named;
		return 2;
	}
	if (mode == ESC_JSON) {
		memcpy(tmp + 1, "u00", 3);
		tmp[4] = hexdig[c >> 4];
		tmp[5] = hexdig[c & 0xf];
		return 6;
	}
	tmp[1] = 'x';
	tmp[2] = hexdig[c >> 4];
	tmp[3] = hexdig[c & 0xf];
	return 4;
}

size_t escape_str(const char *s, size_t len, enum esc_mode mode, char *out, size_t outlen,
		  size_t *consumed)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, o = 0;
	char tmp[8];

	while (outlen && i < len) {
		size_t n = utf8_len(u + i, len - i);
		const char *src = s + i;
		size_t w = n;

		if (n == 0 || (n == 1 && needs_escape(u[i]))) {
			w = escape_byte(u[i], mode, tmp);
			src = tmp;
			n = 1;
		}
		if (w > outlen - 1 - o)
			break;	/* never split a character or an escape */
		memcpy(out + o, src, w);
		o += w;
		i += n;
	}
	if (outlen)
		out[o] = '\0';
	if (consumed)
		*consumed = i;
	return o;
}
