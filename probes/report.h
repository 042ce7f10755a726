/* probes/report.h: statistics over ptap's JSON-lines records, for `ptap
 * report`: per event, its count and rate, the most frequent values of each
 * argument, and the distribution of durations.  Pure: accumulates parsed
 * records (probes/json.h) and renders into a FILE * it is given. */
#ifndef PTAP_PROBES_REPORT_H
#define PTAP_PROBES_REPORT_H

#include <stdint.h>
#include <stdio.h>

struct json_val;		/* probes/json.h */

/* Values listed per argument, most frequent first (ties: the first seen first). */
#define REPORT_TOP	10
/* Width of the histogram bars, in '@', for the biggest bucket. */
#define REPORT_BAR	40

struct report;

/* 0 or -ENOMEM; report__free() accepts NULL. */
int report__new(struct report **out);
void report__free(struct report *rep);

/*
 * Account one record: REC is one line of `ptap record --format json`
 * (probes/record.h, record__format_json).  Keys read: "ts" (ns, the span of
 * the file), "event" (the group; a record without it, such as the
 * {"truncated":true} of a record cut before its header, is only counted as
 * "without an event"), "kind", "args" (each member's value is counted as its
 * compact JSON text, json_format(): strings quoted, errors {"error":".."}
 * and cut strings {"value":"..","truncated":true} as values of their own,
 * structs as one object), "duration_ns" (a non-negative integer), and
 * "truncated".  Other keys and values of unexpected types are ignored.
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
 *
 * Durations are shown as 3 significant digits of ns, us, ms or s; buckets
 * run from the lowest to the highest non-empty one, [0, 1) then
 * [2^(k-1), 2^k); a bar is COUNT * REPORT_BAR / the biggest count, at least
 * one '@' for a non-empty bucket.  Percentiles are nearest-rank over the
 * exact durations.  The JSON document is described in report.c.
 * Both sort what they show (REP is not otherwise changed) and may be called
 * more than once.  0, -ENOMEM, or -EIO when F reports a write error.
 */
int report__write_text(struct report *rep, FILE *f);
int report__write_json(struct report *rep, FILE *f);

#endif
