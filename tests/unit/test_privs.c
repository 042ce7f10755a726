/* tests/unit/test_privs.c: tracer/host/privs.c against fake /proc trees (status files and the Yama
 * sysctl written into a mkdtemp directory), checking the messages' text. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "probes/err.h"
#include "tracer/host/privs.h"

static char root[64];
static struct ptap_err err;	/* what the last call said */

static void fx_init(void)
{
	strcpy(root, "/tmp/ptap-privs.XXXXXX");
	cr_assert_not_null(mkdtemp(root));
	err = (struct ptap_err){ .pos = -1 };
	privs_pretend(-1, 0);
}

static void fx_fini(void)
{
	char cmd[128];

	privs_pretend(-1, 0);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	cr_expect(eq(int, system(cmd), 0));
}

TestSuite(privs, .init = fx_init, .fini = fx_fini);

/* One fake task, as /proc/PID/status shows it. */
struct fake {
	pid_t pid, tgid, ppid, tracer;
	const char *name;
	char state;		/* 0: 'S' */
	uid_t uid;		/* real = effective = saved = fs */
	bool setuid_root;	/* effective, saved and fs uid 0 (a setuid-root exec) */
	int threads;		/* 0: 1 */
	bool kthread;
};

static const char *state_name(char c)
{
	switch (c) {
	case 'R': return "R (running)";
	case 'Z': return "Z (zombie)";
	case 'T': return "T (stopped)";
	case 't': return "t (tracing stop)";
	default: return "S (sleeping)";
	}
}

/* Write ROOT/PID/status for F (gid is ours, so only the uid differs when asked). */
static void fake_task(const struct fake *f)
{
	char path[256];
	FILE *fp;
	gid_t g = getgid();
	uid_t eu = f->setuid_root ? 0 : f->uid;

	snprintf(path, sizeof(path), "%s/%d", root, f->pid);
	cr_assert(eq(int, mkdir(path, 0755), 0), "mkdir %s: %s", path, strerror(errno));
	strcat(path, "/status");
	fp = fopen(path, "w");
	cr_assert_not_null(fp);
	fprintf(fp, "Name:\t%s\nUmask:\t0022\nState:\t%s\nTgid:\t%d\nNgid:\t0\nPid:\t%d\n"
		"PPid:\t%d\nTracerPid:\t%d\nUid:\t%u\t%u\t%u\t%u\nGid:\t%u\t%u\t%u\t%u\n"
		"FDSize:\t64\nKthread:\t%d\n", f->name, state_name(f->state),
		f->tgid ? f->tgid : f->pid, f->pid, f->ppid, f->tracer, f->uid, eu, eu, eu,
		g, g, g, g, f->kthread);
	if (f->state != 'Z' && !f->kthread)
		fprintf(fp, "VmPeak:\t    3840 kB\nVmSize:\t    3840 kB\n");
	fprintf(fp, "Threads:\t%d\nSigQ:\t0/63455\n", f->threads ? f->threads : 1);
	cr_assert(eq(int, fclose(fp), 0));
}

/* ROOT/sys/kernel/yama/ptrace_scope = SCOPE */
static void fake_yama(int scope)
{
	char path[256];
	FILE *fp;

	snprintf(path, sizeof(path), "mkdir -p %s/sys/kernel/yama", root);
	cr_assert(eq(int, system(path), 0));
	snprintf(path, sizeof(path), "%s/sys/kernel/yama/ptrace_scope", root);
	fp = fopen(path, "w");
	cr_assert_not_null(fp);
	fprintf(fp, "%d\n", scope);
	cr_assert(eq(int, fclose(fp), 0));
}

#define expect_in(needle) \
	cr_expect_not_null(strstr(err.msg, (needle)), "'%s' not in message: %s", (needle), err.msg)
#define expect_not_in(needle) \
	cr_expect_null(strstr(err.msg, (needle)), "'%s' in message: %s", (needle), err.msg)

/* ---- privs_check_target ---------------------------------------------------- */

Test(privs, missing_pid)
{
	struct privs_target t;

	cr_assert(eq(int, privs_check_target(root, 4242, &t, &err), -ESRCH));
	cr_expect_str_eq(err.msg, "no process 4242: check the pid (it may have exited)");
	cr_expect(eq(int, t.pid, 4242));
}

Test(privs, running_process_accepted)
{
	struct privs_target t;

	fake_task(&(struct fake){ .pid = 500, .ppid = 1, .name = "server", .uid = 1000 });
	cr_assert(eq(int, privs_check_target(root, 500, &t, &err), 0), "%s", err.msg);
	cr_expect_str_eq(err.msg, "");
	cr_expect(eq(int, t.pid, 500));
	cr_expect(eq(int, t.tgid, 500));
	cr_expect(eq(int, t.state, 'S'));
	cr_expect(eq(int, t.tracer, 0));
	cr_expect(eq(uint, t.uid, 1000));
	cr_expect_str_eq(t.comm, "server");
	cr_expect_str_eq(t.tracer_comm, "");
}

Test(privs, zombie)
{
	struct privs_target t;

	fake_task(&(struct fake){ .pid = 101, .ppid = 100, .name = "child", .state = 'Z' });
	cr_assert(eq(int, privs_check_target(root, 101, &t, &err), -EPERM));
	cr_expect_str_eq(err.msg, "pid 101 is a zombie: it has exited and its parent (pid 100) has "
			 "not reaped it; nothing to trace");
	cr_expect(eq(int, t.state, 'Z'));
}

/* A leader that called pthread_exit while its threads run: a zombie the kernel will not seize. */
Test(privs, zombie_leader_with_threads)
{
	struct privs_target t;

	fake_task(&(struct fake){ .pid = 110, .ppid = 1, .name = "mt", .state = 'Z',
				  .threads = 4 });
	cr_assert(eq(int, privs_check_target(root, 110, &t, &err), -EPERM));
	expect_in("pid 110 is a zombie: its main thread has exited while 3 other threads run");
}

Test(privs, already_traced)
{
	struct privs_target t;

	fake_task(&(struct fake){ .pid = 456, .ppid = 1, .name = "strace" });
	fake_task(&(struct fake){ .pid = 123, .ppid = 456, .name = "target", .tracer = 456,
				  .state = 't' });
	cr_assert(eq(int, privs_check_target(root, 123, &t, &err), -EBUSY));
	cr_expect_str_eq(err.msg, "pid 123 is already traced by pid 456 (strace): stop that tracer "
			 "(or detach it) first; a process has only one tracer");
	cr_expect(eq(int, t.tracer, 456));
	cr_expect_str_eq(t.tracer_comm, "strace");
}

Test(privs, already_traced_tracer_gone)
{
	struct privs_target t;

	fake_task(&(struct fake){ .pid = 123, .ppid = 1, .name = "target", .tracer = 999 });
	cr_assert(eq(int, privs_check_target(root, 123, &t, &err), -EBUSY));
	expect_in("pid 123 is already traced by pid 999 (?)");
}

Test(privs, thread_not_leader)
{
	struct privs_target t;
	struct ptap_err note = { .pos = -1 };

	fake_task(&(struct fake){ .pid = 700, .ppid = 1, .name = "app", .threads = 3 });
	fake_task(&(struct fake){ .pid = 703, .tgid = 700, .ppid = 1, .name = "worker",
				  .threads = 3 });
	cr_assert(eq(int, privs_check_target(root, 703, &t, &err), 0), "%s", err.msg);
	cr_expect(eq(int, t.pid, 703));
	cr_expect(eq(int, t.tgid, 700));
	cr_expect_str_eq(t.comm, "worker");
	privs_note_thread(&t, &note);
	cr_expect_str_eq(note.msg, "thread 703 belongs to process 700; tracing 700");
}

/* A thread id whose process's leader is traced: the process cannot be attached. */
Test(privs, thread_of_traced_leader)
{
	struct privs_target t;

	fake_task(&(struct fake){ .pid = 456, .ppid = 1, .name = "gdb" });
	fake_task(&(struct fake){ .pid = 700, .ppid = 1, .name = "app", .tracer = 456 });
	fake_task(&(struct fake){ .pid = 703, .tgid = 700, .ppid = 1, .name = "worker" });
	cr_assert(eq(int, privs_check_target(root, 703, &t, &err), -EBUSY));
	expect_in("pid 700 is already traced by pid 456 (gdb)");
	cr_expect(eq(int, t.tgid, 700));
}

Test(privs, ptap_itself)
{
	struct privs_target t;
	pid_t me = getpid();
	char want[128];

	fake_task(&(struct fake){ .pid = me, .ppid = 1, .name = "ptap" });
	cr_assert(eq(int, privs_check_target(root, me, &t, &err), -EDEADLK));
	snprintf(want, sizeof(want), "pid %d is ptap itself: give the pid of another process", me);
	cr_expect_str_eq(err.msg, want);
}

Test(privs, ptaps_own_tracer)
{
	struct privs_target t;

	fake_task(&(struct fake){ .pid = 77, .ppid = 1, .name = "gdb" });
	fake_task(&(struct fake){ .pid = getpid(), .ppid = 77, .name = "ptap", .tracer = 77 });
	cr_assert(eq(int, privs_check_target(root, 77, &t, &err), -EDEADLK));
	expect_in("pid 77 is tracing ptap (gdb)");
}

Test(privs, kernel_thread)
{
	struct privs_target t;

	fake_task(&(struct fake){ .pid = 2, .name = "kthreadd", .kthread = true });
	cr_assert(eq(int, privs_check_target(root, 2, &t, &err), -EPERM));
	cr_expect_str_eq(err.msg,
			 "pid 2 is a kernel thread (kthreadd): it has no user space to trace");
}

Test(privs, null_message_buffer)
{
	struct privs_target t;

	cr_expect(eq(int, privs_check_target(root, 4242, &t, NULL), -ESRCH));
}

/* ---- privs_check_owner: a capable non-root ptap traces only its user's processes ---- */

Test(privs, owner_other_uid_with_file_cap)
{
	struct privs_target t;

	fake_task(&(struct fake){ .pid = 900, .ppid = 1, .name = "victim", .uid = 1001 });
	privs_pretend(1, 1000);
	cr_assert(eq(int, privs_check_target(root, 900, &t, &err), -EPERM));
	cr_expect_str_eq(err.msg, "pid 900 belongs to uid 1001: ptap has CAP_SYS_PTRACE but traces "
			 "only its user's (uid 1000) processes; run ptap as that user or as root");
	/* root, or no capability (the kernel decides): nothing refused here */
	privs_pretend(1, 0);
	cr_expect(eq(int, privs_check_owner(root, 900, &err), 0));
	privs_pretend(0, 1000);
	cr_expect(eq(int, privs_check_owner(root, 900, &err), 0));
}

/* Give the fake status file of PID to UID, as the kernel does for a dumpable
 * process (only root can; otherwise it is ours already). */
static void own_status(pid_t pid, uid_t uid)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%d/status", root, pid);
	if (geteuid() == 0)
		cr_assert(eq(int, chown(path, uid, getgid()), 0));
}

/* A thread id whose thread has other uids than its process (setresuid(2) on
 * that thread alone): refused, though its leader is not. */
Test(privs, owner_thread_other_uid_with_file_cap)
{
	uid_t me = geteuid() == 0 ? 1000 : getuid();
	struct privs_target t;
	char want[256];

	fake_task(&(struct fake){ .pid = 700, .ppid = 1, .name = "app", .uid = me,
				  .threads = 2 });
	fake_task(&(struct fake){ .pid = 703, .tgid = 700, .ppid = 1, .name = "worker",
				  .uid = me + 1, .threads = 2 });
	own_status(700, me);
	own_status(703, me + 1);
	privs_pretend(1, me);
	cr_expect(eq(int, privs_check_target(root, 700, &t, &err), 0), "%s", err.msg);
	cr_assert(eq(int, privs_check_target(root, 703, &t, &err), -EPERM));
	snprintf(want, sizeof(want), "pid 703 belongs to uid %u: ptap has CAP_SYS_PTRACE but "
		 "traces only its user's (uid %u) processes; run ptap as that user or as root",
		 me + 1, me);
	cr_expect_str_eq(err.msg, want);
	cr_expect(eq(int, t.tgid, 700));
	privs_pretend(1, 0);
	cr_expect(eq(int, privs_check_target(root, 703, &t, &err), 0), "%s", err.msg);
}

/* The user's own process after it exec'd a setuid-root program: real uid
 * still the user's, effective and saved 0 (what loop_exec() sees). */
Test(privs, owner_setuid_exec_with_file_cap)
{
	fake_task(&(struct fake){ .pid = 902, .ppid = 1, .name = "passwd", .uid = 1000,
				  .setuid_root = true });
	privs_pretend(1, 1000);
	cr_assert(eq(int, privs_check_owner(root, 902, &err), -EPERM));
	cr_expect_str_eq(err.msg, "pid 902 runs with other credentials or is not dumpable (setuid, "
			 "setgid, or prctl(PR_SET_DUMPABLE, 0)): ptap traces it only when run as "
			 "root");
	privs_pretend(1, 0);
	cr_expect(eq(int, privs_check_owner(root, 902, &err), 0), "root traces it");
	privs_pretend(0, 1000);
	cr_expect(eq(int, privs_check_owner(root, 902, &err), 0),
		  "without the capability the kernel decides (it refuses)");
}

/* /proc/PID/status belongs to root while the process is not dumpable (as root the test
 * gives the fake file to another uid; otherwise it cannot). */
Test(privs, owner_not_dumpable_with_file_cap)
{
	char dir[256];

	fake_task(&(struct fake){ .pid = 901, .ppid = 1, .name = "mine", .uid = 1000 });
	snprintf(dir, sizeof(dir), "%s/901/status", root);
	privs_pretend(1, 1000);
	if (geteuid() == 0) {
		cr_assert(eq(int, chown(dir, 1000, getgid()), 0));
		cr_expect(eq(int, privs_check_owner(root, 901, &err), 0), "%s", err.msg);
		cr_assert(eq(int, chown(dir, 0, getgid()), 0));
		cr_expect(eq(int, privs_check_owner(root, 901, &err), -EPERM));
		expect_in("pid 901 runs with other credentials or is not dumpable");
	} else {
		/* not root: the file is ours, so dumpable; uid 1000 in it is not ours */
		privs_pretend(1, getuid());
		cr_expect(eq(int, privs_check_owner(root, 901, &err), -EPERM),
			  "uid 1000 in status is not ours");
	}
}

/* ---- privs_explain_attach ----------------------------------------------------- */

/* A target of ptap's own uid (so only Yama can be the cause), not privileged. */
static void yama_case(int scope, int have_cap, struct privs_target *t)
{
	uid_t me = geteuid();

	fake_task(&(struct fake){ .pid = 321, .ppid = 1, .name = "target", .uid = me });
	if (scope >= 0)
		fake_yama(scope);
	privs_pretend(have_cap, me);
	cr_assert(eq(int, privs_check_target(root, 321, t, &err), 0), "%s", err.msg);
	privs_explain_attach(root, t, -EPERM, &err);
}

Test(privs, yama_1)
{
	struct privs_target t;

	yama_case(1, 0, &t);
	expect_in("cannot attach to pid 321: kernel.yama.ptrace_scope = 1 lets a process trace "
		  "only its descendants");
	expect_in("run ptap as root");
	expect_in("`setcap cap_sys_ptrace+ep ");
	expect_in("prctl(PR_SET_PTRACER");
	expect_in("`sysctl kernel.yama.ptrace_scope=0`");
	cr_expect_null(strchr(err.msg, '\n'), "one line: %s", err.msg);
}

Test(privs, yama_2)
{
	struct privs_target t;

	yama_case(2, 0, &t);
	expect_in("cannot attach to pid 321: kernel.yama.ptrace_scope = 2 lets only processes "
		  "with CAP_SYS_PTRACE attach");
	expect_in("`setcap cap_sys_ptrace+ep ");
	expect_in("`sysctl kernel.yama.ptrace_scope=0`");
	expect_not_in("PR_SET_PTRACER");
}

Test(privs, yama_3)
{
	struct privs_target t;

	yama_case(3, 0, &t);
	cr_expect_str_eq(err.msg, "cannot attach to pid 321: kernel.yama.ptrace_scope = 3 forbids "
			 "every attach, even by root, and cannot be lowered until reboot");
}

/* Scope 3 stops even a privileged ptap; scope 1 does not, so it is not blamed. */
Test(privs, yama_privileged)
{
	struct privs_target t;

	yama_case(3, 1, &t);
	expect_in("kernel.yama.ptrace_scope = 3");
	privs_pretend(1, geteuid());
	fake_yama(1);
	privs_explain_attach(root, &t, -EPERM, &err);
	expect_not_in("yama");
	expect_in("cannot attach to pid 321: Operation not permitted, and /proc shows no cause");
}

Test(privs, yama_0_and_absent)
{
	struct privs_target t;

	yama_case(0, 0, &t);
	expect_not_in("yama");
	expect_in("/proc shows no cause: a seccomp filter, an LSM");
}

Test(privs, yama_absent)
{
	struct privs_target t;

	yama_case(-1, 0, &t);
	expect_not_in("yama");
	expect_in("/proc shows no cause");
}

Test(privs, eperm_other_user)
{
	struct privs_target t;

	fake_task(&(struct fake){ .pid = 123, .ppid = 1, .name = "theirs", .uid = 1000 });
	fake_yama(1);
	privs_pretend(0, 1001);
	cr_assert(eq(int, privs_check_target(root, 123, &t, &err), 0), "%s", err.msg);
	privs_explain_attach(root, &t, -EPERM, &err);
	cr_expect_str_eq(err.msg, "pid 123 belongs to uid 1000: run ptap as that user or as root");
	/* with CAP_SYS_PTRACE the uid is no cause: Yama 1 is not either, so nothing is blamed */
	privs_pretend(1, 0);
	privs_explain_attach(root, &t, -EPERM, &err);
	expect_in("/proc shows no cause");
}

/* Another tracer came between the check and the seize. */
Test(privs, eperm_traced_meanwhile)
{
	struct privs_target t;
	char path[256];

	fake_task(&(struct fake){ .pid = 123, .ppid = 1, .name = "target" });
	privs_pretend(0, 0);
	cr_assert(eq(int, privs_check_target(root, 123, &t, &err), 0), "%s", err.msg);
	snprintf(path, sizeof(path), "rm -r %s/123", root);
	cr_assert(eq(int, system(path), 0));
	fake_task(&(struct fake){ .pid = 123, .ppid = 1, .name = "target", .tracer = 456 });
	fake_task(&(struct fake){ .pid = 456, .ppid = 1, .name = "strace" });
	privs_explain_attach(root, &t, -EPERM, &err);
	expect_in("pid 123 is already traced by pid 456 (strace): stop that tracer");
}

Test(privs, eperm_not_dumpable)
{
	struct privs_target t;
	char dir[256];

	if (geteuid() != 0) {
		/* the file cannot be given to root: check the real /proc instead */
		pid_t c = fork();

		cr_assert(ge(int, c, 0));
		if (!c) {
			prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
			pause();
			_exit(0);
		}
		usleep(100000);
		privs_pretend(0, getuid());
		t = (struct privs_target){ .pid = c, .tgid = c };
		privs_explain_attach("/proc", &t, -EPERM, &err);
		kill(c, SIGKILL);
		waitpid(c, NULL, 0);
		expect_in("is not dumpable");
		return;
	}
	fake_task(&(struct fake){ .pid = 321, .ppid = 1, .name = "secret", .uid = 1000 });
	snprintf(dir, sizeof(dir), "%s/321/status", root);
	cr_assert(eq(int, chown(dir, 0, 0), 0));
	privs_pretend(0, 1000);
	t = (struct privs_target){ .pid = 321, .tgid = 321 };
	privs_explain_attach(root, &t, -EPERM, &err);
	cr_expect_str_eq(err.msg, "pid 321 is not dumpable (setuid or setgid, or it called "
			 "prctl(PR_SET_DUMPABLE, 0)): run ptap as root");
}

Test(privs, esrch_during_seize)
{
	struct privs_target t = { .pid = 555, .tgid = 555 };

	privs_explain_attach(root, &t, -ESRCH, &err);
	cr_expect_str_eq(err.msg, "pid 555 exited while ptap was attaching; nothing to trace");
	/* it is a zombie by now */
	fake_task(&(struct fake){ .pid = 555, .ppid = 9, .name = "x", .state = 'Z' });
	privs_explain_attach(root, &t, -ESRCH, &err);
	expect_in("pid 555 is a zombie: it has exited and its parent (pid 9)");
	/* EPERM from a target gone since */
	t.pid = t.tgid = 556;
	privs_explain_attach(root, &t, -EPERM, &err);
	cr_expect_str_eq(err.msg, "pid 556 exited while ptap was attaching; nothing to trace");
}

Test(privs, other_errno)
{
	struct privs_target t = { .pid = 42, .tgid = 42 };

	privs_explain_attach(root, &t, -EIO, &err);
	cr_expect_str_eq(err.msg, "cannot attach to pid 42: Input/output error");
}

/* ---- privs_have_sys_ptrace: libcap against CapEff bit 19 of /proc/self/status ---- */

Test(privs, have_sys_ptrace_matches_capeff)
{
	char line[256];
	unsigned long long eff = 0;
	bool found = false;
	FILE *f = fopen("/proc/self/status", "r");

	cr_assert_not_null(f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &eff) == 1)
			found = true;
	fclose(f);
	cr_assert(eq(int, found, true));
	cr_expect(eq(int, privs_have_sys_ptrace(), !!(eff & (1ULL << 19))));
	privs_pretend(0, 0);
	cr_expect(eq(int, privs_have_sys_ptrace(), !!(eff & (1ULL << 19))),
		  "pretending changes only " "the diagnosis");
}
