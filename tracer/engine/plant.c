/* tracer/engine/plant.c: placing probe sites.  A probe's runtime address in a
 * mapping M of its module is M.start + (file_offset - M.pgoff), where
 * file_offset comes from the PT_LOAD that holds the link-time address
 * (dwarf/elfmod.h).  The out-of-line copy of the displaced instruction goes
 * into a scratch page that ptap maps within reach (+-2 GiB) of the module. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "arch/arch.h"
#include "probes/array.h"
#include "probes/log.h"
#include "tracer/engine/inject.h"
#include "tracer/engine/inproc.h"
#include "tracer/engine/plant.h"
#include "tracer/engine/ptrace.h"
#include "tracer/probe.h"
#include "tracer/session.h"
#include "tracer/space/aspace.h"
#include "tracer/space/maptab.h"
#include "tracer/space/mem.h"
#include "tracer/space/stacks.h"
#include "tracer/thread.h"

#define SCRATCH_MIN	0x10000ULL	/* stay clear of vm.mmap_min_addr */

/* An agent trampoline's slot (a whole number of ARCH_SLOT_SIZE slots). */
#define AGENT_SLOT	((ARCH_AGENT_TRAMP_MAX + ARCH_SLOT_SIZE - 1) / ARCH_SLOT_SIZE * ARCH_SLOT_SIZE)

/* The bytes of ST's slot. */
static size_t slot_len(const struct site *st)
{
	return st->agent ? AGENT_SLOT : ARCH_SLOT_SIZE;
}

/* Can code in [LO, HI) and a slot of LEN bytes at SLOT reach each other with rel32? */
static bool reachable(uint64_t slot, uint64_t len, uint64_t lo, uint64_t hi)
{
	int64_t a = (int64_t)(slot + len - lo), b = (int64_t)(hi - slot);

	return a <= (int64_t)ARCH_OOL_REACH && a >= -(int64_t)ARCH_OOL_REACH &&
	       b <= (int64_t)ARCH_OOL_REACH && b >= -(int64_t)ARCH_OOL_REACH;
}

/* mmap a scratch page at GAP in T's process, only if the range is free.  0, or -errno. */
static int scratch_mmap(struct session *s, struct thread *t, uint64_t gap)
{
	uint64_t args[6] = { gap, SCRATCH_LEN, PROT_READ | PROT_EXEC,
			     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, (uint64_t)-1, 0 };
	long ret;
	int r = inject_syscall(s, t, SYS_mmap, args, &ret);

	if (r < 0)
		return r;
	if (ret < 0)
		return (int)ret;
	if ((uint64_t)ret != gap) {	/* a kernel without MAP_FIXED_NOREPLACE (< 4.17) */
		args[0] = ret;
		args[1] = SCRATCH_LEN;
		inject_syscall(s, t, SYS_munmap, args, &ret);
		return -EEXIST;
	}
	return 0;
}

/*
 * Map a new scratch page reachable from [LO, HI).  0, or -errno.  The gap
 * comes from the table ptap keeps; when the kernel finds something there
 * (EEXIST: a mapping the table does not have yet, e.g. made by another
 * thread since), the gap is chosen again from the live map table, a few
 * times, before giving up.
 */
static int scratch_map(struct session *s, struct thread *t, uint64_t lo, uint64_t hi,
		       struct scratch **out)
{
	struct aspace *as = t->as;
	struct map_entry e = { .prot = PROT_READ | PROT_EXEC,
			       .flags = MAP_PRIVATE | MAP_ANONYMOUS, .path = "[ptap]" };
	struct maptab *live = NULL;
	uint64_t gap = 0;
	int r, tries = 0;

	/* room first: a page mapped must be in as->scratch, or detach would leave it */
	r = array_grow((void **)&as->scratch, &as->scratch_cap, sizeof(*as->scratch),
		       as->nscratch + 1);
	if (r < 0)
		return r;
	do {
		const struct maptab *mt = as->mt;

		if (tries) {
			if (!live && !(live = maptab__new()))
				return -ENOMEM;
			r = maptab__load_proc(live, t->tid);
			if (r < 0)
				break;
			mt = live;
		}
		r = maptab__find_gap(mt, lo, hi, SCRATCH_LEN, ARCH_OOL_REACH, SCRATCH_MIN, &gap);
		if (r == 0)
			r = scratch_mmap(s, t, gap);
		if (r == -EEXIST)
			pr_debug("pid %d: 0x%lx is taken (a mapping ptap had not seen): another gap\n",
				 t->tgid, gap);
	} while (r == -EEXIST && ++tries < 4);
	maptab__free(live);
	if (r < 0)
		return r;
	as->scratch[as->nscratch] = (struct scratch){ .start = gap, .len = SCRATCH_LEN };
	*out = &as->scratch[as->nscratch++];
	e.start = gap;
	e.end = gap + SCRATCH_LEN;
	return maptab__insert(as->mt, &e);
}

static int slot_alloc(struct session *s, struct thread *t, uint64_t lo, uint64_t hi,
		      uint64_t len, uint64_t *slot)
{
	struct aspace *as = t->as;
	struct scratch *sc = NULL;
	int r;

	for (size_t i = 0; i < as->nscratch && !sc; i++) {
		struct scratch *c = &as->scratch[i];

		if (c->used + len <= c->len && reachable(c->start + c->used, len, lo, hi))
			sc = c;
	}
	if (!sc && (r = scratch_map(s, t, lo, hi, &sc)) < 0)
		return r;
	*slot = sc->start + sc->used;
	sc->used += len;
	return 0;
}

/* The span of every mapping of file (DEV, INO): what a slot must reach. */
static void module_span(const struct maptab *mt, uint64_t dev, uint64_t ino, uint64_t *lo,
			uint64_t *hi)
{
	*lo = UINT64_MAX;
	*hi = 0;
	for (size_t i = 0; i < maptab__count(mt); i++) {
		const struct map_entry *e = maptab__at(mt, i);

		if (e->ino == ino && e->dev == dev) {
			*lo = e->start < *lo ? e->start : *lo;
			*hi = e->end > *hi ? e->end : *hi;
		}
	}
}

/* The site of probe P at ADDR: the instruction moved to its runtime address. */
static void site_init(struct site *st, struct probe *p, uint64_t addr, uint64_t gen)
{
	memset(st, 0, sizeof(*st));
	st->addr = addr;
	st->bias = addr - p->rp.vaddr;
	st->map_gen = gen;
	st->probes[0] = p;
	st->nprobes = 1;
	st->insn = p->rp.insn;
	st->insn.pc = addr;
	if (st->insn.step != ARCH_STEP_OOL && st->insn.step != ARCH_STEP_RET)
		st->insn.target += st->bias;
}

/* Say why P could not be planted at ADDR, and keep the reason for the summary. */
static int plant_fail(struct probe *p, const struct thread *t, uint64_t addr, const char *fmt,
		      const char *arg)
{
	char why[128];

	snprintf(why, sizeof(why), fmt, arg);
	snprintf(p->why, sizeof(p->why), "%s", why);
	if (p->glob) {		/* told with the glob's other sites: report_glob_fails() */
		p->fail_addr = addr;
		pr_info("%s: not planted at 0x%lx in pid %d: %s\n", p->event, (unsigned long)addr,
			t->tgid, why);
		return 0;
	}
	pr_warn("%s: not planted at 0x%lx in pid %d: %s%s\n", p->event, (unsigned long)addr,
		t->tgid, why, p->exit_of ? " (an exit of the function: the calls that leave "
		"through it are not recorded)" : "");
	return 0;
}

#define GLOB_FAILS_SHOWN	3

/*
 * The sites of each glob that one plant_range() could not plant in T's
 * process, in one message per glob: how many, and the first few with why
 * (once when they all failed for one reason; -v: each one).  A glob's
 * probes are next to each other in S->probes.
 */
static void report_glob_fails(struct session *s, const struct thread *t)
{
	for (int i = 0, j; i < s->nprobes; i = j) {
		const char *glob = s->probes[i].glob;
		char list[GLOB_FAILS_SHOWN * 256] = "";
		const struct probe *first = NULL;
		bool one_why = true;
		size_t used = 0;
		int nfail = 0;

		for (j = i; j < s->nprobes && s->probes[j].glob == glob; j++)
			if (glob && s->probes[j].fail_addr) {
				first = first ? first : &s->probes[j];
				one_why &= !strcmp(first->why, s->probes[j].why);
			}
		for (int k = i; first && k < j; k++) {
			struct probe *p = &s->probes[k];

			if (!p->fail_addr)
				continue;
			if (nfail < GLOB_FAILS_SHOWN && used < sizeof(list))
				used += snprintf(list + used, sizeof(list) - used, "%s%s at 0x%lx%s%s",
						 nfail ? (one_why ? ", " : "; ") : "", p->event,
						 (unsigned long)p->fail_addr, one_why ? "" : ": ",
						 one_why ? "" : p->why);
			nfail++;
			p->fail_addr = 0;
		}
		if (nfail && one_why)
			pr_warn("'%s': %d of %d sites not planted in pid %d: %s (%s%s)\n", glob, nfail,
				j - i, t->tgid, first->why, list,
				nfail > GLOB_FAILS_SHOWN ? ", ..." : "");
		else if (nfail)
			pr_warn("'%s': %d of %d sites not planted in pid %d: %s%s\n", glob, nfail,
				j - i, t->tgid, list, nfail > GLOB_FAILS_SHOWN ? "; ..." : "");
	}
}

/*
 * The code of ST's slot into BUF (slot_len(ST) bytes): the out-of-line copy
 * of its instruction, or a jump site's trampoline -- one that traps, or one
 * that calls the agent.  Bytes used, or -errno.
 */
static int slot_build(const struct site *st, uint8_t *buf)
{
	if (st->agent)
		return arch_agent_tramp_build(&st->jump, st->addr, st->slot, st->agent_fn,
					      st->agent, buf, AGENT_SLOT);
	if (st->jump.len)
		return arch_jump_tramp_build(&st->jump, st->addr, st->slot, buf, ARCH_SLOT_SIZE);
	return arch_ool_build(&st->insn, st->slot, buf, ARCH_SLOT_SIZE);
}

/*
 * ST's slot, reachable from its module (the jump itself is written by the
 * caller, once the site is in the table).
 */
static int prepare_slot(struct session *s, struct thread *t, struct site *st,
			uint64_t dev, uint64_t ino)
{
	uint8_t buf[AGENT_SLOT];
	uint64_t lo, hi;
	int r;

	module_span(t->as->mt, dev, ino, &lo, &hi);
	r = slot_alloc(s, t, lo, hi, slot_len(st), &st->slot);
	if (r == 0)
		r = slot_build(st, buf);
	if (r >= 0)
		r = mem_write(t->as->memfd, st->slot, buf, slot_len(st));
	if (r >= 0 && st->jump.len && !st->agent)
		aspace__set_slot_owner(t->as, st->slot, st->addr);
	return r < 0 ? r : 0;
}

/*
 * Write the site's code: the int3, or for a jump site the jump.  -errno.
 * A jump is written whole, in one write, where nothing runs yet.
 */
static int write_site(struct aspace *as, const struct site *st)
{
	uint8_t patch[ARCH_JUMP_MAX];
	int r;

	if (!st->jump.len)
		return mem_write(as->memfd, st->addr, arch_bp_insn, ARCH_BP_LEN);
	r = arch_jump_patch(&st->jump, st->addr, st->slot, patch);
	return r < 0 ? r : mem_write(as->memfd, st->addr, patch, st->jump.len);
}

/*
 * ---- Jumps into a running process ----
 *
 * Attached, with every thread of the process stopped, a jump may replace
 * the first instructions of a probe only where no thread is inside them: no
 * thread's pc, and no word of any thread's stack that could be a return
 * address or a pc saved by a signal frame (a word that points into
 * executable memory), lies in the bytes after the first; its stacks are
 * the one it runs on and the alternate ones its signal frames lead to
 * (stacks.h).  (A call in those bytes is never relocated:
 * arch_jump_analyze().)  Those words, gathered once for a plant_range(),
 * sorted:
 */
struct live_code {
	struct aspace *as;
	uint64_t *v;
	size_t n, cap;
	bool ok;		/* every thread of AS stopped, and read */
};

static int live_push(struct live_code *lc, uint64_t w)
{
	if (array_grow((void **)&lc->v, &lc->cap, sizeof(*lc->v), lc->n + 1) < 0)
		return -ENOMEM;
	lc->v[lc->n++] = w;
	return 0;
}

/* Words of a stack (stacks_scan()): those that point into code, pushed */
static bool live_words(const uint64_t *w, size_t n, void *arg)
{
	struct live_code *lc = arg;

	for (size_t i = 0; i < n; i++) {
		const struct map_entry *c = maptab__find(lc->as->mt, w[i]);

		if (c && (c->prot & PROT_EXEC) && live_push(lc, w[i]) < 0) {
			lc->ok = false;
			return true;
		}
	}
	return false;
}

/* T's pc and the words of its stacks (and the alternate ones its signal frames lead to) */
static void live_thread(struct session *s, struct thread *t, void *arg)
{
	struct live_code *lc = arg;
	const struct stacks_scan sc = { .words = live_words, .arg = lc };
	arch_regs_t regs;

	(void)s;
	if (!lc->ok || t->as != lc->as)
		return;
	if (!t->stopped || pt_getregs(t->tid, &regs) < 0 || live_push(lc, arch_regs_pc(&regs))) {
		lc->ok = false;
		return;
	}
	/* a stack ptap does not know, or none of it readable: not known */
	if (stacks_scan(t->tid, t->as->mt, arch_regs_sp(&regs), &sc) < 0)
		lc->ok = false;
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Attached, every thread of T's process stopped: the code its threads are in (LC->ok). */
static void live_code_read(struct session *s, struct thread *t, struct live_code *lc)
{
	*lc = (struct live_code){ .as = t->as, .ok = true };
	thread__for_each(s, live_thread, lc);
	if (lc->ok)
		qsort(lc->v, lc->n, sizeof(*lc->v), u64_cmp);
}

/* May a jump replace [ADDR, ADDR + LEN): no live word in (ADDR, ADDR + LEN)? */
static bool live_code_clear(const struct live_code *lc, uint64_t addr, size_t len)
{
	size_t lo = 0, hi = lc->n;

	if (!lc->ok)
		return false;
	while (lo < hi) {	/* the first word above ADDR */
		size_t mid = (lo + hi) / 2;

		if (lc->v[mid] <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo == lc->n || lc->v[lo] >= addr + len;
}

/*
 * -v: the hits of P at ADDR will stop the thread rather than be recorded in
 * the process -- said once a probe (an exit of a return probe is one), with
 * why: WHY when the site decided it, else the probe's (inproc_why_not()).
 * Not with --no-agent, nor when the process has no agent (said then).
 */
static void say_stops(const struct session *s, const struct thread *t, struct probe *p,
		      uint64_t addr, const char *why)
{
	if (p->said_stop || !s->inproc_on || p->rbrk || t->quiet || t->as->inproc_failed)
		return;
	if (!why && !(why = inproc_why_not(s, p)))
		why = "the process has no agent";
	p->said_stop = true;
	pr_info("%s: the %s at 0x%lx in pid %d stops the thread at each hit (not recorded in "
		"the process): %s\n", p->event, p->exit_of ? "exit" : "site", (unsigned long)addr,
		t->tgid, why);
}

/* 1 when planted, 0 when not (said why), -ESRCH when T is gone (see plant_range()). */
static int plant_one(struct session *s, struct thread *t, struct probe *p,
		     const struct map_entry *e, uint64_t addr, bool fresh,
		     const struct live_code *lc)
{
	struct aspace *as = t->as;
	uint8_t now[ARCH_JUMP_MAX > ARCH_MAX_INSN ? ARCH_JUMP_MAX : ARCH_MAX_INSN];
	uint64_t dev = e->dev, ino = e->ino;
	const char *stop_why = NULL;	/* why its hits stop the thread (-v) */
	struct site st;
	size_t len;
	int r;

	if (e->flags & MAP_SHARED)
		return plant_fail(p, t, addr, "%s is mapped shared: an int3 would reach the file "
				  "and other processes", p->module);
	site_init(&st, p, addr, e->gen);
	/* an exit's jump may begin with the instructions before it (arch_exit_jump_before()) */
	if (p->rp.jump.len && !as->no_inject &&
	    (fresh || (lc && live_code_clear(lc, addr - p->rp.jump.at, p->rp.jump.len)))) {
		st.jump = p->rp.jump;
		st.addr = addr - p->rp.jump.at;
	} else if (p->rp.jump.len) {
		stop_why = as->no_inject ? "the process runs under a seccomp filter that could "
					   "kill it for ptap's mmap" :
			   "a thread was running in the bytes a jump would replace, or returns "
			   "there, when ptap attached";
	}
	len = st.jump.len ? st.jump.len : st.insn.len;
	if (mem_read(t->tid, st.addr, now, len) != (ssize_t)len ||
	    memcmp(now, st.jump.len ? st.jump.bytes : st.insn.bytes, len))
		return plant_fail(p, t, addr, "the code there differs from %s (patched or "
				  "relocated)", p->module);
	if (st.insn.step == ARCH_STEP_OOL && t->as->no_inject)
		return plant_fail(p, t, addr, "%sthe process runs under a seccomp filter, which "
				  "could kill it for the mmap of ptap's out-of-line copy", "");
	if (st.jump.len && p->inproc && !t->quiet) {
		r = inproc_site(s, t, &st, p);
		if (r == -ESRCH)
			return r;
		if (r == -ENOSPC)
			stop_why = "the agent's region has no room left for another site";
	}
	if (st.jump.len && (r = prepare_slot(s, t, &st, dev, ino)) < 0) {
		if (r == -ESRCH)
			return r;
		pr_debug("%s: no trampoline at 0x%lx (%s): an int3 instead\n", p->event,
			 (unsigned long)addr, strerror(-r));
		stop_why = "no room for its trampoline near it";
		memset(&st.jump, 0, sizeof(st.jump));
		st.slot = st.agent = st.agent_fn = 0;
		st.addr = addr;		/* at the exit itself */
	}
	if (!st.jump.len && st.insn.step == ARCH_STEP_OOL &&
	    (r = prepare_slot(s, t, &st, dev, ino)) < 0)
		return r == -ESRCH ? r : plant_fail(p, t, addr, "no out-of-line copy: %s",
						    strerror(-r));
	/* The site first: a hit on a byte not in the table would be "not ours". */
	r = aspace__add_site(as, &st);
	if (r == 0 && (r = write_site(as, &st)) < 0)
		aspace__remove_site(as, st.addr);
	if (r < 0)
		return plant_fail(p, t, addr, "cannot write the breakpoint: %s", strerror(-r));
	p->planted++;
	pr_debug("%s: planted at 0x%lx in pid %d (%s)\n", p->event, (unsigned long)st.addr, t->tgid,
		 st.agent ? "in-process" : st.jump.len ? "jump" : st.slot ? "out of line" :
		 "emulated");
	if (!st.agent)
		say_stops(s, t, p, addr, stop_why);
	return 1;
}

/*
 * Another probe at an address already planted: the same int3 serves both
 * (in the process: the agent records both, inproc_site_add()).  -ESRCH
 * never: 0 or 1, as plant_one().
 */
static int site_add_probe(struct session *s, struct thread *t, struct site *st, struct probe *p)
{
	int r;

	for (int i = 0; i < st->nprobes; i++)
		if (st->probes[i] == p)
			return 0;
	if (st->nprobes == SITE_MAX_PROBES) {
		snprintf(p->why, sizeof(p->why), "more than %d probes at 0x%lx", SITE_MAX_PROBES,
			 (unsigned long)st->addr);
		return 0;
	}
	if (st->agent && (r = inproc_site_add(s, t, st, p)) < 0) {
		snprintf(p->why, sizeof(p->why), "0x%lx is recorded in the process, and there is no "
			 "room for another probe there: %s", (unsigned long)st->addr, strerror(-r));
		return 0;
	}
	st->probes[st->nprobes++] = p;
	p->planted++;
	return 1;
}

static bool same_file(const struct probe *p, const struct probe *q)
{
	return p->dev == q->dev && p->ino == q->ino;
}

void plant_decide_jumps(struct session *s, bool allow)
{
	for (int i = 0; i < s->nprobes; i++) {
		struct probe *p = &s->probes[i];

		if (!allow || p->rbrk)
			memset(&p->rp.jump, 0, sizeof(p->rp.jump));
	}
	for (int i = 0; i < s->nprobes; i++) {
		struct probe *p = &s->probes[i];

		for (int j = 0; j < s->nprobes && p->rp.jump.len; j++) {
			const struct probe *q = &s->probes[j];
			uint64_t ps = p->rp.vaddr - p->rp.jump.at, pe = ps + p->rp.jump.len;
			uint64_t qs = q->rp.vaddr - q->rp.jump.at, qe = qs + q->rp.jump.len;

			/*
			 * Another probe's int3 in the bytes, or its jump over them
			 * (an exit's begins before its point): not the same site
			 */
			if (same_file(p, q) && q->rp.vaddr != p->rp.vaddr &&
			    ((q->rp.vaddr >= ps && q->rp.vaddr < pe) ||
			     ((p->rp.jump.at || q->rp.jump.at) && q->rp.jump.len && qs < pe &&
			      ps < qe)))
				memset(&p->rp.jump, 0, sizeof(p->rp.jump));
		}
	}
	for (int i = 0; i < s->nprobes; i++)
		for (int j = 0; j < s->nprobes; j++)
			if (same_file(&s->probes[i], &s->probes[j]) &&
			    s->probes[i].rp.vaddr == s->probes[j].rp.vaddr &&
			    !s->probes[j].rp.jump.len)
				memset(&s->probes[i].rp.jump, 0, sizeof(s->probes[i].rp.jump));
	/* in the process: a site whose probes all can be (the agent records each in turn) */
	for (int i = 0; i < s->nprobes; i++) {
		struct probe *p = &s->probes[i];

		p->inproc = inproc_probe_ok(s, p);
		for (int j = 0; j < s->nprobes && p->inproc; j++)
			if (j != i && same_file(p, &s->probes[j]) &&
			    s->probes[j].rp.vaddr == p->rp.vaddr && !inproc_probe_ok(s, &s->probes[j]))
				p->inproc = false;
	}
}

/* Where P lands in executable mapping E, or 0 when E does not hold it. */
static uint64_t probe_addr_in(const struct probe *p, const struct map_entry *e)
{
	if (!(e->prot & PROT_EXEC) || e->ino != p->ino || e->dev != p->dev || !e->ino)
		return 0;
	if (p->rp.file_off < e->pgoff || p->rp.file_off - e->pgoff >= e->end - e->start)
		return 0;
	return e->start + (p->rp.file_off - e->pgoff);
}

/*
 * The site planted for another probe where P lands (ADDR): the jump of an
 * exit that begins before it (the same for every probe of that exit), or
 * the int3 at it.
 */
static struct site *site_of(const struct aspace *as, const struct probe *p, uint64_t addr)
{
	struct site *st = p->rp.jump.len && p->rp.jump.at ?
			  aspace__find_site(as, addr - p->rp.jump.at) : NULL;

	if (st && st->jump.len && st->jump.at == p->rp.jump.at)
		return st;
	return aspace__find_site(as, addr);
}

int plant_range(struct session *s, struct thread *t, uint64_t lo, uint64_t hi, bool fresh)
{
	struct live_code lc = { .ok = false };
	struct site *st;
	int planted = 0, r = 0;

	if (t->as->unplanted || s->unplanted)
		return 0;
	inproc_libs_mapped(t);
	if (!fresh && s->attach && !t->as->no_inject)
		live_code_read(s, t, &lc);
	for (int i = 0; i < s->nprobes && r >= 0; i++) {
		struct probe *p = &s->probes[i];

		/* Index, not pointer: planting may map a scratch page and change the table. */
		for (size_t j = 0; j < maptab__count(t->as->mt) && r >= 0; j++) {
			const struct map_entry *e = maptab__at(t->as->mt, j);
			uint64_t addr;

			if (e->end <= lo || e->start >= hi)
				continue;
			addr = probe_addr_in(p, e);
			if (!addr)
				continue;
			if ((st = site_of(t->as, p, addr))) {
				planted += site_add_probe(s, t, st, p);
				continue;
			}
			r = plant_one(s, t, p, e, addr, fresh, &lc);
			if (r > 0)
				planted += r;
		}
	}
	report_glob_fails(s, t);
	free(lc.v);
	return r < 0 ? r : planted;
}

bool plant_site_in_memory(struct thread *c, struct site *st)
{
	const struct map_entry *e = maptab__find(c->as->mt, st->addr);
	uint8_t want[AGENT_SLOT], now[AGENT_SLOT];

	/* an exit's jump may begin before it (struct arch_jump's at) */
	if (!e || probe_addr_in(st->probes[0], e) != st->addr + st->jump.at)
		return false;
	st->map_gen = e->gen;
	if (st->jump.len) {
		uint8_t patch[ARCH_JUMP_MAX];

		return arch_jump_patch(&st->jump, st->addr, st->slot, patch) == 0 &&
		       mem_read(c->tid, st->addr, now, st->jump.len) == st->jump.len &&
		       !memcmp(now, patch, st->jump.len) && slot_build(st, want) > 0 &&
		       mem_read(c->tid, st->slot, now, slot_len(st)) == (ssize_t)slot_len(st) &&
		       !memcmp(now, want, slot_len(st));
	}
	if (mem_read(c->tid, st->addr, now, ARCH_BP_LEN) != ARCH_BP_LEN ||
	    memcmp(now, arch_bp_insn, ARCH_BP_LEN))
		return false;
	if (!st->slot)
		return true;
	return slot_build(st, want) >= 0 &&
	       mem_read(c->tid, st->slot, now, ARCH_SLOT_SIZE) == ARCH_SLOT_SIZE &&
	       !memcmp(now, want, ARCH_SLOT_SIZE);
}

int plant_fork_fixup(struct session *s, struct thread *c)
{
	struct aspace *as = c->as;
	size_t i = 0, j = 0;
	int r = maptab__load_proc(as->mt, c->tgid);

	(void)s;
	if (r < 0)
		return r;
	while (i < as->nsites) {
		if (plant_site_in_memory(c, &as->sites[i]))
			i++;
		else
			aspace__kill_site(as, i);	/* an int3 left there heals on a hit */
	}
	inproc_fork_fixup(c);
	/* Scratch pages the parent mapped after the fork are not in the child. */
	for (i = 0; i < as->nscratch; i++)
		if (maptab__find(as->mt, as->scratch[i].start))
			as->scratch[j++] = as->scratch[i];
	as->nscratch = j;
	return 0;
}

/*
 * Put back ST's original byte if it is still ours: our int3 is there, and
 * for a live site in the mapping it was planted in; for a dead one (whose
 * mapping ptap no longer vouches for), followed by the rest of the
 * instruction it replaced.  A jump site's bytes likewise, when they are
 * still its jump -- but only when no thread of AS runs (not RUNNING): a
 * jump is several bytes, and another CPU could fetch them half written.
 * With threads running, the jump stays and its trampoline stops trapping.
 */
static void restore_site(struct aspace *as, const struct site *st, bool live, bool running)
{
	const struct map_entry *e = maptab__find(as->mt, st->addr);
	uint8_t now[ARCH_MAX_INSN];

	if (st->agent && running) {	/* its trampoline calls the agent no more */
		static const uint8_t off = 0;

		uint64_t arm = st->slot + st->jump.at + ARCH_AGENT_TRAMP_ARM;

		if (pread(as->memfd, now, 1, (off_t)arm) == 1 && now[0] &&
		    mem_write(as->memfd, arm, &off, 1) < 0)
			pr_warn("pid %d: cannot disarm the trampoline at 0x%lx\n", as->pid,
				(unsigned long)st->slot);
		return;
	}
	if (st->jump.len && running) {	/* its trampoline's int3 becomes a nop */
		static const uint8_t nop = 0x90;

		uint64_t trap = st->slot + st->jump.at;

		if (pread(as->memfd, now, ARCH_BP_LEN, (off_t)trap) == ARCH_BP_LEN &&
		    !memcmp(now, arch_bp_insn, ARCH_BP_LEN) &&
		    mem_write(as->memfd, trap, &nop, 1) < 0)
			pr_warn("pid %d: cannot disarm the trampoline at 0x%lx\n", as->pid,
				(unsigned long)st->slot);
		return;
	}
	if (!e || (live && e->gen != st->map_gen))
		return;
	if (st->jump.len) {	/* the jump goes; its trampoline stays for who is in it */
		uint8_t patch[ARCH_JUMP_MAX], was[ARCH_JUMP_MAX];

		if (arch_jump_patch(&st->jump, st->addr, st->slot, patch) == 0 &&
		    pread(as->memfd, was, st->jump.len, (off_t)st->addr) == st->jump.len &&
		    !memcmp(was, patch, st->jump.len) &&
		    mem_write(as->memfd, st->addr, st->jump.bytes, st->jump.len) < 0)
			pr_warn("pid %d: cannot restore the code at 0x%lx\n", as->pid,
				(unsigned long)st->addr);
		return;
	}
	/* through the open /proc/PID/mem: it reaches the memory after the leader exited */
	if (pread(as->memfd, now, st->insn.len, (off_t)st->addr) != st->insn.len ||
	    memcmp(now, arch_bp_insn, ARCH_BP_LEN))
		return;
	if (!live && memcmp(now + ARCH_BP_LEN, st->insn.bytes + ARCH_BP_LEN,
			    st->insn.len - ARCH_BP_LEN))
		return;
	if (mem_write(as->memfd, st->addr, st->insn.bytes, ARCH_BP_LEN) < 0)
		pr_warn("pid %d: cannot restore the byte at 0x%lx\n", as->pid,
			(unsigned long)st->addr);
}

void plant_restore(struct aspace *as, bool running)
{
	for (size_t i = 0; i < as->nsites; i++)
		restore_site(as, &as->sites[i], true, running);
	for (size_t i = 0; i < as->ndead; i++)
		restore_site(as, &as->dead[i], false, running);
	as->unplanted = true;
}
