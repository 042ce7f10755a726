/* probes/report.h: statistics over ptap's JSON-lines records, for `ptap
 * report`: per event, its count and rate, the most frequent values of each
 * argument, and the distribution of durations; or (`--by-context`) the
 * system calls made under each context, with their errors, bytes and time.
 * Pure: accumulates parsed records (probes/json.h) and renders into a FILE *
 * it is given. */
#ifndef PTAP_PROBES_REPORT_H
#define PTAP_PROBES_REPORT_H

#include <stdint.h>
#include <stdio.h>

struct json_val;		/* probes/json.h */

/* Values listed per argument, most frequent first (ties: the first seen first). */
#define REPORT_TOP	10
/* Calls listed per event by each of read_bytes, write_bytes and cpu_ns, most first. */
#define REPORT_TOP_CALLS	5
/* Stacks (record -g) listed per event, most frequent first. */
#define REPORT_TOP_STACKS	5
/* Width of the histogram bars, in '@', for the biggest bucket. */
#define REPORT_BAR	40
/* Columns of a context value (or a syscall name) shown in text before it is cut with "...". */
#define REPORT_CUT	48

struct report;

/* 0 or -ENOMEM; report__free() accepts NULL. */
int report__new(struct report **out);
void report__free(struct report *rep);

enum report_mode {
	REPORT_EVENTS,		/* per event (the default) */
	REPORT_BY_CONTEXT,	/* per context, the syscalls made under it (--by-context) */
};

/* What REP accounts and renders; set before the first report__add(). */
void report__set_mode(struct report *rep, enum report_mode mode);

/* Distinct values kept per argument, and durations kept per event, with report__set_bounded(). */
#define REPORT_KEEP_VALUES	4096
#define REPORT_KEEP_DURATIONS	65536

/*
 * Bounded memory, for a stream of any length (`record --summary`), set
 * before the first report__add(): an argument's values past its first
 * REPORT_KEEP_VALUES distinct ones are counted, not kept (text: "N distinct
 * values kept (then M records of values not kept)", JSON "not_kept": M),
 * and an event's durations beyond REPORT_KEEP_DURATIONS are kept as a
 * uniform sample of that many (reservoir sampling) for the percentiles;
 * the count, min, max, mean and histogram stay exact.  REPORT_EVENTS only.
 */
void report__set_bounded(struct report *rep);

/*
 * Account one record: REC is one line of `ptap record --format json`
 * (probes/record.h, record__format_json).  Keys read: "ts" (ns, the span of
 * the file), "event" (the group; a record without it, such as the
 * {"truncated":true} of a record cut before its header, is only counted as
 * "without an event"), "kind", "args" (each member's value is counted as its
 * compact JSON text, json_format(): strings quoted, errors {"error":".."}
 * and cut strings {"value":"..","truncated":true} as values of their own,
 * structs as one object), "duration_ns" (a non-negative integer), and
 * "truncated".  Other keys and values of unexpected types are ignored;
 * so is "context": a syscall record (kind "syscall") is an event like any
 * other here, named after its call, with its arguments ("fd" objects, "ret")
 * and its duration.
 * The stream's header line {"kind":"clock","clock":"monotonic"}
 * (record__format_header_json) is not a record: its clock is remembered and
 * shown, nothing else is counted (one clock per file is expected; several
 * are all shown, as a file concatenated from others would have).
 *
 * REPORT_BY_CONTEXT accounts the records of kind "syscall" with an
 * "event" (the call's name), and the return records with record
 * --account's nine counters in their args: each in the group of the
 * context {"EVENT":{ARGS}} (EVENT its event without "__return", ARGS its
 * args without the counters), the counters summed there; otherwise grouped by their whole "context" object (its
 * compact JSON text: two contexts on one record make one group), records
 * without a (non-empty object) "context" in a group of their own.  Per group
 * and call: the calls; the errors ("ret" a string starting with '-', such as
 * "-ENOENT", or a negative integer: an errno without a name); the bytes (the
 * sum of the non-negative integer "ret"s of the calls that move bytes: read
 * write pread64 pwrite64 readv writev preadv pwritev preadv2 pwritev2 sendto
 * recvfrom sendmsg recvmsg sendfile copy_file_range splice tee); the time
 * (the sum of the "duration_ns"s; a call without one -- it did not return --
 * adds none).  A call without "ret" is neither an error nor bytes.  Sums
 * stop at 2^64 - 1.  Records marked "truncated" are counted as they are
 * (one cut before its "context" is in the group without one).
 *
 * Returns 0; -EINVAL when REC is not a JSON object; -ENOMEM.
 */
int report__add(struct report *rep, const struct json_val *rec);

/* The number of records accounted so far. */
uint64_t report__records(const struct report *rep);

/*
 * Render the summary, events in the order they first appeared.  Text, for
 * a terminal:
 *
 *   N records of M events over S.NNNNNNNNN s          ("over n/a": no ts)
 *   [K records without an event name]
 *
 *   EVENT: N records, R/s (KIND N, ...)[, T truncated]    ("n/a": a span of 0)
 *     ARG: D distinct values[ in N of M records]
 *       COUNT  VALUE                                (the top REPORT_TOP)
 *       ... D more values in N records
 *     duration: N records
 *       [LO, HI)  COUNT |@@@@   |     (log2 buckets of ns, bpftrace's hist())
 *       p50 X  p90 X  p99 X  min X  max X  mean X
 *     cost (--account), the sums of N calls[ (M more whose counters are not known)]:
 *       read_bytes N, write_bytes N, ...    (records with record --account's nine
 *                                            counters among their args; not known:
 *                                            one is an error)
 *       most read_bytes:                    (and write_bytes, cpu_ns: the
 *         VALUE  NAME=VALUE ...              REPORT_TOP_CALLS calls of most, by
 *                                            their other arguments)
 *     stacks: D distinct                    (records with a "stack": record -g)
 *       COUNT records                       (the top REPORT_TOP_STACKS)
 *         FUNC+0xOFF                        (a frame a line, deepest first;
 *         FUNC (inlined)                     [unknown] when not known)
 *       ... D more
 *
 * Durations are shown as 3 significant digits of ns, us, ms or s; buckets
 * run from the lowest to the highest non-empty one, [0, 1) then
 * [2^(k-1), 2^k); a bar is COUNT * REPORT_BAR / the biggest count, at least
 * one '@' for a non-empty bucket.  Percentiles are nearest-rank over the
 * exact durations.  The JSON document is described in report.c.
 * A clock line in the file adds "clock: NAME" (several: "clock: A, B
 * (mixed)") as the second line.
 *
 * REPORT_BY_CONTEXT, text: contexts in the order of their first syscall
 * record, then "(no context)" when some had none; in each, the calls in the
 * order first seen (so a context reads in the order it made them, and the
 * rows of one workload do not move between runs), then their total:
 *
 *   N syscall records of M records, in K contexts[, J without a context][, T truncated]
 *   [clock: monotonic]
 *
 *   EVENT NAME=VALUE ...[, EVENT NAME=VALUE ...]      (or "(no context)")
 *     syscall   calls  errors  bytes    time
 *     pwrite64      2       1     76  10.8us
 *     fsync         1       0      -  1.20ms      ("-": no bytes moved by that call,
 *     total         3       1     76  1.21ms       or no time known)
 *
 * A string VALUE is quoted and escaped (ESC_TEXT), other values are their
 * compact JSON; either is cut after REPORT_CUT columns (a character or an
 * escape is never split) and then ends in "..." (a string: "abc"...), as is
 * a longer syscall name.  Columns are aligned over the whole report; times
 * are shown as durations are.  The JSON document is described in report.c;
 * it holds each "context" object whole, never cut.
 *
 * All of them sort what they show (REP is not otherwise changed) and may be
 * called more than once.  0, -ENOMEM, or -EIO when F reports a write error.
 */
int report__write_text(struct report *rep, FILE *f);
int report__write_json(struct report *rep, FILE *f);

#endif
