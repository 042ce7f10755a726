/* tracer/space/stacks.c: the stacks of a stopped thread (stacks.h). */
#include <string.h>
#include <sys/mman.h>

#include "arch/arch.h"
#include "tracer/space/maptab.h"
#include "tracer/space/mem.h"
#include "tracer/space/stacks.h"

/* Does the code at PC, executable, run a system call in its first bytes, as a signal restorer does? */
static bool is_restorer(pid_t tid, const struct maptab *mt, uint64_t pc)
{
	const struct map_entry *e = maptab__find(mt, pc);
	uint8_t code[16];
	ssize_t n;

	if (!e || !(e->prot & PROT_EXEC))
		return false;
	n = mem_read(tid, pc, code, sizeof(code));
	for (ssize_t i = 0; i + ARCH_SYSCALL_INSN_LEN <= n; i++)
		if (!memcmp(code + i, arch_syscall_insn, ARCH_SYSCALL_INSN_LEN))
			return true;
	return false;
}

/*
 * Are the ARCH_SIGFRAME_WORDS words at W a signal frame as the kernel
 * builds it (arch.h)?  Its uc_link is 0, its saved flags have bit 1 and
 * the interrupt flag set and nothing above bit 21, its code segment is the
 * user one, its saved pc is in code and its saved stack pointer in a
 * writable mapping, and its first word is the restorer.  A stale
 * return address into ptap's agent left in a live frame's unused slot has
 * a stack address below it and a small number above it often enough (1
 * detach in 100 of a fork server, when only those three words were looked
 * at): the rest of the frame tells it apart.
 */
static bool is_sigframe(pid_t tid, const struct maptab *mt, const uint64_t *w)
{
	const struct map_entry *e;
	uint64_t flags = w[ARCH_SIGFRAME_FLAGS];

	if (w[ARCH_SIGFRAME_UC_LINK] || !(flags & ARCH_FLAGS_ONE) || !(flags & ARCH_FLAGS_IF) ||
	    flags >= (1ull << 22) || (w[ARCH_SIGFRAME_CS] & 0xffff) != ARCH_CS_USER64)
		return false;
	e = maptab__find(mt, w[ARCH_SIGFRAME_PC]);
	if (!e || !(e->prot & PROT_EXEC))
		return false;
	e = maptab__find(mt, w[ARCH_SIGFRAME_SP]);
	return e && (e->prot & PROT_WRITE) && is_restorer(tid, mt, w[ARCH_SIGFRAME_RESTORER]);
}

/* Is O the mapping of one of the N stack pointers at SPS? */
static bool listed(const struct maptab *mt, const uint64_t *sps, size_t n, const struct map_entry *o)
{
	for (size_t k = 0; k < n; k++) {
		const struct map_entry *e = maptab__find(mt, sps[k]);

		if (e && e->start == o->start)
			return true;
	}
	return false;
}

int stacks_scan(pid_t tid, const struct maptab *mt, uint64_t sp, const struct stacks_scan *sc)
{
	static uint64_t buf[8192];
	uint64_t sps[STACKS_MAX] = { sp };	/* a stack pointer on each stack to read */
	size_t nsps = 1;

	for (size_t q = 0; q < nsps; q++) {
		const struct map_entry *e = maptab__find(mt, sps[q]);
		uint64_t at = sps[q] & ~7ull, end;

		if (!e) {
			if (!q)
				return -1;
			continue;
		}
		/*
		 * From the word below the thread's sp: a thread on the
		 * restorer's two instructions has returned from its handler
		 * (the ret took the restorer's word) and not yet from the
		 * frame above it
		 */
		if (!q && at - 8 >= e->start)
			at -= 8;
		end = e->end - at > STACKS_READ_MAX ? at + STACKS_READ_MAX : e->end;
		while (at < end) {
			size_t len = end - at < sizeof(buf) ? end - at : sizeof(buf);
			ssize_t got = mem_read(tid, at, buf, len);
			size_t n = got > 0 ? (size_t)got / 8 : 0;

			if (!n) {
				if (!q && at + 8 >= (sps[q] & ~7ull))
					return -1;	/* none of it readable */
				break;
			}
			if (sc->words && sc->words(buf, n, sc->arg))
				return 1;
			for (size_t i = 0; i + ARCH_SIGFRAME_WORDS <= n; i++) {
				const struct map_entry *o;

				if (!is_sigframe(tid, mt, buf + i))
					continue;
				if (sc->frame && sc->frame(buf + i, sc->arg))
					return 1;
				o = maptab__find(mt, buf[i + ARCH_SIGFRAME_SP]);
				if (o && nsps < STACKS_MAX && !listed(mt, sps, nsps, o))
					sps[nsps++] = buf[i + ARCH_SIGFRAME_SP];
			}
			if ((size_t)got < sizeof(buf) || n < ARCH_SIGFRAME_WORDS)
				break;	/* the end, or a page that cannot be read */
			/* the next read overlaps: a frame across the two */
			at += (n - ARCH_SIGFRAME_WORDS + 1) * 8;
		}
	}
	return 0;
}
