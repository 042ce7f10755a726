/* tracer/engine/attach.c: attaching to running processes.  PTRACE_SEIZE every
 * thread (options set atomically, no SIGSTOP sent), PTRACE_INTERRUPT to stop
 * them, the map table from PROCMAP_QUERY or /proc/PID/maps, plant, resume.
 * No seccomp filter: it could never be removed, and once ptap is gone every
 * call it stops fails with ENOSYS (SECCOMP_RET_TRACE without a tracer).  Map
 * changes are seen at the dynamic loader's r_brk, or at syscall stops. */
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "arch/arch.h"
#include "probes/err.h"
#include "probes/log.h"
#include "tracer/engine/attach.h"
#include "tracer/engine/detach.h"
#include "tracer/engine/mapsync.h"
#include "tracer/engine/plant.h"
#include "tracer/engine/ptrace.h"
#include "tracer/engine/stop.h"
#include "tracer/engine/tasks.h"
#include "tracer/events/mmapev.h"
#include "tracer/host/privs.h"
#include "tracer/host/procstatus.h"
#include "tracer/session.h"
#include "tracer/space/aspace.h"
#include "tracer/space/maptab.h"
#include "tracer/thread.h"

#define ATTACH_OPTIONS	(PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACECLONE | PTRACE_O_TRACEFORK | \
			 PTRACE_O_TRACEVFORK | PTRACE_O_TRACEEXEC)

/* AT_BASE of PID: where its dynamic loader is mapped, 0 for a static program. */
static uint64_t loader_base(pid_t pid)
{
	uint64_t aux[2], base = 0;
	char path[40];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/auxv", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	while (read(fd, aux, sizeof(aux)) == sizeof(aux) && aux[0] != AT_NULL)
		if (aux[0] == AT_BASE)
			base = aux[1];
	close(fd);
	return base;
}

int attach_loader_path(pid_t pid, char *path, size_t len)
{
	uint64_t base = loader_base(pid);
	struct maptab *mt;
	const struct map_entry *e;
	int r;

	if (!base)
		return -ENOENT;
	mt = maptab__new();
	if (!mt)
		return -ENOMEM;
	r = maptab__load_proc(mt, pid);
	e = r == 0 ? maptab__find(mt, base) : NULL;
	if (r == 0 && (!e || !e->path || e->path[0] != '/'))
		r = -ENOENT;
	if (r == 0)
		snprintf(path, len, "%s", e->path);
	maptab__free(mt);
	return r;
}

/* Is TID traced by ptap already (a thread auto-attached at its parent's clone)? */
static bool traced_by_us(pid_t tid)
{
	struct privs_target pt;

	return privs_check_target("/proc", tid, &pt, NULL) == -EBUSY && pt.tracer == getpid();
}

/* Is TID traced by another tracer?  Then its int3 hits would go there: refuse. */
static bool traced_elsewhere(pid_t tid)
{
	struct privs_target pt;

	return privs_check_target("/proc", tid, &pt, NULL) == -EBUSY && pt.tracer != getpid();
}

/*
 * Seize and interrupt every thread of TGID, going over /proc/TGID/task until
 * two passes find none new (threads spawn while we go).  0 or -errno.
 */
static int seize_threads(struct session *s, const struct privs_target *pt)
{
	struct ptap_err err = { .pos = -1 };
	char dir[40];
	int quiet = 0;

	snprintf(dir, sizeof(dir), "/proc/%d/task", pt->tgid);
	while (quiet < 2) {
		DIR *d = opendir(dir);
		struct dirent *de;
		bool found = false;

		if (!d)
			return -ESRCH;
		while ((de = readdir(d))) {
			pid_t tid = atoi(de->d_name);
			struct thread *t;
			int r;

			if (tid <= 0 || thread__find(s, tid))
				continue;
			/* each thread's own credentials: setresuid(2) may have changed one */
			if (tid != pt->tgid &&
			    privs_check_owner("/proc", tid, &err) < 0) {
				closedir(d);
				pr_err("%s\n", err.msg);
				return -EPERM;
			}
			r = pt_seize(tid, ATTACH_OPTIONS);
			if (r == -EPERM && traced_by_us(tid))
				r = 0;
			if (r == -ESRCH || (r < 0 && tid != pt->tgid && !traced_elsewhere(tid)))
				continue;	/* gone, or going: gdb does the same */
			if (r < 0) {
				struct privs_target pthr = *pt;

				closedir(d);
				pthr.pid = tid;	/* a thread may be traced by another tool alone */
				privs_explain_attach("/proc", tid == pt->tgid ? pt : &pthr, r,
						     &err);
				pr_err("%s\n", err.msg);
				return r;
			}
			t = tasks_add(s, tid, pt->tgid, NULL);
			if (!t) {
				closedir(d);
				return -ENOMEM;
			}
			pt_interrupt(tid);
			found = true;
		}
		closedir(d);
		quiet = found ? 0 : quiet + 1;
	}
	return 0;
}

struct tids {
	pid_t tgid;
	pid_t *v;
	size_t n;
};

static void collect_tids(struct session *s, struct thread *t, void *arg)
{
	struct tids *l = arg;

	(void)s;
	if (t->tgid == l->tgid)
		l->v[l->n++] = t->tid;
}

/* The threads of TGID in S's table, in an array the caller frees. */
static int tids_of(struct session *s, pid_t tgid, struct tids *l)
{
	l->tgid = tgid;
	l->n = 0;
	l->v = malloc((s->nthreads + 1) * sizeof(*l->v));
	if (!l->v)
		return -ENOMEM;
	thread__for_each(s, collect_tids, l);
	return 0;
}

/*
 * Take each seized thread's first stop: the interrupt (PTRACE_EVENT_STOP),
 * or a group-stop.  Any other stop that came first (a signal, a clone or
 * exec event) is queued for the main loop, and the thread is left to it.
 */
static void first_stops(struct session *s, const struct tids *l)
{
	const struct timespec ms = { 0, 1000000 };
	size_t waiting = l->n;

	/* bounded: a thread in vfork() stops only once its child has exec'd */
	for (int tries = 0; waiting && tries < 2000; tries++) {
		waiting = 0;
		for (size_t i = 0; i < l->n; i++) {
			struct thread *t = thread__find(s, l->v[i]);
			struct stop k;
			int st;
			pid_t r;

			if (!t || t->stopped)
				continue;
			r = waitpid(t->tid, &st, __WALL | WNOHANG);
			if (r <= 0) {
				waiting += r == 0;
				continue;
			}
			if (WIFEXITED(st) || WIFSIGNALED(st)) {
				tasks_forget(s, t);
				continue;
			}
			t->stopped = true;
			stop_classify(t->tid, st, &k);
			if (k.kind == STOP_EVENT) {
				t->stop_kind = STOP_EVENT;
				t->gstop = k.group;
			} else {	/* the loop's, which classifies it again when it takes it */
				t->stop_kind = STOP_OTHER;
				session__defer(s, t->tid, st);
			}
		}
		if (waiting)
			nanosleep(&ms, NULL);
	}
}

/* Does PID run under a seccomp filter or strict mode (Seccomp: in its status)? */
static bool under_seccomp(pid_t pid)
{
	return procstatus_field(pid, 0, "Seccomp", 10, 0) != 0;
}

/* Give TGID's threads one address space, its map table and a syscall instruction. */
static int setup_aspace(struct session *s, const struct tids *l, struct thread **inj)
{
	struct thread *rec = NULL;
	struct aspace *as = NULL;	/* aspace__new() leaves it so when it fails */
	int r = aspace__new(l->tgid, &as);

	if (r == 0)
		r = maptab__load_proc(as->mt, l->tgid);
	if (r < 0) {
		aspace__put(as);
		return r;
	}
	*inj = NULL;
	as->no_inject = under_seccomp(l->tgid);
	for (size_t i = 0; i < l->n; i++) {
		struct thread *t = thread__find(s, l->v[i]);
		arch_regs_t regs;

		if (!t)
			continue;
		t->as = aspace__get(as);
		t->sysmode = s->mmap_tracking == MMAP_SYSCALL || s->nsc;
		thread__read_comm(t);
		if (t->stop_kind != STOP_EVENT || pt_getregs(t->tid, &regs) < 0)
			continue;
		if (!as->syscall_pc && arch_regs_in_syscall(&regs))
			mapsync_note_syscall_pc(as, arch_regs_pc(&regs));
		if (!t->gstop && (!*inj || t->tid == l->tgid))
			*inj = t;
	}
	/* --events mmap: the table, through the leader (else another thread: it may have exited) */
	for (size_t i = 0; i < l->n; i++) {
		struct thread *t = thread__find(s, l->v[i]);

		if (t && t->as == as && (!rec || t->tid == l->tgid))
			rec = t;
	}
	if (rec)
		mmapev_table(s, rec);
	aspace__put(as);
	return 0;
}

/* Has TGID exited (no /proc entry, or a zombie: Z or X in its stat)? */
static bool process_gone(pid_t tgid)
{
	char path[40], buf[512], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", tgid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT || errno == ESRCH;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	p = strrchr(buf, ')');
	return n <= 0 || (p && p[1] == ' ' && (p[2] == 'Z' || p[2] == 'X'));
}

/*
 * PT's process exited between the checks of every pid and its attach: say
 * so.  The caller lets go of what it attached (all or nothing).  -ESRCH.
 */
static int attach_gone(const struct privs_target *pt)
{
	pr_err("pid %d (%s) exited while ptap was attaching: nothing was traced (the pids of -p "
	       "are traced all or none); leave it out of -p\n", pt->tgid, pt->comm);
	return -ESRCH;
}

/* Attach to the process of PT: seize, stop, read its maps, plant, resume. */
static int attach_process(struct session *s, const struct privs_target *pt)
{
	struct thread *inj;
	struct tids l = { 0 };
	int r = seize_threads(s, pt);

	if (r == 0)
		r = tids_of(s, pt->tgid, &l);
	if (r == 0 && !l.n)	/* every thread was gone by its seize */
		r = -ESRCH;
	if (r == -ESRCH && process_gone(pt->tgid))
		r = attach_gone(pt);
	else if (r == -ESRCH || r == -ENOMEM)	/* the others said why */
		pr_err("pid %d (%s): cannot attach: %s\n", pt->tgid, pt->comm, strerror(-r));
	if (r < 0) {
		free(l.v);
		return r;
	}
	first_stops(s, &l);
	r = setup_aspace(s, &l, &inj);
	if (r < 0 && process_gone(pt->tgid)) {
		free(l.v);
		return attach_gone(pt);
	}
	if (r < 0) {
		pr_err("pid %d: cannot read its map table: %s\n", pt->tgid, strerror(-r));
		free(l.v);
		return r;
	}
	if (inj && (r = plant_range(s, inj, 0, UINT64_MAX, false)) < 0 && r != -ESRCH)
		pr_warn("pid %d: planting failed: %s\n", pt->tgid, strerror(-r));
	else if (!inj && l.n && thread__find(s, l.v[0]) && thread__find(s, l.v[0])->as)
		thread__find(s, l.v[0])->as->plant_pending = true;	/* stopped: at SIGCONT */
	for (size_t i = 0; i < l.n; i++) {
		struct thread *t = thread__find(s, l.v[i]);

		if (!t || !t->stopped || t->stop_kind != STOP_EVENT)
			continue;	/* gone, or its first stop is queued for the loop */
		if (t->gstop) {		/* stopped by kill -STOP: stays so, traced */
			t->stopped = false;
			if (pt_listen(t->tid) == 0)
				continue;
		}
		thread__resume(t, 0);
	}
	pr_info("attached to pid %d (%s), %zu thread(s)\n", pt->tgid, pt->comm, l.n);
	free(l.v);
	return 0;
}

int attach_pids(struct session *s, const pid_t *pids, int n)
{
	struct privs_target *pt = calloc(n, sizeof(*pt));
	struct ptap_err err = { .pos = -1 };
	int r = pt ? 0 : -ENOMEM, m = 0;

	/* every pid checked before any is touched */
	for (int i = 0; i < n && r == 0; i++) {
		bool dup = false;

		r = privs_check_target("/proc", pids[i], &pt[m], &err);
		if (r < 0) {
			pr_err("%s\n", err.msg);
			break;
		}
		if (pt[m].tgid != pids[i]) {
			privs_note_thread(&pt[m], &err);
			pr_warn("%s\n", err.msg);
		}
		for (int j = 0; j < m; j++)
			dup |= pt[j].tgid == pt[m].tgid;
		m += !dup;
	}
	for (int i = 0; i < m && r == 0; i++)
		r = attach_process(s, &pt[i]);
	if (r < 0 && s->nthreads)
		detach_all(s);		/* never half attached */
	free(pt);
	return r;
}
