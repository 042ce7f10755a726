/* tracer/host/privs.h: may this process attach to that one, and if not, why --
 * in words that name the cause and the fix (README.md, "How it works").
 * Reads /proc and the capability sets (libcap); never calls ptrace. */
#ifndef PTAP_TRACER_HOST_PRIVS_H
#define PTAP_TRACER_HOST_PRIVS_H

#include <stdbool.h>
#include <sys/types.h>

struct ptap_err;		/* probes/err.h: where the text of each message goes */

/* What /proc says about an attach target. */
struct privs_target {
	pid_t pid;		/* as given */
	pid_t tgid;		/* its process (Tgid:); == pid for a leader */
	char state;		/* State: letter (R S D T t Z X) */
	pid_t tracer;		/* TracerPid:, 0 when none */
	char tracer_comm[17];	/* that tracer's comm, "" when unknown */
	uid_t uid;		/* real uid of the target */
	char comm[17];
};

/*
 * Before attaching to PID: read its /proc/PID/status (under PROC_ROOT, "/proc"
 * normally; tests pass a fake tree) into *T.  Returns 0 when an attach may be
 * tried (a non-leader thread id is accepted: T->tgid names its process, and
 * the caller attaches to that and says so with privs_note_thread()), else
 * -errno with ERR set to one line naming the cause and the fix (ERR's
 * message is emptied first; ERR may be NULL):
 *   -ESRCH  no such process
 *   -EPERM  a zombie ("has exited and its parent has not reaped it"), a
 *           kernel thread, or a process privs_check_owner() refuses (for a
 *           thread id: the thread or its process)
 *   -EBUSY  already traced ("already traced by pid N (COMM): stop that tracer")
 *   -EDEADLK the pid is ptap itself or its own tracer
 */
int privs_check_target(const char *proc_root, pid_t pid, struct privs_target *t,
		       struct ptap_err *err);

/*
 * PTRACE_SEIZE of T failed with CODE (-errno): explain it in ERR (one or two
 * lines, each ending in the fix), from what is known at that moment:
 *   EPERM: traced meanwhile (TracerPid) > another user's process without
 *          CAP_SYS_PTRACE in ptap's effective set (libcap) > Yama
 *          (PROC_ROOT/sys/kernel/yama/ptrace_scope): 1 "only descendants;
 *          run as root, give ptap CAP_SYS_PTRACE, have the target call
 *          prctl(PR_SET_PTRACER), or set the sysctl to 0", 2 "only with
 *          CAP_SYS_PTRACE", 3 "no attaching at all until reboot" > a
 *          non-dumpable target (setuid, or prctl(PR_SET_DUMPABLE, 0)).
 *   ESRCH: the process exited meanwhile.  Others: strerror.
 */
void privs_explain_attach(const char *proc_root, const struct privs_target *t, int code,
			  struct ptap_err *err);

/*
 * Opening /proc/PID/maps (smaps, mem) failed with CODE (-errno): explain it
 * in ERR, ending in the fix.  The kernel lets a process read another's map
 * table under the rules of a ptrace "read" (no Yama): EACCES/EPERM come from
 * another user's process without CAP_SYS_PTRACE > changed credentials
 * (setuid or setgid) > a non-dumpable process > an LSM; ENOENT/ESRCH: no such
 * process.  Others: strerror.
 */
void privs_explain_read(const char *proc_root, pid_t pid, int code, struct ptap_err *err);

/* One line in ERR saying that thread T->pid belongs to process T->tgid, which is traced instead. */
void privs_note_thread(const struct privs_target *t, struct ptap_err *err);

/* Does ptap have CAP_SYS_PTRACE in its effective set (libcap)? */
bool privs_have_sys_ptrace(void);

/*
 * May ptap trace PID without doing more than its user could do without it?
 * 0, or -EPERM with ERR set.  Only a non-root ptap holding CAP_SYS_PTRACE
 * (a file capability) is ever refused here: then a process of another uid or
 * gid, or a non-dumpable one (setuid, PR_SET_DUMPABLE 0), is refused.
 * privs_check_target() calls it; attaching calls it for each thread seized,
 * and the loop after each exec event of a traced process (a setuid exec
 * traced by a capable tracer runs with its new credentials), detaching,
 * untouched, what it refuses.
 */
int privs_check_owner(const char *proc_root, pid_t pid, struct ptap_err *err);

/*
 * For unit tests only: make privs_check_*() and privs_explain_attach() act as
 * if ptap had (HAVE_CAP 1) or had not (0) CAP_SYS_PTRACE and ran as uid UID.
 * HAVE_CAP -1 goes back to the real answers (privs_have_sys_ptrace(), getuid()).
 * privs_have_sys_ptrace() itself always gives the real answer.
 */
void privs_pretend(int have_cap, uid_t uid);

#endif
