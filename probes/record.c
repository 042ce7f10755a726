/* probes/record.c: a record and its values rendered as a text line or a JSON
 * line.  Pure: formats into caller buffers; never allocates, never prints. */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "probes/escape.h"
#include "probes/record.h"

#define TEXT_CUT	" ...(truncated)\n"
#define JSON_END	"}}\n"
#define JSON_CUT	"},\"truncated\":true}\n"
#define JSON_ONLY_CUT	"{\"truncated\":true}\n"

const char *rec_kind__name(enum rec_kind kind)
{
	static const char *const names[] = {
		[REC_KIND_ENTRY] = "entry",	[REC_KIND_RETURN] = "return",
		[REC_KIND_SYSCALL] = "syscall", [REC_KIND_MMAP] = "mmap",
		[REC_KIND_FORK] = "fork",	[REC_KIND_EXEC] = "exec",
		[REC_KIND_EXIT] = "exit",
	};

	if ((unsigned int)kind >= sizeof(names) / sizeof(names[0]))
		return "unknown";
	return names[kind];
}

/* ---- an output buffer that refuses what does not fit --------------------- */

struct obuf {
	char *buf;
	size_t cap;		/* usable bytes, the NUL included */
	size_t pos;		/* BUF[POS] is always the NUL */
	bool over;		/* a piece did not fit; nothing is written after it */
};

static void ob_init(struct obuf *ob, char *buf, size_t cap)
{
	*ob = (struct obuf){ .buf = buf, .cap = cap };
	if (cap)
		buf[0] = '\0';
	else
		ob->over = true;
}

static void ob_write(struct obuf *ob, const char *s, size_t n)
{
	if (ob->over || n > ob->cap - 1 - ob->pos) {
		ob->over = true;
		return;
	}
	memcpy(ob->buf + ob->pos, s, n);
	ob->pos += n;
	ob->buf[ob->pos] = '\0';
}

static void ob_puts(struct obuf *ob, const char *s)
{
	ob_write(ob, s, strlen(s));
}

static void ob_printf(struct obuf *ob, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void ob_printf(struct obuf *ob, const char *fmt, ...)
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
static void ob_escape(struct obuf *ob, const char *s, size_t n, enum esc_mode mode)
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

static void ob_escape_str(struct obuf *ob, const char *s, enum esc_mode mode)
{
	if (s)
		ob_escape(ob, s, strlen(s), mode);
}

/* Undo everything after MARK (an earlier ob->pos) and clear the overflow. */
static void ob_rollback(struct obuf *ob, size_t mark)
{
	ob->pos = mark;
	ob->buf[mark] = '\0';
	ob->over = false;
}

/* ---- values -------------------------------------------------------------- */

enum value_class { VC_SIGNED, VC_UNSIGNED, VC_HEX, VC_STRING };

static enum value_class value_class(const struct fetch_type *t)
{
	switch (t->kind) {
	case FT_SIGNED:
		return VC_SIGNED;
	case FT_UNSIGNED:
	case FT_BITFIELD:
		return VC_UNSIGNED;
	case FT_STRING:
	case FT_USTRING:
		return VC_STRING;
	default:	/* FT_DEFAULT, FT_HEX, FT_SYMBOL */
		return VC_HEX;
	}
}

/* The value truncated to its type (sign-extended for sN), as 64 bits. */
static uint64_t value_int(const struct fetch_type *t, const struct fetch_val *v)
{
	unsigned int bits = (t->size && t->size < 8 ? t->size : 8) * 8;
	uint64_t u = v->u;

	if (t->kind == FT_BITFIELD && t->bits && t->bits < 64)
		return u & ((1ULL << t->bits) - 1);
	if (bits == 64)
		return u;
	u &= (1ULL << bits) - 1;
	if (t->kind == FT_SIGNED && (u >> (bits - 1)))
		u |= ~0ULL << bits;
	return u;
}

/* The message of a failed fetch, escaped for MODE. */
static void value_error(struct obuf *ob, const struct fetch_val *v, enum esc_mode mode)
{
	const char *desc;

	if (v->err == -EFAULT) {
		ob_printf(ob, "bad address 0x%llx", (unsigned long long)v->addr);
		return;
	}
	desc = v->err < 0 ? strerrordesc_np(-v->err) : NULL;
	if (desc)
		ob_escape_str(ob, desc, mode);
	else
		ob_printf(ob, "error %d", v->err);
}

static void value_int_text(struct obuf *ob, const struct fetch_type *t,
			   const struct fetch_val *v, bool json)
{
	uint64_t u = value_int(t, v);

	switch (value_class(t)) {
	case VC_SIGNED:
		ob_printf(ob, "%lld", (long long)u);
		break;
	case VC_UNSIGNED:
		ob_printf(ob, "%llu", (unsigned long long)u);
		break;
	default:	/* hex is not a JSON number: a string there */
		ob_printf(ob, json ? "\"0x%llx\"" : "0x%llx", (unsigned long long)u);
		break;
	}
}

static void value_text(struct obuf *ob, const struct fetch_type *t, const struct fetch_val *v)
{
	if (v->err) {
		ob_puts(ob, "(error: ");
		value_error(ob, v, ESC_TEXT);
		ob_puts(ob, ")");
		return;
	}
	if (value_class(t) != VC_STRING) {
		value_int_text(ob, t, v, false);
		return;
	}
	ob_puts(ob, "\"");
	ob_escape(ob, v->str ? v->str : "", v->str ? v->len : 0, ESC_TEXT);
	ob_puts(ob, v->truncated ? "\"..." : "\"");
}

static void value_json(struct obuf *ob, const struct fetch_type *t, const struct fetch_val *v)
{
	if (v->err) {
		ob_puts(ob, "{\"error\":\"");
		value_error(ob, v, ESC_JSON);
		ob_puts(ob, "\"}");
		return;
	}
	if (value_class(t) != VC_STRING) {
		value_int_text(ob, t, v, true);
		return;
	}
	ob_puts(ob, v->truncated ? "{\"value\":\"" : "\"");
	ob_escape(ob, v->str ? v->str : "", v->str ? v->len : 0, ESC_JSON);
	ob_puts(ob, v->truncated ? "\",\"truncated\":true}" : "\"");
}

static size_t value_format(void (*fmt)(struct obuf *, const struct fetch_type *,
				       const struct fetch_val *),
			   const struct fetch_type *t, const struct fetch_val *v, char *buf,
			   size_t len)
{
	struct obuf ob;

	ob_init(&ob, buf, len);
	fmt(&ob, t, v);
	if (ob.over) {
		if (len)
			buf[0] = '\0';
		return 0;
	}
	return ob.pos;
}

size_t value__format_text(const struct fetch_type *t, const struct fetch_val *v, char *buf,
			  size_t len)
{
	return value_format(value_text, t, v, buf, len);
}

size_t value__format_json(const struct fetch_type *t, const struct fetch_val *v, char *buf,
			  size_t len)
{
	return value_format(value_json, t, v, buf, len);
}

/* ---- records ------------------------------------------------------------- */

static const struct fetch_type default_type = { .kind = FT_DEFAULT, .size = 8 };

static const char *arg_name(const struct record *rec, unsigned int i, char *buf, size_t len)
{
	if (rec->names && rec->names[i])
		return rec->names[i];
	snprintf(buf, len, "arg%u", i + 1);
	return buf;
}

static const struct fetch_type *arg_type(const struct record *rec, unsigned int i)
{
	return rec->types ? &rec->types[i] : &default_type;
}

static unsigned int rec_nargs(const struct record *rec)
{
	return rec->vals ? rec->nargs : 0;
}

/*
 * The text line without its end into OB.  True when all of it fit; else the
 * arguments that fit (none if the header did not) and false.
 */
static bool text_body(const struct record *rec, struct obuf *ob)
{
	char nbuf[16];

	ob_escape_str(ob, rec->comm, ESC_TEXT);
	ob_printf(ob, " %d/%d %llu.%09llu: ", rec->pid, rec->tid,
		  (unsigned long long)(rec->ts / 1000000000ULL),
		  (unsigned long long)(rec->ts % 1000000000ULL));
	ob_escape_str(ob, rec->event, ESC_TEXT);
	ob_printf(ob, ": (0x%llx)", (unsigned long long)rec->addr);
	if (ob->over) {
		ob_rollback(ob, 0);
		return false;
	}
	for (unsigned int i = 0; i < rec_nargs(rec); i++) {
		size_t mark = ob->pos;

		ob_puts(ob, " ");
		ob_escape_str(ob, arg_name(rec, i, nbuf, sizeof(nbuf)), ESC_TEXT);
		ob_puts(ob, "=");
		value_text(ob, arg_type(rec, i), &rec->vals[i]);
		if (ob->over) {
			ob_rollback(ob, mark);
			return false;
		}
	}
	return true;
}

size_t record__format_text(const struct record *rec, char *buf, size_t len)
{
	struct obuf ob;

	if (len < sizeof(TEXT_CUT)) {	/* too small for any record */
		ob_init(&ob, buf, len);
		ob_puts(&ob, "\n");
		return ob.pos;
	}
	ob_init(&ob, buf, len - 1);	/* room for the '\n' */
	if (text_body(rec, &ob)) {
		ob.cap = len;
		ob_puts(&ob, "\n");
		return ob.pos;
	}
	ob_init(&ob, buf, len - (sizeof(TEXT_CUT) - 1));
	text_body(rec, &ob);		/* fails again, with less room */
	ob.cap = len;
	ob_puts(&ob, TEXT_CUT);
	return ob.pos;
}

/* As text_body(), for JSON: everything up to the closing "}}". */
static bool json_body(const struct record *rec, struct obuf *ob)
{
	char nbuf[16];

	ob_printf(ob, "{\"ts\":%llu,\"pid\":%d,\"tid\":%d,\"comm\":\"",
		  (unsigned long long)rec->ts, rec->pid, rec->tid);
	ob_escape_str(ob, rec->comm, ESC_JSON);
	ob_puts(ob, "\",\"event\":\"");
	ob_escape_str(ob, rec->event, ESC_JSON);
	ob_printf(ob, "\",\"kind\":\"%s\",\"addr\":\"0x%llx\",\"args\":{",
		  rec_kind__name(rec->kind), (unsigned long long)rec->addr);
	if (ob->over) {
		ob_rollback(ob, 0);
		return false;
	}
	for (unsigned int i = 0; i < rec_nargs(rec); i++) {
		size_t mark = ob->pos;

		ob_puts(ob, i ? ",\"" : "\"");
		ob_escape_str(ob, arg_name(rec, i, nbuf, sizeof(nbuf)), ESC_JSON);
		ob_puts(ob, "\":");
		value_json(ob, arg_type(rec, i), &rec->vals[i]);
		if (ob->over) {
			ob_rollback(ob, mark);
			return false;
		}
	}
	return true;
}

size_t record__format_json(const struct record *rec, char *buf, size_t len)
{
	struct obuf ob;

	if (len > sizeof(JSON_CUT)) {
		ob_init(&ob, buf, len - (sizeof(JSON_END) - 1));
		if (json_body(rec, &ob)) {
			ob.cap = len;
			ob_puts(&ob, JSON_END);
			return ob.pos;
		}
		ob_init(&ob, buf, len - (sizeof(JSON_CUT) - 1));
		json_body(rec, &ob);	/* fails again, with less room */
		if (ob.pos) {
			ob.cap = len;
			ob_puts(&ob, JSON_CUT);
			return ob.pos;
		}
	}
	/* Not even the header fits: still one valid JSON line, if that fits. */
	ob_init(&ob, buf, len);
	ob_puts(&ob, JSON_ONLY_CUT);
	return ob.pos;
}
