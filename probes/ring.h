/* probes/ring.h: a lossless ring of records in memory two processes share:
 * many writers (the threads of a target, once probes run inside it: issue
 * 20), one reader (ptap).  A writer reserves room, fills it and commits it;
 * the reader takes the records in the order they were reserved -- so each
 * thread's in the order it made them -- and releases them.  A full ring is
 * never overwritten: the writer is told to wait (ring_reserve() -EAGAIN)
 * on a 32-bit word the reader bumps at each release (a futex), and is told
 * when the reader is gone (-EPIPE) rather than left waiting.  Freestanding
 * (`make lint`): no system call, no C library but memset; the waiting is
 * the caller's. */
#ifndef PTAP_PROBES_RING_H
#define PTAP_PROBES_RING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RING_MAGIC	0x72696e67u	/* "ring" */
#define RING_ALIGN	8		/* records start 8-byte aligned */

/* The shared header; the data follows at RING_DATA_OFF. */
struct ring {
	uint32_t magic;
	uint32_t size_log2;	/* the data: 1 << size_log2 bytes */
	uint32_t reader;	/* 1 while the reader reads */
	uint32_t released;	/* bumped at each release: the word writers wait on */
	uint32_t waiters;	/* writers waiting for room: the reader wakes them */
	uint32_t pad0;
	uint64_t lost;		/* records refused since the reader went: none while it reads */
	uint64_t head __attribute__((aligned(64)));	/* bytes reserved, ever */
	uint64_t tail __attribute__((aligned(64)));	/* bytes released, ever */
};

#define RING_DATA_OFF	((sizeof(struct ring) + 63) & ~(size_t)63)

/*
 * Lay a ring out in MEM[0..LEN) (zeroed by the caller, as a fresh mapping
 * is): the data is the largest power of two that fits, at least 4096 bytes.
 * The reader is there.  0, or -EINVAL when LEN is too small.
 */
int ring_init(void *mem, size_t len);
/* The largest record a ring of MEM's layout takes (payload bytes). */
size_t ring_max_record(const struct ring *r);

/*
 * A writer: room for a record of LEN payload bytes, at *PAYLOAD; fill it,
 * then ring_commit() it.  0; -EAGAIN when the ring is full: wait until
 * r->released differs from *SEEN (with r->waiters raised while waiting),
 * then try again; -EPIPE when the reader is gone (counted in r->lost);
 * -EMSGSIZE when LEN is larger than ring_max_record().
 */
int ring_reserve(struct ring *r, size_t len, void **payload, uint32_t *seen);
/* The record at PAYLOAD (from ring_reserve()) is filled: the reader may take it. */
void ring_commit(void *payload);

/*
 * The reader: the next record, in the order they were reserved: 1 with
 * *PAYLOAD and *LEN, 0 when the next is not committed yet (or none).
 */
int ring_peek(struct ring *r, const void **payload, size_t *len);
/*
 * Release the record ring_peek() gave: true when writers wait.  Wake them
 * (a futex wake on r->released) once the records there are taken, not at
 * each: a wake-up per record makes them take turns at every free slot.
 */
bool ring_release(struct ring *r);
/*
 * The reader, once no writer is left (every process that mapped the ring
 * exited or exec'd): pass over the next record when it was reserved and
 * never committed (its writer killed between the two).  True when one was
 * passed over; false when none is left, or its length was never written.
 */
bool ring_skip_abandoned(struct ring *r);
/* The reader is gone: writers stop waiting (and their records are refused, counted). */
void ring_close(struct ring *r);

#endif
