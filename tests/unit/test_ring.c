/* tests/unit/test_ring.c: the shared ring of records (probes/ring.h) --
 * order, a full ring, a writer cut short (its slot taken back, never
 * stopping the reader), writers on several threads against one reader with
 * nothing lost, a reader that goes away, the bell of a half-full ring, a
 * head left behind, and a call held for its exit. */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "probes/ring.h"

/* The reader's shape of the last ring made (one ring a test). */
static struct ring_shape shape;

/* A fresh ring of LEN bytes, for records of up to MAX bytes. */
static struct ring *new_ring(size_t len, size_t max)
{
	void *mem = calloc(1, len);

	cr_assert_not_null(mem);
	cr_assert(eq(int, ring_init(mem, len, max, &shape), 0));
	return mem;
}

/* Write one record of writer ID: N bytes of B.  0 or the error of ring_slot_take(). */
static int put(struct ring *r, uint32_t id, size_t n, char b)
{
	void *p;
	uint32_t slot, seen;
	int err = ring_slot_take(r, id, 0x7f0000, &p, &slot, &seen);

	if (err == 0) {
		memset(p, b, n);
		ring_publish(r, slot, (uint32_t)n);
	}
	return err;
}

/* Read one record: its length, its first byte in *B; -1 when none. */
static long take(struct ring *r, char *b)
{
	const void *p;
	size_t n;

	if (!ring_peek(r, &shape, &p, &n))
		return -1;
	*b = *(const char *)p;
	ring_release(r, &shape);
	ring_released(r);
	return (long)n;
}

Test(ring, order_and_a_full_ring)
{
	struct ring *r = new_ring(8192, 100);
	uint32_t slots;
	char b;
	int n = 0;

	cr_assert(eq(int, ring_init(r, 100, 100, &(struct ring_shape){ 0 }), -EINVAL));
	cr_assert(ge(sz, ring_max_record(r), 100));
	slots = r->nslots;
	cr_assert(ge(u32, slots, 8), "%u slots in 8 KiB", slots);
	while (put(r, 1, 100, (char)('a' + n % 26)) == 0)
		n++;
	cr_assert(eq(int, n, (int)slots));
	cr_assert(eq(int, put(r, 1, 100, 'z'), -EAGAIN));
	for (int i = 0; i < n; i++) {
		cr_assert(eq(long, take(r, &b), 100));
		cr_assert(eq(chr, b, (char)('a' + i % 26)));
	}
	cr_assert(eq(long, take(r, &b), -1));
	/* many laps round the queue */
	for (int i = 0; i < 10000; i++) {
		cr_assert(eq(int, put(r, 1, (size_t)(i % 100), (char)i), 0));
		cr_assert(eq(long, take(r, &b), (long)(i % 100)));
		if (i % 100)
			cr_assert(eq(chr, b, (char)i));
	}
	free(r);
}

/*
 * A writer cut short between taking a slot and publishing it (a signal
 * handler's siglongjmp) stops no one: the records after it are read, the
 * same writer takes the slot back at its next record made from no deeper,
 * and the reader frees the slots of a writer gone.
 */
Test(ring, a_writer_cut_short_stops_no_one)
{
	struct ring *r = new_ring(8192, 100);
	uint32_t slot, seen, again, n = r->nslots;
	void *p, *q;
	char b;

	cr_assert(eq(int, ring_slot_take(r, 7, 0x1000, &p, &slot, &seen), 0));
	/* ... and never published: the others go on */
	cr_assert(eq(int, put(r, 8, 10, 'x'), 0));
	cr_assert(eq(long, take(r, &b), 10));
	cr_assert(eq(chr, b, 'x'));
	/* a handler's record, deeper on the same stack, does not take it */
	for (uint32_t i = 0; i < n - 1; i++) {
		cr_assert(eq(int, ring_slot_take(r, 7, 0x0f00, &q, &again, &seen), 0));
		cr_assert(ne(u32, again, slot));
		ring_publish(r, again, 1);
	}
	cr_assert(eq(int, ring_slot_take(r, 7, 0x0f00, &q, &again, &seen), -EAGAIN));
	/* its next record from as deep or shallower takes it back */
	cr_assert(eq(int, ring_slot_take(r, 7, 0x1000, &q, &again, &seen), 0));
	cr_assert(eq(u32, again, slot));
	/* cut short again; then the writer is gone: the reader frees it */
	for (uint32_t i = 0; i < n - 1; i++)
		cr_assert(eq(long, take(r, &b), 1));
	cr_assert(eq(u32, ring_slots_free(r, &shape, 8), 0));	/* none of 8's left */
	/* a writer waits for room: the slot freed is a release it is told of */
	r->waiters = 1;
	cr_assert(eq(u32, ring_slots_free(r, &shape, 7), 1));
	cr_assert(eq(int, ring_released(r), true));
	r->waiters = 0;
	for (uint32_t i = 0; i < n; i++)
		cr_assert(eq(int, put(r, 9, 5, 'y'), 0), "slot %u of %u", i, n);
	cr_assert(eq(int, put(r, 9, 5, 'y'), -EAGAIN));
	free(r);
}

#define WRITERS		4
#define PER_WRITER	50000

struct msg {
	uint32_t writer, seq;
	char fill[];
};

static long futex(uint32_t *word, int op, uint32_t val)
{
	return syscall(SYS_futex, word, op, val, NULL, NULL, 0);
}

struct wctx {
	struct ring *r;
	uint32_t id;
	int refused;		/* -EPIPE seen (the reader went) */
	int bad;		/* another error (the main thread asserts) */
	long waits;
};

/* Write records as the target's threads do: wait on a full ring. */
static void *writer(void *arg)
{
	struct wctx *w = arg;

	for (uint32_t seq = 0; seq < PER_WRITER; seq++) {
		size_t n = sizeof(struct msg) + (seq * 7 + w->id) % 200;
		uint32_t slot, seen;
		struct msg *m;
		int err;

		/* as the agent waits: waiters raised, a second look, then the futex */
		while ((err = ring_slot_take(w->r, w->id + 1, 0x7f0000, (void **)&m, &slot,
					     &seen)) == -EAGAIN) {
			__atomic_fetch_add(&w->r->waiters, 1, __ATOMIC_SEQ_CST);
			err = ring_slot_take(w->r, w->id + 1, 0x7f0000, (void **)&m, &slot, &seen);
			if (err == -EAGAIN)
				futex(&w->r->released, FUTEX_WAIT, seen);
			__atomic_fetch_sub(&w->r->waiters, 1, __ATOMIC_ACQ_REL);
			w->waits++;
			if (err != -EAGAIN)
				break;
		}
		if (err == -EPIPE) {
			w->refused = 1;
			return NULL;
		}
		if (err) {
			w->bad = err;
			return NULL;
		}
		m->writer = w->id;
		m->seq = seq;
		memset(m->fill, (int)(seq & 0xff), n - sizeof(*m));
		ring_publish(w->r, slot, (uint32_t)n);
	}
	return NULL;
}

Test(ring, writers_on_four_threads_lose_nothing, .timeout = 120)
{
	struct ring *r = new_ring(8192, sizeof(struct msg) + 200);
	struct wctx w[WRITERS];
	pthread_t th[WRITERS];
	uint32_t next[WRITERS] = { 0 };
	long got = 0, waits = 0;

	for (uint32_t i = 0; i < WRITERS; i++) {
		w[i] = (struct wctx){ .r = r, .id = i };
		cr_assert(eq(int, pthread_create(&th[i], NULL, writer, &w[i]), 0));
	}
	while (got < (long)WRITERS * PER_WRITER) {
		const struct msg *m;
		size_t n;

		if (!ring_peek(r, &shape, (const void **)&m, &n)) {
			sched_yield();
			continue;
		}
		cr_assert(lt(u32, m->writer, WRITERS));
		/* each writer's records in the order it made them, none missing */
		cr_assert(eq(u32, m->seq, next[m->writer]), "writer %u", m->writer);
		cr_assert(eq(sz, n, sizeof(*m) + (m->seq * 7 + m->writer) % 200));
		next[m->writer]++;
		for (size_t k = 0; k < n - sizeof(*m); k++)
			cr_assert(eq(chr, m->fill[k], (char)(m->seq & 0xff)));
		ring_release(r, &shape);
		if (ring_released(r))
			futex(&r->released, FUTEX_WAKE, WRITERS);
		got++;
	}
	for (int i = 0; i < WRITERS; i++) {
		pthread_join(th[i], NULL);
		cr_assert(eq(int, w[i].bad, 0), "writer %d", i);
		waits += w[i].waits;
	}
	cr_assert(eq(long, got, (long)WRITERS * PER_WRITER));
	cr_assert(gt(long, waits, 0), "the ring never filled: the test tests nothing");
	cr_assert(eq(int, ring_peek(r, &shape, &(const void *){ NULL }, &(size_t){ 0 }), 0));
	free(r);
}

Test(ring, a_reader_that_goes_frees_the_waiting_writers, .timeout = 60)
{
	struct ring *r = new_ring(4096, sizeof(struct msg) + 200);
	struct wctx w = { .r = r, .id = 0 };
	pthread_t th;

	cr_assert(eq(int, pthread_create(&th, NULL, writer, &w), 0));
	/* the writer fills the ring and waits; the reader leaves without reading */
	while (!__atomic_load_n(&r->waiters, __ATOMIC_ACQUIRE))
		sched_yield();
	ring_close(r);
	futex(&r->released, FUTEX_WAKE, 1);
	pthread_join(th, NULL);
	cr_assert(eq(int, w.refused, 1));
	cr_assert(eq(u64, r->lost, 1));
	cr_assert(eq(int, put(r, 1, 8, 'x'), -EPIPE));
	cr_assert(eq(u64, r->lost, 2));
	free(r);
}

/*
 * A writer looks at the fill once every 64 records: the bell rings at the
 * first of those that finds the ring half full or more, and not again until
 * the reader reads (ring_rearm()).
 */
/* Publish N records of one byte: how many rang the bell, the first that did in *AT (1-based). */
static uint32_t publish_n(struct ring *r, uint32_t n, uint32_t *at)
{
	uint32_t rang = 0;

	for (uint32_t i = 1; i <= n; i++) {
		void *p;
		uint32_t slot, seen;

		cr_assert(eq(int, ring_slot_take(r, 1, 0x7f0000, &p, &slot, &seen), 0));
		if (ring_publish(r, slot, 1) && ring_bell_due(r) && !rang++)
			*at = i;
	}
	return rang;
}

Test(ring, bell_at_half_full)
{
	struct ring *r = new_ring(512 * 256, 100);
	uint32_t half = shape.nslots / 2, at = 0;
	char b;

	cr_assert(eq(u32, shape.nslots, 512));
	/* records 64, 128 ... 448 look: 256 (half) rings, and 320 ... 448 not again */
	cr_expect(eq(u32, publish_n(r, shape.nslots - 1, &at), 1));
	cr_expect(eq(u32, at, half));
	/* all read but 100 (the head is at 511): record 512 looks and finds 101 */
	for (uint32_t i = 100; i < shape.nslots - 1; i++)
		cr_assert(eq(long, take(r, &b), 1));
	ring_rearm(r);
	cr_expect(eq(u32, publish_n(r, 64, &at), 0));
	/* then 576, 640, 704 and 768 find 165, 229, 293 (rings) and 357 (rung already) */
	cr_expect(eq(u32, publish_n(r, 193, &at), 1));
	cr_expect(eq(u32, at, 129));
	/* all read (the head at 768): 832, 896 and 960 find a quarter or less, 1024 half */
	while (take(r, &b) == 1)
		;
	ring_rearm(r);
	cr_expect(eq(u32, publish_n(r, 255, &at), 0));
	cr_expect(eq(u32, publish_n(r, 1, &at), 1));
	ring_bell(r);
	cr_expect(eq(u32, r->bell, 1));
	free(r);
}

/*
 * A writer killed between publishing its record and moving the head (an
 * exec's other threads are) leaves the head behind: the reader moves it on
 * over what is published there.
 */
Test(ring, head_left_behind)
{
	struct ring *r = new_ring(8192, 100);
	char b;

	cr_assert(eq(int, put(r, 1, 3, 'a'), 0));
	cr_assert(eq(int, put(r, 2, 3, 'b'), 0));
	r->head -= 2;		/* as if each had died before its head move */
	cr_expect(eq(u64, ring_head(r, &shape), 2));
	cr_expect(eq(u64, r->head, 2));
	cr_expect(eq(long, take(r, &b), 3));
	cr_expect(eq(chr, b, 'a'));
	cr_expect(eq(u64, ring_head(r, &shape), 2));	/* nothing more published */
	free(r);
}

/*
 * A writer whose first look finds its slot taken asks whether the queue
 * holds every slot: then it is told -EAGAIN at once; not when the reader is
 * past a head left behind (the difference would wrap): it looks on, and
 * finds the free ones.
 */
Test(ring, a_full_queue_at_once_a_lagging_head_not_full)
{
	struct ring *r = new_ring(8192, 100);
	uint32_t slot, other, seen, n = r->nslots;
	void *p;
	char b;

	cr_assert(eq(int, ring_slot_take(r, 8, 0x1000, &p, &slot, &seen), 0));	/* kept */
	for (uint32_t i = 0; i < n - 1; i++)
		cr_assert(eq(int, put(r, 9, 1, 'z'), 0));
	r->hint = slot;
	cr_assert(eq(int, ring_slot_take(r, 7, 0x1000, &p, &other, &seen), -EAGAIN));
	for (uint32_t i = 0; i < n - 1; i++)
		cr_assert(eq(long, take(r, &b), 1));
	r->head -= 2;		/* behind the reader, as if two writers died before the move */
	r->hint = slot;		/* the first look: the slot writer 8 keeps */
	cr_assert(eq(int, ring_slot_take(r, 7, 0x1000, &p, &other, &seen), 0));
	cr_expect(ne(u32, other, slot));
	free(r);
}

/* Put records of writer 1 until the ring says -EAGAIN: how many; the highest slot taken in *TOP. */
static uint32_t fill(struct ring *r, uint32_t *top)
{
	uint32_t n = 0, slot, seen;
	void *p;

	*top = 0;
	while (ring_slot_take(r, 1, 0x7f0000, &p, &slot, &seen) == 0) {
		ring_publish(r, slot, 1);
		*top = slot > *top ? slot : *top;
		n++;
	}
	return n;
}

/*
 * A cap keeps the writers to the first CAP slots (a power of two: rounded
 * down; at least 1, at most every slot); records in slots past a cap
 * lowered are read in their order all the same, and a cap the process
 * spoilt in the header counts as every slot.  The bell rings at half the
 * cap.
 */
Test(ring, a_cap_keeps_writers_to_the_first_slots)
{
	struct ring *r = new_ring(512 * 256, 100);
	uint32_t n = shape.nslots, top, at = 0;
	char b;

	cr_assert(eq(u32, n, 512));
	cr_expect(eq(u32, r->cap, n));
	ring_set_cap(r, &shape, 100);
	cr_expect(eq(u32, r->cap, 64));
	ring_set_cap(r, &shape, 0);
	cr_expect(eq(u32, r->cap, 1));
	ring_set_cap(r, &shape, 100000);
	cr_expect(eq(u32, r->cap, n));

	/* 10 records in slots 0..9, then a cap of 8: those read, the writers kept below it */
	for (int i = 0; i < 10; i++)
		cr_assert(eq(int, put(r, 1, 1, (char)('a' + i)), 0));
	ring_set_cap(r, &shape, 8);
	cr_expect(eq(u32, fill(r, &top), 0), "the queue holds 10 records: full at a cap of 8");
	for (int i = 0; i < 10; i++) {
		cr_assert(eq(long, take(r, &b), 1));
		cr_expect(eq(chr, b, (char)('a' + i)));
	}
	for (int lap = 0; lap < 3; lap++) {
		cr_expect(eq(u32, fill(r, &top), 8));
		cr_expect(lt(u32, top, 8));
		while (take(r, &b) == 1)
			;
	}
	/* a bell at half the cap: at the 4th record, looked at every 2 (a quarter of 8) */
	ring_rearm(r);
	ring_set_cap(r, &shape, 8);
	cr_expect(eq(u32, publish_n(r, 7, &at), 1));
	cr_expect(eq(u32, at, 4));
	while (take(r, &b) == 1)
		;
	/* spoilt by the process: every slot */
	r->cap = 0;
	cr_expect(eq(u32, fill(r, &top), n));
	while (take(r, &b) == 1)
		;
	r->cap = 3;
	cr_expect(eq(u32, fill(r, &top), n));
	while (take(r, &b) == 1)
		;
	r->cap = 2 * n;
	cr_expect(eq(u32, fill(r, &top), n));
	cr_expect(eq(u32, top, n - 1));
	free(r);
}

/*
 * Slots past a cap lowered while they are taken: one published after the
 * cap came down is read in its order; one its writer was cut short in (a
 * siglongjmp) is freed once the writer is gone, or taken back by it once
 * the cap is up again.
 */
Test(ring, slots_past_a_cap_lowered)
{
	struct ring *r = new_ring(512 * 256, 100);
	uint32_t s20, s21, s22, slot, seen;
	void *p, *p20;
	char b;

	r->hint = 20;
	cr_assert(eq(int, ring_slot_take(r, 5, 0x1000, &p20, &s20, &seen), 0));
	cr_assert(eq(int, ring_slot_take(r, 6, 0x2000, &p, &s21, &seen), 0));
	cr_assert(eq(int, ring_slot_take(r, 7, 0x3000, &p, &s22, &seen), 0));
	cr_assert(eq(u32, s20, 20));
	cr_assert(eq(u32, s22, 22));
	ring_set_cap(r, &shape, 8);
	cr_assert(eq(int, put(r, 1, 1, 'x'), 0));
	memset(p20, 'y', 1);
	ring_publish(r, s20, 1);	/* made before the cap came down, published after */
	cr_expect(eq(long, take(r, &b), 1));
	cr_expect(eq(chr, b, 'x'));
	cr_expect(eq(long, take(r, &b), 1));
	cr_expect(eq(chr, b, 'y'));
	/* writer 6, cut short in slot 21, comes back at the same sp: a slot under the cap */
	cr_assert(eq(int, ring_slot_take(r, 6, 0x2000, &p, &slot, &seen), 0));
	cr_expect(lt(u32, slot, 8));
	ring_slot_drop(r, slot);
	/* writer 6 gone: slot 21 freed by the reader */
	cr_expect(eq(u32, ring_slots_free(r, &shape, 6), 1));
	/* the cap up again: writer 7 takes its slot 22 back */
	ring_set_cap(r, &shape, 512);
	r->hint = 22;
	cr_assert(eq(int, ring_slot_take(r, 7, 0x3000, &p, &slot, &seen), 0));
	cr_expect(eq(u32, slot, 22));
	free(r);
}

/*
 * A call held (ring_hold()): kept out of the queue for its exit, which
 * takes it at the same sp only (not another writer, not another sp), or
 * taken by the reader first; never taken back by a record of its writer at
 * its sp meanwhile (a site further into the call); one at a time; freed
 * with its writer.
 */
Test(ring, a_call_held_for_its_exit)
{
	struct ring *r = new_ring(8192, 100);
	uint32_t slot, seen, got, id, len, n = r->nslots;
	uint64_t word;
	void *p, *q;
	const void *rp;
	size_t rlen;
	char b;

	cr_assert(eq(int, ring_slot_take(r, 7, 0x1000, &p, &slot, &seen), 0));
	memset(p, 'e', 40);
	cr_assert(eq(int, ring_hold(r, slot, 40), true));
	cr_assert(eq(long, take(r, &b), -1), "a call held is not in the queue");
	/* one at a time: another writer's entry is published as ever */
	cr_assert(eq(int, ring_slot_take(r, 8, 0x2000, &q, &got, &seen), 0));
	cr_assert(eq(int, ring_hold(r, got, 8), false));
	ring_publish(r, got, 8);
	cr_assert(eq(long, take(r, &b), 8));
	/* a record of 7 at the same sp takes another slot, not the call's */
	for (uint32_t i = 0; i < n - 1; i++) {
		cr_assert(eq(int, ring_slot_take(r, 7, 0x1000, &q, &got, &seen), 0));
		cr_assert(ne(u32, got, slot), "record %u took the call held", i);
		ring_publish(r, got, 1);
	}
	cr_assert(eq(int, ring_slot_take(r, 7, 0x1000, &q, &got, &seen), -EAGAIN));
	for (uint32_t i = 0; i < n - 1; i++)
		cr_assert(eq(long, take(r, &b), 1));
	/* not another writer's exit, not another sp */
	cr_assert(eq(int, ring_held_claim(r, 8, 0x1000, &q, &got, &len), -ENOENT));
	cr_assert(eq(int, ring_held_claim(r, 7, 0x0ff8, &q, &got, &len), -ENOENT));
	cr_assert(eq(int, ring_held_peek(r, &shape, &id, &rp, &word), 1));
	cr_assert(eq(u32, id, 7));
	cr_assert(eq(ptr, (void *)rp, p));
	/* its exit: the entry's bytes, then its own, published as one */
	cr_assert(eq(int, ring_held_claim(r, 7, 0x1000, &q, &got, &len), 0));
	cr_assert(eq(u32, got, slot));
	cr_assert(eq(u32, len, 40));
	cr_assert(eq(ptr, q, p));
	cr_assert(eq(int, ring_held_claim(r, 7, 0x1000, &q, &got, &len), -ENOENT), "taken twice");
	cr_assert(eq(int, ring_held_peek(r, &shape, &id, &rp, &word), 0));
	memset((char *)q + 40, 'x', 8);
	ring_publish(r, got, 48);
	cr_assert(eq(long, take(r, &b), 48));
	cr_assert(eq(chr, b, 'e'));

	/* the reader takes it first: the exit finds none, nor a take-back (one slot: that one) */
	ring_set_cap(r, &shape, 1);
	cr_assert(eq(int, ring_slot_take(r, 7, 0x1000, &p, &slot, &seen), 0));
	memset(p, 'f', 16);
	cr_assert(eq(int, ring_hold(r, slot, 16), true));
	cr_assert(eq(int, ring_held_peek(r, &shape, &id, &rp, &word), 1));
	cr_assert(eq(int, ring_held_take(r, &shape, word, &rp, &rlen, &id, &got), 1));
	cr_assert(eq(u32, got, slot));
	cr_assert(eq(u32, id, 7));
	cr_assert(eq(sz, rlen, 16));
	cr_assert(eq(chr, *(const char *)rp, 'f'));
	cr_assert(eq(int, ring_held_claim(r, 7, 0x1000, &q, &got, &len), -ENOENT));
	cr_assert(eq(int, ring_slot_take(r, 7, 0x1000, &q, &got, &seen), -EAGAIN),
		  "taken back while the reader reads it");
	cr_assert(eq(int, ring_held_take(r, &shape, 0, &rp, &rlen, &id, &got), 0), "taken twice");
	ring_held_done(r, &shape, slot);
	ring_set_cap(r, &shape, n);

	/* held again; its writer gone: freed, and the ring holds none */
	cr_assert(eq(int, ring_slot_take(r, 7, 0x1000, &p, &slot, &seen), 0));
	cr_assert(eq(int, ring_hold(r, slot, 16), true));
	cr_assert(eq(u32, ring_slots_free(r, &shape, 7), 1));
	cr_assert(eq(int, ring_held_peek(r, &shape, &id, &rp, &word), 0));
	cr_assert(eq(int, ring_slot_take(r, 9, 0x3000, &p, &slot, &seen), 0));
	cr_assert(eq(int, ring_hold(r, slot, 16), true), "the word of a writer gone is free");
	free(r);
}

/*
 * The held word names a take of its slot, not the slot: a word read before
 * the slot was freed and held anew (by another writer, or the same) takes
 * nothing.
 */
Test(ring, a_call_held_again_is_another)
{
	struct ring *r = new_ring(8192, 100);
	uint32_t slot, again, seen, id, got, len;
	uint64_t old, word;
	void *p, *q;
	const void *rp;
	size_t rlen;

	ring_set_cap(r, &shape, 1);	/* one slot: each take is of the same */
	cr_assert(eq(int, ring_slot_take(r, 7, 0x1000, &p, &slot, &seen), 0));
	cr_assert(eq(int, ring_hold(r, slot, 16), true));
	cr_assert(eq(int, ring_held_peek(r, &shape, &id, &rp, &old), 1));
	cr_assert(eq(int, ring_held_claim(r, 7, 0x1000, &q, &got, &len), 0));
	ring_publish(r, got, 16);
	cr_assert(eq(long, take(r, &(char){ 0 }), 16));
	cr_assert(eq(int, ring_slot_take(r, 8, 0x2000, &p, &again, &seen), 0));
	cr_assert(eq(u32, again, slot));
	cr_assert(eq(int, ring_hold(r, again, 16), true));
	cr_assert(eq(int, ring_held_peek(r, &shape, &id, &rp, &word), 1));
	cr_assert(ne(u64, word, old), "the same slot held anew is named anew");
	cr_assert(eq(int, ring_held_take(r, &shape, old, &rp, &rlen, &id, &got), 0));
	cr_assert(eq(int, ring_held_take(r, &shape, word, &rp, &rlen, &id, &got), 1));
	cr_assert(eq(u32, id, 8));
	ring_held_done(r, &shape, got);

	/*
	 * A name left behind (its writer cut short, its slot taken since): the
	 * next call to hold clears it; a live name stays
	 */
	cr_assert(eq(int, ring_slot_take(r, 9, 0x3000, &p, &slot, &seen), 0));
	r->held = old;	/* the slot's take now is another */
	cr_assert(eq(int, ring_hold(r, slot, 16), true), "a stale name kept");
	cr_assert(eq(int, ring_held_peek(r, &shape, &id, &rp, &word), 1));
	cr_assert(eq(u32, id, 9));
	ring_set_cap(r, &shape, 2);
	cr_assert(eq(int, ring_slot_take(r, 10, 0x4000, &q, &again, &seen), 0));
	cr_assert(eq(int, ring_hold(r, again, 16), false), "a live name cleared");
	cr_assert(eq(int, ring_held_claim(r, 9, 0x3000, &q, &got, &len), 0));
	cr_assert(eq(u32, got, slot));

	free(r);
}
