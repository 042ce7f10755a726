/* tracer/launch.h: starting the traced command. */
#ifndef PTAP_TRACER_LAUNCH_H
#define PTAP_TRACER_LAUNCH_H

#include <stddef.h>
#include <sys/types.h>

struct session;

/*
 * Find CMD the way a shell does (PATH when it has no '/') into PATH_OUT.
 * 0, -ENOENT (not found: exit 127) or -EACCES (not executable: exit 126).
 */
int launch_find(const char *cmd, char *path_out, size_t len);

/*
 * Fork the command PATH with ARGV, traced from its first instruction: the
 * child installs a seccomp filter that returns SECCOMP_RET_TRACE for the
 * syscalls in sysmap_traced (all else runs at full speed), stops itself, is
 * seized with PTRACE_O_EXITKILL (a RET_TRACE filter without a tracer fails
 * those syscalls with ENOSYS, so a launched command is never detached) and
 * then execs.  Adds the child to S's threads.  0 or -errno.
 */
int launch_command(struct session *s, const char *path, char *const argv[]);

#endif
