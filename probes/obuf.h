/* probes/obuf.h: an output buffer that refuses what does not fit -- a piece
 * is written whole or not at all, and nothing after a refusal -- for the
 * record formatters (record.c, perfetto.c).  Pure; never allocates. */
#ifndef PTAP_PROBES_OBUF_H
#define PTAP_PROBES_OBUF_H

#include <stdbool.h>
#include <stddef.h>

#include "probes/escape.h"

struct obuf {
	char *buf;
	size_t cap;		/* usable bytes, the NUL included */
	size_t pos;		/* BUF[POS] is always the NUL */
	bool over;		/* a piece did not fit; nothing is written after it */
};

/* Write into BUF (CAP bytes, the NUL included; 0: everything is refused). */
void ob_init(struct obuf *ob, char *buf, size_t cap);
void ob_write(struct obuf *ob, const char *s, size_t n);
void ob_puts(struct obuf *ob, const char *s);
/* Short pieces only (numbers, fixed text): at most 127 bytes. */
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
