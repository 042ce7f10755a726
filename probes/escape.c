/* probes/escape.c: escaping of target strings for text and JSON output.
 * Pure: works on caller buffers, never allocates. */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "probes/escape.h"

static const char hexdig[] = "0123456789abcdef";

/*
 * The length of the UTF-8 sequence that LEAD starts (2-4), with the range
 * [*LO, *HI] its second byte must be in; 0 when no valid sequence starts
 * with LEAD (ASCII, a continuation byte, 0xc0, 0xc1, 0xf5-0xff).  The ranges
 * are those of RFC 3629, section 4.
 */
static size_t utf8_lead(unsigned char lead, unsigned char *lo, unsigned char *hi)
{
	*lo = 0x80;
	*hi = 0xbf;
	if (lead < 0xc2 || lead > 0xf4)
		return 0;
	if (lead < 0xe0)
		return 2;
	if (lead < 0xf0) {
		if (lead == 0xe0)
			*lo = 0xa0;	/* overlong */
		else if (lead == 0xed)
			*hi = 0x9f;	/* surrogates */
		return 3;
	}
	if (lead == 0xf0)
		*lo = 0x90;	/* overlong */
	else if (lead == 0xf4)
		*hi = 0x8f;	/* above U+10FFFF */
	return 4;
}

/*
 * The length of the valid UTF-8 sequence at S (LEN bytes available), or 0
 * when S does not start one: a stray continuation byte, an overlong form, a
 * surrogate (U+D800..U+DFFF), a code point above U+10FFFF, or a sequence cut
 * short by the end of the input.
 */
static size_t utf8_len(const unsigned char *s, size_t len)
{
	unsigned char lo, hi;
	size_t n;

	if (s[0] < 0x80)
		return 1;
	n = utf8_lead(s[0], &lo, &hi);
	if (!n || len < n || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

size_t utf8_whole_len(const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;

	/* back over at most 3 continuation bytes to the byte that would lead them */
	for (size_t back = 1; back <= 3 && back <= len; back++) {
		size_t at = len - back;
		unsigned char lo, hi;
		size_t need;

		if ((u[at] & 0xc0) == 0x80)
			continue;
		need = utf8_lead(u[at], &lo, &hi);
		if (back >= need || (back >= 2 && (u[at + 1] < lo || u[at + 1] > hi)))
			return len;	/* a whole character, or bytes invalid already */
		return at;
	}
	return len;
}

/*
 * What escape_str() does with each byte: copy it (printable ASCII but '"' and
 * '\\'), escape it (the control bytes, 0x7f, '"', '\\'), or look at it as
 * the start of a multi-byte UTF-8 sequence (0x80-0xff).
 */
enum { B_COPY, B_ESC, B_UTF8 };
static const unsigned char byte_class[256] = {
	[0x00 ... 0x1f] = B_ESC,
	['"'] = B_ESC,
	['\\'] = B_ESC,
	[0x7f] = B_ESC,
	[0x80 ... 0xff] = B_UTF8,
};

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

/*
 * Whether the valid N-byte UTF-8 sequence at S is a character escaped as
 * \uNNNN (its code point into *CP): a C1 control (U+0080-U+009F: U+009B is
 * CSI, which a terminal may take as ESC '['), a line or paragraph separator
 * (U+2028, U+2029: a line break to some viewers and JavaScript) or a
 * Bidi_Control character (U+061C, U+200E, U+200F, U+202A-U+202E,
 * U+2066-U+2069: they reorder the text shown around them).
 */
static bool utf8_escaped(const unsigned char *s, size_t n, uint32_t *cp)
{
	if (n == 2 && (s[0] == 0xc2 ? s[1] < 0xa0 : s[0] == 0xd8 && s[1] == 0x9c)) {
		*cp = (uint32_t)(s[0] & 0x1f) << 6 | (s[1] & 0x3f);
		return true;
	}
	if (n != 3 || s[0] != 0xe2 ||
	    !(s[1] == 0x80 ? s[2] == 0x8e || s[2] == 0x8f || (s[2] >= 0xa8 && s[2] <= 0xae) :
	      s[1] == 0x81 && s[2] >= 0xa6 && s[2] <= 0xa9))
		return false;
	*cp = 0x2000 | (uint32_t)(s[1] & 0x3f) << 6 | (s[2] & 0x3f);
	return true;
}

/* \uNNNN for the code point CP (at most U+FFFF) into TMP; returns its length, 6. */
static size_t escape_cp(uint32_t cp, char *tmp)
{
	memcpy(tmp, "\\u", 2);
	for (int i = 0; i < 4; i++)
		tmp[2 + i] = hexdig[(cp >> (12 - 4 * i)) & 0xf];
	return 6;
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
	if (mode == ESC_JSON)
		return escape_cp(c, tmp);
	tmp[1] = 'x';
	tmp[2] = hexdig[c >> 4];
	tmp[3] = hexdig[c & 0xf];
	return 4;
}

size_t escape_plain_prefix(const char *s, char *out, size_t room)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0;

	/* NUL is B_ESC: the scan stops there */
	for (; i < room && byte_class[u[i]] == B_COPY; i++)
		out[i] = s[i];
	return i;
}

#define ONES	0x0101010101010101ULL
#define HIGHS	0x8080808080808080ULL

/*
 * Whether the 8 bytes of X are all B_COPY: no byte below 0x20, none at
 * 0x80 or above, none equal to '"', '\\' or 0x7f.  A byte below N makes
 * (x - N * ONES) & ~x & HIGHS non-zero (N <= 0x80); a byte equal to C is
 * a zero byte of x ^ (C * ONES).
 */
static bool plain8(uint64_t x)
{
	uint64_t q = x ^ ('"' * ONES), b = x ^ ('\\' * ONES), d = x ^ (0x7f * ONES);

	return !((x | ((x - 0x20 * ONES) & ~x) | ((q - ONES) & ~q) | ((b - ONES) & ~b) |
		  ((d - ONES) & ~d)) & HIGHS);
}

#ifdef __SSE2__
/* Whether the 16 bytes at S are all B_COPY, as plain8() tells of 8. */
static bool plain16(const char *s)
{
	__m128i x = _mm_loadu_si128((const __m128i *)(const void *)s);
	/* compared as signed: 0x80-0xff are below 0x20 with the control bytes */
	__m128i esc = _mm_or_si128(
		_mm_or_si128(_mm_cmplt_epi8(x, _mm_set1_epi8(0x20)),
			     _mm_cmpeq_epi8(x, _mm_set1_epi8(0x7f))),
		_mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('"')),
			     _mm_cmpeq_epi8(x, _mm_set1_epi8('\\'))));

	return _mm_movemask_epi8(esc) == 0;
}
#endif

/*
 * Runs of bytes copied as they are go out 16 (SSE2) or 8 bytes at a time while they fit:
 * target strings are mostly plain ASCII.
 */
size_t escape_str(const char *s, size_t len, enum esc_mode mode, char *out, size_t outlen,
		  size_t *consumed)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, o = 0;
	uint32_t cp;
	char tmp[8];

	while (outlen && i < len) {
		size_t room = outlen - 1 - o, lim = len - i < room ? len : i + room, n, w;
		const char *src;

		/* the plain bytes that fit: one character each, cut anywhere */
#ifdef __SSE2__
		for (; i + 16 <= lim && plain16(s + i); i += 16, o += 16)
			memcpy(out + o, s + i, 16);
#endif
		for (uint64_t x; i + 8 <= lim; i += 8, o += 8) {
			memcpy(&x, s + i, 8);
			if (!plain8(x))
				break;
			memcpy(out + o, &x, 8);
		}
		while (i < lim && byte_class[u[i]] == B_COPY)
			out[o++] = s[i++];
		if (i == len || i == lim)
			break;	/* done, or out of room */
		room = outlen - 1 - o;
		n = byte_class[u[i]] == B_UTF8 ? utf8_len(u + i, len - i) : 0;
		if (n && utf8_escaped(u + i, n, &cp)) {
			w = escape_cp(cp, tmp);
			src = tmp;
		} else if (n) {
			src = s + i;
			w = n;
		} else {
			w = escape_byte(u[i], mode, tmp);
			src = tmp;
			n = 1;
		}
		if (w > room)
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
