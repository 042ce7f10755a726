/* probes/err.c: struct ptap_err. */
#include <stdarg.h>
#include <stdio.h>

#include "probes/err.h"

int ptap_err_set(struct ptap_err *err, int pos, int code, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return code;
	err->pos = pos;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return code;
}
