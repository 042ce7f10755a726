/* probes/obuf.h: an output buffer that refuses what does not fit -- a piece
 * is written whole or not at all, and nothing after a refusal -- for the
 * record formatters (record.c, perfetto.c).  Pure; never allocates. */
#ifndef PTAP_PROBES_OBUF_H
#define PTAP_PROBES_OBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "probes/escape.h"

struct obuf {
	char *buf;
	size_t cap;		/* usable bytes, the NUL included */
	size_t pos;		/* BUF[POS] is always the NUL */
	bool over;		/* a piece did not fit; nothing is written after it */
};

/* Write into BUF (CAP bytes, the NUL included; 0: everything is refused). */
void ob_init(struct obuf *ob, char *buf, size_t cap);

/* Inline: the record formatters write many short pieces, most of them literals. */
static inline void ob_write(struct obuf *ob, const char *s, size_t n)
{
	if (ob->over || n > ob->cap - 1 - ob->pos) {
		ob->over = true;
		return;
	}
	memcpy(ob->buf + ob->pos, s, n);
	ob->pos += n;
	ob->buf[ob->pos] = '\0';
}

static inline void ob_puts(struct obuf *ob, const char *s)
{
	ob_write(ob, s, strlen(s));
}

static inline void ob_putc(struct obuf *ob, char c)
{
	ob_write(ob, &c, 1);
}

/*
 * Numbers, without printf (the hit path formats several per record), each
 * written whole or refused:
 *   ob_u64      as "%llu"          ob_s64  as "%lld"
 *   ob_u64_pad  as "%0*llu" with WIDTH (at most 20; more is taken as 20)
 *   ob_hex      as "0x%llx" (so 0 is "0x0", unlike "%#llx")
 */
void ob_u64(struct obuf *ob, uint64_t v);
void ob_s64(struct obuf *ob, int64_t v);
void ob_u64_pad(struct obuf *ob, uint64_t v, unsigned int width);
void ob_hex(struct obuf *ob, uint64_t v);
/* KEY (the JSON text before the value, ",\"addr\":\"") then V as ob_hex() and the closing quote */
void ob_json_hex(struct obuf *ob, const char *key, uint64_t v);
/*
 * The numbers as ob_u64_pad() (put_dec: "-" first when NEG), ob_s64() and ob_hex()
 * write them, at P, with no check of room: PUT_NUM_MAX bytes at most, no
 * NUL.  Returns the end.  For a writer that has made sure of its room once
 * for several pieces.
 */
#define PUT_NUM_MAX	21
char *put_dec(char *p, uint64_t v, unsigned int width, bool neg);
char *put_s64(char *p, int64_t v);
char *put_hex(char *p, uint64_t v);
/* V mod 10^9 in 9 digits, zeros first (a time's nanoseconds), as put_dec(P, V, 9, false) would */
char *put_dec9(char *p, uint64_t v);
/* Short pieces only (numbers, fixed text): at most 127 bytes.  Not for the hit path. */
void ob_printf(struct obuf *ob, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* S[0..N) escaped for MODE; all of it or nothing. */
void ob_escape(struct obuf *ob, const char *s, size_t n, enum esc_mode mode);
/* A C string escaped (NULL writes nothing). */
void ob_escape_str(struct obuf *ob, const char *s, enum esc_mode mode);
/* The length written, or 0 with the buffer emptied when a piece was refused. */
size_t ob_done(struct obuf *ob);
/* Undo everything after MARK (an earlier ob->pos) and clear the refusal. */
void ob_rollback(struct obuf *ob, size_t mark);

#endif
