/* tracer/engine/mapsync.c: the map table fed by the target's own syscalls.  Each
 * change is applied at the syscall's exit stop, when its result is known
 * and before the target runs another instruction, so a library's probes
 * are planted before any of its code runs. */
#include <errno.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "arch/arch.h"
#include "probes/log.h"
#include "tracer/space/aspace.h"
#include "tracer/space/maptab.h"
#include "tracer/space/mem.h"
#include "tracer/events/mmapev.h"
#include "tracer/engine/plant.h"
#include "tracer/engine/ptrace.h"
#include "tracer/session.h"
#include "tracer/engine/mapsync.h"
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
