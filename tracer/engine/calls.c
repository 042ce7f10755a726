/* tracer/engine/calls.c: the calls of return probes (calls.h).  ptap never
 * writes the target's stack: at a return probe's entry the call goes on the
 * thread's stack of pending calls (shadow.h), keyed by the slot of its
 * return address; at an exit of the function the stack pointer is that slot
 * again, which pairs the return with its call and makes the return record.
 * The same at a stop (hit.c) and for records made in the process
 * (inproc.c). */
#include <errno.h>
#include <string.h>

#include "arch/arch.h"
#include "probes/log.h"
#include "probes/record.h"
#include "tracer/engine/calls.h"
#include "tracer/engine/shadow.h"
#include "tracer/events/account.h"
#include "tracer/events/hitrec.h"
#include "tracer/probe.h"
#include "tracer/session.h"
#include "tracer/space/aspace.h"
#include "tracer/space/maptab.h"
#include "tracer/thread.h"


/* Which stack SLOT is on: the end of the mapping holding it (a stack grows down from there),
 * 0 when ptap does not know it (the main stack grown past its mapping). */
uint64_t calls_stack_id(struct thread *t, uint64_t slot)
{
	const struct map_entry *e = maptab__find_near(t->as->mt, slot, &t->stack_hint);

	return e ? e->end : 0;
}

/*
 * How return probe P's frames know a call whose return address is at ADDR:
 * *SLOT on *STACK (shadow.h).  A Go function's stack is its goroutine's (the
 * g register), which Go copies elsewhere to grow it: the slot is taken
 * relative to the stack's top (g's stack.hi), which the copy keeps: true.
 */
static bool ret_slot(struct thread *t, const struct probe *p, const struct fetch_ctx *ctx,
		     uint64_t addr, uint64_t *slot, uint64_t *stack)
{
	uint64_t g = ctx->regs[ARCH_GO_G_DWARF], hi;

	if (p->rp.go_stack && g &&
	    ctx->read_mem(ctx->priv, g + ARCH_GO_STACK_HI, &hi, sizeof(hi)) == sizeof(hi) &&
	    hi >= addr && hi - addr < (1ull << 40)) {
		*slot = (1ull << 40) - (hi - addr);
		*stack = g;
		return true;
	}
	*slot = addr;
	*stack = calls_stack_id(t, addr);
	return false;
}

/*
 * The frame of P's call whose return address RA is at SLOT on STACK,
 * entered at TS at site ADDR (of a module at BIAS): its entry arguments'
 * room (shadow.h), or NULL -- none pushed: a loop came back to a site past
 * the prologue, the call has its frame already; or the stack is full.
 */
static char *push_call(struct session *s, struct thread *t, struct probe *p, uint64_t slot,
		       uint64_t stack, bool own_stack, uint64_t ra, uint64_t addr, uint64_t bias,
		       uint64_t ts, bool keep)
{
	struct shadow_frame *f;
	void *data;

	if (p->rp.ret_past_entry && shadow__has(t->shadow, slot, stack, p))
		return NULL;
	f = shadow__push(t->shadow, p, slot, stack, !p->rp.ret_past_entry, ts, p->ent_len, &data,
			 keep ? NULL : &s->ret_unwound);
	if (!f) {
		s->ret_full++;
		return NULL;
	}
	f->nvals = (unsigned int)p->rp.nargs;
	f->own_stack = own_stack;
	f->ra = ra;
	f->addr = addr;
	f->bias = bias;
	return data;
}

/*
 * A return probe's entry: a frame of the call, with the arguments it prints
 * that are fetched now.  Nothing is recorded until the function leaves
 * through one of its exits.
 */
void calls_enter(struct session *s, struct thread *t, const struct site *st,
		      struct probe *p, const struct fetch_ctx *ctx, uint64_t ts)
{
	struct fetch_val addr, *vals;
	char addrbuf[8];
	uint64_t ra, slot, stack;
	bool goroutine;
	char *data;

	if (!t->shadow)
		return;
	fetch_prog__run(&p->rp.ra_prog, ctx, &addr, addrbuf, sizeof(addrbuf));
	if (addr.err || ctx->read_mem(ctx->priv, addr.u, &ra, sizeof(ra)) != sizeof(ra)) {
		pr_debug("tid %d: %s: no return address at 0x%lx\n", t->tid, p->event,
			 (unsigned long)addr.u);
		return;
	}
	goroutine = ret_slot(t, p, ctx, addr.u, &slot, &stack);
	data = push_call(s, t, p, slot, stack, goroutine, ra, st->addr, st->bias, ts, false);
	if (!data)
		return;
	vals = (struct fetch_val *)data;
	for (int i = 0; i < p->rp.nargs; i++)
		if (!p->rp.at_return[i])
			fetch_prog__run(&p->rp.progs[i], ctx, &vals[i], data + p->ent_off[i],
					s->string_max);
	if (probe__accounted(p))		/* last: the counters as the call begins */
		account_read(s, t, (struct acct *)(data + p->acct_off));
}

/*
 * The return record of P's call (entered at TS_IN at site ADDR, returning
 * to RA) with the arguments ENT fetched at its entry: $retval and the rest
 * fetched at the exit through CTX (its registers, its memory; BIAS the
 * site's module's), or MADE there in the process -- not known at a tail
 * call (TAIL), whose callee has not run yet.
 */
static void emit_return(struct session *s, struct thread *t, struct probe *p,
			const struct fetch_val *ent, uint64_t addr, uint64_t ra, uint64_t ts_in,
			uint64_t bias, const struct fetch_ctx *ctx, const struct fetch_val *made,
			uint64_t ts, bool tail)
{
	struct fetch_ctx fctx = ctx ? *ctx : (struct fetch_ctx){ 0 };
	struct record rec = { .ts = ts, .pid = t->tgid, .tid = t->tid, .comm = t->comm,
			      .event = p->event, .kind = REC_KIND_RETURN, .addr = addr,
			      .ret_addr = ra, .duration = ts - ts_in, .has_duration = true,
			      .nargs = (unsigned int)p->rp.nargs,
			      .names = (const char *const *)p->rp.names, .types = p->types,
			      .vals = p->vals };

	if (ctx) {
		fctx.bias = bias;
		rec.nframes = s->hit_nframes;	/* -g: the stack at this exit's stop */
		rec.frames = s->hit_frames;
	}
	if (probe__accounted(p)) {	/* first: the counters as the call ends */
		account_diff(s, t, (const struct acct *)((const char *)ent + p->acct_off),
			     &p->vals[p->rp.nargs]);
		rec.nargs += ACCT_N;
		rec.names = p->rec_names;
	}
	for (int i = 0; i < p->rp.nargs; i++) {
		if (p->rp.at_return[i] && tail)
			p->vals[i] = (struct fetch_val){ .err = FETCH_ERR_TAIL_CALL };
		else if (p->rp.at_return[i] && made)
			p->vals[i] = made[i];
		else if (p->rp.at_return[i])
			fetch_prog__run(&p->rp.progs[i], &fctx, &p->vals[i], p->bufs[i],
					s->string_max);
		else
			p->vals[i] = ent[i];	/* its string bytes stay where they are until written */
	}
	hitrec_write(s, t, p, &rec);
}

/* The return record of frame F of SH (emit_return()). */
static void emit_frame_return(struct session *s, struct thread *t, const struct shadow *sh,
			      const struct shadow_frame *f, const struct fetch_ctx *ctx,
			      const struct fetch_val *made, uint64_t ts, bool tail)
{
	emit_return(s, t, f->p, shadow__data(sh, f), f->addr, f->ra, f->ts, f->bias, ctx, made,
		    ts, tail);
}

/* Where else the frame of a call may be: a thread that ran the coroutine (or goroutine) before. */
struct elsewhere {
	const struct thread *t;
	const struct probe *p;
	uint64_t slot, stack;
	struct thread *o;	/* the thread of T's address space holding it */
	long i;
};

static void find_elsewhere(struct session *s, struct thread *o, void *arg)
{
	struct elsewhere *e = arg;
	long i;

	(void)s;
	if (e->o || o == e->t || o->as != e->t->as || !o->shadow)
		return;
	i = shadow__find(o->shadow, e->p, e->slot, e->stack);
	if (i >= 0) {
		e->o = o;
		e->i = i;
	}
}

/* The return probe an exit probe Q belongs to. */
struct probe *calls_exit_owner(const struct session *s, const struct probe *q)
{
	return &s->probes[q->exit_of - 1];
}

/*
 * T is at exit Q of a function (CTX: its registers and memory there): the
 * stack pointer is where the call's return address is.  The call's frame
 * is recorded and popped; the frames of calls on that stack that it passed
 * were left without a return (longjmp, an exception) and are dropped.  An
 * exit with no frame -- a call made before ptap came, or one taken for
 * left -- records nothing; nor does a conditional tail call not TAKEN.
 */
static void ret_exit_at(struct session *s, struct thread *t, struct probe *q, uint64_t slot,
			uint64_t stack, const struct fetch_ctx *ctx, const struct fetch_val *made,
			uint64_t ts)
{
	struct probe *p = calls_exit_owner(s, q);
	struct elsewhere e = { .t = t, .p = p, .o = t, .slot = slot, .stack = stack };
	struct shadow *sh;

	if (q->exit_kind == RESOLVED_CALL) {	/* a new call: P's frames at its slot are left */
		shadow__enter(t->shadow, p, e.slot, e.stack, true, ts, &s->ret_unwound);
		return;
	}
	e.i = shadow__find(t->shadow, p, e.slot, e.stack);
	if (e.i < 0) {
		e.o = NULL;
		thread__for_each(s, find_elsewhere, &e);
	}
	if (!e.o) {
		shadow__drop_passed(t->shadow, -1, e.slot, e.stack, &s->ret_unwound);
		s->ret_unmatched++;
		return;
	}
	sh = e.o->shadow;
	shadow__drop_passed(sh, e.i, e.slot, e.stack, &s->ret_unwound);
	if (!p->hidden)		/* a --context scope: no record */
		emit_frame_return(s, t, sh, &sh->frames[e.i], ctx, made, ts,
				  q->exit_kind == ARCH_EXIT_TAIL);
	shadow__remove(sh, (size_t)e.i);
}

void calls_exit(struct session *s, struct thread *t, struct probe *q,
		     const struct fetch_ctx *ctx, uint64_t ts, bool taken)
{
	uint64_t slot, stack;

	if (!t->shadow || !taken)
		return;
	ret_slot(t, calls_exit_owner(s, q), ctx, ctx->regs[ARCH_DWARF_SP], &slot, &stack);
	ret_exit_at(s, t, q, slot, stack, ctx, NULL, ts);
}

/* ---- recorded in the process (inproc.c) ------------------------------------ */

bool calls_may_hold(const struct probe *p)
{
	return p->rp.retprobe && !p->hidden && !p->ctx1 && !p->rp.ret_past_entry &&
	       !p->rp.go_stack && !probe__accounted(p);
}

void calls_enter_made(struct session *s, struct thread *t, struct probe *p,
			const struct calls_made *m)
{
	struct fetch_val *vals;
	char *data;

	/* detaching: its return would never be seen, unless it is there already */
	if (!t->shadow || (s->detaching && m->how == CALLS_AT_ENTRY))
		return;
	if (!m->ra_ok) {
		pr_debug("tid %d: %s: no return address at 0x%lx\n", t->tid, p->event,
			 (unsigned long)m->slot);
		return;
	}
	data = push_call(s, t, p, m->slot, calls_stack_id(t, m->slot), false, m->ra, m->addr,
			 m->bias, m->ts, m->how == CALLS_KEPT);
	if (!data)
		return;
	vals = (struct fetch_val *)data;
	for (int i = 0; i < p->rp.nargs; i++) {
		size_t room = fetch_prog__buflen(&p->rp.progs[i], s->string_max);

		if (p->rp.at_return[i])
			continue;
		vals[i] = m->vals[i];
		if (vals[i].str) {	/* its bytes, from the ring into the frame */
			size_t n = vals[i].len < room ? vals[i].len : room;

			memcpy(data + p->ent_off[i], vals[i].str, n);
			vals[i].str = data + p->ent_off[i];
			vals[i].len = n;
		}
	}
}

void calls_exit_made(struct session *s, struct thread *t, struct probe *q,
		       const struct calls_made *m)
{
	if (t->shadow)
		ret_exit_at(s, t, q, m->slot, calls_stack_id(t, m->slot), NULL, m->vals, m->ts);
}

void calls_whole_made(struct session *s, struct thread *t, struct probe *q,
		      const struct calls_made *in, const struct calls_made *out)
{
	struct probe *p = calls_exit_owner(s, q);

	if (!t->shadow)
		return;
	/*
	 * Pushed and popped at once, when no frame is there to pass over
	 * (left calls to drop at the entry or the exit): the record alone
	 */
	if (t->shadow->depth || !in->ra_ok || p->hidden || !p->rp.retprobe ||
	    in->slot != out->slot) {
		calls_enter_made(s, t, p, in);
		calls_exit_made(s, t, q, out);
		return;
	}
	emit_return(s, t, p, in->vals, in->addr, in->ra, in->ts, in->bias, NULL, out->vals,
		    out->ts, q->exit_kind == ARCH_EXIT_TAIL);
}

/*
 * T is gone: a coroutine it ran may return in a sibling, which takes its
 * frames; those on T's own stack are gone with it.
 */
static void bequeath_to(struct session *s, struct thread *o, void *arg)
{
	struct thread *t = arg;

	if (o != t && o->as == t->as && o->shadow && t->shadow->depth)	/* to one: T's is empty after */
		shadow__bequeath(t->shadow, o->shadow, t->home_stack, &s->ret_unwound,
				 &s->ret_full);
}

void calls_thread_gone(struct session *s, struct thread *t)
{
	if (t->shadow && t->as && t->shadow->depth)
		thread__for_each(s, bequeath_to, t);
	if (t->shadow && t->shadow->depth) {	/* no sibling: they never return */
		s->ret_unwound += t->shadow->depth;
		shadow__clear(t->shadow);
	}
}
