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

void ob_write(struct obuf *ob, const char *s, size_t n)
{
	if (ob->over || n > ob->cap - 1 - ob->pos) {
		ob->over = true;
		return;
	}
	memcpy(ob->buf + ob->pos, s, n);
	ob->pos += n;
	ob->buf[ob->pos] = '\0';
}

void ob_puts(struct obuf *ob, const char *s)
{
	ob_write(ob, s, strlen(s));
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
	if (s)
		ob_escape(ob, s, strlen(s), mode);
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
