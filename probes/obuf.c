/* probes/obuf.c: the bounded output buffer the record formatters write into. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "probes/obuf.h"

void ob_init(struct obuf *ob, char *buf, size_t cap)
{
	*ob = (struct obuf){ .buf = buf, .cap = cap };
	if (cap)
		buf[0] = '\0';
	else
		ob->over = true;
}

/* "00" "01" ... "99": two decimal digits per division. */
static const char digits2[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

/* The number of decimal digits of V. */
static unsigned int dec_len(uint64_t v)
{
	unsigned int n = 1;

	for (;;) {	/* four digits a step: most numbers are short */
		if (v < 10)
			return n;
		if (v < 100)
			return n + 1;
		if (v < 1000)
			return n + 2;
		if (v < 10000)
			return n + 3;
		v /= 10000;
		n += 4;
	}
}

/* V in decimal, its N digits (dec_len()) ending at END. */
static void dec(char *end, uint64_t v)
{
	uint32_t w;

	while (v > UINT32_MAX) {
		unsigned int r = (unsigned int)(v % 100);

		v /= 100;
		end -= 2;
		memcpy(end, digits2 + 2 * r, 2);
	}
	/* most numbers: 32-bit divisions from here, shorter than 64-bit ones */
	for (w = (uint32_t)v; w >= 100; w /= 100) {
		end -= 2;
		memcpy(end, digits2 + 2 * (w % 100), 2);
	}
	if (w >= 10)
		memcpy(end - 2, digits2 + 2 * w, 2);
	else
		end[-1] = (char)('0' + w);
}

/*
 * Room for N bytes at the end of OB: where they go, or NULL (OB refuses
 * them, and everything after).  The caller writes them, then calls ob_end().
 */
static char *ob_room(struct obuf *ob, size_t n)
{
	if (ob->over || n > ob->cap - 1 - ob->pos) {
		ob->over = true;
		return NULL;
	}
	return ob->buf + ob->pos;
}

static void ob_end(struct obuf *ob, size_t n)
{
	ob->pos += n;
	ob->buf[ob->pos] = '\0';
}

char *put_dec(char *p, uint64_t v, unsigned int width, bool neg)
{
	unsigned int n = dec_len(v), w = n > width ? n : width;

	if (neg)
		*p++ = '-';
	for (unsigned int i = n; i < w; i++)	/* a few zeros at most: no memset call */
		*p++ = '0';
	dec(p + n, v);
	return p + n;
}

char *put_dec9(char *p, uint64_t v)
{
	/* four pairs and a digit: no loop, no length to find */
	uint32_t n = (uint32_t)(v % 1000000000u), lo = n % 100000000u;
	uint32_t a = lo / 10000u, b = lo % 10000u;

	p[0] = (char)('0' + n / 100000000u);
	memcpy(p + 1, digits2 + 2 * (a / 100u), 2);
	memcpy(p + 3, digits2 + 2 * (a % 100u), 2);
	memcpy(p + 5, digits2 + 2 * (b / 100u), 2);
	memcpy(p + 7, digits2 + 2 * (b % 100u), 2);
	return p + 9;
}

char *put_s64(char *p, int64_t v)
{
	/* the magnitude in unsigned arithmetic: INT64_MIN has no positive int64_t */
	return put_dec(p, v < 0 ? 0 - (uint64_t)v : (uint64_t)v, 0, v < 0);
}

char *put_hex(char *p, uint64_t v)
{
	static const char hexdig[] = "0123456789abcdef";
	unsigned int n = v ? (67 - __builtin_clzll(v)) / 4 : 1;	/* hex digits */

	*p++ = '0';
	*p++ = 'x';
	for (char *d = p + n; d > p; v >>= 4)
		*--d = hexdig[v & 0xf];
	return p + n;
}

/* V in decimal, at least WIDTH digits (zeros first), after the sign when NEG. */
static void ob_dec(struct obuf *ob, uint64_t v, unsigned int width, bool neg)
{
	unsigned int n = dec_len(v), w = n > width ? n : width;
	char *p = ob_room(ob, w + neg);

	if (!p)
		return;
	put_dec(p, v, width, neg);
	ob_end(ob, w + neg);
}

void ob_u64(struct obuf *ob, uint64_t v)
{
	ob_dec(ob, v, 0, false);
}

void ob_s64(struct obuf *ob, int64_t v)
{
	ob_dec(ob, v < 0 ? 0 - (uint64_t)v : (uint64_t)v, 0, v < 0);	/* as put_s64() */
}

void ob_u64_pad(struct obuf *ob, uint64_t v, unsigned int width)
{
	ob_dec(ob, v, width < 20 ? width : 20, false);
}

void ob_hex(struct obuf *ob, uint64_t v)
{
	unsigned int n = v ? (67 - __builtin_clzll(v)) / 4 : 1;	/* hex digits */
	char *p = ob_room(ob, 2 + n);

	if (!p)
		return;
	put_hex(p, v);
	ob_end(ob, 2 + n);
}

void ob_printf(struct obuf *ob, const char *fmt, ...)
{
	char tmp[128];	/* numbers and short fixed text only */
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(tmp)) {
		ob->over = true;
		return;
	}
	ob_write(ob, tmp, n);
}

/* S[0..N) escaped; all of it or nothing. */
void ob_escape(struct obuf *ob, const char *s, size_t n, enum esc_mode mode)
{
	size_t used, w;

	if (ob->over)
		return;
	w = escape_str(s, n, mode, ob->buf + ob->pos, ob->cap - ob->pos, &used);
	if (used < n) {
		ob->buf[ob->pos] = '\0';
		ob->over = true;
		return;
	}
	ob->pos += w;
}

void ob_escape_str(struct obuf *ob, const char *s, enum esc_mode mode)
{
	size_t mark = ob->pos, n;

	if (!s || ob->over)
		return;
	/* copied as scanned while nothing needs escaping: most names, the whole of them */
	n = escape_plain_prefix(s, ob->buf + ob->pos, ob->cap - 1 - ob->pos);
	ob->pos += n;
	if (!s[n]) {
		ob->buf[ob->pos] = '\0';
		return;
	}
	ob_escape(ob, s + n, strlen(s + n), mode);
	if (ob->over) {		/* all of it or nothing */
		ob->pos = mark;
		ob->buf[mark] = '\0';
	}
}

/* Undo everything after MARK (an earlier ob->pos) and clear the overflow. */
void ob_rollback(struct obuf *ob, size_t mark)
{
	ob->pos = mark;
	ob->buf[mark] = '\0';
	ob->over = false;
}

size_t ob_done(struct obuf *ob)
{
	if (!ob->over)
		return ob->pos;
	if (ob->cap)
		ob->buf[0] = '\0';
	return 0;
}

void ob_json_hex(struct obuf *ob, const char *key, uint64_t v)
{
	ob_puts(ob, key);
	ob_hex(ob, v);
	ob_putc(ob, '"');
}
