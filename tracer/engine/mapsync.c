/* tracer/engine/mapsync.c: the map table kept in sync with the process
 * (mapsync.h).  A syscall's change is applied at its exit stop, when its
 * result is known and before the target runs another instruction, so a
 * library's probes are planted before any of its code runs; at r_brk the
 * fresh /proc maps are compared with the table. */
#include <errno.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "arch/arch.h"
#include "probes/log.h"
#include "tracer/engine/mapsync.h"
#include "tracer/engine/plant.h"
#include "tracer/engine/ptrace.h"
#include "tracer/events/mmapev.h"
#include "tracer/session.h"
#include "tracer/space/aspace.h"
#include "tracer/space/maptab.h"
#include "tracer/space/mem.h"
#include "tracer/thread.h"

#ifndef MREMAP_DONTUNMAP
#define MREMAP_DONTUNMAP 4
#endif

const long mapsync_traced[] = {
	SYS_mmap, SYS_munmap, SYS_mremap, SYS_mprotect,
	SYS_execve, SYS_execveat, SYS_clone, SYS_clone3, SYS_fork, SYS_vfork,
};
const int mapsync_ntraced = sizeof(mapsync_traced) / sizeof(mapsync_traced[0]);

static uint64_t page_up(uint64_t len)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);

	return (len + page - 1) & ~(page - 1);
}

/* Strip CLONE_UNTRACED: a child that escapes tracing dies on our first int3. */
static void clone_entry(struct thread *t)
{
	arch_regs_t regs;
	uint64_t flags;

	if (t->sc_nr == SYS_clone) {
		t->clone_flags = t->sc_args[0];
		if (!(t->clone_flags & CLONE_UNTRACED) || pt_getregs(t->tid, &regs) < 0)
			return;
		t->clone_flags &= ~(uint64_t)CLONE_UNTRACED;
		arch_syscall_set_arg(&regs, 0, t->clone_flags);
		pt_setregs(t->tid, &regs);
		return;
	}
	/* clone3: the flags are the first field of struct clone_args. */
	t->clone_flags = 0;
	if (mem_read(t->tid, t->sc_args[0], &flags, sizeof(flags)) != sizeof(flags))
		return;
	t->clone_flags = flags & ~(uint64_t)CLONE_UNTRACED;
	if (flags & CLONE_UNTRACED)
		mem_write(t->as->memfd, t->sc_args[0], &t->clone_flags, sizeof(flags));
}

bool mapsync_on_entry(struct session *s, struct thread *t)
{
	(void)s;
	switch (t->sc_nr) {
	case SYS_clone:
	case SYS_clone3:
		clone_entry(t);
		return false;
	case SYS_fork:
		t->clone_flags = 0;
		return false;
	case SYS_vfork:
		t->clone_flags = CLONE_VM | CLONE_VFORK;
		return false;
	case SYS_mmap:
	case SYS_munmap:
	case SYS_mremap:
	case SYS_mprotect:
		return true;
	default:
		return false;
	}
}

void mapsync_note_syscall_pc(struct aspace *as, uint64_t pc)
{
	uint8_t insn[ARCH_SYSCALL_INSN_LEN];
	uint64_t at = pc - ARCH_SYSCALL_INSN_LEN;

	if (mem_read(as->pid, at, insn, sizeof(insn)) == sizeof(insn) &&
	    !memcmp(insn, arch_syscall_insn, sizeof(insn)))
		as->syscall_pc = at;
}

/* The file behind descriptor FD of T, as a map entry's identity. */
static void entry_file(const struct thread *t, int fd, struct map_entry *e, char *path,
		       size_t len)
{
	char link[64];
	struct stat st;
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/%d/fd/%d", t->tgid, fd);
	if (stat(link, &st) == 0) {
		e->dev = st.st_dev;
		e->ino = st.st_ino;
	}
	n = readlink(link, path, len - 1);
	path[n > 0 ? n : 0] = '\0';
	e->path = n > 0 ? path : NULL;
}

static int on_mmap(struct session *s, struct thread *t, uint64_t start)
{
	const uint64_t *a = t->sc_args;
	struct map_entry e = { .start = start, .end = start + page_up(a[1]), .pgoff = a[5],
			       .prot = (int)a[2], .flags = (int)a[3] };
	char path[4096];
	int r;

	if (!(e.flags & MAP_ANONYMOUS))
		entry_file(t, (int)a[4], &e, path, sizeof(path));
	r = maptab__insert(t->as->mt, &e);
	mmapev_syscall(s, t, start, &e);
	if (r < 0)
		return r;
	aspace__drop_stale_sites(t->as, e.start, e.end);
	if (!(e.prot & PROT_EXEC))
		return 0;
	return plant_range(s, t, e.start, e.end, true);	/* just mapped: nothing ran there */
}

int mapsync_on_exit(struct session *s, struct thread *t, const struct ptrace_syscall_info *info)
{
	const uint64_t *a = t->sc_args;
	struct aspace *as = t->as;
	uint64_t ret = (uint64_t)info->exit.rval;
	int r = 0;

	if (info->exit.is_error)
		return 0;
	if (t->sc_nr != SYS_mmap)	/* on_mmap() records it, with its file */
		mmapev_syscall(s, t, ret, NULL);
	switch (t->sc_nr) {
	case SYS_mmap:
		r = on_mmap(s, t, ret);
		break;
	case SYS_munmap:
		r = maptab__remove(as->mt, a[0], a[0] + page_up(a[1]));
		aspace__drop_stale_sites(as, a[0], a[0] + page_up(a[1]));
		break;
	case SYS_mprotect:
		r = maptab__protect(as->mt, a[0], a[0] + page_up(a[1]), (int)a[2]);
		if (r == 0 && (a[2] & PROT_EXEC))
			r = plant_range(s, t, a[0], a[0] + page_up(a[1]), false);
		break;
	case SYS_mremap:
		r = maptab__move(as->mt, a[0], page_up(a[1]), ret, page_up(a[2]),
				 (a[3] & MREMAP_DONTUNMAP) != 0);
		if (r == 0 && ret != a[0])
			aspace__move_sites(as, a[0], page_up(a[1]), ret);
		break;
	}
	if (r < 0 && r != -ESRCH)
		pr_warn("pid %d: map table update for syscall %ld failed: %s\n", t->tgid, t->sc_nr,
			strerror(-r));
	return r == -ESRCH ? r : 0;
}

/* Same mapping: same range of the same file at the same offset. */
static bool same_mapping(const struct map_entry *a, const struct map_entry *b)
{
	return a->start == b->start && a->end == b->end && a->pgoff == b->pgoff &&
	       a->dev == b->dev && a->ino == b->ino && a->flags == b->flags;
}

static bool is_scratch(const struct aspace *as, uint64_t addr)
{
	for (size_t i = 0; i < as->nscratch; i++)
		if (addr >= as->scratch[i].start && addr < as->scratch[i].start + as->scratch[i].len)
			return true;
	return false;
}

int mapsync_rbrk(struct session *s, struct thread *t)
{
	struct aspace *as = t->as;
	struct maptab *fresh = maptab__new();
	bool *exec_new = NULL;
	size_t i;
	/* through T: the leader may have exited (pthread_exit) while the rest runs */
	int r = fresh ? maptab__load_proc(fresh, t->tid) : -ENOMEM;

	if (r == 0 && !(exec_new = calloc(maptab__count(fresh) + 1, sizeof(*exec_new))))
		r = -ENOMEM;
	if (r < 0) {
		maptab__free(fresh);
		pr_debug("pid %d: cannot re-read the maps at r_brk: %s\n", t->tgid, strerror(-r));
		return 0;
	}
	/* gone or replaced: forget, with the sites planted there */
	for (i = 0; i < maptab__count(as->mt);) {
		const struct map_entry *e = maptab__at(as->mt, i);
		const struct map_entry *f = maptab__find(fresh, e->start);
		uint64_t lo = e->start, hi = e->end;

		if (is_scratch(as, lo) || (f && same_mapping(e, f))) {
			if (f && f->prot != e->prot) {	/* mprotect: same pages, same gen */
				maptab__protect(as->mt, lo, hi, f->prot);
				mmapev_entry(s, t, "mprotect", f);
			}
			i++;
			continue;
		}
		mmapev_entry(s, t, "munmap", e);
		maptab__remove(as->mt, lo, hi);
		aspace__drop_stale_sites(as, lo, hi);
	}
	/*
	 * New: first into the table, every one of them; then plant in what is
	 * executable.  Planting may place a scratch page, and a gap chosen
	 * while a library's later segments are still missing from the table
	 * lies in them (MAP_FIXED_NOREPLACE then fails with EEXIST).
	 */
	for (i = 0; i < maptab__count(fresh) && r >= 0; i++) {
		const struct map_entry *f = maptab__at(fresh, i);
		const struct map_entry *e = maptab__find(as->mt, f->start);

		if ((e && same_mapping(e, f)) || is_scratch(as, f->start))
			continue;
		r = maptab__insert(as->mt, f);
		if (r == 0) {
			mmapev_entry(s, t, "mmap", f);
			aspace__drop_stale_sites(as, f->start, f->end);
		}
		exec_new[i] = r == 0 && (f->prot & PROT_EXEC);
	}
	for (i = 0; i < maptab__count(fresh) && r >= 0; i++) {
		const struct map_entry *f = maptab__at(fresh, i);

		if (exec_new[i])
			r = plant_range(s, t, f->start, f->end, false);
	}
	free(exec_new);
	maptab__free(fresh);
	return r == -ESRCH ? r : 0;
}
