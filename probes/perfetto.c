/* probes/perfetto.c: records as Chrome trace-event JSON objects, for ui.perfetto.dev.
 * Pure: formats into caller buffers; never allocates, never prints. */
#include <stdio.h>
#include <string.h>

#include "probes/escape.h"
#include "probes/obuf.h"
#include "probes/perfetto.h"
#include "probes/record.h"

#define RETURN_SUFFIX	"__return"
#define CUT		",\"truncated\":true}}"

/* "S[0..N)", escaped for JSON; all of it or nothing. */
static void pb_string(struct obuf *pb, const char *s, size_t n)
{
	ob_puts(pb, "\"");
	ob_escape(pb, s ? s : "", s ? n : 0, ESC_JSON);
	ob_puts(pb, "\"");
}

static void pb_cstring(struct obuf *pb, const char *s)
{
	pb_string(pb, s, s ? strlen(s) : 0);
}

/* A value, typed as record__format_json() types it. */
static void pb_value(struct obuf *pb, const struct fetch_type *t, const struct fetch_val *v)
{
	size_t n;

	if (pb->over)
		return;
	n = value__format_json(t, v, pb->buf + pb->pos, pb->cap - pb->pos);
	if (!n) {	/* a JSON value is never empty: it did not fit */
		pb->buf[pb->pos] = '\0';
		pb->over = true;
		return;
	}
	pb->pos += n;
}

/* Nanoseconds as microseconds with 3 decimals: 602603598993 -> 602603598.993. */
static void pb_us(struct obuf *pb, uint64_t ns)
{
	ob_u64(pb, ns / 1000);
	ob_putc(pb, '.');
	ob_u64_pad(pb, ns % 1000, 3);
}

/* ---- events -------------------------------------------------------------- */

bool perfetto__is_slice(const struct record *rec)
{
	return rec->has_duration;
}

uint64_t perfetto__start(const struct record *rec)
{
	if (!perfetto__is_slice(rec) || rec->kind == REC_KIND_SYSCALL)
		return rec->ts;		/* a syscall's TS is its entry */
	return rec->duration < rec->ts ? rec->ts - rec->duration : 0;
}

static const char *category(enum rec_kind kind)
{
	switch (kind) {
	case REC_KIND_ENTRY:
	case REC_KIND_RETURN:
		return "probe";
	case REC_KIND_SYSCALL:
		return "syscall";
	case REC_KIND_MMAP:
		return "mmap";
	default:	/* fork, exec, exit */
		return "task";
	}
}

/* A slice is named after its function: EVENT without a trailing "__return". */
static size_t name_len(const struct record *rec)
{
	size_t n = rec->event ? strlen(rec->event) : 0, sn = strlen(RETURN_SUFFIX);

	if (perfetto__is_slice(rec) && n > sn && !strcmp(rec->event + n - sn, RETURN_SUFFIX))
		return n - sn;
	return n;
}

/* The keys ptap writes in "args" itself; an argument of the same name is renamed. */
static bool reserved_key(const char *name)
{
	switch (name[0]) {	/* most names start otherwise: no strcmp */
	case 't':
		return !strcmp(name, "ts_ns");
	case 'd':
		return !strcmp(name, "dur_ns");
	case 'a':
		return !strcmp(name, "addr");
	case 'r':
		return !strcmp(name, "ret_addr");
	}
	return false;
}

static const struct fetch_type default_type = { .kind = FT_DEFAULT, .size = 8 };

/* Argument I of REC as "NAME":VALUE (with a leading ',' when it is not the first key). */
static void arg(struct obuf *pb, const struct record *rec, unsigned int i)
{
	const char *name = rec->names ? rec->names[i] : NULL;

	if (!name) {
		ob_puts(pb, ",\"arg");
		ob_u64(pb, i + 1);
		ob_puts(pb, "\":");
	} else {
		/* "arg:NAME": NAME is one of reserved_key()'s, nothing to escape in it */
		ob_puts(pb, reserved_key(name) ? ",\"arg:" : ",\"");
		ob_escape_str(pb, name, ESC_JSON);
		ob_puts(pb, "\":");
	}
	pb_value(pb, rec->types ? &rec->types[i] : &default_type, &rec->vals[i]);
}

/*
 * A context value's key, "EVENT.NAME", with the ',' before it.  A key of
 * more than 159 bytes is cut there before it is escaped, as it always was.
 * Escaping EVENT and NAME apart is escaping the whole: no UTF-8 sequence
 * spans the '.' between them.
 */
static void ctx_key(struct obuf *pb, const char *event, const char *name)
{
	char key[160];

	if (event && name && strlen(event) + 1 + strlen(name) < sizeof(key)) {
		ob_puts(pb, ",\"");
		ob_escape_str(pb, event, ESC_JSON);
		ob_putc(pb, '.');
		ob_escape_str(pb, name, ESC_JSON);
		ob_putc(pb, '"');
		return;
	}
	snprintf(key, sizeof(key), "%s.%s", event, name);
	ob_putc(pb, ',');
	pb_cstring(pb, key);
}

/* A syscall's contexts, as arguments "EVENT.NAME":VALUE; all or none. */
static bool ctx_args(struct obuf *pb, const struct record *rec)
{
	size_t mark = pb->pos;

	for (unsigned int k = 0; k < rec->nctx; k++) {
		const struct record_ctx *c = &rec->ctx[k];

		for (unsigned int i = 0; i < c->nargs; i++) {
			ctx_key(pb, c->event, c->names[i]);
			ob_putc(pb, ':');
			pb_value(pb, &c->types[i], &c->vals[i]);
		}
	}
	if (pb->over) {
		ob_rollback(pb, mark);
		return false;
	}
	return true;
}

/* Everything up to the arguments' closing "}}": the header, ptap's keys, then
 * the arguments that fit.  True when all of it fit. */
static bool event_body(const struct record *rec, struct obuf *pb)
{
	bool slice = perfetto__is_slice(rec);
	uint64_t start = perfetto__start(rec);
	unsigned int nargs = rec->vals ? rec->nargs : 0;

	ob_puts(pb, slice ? "{\"ph\":\"X\",\"name\":" : "{\"ph\":\"i\",\"s\":\"t\",\"name\":");
	pb_string(pb, rec->event, name_len(rec));
	ob_puts(pb, ",\"cat\":\"");
	ob_puts(pb, category(rec->kind));
	ob_puts(pb, "\",\"pid\":");
	ob_s64(pb, rec->pid);
	ob_puts(pb, ",\"tid\":");
	ob_s64(pb, rec->tid);
	ob_puts(pb, ",\"ts\":");
	pb_us(pb, start);
	if (slice) {
		ob_puts(pb, ",\"dur\":");
		pb_us(pb, rec->duration);
	}
	ob_puts(pb, ",\"args\":{\"ts_ns\":");
	ob_u64(pb, start);
	if (slice) {
		ob_puts(pb, ",\"dur_ns\":");
		ob_u64(pb, rec->duration);
	}
	if (rec->addr)
		ob_json_hex(pb, ",\"addr\":\"", rec->addr);
	if (rec->ret_addr)
		ob_json_hex(pb, ",\"ret_addr\":\"", rec->ret_addr);
	/* -g: the slice's stack, deepest first, a string a frame; cut: no argument after it */
	if (rec->frames && !record__stack_strings(rec, pb) && !pb->over)
		return false;
	if (pb->over)
		return false;
	for (unsigned int i = 0; i < nargs; i++) {
		size_t mark = pb->pos;

		arg(pb, rec, i);
		if (pb->over) {
			ob_rollback(pb, mark);
			return false;
		}
	}
	return ctx_args(pb, rec);
}

size_t perfetto__format_event(const struct record *rec, char *buf, size_t len)
{
	struct obuf pb;

	if (len < sizeof(CUT))
		goto none;
	ob_init(&pb, buf, len - 2);	/* room for the "}}" */
	if (event_body(rec, &pb)) {
		pb.cap = len;
		ob_puts(&pb, "}}");
		return pb.pos;
	}
	ob_init(&pb, buf, len - (sizeof(CUT) - 1));
	event_body(rec, &pb);		/* fails again, with less room */
	if (!pb.over) {			/* the header fit: the arguments that fit, then the cut */
		pb.cap = len;
		ob_puts(&pb, CUT);
		return pb.pos;
	}
none:
	if (len)
		buf[0] = '\0';
	return 0;
}

/* ---- metadata ------------------------------------------------------------ */

size_t perfetto__format_process_name(int pid, const char *comm, char *buf, size_t len)
{
	struct obuf pb;

	ob_init(&pb, buf, len);
	ob_puts(&pb, "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":");
	ob_s64(&pb, pid);
	ob_puts(&pb, ",\"args\":{\"name\":");
	pb_cstring(&pb, comm);
	ob_puts(&pb, "}}");
	return ob_done(&pb);
}

size_t perfetto__format_thread_name(int pid, int tid, const char *comm, char *buf, size_t len)
{
	struct obuf pb;

	ob_init(&pb, buf, len);
	ob_puts(&pb, "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":");
	ob_s64(&pb, pid);
	ob_puts(&pb, ",\"tid\":");
	ob_s64(&pb, tid);
	ob_puts(&pb, ",\"args\":{\"name\":");
	pb_cstring(&pb, comm);
	if (!pb.over) {		/* "COMM/TID": the closing quote moves after the tid */
		ob_rollback(&pb, pb.pos - 1);
		ob_putc(&pb, '/');
		ob_s64(&pb, tid);
		ob_putc(&pb, '"');
	}
	ob_puts(&pb, "}}");
	return ob_done(&pb);
}
