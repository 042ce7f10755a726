/* tracer/engine/launch.h: starting the traced command. */
#ifndef PTAP_TRACER_ENGINE_LAUNCH_H
#define PTAP_TRACER_ENGINE_LAUNCH_H

#include <stddef.h>
#include <sys/types.h>

struct ptap_err;		/* probes/err.h */
struct session;

/*
 * Find CMD the way a shell does (PATH when it has no '/') into PATH_OUT.
 * 0, -ENOENT (not found: exit 127) or -EACCES (not executable: exit 126).
 */
int launch_find(const char *cmd, char *path_out, size_t len);

/*
 * Fork the command PATH with ARGV, traced from its first instruction: the
 * child installs a seccomp filter that returns SECCOMP_RET_TRACE for the
 * syscalls in mapsync_traced (all else runs at full speed), stops itself, is
 * seized with PTRACE_O_EXITKILL (a RET_TRACE filter without a tracer fails
 * those syscalls with ENOSYS, so a launched command is never detached) and
 * then execs.  Adds the child to S's threads.  0 or -errno.
 */
int launch_command(struct session *s, const char *path, char *const argv[]);

/* Who a launched command runs as when it is not ptap's real user (-u USER). */
struct launch_user {
	char name[256];		/* LOGIN_NAME_MAX */
	uid_t uid;
	gid_t gid;
	gid_t *groups;		/* its supplementary groups (initgroups' list) */
	int ngroups;
};

/*
 * -u NAME: look the user NAME up (passwd; a number is a uid) into *U, with its
 * groups.  0; -EPERM when ptap does not run as root (real and effective uid
 * 0: only root may run a command as someone else), -ENOENT when there is no
 * such user, -ENOMEM; ERR then says so in one line.
 */
int launch_user_lookup(const char *name, struct launch_user *u, struct ptap_err *err);
void launch_user_free(struct launch_user *u);

/*
 * launch_command(), the command running as U (NULL: as ptap's real user).
 * Whoever it runs as, it never holds ptap's capabilities: launched by a
 * non-root ptap, the child takes ptap's real uid and gid, drops every
 * capability (a ptap with file capabilities would pass them on otherwise,
 * and as its tracer would let a setuid exec in the traced tree gain
 * privilege: the child sets no_new_privs, which a non-root ptap's seccomp
 * filter needs anyway) and becomes dumpable again, so that ptap's own /proc
 * reads of it work.  Launched by root with U, it gets U's uid, gid and groups
 * after the filter is in, without no_new_privs: its setuid programs work as
 * they would for U (strace -u).
 */
int launch_command_as(struct session *s, const char *path, char *const argv[],
		      const struct launch_user *u);

#endif
