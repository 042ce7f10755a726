/* probes/ring.h: a lossless ring of records in memory two processes share:
 * many writers (the threads of a target, where probes run inside it: issue
 * 20), one reader (ptap).
 *
 * The records are made in slots of a fixed size, then published: a writer
 * takes a free slot, fills it, and puts its number in a queue with one
 * compare-and-swap.  The reader takes the slots in the order they were
 * published -- so each thread's records in the order it made them -- and
 * frees them.  A writer cut short anywhere (a signal handler that jumps
 * away, siglongjmp, out of the writer; a thread killed) leaves at worst a
 * slot taken and not published, which never stops the reader: the same
 * thread takes it back at its next record made at the same stack pointer
 * (the same call again: ring_slot_take(); while the slot is under the
 * ring's cap, below), or the reader frees it once the thread is gone
 * (ring_slots_free()) -- but a call held for its exit (ring_hold()) is
 * not taken back.  The writers take only the slots under a cap the
 * reader sets (ring_set_cap()).  With every slot under it taken, or as
 * many records in the queue as the cap, the
 * writer is told to wait (-EAGAIN) on a 32-bit word the reader bumps at
 * each release (a futex), and is told when the reader is gone (-EPIPE)
 * rather than left waiting.  A ring half full, or full, rings a bell (a
 * second word) for a reader that waits on it.  Freestanding (`make lint`): no system call,
 * no C library; the waiting is the caller's. */
#ifndef PTAP_PROBES_RING_H
#define PTAP_PROBES_RING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RING_MAGIC	0x72696e67u	/* "ring" */
#define RING_READER_DIED	0x40000000u	/* FUTEX_OWNER_DIED, set by the kernel */

/* The shared header; the queue (NSLOTS words), then the slots, follow. */
struct ring {
	uint32_t magic;
	uint32_t nslots;	/* slots, and places in the queue */
	uint32_t slot_len;	/* bytes of a slot: struct ring_slot, then the record */
	/*
	 * Not 0 while the reader reads: 1, or the tid of a thread of the
	 * reader's that holds it as a robust futex, whose death the kernel
	 * marks here with RING_READER_DIED (FUTEX_OWNER_DIED): the writers
	 * stop waiting for a reader killed without a word.
	 */
	uint32_t reader;
	uint64_t robust_next;	/* the reader's: this ring in that thread's robust list */
	/*
	 * The slots the writers take: the first CAP (a power of two, set by
	 * the reader: ring_set_cap()); fewer than NSLOTS keeps what the
	 * writers write between two reads within the caches when a process
	 * writes several rings.  Any other value reads as NSLOTS
	 */
	uint32_t cap;
	/* the reader's, on a line of their own: the writers read the above at each record */
	uint32_t released __attribute__((aligned(64)));	/* bumped at a release that finds
							 * writers waiting: the word they
							 * wait on */
	uint32_t waiters;	/* writers waiting for a slot: the reader wakes them */
	/*
	 * Bumped by a writer that finds the ring, or any ring that shares
	 * this one's bell, half full or more (at one record in 64:
	 * ring_publish()) or full -- once, whichever, until the reader reads
	 * again (ring_bell_due(), ring_bell()): a futex the reader may wait
	 * on, so that it reads before the writers have to wait for it.
	 */
	uint32_t bell;
	uint32_t rung;		/* a writer rang it since the reader last began to read */
	uint64_t lost;		/* records refused since the reader went: none while it reads */
	uint64_t hint __attribute__((aligned(64)));	/* where writers look for a free slot */
	uint64_t held;		/* the call held (ring_hold()): its slot and take, 0: none */
	uint64_t head __attribute__((aligned(64)));	/* places published, ever (helped along) */
	uint64_t tail __attribute__((aligned(64)));	/* places read, ever */
};

/* A slot's header: who holds it. */
struct ring_slot {
	/*
	 * The writer's id (a tid) in the low 32 bits, until the reader has
	 * read the record (0: free); above them, whether it is published or
	 * held, and a count of the times it was taken, kept while it is free
	 * (ring.c)
	 */
	uint64_t owner;
	uint32_t len;		/* the record's bytes, once published */
	uint32_t pad;
	uint64_t sp;		/* the writer's stack pointer when it took it */
	uint64_t pos;		/* the place in the queue it was last published at */
};

/*
 * The ring's shape as the reader keeps it, in memory of its own: the
 * writers (another process, untrusted) could change the header's.
 */
struct ring_shape {
	uint32_t nslots, slot_len;
};

/*
 * Lay a ring out in MEM[0..LEN) (zeroed by the caller, as a fresh mapping
 * is), with slots for records of up to MAX_RECORD bytes: the most that fit, a power of two,
 * its shape into *SHAPE.  The reader is there.  0, or -EINVAL when not one
 * slot fits.
 */
int ring_init(void *mem, size_t len, size_t max_record, struct ring_shape *shape);
/* The bytes a ring of NSLOTS slots (a power of two) for records of up to MAX_RECORD takes. */
size_t ring_len_for(size_t max_record, uint32_t nslots);
/*
 * The reader: let the writers take only the first CAP slots of R (rounded
 * down to a power of two, at least 1, at most all): that cap returned.
 * Records in slots past CAP are read and freed as the others; a slot past
 * it taken and never published (a writer cut short) is freed once its
 * writer is gone, or taken back by it once the cap is raised again.
 */
uint32_t ring_set_cap(struct ring *r, const struct ring_shape *shape, uint32_t cap);
/* The largest record a slot of R holds. */
size_t ring_max_record(const struct ring *r);

/*
 * A writer ID (not 0) making a record at stack pointer SP: a free slot for
 * it, its record at *PAYLOAD (ring_max_record() bytes), with *SLOT to
 * publish it by.  0; -EAGAIN when every slot under the cap is taken, or
 * as many records as the cap are in the queue: raise r->waiters,
 * try again (a slot freed before the reader saw the raise), and only then
 * wait until r->released differs from the second call's *SEEN; -EPIPE when
 * the reader is gone (counted in r->lost).
 */
int ring_slot_take(struct ring *r, uint32_t id, uint64_t sp, void **payload, uint32_t *slot,
		   uint32_t *seen);
/*
 * The record of LEN bytes in SLOT is made: the reader may take it.  True
 * when the ring is half full or more (half its cap), looked at once every
 * 64 records (not at each: the reader's tail would pass between the two at
 * every record): the bell is to ring, if ring_bell_due() says so.
 */
bool ring_publish(struct ring *r, uint32_t slot, uint32_t len);
/*
 * Whether a writer rings R's bell now (ring_bell(), then a futex wake on
 * r->bell): true once until the reader's next ring_rearm().  A reader
 * woken once reads every ring it has: rings that share a bell share this
 * too (the writers ask the bell's ring), so a drain costs one wake of the
 * reader, not one for each ring that filled while it was coming.
 */
bool ring_bell_due(struct ring *r);
/*
 * A return probe's call, one at a time a ring (issue 20): the record of
 * its entry (LEN bytes in SLOT) is kept unpublished for its exit, which
 * adds its own record to the same slot and publishes the two at once
 * (ring_held_claim()) -- one slot, one compare-and-swap into the queue a
 * call, not two.  False, SLOT left as taken, when another call is held in
 * R: publish it then.  A slot held is never taken back (a site further
 * into the call may be at the same sp); it is taken by its writer's
 * ring_held_claim(), by the reader (ring_held_take()), or freed once its
 * writer is gone (ring_slots_free()).
 */
bool ring_hold(struct ring *r, uint32_t slot, uint32_t len);
/*
 * Writer ID at stack pointer SP: the call it holds in R taken at that sp
 * (its entry's sp: the call's exit, or an entry at the same sp after the
 * call was left): 0 with the slot's record at *PAYLOAD, *LEN bytes, the
 * slot's number in *SLOT (taken, to publish); -ENOENT when it holds none
 * there, or the reader took it first.
 */
int ring_held_claim(struct ring *r, uint32_t id, uint64_t sp, void **payload, uint32_t *slot,
		    uint32_t *len);
/*
 * The reader, with its SHAPE of R: the call held in R, not taken: 1 with
 * its writer *ID, its record at *PAYLOAD and the word naming it (*WORD); 0:
 * none.
 */
int ring_held_peek(const struct ring *r, const struct ring_shape *shape, uint32_t *id,
		   const void **payload, uint64_t *word);
/*
 * The reader: the call held in R (the one WORD names, from ring_held_peek();
 * 0: any), taken from its writer, whose exit then finds none and publishes
 * its own record alone: 1 with the entry's record at *PAYLOAD, *LEN bytes
 * (within the slot), its writer *ID and *SLOT, to free with
 * ring_held_done() once read; 0: none.
 */
int ring_held_take(struct ring *r, const struct ring_shape *shape, uint64_t word,
		   const void **payload, size_t *len, uint32_t *id, uint32_t *slot);
void ring_held_done(struct ring *r, const struct ring_shape *shape, uint32_t slot);
/* Give back SLOT, taken and not published: its record is not to be written after all. */
void ring_slot_drop(struct ring *r, uint32_t slot);
/* The reader is about to read: a writer that finds a ring of R's bell half full rings again. */
void ring_rearm(struct ring *r);
/* Bump r->bell (the caller then wakes the reader waiting on it). */
void ring_bell(struct ring *r);

/*
 * The reader, with its SHAPE of R: the next record, in the order they were
 * published: 1 with *PAYLOAD and *LEN (within the slot, whatever the
 * writers wrote), 0 when none is.
 */
int ring_peek(struct ring *r, const struct ring_shape *shape, const void **payload,
	      size_t *len);
/*
 * The reader: the places published so far.  A writer publishes its record,
 * then moves the head; one killed in between (an exec's other threads are)
 * leaves it behind, and the next writer would move it on: the reader moves
 * it over every place published there, so that none is left behind it.
 */
uint64_t ring_head(struct ring *r, const struct ring_shape *shape);
/* Release the record ring_peek() gave. */
void ring_release(struct ring *r, const struct ring_shape *shape);
/*
 * After the releases of a batch (one fence for all, not one a record):
 * true when writers wait.  Wake them (a futex wake on r->released) then,
 * not at each release: a wake-up per record makes them take turns at every
 * free slot.
 */
bool ring_released(struct ring *r);
/*
 * The reader: writer ID is gone; the slots it held and never published are
 * free again, their number returned (then ring_released(), as after a batch).
 */
uint32_t ring_slots_free(struct ring *r, const struct ring_shape *shape, uint32_t id);
/* Is the reader there (not closed, not dead)? */
bool ring_reader_alive(const struct ring *r);
/* The reader is gone: writers stop waiting (and their records are refused, counted). */
void ring_close(struct ring *r);

#endif
