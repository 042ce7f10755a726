/* probes/log.h: leveled logging through a replaceable sink (so tests can
 * capture it).  The only global is the sink and the level. */
#ifndef PTAP_PROBES_LOG_H
#define PTAP_PROBES_LOG_H

#include <stdarg.h>

/*
 * LOG_NOTICE: what a run of `ptap record` says by default (the probes
 * resolved, the summary at the end; -q: record does not say them); the other
 * commands stay at LOG_WARN.
 */
enum log_level { LOG_ERR, LOG_WARN, LOG_NOTICE, LOG_INFO, LOG_DEBUG, LOG_DEBUG2 };

typedef void (*log_sink_fn)(enum log_level lvl, const char *fmt, va_list ap);

void log_set_level(enum log_level lvl);
enum log_level log_get_level(void);
/* One -v more: the next level, up to LOG_DEBUG2. */
void log_more_verbose(void);
log_sink_fn log_set_sink(log_sink_fn fn);	/* NULL restores stderr; returns the old one */
void log_msg(enum log_level lvl, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define pr_err(...)	log_msg(LOG_ERR, __VA_ARGS__)
#define pr_warn(...)	log_msg(LOG_WARN, __VA_ARGS__)
#define pr_notice(...)	log_msg(LOG_NOTICE, __VA_ARGS__)
#define pr_info(...)	log_msg(LOG_INFO, __VA_ARGS__)
#define pr_debug(...)	log_msg(LOG_DEBUG, __VA_ARGS__)
#define pr_debug2(...)	log_msg(LOG_DEBUG2, __VA_ARGS__)

#endif
