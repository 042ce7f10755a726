/* tracer/engine/launch.c: fork, seccomp filter, PTRACE_SEIZE, exec. */
#include <ctype.h>
#include <errno.h>
#include <grp.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pwd.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "arch/arch.h"
#include "probes/err.h"
#include "probes/log.h"
#include "tracer/engine/launch.h"
#include "tracer/engine/mapsync.h"
#include "tracer/engine/ptrace.h"
#include "tracer/engine/tasks.h"
#include "tracer/events/syscall.h"
#include "tracer/host/fdlimit.h"
#include "tracer/session.h"
#include "tracer/space/aspace.h"
#include "tracer/thread.h"

static int check_exec(const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return -errno;
	if (S_ISDIR(st.st_mode) || access(path, X_OK) < 0)
		return -EACCES;
	return 0;
}

int launch_find(const char *cmd, char *path_out, size_t len)
{
	const char *env = getenv("PATH");
	char *dirs, *dir, *save = NULL;
	int best = -ENOENT, r;

	if (strchr(cmd, '/')) {
		snprintf(path_out, len, "%s", cmd);
		r = check_exec(cmd);
		return r == -EACCES ? r : r < 0 ? -ENOENT : 0;
	}
	dirs = strdup(env ? env : "/usr/local/bin:/usr/bin:/bin");
	if (!dirs)
		return -ENOMEM;
	for (dir = strtok_r(dirs, ":", &save); dir && *cmd; dir = strtok_r(NULL, ":", &save)) {
		snprintf(path_out, len, "%s/%s", dir, cmd);
		r = check_exec(path_out);
		if (r == 0 || r == -EACCES)
			best = r;
		if (r == 0)
			break;
	}
	free(dirs);
	return best;
}

static struct sock_filter bpf_stmt(unsigned short code, unsigned int k)
{
	return (struct sock_filter){ .code = code, .k = k };
}

static struct sock_filter bpf_jeq(unsigned int k, unsigned char jt, unsigned char jf)
{
	return (struct sock_filter){ .code = BPF_JMP | BPF_JEQ | BPF_K, .jt = jt, .jf = jf, .k = k };
}

#define FILTER_MAX	(2 * (SC_NR_MAX + 16) + 8)

/*
 * The filter: RET_TRACE for mapsync_traced and the --syscalls ones on the
 * native syscall ABI, and for rt_sigaction of SIGSEGV and SIGBUS where
 * probes run in the process; ALLOW otherwise.  One "jeq NR; ret TRACE" pair per
 * number: no jump is longer than one instruction, however many there are.
 */
static int build_filter(const struct session *s, struct sock_filter *f, int max)
{
	long nrs[SC_NR_MAX];
	int n = 0, k = syscall_selected_list(s, nrs, SC_NR_MAX);

	if (max < 2 * (k + mapsync_ntraced) + 10)
		return -E2BIG;
	f[n++] = bpf_stmt(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch));
	f[n++] = bpf_jeq(arch_audit_arch, 1, 0);
	f[n++] = bpf_stmt(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	f[n++] = bpf_stmt(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr));
	for (int i = 0; i < mapsync_ntraced + k; i++) {
		long nr = i < mapsync_ntraced ? mapsync_traced[i] : nrs[i - mapsync_ntraced];

		if (i >= mapsync_ntraced && !syscall_selected(s, nr))
			continue;
		f[n++] = bpf_jeq((unsigned int)nr, 0, 1);
		f[n++] = bpf_stmt(BPF_RET | BPF_K, SECCOMP_RET_TRACE);
	}
	/*
	 * In-process probes: a SIGSEGV or SIGBUS handler about to be installed
	 * (tracer/engine/inproc.c, inproc_sigaction()): rt_sigaction of those two
	 * only, not the many other calls a program makes to it.
	 */
	if (s->inproc_on && s->mmap_tracking != MMAP_SYSCALL && !syscall_selected(s, SYS_rt_sigaction)) {
		f[n++] = bpf_jeq(SYS_rt_sigaction, 0, 4);
		f[n++] = bpf_stmt(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0]));
		f[n++] = bpf_jeq(SIGSEGV, 1, 0);
		f[n++] = bpf_jeq(SIGBUS, 0, 1);
		f[n++] = bpf_stmt(BPF_RET | BPF_K, SECCOMP_RET_TRACE);
	}
	f[n++] = bpf_stmt(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	return n;
}

static void child_fail(const char *what, const char *path, int code)
{
	dprintf(2, "ptap: %s %s: %s\n", what, path, strerror(errno));
	_exit(code);
}

/*
 * SECCOMP_FILTER_FLAG_SPEC_ALLOW: where the kernel mitigates speculative
 * store bypass for seccomp'd tasks (spec_store_bypass_disable=seccomp), a
 * filter would otherwise slow the command down for as long as it runs --
 * ptap's filter is no sandbox.  A kernel without the flag (before 4.17) is
 * asked again without it.
 */
static int install_filter(struct sock_fprog *prog)
{
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_SPEC_ALLOW, prog) == 0)
		return 0;
	if (errno != EINVAL)
		return -1;
	return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, prog);
}

/*
 * In the child of a non-root ptap, before it is seized: only ptap's real user
 * is left.  Real uid and gid everywhere (a setuid ptap), no capability in any
 * set (a ptap with file capabilities), no_new_privs (ptap's tracer
 * credentials hold CAP_SYS_PTRACE then, so the kernel would let a setuid
 * exec in the traced tree take effect: README.md, "How it works"), and dumpable
 * again (a process started with file capabilities is not, and its /proc
 * files then belong to root: ptap could not open its child's).  0 or -1.
 */
static int child_be_real_user(void)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct none[_LINUX_CAPABILITY_U32S_3] = { { 0 } };
	uid_t uid = getuid();
	gid_t gid = getgid();

	if (setresgid(gid, gid, gid) < 0 || setresuid(uid, uid, uid) < 0)
		return -1;
	prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);	/* none before 4.3 */
	if (syscall(SYS_capset, &hdr, none) < 0)
		return -1;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -1;
	return prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
}

/* In the child of root, once its filter is in: become U (uid, gid, groups), as initgroups does. */
static int child_become(const struct launch_user *u)
{
	if (setgroups((size_t)u->ngroups, u->groups) < 0 || setresgid(u->gid, u->gid, u->gid) < 0)
		return -1;
	return setresuid(u->uid, u->uid, u->uid);
}

/* In the child, before exec.  Only async-signal-safe work from here on. */
static void child_run(const char *path, char *const argv[], struct sock_fprog *prog,
		      const struct launch_user *u)
{
	signal(SIGPIPE, SIG_DFL);
	fdlimit_restore();
	if (!u && getuid() != 0 && child_be_real_user() < 0)
		child_fail("cannot drop ptap's privileges to run", path, 126);
	/*
	 * Wait to be seized first: once the filter is in, a listed syscall with
	 * no tracer fails with ENOSYS, and kill() and execve() may be listed
	 * (--syscalls %process).
	 */
	kill(getpid(), SIGSTOP);
	if (install_filter(prog) < 0) {
		/* Without CAP_SYS_ADMIN a filter needs no_new_privs (seccomp(2)). */
		if (errno != EACCES || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
		    install_filter(prog) < 0)
			child_fail("cannot install the seccomp filter for", path, 126);
	}
	if (u && child_become(u) < 0) {
		dprintf(2, "ptap: cannot run %s as %s: %s\n", path, u->name, strerror(errno));
		_exit(126);
	}
	execv(path, argv);
	child_fail("cannot execute", path, errno == ENOENT ? 127 : 126);
}

int launch_user_lookup(const char *name, struct launch_user *u, struct ptap_err *err)
{
	struct passwd *pw;
	char *end;
	int n = 0;

	memset(u, 0, sizeof(*u));
	if (getuid() != 0 || geteuid() != 0)
		return ptap_err_set(err, -1, -EPERM, "-u %s: only root can run the command as "
				    "another user (ptap runs as uid %u); run the command as that "
				    "user instead", name, (unsigned)getuid());
	pw = getpwnam(name);
	if (!pw && isdigit((unsigned char)*name)) {
		unsigned long id;

		errno = 0;
		id = strtoul(name, &end, 10);
		if (!*end && !errno && id < (uid_t)-1)
			pw = getpwuid((uid_t)id);
	}
	if (!pw || strlen(pw->pw_name) >= sizeof(u->name))
		return ptap_err_set(err, -1, -ENOENT, "-u %s: no such user", name);
	snprintf(u->name, sizeof(u->name), "%s", pw->pw_name);
	u->uid = pw->pw_uid;
	u->gid = pw->pw_gid;
	/* getgrouplist() says how many there are when the array is too small */
	while (getgrouplist(u->name, u->gid, u->groups, &n) < 0) {
		gid_t *g = realloc(u->groups, (size_t)(n + 1) * sizeof(*g));

		if (!g) {
			launch_user_free(u);
			return ptap_err_set(err, -1, -ENOMEM, "-u %s: out of memory", name);
		}
		u->groups = g;
		n++;
	}
	u->ngroups = n;
	return 0;
}

void launch_user_free(struct launch_user *u)
{
	free(u->groups);
	u->groups = NULL;
	u->ngroups = 0;
}

int launch_command(struct session *s, const char *path, char *const argv[])
{
	return launch_command_as(s, path, argv, NULL);
}

int launch_command_as(struct session *s, const char *path, char *const argv[],
		      const struct launch_user *u)
{
	const unsigned long opts = PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACECLONE |
				   PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK | PTRACE_O_TRACEEXEC |
				   PTRACE_O_TRACESECCOMP | PTRACE_O_EXITKILL;
	static struct sock_filter f[FILTER_MAX];
	struct sock_fprog prog = { .filter = f };
	struct aspace *as = NULL;
	struct thread *t;
	int st, r, n = build_filter(s, f, FILTER_MAX);
	pid_t pid;

	if (n < 0)
		return n;
	prog.len = (unsigned short)n;
	/* ptap's own streams only: a --summary thread may be reading a stream of its own */
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0)
		child_run(path, argv, &prog, u);
	while (waitpid(pid, &st, WSTOPPED) < 0)
		if (errno != EINTR)
			return -errno;
	if (!WIFSTOPPED(st)) {		/* it could not even stop */
		s->cmd_status = st;
		s->cmd_exited = true;
		return -ECHILD;
	}
	r = pt_seize(pid, opts);
	if (r < 0) {
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		return r;
	}
	s->cmd_pid = pid;
	r = aspace__new(pid, &as);
	t = r == 0 ? tasks_add(s, pid, pid, as) : NULL;
	aspace__put(as);
	if (!t)
		return r ? r : -ENOMEM;
	thread__read_comm(t);
	kill(pid, SIGCONT);
	return 0;
}
