/* tracer/host/privs.c: attach diagnostics -- may ptap attach to a pid, and if not, why and what to
 * do (README.md, "How it works").  Reads /proc under a given root and
 * ptap's capability sets (libcap); never calls ptrace. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/stat.h>
#include <unistd.h>

#include "probes/err.h"
#include "tracer/host/privs.h"

/* What one /proc/PID/status says (the fields the diagnosis needs). */
struct pstatus {
	char name[17];		/* Name: (comm), truncated to 16 bytes */
	char state;		/* State: letter, 0 when absent */
	pid_t tgid, ppid, tracer;
	uid_t uid[3];		/* Uid: real, effective, saved */
	gid_t gid[3];		/* Gid: the same */
	int threads;		/* Threads:, 0 when absent */
	bool kthread;		/* Kthread: 1, or (older kernels) alive without VmSize: */
};

/* privs_pretend(): -1 = real answers, else what tests want us to believe. */
static int pretend_cap = -1;
static uid_t pretend_uid;

void privs_pretend(int have_cap, uid_t uid)
{
	pretend_cap = have_cap < 0 ? -1 : !!have_cap;
	pretend_uid = uid;
}

bool privs_have_sys_ptrace(void)
{
	cap_flag_value_t v = CAP_CLEAR;
	cap_t caps = cap_get_proc();

	if (!caps)
		return false;
	if (cap_get_flag(caps, CAP_SYS_PTRACE, CAP_EFFECTIVE, &v) < 0)
		v = CAP_CLEAR;
	cap_free(caps);
	return v == CAP_SET;
}

/* CAP_SYS_PTRACE and uid as the diagnosis sees them (privs_pretend() may override). */
static bool privileged(void)
{
	return pretend_cap >= 0 ? pretend_cap : privs_have_sys_ptrace();
}

static uid_t my_uid(void)
{
	return pretend_cap >= 0 ? pretend_uid : getuid();
}

/* Set ERR (NULL: nothing) to a printf message, with no position. */
#define say(err, ...)	ptap_err_set((err), -1, 0, __VA_ARGS__)

/* Copy the value after "Key:" (leading blanks skipped, newline dropped) into DST. */
static void copy_value(char *dst, size_t size, const char *v)
{
	size_t n;

	v += strspn(v, " \t");
	n = strcspn(v, "\n");
	if (n >= size)
		n = size - 1;
	memcpy(dst, v, n);
	dst[n] = '\0';
}

/*
 * Read PROC_ROOT/PID/status into *PS.  0; -ESRCH when the process does not exist (no file,
 * or no State: line: it died while we read); another -errno when the file cannot be read.
 */
static int read_status(const char *root, pid_t pid, struct pstatus *ps)
{
	char path[PATH_MAX], line[512];
	int kthread = -1;	/* Kthread: as read, -1 when absent (before Linux 6.2) */
	bool vm = false;
	FILE *f;

	memset(ps, 0, sizeof(*ps));
	if (pid <= 0)
		return -ESRCH;
	snprintf(path, sizeof(path), "%s/%d/status", root, pid);
	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT || errno == ESRCH || errno == ENOTDIR ? -ESRCH : -errno;
	while (fgets(line, sizeof(line), f)) {
		char *v = strchr(line, ':');

		if (!v)
			continue;
		*v++ = '\0';
		if (!strcmp(line, "Name"))
			copy_value(ps->name, sizeof(ps->name), v);
		else if (!strcmp(line, "State"))
			ps->state = v[strspn(v, " \t")];
		else if (!strcmp(line, "Tgid"))
			ps->tgid = atoi(v);
		else if (!strcmp(line, "PPid"))
			ps->ppid = atoi(v);
		else if (!strcmp(line, "TracerPid"))
			ps->tracer = atoi(v);
		else if (!strcmp(line, "Threads"))
			ps->threads = atoi(v);
		else if (!strcmp(line, "Kthread"))
			kthread = atoi(v);
		else if (!strcmp(line, "VmSize"))
			vm = true;
		else if (!strcmp(line, "Uid"))
			sscanf(v, "%u %u %u", &ps->uid[0], &ps->uid[1], &ps->uid[2]);
		else if (!strcmp(line, "Gid"))
			sscanf(v, "%u %u %u", &ps->gid[0], &ps->gid[1], &ps->gid[2]);
	}
	fclose(f);
	if (!ps->state)
		return -ESRCH;
	if (!ps->tgid)
		ps->tgid = pid;
	ps->kthread = kthread >= 0 ? kthread == 1 : !vm && ps->state != 'Z' && ps->state != 'X';
	return 0;
}

/* The comm of PID into NAME (17 bytes), "" when unknown. */
static void comm_of(const char *root, pid_t pid, char *name)
{
	struct pstatus ps;

	name[0] = '\0';
	if (read_status(root, pid, &ps) == 0)
		memcpy(name, ps.name, sizeof(ps.name));
}

/* Messages shared by the check before attaching and the explanation after. */
static int say_gone(pid_t pid, struct ptap_err *err)
{
	say(err, "no process %d: check the pid (it may have exited)", pid);
	return -ESRCH;
}

static int say_zombie(pid_t pid, const struct pstatus *ps, struct ptap_err *err)
{
	if (ps->tgid == pid && ps->threads > 1)
		/* A leader that called pthread_exit: the kernel refuses to attach to it. */
		say(err, "pid %d is a zombie: its main thread has exited while %d other "
		    "threads run, and ptrace cannot attach to such a process; nothing ptap can do",
		    pid, ps->threads - 1);
	else
		say(err, "pid %d is a zombie: it has exited and its parent (pid %d) has not "
		    "reaped it; nothing to trace", pid, ps->ppid);
	return -EPERM;
}

static int say_traced(const char *root, pid_t pid, pid_t tracer, struct ptap_err *err)
{
	char comm[17];

	if (tracer == getpid()) {
		say(err, "pid %d is already traced by this ptap (pid %d): give each process "
		    "once", pid, tracer);
		return -EBUSY;
	}
	comm_of(root, tracer, comm);
	say(err, "pid %d is already traced by pid %d (%s): stop that tracer (or detach it) "
	    "first; a process has only one tracer", pid, tracer, comm[0] ? comm : "?");
	return -EBUSY;
}

/* The states in which the kernel refuses any attach: Z zombie, X dead. */
static bool is_dead(char state)
{
	return state == 'Z' || state == 'X';
}

/*
 * The checks of privs_check_target() on one task (the pid given, then its leader): 0 or
 * -errno with ERR set.
 */
static int check_one(const char *root, pid_t pid, const struct pstatus *ps,
		     struct ptap_err *err)
{
	struct pstatus me, tr;
	pid_t self = getpid();

	if (ps->tgid == self) {
		say(err, "pid %d is ptap itself: give the pid of another process", pid);
		return -EDEADLK;
	}
	if (read_status(root, self, &me) == 0 && me.tracer > 0 &&
	    (pid == me.tracer || (read_status(root, me.tracer, &tr) == 0 &&
				  tr.tgid == ps->tgid))) {
		say(err, "pid %d is tracing ptap (%s): each would wait for the other; "
		    "run ptap outside that tracer", pid, ps->name);
		return -EDEADLK;
	}
	if (is_dead(ps->state))
		return say_zombie(pid, ps, err);
	if (ps->kthread) {
		say(err, "pid %d is a kernel thread (%s): it has no user space to trace", pid,
		    ps->name);
		return -EPERM;
	}
	if (ps->tracer > 0)
		return say_traced(root, pid, ps->tracer, err);
	return 0;
}

int privs_check_target(const char *proc_root, pid_t pid, struct privs_target *t,
		       struct ptap_err *err)
{
	struct pstatus ps, leader;
	int r;

	memset(t, 0, sizeof(*t));
	t->pid = t->tgid = pid;
	say(err, "%s", "");
	r = read_status(proc_root, pid, &ps);
	if (r == -ESRCH)
		return say_gone(pid, err);
	if (r < 0)
		return ptap_err_set(err, -1, r, "cannot read %s/%d/status: %s", proc_root, pid,
				    strerror(-r));
	t->tgid = ps.tgid;
	t->state = ps.state;
	t->tracer = ps.tracer;
	t->uid = ps.uid[0];
	memcpy(t->comm, ps.name, sizeof(t->comm));
	if (ps.tracer > 0)
		comm_of(proc_root, ps.tracer, t->tracer_comm);
	r = check_one(proc_root, pid, &ps, err);
	if (r)
		return r;
	if (ps.tgid != pid) {
		/* A thread id: its whole process will be attached, so its leader must do too. */
		r = read_status(proc_root, ps.tgid, &leader);
		if (r == -ESRCH)
			return say_gone(ps.tgid, err);
		if (!r)
			r = check_one(proc_root, ps.tgid, &leader, err);
		if (r)
			return r;
		/* a thread's credentials are its own (setresuid(2) on one thread) */
		r = privs_check_owner(proc_root, pid, err);
		if (r)
			return r;
	}
	return privs_check_owner(proc_root, ps.tgid, err);
}

/*
 * Is PID not dumpable?  /proc/PID/status belongs to the process's effective uid while it is
 * dumpable and to root when not (fs/proc/base.c task_dump_owner(); /proc/PID itself keeps
 * the effective uid either way).
 */
static bool not_dumpable(const char *root, pid_t pid, const struct pstatus *ps)
{
	char path[PATH_MAX];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%d/status", root, pid);
	return stat(path, &st) == 0 && st.st_uid == 0 && ps->uid[1] != 0;
}

/* Do PS's uids and gids all equal UID and GID (what the kernel asks of an unprivileged tracer)? */
static bool same_creds(const struct pstatus *ps, uid_t uid, gid_t gid)
{
	for (int i = 0; i < 3; i++)
		if (ps->uid[i] != uid || ps->gid[i] != gid)
			return false;
	return true;
}

int privs_check_owner(const char *proc_root, pid_t pid, struct ptap_err *err)
{
	struct pstatus ps;
	uid_t uid = my_uid();

	/* Root may trace anything anyway; without the capability the kernel decides. */
	if (uid == 0 || !privileged())
		return 0;
	if (read_status(proc_root, pid, &ps) < 0)
		return 0;	/* gone: the attach itself will say so */
	if (ps.uid[0] != uid) {
		say(err, "pid %d belongs to uid %u: ptap has CAP_SYS_PTRACE but traces only "
		    "its user's (uid %u) processes; run ptap as that user or as root", pid,
		    ps.uid[0], uid);
		return -EPERM;
	}
	if (!same_creds(&ps, uid, getgid()) || not_dumpable(proc_root, pid, &ps)) {
		say(err, "pid %d runs with other credentials or is not dumpable (setuid, "
		    "setgid, or prctl(PR_SET_DUMPABLE, 0)): ptap traces it only when run as root",
		    pid);
		return -EPERM;
	}
	return 0;
}

/* kernel.yama.ptrace_scope under ROOT, -1 when there is no Yama. */
static int yama_scope(const char *root)
{
	char path[PATH_MAX];
	int scope = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/sys/kernel/yama/ptrace_scope", root);
	f = fopen(path, "re");
	if (!f)
		return -1;
	if (fscanf(f, "%d", &scope) != 1)
		scope = -1;
	fclose(f);
	return scope;
}

/* The path of the ptap binary (for a setcap command line), "ptap" when unknown. */
static void self_exe(char *buf, size_t size)
{
	ssize_t n = readlink("/proc/self/exe", buf, size - 1);

	if (n <= 0)
		n = snprintf(buf, size, "ptap");
	buf[n] = '\0';
}

/* Explain an EPERM from PTRACE_SEIZE of T, in the order privs.h gives. */
static void explain_eperm(const char *root, const struct privs_target *t, struct ptap_err *err)
{
	struct pstatus ps;
	char exe[PATH_MAX];
	bool cap = privileged();
	uid_t uid = my_uid();
	int scope, r;

	r = read_status(root, t->pid, &ps);
	if (r == -ESRCH) {
		say(err, "pid %d exited while ptap was attaching; nothing to trace", t->pid);
		return;
	}
	if (!r && is_dead(ps.state)) {
		say_zombie(t->pid, &ps, err);
		return;
	}
	if (!r && ps.tracer > 0) {
		say_traced(root, t->pid, ps.tracer, err);
		return;
	}
	if (!r && !cap && ps.uid[0] != uid) {
		say(err, "pid %d belongs to uid %u: run ptap as that user or as root", t->pid,
		    ps.uid[0]);
		return;
	}
	if (!r && !cap && !same_creds(&ps, uid, getgid())) {
		say(err, "pid %d runs with changed credentials (uids %u/%u/%u, gids %u/%u/%u: "
		    "setuid or setgid): run ptap as root", t->pid, ps.uid[0], ps.uid[1], ps.uid[2],
		    ps.gid[0], ps.gid[1], ps.gid[2]);
		return;
	}
	scope = yama_scope(root);
	self_exe(exe, sizeof(exe));
	if (scope >= 3) {
		say(err, "cannot attach to pid %d: kernel.yama.ptrace_scope = %d forbids "
		    "every attach, even by root, and cannot be lowered until reboot", t->pid,
		    scope);
		return;
	}
	if (scope == 2 && !cap) {
		say(err, "cannot attach to pid %d: kernel.yama.ptrace_scope = 2 lets only "
		    "processes with CAP_SYS_PTRACE attach: run ptap as root, give it the capability "
		    "(`setcap cap_sys_ptrace+ep %s`), or `sysctl kernel.yama.ptrace_scope=0` as "
		    "root", t->pid, exe);
		return;
	}
	if (scope == 1 && !cap) {
		say(err, "cannot attach to pid %d: kernel.yama.ptrace_scope = 1 lets a "
		    "process trace only its descendants: launch the program under ptap "
		    "(`ptap record ... -- COMMAND`), run ptap as root, give it CAP_SYS_PTRACE "
		    "(`setcap cap_sys_ptrace+ep %s`), have the target call "
		    "prctl(PR_SET_PTRACER, ptap's pid or PR_SET_PTRACER_ANY), or "
		    "`sysctl kernel.yama.ptrace_scope=0` as root", t->pid, exe);
		return;
	}
	if (!r && !cap && not_dumpable(root, t->pid, &ps)) {
		say(err, "pid %d is not dumpable (setuid or setgid, or it called "
		    "prctl(PR_SET_DUMPABLE, 0)): run ptap as root", t->pid);
		return;
	}
	say(err, "cannot attach to pid %d: %s, and /proc shows no cause: a seccomp filter, "
	    "an LSM (AppArmor, SELinux) or a container without CAP_SYS_PTRACE may forbid ptrace "
	    "here", t->pid, strerror(EPERM));
}

void privs_explain_attach(const char *proc_root, const struct privs_target *t, int code,
			  struct ptap_err *err)
{
	struct pstatus ps;

	if (code == -EPERM) {
		explain_eperm(proc_root, t, err);
	} else if (code == -ESRCH) {
		if (read_status(proc_root, t->pid, &ps) == 0 && is_dead(ps.state))
			say_zombie(t->pid, &ps, err);
		else
			say(err, "pid %d exited while ptap was attaching; nothing to trace",
			    t->pid);
	} else {
		say(err, "cannot attach to pid %d: %s", t->pid, strerror(code < 0 ? -code : code));
	}
}

void privs_explain_read(const char *proc_root, pid_t pid, int code, struct ptap_err *err)
{
	struct pstatus ps;
	bool cap = privileged();
	int r;

	if (code == -ENOENT || code == -ESRCH) {
		say_gone(pid, err);
		return;
	}
	if (code != -EACCES && code != -EPERM) {
		say(err, "cannot read the map table of pid %d: %s", pid, strerror(-code));
		return;
	}
	r = read_status(proc_root, pid, &ps);
	if (r == -ESRCH) {
		say_gone(pid, err);
	} else if (!r && !cap && ps.uid[0] != my_uid()) {
		say(err, "pid %d belongs to uid %u: its map table is readable only by that "
		    "user or root; run ptap as that user or as root", pid, ps.uid[0]);
	} else if (!r && !cap && !same_creds(&ps, my_uid(), getgid())) {
		say(err, "pid %d runs with changed credentials (uids %u/%u/%u, gids "
		    "%u/%u/%u: setuid or setgid): run ptap as root", pid, ps.uid[0], ps.uid[1],
		    ps.uid[2], ps.gid[0], ps.gid[1], ps.gid[2]);
	} else if (!r && !cap && not_dumpable(proc_root, pid, &ps)) {
		say(err, "pid %d is not dumpable (it called prctl(PR_SET_DUMPABLE, 0)): "
		    "run ptap as root", pid);
	} else {
		say(err, "cannot read the map table of pid %d: %s, and /proc shows no cause: "
		    "an LSM (AppArmor, SELinux) or a container may forbid it", pid,
		    strerror(-code));
	}
}

void privs_note_thread(const struct privs_target *t, struct ptap_err *err)
{
	say(err, "thread %d belongs to process %d; tracing %d", t->pid, t->tgid, t->tgid);
}
