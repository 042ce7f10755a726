/* tracer/engine/shadow.h: a thread's stack of pending calls for return
 * probes.  At a return probe's entry ptap pushes a frame: where the call's
 * return address is (its slot: the stack pointer at the function's entry),
 * the entry time and the arguments fetched at the entry.  At an exit of the
 * function (a ret, or a jump out of it: a tail call; dwarf/resolve.c finds
 * them) the stack pointer is that slot again: the frame of the same slot
 * and probe is popped and the return recorded.  The target's stack is never
 * written.  A call left by longjmp, an exception or a panic never reaches an
 * exit: its frame is dropped once the stack pointer has passed above it, and
 * counted.  Allocated whole when the thread is added: pushing and popping
 * never allocate. */
#ifndef PTAP_TRACER_ENGINE_SHADOW_H
#define PTAP_TRACER_ENGINE_SHADOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct probe;

#define SHADOW_MAX_DEPTH	16384		/* probed calls pending on one thread */
#define SHADOW_DATA		(16u << 20)	/* bytes of entry arguments (reserved, not committed) */
/*
 * Two slots on stacks whose ids are not known (0) are on the same stack
 * when they are nearer than this: a handler on an alternate stack is
 * taken to be further away.
 */
#define SHADOW_SAME_STACK	(256ull << 20)

struct shadow_frame {
	uint64_t slot;		/* where the return address is (a Go goroutine's: relative to
				 * its stack's top, so that a copied stack keeps it) */
	uint64_t stack;		/* which stack SLOT is on: the end of the mapping holding it,
				 * a goroutine, 0: not known */
	uint64_t ra;		/* the return address at the entry (the record's) */
	uint64_t ts;		/* entry time */
	uint64_t addr;		/* the probe site (the record's addr) */
	uint64_t bias;		/* of the probe's module (fetch programs) */
	struct probe *p;
	size_t data, len;	/* its entry arguments in the data area: NVALS struct
				 * fetch_val first, whose strings point into the rest */
	unsigned int nvals;
	bool own_stack;		/* STACK is a goroutine's: a call left on another stack
				 * never takes this one with it (shadow__push()) */
};

struct shadow {
	struct shadow_frame *frames;	/* SHADOW_MAX_DEPTH */
	size_t depth;
	char *data;			/* SHADOW_DATA bytes, used as a stack */
	size_t data_used;
};

/*
 * Are addresses A, on stack SA, and B, on stack SB, on the same stack?  A
 * stack is an id as shadow__push() takes it (0: not known, then nearer than
 * SHADOW_SAME_STACK).
 */
bool shadow_same_stack(uint64_t a, uint64_t sa, uint64_t b, uint64_t sb);

/* A new, empty stack (NULL on ENOMEM). */
struct shadow *shadow__new(void);
void shadow__free(struct shadow *sh);	/* NULL is fine */
/* A copy of SRC for a fork child (its stack holds the same calls), strings and all. */
void shadow__copy(struct shadow *dst, const struct shadow *src);
void shadow__clear(struct shadow *sh);

/*
 * Push a frame of probe P for a call whose return address is at SLOT, on
 * stack STACK, entered at TS, with LEN bytes for its entry arguments (*DATA
 * points at them).  The frames of STACK below SLOT, and P's own at SLOT, are
 * calls that were left (longjmp, an exception): they are dropped first,
 * counted in *UNWOUND, and so is every frame pushed after them on any stack
 * (a handler on an alternate stack that jumped away) but a goroutine's
 * (own_stack: goroutines take turns on a thread).  At a function's
 * ENTRY every frame at SLOT is of a call left, but those of this very hit
 * (TS): another probe's site further in keeps the frames of its call.
 * When the data area is full, the holes removed frames left in it are
 * closed first.  NULL when full.  The caller sets the frame's NVALS.
 * UNWOUND NULL: none dropped (a frame pushed late, its callees' before it).
 */
struct shadow_frame *shadow__push(struct shadow *sh, struct probe *p, uint64_t slot,
				  uint64_t stack, bool entry, uint64_t ts, size_t len, void **data,
				  uint64_t *unwound);
/* What shadow__push() drops, without the push: a call of P at SLOT begins. */
void shadow__enter(struct shadow *sh, const struct probe *p, uint64_t slot, uint64_t stack,
		   bool entry, uint64_t ts, uint64_t *unwound);
/*
 * Is there a frame of probe P at SLOT on STACK among the calls live there?
 * A site past a function's prologue that a loop passes again would
 * otherwise take one call twice.
 */
bool shadow__has(const struct shadow *sh, uint64_t slot, uint64_t stack, const struct probe *p);
/* The topmost frame of probe P at SLOT on STACK (nothing dropped), or -1. */
long shadow__find(const struct shadow *sh, const struct probe *p, uint64_t slot, uint64_t stack);
/*
 * A function returned with its return address at SLOT on STACK: the frames
 * of STACK below SLOT, above index ABOVE (-1: all), were left without a
 * return: dropped, counted in *UNWOUND.
 */
void shadow__drop_passed(struct shadow *sh, long above, uint64_t slot, uint64_t stack,
			 uint64_t *unwound);
void *shadow__data(const struct shadow *sh, const struct shadow_frame *f);
/* Remove frame I (its data is reclaimed as the frames above go). */
void shadow__remove(struct shadow *sh, size_t i);
/*
 * SRC's thread is gone: its frames not on stack HOME (its own, which is
 * gone: counted in *UNWOUND) go on top of DST (a coroutine it ran may return
 * in another thread), as many as fit; the others are counted in *LOST.  SRC
 * is left empty.
 */
void shadow__bequeath(struct shadow *src, struct shadow *dst, uint64_t home, uint64_t *unwound,
		      uint64_t *lost);

#endif
