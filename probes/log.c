/* probes/log.c: the log sink.  Messages go to stderr prefixed "ptap: ". */
#include <errno.h>
#include <stdio.h>

#include "probes/log.h"

static enum log_level log_level = LOG_WARN;

static void log_stderr(enum log_level lvl, const char *fmt, va_list ap)
{
	(void)lvl;
	fputs("ptap: ", stderr);
	vfprintf(stderr, fmt, ap);
}

static log_sink_fn log_sink = log_stderr;

void log_set_level(enum log_level lvl)
{
	log_level = lvl;
}

enum log_level log_get_level(void)
{
	return log_level;
}

void log_more_verbose(void)
{
	if (log_level < LOG_INFO)
		log_level = LOG_INFO;	/* -v: from the default, WARN or NOTICE, to INFO */
	else if (log_level < LOG_DEBUG2)
		log_level++;
}

log_sink_fn log_set_sink(log_sink_fn fn)
{
	log_sink_fn old = log_sink;

	log_sink = fn ? fn : log_stderr;
	return old;
}

void log_msg(enum log_level lvl, const char *fmt, ...)
{
	int saved_errno = errno;
	va_list ap;

	if (lvl > log_level)
		return;
	va_start(ap, fmt);
	log_sink(lvl, fmt, ap);
	va_end(ap);
	errno = saved_errno;
}
