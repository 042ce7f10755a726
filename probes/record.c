/* probes/record.c: a record and its values rendered as a text line or a JSON
 * line.  Pure: formats into caller buffers; never allocates, never prints. */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/escape.h"
#include "probes/obuf.h"
#include "probes/record.h"

#define TEXT_CUT	" ...(truncated)\n"
#define JSON_END	"}}\n"
#define JSON_CUT	"},\"truncated\":true}\n"
/* Kept free after a stack's frames (JSON, Perfetto): its "]", what follows, the cut's end */
#define STACK_CLOSE_ROOM	64
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

/* ---- values -------------------------------------------------------------- */

/*
 * Bounds of value__max_len(), in either format.  NUM_MAX: every number, hex,
 * bool and float ("-9223372036854775808", "\"0x...\"", "-2.2250738585072014e-308"),
 * {...}, and a member's "not fetched" error.  ERR_MAX: a failed value,
 * "(error: bad address 0x...)" or {"error":"<strerror text>"} (the longest
 * glibc text has 49 characters).
 */
#define NUM_MAX		32
#define ERR_MAX		128
#define OPAQUE_TEXT	"{...}"
#define OPAQUE_JSON	"\"{...}\""
#define ANON_MEMBER	"(anon)"	/* an unnamed member: an anonymous struct or union */
#define NOT_FETCHED	"not fetched"	/* a member past the bytes fetched */

enum value_class {
	VC_SIGNED, VC_UNSIGNED, VC_HEX, VC_STRING, VC_BOOL, VC_FLOAT, VC_ENUM, VC_STRUCT,
	VC_OPAQUE, VC_SYM, VC_FD, VC_SLICE,
};

static bool type_signed(const struct fetch_type *t)
{
	return t->kind == FT_SIGNED ||
	       ((t->kind == FT_BITFIELD || t->kind == FT_ENUM) && (t->flags & FTF_SIGNED));
}

static enum value_class value_class(const struct fetch_type *t)
{
	switch (t->kind) {
	case FT_SIGNED:
		return VC_SIGNED;
	case FT_UNSIGNED:
		return VC_UNSIGNED;
	case FT_BITFIELD:
		return type_signed(t) ? VC_SIGNED : VC_UNSIGNED;
	case FT_STRING:
	case FT_USTRING:
	case FT_CHARS:
	case FT_STRN:
		return VC_STRING;
	case FT_BOOL:
		return VC_BOOL;
	case FT_FLOAT:	/* other sizes than binary32 and binary64: their bits in hex */
		return t->size == 4 || t->size == 8 ? VC_FLOAT : VC_HEX;
	case FT_ENUM:
		return VC_ENUM;
	case FT_STRUCT:
		return VC_STRUCT;
	case FT_SLICE:
		return VC_SLICE;
	case FT_OPAQUE:
		return VC_OPAQUE;
	case FT_SYM:
		return VC_SYM;
	case FT_FD:
		return VC_FD;
	default:	/* FT_DEFAULT, FT_HEX, FT_SYMBOL */
		return VC_HEX;
	}
}

/* U truncated to T's size, or to its BITS for bitfields, and sign-extended when T is signed. */
static uint64_t int_of(const struct fetch_type *t, uint64_t u)
{
	unsigned int bits = (t->size && t->size < 8 ? t->size : 8) * 8;

	if (t->kind == FT_BITFIELD)
		bits = t->bits && t->bits < 64 ? t->bits : 64;
	if (bits == 64)
		return u;
	u &= (1ULL << bits) - 1;
	if (type_signed(t) && (u >> (bits - 1)))
		u |= ~0ULL << bits;
	return u;
}

/* The value truncated to its type (sign-extended when signed), as 64 bits. */
static uint64_t value_int(const struct fetch_type *t, const struct fetch_val *v)
{
	return int_of(t, v->u);
}

const char *const record_account_names[RECORD_ACCT_N] = {
	"read_bytes", "write_bytes", "cancelled_write_bytes", "cpu_ns", "runq_ns",
	"minflt", "majflt", "nvcsw", "nivcsw",
};

/* The message of a failed fetch, escaped for MODE. */
static void value_error(struct obuf *ob, const struct fetch_val *v, enum esc_mode mode)
{
	const char *desc;

	if (v->err == FETCH_ERR_TAIL_CALL) {
		ob_puts(ob, "not known: left by a tail call");
		return;
	}
	if (v->err == FETCH_ERR_MOVED) {
		ob_puts(ob, "not known: the call moved to another thread");
		return;
	}
	if (v->err == -EFAULT) {
		ob_puts(ob, "bad address ");
		ob_hex(ob, v->addr);
		return;
	}
	desc = v->err < 0 ? strerrordesc_np(-v->err) : NULL;
	if (desc) {
		ob_escape_str(ob, desc, mode);
	} else {
		ob_puts(ob, "error ");
		ob_s64(ob, v->err);
	}
}

/* "(error: MSG)" or {"error":"MSG"}: MSG from V, or the plain text MSG when V is NULL. */
static void value_fail(struct obuf *ob, const struct fetch_val *v, const char *msg, bool json)
{
	ob_puts(ob, json ? "{\"error\":\"" : "(error: ");
	if (v)
		value_error(ob, v, json ? ESC_JSON : ESC_TEXT);
	else if (msg)
		ob_puts(ob, msg);
	ob_puts(ob, json ? "\"}" : ")");
}

/* S[0..N) quoted and escaped for the format. */
static void quoted(struct obuf *ob, const char *s, size_t n, bool json)
{
	ob_puts(ob, "\"");
	ob_escape(ob, s ? s : "", s ? n : 0, json ? ESC_JSON : ESC_TEXT);
	ob_puts(ob, "\"");
}

/*
 * A string; a truncated one with what is known of its whole length:
 * "abc"...(+N bytes) / {"value":"abc","truncated":true,"length":L}, or as a
 * lower bound "abc"...(+N bytes or more) / ..,"length_min":L}; "abc"... /
 * {"value":"abc","truncated":true} when nothing is.
 */
static void value_string(struct obuf *ob, const struct fetch_val *v, bool json)
{
	/* a cut string ends at its last whole character: a piece of one would print as
	 * invalid bytes (\xe6, JSON \u00e6: a character that was never there) */
	size_t shown = v->truncated && v->str ? utf8_whole_len(v->str, v->len) : v->len;
	bool known = v->truncated && v->full_len >= v->len && v->full_len;

	if (json && v->truncated)
		ob_puts(ob, "{\"value\":");
	quoted(ob, v->str, shown, json);
	if (!v->truncated)
		return;
	if (json) {
		ob_puts(ob, ",\"truncated\":true");
		if (known) {
			ob_puts(ob, v->full_len_min ? ",\"length_min\":" : ",\"length\":");
			ob_u64(ob, v->full_len);
		}
		ob_putc(ob, '}');
		return;
	}
	ob_puts(ob, "...");
	if (known) {
		ob_puts(ob, "(+");
		ob_u64(ob, v->full_len - shown);
		ob_puts(ob, v->full_len_min ? " bytes or more)" : " bytes)");
	}
}

/*
 * The shortest "%.*g" (precision 1..17) that reads back as the same value;
 * binary32 values compare as floats.  JSON has no nan or infinities: there
 * they are the strings "nan", "inf", "-inf".
 */
static void value_float(struct obuf *ob, const struct fetch_type *t, uint64_t u, bool json)
{
	char tmp[64];
	double d;
	float f = 0;

	if (t->size == 4) {
		uint32_t w = (uint32_t)u;

		memcpy(&f, &w, sizeof(f));
		d = f;
	} else {
		memcpy(&d, &u, sizeof(d));
	}
	if (isnan(d) || isinf(d)) {
		const char *s = isnan(d) ? "nan" : d < 0 ? "-inf" : "inf";

		if (json)
			ob_putc(ob, '"');
		ob_puts(ob, s);
		if (json)
			ob_putc(ob, '"');
		return;
	}
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(tmp, sizeof(tmp), "%.*g", prec, d);
		if (t->size == 4 ? strtof(tmp, NULL) == f : strtod(tmp, NULL) == d)
			break;
	}
	ob_puts(ob, tmp);
}

/* An enum: its enumerator's name (JSON: a string), or the number when none has the value. */
static void value_enum(struct obuf *ob, const struct fetch_type *t, uint64_t u, bool json)
{
	const struct type_desc *d = t->desc;

	for (unsigned int i = 0; d && d->enums && i < d->n; i++) {
		const char *name = d->enums[i].name;

		if (!name || int_of(t, (uint64_t)d->enums[i].value) != u)
			continue;
		if (json)
			quoted(ob, name, strlen(name), true);
		else
			ob_escape_str(ob, name, ESC_TEXT);
		return;
	}
	if (type_signed(t))
		ob_s64(ob, (int64_t)u);
	else
		ob_u64(ob, u);
}

static void value_fmt(struct obuf *ob, const struct fetch_type *t, const struct fetch_val *v,
		      bool json);

/* A file descriptor and what it refers to: 3</tmp/db>, {"fd":3,"path":"/tmp/db"}; 3 alone. */
static void value_fd(struct obuf *ob, const struct fetch_val *v, bool json)
{
	int64_t fd = (int64_t)v->u;

	if (!v->len || !v->str) {
		ob_s64(ob, fd);
	} else if (json) {
		ob_puts(ob, "{\"fd\":");
		ob_s64(ob, fd);
		ob_puts(ob, ",\"path\":");
		quoted(ob, v->str, v->len, true);
		ob_putc(ob, '}');
	} else {
		ob_s64(ob, fd);
		ob_putc(ob, '<');
		ob_escape(ob, v->str, v->len, ESC_TEXT);
		ob_putc(ob, '>');
	}
}

/* Types a member's SIZE bytes are read for, or 0 for those value_member() treats apart. */
static unsigned int member_int_size(const struct fetch_type *t)
{
	switch (t->kind) {
	case FT_CHARS:
	case FT_STRUCT:
	case FT_OPAQUE:
		return 0;
	case FT_STRING:
	case FT_USTRING:
		return 8;	/* a char * member: no memory to follow here, its address */
	default:
		return t->size ? t->size : 8;
	}
}

/* Member M of the struct whose bytes are V->str[0..V->len). */
static void value_member(struct obuf *ob, const struct type_member *m, const struct fetch_val *v,
			 bool json)
{
	struct fetch_type mt = m->type;
	struct fetch_val mv = { .addr = v->addr + m->off };
	unsigned int size = member_int_size(&mt);
	uint64_t need = size ? size : mt.kind == FT_CHARS || mt.kind == FT_OPAQUE ? mt.len : 0;
	const char *p;

	if ((uint64_t)m->off + need > v->len || (need && !v->str)) {
		value_fail(ob, NULL, NOT_FETCHED, json);
		return;
	}
	p = v->str + m->off;
	if (mt.kind == FT_CHARS) {
		mv.str = (char *)p;
		mv.len = strnlen(p, mt.len);
		value_string(ob, &mv, json);
		return;
	}
	if (!size || size > 8) {	/* nested aggregates; a long double, an __int128 */
		ob_puts(ob, json ? OPAQUE_JSON : OPAQUE_TEXT);
		return;
	}
	if (mt.kind == FT_STRING || mt.kind == FT_USTRING)
		mt = (struct fetch_type){ .kind = FT_HEX, .size = 8 };
	mv.u = 0;
	for (unsigned int i = 0; i < size; i++)
		mv.u |= (uint64_t)(uint8_t)p[i] << (8 * i);
	if (mt.kind == FT_BITFIELD)	/* from its container, as the evaluator does */
		mv.u = mt.bit_off < 64 ? mv.u >> mt.bit_off : 0;
	value_fmt(ob, &mt, &mv, json);
}

/* {a=1, b="x"} or {"a":1,"b":"x"}: one level deep, from the bytes fetched. */
static void value_struct(struct obuf *ob, const struct fetch_type *t, const struct fetch_val *v,
			 bool json)
{
	const struct type_desc *d = t->desc;

	if (!d || !d->members || !d->n) {
		ob_puts(ob, json ? OPAQUE_JSON : OPAQUE_TEXT);
		return;
	}
	ob_puts(ob, "{");
	for (unsigned int i = 0; i < d->n; i++) {
		const struct type_member *m = &d->members[i];
		const char *name = m->name && *m->name ? m->name : ANON_MEMBER;

		if (i)
			ob_puts(ob, json ? "," : ", ");
		if (json) {
			quoted(ob, name, strlen(name), true);
			ob_puts(ob, ":");
		} else {
			ob_escape_str(ob, name, ESC_TEXT);
			ob_puts(ob, "=");
		}
		value_member(ob, m, v, json);
	}
	ob_puts(ob, "}");
}

/*
 * A slice: its elements fetched, {[0]=1, [1]=2} (JSON [1,2]); more than
 * were, with its count: {[0]=1, [1]=2}...(+8 more) / {"value":[1,2],
 * "truncated":true,"length":10}.
 */
static void value_slice(struct obuf *ob, const struct fetch_type *t, const struct fetch_val *v,
			bool json)
{
	const struct type_desc *d = t->desc;
	size_t esize = t->size ? t->size : 1, n = v->len / esize;

	if (!d || !d->members) {
		ob_puts(ob, json ? OPAQUE_JSON : OPAQUE_TEXT);
		return;
	}
	if (json && v->truncated)
		ob_puts(ob, "{\"value\":");
	ob_puts(ob, json ? "[" : "{");
	for (size_t i = 0; i < n && i < d->n; i++) {
		if (i)
			ob_puts(ob, json ? "," : ", ");
		if (!json) {
			ob_escape_str(ob, d->members[i].name, ESC_TEXT);
			ob_puts(ob, "=");
		}
		value_member(ob, &d->members[i], v, json);
	}
	ob_puts(ob, json ? "]" : "}");
	if (!v->truncated)
		return;
	if (json) {
		ob_puts(ob, ",\"truncated\":true,\"length\":");
		ob_u64(ob, v->full_len);
		ob_putc(ob, '}');
		return;
	}
	ob_puts(ob, "...(+");
	ob_u64(ob, v->full_len - n);
	ob_puts(ob, " more)");
}

/* One value in either format (the table in record.h). */
static void value_fmt(struct obuf *ob, const struct fetch_type *t, const struct fetch_val *v,
		      bool json)
{
	uint64_t u = value_int(t, v);

	if (v->err) {
		value_fail(ob, v, NULL, json);
		return;
	}
	switch (value_class(t)) {
	case VC_SIGNED:
		ob_s64(ob, (int64_t)u);
		break;
	case VC_UNSIGNED:
		ob_u64(ob, u);
		break;
	case VC_HEX:	/* hex is not a JSON number: a string there */
		if (json)
			ob_putc(ob, '"');
		ob_hex(ob, u);
		if (json)
			ob_putc(ob, '"');
		break;
	case VC_STRING:
		if (v->null)
			ob_puts(ob, json ? "null" : "NULL");
		else
			value_string(ob, v, json);
		break;
	case VC_BOOL:
		ob_puts(ob, u ? "true" : "false");
		break;
	case VC_FLOAT:
		value_float(ob, t, v->u, json);
		break;
	case VC_ENUM:
		value_enum(ob, t, u, json);
		break;
	case VC_STRUCT:
		value_struct(ob, t, v, json);
		break;
	case VC_SLICE:
		value_slice(ob, t, v, json);
		break;
	case VC_OPAQUE:
		ob_puts(ob, json ? OPAQUE_JSON : OPAQUE_TEXT);
		break;
	case VC_SYM:	/* bare in text: O_RDONLY|O_CLOEXEC, -ENOENT */
		if (json)
			quoted(ob, v->str, v->len, true);
		else
			ob_escape(ob, v->str ? v->str : "", v->str ? v->len : 0, ESC_TEXT);
		break;
	case VC_FD:
		value_fd(ob, v, json);
		break;
	}
}

static void value_text(struct obuf *ob, const struct fetch_type *t, const struct fetch_val *v)
{
	value_fmt(ob, t, v, false);
}

static void value_json(struct obuf *ob, const struct fetch_type *t, const struct fetch_val *v)
{
	value_fmt(ob, t, v, true);
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

/* ---- upper bounds ---------------------------------------------------------- */

/* A string of N bytes, escaped (at most 6 bytes each, JSON's \u00NN), with
 * quotes and the truncation marks of either format (JSON's are the longer). */
static size_t string_max(size_t n)
{
	return n * 6 + sizeof("{\"value\":\"\",\"truncated\":true,\"length_min\":"
			      "18446744073709551615}");
}

static size_t name_max(const char *s)
{
	return (s ? strlen(s) : 0) * 6 + 2;	/* escaped, quoted */
}

static size_t enum_max(const struct fetch_type *t)
{
	const struct type_desc *d = t->desc;
	size_t n = NUM_MAX;

	for (unsigned int i = 0; d && d->enums && i < d->n; i++)
		if (name_max(d->enums[i].name) > n)
			n = name_max(d->enums[i].name);
	return n;
}

/* What value_member() can write for M (its "not fetched" error is within NUM_MAX). */
static size_t member_max(const struct type_member *m)
{
	const struct fetch_type *t = &m->type;

	switch (t->kind) {
	case FT_CHARS:
		return string_max(t->len);
	case FT_ENUM:
		return enum_max(t);
	default:	/* numbers, hex, bool, float, {...} */
		return NUM_MAX;
	}
}

static size_t struct_max(const struct fetch_type *t)
{
	const struct type_desc *d = t->desc;
	size_t n = 2;	/* the braces */

	if (!d || !d->members || !d->n)
		return sizeof(OPAQUE_JSON);
	for (unsigned int i = 0; i < d->n; i++) {
		const char *name = d->members[i].name;

		/* ", " or ","; the name; "=" or ":"; the value */
		n += 2 + name_max(name && *name ? name : ANON_MEMBER) + 1 +
		     member_max(&d->members[i]);
	}
	return n;
}

size_t value__max_len(const struct fetch_type *t, size_t strmax)
{
	size_t n;

	switch (t->kind) {
	case FT_STRING:
	case FT_USTRING:
	case FT_STRN:
		n = string_max(strmax);
		break;
	case FT_CHARS:
		n = string_max(t->len < strmax ? t->len : strmax);
		break;
	case FT_ENUM:
		n = enum_max(t);
		break;
	case FT_STRUCT:
		n = struct_max(t);
		break;
	case FT_SLICE:	/* the braces, each "[i]=" and value, the count cut */
		n = t->desc && t->desc->n ? 2 + t->desc->n * (2 + name_max(t->desc->members[t->desc->n - 1].name) +
							   1 + member_max(&t->desc->members[0])) +
			sizeof("{\"value\":,\"truncated\":true,\"length\":}") + NUM_MAX :
			sizeof(OPAQUE_JSON);
		break;
	case FT_SYM:
	case FT_FD:	/* the number and the braces, then the escaped text */
		n = NUM_MAX + string_max(strmax);
		break;
	default:
		n = NUM_MAX;
		break;
	}
	return n > ERR_MAX ? n : ERR_MAX;
}

/* ---- records ------------------------------------------------------------- */

static const struct fetch_type default_type = { .kind = FT_DEFAULT, .size = 8 };

/* The name of argument I, escaped for MODE: "argN" (1-based) when it has none. */
static void arg_name(struct obuf *ob, const struct record *rec, unsigned int i,
		     enum esc_mode mode)
{
	if (rec->names && rec->names[i]) {
		ob_escape_str(ob, rec->names[i], mode);
		return;
	}
	ob_puts(ob, "arg");
	ob_u64(ob, i + 1);
}

static const struct fetch_type *arg_type(const struct record *rec, unsigned int i)
{
	return rec->types ? &rec->types[i] : &default_type;
}

static unsigned int rec_nargs(const struct record *rec)
{
	return rec->vals ? rec->nargs : 0;
}

/* One context's values: NAME=VALUE ... (text) or "NAME":VALUE,... (JSON). */
static void ctx_args(const struct record_ctx *c, struct obuf *ob, bool json)
{
	for (unsigned int i = 0; i < c->nargs; i++) {
		ob_puts(ob, json ? (i ? ",\"" : "\"") : " ");
		ob_escape_str(ob, c->names[i], json ? ESC_JSON : ESC_TEXT);
		ob_puts(ob, json ? "\":" : "=");
		value_fmt(ob, &c->types[i], &c->vals[i], json);
	}
}

/* The contexts of a syscall record: " {EVENT: NAME=VALUE ...}" each, whole or not at all. */
static bool ctx_text(const struct record *rec, struct obuf *ob)
{
	for (unsigned int k = 0; k < rec->nctx; k++) {
		size_t mark = ob->pos;

		ob_puts(ob, " {");
		ob_escape_str(ob, rec->ctx[k].event, ESC_TEXT);
		ob_puts(ob, ":");
		ctx_args(&rec->ctx[k], ob, false);
		ob_puts(ob, "}");
		if (ob->over) {
			ob_rollback(ob, mark);
			return false;
		}
	}
	return true;
}

/* Whether records of KIND have an address to show: not syscalls, forks, execs, exits. */
static bool kind_has_addr(enum rec_kind kind)
{
	return kind != REC_KIND_SYSCALL && kind != REC_KIND_FORK && kind != REC_KIND_EXEC &&
	       kind != REC_KIND_EXIT;
}

/*
 * "COMM PID/TID SEC." of the last record formatted on this thread of
 * ptap's for each of WHO_WAYS threads of the targets' (by tid): the next one
 * of a thread is most often in the same second, and its text is copied
 * rather than made again (a comm is escaped, four numbers converted).  More
 * than one: the records of threads that run together come in turn.  Per
 * thread of ptap's: the formatters are reentrant.
 */
#define WHO_COMM	32	/* longer comms are not kept */
#define WHO_WAYS	16
static __thread struct who {
	int pid, tid;
	uint64_t sec;
	char comm[WHO_COMM];
	char text[WHO_COMM * 4 + 64];	/* the comm escaped: 4 bytes a byte at most */
	size_t len;
} whos[WHO_WAYS];

static void who_write(struct obuf *ob, const struct record *rec, const char *comm, size_t n,
		      uint64_t sec)
{
	ob_escape(ob, comm, n, ESC_TEXT);
	ob_putc(ob, ' ');
	ob_s64(ob, rec->pid);
	ob_putc(ob, '/');
	ob_s64(ob, rec->tid);
	ob_putc(ob, ' ');
	ob_u64(ob, sec);
	ob_putc(ob, '.');
}

static void text_who(const struct record *rec, struct obuf *ob)
{
	struct who *who = &whos[(unsigned int)rec->tid % WHO_WAYS];
	uint64_t sec = rec->ts / 1000000000ULL;
	const char *comm = rec->comm ? rec->comm : "";
	size_t n;
	struct obuf w;

	if (!(who->len && who->pid == rec->pid && who->tid == rec->tid && who->sec == sec &&
	      !strcmp(who->comm, comm))) {
		n = strlen(comm);
		ob_init(&w, who->text, sizeof(who->text));
		who_write(&w, rec, comm, n, sec);
		who->len = n < WHO_COMM ? ob_done(&w) : 0;	/* 0: kept for none */
		if (!who->len) {
			who_write(ob, rec, comm, n, sec);
			return;
		}
		memcpy(who->comm, comm, n + 1);
		who->pid = rec->pid;
		who->tid = rec->tid;
		who->sec = sec;
	}
	ob_write(ob, who->text, who->len);
}

void ob_stack_frame(struct obuf *ob, const struct stack_frame *f, enum esc_mode mode)
{
	if (f->func) {
		ob_escape_str(ob, f->func, mode);
		if (f->inlined) {
			ob_puts(ob, " (inlined)");
		} else {
			ob_puts(ob, "+");
			ob_hex(ob, f->off);
		}
	} else {
		ob_puts(ob, "[unknown]");
	}
	if (f->file) {
		ob_putc(ob, ' ');
		ob_escape_str(ob, f->file, mode);
		ob_putc(ob, ':');
		ob_u64(ob, f->line);
	}
	if (f->module) {
		ob_puts(ob, " (");
		ob_escape_str(ob, f->module, mode);
		ob_putc(ob, ')');
	}
}

/*
 * Frames of REC into OB, each by WRITE, while they fit with ROOM bytes to
 * spare (what must follow them); those that do not are left out.  True
 * when all fit.
 */
static bool stack_frames(const struct record *rec, struct obuf *ob, size_t room,
			 void (*write)(struct obuf *, const struct stack_frame *, bool))
{
	size_t cap = ob->cap;
	bool all = true;

	if (ob->pos + room >= cap)
		return rec->nframes == 0;
	ob->cap = cap - room;
	for (unsigned int i = 0; i < rec->nframes; i++) {
		size_t mark = ob->pos;

		write(ob, &rec->frames[i], i == 0);
		if (ob->over) {
			ob_rollback(ob, mark);
			all = false;
			break;
		}
	}
	ob->cap = cap;
	return all;
}

static void frame_json(struct obuf *ob, const struct stack_frame *f, bool first)
{
	ob_json_hex(ob, first ? "{\"addr\":\"" : ",{\"addr\":\"", f->addr);
	ob_puts(ob, ",\"func\":");
	if (f->func) {
		ob_putc(ob, '"');
		ob_escape_str(ob, f->func, ESC_JSON);
		ob_putc(ob, '"');
	} else {
		ob_puts(ob, "null");
	}
	if (f->inlined) {
		ob_puts(ob, ",\"inlined\":true");
	} else if (f->func) {
		ob_puts(ob, ",\"off\":");
		ob_u64(ob, f->off);
	}
	if (f->file) {
		ob_puts(ob, ",\"file\":\"");
		ob_escape_str(ob, f->file, ESC_JSON);
		ob_puts(ob, "\",\"line\":");
		ob_u64(ob, f->line);
	}
	if (f->module) {
		ob_puts(ob, ",\"module\":\"");
		ob_escape_str(ob, f->module, ESC_JSON);
		ob_putc(ob, '"');
	}
	ob_putc(ob, '}');
}

/*
 * The stack (-g) in JSON: ,"stack":[{"addr":..,"func":..,"off":N,"file":..,
 * "line":N,"module":..},...], before "args": the frames that fit, with room
 * kept for what closes the record.  False when some did not.
 */
static bool stack_json(const struct record *rec, struct obuf *ob)
{
	bool all;

	if (!rec->frames)
		return true;
	ob_puts(ob, ",\"stack\":[");
	all = stack_frames(rec, ob, STACK_CLOSE_ROOM, frame_json);
	ob_putc(ob, ']');
	return all;
}

static void frame_text(struct obuf *ob, const struct stack_frame *f, bool first)
{
	(void)first;
	ob_puts(ob, "\n\t");
	ob_hex(ob, f->addr);
	ob_putc(ob, ' ');
	ob_stack_frame(ob, f, ESC_TEXT);
}

/* The stack (-g), a frame a line under the record's, as perf script shows one; the frames that fit. */
static bool stack_text(const struct record *rec, struct obuf *ob)
{
	return stack_frames(rec, ob, 0, frame_text);
}

static void frame_string(struct obuf *ob, const struct stack_frame *f, bool first)
{
	ob_puts(ob, first ? "\"" : ",\"");
	ob_stack_frame(ob, f, ESC_JSON);
	ob_putc(ob, '"');
}

bool record__stack_strings(const struct record *rec, struct obuf *ob)
{
	bool all;

	ob_puts(ob, ",\"stack\":[");
	all = stack_frames(rec, ob, STACK_CLOSE_ROOM, frame_string);
	ob_putc(ob, ']');
	return all;
}

/*
 * The text line without its end into OB.  True when all of it fit; else the
 * arguments that fit (none if the header did not) and false.
 */
static bool text_body(const struct record *rec, struct obuf *ob)
{
	text_who(rec, ob);
	ob_u64_pad(ob, rec->ts % 1000000000ULL, 9);
	ob_puts(ob, ": ");
	ob_escape_str(ob, rec->event, ESC_TEXT);
	ob_putc(ob, ':');
	if (kind_has_addr(rec->kind)) {
		ob_puts(ob, " (");
		ob_hex(ob, rec->addr);
		if (rec->ret_addr) {
			ob_puts(ob, " <- ");
			ob_hex(ob, rec->ret_addr);
		}
		ob_putc(ob, ')');
	}
	if (rec->has_duration) {
		ob_puts(ob, " duration=");
		ob_u64(ob, rec->duration);
		ob_puts(ob, "ns");
	}
	if (ob->over) {
		ob_rollback(ob, 0);
		return false;
	}
	for (unsigned int i = 0; i < rec_nargs(rec); i++) {
		size_t mark = ob->pos;

		ob_putc(ob, ' ');
		arg_name(ob, rec, i, ESC_TEXT);
		ob_putc(ob, '=');
		value_text(ob, arg_type(rec, i), &rec->vals[i]);
		if (ob->over) {
			ob_rollback(ob, mark);
			return false;
		}
	}
	return ctx_text(rec, ob) && stack_text(rec, ob);
}

/*
 * ---- the common record, fast ----
 *
 * text_body() checks the room at each piece it writes, a dozen a record.
 * Most records are an entry or a return whose values are numbers and whole
 * strings: record__format_text_plain() and _json_plain() write those
 * straight, checking the room once for each run of pieces of a known most
 * (PLAIN_RUN bytes: numbers and punctuation) and letting the escaper bound
 * names and strings.  It gives
 * the record to text_body() or json_body() (returns 0) at anything else, or
 * when the room may not do, and writes the same text (unit tests
 * plain_text_is_general, plain_json_is_general).
 */
#define PLAIN_RUN	(3 * PUT_NUM_MAX + 32)

/* S escaped for MODE into P, its end at most LIM (its NUL there at most); the end, or NULL when it does not fit. */
static char *put_escaped(char *p, const char *lim, const char *s, size_t n, enum esc_mode mode)
{
	size_t room, used, w;

	if (p > lim)
		return NULL;
	room = (size_t)(lim - p);
	w = escape_str(s, n, mode, p, room + 1, &used);
	return used == n ? p + w : NULL;
}

/* A NUL-terminated name: its plain start copied as scanned (escape_plain_prefix()). */
static char *put_name(char *p, const char *lim, const char *s, enum esc_mode mode)
{
	size_t n;

	if (p > lim)
		return NULL;
	n = escape_plain_prefix(s, p, (size_t)(lim - p));

	return s[n] ? put_escaped(p + n, lim, s + n, strlen(s + n), mode) : p + n;
}

/*
 * Value V of type T, plain (a number, a whole string), at P, for JSON or
 * text; NULL when it is not plain or does not fit.
 */
static char *put_plain(char *p, const char *lim, const struct fetch_type *t,
		       const struct fetch_val *v, bool json)
{
	uint64_t u = value_int(t, v);

	switch (value_class(t)) {
	case VC_SIGNED:
		return put_s64(p, (int64_t)u);
	case VC_UNSIGNED:
		return put_dec(p, u, 0, false);
	case VC_HEX:		/* a string in JSON */
		if (json)
			*p++ = '"';
		p = put_hex(p, u);
		if (json)
			*p++ = '"';
		return p;
	case VC_STRING:		/* the quotes and at least the NUL's place inside LIM */
		if (v->null || v->truncated || !v->str || lim - p < 2)
			return NULL;
		*p++ = '"';
		p = put_escaped(p, lim - 1, v->str, v->len, json ? ESC_JSON : ESC_TEXT);
		if (p)
			*p++ = '"';
		return p;
	default:
		return NULL;
	}
}

/* LIT (a string literal) at P; the end. */
#define PUT_LIT(p, lit)	(memcpy((p), (lit), sizeof(lit) - 1), (p) + sizeof(lit) - 1)

/*
 * REC's arguments, plain, after P (at most LIM): " NAME=VALUE" each in
 * text, "NAME":VALUE with commas between in JSON.  The end, or NULL when
 * one is not plain (a failed fetch too) or they do not fit.
 */
static char *put_args(char *p, const char *lim, const struct record *rec, bool json)
{
	for (unsigned int i = 0; i < rec_nargs(rec); i++) {
		if (rec->vals[i].err || p >= lim)
			return NULL;
		if (json)
			p = i ? PUT_LIT(p, ",\"") : PUT_LIT(p, "\"");
		else
			*p++ = ' ';
		if (rec->names && rec->names[i]) {
			p = put_name(p, lim, rec->names[i], json ? ESC_JSON : ESC_TEXT);
		} else {	/* argN, N of one digit without a conversion */
			p = PUT_LIT(p, "arg");
			if (i < 9)
				*p++ = (char)('1' + i);
			else
				p = put_dec(p, i + 1, 0, false);
		}
		if (!p || p >= lim)
			return NULL;
		p = json ? PUT_LIT(p, "\":") : PUT_LIT(p, "=");
		p = put_plain(p, lim, arg_type(rec, i), &rec->vals[i], json);
		if (!p || p > lim)
			return NULL;
	}
	return p;
}

/* Whether the fast writers may take REC at all: an entry or a return, no contexts, no stack. */
static bool plain_kind(const struct record *rec, size_t len)
{
	return (rec->kind == REC_KIND_ENTRY || rec->kind == REC_KIND_RETURN) && !rec->nctx &&
	       !rec->nframes && rec->event && len >= 2 * PLAIN_RUN;
}

/*
 * "EVENT: (0xADDR" of the last entry or return formatted, in one of
 * WHERE_WAYS places picked by the address, per thread of ptap's as whos[]:
 * a probe's hits share it, and it is copied rather than made again (the
 * event's name scanned for escapes, the address converted).  Kept while
 * its text, escaped, fits.
 */
#define WHERE_EVENT	48	/* longer names are not kept */
#define WHERE_WAYS	16
static __thread struct where {
	uint64_t addr;
	char event[WHERE_EVENT];
	char text[WHERE_EVENT + 4 + PUT_NUM_MAX];	/* ": (" and the address after the name */
	size_t len;
} wheres[WHERE_WAYS];

/*
 * REC's "EVENT: (0xADDR" at P, the name's end at most LIM; the end, or NULL
 * when it does not fit.
 */
static char *put_where(char *p, const char *lim, const struct record *rec)
{
	struct where *w = &wheres[(rec->addr ^ rec->addr >> 4) % WHERE_WAYS];
	size_t n;
	char *q;

	/* the room looked at as put_name() would, more strictly: the copy ends by LIM */
	if (w->len && w->addr == rec->addr && w->len <= (size_t)(lim - p) &&
	    !strcmp(w->event, rec->event)) {
		memcpy(p, w->text, w->len);
		return p + w->len;
	}
	q = put_name(p, lim, rec->event, ESC_TEXT);
	if (!q)
		return NULL;
	memcpy(q, ": (", 3);
	q = put_hex(q + 3, rec->addr);
	n = strlen(rec->event);
	w->len = 0;
	if (n < WHERE_EVENT && (size_t)(q - p) <= sizeof(w->text)) {
		memcpy(w->event, rec->event, n + 1);
		memcpy(w->text, p, (size_t)(q - p));
		w->addr = rec->addr;
		w->len = (size_t)(q - p);
	}
	return q;
}

size_t record__format_text_plain(const struct record *rec, char *buf, size_t len)
{
	const char *lim;
	struct obuf ob;
	char *p;

	if (!plain_kind(rec, len))
		return 0;
	lim = buf + len - 1 - PLAIN_RUN;	/* room kept for a run, its NUL after it */
	ob_init(&ob, buf, len - 2 * PLAIN_RUN);
	text_who(rec, &ob);
	if (ob.over)
		return 0;
	p = put_dec9(buf + ob.pos, rec->ts);
	*p++ = ':';
	*p++ = ' ';
	p = put_where(p, lim, rec);
	if (!p)
		return 0;
	if (rec->ret_addr) {
		memcpy(p, " <- ", 4);
		p = put_hex(p + 4, rec->ret_addr);
	}
	*p++ = ')';
	if (rec->has_duration) {
		memcpy(p, " duration=", 10);
		p = put_dec(p + 10, rec->duration, 0, false);
		memcpy(p, "ns", 2);
		p += 2;
	}
	p = put_args(p, lim, rec, false);
	if (!p)
		return 0;
	*p++ = '\n';
	*p = '\0';
	return (size_t)(p - buf);
}

size_t record__format_text_general(const struct record *rec, char *buf, size_t len)
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

size_t record__format_text(const struct record *rec, char *buf, size_t len)
{
	size_t n = record__format_text_plain(rec, buf, len);

	return n ? n : record__format_text_general(rec, buf, len);
}

/*
 * The contexts after the arguments: },"context":{"EVENT":{...},...  -- the
 * caller's closing "}}" ends it.  All of them or none.
 */
static bool ctx_json(const struct record *rec, struct obuf *ob)
{
	size_t mark = ob->pos;

	if (!rec->nctx)
		return true;
	ob_puts(ob, "},\"context\":{");
	for (unsigned int k = 0; k < rec->nctx; k++) {
		ob_puts(ob, k ? ",\"" : "\"");
		ob_escape_str(ob, rec->ctx[k].event, ESC_JSON);
		ob_puts(ob, "\":{");
		ctx_args(&rec->ctx[k], ob, true);
		ob_puts(ob, "}");
	}
	if (ob->over) {
		ob_rollback(ob, mark);
		return false;
	}
	return true;
}

/* As text_body(), for JSON: everything up to the closing "}}". */
static bool json_body(const struct record *rec, struct obuf *ob)
{
	bool stack_all;

	ob_puts(ob, "{\"ts\":");
	ob_u64(ob, rec->ts);
	ob_puts(ob, ",\"pid\":");
	ob_s64(ob, rec->pid);
	ob_puts(ob, ",\"tid\":");
	ob_s64(ob, rec->tid);
	ob_puts(ob, ",\"comm\":\"");
	ob_escape_str(ob, rec->comm, ESC_JSON);
	ob_puts(ob, "\",\"event\":\"");
	ob_escape_str(ob, rec->event, ESC_JSON);
	ob_puts(ob, "\",\"kind\":\"");
	ob_puts(ob, rec_kind__name(rec->kind));
	ob_putc(ob, '"');
	if (kind_has_addr(rec->kind))
		ob_json_hex(ob, ",\"addr\":\"", rec->addr);
	if (rec->ret_addr)
		ob_json_hex(ob, ",\"ret_addr\":\"", rec->ret_addr);
	if (rec->has_duration) {
		ob_puts(ob, ",\"duration_ns\":");
		ob_u64(ob, rec->duration);
	}
	stack_all = stack_json(rec, ob);
	ob_puts(ob, ",\"args\":{");
	if (ob->over) {
		ob_rollback(ob, 0);
		return false;
	}
	if (!stack_all)		/* a stack cut: no argument after it */
		return false;
	for (unsigned int i = 0; i < rec_nargs(rec); i++) {
		size_t mark = ob->pos;

		ob_puts(ob, i ? ",\"" : "\"");
		arg_name(ob, rec, i, ESC_JSON);
		ob_puts(ob, "\":");
		value_json(ob, arg_type(rec, i), &rec->vals[i]);
		if (ob->over) {
			ob_rollback(ob, mark);
			return false;
		}
	}
	return ctx_json(rec, ob);
}

size_t record__format_json_plain(const struct record *rec, char *buf, size_t len)
{
	const char *lim = buf + len - 1 - PLAIN_RUN;	/* room kept for a run, its NUL after it */
	char *p = buf;

	if (!plain_kind(rec, len))
		return 0;
	p = PUT_LIT(p, "{\"ts\":");
	p = put_dec(p, rec->ts, 0, false);
	p = PUT_LIT(p, ",\"pid\":");
	p = put_s64(p, rec->pid);
	p = PUT_LIT(p, ",\"tid\":");
	p = put_s64(p, rec->tid);
	p = PUT_LIT(p, ",\"comm\":\"");
	if (rec->comm && !(p = put_name(p, lim, rec->comm, ESC_JSON)))
		return 0;
	p = PUT_LIT(p, "\",\"event\":\"");
	if (!(p = put_name(p, lim, rec->event, ESC_JSON)))
		return 0;
	p = PUT_LIT(p, "\",\"kind\":\"");
	p = rec->kind == REC_KIND_ENTRY ? PUT_LIT(p, "entry\"") : PUT_LIT(p, "return\"");
	p = put_hex(PUT_LIT(p, ",\"addr\":\""), rec->addr);
	*p++ = '"';
	if (p > lim)
		return 0;
	if (rec->ret_addr) {
		p = put_hex(PUT_LIT(p, ",\"ret_addr\":\""), rec->ret_addr);
		*p++ = '"';
	}
	if (rec->has_duration)
		p = put_dec(PUT_LIT(p, ",\"duration_ns\":"), rec->duration, 0, false);
	p = PUT_LIT(p, ",\"args\":{");
	p = put_args(p, lim, rec, true);
	if (!p)
		return 0;
	p = PUT_LIT(p, JSON_END);
	*p = '\0';
	return (size_t)(p - buf);
}

size_t record__format_json_general(const struct record *rec, char *buf, size_t len)
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

size_t record__format_json(const struct record *rec, char *buf, size_t len)
{
	size_t n = record__format_json_plain(rec, buf, len);

	return n ? n : record__format_json_general(rec, buf, len);
}

/* The clock line: BEFORE, CLOCK escaped for MODE, AFTER. */
static size_t header(const char *clock, char *buf, size_t len, const char *before,
		     enum esc_mode mode, const char *after)
{
	struct obuf ob;

	ob_init(&ob, buf, len);
	ob_puts(&ob, before);
	ob_escape_str(&ob, clock, mode);
	ob_puts(&ob, after);
	return ob_done(&ob);
}

size_t record__format_header_text(const char *clock, char *buf, size_t len)
{
	return header(clock, buf, len, "# ptap clock=", ESC_TEXT, "\n");
}

size_t record__format_header_json(const char *clock, char *buf, size_t len)
{
	return header(clock, buf, len, "{\"kind\":\"clock\",\"clock\":\"", ESC_JSON, "\"}\n");
}
