/* probes/err.h: an error with a position, filled by the pure layers and
 * rendered by tracer/ (a caret under the column).  Pure: no printing. */
#ifndef PTAP_PROBES_ERR_H
#define PTAP_PROBES_ERR_H

struct ptap_err {
	int pos;		/* byte offset into the input, or -1 */
	char msg[512];
};

/* Fill ERR (may be NULL) with POS and a printf message; returns CODE (a -errno). */
int ptap_err_set(struct ptap_err *err, int pos, int code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif
