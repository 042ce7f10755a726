/* probes/json.c: a recursive-descent JSON reader into an arena, and a compact
 * writer.  Pure: no printing; the only allocations are the document's. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/array.h"
#include "probes/err.h"
#include "probes/escape.h"
#include "probes/json.h"

/* ---- the document: an arena and the parser's stacks ---------------------- */

#define CHUNK_MIN	(64 * 1024)
#define ALIGN		16

struct chunk {
	struct chunk *next;
	size_t size, used;
	_Alignas(ALIGN) char mem[];
};

struct json_doc {
	struct chunk *chunks;		/* newest first */
	size_t total;			/* bytes handed out since the last reset */
	/* children of the arrays and objects being parsed, copied to the arena at their end */
	struct json_val *vals;
	size_t nvals, capvals;
	struct json_member *mems;
	size_t nmems, capmems;
};

int json_doc__new(struct json_doc **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -ENOMEM;
}

static void free_chunks(struct chunk *c)
{
	while (c) {
		struct chunk *next = c->next;

		free(c);
		c = next;
	}
}

void json_doc__free(struct json_doc *doc)
{
	if (!doc)
		return;
	free_chunks(doc->chunks);
	free(doc->vals);
	free(doc->mems);
	free(doc);
}

static struct chunk *chunk_new(size_t size)
{
	struct chunk *c = malloc(sizeof(*c) + size);

	if (c)
		*c = (struct chunk){ .size = size };
	return c;
}

/*
 * Forget the previous tree.  When it took several chunks, they are replaced
 * by one big enough for all of it, so a file of similar lines settles on one.
 */
static int arena_reset(struct json_doc *doc)
{
	if (doc->chunks && doc->chunks->next) {
		size_t size = doc->total > CHUNK_MIN ? doc->total : CHUNK_MIN;

		free_chunks(doc->chunks);
		doc->chunks = chunk_new(size);
		if (!doc->chunks)
			return -ENOMEM;
	} else if (doc->chunks) {
		doc->chunks->used = 0;
	}
	doc->total = 0;
	doc->nvals = doc->nmems = 0;
	return 0;
}

/* SIZE bytes aligned to ALIGN, valid until the next reset; NULL on ENOMEM. */
static void *arena_alloc(struct json_doc *doc, size_t size)
{
	struct chunk *c = doc->chunks;
	void *p;

	size = (size + ALIGN - 1) & ~(size_t)(ALIGN - 1);
	if (!c || c->size - c->used < size) {
		c = chunk_new(size > CHUNK_MIN ? size : CHUNK_MIN);
		if (!c)
			return NULL;
		c->next = doc->chunks;
		doc->chunks = c;
	}
	p = c->mem + c->used;
	c->used += size;
	doc->total += size;
	return p;
}

/* ---- the reader ---------------------------------------------------------- */

struct parser {
	struct json_doc *doc;
	const char *start, *p, *end;
	struct ptap_err *err;
	int depth;
};

static int perr(struct parser *ps, const char *at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int perr(struct parser *ps, const char *at, const char *fmt, ...)
{
	char msg[160];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return ptap_err_set(ps->err, (int)(at - ps->start), -EINVAL, "%s", msg);
}

/* What is at P, for a message: "'x'", "byte 0x01" or "the end of the input". */
static const char *what_at(struct parser *ps, const char *p, char *buf, size_t len)
{
	unsigned char c;

	if (p >= ps->end)
		return "the end of the input";
	c = (unsigned char)*p;
	if (c > 0x20 && c < 0x7f)
		snprintf(buf, len, "'%c'", c);
	else
		snprintf(buf, len, "byte 0x%02x", c);
	return buf;
}

static int unexpected(struct parser *ps, const char *expected)
{
	char buf[16];

	return perr(ps, ps->p, "expected %s, found %s", expected,
		    what_at(ps, ps->p, buf, sizeof(buf)));
}

static void skip_ws(struct parser *ps)
{
	while (ps->p < ps->end &&
	       (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r'))
		ps->p++;
}

/* The length of the valid UTF-8 sequence at P (1-4); 0: overlong, surrogate, > U+10FFFF, cut. */
static size_t utf8_seq(const unsigned char *p, const unsigned char *end)
{
	unsigned char c = p[0];
	size_t n;
	uint32_t cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2, cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, cp = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, cp = c & 0x07;
	else
		return 0;
	if ((size_t)(end - p) < n)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || cp > 0x10ffff ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

/* CP (valid, not a surrogate) as UTF-8 at O; returns the bytes written. */
static size_t put_utf8(char *o, uint32_t cp)
{
	if (cp < 0x80) {
		o[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (char)(0xc0 | cp >> 6);
		o[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (char)(0xe0 | cp >> 12);
		o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		o[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	o[0] = (char)(0xf0 | cp >> 18);
	o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	o[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	o[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* Four hex digits at P (not past END) into *CP; false if they are not there. */
static bool hex4(const char *p, const char *end, uint32_t *cp)
{
	*cp = 0;
	if (end - p < 4)
		return false;
	for (int i = 0; i < 4; i++) {
		char c = p[i];
		int d;

		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else
			return false;
		*cp = *cp << 4 | d;
	}
	return true;
}

/* \uXXXX at ps->p (the backslash), a surrogate pair counted as one, into *CP. */
static int parse_u_escape(struct parser *ps, uint32_t *cp)
{
	const char *at = ps->p;
	uint32_t lo;

	if (!hex4(ps->p + 2, ps->end, cp))
		return perr(ps, at, "\\u needs four hex digits");
	ps->p += 6;
	if (*cp >= 0xdc00 && *cp <= 0xdfff)
		return perr(ps, at, "lone low surrogate \\u%04x", *cp);
	if (*cp < 0xd800 || *cp > 0xdbff)
		return 0;
	if (ps->end - ps->p < 6 || ps->p[0] != '\\' || ps->p[1] != 'u' ||
	    !hex4(ps->p + 2, ps->end, &lo) || lo < 0xdc00 || lo > 0xdfff)
		return perr(ps, at, "high surrogate \\u%04x without a low surrogate after it", *cp);
	ps->p += 6;
	*cp = 0x10000 + ((*cp - 0xd800) << 10) + (lo - 0xdc00);
	return 0;
}

/* One escape at ps->p (the backslash), decoded at O; the bytes written, or -EINVAL. */
static int parse_escape(struct parser *ps, char *o)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	const char *hit;
	uint32_t cp;
	int r;

	if (ps->end - ps->p < 2)
		return perr(ps, ps->p, "unterminated string");
	if (ps->p[1] == 'u') {
		r = parse_u_escape(ps, &cp);
		return r < 0 ? r : (int)put_utf8(o, cp);
	}
	hit = ps->p[1] ? strchr(from, ps->p[1]) : NULL;
	if (!hit)
		return perr(ps, ps->p, "invalid escape '\\%c'", ps->p[1]);
	*o = to[hit - from];
	ps->p += 2;
	return 1;
}

/*
 * The string at ps->p (its opening quote), decoded into the arena: *S
 * (NUL-terminated) and *LEN.  An escape never decodes to more bytes than
 * its text, so the raw length bounds the result.
 */
static int parse_string(struct parser *ps, char **s, size_t *len)
{
	const char *open = ps->p, *q;
	char *o;
	int r;

	for (q = ps->p + 1; q < ps->end && *q != '"'; q++)
		if (*q == '\\' && q + 1 < ps->end)
			q++;
	if (q >= ps->end)
		return perr(ps, open, "unterminated string");
	o = *s = arena_alloc(ps->doc, q - open);
	if (!o)
		return -ENOMEM;
	ps->p++;
	while (*ps->p != '"') {
		unsigned char c = (unsigned char)*ps->p;
		size_t n;

		if (c == '\\') {
			r = parse_escape(ps, o);
			if (r < 0)
				return r;
			o += r;
			continue;
		}
		if (c < 0x20)
			return perr(ps, ps->p, "control character 0x%02x in a string", c);
		n = utf8_seq((const unsigned char *)ps->p, (const unsigned char *)ps->end);
		if (!n)
			return perr(ps, ps->p, "invalid UTF-8 byte 0x%02x in a string", c);
		memcpy(o, ps->p, n);
		o += n;
		ps->p += n;
	}
	ps->p++;
	*o = '\0';
	*len = o - *s;
	return 0;
}

static bool is_digit(const char *p, const char *end)
{
	return p < end && *p >= '0' && *p <= '9';
}

/* A number at ps->p: int64, uint64 when it fits, else a double. */
static int parse_number(struct parser *ps, struct json_val *v)
{
	const char *at = ps->p, *p = ps->p;
	bool neg = false, integer = true, overflow = false;
	uint64_t mag = 0;
	char *tmp;

	if (*p == '-')
		neg = true, p++;
	if (!is_digit(p, ps->end))
		return perr(ps, p, "expected a digit");
	if (*p == '0' && is_digit(p + 1, ps->end))
		return perr(ps, p, "a number cannot start with 0");
	for (; is_digit(p, ps->end); p++) {
		unsigned int d = *p - '0';

		if (mag > (UINT64_MAX - d) / 10)
			overflow = true;
		mag = mag * 10 + d;
	}
	if (p < ps->end && *p == '.') {
		integer = false;
		if (!is_digit(++p, ps->end))
			return perr(ps, p, "expected a digit after '.'");
		while (is_digit(p, ps->end))
			p++;
	}
	if (p < ps->end && (*p == 'e' || *p == 'E')) {
		integer = false;
		p++;
		if (p < ps->end && (*p == '+' || *p == '-'))
			p++;
		if (!is_digit(p, ps->end))
			return perr(ps, p, "expected a digit in the exponent");
		while (is_digit(p, ps->end))
			p++;
	}
	ps->p = p;
	if (integer && !overflow && !neg && mag <= INT64_MAX) {
		*v = (struct json_val){ .type = JSON_INT, .i = (int64_t)mag };
		return 0;
	}
	if (integer && !overflow && !neg) {
		*v = (struct json_val){ .type = JSON_UINT, .u = mag };
		return 0;
	}
	if (integer && !overflow && mag <= (uint64_t)INT64_MAX + 1) {
		*v = (struct json_val){ .type = JSON_INT, .i = (int64_t)(0 - mag) };
		return 0;
	}
	/* strtod wants a NUL-terminated copy; the C locale's '.' (ptap sets no locale) */
	tmp = arena_alloc(ps->doc, p - at + 1);
	if (!tmp)
		return -ENOMEM;
	memcpy(tmp, at, p - at);
	tmp[p - at] = '\0';
	*v = (struct json_val){ .type = JSON_DOUBLE, .d = strtod(tmp, NULL) };
	if (isinf(v->d))
		return perr(ps, at, "number out of range");
	return 0;
}

/* The literal WORD at ps->p. */
static int parse_word(struct parser *ps, const char *word, struct json_val *v)
{
	size_t n = strlen(word);

	if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, word, n))
		return unexpected(ps, "a value");
	ps->p += n;
	if (ps->p < ps->end && isalpha((unsigned char)*ps->p))
		return perr(ps, ps->p - n, "unknown word (expected a value)");
	if (word[0] == 'n')
		*v = (struct json_val){ .type = JSON_NULL };
	else
		*v = (struct json_val){ .type = JSON_BOOL, .b = word[0] == 't' };
	return 0;
}

static int parse_value(struct parser *ps, struct json_val *v);

/* An array at ps->p ('['); its elements go through doc->vals, then to the arena. */
static int parse_array(struct parser *ps, struct json_val *v)
{
	struct json_doc *doc = ps->doc;
	size_t base = doc->nvals, n;
	struct json_val item;
	int r;

	ps->p++;
	skip_ws(ps);
	if (ps->p < ps->end && *ps->p == ']') {
		ps->p++;
		*v = (struct json_val){ .type = JSON_ARRAY };
		return 0;
	}
	for (;;) {
		r = parse_value(ps, &item);
		if (r < 0)
			return r;
		if (array_grow((void **)&doc->vals, &doc->capvals, sizeof(item), doc->nvals + 1))
			return -ENOMEM;
		doc->vals[doc->nvals++] = item;
		skip_ws(ps);
		if (ps->p < ps->end && *ps->p == ',') {
			ps->p++;
			continue;
		}
		if (ps->p < ps->end && *ps->p == ']')
			break;
		return unexpected(ps, "',' or ']'");
	}
	ps->p++;
	n = doc->nvals - base;
	*v = (struct json_val){ .type = JSON_ARRAY, .arr.n = n };
	v->arr.v = arena_alloc(doc, n * sizeof(*v->arr.v));
	if (!v->arr.v)
		return -ENOMEM;
	memcpy(v->arr.v, doc->vals + base, n * sizeof(*v->arr.v));
	doc->nvals = base;
	return 0;
}

/* One "key": value of an object, at ps->p (after the whitespace). */
static int parse_member(struct parser *ps, struct json_member *m)
{
	int r;

	if (ps->p >= ps->end || *ps->p != '"')
		return unexpected(ps, "a string (a member name)");
	r = parse_string(ps, &m->key, &m->key_len);
	if (r < 0)
		return r;
	skip_ws(ps);
	if (ps->p >= ps->end || *ps->p != ':')
		return unexpected(ps, "':'");
	ps->p++;
	return parse_value(ps, &m->val);
}

/* An object at ps->p ('{'); its members go through doc->mems, then to the arena. */
static int parse_object(struct parser *ps, struct json_val *v)
{
	struct json_doc *doc = ps->doc;
	size_t base = doc->nmems, n;
	struct json_member m;
	int r;

	ps->p++;
	skip_ws(ps);
	if (ps->p < ps->end && *ps->p == '}') {
		ps->p++;
		*v = (struct json_val){ .type = JSON_OBJECT };
		return 0;
	}
	for (;;) {
		skip_ws(ps);
		r = parse_member(ps, &m);
		if (r < 0)
			return r;
		if (array_grow((void **)&doc->mems, &doc->capmems, sizeof(m), doc->nmems + 1))
			return -ENOMEM;
		doc->mems[doc->nmems++] = m;
		skip_ws(ps);
		if (ps->p < ps->end && *ps->p == ',') {
			ps->p++;
			continue;
		}
		if (ps->p < ps->end && *ps->p == '}')
			break;
		return unexpected(ps, "',' or '}'");
	}
	ps->p++;
	n = doc->nmems - base;
	*v = (struct json_val){ .type = JSON_OBJECT, .obj.n = n };
	v->obj.m = arena_alloc(doc, n * sizeof(*v->obj.m));
	if (!v->obj.m)
		return -ENOMEM;
	memcpy(v->obj.m, doc->mems + base, n * sizeof(*v->obj.m));
	doc->nmems = base;
	return 0;
}

/* Any value at ps->p, whitespace before it skipped. */
static int parse_value(struct parser *ps, struct json_val *v)
{
	int r;

	skip_ws(ps);
	if (ps->p >= ps->end)
		return unexpected(ps, "a value");
	switch (*ps->p) {
	case '{':
	case '[':
		if (ps->depth >= JSON_MAX_DEPTH)
			return perr(ps, ps->p, "nested deeper than %d levels", JSON_MAX_DEPTH);
		ps->depth++;
		r = *ps->p == '{' ? parse_object(ps, v) : parse_array(ps, v);
		ps->depth--;
		return r;
	case '"':
		*v = (struct json_val){ .type = JSON_STRING };
		return parse_string(ps, &v->str.s, &v->str.len);
	case 't':
		return parse_word(ps, "true", v);
	case 'f':
		return parse_word(ps, "false", v);
	case 'n':
		return parse_word(ps, "null", v);
	default:
		if (*ps->p == '-' || (*ps->p >= '0' && *ps->p <= '9'))
			return parse_number(ps, v);
		return unexpected(ps, "a value");
	}
}

int json_doc__parse(struct json_doc *doc, const char *text, size_t len,
		    const struct json_val **out, struct ptap_err *err)
{
	struct parser ps = { .doc = doc, .start = text, .p = text, .end = text + len, .err = err };
	struct json_val *root;
	int r;

	*out = NULL;
	if (arena_reset(doc))
		return -ENOMEM;
	root = arena_alloc(doc, sizeof(*root));
	if (!root)
		return -ENOMEM;
	r = parse_value(&ps, root);
	if (r < 0)
		return r;
	skip_ws(&ps);
	if (ps.p < ps.end)
		return unexpected(&ps, "the end after the value");
	*out = root;
	return 0;
}

const struct json_val *json_get(const struct json_val *obj, const char *key)
{
	size_t n = strlen(key);

	if (!obj || obj->type != JSON_OBJECT)
		return NULL;
	for (size_t i = 0; i < obj->obj.n; i++)
		if (obj->obj.m[i].key_len == n && !memcmp(obj->obj.m[i].key, key, n))
			return &obj->obj.m[i].val;
	return NULL;
}

/* ---- the writer ---------------------------------------------------------- */

struct wbuf {
	char *buf;
	size_t len;		/* BUF's size */
	size_t need;		/* bytes the text needs so far (without the NUL) */
};

static void w_put(struct wbuf *w, const char *s, size_t n)
{
	if (w->need < w->len) {
		size_t room = w->len - 1 - w->need;

		memcpy(w->buf + w->need, s, n < room ? n : room);
	}
	w->need += n;
}

static void w_puts(struct wbuf *w, const char *s)
{
	w_put(w, s, strlen(s));
}

/* S[0..N) quoted and escaped, through a small buffer (escape_str never splits an escape). */
static void w_string(struct wbuf *w, const char *s, size_t n)
{
	char tmp[256];
	size_t used, out;

	w_puts(w, "\"");
	while (n) {
		out = escape_str(s, n, ESC_JSON, tmp, sizeof(tmp), &used);
		w_put(w, tmp, out);
		s += used;
		n -= used;
	}
	w_puts(w, "\"");
}

/* The shortest "%.*g" that reads back as D (as probes/record.c writes floats). */
static void w_double(struct wbuf *w, double d)
{
	char tmp[40];

	for (int prec = 1; prec <= 17; prec++) {
		snprintf(tmp, sizeof(tmp), "%.*g", prec, d);
		if (strtod(tmp, NULL) == d)
			break;
	}
	w_puts(w, tmp);
}

static void w_value(struct wbuf *w, const struct json_val *v)
{
	char tmp[32];

	switch (v->type) {
	case JSON_NULL:
		w_puts(w, "null");
		break;
	case JSON_BOOL:
		w_puts(w, v->b ? "true" : "false");
		break;
	case JSON_INT:
		snprintf(tmp, sizeof(tmp), "%lld", (long long)v->i);
		w_puts(w, tmp);
		break;
	case JSON_UINT:
		snprintf(tmp, sizeof(tmp), "%llu", (unsigned long long)v->u);
		w_puts(w, tmp);
		break;
	case JSON_DOUBLE:
		w_double(w, v->d);
		break;
	case JSON_STRING:
		w_string(w, v->str.s, v->str.len);
		break;
	case JSON_ARRAY:
		w_puts(w, "[");
		for (size_t i = 0; i < v->arr.n; i++) {
			if (i)
				w_puts(w, ",");
			w_value(w, &v->arr.v[i]);
		}
		w_puts(w, "]");
		break;
	case JSON_OBJECT:
		w_puts(w, "{");
		for (size_t i = 0; i < v->obj.n; i++) {
			if (i)
				w_puts(w, ",");
			w_string(w, v->obj.m[i].key, v->obj.m[i].key_len);
			w_puts(w, ":");
			w_value(w, &v->obj.m[i].val);
		}
		w_puts(w, "}");
		break;
	}
}

size_t json_format(const struct json_val *v, char *buf, size_t len)
{
	struct wbuf w = { .buf = buf, .len = len };

	w_value(&w, v);
	if (len)
		buf[w.need < len ? w.need : len - 1] = '\0';
	return w.need;
}
