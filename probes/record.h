/* probes/record.h: one timestamped record and its text and JSON renderings.
 * Pure: formats into caller buffers, never allocates, never prints. */
#ifndef PTAP_PROBES_RECORD_H
#define PTAP_PROBES_RECORD_H

#include <stddef.h>
#include <stdint.h>

#include "probes/fetch.h"

enum rec_kind {
	REC_KIND_ENTRY,
	REC_KIND_RETURN,
	REC_KIND_SYSCALL,
	REC_KIND_MMAP,
	REC_KIND_FORK,
	REC_KIND_EXEC,
	REC_KIND_EXIT,
};

const char *rec_kind__name(enum rec_kind kind);	/* "entry", "return", ... */

struct record {
	uint64_t ts;			/* ns, of the session's clock */
	int pid, tid;
	const char *comm;
	const char *event;
	enum rec_kind kind;
	uint64_t addr;			/* runtime address of the probe site */
	unsigned int nargs;
	const char *const *names;	/* NARGS argument names */
	const struct fetch_type *types;	/* NARGS types */
	const struct fetch_val *vals;	/* NARGS values */
};

/*
 * Render REC into BUF (LEN bytes), newline-terminated and NUL-terminated.
 * Returns the length written; a record that does not fit is cut at a value
 * boundary and ends with " ...(truncated)" (text) or still is valid JSON with
 * "truncated":true -- never silently shortened.
 *
 * Text (perf-script-like):
 *   COMM PID/TID SEC.NSEC: EVENT: (0xADDR) NAME=VALUE ...
 * JSON (one object per line, stable key order):
 *   {"ts":N,"pid":N,"tid":N,"comm":"..","event":"..","kind":"entry",
 *    "addr":"0x..","args":{"NAME":VALUE,...}}
 * a failed fetch is NAME=(error: MSG) in text and {"error":"MSG"} in JSON.
 */
size_t record__format_text(const struct record *rec, char *buf, size_t len);
size_t record__format_json(const struct record *rec, char *buf, size_t len);

/*
 * Format one value: integers by type (sN decimal, uN decimal, xN/default
 * 0x-hex, truncated to the type size and sign-extended for sN), strings
 * quoted and escaped (text: C escapes; JSON: JSON escapes, invalid UTF-8 as
 * \u00XX of each byte... see escape.h), truncated strings followed by "..."
 * (text) / as "truncated" in JSON.  Returns the length written (NUL-terminated).
 */
size_t value__format_text(const struct fetch_type *t, const struct fetch_val *v, char *buf,
			  size_t len);
size_t value__format_json(const struct fetch_type *t, const struct fetch_val *v, char *buf,
			  size_t len);

#endif
