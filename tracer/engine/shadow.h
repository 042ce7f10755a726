/* tracer/engine/shadow.h: a thread's shadow stack for return probes.  At a return
 * probe's entry ptap swaps the return address on the target's stack for its
 * trampoline (an int3 in the scratch page) and keeps the real one here, with
 * the entry time and the arguments fetched at the entry; the trampoline's
 * trap pops it (README.md, "Usage": return probes).  Allocated whole when the
 * thread is added: pushing and popping never allocate. */
#ifndef PTAP_TRACER_ENGINE_SHADOW_H
#define PTAP_TRACER_ENGINE_SHADOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct probe;

#define SHADOW_MAX_DEPTH	16384		/* probed calls nested on one thread */
#define SHADOW_DATA		(16u << 20)	/* bytes of entry arguments (reserved, not committed) */
/* Frames dropped as unwound, kept in case (one per slot, the latest): a
 * wrong guess then costs their records, not the process.  Each is read back
 * at detach: not many more. */
#define SHADOW_LIMBO		1024
/* A frame below a new call's return address, on the same stack, was left by
 * longjmp.  Which stack a slot is on comes from the mapping holding it (see
 * shadow__push()); when that is not known, another stack (a sigaltstack
 * handler's) is taken to be further away than this. */
#define SHADOW_SAME_STACK	(256ull << 20)

struct shadow_frame {
	uint64_t slot;		/* where the return address is on the target's stack */
	uint64_t stack;		/* which stack SLOT is on (shadow__push()), 0: not known */
	uint64_t ra;		/* the real return address (the trampoline: a tail call) */
	uint64_t ts;		/* entry time */
	uint64_t addr;		/* the probe site (the record's addr) */
	uint64_t bias;		/* of the probe's module (fetch programs) */
	struct probe *p;
	size_t data;		/* offset of its entry arguments in the data area */
	bool chained;		/* pushed on a slot holding the trampoline: RA is that */
};

struct shadow {
	struct shadow_frame *frames;	/* SHADOW_MAX_DEPTH */
	size_t depth;
	char *data;			/* SHADOW_DATA bytes, used as a stack */
	size_t data_used;
	struct shadow_limbo { uint64_t slot, ra, ts; } *limbo;	/* SHADOW_LIMBO, a ring */
	unsigned int nlimbo, limbo_next;
};

/*
 * Are addresses A, on stack SA, and B, on stack SB, on the same stack?  A
 * stack is an id as shadow__push() takes it: the end of the mapping holding
 * the address, 0 when not known (then: nearer than SHADOW_SAME_STACK).
 */
bool shadow_same_stack(uint64_t a, uint64_t sa, uint64_t b, uint64_t sb);

/* A new, empty shadow stack (NULL on ENOMEM). */
struct shadow *shadow__new(void);
void shadow__free(struct shadow *sh);	/* NULL is fine */
/* A copy of SRC for a fork child (its stack holds the same swapped addresses).  0 or -ENOMEM. */
int shadow__copy(struct shadow *dst, const struct shadow *src);
void shadow__clear(struct shadow *sh);

/*
 * Push a frame for a call whose return address is at SLOT, on stack STACK
 * (an id: the end of the mapping holding SLOT, which stays as a stack grows
 * down; 0 when not known), with LEN bytes for its entry arguments (*DATA
 * points at them).  CHAINED: SLOT already holds the trampoline (a tail call
 * from a probed function, or a second return probe on the same function):
 * the frame at SLOT stays below.  Frames below SLOT on the same stack (at
 * SLOT too, unless CHAINED: the call overwrote their return address) were
 * left by longjmp, and so was every frame pushed after them, on any stack (a
 * handler on an alternate stack that jumped away): they go to the limbo
 * first, counted in *UNWOUND.  Frames of other stacks pushed after the
 * caller's are kept (a handler interrupted a call on another stack).  NULL
 * when the stack is full.
 */
struct shadow_frame *shadow__push(struct shadow *sh, uint64_t slot, uint64_t stack, bool chained,
				  size_t len, void **data, uint64_t *unwound);
/*
 * The frame a return to the trampoline with stack pointer SP belongs to: the
 * topmost whose return address was just popped from below SP (a `ret` pops
 * 8 bytes, `ret N` N more).  The frames above it on its stack were skipped:
 * they are dropped (counted in *UNWOUND); those of other stacks stay (a
 * coroutine switched away from).  Returns its index (not necessarily the
 * top: remove it with shadow__remove()), or -1.
 */
long shadow__match(struct shadow *sh, uint64_t sp, uint64_t *unwound);
void *shadow__data(const struct shadow *sh, const struct shadow_frame *f);
/*
 * Is there a frame of probe P at SLOT (on STACK, as for shadow__push())
 * among the frames a call whose return address is at SLOT would keep (those
 * at SLOT, above the call's caller's)?  A site past a function's prologue
 * that a loop in the function passes again would otherwise take the same
 * call over once per pass.
 */
bool shadow__has(const struct shadow *sh, uint64_t slot, uint64_t stack, const struct probe *p);
/* Pop the top frame. */
void shadow__pop(struct shadow *sh);
/* Remove the N frames from index FROM (their data is reclaimed as the frames above go). */
void shadow__remove(struct shadow *sh, size_t from, size_t n);
/* The topmost frame whose return address is at SLOT, or -1; nothing is dropped. */
long shadow__find(const struct shadow *sh, uint64_t slot);
/*
 * SRC's thread is gone: its frames and limbo go to DST's limbo (a sibling
 * may return through them: a coroutine that moved).  SRC is left empty.
 */
void shadow__bequeath(struct shadow *src, struct shadow *dst);
/* The limbo entry of SLOT (index), or -1. */
long shadow__limbo_index(const struct shadow *sh, uint64_t slot);
/* Remove limbo entry I; its return address. */
uint64_t shadow__limbo_take(struct shadow *sh, long i);
/* The real return address of a frame dropped as unwound whose slot is SLOT: true. */
bool shadow__limbo_find(struct shadow *sh, uint64_t slot, uint64_t *ra);

/*
 * Every return address a shadow stack took over, frames and limbo alike: a
 * slot may be in several (a tail call's, a dead one's, another thread's);
 * the newest swap of a slot (TS) is the one whose trampoline is there.
 */
struct shadow_entry {
	uint64_t slot, ra, ts;
	void *owner;		/* for the caller (the thread, to write through) */
};
/* Append SH's entries with a real return address to *OUT (grown; *N, *CAP).  0 or -ENOMEM. */
int shadow__entries(const struct shadow *sh, void *owner, struct shadow_entry **out, size_t *n,
		    size_t *cap);
/* Sort entries newest first: restored in that order, each slot gets its newest. */
void shadow_entries_sort(struct shadow_entry *e, size_t n);

/*
 * Put the real return addresses back (detach, or tracing over): every frame
 * and limbo entry whose slot still holds TRAMP gets its return address back,
 * the newest of a slot first, through WRITE (0 or -errno) and READ (bytes
 * read).  The stack is cleared.  Returns the number restored.
 */
int shadow__restore(struct shadow *sh, uint64_t tramp,
		    int (*read)(void *priv, uint64_t addr, uint64_t *val),
		    int (*write)(void *priv, uint64_t addr, uint64_t val), void *priv);
/* Put E's return address back at its slot if TRAMP is still there: 1 when put back. */
int shadow_entry_restore(const struct shadow_entry *e, uint64_t tramp,
			 int (*read)(void *priv, uint64_t addr, uint64_t *val),
			 int (*write)(void *priv, uint64_t addr, uint64_t val), void *priv);

#endif
