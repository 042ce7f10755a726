/* probes/perfetto.h: records as Chrome trace-event JSON objects (what ui.perfetto.dev and
 * chrome://tracing open).  Pure: formats into caller buffers, never allocates, never prints. */
#ifndef PTAP_PROBES_PERFETTO_H
#define PTAP_PROBES_PERFETTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct record;

/*
 * A record with HAS_DURATION (a return, a syscall) is a slice, a
 * complete event; every other record (entries, a return without a duration,
 * fork/exec/exit) is an instant on its thread's track:
 *
 *   {"ph":"X","name":"exec_query","cat":"probe","pid":N,"tid":N,"ts":US.NNN,
 *    "dur":US.NNN,"args":{"ts_ns":N,"dur_ns":N,"addr":"0x..","ret_addr":"0x..",NAME:VALUE,...}}
 *   {"ph":"i","s":"t","name":"exec_query","cat":"probe","pid":N,"tid":N,"ts":US.NNN,
 *    "args":{"ts_ns":N,"addr":"0x..",NAME:VALUE,...}}
 *
 * "ts" is where the event starts, in microseconds with the nanoseconds as 3
 * decimals (a slice starts at its entry, TS - DURATION; a syscall at TS); "ts_ns" and "dur_ns"
 * are the same values as integers (a JSON reader that parses numbers as
 * doubles loses the nanoseconds of realtime timestamps: ~1.7e15 us).  A
 * slice's name is the event name without a trailing "__return".  "cat" is
 * "probe" (entry, return), "syscall", "mmap" or "task" (fork, exec, exit).
 * "addr" and "ret_addr" are there only when not 0.  The record's arguments
 * are typed as in record__format_json() (value__format_json()); one named like
 * the four keys above is renamed "arg:NAME" (a parameter called addr).  NAMES
 * may be NULL (then "argN", 1-based), TYPES may be NULL (then x64).
 *
 * No newline, NUL-terminated; returns the length (excluding the NUL).  An
 * event that does not fit keeps the arguments that fit and ends
 * `...,"truncated":true}}`; when not even that fits, BUF is "" and 0 is
 * returned (the caller drops the event).
 */
size_t perfetto__format_event(const struct record *rec, char *buf, size_t len);

/*
 * Metadata events naming the tracks (0 and "" when they do not fit):
 *   {"ph":"M","name":"process_name","pid":N,"args":{"name":"COMM"}}
 *   {"ph":"M","name":"thread_name","pid":N,"tid":N,"args":{"name":"COMM/TID"}}
 */
size_t perfetto__format_process_name(int pid, const char *comm, char *buf, size_t len);
size_t perfetto__format_thread_name(int pid, int tid, const char *comm, char *buf, size_t len);

/* REC is drawn as a slice (HAS_DURATION). */
bool perfetto__is_slice(const struct record *rec);
/* Where REC's event starts, ns: TS - DURATION for a slice (0 at worst), else TS (a syscall: TS). */
uint64_t perfetto__start(const struct record *rec);

#endif
