/* tracer/events/stack.c: a hit's call stack (stack.h).  The stack's first
 * SNAP_LEN bytes are read at once; the unwinders read from that copy, and
 * from the stopped thread past it.  What an address is comes from a table
 * keyed by the file mapped there and the address's offset in it, so a frame
 * is looked up in DWARF once per file, whichever process maps it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch/arch.h"
#include "dwarf/unwind.h"
#include "probes/log.h"
#include "tracer/events/stack.h"
#include "tracer/session.h"
#include "tracer/space/aspace.h"
#include "tracer/probe.h"
#include "tracer/space/maptab.h"
#include "tracer/space/mapview.h"
#include "tracer/space/mem.h"
#include "tracer/thread.h"

#define SNAP_LEN	8192	/* bytes of the stack read at once, from the sp up */
#define INLINE_MAX	16	/* frames one address may be: inlined functions and their host */

/* What the address at OFF of the file DEV/INO is, CALL: as a return address. */
struct sym_ent {
	uint64_t dev, ino, off;
	bool call, used;
	int n;
	struct stack_frame *f;	/* N frames, innermost first; their ADDR is not kept */
};

struct stacks {
	uint64_t *pcs;			/* stack_max */
	struct stack_frame *frames;	/* stack_max: a record's */
	char *snap;			/* SNAP_LEN */
	uint64_t snap_addr;
	size_t snap_got;
	pid_t tid;
	struct sym_ent *tab;		/* open addressing, CAP a power of two, at most half full */
	size_t cap, n;
	bool said;			/* an unwinder could not be made: said once */
};

int stack_setup(struct session *s)
{
	struct stacks *k;

	if (s->stack_mode == STACK_NONE)
		return 0;
	k = calloc(1, sizeof(*k));
	if (!k)
		return -ENOMEM;
	k->pcs = calloc((size_t)s->stack_max, sizeof(*k->pcs));
	k->frames = calloc((size_t)s->stack_max, sizeof(*k->frames));
	k->snap = malloc(SNAP_LEN);
	k->cap = 1024;
	k->tab = calloc(k->cap, sizeof(*k->tab));
	s->stacks = k;
	if (!k->pcs || !k->frames || !k->snap || !k->tab) {
		stack_fini(s);
		return -ENOMEM;
	}
	return 0;
}

void stack_fini(struct session *s)
{
	struct stacks *k = s->stacks;

	if (!k)
		return;
	for (size_t i = 0; k->tab && i < k->cap; i++)
		if (k->tab[i].used) {
			stack_frames_free(k->tab[i].f, k->tab[i].n);
			free(k->tab[i].f);
		}
	free(k->tab);
	free(k->pcs);
	free(k->frames);
	free(k->snap);
	free(k);
	s->stacks = NULL;
}

/* The unwinders' memory: the copy of the stack, else the stopped thread's. */
static ssize_t stack_read(void *priv, uint64_t addr, void *buf, size_t len)
{
	const struct stacks *k = priv;

	if (addr >= k->snap_addr && addr - k->snap_addr <= k->snap_got &&
	    len <= k->snap_got - (addr - k->snap_addr)) {
		memcpy(buf, k->snap + (addr - k->snap_addr), len);
		return (ssize_t)len;
	}
	return mem_read(k->tid, addr, buf, len);
}

/* The unwinder's OPEN_FILE: the file the process maps at ADDR (tracer/space/mapview.h). */
static int open_mapped(void *priv, uint64_t addr)
{
	const struct aspace *as = priv;
	const struct map_entry *e = maptab__find(as->mt, addr);

	if (!e || !e->path)
		return -ENOENT;
	return mapview__open_file(as->pid, e->start, e->end, e->path, e->dev, e->ino);
}

/* The modules of T's process as they are now mapped: for CFI, and symbols not known yet. */
static struct unwinder *unwinder_of(struct stacks *k, struct thread *t)
{
	struct aspace *as = t->as;
	uint64_t gen = maptab__gen(as->mt);
	char path[64];
	FILE *f;
	int r;

	if (as->unw && as->unw_gen == gen)
		return as->unw;
	if (!as->unw && (r = unwinder__new(as->pid, open_mapped, as, &as->unw)) < 0) {
		if (!k->said)
			pr_warn("-g: no unwinder for pid %d: %s\n", as->pid, strerror(-r));
		k->said = true;
		return NULL;
	}
	snprintf(path, sizeof(path), "/proc/%d/maps", as->pid);
	f = fopen(path, "re");
	if (f) {
		r = unwinder__report(as->unw, f);
		fclose(f);
	} else {
		r = -errno;
	}
	if (r < 0) {	/* read again at the next hit */
		if (!k->said)
			pr_warn("-g: the modules of pid %d not read (%s): stacks stop at the first "
				"frame ptap cannot place\n", as->pid, strerror(-r));
		k->said = true;
		return as->unw;
	}
	as->unw_gen = gen;
	return as->unw;
}

static size_t sym_hash(uint64_t dev, uint64_t ino, uint64_t off, bool call)
{
	uint64_t h = (dev * 0x9e3779b97f4a7c15ULL) ^ (ino * 0xc2b2ae3d27d4eb4fULL) ^
		     (off * 0x165667b19e3779f9ULL) ^ call;

	return (size_t)(h ^ (h >> 29));
}

static struct sym_ent *sym_slot(struct sym_ent *tab, size_t cap, uint64_t dev, uint64_t ino,
				uint64_t off, bool call)
{
	size_t i = sym_hash(dev, ino, off, call) & (cap - 1);

	while (tab[i].used && !(tab[i].dev == dev && tab[i].ino == ino && tab[i].off == off &&
				tab[i].call == call))
		i = (i + 1) & (cap - 1);
	return &tab[i];
}

static int sym_grow(struct stacks *k)
{
	size_t cap = k->cap * 2;
	struct sym_ent *tab = calloc(cap, sizeof(*tab));

	if (!tab)
		return -ENOMEM;
	for (size_t i = 0; i < k->cap; i++)
		if (k->tab[i].used)
			*sym_slot(tab, cap, k->tab[i].dev, k->tab[i].ino, k->tab[i].off,
				  k->tab[i].call) = k->tab[i];
	free(k->tab);
	k->tab = tab;
	k->cap = cap;
	return 0;
}

/* The modules of T's process were not read as its map table now is (a failure): no symbol is kept. */
static bool as_stale(const struct thread *t)
{
	return t->as->unw_gen != maptab__gen(t->as->mt);
}

/*
 * What PC is in T's process: the table's frames (1 or more), or *ONE for an
 * address no file is mapped at, or one not looked up (memory ran out).
 */
static int sym_of(struct stacks *k, struct thread *t, uint64_t pc, bool call,
		  const struct stack_frame **out, struct stack_frame *one)
{
	const struct map_entry *e = maptab__find(t->as->mt, call && pc ? pc - 1 : pc);
	struct stack_frame tmp[INLINE_MAX];
	struct unwinder *u;
	struct sym_ent *se;
	uint64_t off;
	int n;

	*one = (struct stack_frame){ .addr = pc, .module = e ? e->path : NULL };
	*out = one;
	if (!e || (!e->dev && !e->ino))
		return 1;	/* anonymous memory: code made at run time */
	off = pc - e->start + e->pgoff;
	se = sym_slot(k->tab, k->cap, e->dev, e->ino, off, call);
	if (se->used) {
		*out = se->f;
		return se->n;
	}
	if ((k->n + 1) * 2 > k->cap) {
		if (sym_grow(k) < 0)
			return 1;
		se = sym_slot(k->tab, k->cap, e->dev, e->ino, off, call);
	}
	u = unwinder_of(k, t);
	if (!u || as_stale(t) || (n = unwinder__symbolize(u, pc, call, tmp, INLINE_MAX)) < 0)
		return 1;
	if (!tmp[n - 1].module) {	/* no module there (yet): not what the file is, not kept */
		stack_frames_free(tmp, n);
		return 1;
	}
	se->f = malloc((size_t)n * sizeof(*se->f));
	if (!se->f) {
		stack_frames_free(tmp, n);
		return 1;
	}
	memcpy(se->f, tmp, (size_t)n * sizeof(*tmp));
	*se = (struct sym_ent){ .dev = e->dev, .ino = e->ino, .off = off, .call = call,
				.used = true, .n = n, .f = se->f };
	k->n++;
	*out = se->f;
	return n;
}

/* Is ST a return probe's exit by a tail call (its frame gone, the return address at sp)? */
static bool tail_exit(const struct site *st)
{
	for (int i = 0; i < st->nprobes; i++)
		if (st->probes[i]->exit_of && st->probes[i]->exit_kind == ARCH_EXIT_TAIL)
			return true;
	return false;
}

unsigned int stack_take(struct session *s, struct thread *t, const struct site *st,
			const uint64_t *dregs, const struct stack_frame **frames)
{
	struct stacks *k = s->stacks;
	struct stack_mem m = { stack_read, k };
	const struct stack_frame *f;
	struct stack_frame one;
	uint64_t regs[ARCH_DWARF_NREGS];
	unsigned int nf = 0;
	int npc = 0, n;
	ssize_t got;

	*frames = k->frames;
	memcpy(regs, dregs, sizeof(regs));
	regs[16] = st->addr;	/* at a trampoline, the registers are the site's */
	k->tid = t->tid;
	k->snap_addr = regs[7];
	got = mem_read(t->tid, k->snap_addr, k->snap, SNAP_LEN);
	k->snap_got = got > 0 ? (size_t)got : 0;
	if (s->stack_mode == STACK_DWARF) {
		struct unwinder *u = unwinder_of(k, t);

		if (u)
			npc = unwinder__unwind(u, t->tid, regs, &m, k->pcs, s->stack_max);
		if (npc < 1) {
			k->pcs[0] = regs[16];
			npc = 1;
		}
	} else {
		int ra_at = tail_exit(st) ? 0 : arch_insn_ra_at_sp(&st->insn);

		/* at a function's first byte nothing is pushed yet, whatever the instruction */
		if (ra_at < 0 && (n = sym_of(k, t, regs[16], false, &f, &one)) > 0 &&
		    f[n - 1].func && f[n - 1].off == 0)
			ra_at = 0;
		npc = stack_unwind_fp(regs, ra_at, &m, k->pcs, s->stack_max);
	}
	for (int i = 0; i < npc && nf < (unsigned int)s->stack_max; i++) {
		n = sym_of(k, t, k->pcs[i], i > 0, &f, &one);
		for (int j = 0; j < n && nf < (unsigned int)s->stack_max; j++) {
			k->frames[nf] = f[j];
			k->frames[nf++].addr = k->pcs[i];
		}
	}
	return nf;
}
