/* tests/unit/test_ring.c: the shared ring of records (probes/ring.h) --
 * order, wrapping, a full ring, writers on several threads against one
 * reader with nothing lost, and a reader that goes away. */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "probes/ring.h"

/* A fresh ring of LEN bytes (header and data). */
static struct ring *new_ring(size_t len)
{
	void *mem = calloc(1, len);

	cr_assert_not_null(mem);
	cr_assert(eq(int, ring_init(mem, len), 0));
	return mem;
}

/* Write one record: N bytes of B. */
static int put(struct ring *r, size_t n, char b)
{
	void *p;
	uint32_t seen;
	int err = ring_reserve(r, n, &p, &seen);

	if (err == 0) {
		memset(p, b, n);
		ring_commit(p);
	}
	return err;
}

/* Read one record: its length, its first byte in *B; -1 when none. */
static long take(struct ring *r, char *b)
{
	const void *p;
	size_t n;

	if (!ring_peek(r, &p, &n))
		return -1;
	*b = *(const char *)p;
	ring_release(r);
	return (long)n;
}

Test(ring, order_wrap_and_a_full_ring)
{
	struct ring *r = new_ring(RING_DATA_OFF + 4096);
	char b;
	int n = 0;

	cr_assert(eq(int, ring_init(r, RING_DATA_OFF + 100), -EINVAL));
	cr_assert(eq(sz, ring_max_record(r), 4096 / 4 - 8));
	cr_assert(eq(int, put(r, 2000, 'x'), -EMSGSIZE));
	/* fill it: 100-byte records (112 with the header, aligned) until full */
	while (put(r, 100, (char)('a' + n % 26)) == 0)
		n++;
	cr_assert(eq(int, n, 4096 / 112));
	cr_assert(eq(int, put(r, 100, 'z'), -EAGAIN));
	for (int i = 0; i < n; i++) {
		cr_assert(eq(long, take(r, &b), 104));	/* the payload as aligned */
		cr_assert(eq(chr, b, (char)('a' + i % 26)));
	}
	cr_assert(eq(long, take(r, &b), -1));
	/* many laps of sizes that do not divide the data: padding at each end */
	for (int i = 0; i < 10000; i++) {
		cr_assert(eq(int, put(r, (size_t)(i % 300), (char)i), 0));
		if (i % 300)
			cr_assert(eq(long, take(r, &b), (long)((i % 300 + 7) & ~7)));
		else
			cr_assert(eq(long, take(r, &b), 0));
		cr_assert(eq(chr, i % 300 ? b : (char)i, (char)i));
	}
	free(r);
}

Test(ring, a_record_waits_for_the_ones_reserved_before_it)
{
	struct ring *r = new_ring(RING_DATA_OFF + 4096);
	void *a, *b;
	uint32_t seen;
	char c;

	cr_assert(eq(int, ring_reserve(r, 8, &a, &seen), 0));
	cr_assert(eq(int, ring_reserve(r, 8, &b, &seen), 0));
	memset(b, 'b', 8);
	ring_commit(b);
	cr_assert(eq(long, take(r, &c), -1));
	memset(a, 'a', 8);
	ring_commit(a);
	cr_assert(eq(long, take(r, &c), 8));
	cr_assert(eq(chr, c, 'a'));
	cr_assert(eq(long, take(r, &c), 8));
	cr_assert(eq(chr, c, 'b'));
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

/* Write records as the target's threads will: wait on a full ring. */
static void *writer(void *arg)
{
	struct wctx *w = arg;

	for (uint32_t seq = 0; seq < PER_WRITER; seq++) {
		size_t n = sizeof(struct msg) + (seq * 7 + w->id) % 200;
		uint32_t seen;
		struct msg *m;
		int err;

		while ((err = ring_reserve(w->r, n, (void **)&m, &seen)) == -EAGAIN) {
			__atomic_fetch_add(&w->r->waiters, 1, __ATOMIC_ACQ_REL);
			futex(&w->r->released, FUTEX_WAIT, seen);
			__atomic_fetch_sub(&w->r->waiters, 1, __ATOMIC_ACQ_REL);
			w->waits++;
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
		ring_commit(m);
	}
	return NULL;
}

Test(ring, writers_on_four_threads_lose_nothing, .timeout = 120)
{
	struct ring *r = new_ring(RING_DATA_OFF + 8192);
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

		if (!ring_peek(r, (const void **)&m, &n)) {
			sched_yield();
			continue;
		}
		cr_assert(lt(u32, m->writer, WRITERS));
		/* each writer's records in the order it made them, none missing */
		cr_assert(eq(u32, m->seq, next[m->writer]), "writer %u", m->writer);
		next[m->writer]++;
		for (size_t k = 0; k < n - sizeof(*m) && k < (m->seq * 7 + m->writer) % 200; k++)
			cr_assert(eq(chr, m->fill[k], (char)(m->seq & 0xff)));
		if (ring_release(r))
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
	cr_assert(eq(int, ring_peek(r, &(const void *){ NULL }, &(size_t){ 0 }), 0));
	free(r);
}

Test(ring, a_reader_that_goes_frees_the_waiting_writers, .timeout = 60)
{
	struct ring *r = new_ring(RING_DATA_OFF + 4096);
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
	cr_assert(eq(int, put(r, 8, 'x'), -EPIPE));
	cr_assert(eq(u64, r->lost, 2));
	free(r);
}
