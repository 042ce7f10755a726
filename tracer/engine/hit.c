/* tracer/engine/hit.c: the hit path.  At an int3: GETREGS, fetch
 * (process_vm_readv), record, SETREGS (the pc to the out-of-line copy, or the
 * instruction emulated), CONT; at a jump site's trampoline the pc is already
 * where the thread goes on, so no SETREGS.  One ptrace stop, no allocation,
 * the int3 never removed (removing it would let other threads run past
 * unrecorded).  Also the return probes' entries and exits (calls.h), and
 * the dynamic loader's r_brk when attached (mapsync.c). */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>

#include "arch/arch.h"
#include "probes/log.h"
#include "probes/record.h"
#include "tracer/engine/calls.h"
#include "tracer/engine/hit.h"
#include "tracer/engine/inproc.h"
#include "tracer/engine/mapsync.h"
#include "tracer/engine/plant.h"
#include "tracer/engine/ptrace.h"
#include "tracer/engine/shadow.h"
#include "tracer/events/hitrec.h"
#include "tracer/events/stack.h"
#include "tracer/probe.h"
#include "tracer/session.h"
#include "tracer/space/aspace.h"
#include "tracer/space/maptab.h"
#include "tracer/space/mem.h"
#include "tracer/thread.h"

static ssize_t fetch_read(void *priv, uint64_t addr, void *buf, size_t len)
{
	const struct thread *t = priv;

	return mem_read(t->tid, addr, buf, len);
}

static int emu_read(void *priv, uint64_t addr, void *buf, size_t len)
{
	ssize_t n = fetch_read(priv, addr, buf, len);

	return n < 0 ? (int)n : (size_t)n == len ? 0 : -EFAULT;
}

static int emu_write(void *priv, uint64_t addr, const void *buf, size_t len)
{
	const struct thread *t = priv;

	return mem_write(t->as->memfd, addr, buf, len);
}

/*
 * ---- One read of target memory per hit ----
 *
 * Before the programs of a hit run, the first read of each one (its address
 * comes from registers: a string argument, a pointer's member) is planned
 * into a batch; the batch is read in one process_vm_readv; the programs then
 * read from it, and from the target only what depends on memory just read.
 * The batch lives on the hit's stack: the hit path allocates nothing.
 */
#define HIT_BATCH_READS	64
#define HIT_BATCH_BYTES	16384

struct hit_batch {
	const struct thread *t;
	struct fetch_batch b;
	struct fetch_batch_ent ent[HIT_BATCH_READS];
	char area[HIT_BATCH_BYTES];
};

static void hit_batch_init(struct hit_batch *hb, const struct thread *t)
{
	hb->t = t;
	fetch_batch__init(&hb->b, hb->ent, HIT_BATCH_READS, hb->area, sizeof(hb->area));
}

/* The programs' read_mem at a hit: from the batch when it holds the bytes, else from the target. */
static ssize_t batch_read(void *priv, uint64_t addr, void *buf, size_t len)
{
	const struct hit_batch *hb = priv;
	ssize_t n = fetch_batch__read(&hb->b, addr, buf, len);

	return n >= 0 ? n : mem_read(hb->t->tid, addr, buf, len);
}

/* Plan the first reads of P's arguments: all, or those fetched at the return or at the entry. */
enum { ARGS_ALL, ARGS_ENTRY, ARGS_RETURN };

static void batch_plan_args(struct hit_batch *hb, const struct session *s, struct probe *p,
			    const struct fetch_ctx *ctx, int which)
{
	for (int i = 0; i < p->rp.nargs; i++)
		if (which == ARGS_ALL || p->rp.at_return[i] == (which == ARGS_RETURN))
			fetch_batch__plan(&hb->b, &p->rp.progs[i], ctx, p->bufs[i], s->string_max);
}

/* Plan what ret_enter() reads: the return address and the arguments fetched at the entry. */
static void batch_plan_ret_enter(struct hit_batch *hb, const struct session *s,
				 const struct thread *t, struct probe *p, const struct fetch_ctx *ctx)
{
	struct fetch_ctx regs_only = *ctx;
	struct fetch_val slot;
	char slotbuf[8];

	if (!t->shadow)
		return;
	regs_only.read_mem = NULL;	/* a slot found through memory is not planned */
	fetch_prog__run(&p->rp.ra_prog, &regs_only, &slot, slotbuf, sizeof(slotbuf));
	if (!slot.err)
		fetch_batch__add(&hb->b, &(struct fetch_read){ .addr = slot.u, .len = 8 });
	if (p->rp.go_stack)
		fetch_batch__add(&hb->b, &(struct fetch_read){
			.addr = ctx->regs[ARCH_GO_G_DWARF] + ARCH_GO_STACK_HI, .len = 8 });
	batch_plan_args(hb, s, p, ctx, ARGS_ENTRY);
}

/* Read the batch: one process_vm_readv (and one more past each range that faults). */
static void hit_batch_read(struct hit_batch *hb)
{
	struct iovec local[HIT_BATCH_READS], remote[HIT_BATCH_READS];
	size_t got[HIT_BATCH_READS];
	unsigned int n = hb->b.n;

	for (unsigned int i = 0; i < n; i++) {
		local[i] = (struct iovec){ .iov_base = hb->ent[i].data, .iov_len = hb->ent[i].len };
		remote[i] = (struct iovec){ .iov_base = (void *)(uintptr_t)hb->ent[i].addr,
					    .iov_len = hb->ent[i].len };
	}
	if (n)
		mem_readv(hb->t->tid, local, remote, n, got);
	for (unsigned int i = 0; i < n; i++)
		hb->ent[i].got = got[i];
}

static void emit_record(struct session *s, struct thread *t, const struct site *st,
			struct probe *p, const struct fetch_ctx *ctx, uint64_t ts)
{
	struct record rec = { .ts = ts, .pid = t->tgid, .tid = t->tid, .comm = t->comm,
			      .event = p->event, .kind = REC_KIND_ENTRY, .addr = st->addr,
			      .nargs = (unsigned int)p->rp.nargs,
			      .names = (const char *const *)p->rp.names, .types = p->types,
			      .vals = p->vals, .nframes = s->hit_nframes,
			      .frames = s->hit_frames };

	for (int i = 0; i < p->rp.nargs; i++)
		fetch_prog__run(&p->rp.progs[i], ctx, &p->vals[i], p->bufs[i], s->string_max);
	hitrec_write(s, t, p, &rec);
}

/*
 * A trap on an int3 of a site that was dropped (see aspace__find_dead()).
 * If the site still describes the memory (its module mapped there, its slot
 * intact), it is live again: returns 1 and the caller handles the hit.  Else
 * if the bytes there are the site's int3 followed by the rest of its
 * instruction, the int3 is ours, outlived: the original byte goes back and
 * the instruction runs again, unrecorded: 0.  -ENOENT: not ours.
 */
static int heal_dead_site(struct session *s, struct thread *t, arch_regs_t *regs,
			  uint64_t addr)
{
	const struct site *d = aspace__find_dead(t->as, addr);
	uint8_t now[ARCH_MAX_INSN];
	struct site live;

	if (d) {
		live = *d;
		if (plant_site_in_memory(t, &live) && aspace__add_site(t->as, &live) == 0)
			return 1;
	}
	if (!d || mem_read(t->tid, addr, now, d->insn.len) != d->insn.len ||
	    memcmp(now, arch_bp_insn, ARCH_BP_LEN) ||
	    memcmp(now + ARCH_BP_LEN, d->insn.bytes + ARCH_BP_LEN, d->insn.len - ARCH_BP_LEN))
		return -ENOENT;
	if (mem_write(t->as->memfd, addr, d->insn.bytes, ARCH_BP_LEN) < 0)
		return -ENOENT;
	pr_debug("tid %d: removed an outlived breakpoint at 0x%lx\n", t->tid, (unsigned long)addr);
	arch_regs_set_pc(regs, addr);
	if (pt_setregs(t->tid, regs) < 0)
		return -ENOENT;
	if (!s->detaching)
		thread__resume(t, 0);
	return 0;
}

/* Is this hit the re-run of the call a signal handler interrupted (see hit_slot_signal())? */
static bool is_rehit(struct thread *t, const arch_regs_t *regs)
{
	uint64_t sp = arch_regs_sp(regs), was = arch_regs_sp(&t->rehit_regs);

	if (!t->rehit)
		return false;
	if (!memcmp(regs, &t->rehit_regs, sizeof(*regs))) {
		t->rehit = false;
		return true;
	}
	/* unwound past it: the handler jumped away (one on an alternate stack above did not) */
	if (sp > was && shadow_same_stack(sp, calls_stack_id(t, sp), was, calls_stack_id(t, was)))
		t->rehit = false;
	return false;
}

/*
 * The probe of ST that step K of record_hit() handles, or NULL: entry probes
 * and return probes' entries in the probes' order, then the exits.
 */
static struct probe *hit_probe(const struct session *s, const struct site *st, int k)
{
	struct probe *p = st->probes[k % st->nprobes];

	if (p->rbrk || (p->exit_of != 0) != (k >= st->nprobes) ||
	    (p->rp.retprobe && s->detaching))
		return NULL;	/* detaching: its return would never be seen */
	return p;
}

/* Does a hit of ST write a record here (-g: its stack is taken), not only a return probe's entry? */
static bool site_records(const struct session *s, const struct site *st)
{
	for (int k = 0; k < 2 * st->nprobes; k++) {
		const struct probe *p = hit_probe(s, st, k);

		if (p && (p->exit_of || !p->rp.retprobe))
			return true;
	}
	return false;
}

static void record_hit(struct session *s, struct thread *t, const struct site *st,
		       const arch_regs_t *regs)
{
	uint64_t ts, dregs[ARCH_DWARF_NREGS_ALL];
	struct hit_batch hb;
	struct fetch_ctx ctx = { .regs = dregs, .nregs = ARCH_DWARF_NREGS, .bias = st->bias,
				 .read_mem = batch_read, .priv = &hb };
	int fp_from = -1;	/* the step from which the xmm registers are in DREGS */
	bool fp_done = false;

	ts = session__now(s);
	arch_regs_to_dwarf(regs, dregs);
	hit_batch_init(&hb, t);
	if (t->shadow && !t->home_stack)	/* once: 1 when no mapping holds the TLS block */
		t->home_stack = calls_stack_id(t, arch_regs_tls(regs)) ?: 1;
	/* First, what all of them read from memory, at once. */
	for (int k = 0; k < 2 * st->nprobes; k++) {
		struct probe *p = hit_probe(s, st, k);

		if (!p)
			continue;
		/* xmm registers cost a second ptrace call: only for probes that read them */
		if (p->rp.fpregs && !fp_done) {
			arch_fpregs_t fp;

			/* unread, they stay out of reach: an error value, never a 0 */
			if (pt_getfpregs(t->tid, &fp) == 0) {
				arch_fpregs_to_dwarf(&fp, dregs);
				ctx.nregs = ARCH_DWARF_NREGS_ALL;
				fp_from = k;
			}
			fp_done = true;
		}
		if (p->exit_of && calls_exit_owner(s, p)->rp.go_stack)
			fetch_batch__add(&hb.b, &(struct fetch_read){
				.addr = dregs[ARCH_GO_G_DWARF] + ARCH_GO_STACK_HI, .len = 8 });
		if (p->exit_of && p->exit_kind == ARCH_EXIT_RET)
			batch_plan_args(&hb, s, calls_exit_owner(s, p), &ctx, ARGS_RETURN);
		else if (p->rp.retprobe)
			batch_plan_ret_enter(&hb, s, t, p, &ctx);
		else
			batch_plan_args(&hb, s, p, &ctx, ARGS_ALL);
	}
	hit_batch_read(&hb);
	ctx.nregs = ARCH_DWARF_NREGS;
	if (s->stacks && site_records(s, st))
		s->hit_nframes = stack_take(s, t, st, dregs, &s->hit_frames);
	for (int k = 0; k < 2 * st->nprobes; k++) {
		struct probe *p = hit_probe(s, st, k);

		if (!p)
			continue;
		if (k == fp_from)	/* the probes before it ran without them, as they always did */
			ctx.nregs = ARCH_DWARF_NREGS_ALL;
		if (p->exit_of) {
			bool taken = arch_branch_taken(&st->insn, regs);

			if (taken)	/* a call held in the process, first */
				inproc_held_for_exit(s, t, p, arch_regs_sp(regs), ts);
			calls_exit(s, t, p, &ctx, ts, taken);
		}
		else if (p->rp.retprobe)
			calls_enter(s, t, st, p, &ctx, ts);
		else
			emit_record(s, t, st, p, &ctx, ts);
	}
	s->hit_nframes = 0;
}

static bool site_is_rbrk(const struct site *st)
{
	for (int i = 0; i < st->nprobes; i++)
		if (st->probes[i]->rbrk)
			return true;
	return false;
}

/*
 * A jump site's trampoline trapped: the pc is past its int3, on the
 * relocated instructions, and the thread simply goes on -- no register
 * written, whether the hit is recorded or not (detaching, unplanted: the
 * trampoline stays until the jump is gone).
 */
static int jump_hit(struct session *s, struct thread *t, const struct site *st,
		    const arch_regs_t *regs)
{
	if (!t->quiet && !t->as->unplanted && !s->detaching)
		record_hit(s, t, st, regs);
	if (!s->detaching)
		thread__resume(t, 0);
	return 0;
}

int hit_handle(struct session *s, struct thread *t)
{
	arch_regs_t regs;
	struct site *st;
	uint64_t addr;
	int r = pt_getregs(t->tid, &regs);

	if (r < 0)
		return r;
	addr = arch_bp_addr(arch_regs_pc(&regs));
	st = aspace__find_site(t->as, addr);
	if (!st && (st = aspace__find_jump(t->as, addr)))
		return jump_hit(s, t, st, &regs);
	if (!st && aspace__is_tramp(t->as, addr)) {	/* of a dropped site: on, unrecorded */
		if (!s->detaching)
			thread__resume(t, 0);
		return 0;
	}
	if (!st && (r = heal_dead_site(s, t, &regs, addr)) <= 0)
		return r;
	if (!st)
		st = aspace__find_site(t->as, addr);
	if (!t->quiet && !t->as->unplanted && !is_rehit(t, &regs))
		record_hit(s, t, st, &regs);

	arch_regs_set_pc(&regs, st->addr);
	/* Detaching, or the int3 removed since it trapped: the original instruction runs. */
	if (t->as->unplanted)	/* the byte went back while T trapped (or failed to) */
		mem_write(t->as->memfd, st->addr, st->insn.bytes, ARCH_BP_LEN);
	if (s->detaching || t->as->unplanted) {
		r = pt_setregs(t->tid, &regs);
		if (r == 0 && !s->detaching)
			thread__resume(t, 0);
		return r;
	}
	/* The dynamic loader changed the maps (attached: dlopen, dlclose). */
	if (site_is_rbrk(st)) {
		r = mapsync_rbrk(s, t);
		if (r < 0)
			return r;
		st = aspace__find_site(t->as, addr);
		if (!st) {	/* the loader unmapped itself?  Run the original. */
			r = pt_setregs(t->tid, &regs);
			if (r == 0)
				thread__resume(t, 0);
			return r;
		}
	}
	if (st->slot) {
		arch_regs_set_pc(&regs, st->slot);
	} else if ((r = arch_emulate(&st->insn, &regs, emu_read, emu_write, t)) < 0) {
		/* The instruction itself would have faulted (a bad stack): let it. */
		pr_debug("tid %d: emulating '%s' at 0x%lx failed: %s\n", t->tid, st->insn.text,
			 (unsigned long)st->addr, strerror(-r));
		arch_regs_set_pc(&regs, st->addr);
		pt_setregs(t->tid, &regs);
		thread__resume(t, SIGSEGV);
		return 0;
	}
	r = pt_setregs(t->tid, &regs);
	if (r < 0)
		return r;
	thread__resume(t, 0);
	return 0;
}

/*
 * T stopped for signal SIG.  If its pc is in an out-of-line slot, move it
 * back to the probed code, so that the signal frame, a handler and a core
 * dump never see ptap's scratch page (which goes away at detach):
 * at the slot's start, the instruction has not run and the pc goes back to
 * the probe address; after it, the pc goes on to the next instruction.  When
 * the handler returns, the call re-runs through the probe with the very same
 * registers: that hit is not recorded again (one that jumped away leaves a
 * state no later call matches).  A fault raised by the copy itself
 * (SIGSEGV ...) is the original instruction's fault, at the original address.
 */
void hit_slot_signal(struct thread *t, int sig)
{
	const struct site *st;
	arch_regs_t regs;
	uint64_t pc;

	if (!t->as || !t->as->nscratch || pt_getregs(t->tid, &regs) < 0)
		return;
	pc = arch_regs_pc(&regs);
	st = aspace__site_by_slot(t->as, pc);
	if (!st || st->jump.len)	/* a jump site's trampoline: the code runs on from there */
		return;
	if (pc == st->slot) {
		arch_regs_set_pc(&regs, st->addr);
		/* as the int3 stop will show them when the handler returns here */
		t->rehit = sig != 0;
		t->rehit_regs = regs;
		arch_regs_set_pc(&t->rehit_regs, st->addr + ARCH_BP_LEN);
	} else if (pc == st->slot + st->insn.len) {
		arch_regs_set_pc(&regs, st->addr + st->insn.len);
	} else {
		return;
	}
	pt_setregs(t->tid, &regs);
}
