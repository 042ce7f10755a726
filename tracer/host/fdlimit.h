/* tracer/host/fdlimit.h: ptap's own limit on open files (RLIMIT_NOFILE),
 * raised for the run, and the command it launches given the one it had. */
#ifndef PTAP_TRACER_HOST_FDLIMIT_H
#define PTAP_TRACER_HOST_FDLIMIT_H

#include <stddef.h>

/*
 * Raise the soft limit to the hard one (at most fs.nr_open): ptap keeps a
 * file open for each address space it traces (its /proc/PID/mem), and a
 * tree of more processes than the soft limit (often 1024) would leave the
 * ones past it unreadable.  Once, before the run.
 */
void fdlimit_raise(void);
/*
 * The soft limit as it was before fdlimit_raise(), in a launched command's
 * child before its exec: setrlimit(2) alone (a system call's wrapper, not
 * on POSIX's async-signal-safe list, but no lock or allocation in glibc).
 */
void fdlimit_restore(void);
/*
 * For a message on error ERR: with EMFILE, what to do about it (raise the
 * soft limit, or, at the hard limit already, the hard one) into BUF; else
 * "".  BUF returned.
 */
const char *fdlimit_hint(int err, char *buf, size_t len);

#endif
