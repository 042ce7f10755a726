/* cmd/summary.h: what `ptap record` says on stderr at the start and at the
 * end of a run (LOG_NOTICE: `-q` silences both). */
#ifndef PTAP_CMD_SUMMARY_H
#define PTAP_CMD_SUMMARY_H

#include <stdint.h>

struct session;

/* "ptap: 2 probes at 3 sites in 2 files: query_server, libc.so.6": NREQS -e's resolved. */
void summary_probes(const struct session *s, int nreqs);
/*
 * At the end: per event, its records (the ten events with most, then the
 * rest together), those with an argument not read, then the records of the
 * run (TOTAL, syscalls and the rest included) and how long it took (NS).
 */
void summary_records(const struct session *s, uint64_t total, uint64_t ns);

#endif
