/* tracer/host/libpath.h: -x NAME as users write it: a path, or a bare library
 * name (libc.so.6, libsqlite3.so.0) found as a process or the dynamic loader
 * would find it. */
#ifndef PTAP_TRACER_HOST_LIBPATH_H
#define PTAP_TRACER_HOST_LIBPATH_H

#include <stddef.h>
#include <sys/types.h>

/*
 * The file -x NAME means, in OUT (LEN bytes).  NAME with a '/', or naming a
 * file that exists, is itself.  Else NAME is a library's file name, looked
 * for in turn: among the files mapped by the processes PIDS (NPIDS; the one
 * they run is the one to probe), then in LD_LIBRARY_PATH, the directories
 * of /etc/ld.so.conf (and the files it includes), /lib, /usr/lib, /lib64,
 * /usr/lib64.  0, -ENOENT (not found anywhere), or -ENAMETOOLONG.
 */
int libpath_find(const char *name, const pid_t *pids, int npids, char *out, size_t len);
/* The file NAME means with no process to ask: BUF (LEN bytes) when found, else NAME. */
const char *libpath_or(const char *name, char *buf, size_t len);

#endif
