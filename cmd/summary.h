/* cmd/summary.h: what `ptap record` says on stderr at the start and at the
 * end of a run (LOG_NOTICE; with -q, record calls neither), and --summary. */
#ifndef PTAP_CMD_SUMMARY_H
#define PTAP_CMD_SUMMARY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct session;

/*
 * "ptap: 2 probes at 3 sites in 2 files: query_server, libc.so.6": NREQS
 * -e's resolved (sites: distinct addresses; planted later, as the files map).
 */
void summary_probes(const struct session *s, int nreqs);
/*
 * At the end: per event, its records (the ten events with most, then the
 * rest together), those with an argument not read, then the records of the
 * run (TOTAL, syscalls and the rest included), the UNWRITTEN of them (the
 * output's reader went away) and how long it took (NS).
 */
void summary_records(const struct session *s, uint64_t total, uint64_t unwritten, uint64_t ns);

/*
 * `record --summary`: the records go, as JSON lines, through a pipe to a
 * thread of ptap's that accounts them as `ptap report` would, in bounded
 * memory (report__set_bounded()).  summary_run_start() opens OUT_PATH (when
 * not NULL: the report's file, at once, so a bad path fails before the run),
 * makes the pipe and the thread (every signal blocked in it: they stay the loop's), puts the
 * pipe's path for output__open() in PATH and returns the write end (the
 * caller closes it once the output has its own), or -errno.  summary_run_finish(),
 * once the output is closed: waits for the thread and writes the report to
 * OUT_PATH (NULL: stdout), as text or JSON; the exit status, 0 or 2.
 */
struct summary_run;
int summary_run_start(struct summary_run **out, const char *out_path, char *path,
		      size_t pathlen);
int summary_run_finish(struct summary_run *sr, const char *out_path, bool json);
/* A run that failed before it traced: once the output is closed, the thread joined, no report. */
void summary_run_abort(struct summary_run *sr);

#endif
