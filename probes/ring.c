/* probes/ring.c: the shared ring of records (ring.h).  Each record is a
 * header -- its length and its state -- then its payload, 8-byte aligned;
 * a record never wraps: the rest of the data before the end becomes a
 * padding record.  Writers reserve by compare-and-swap on head; the reader
 * zeroes what it has read before it moves tail, so that a stale state is
 * never taken for a committed one. */
#include <errno.h>
#include <string.h>

#include "probes/ring.h"

enum { REC_EMPTY = 0, REC_COMMITTED = 1, REC_PAD = 2 };

struct rec {
	uint32_t len;		/* bytes of the whole record, header included */
	uint32_t state;
};

static char *data(const struct ring *r)
{
	return (char *)r + RING_DATA_OFF;
}

static uint64_t size(const struct ring *r)
{
	return 1ull << r->size_log2;
}

int ring_init(void *mem, size_t len)
{
	struct ring *r = mem;
	uint32_t lg = 12;

	if (len < RING_DATA_OFF + 4096)
		return -EINVAL;
	while (lg < 40 && RING_DATA_OFF + (2ull << lg) <= len)
		lg++;
	r->size_log2 = lg;
	r->reader = 1;
	__atomic_store_n(&r->magic, RING_MAGIC, __ATOMIC_RELEASE);
	return 0;
}

size_t ring_max_record(const struct ring *r)
{
	return size(r) / 4 - sizeof(struct rec);
}

int ring_reserve(struct ring *r, size_t len, void **payload, uint32_t *seen)
{
	uint64_t need = (sizeof(struct rec) + len + RING_ALIGN - 1) & ~(uint64_t)(RING_ALIGN - 1);
	uint64_t h, t, off, pad;
	struct rec *p;

	if (len > ring_max_record(r))
		return -EMSGSIZE;
	h = __atomic_load_n(&r->head, __ATOMIC_RELAXED);
	for (;;) {
		if (!__atomic_load_n(&r->reader, __ATOMIC_ACQUIRE)) {
			__atomic_fetch_add(&r->lost, 1, __ATOMIC_RELAXED);
			return -EPIPE;
		}
		/* the word to wait on before the tail it guards: a release between them is seen */
		*seen = __atomic_load_n(&r->released, __ATOMIC_ACQUIRE);
		t = __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE);
		off = h & (size(r) - 1);
		pad = off + need > size(r) ? size(r) - off : 0;
		if (h + pad + need - t > size(r))
			return -EAGAIN;
		if (__atomic_compare_exchange_n(&r->head, &h, h + pad + need, true,
						__ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
			break;
	}
	if (pad) {
		p = (struct rec *)(data(r) + off);
		p->len = (uint32_t)pad;
		__atomic_store_n(&p->state, REC_PAD, __ATOMIC_RELEASE);
	}
	p = (struct rec *)(data(r) + ((h + pad) & (size(r) - 1)));
	p->len = (uint32_t)need;
	*payload = p + 1;
	return 0;
}

void ring_commit(void *payload)
{
	struct rec *p = (struct rec *)payload - 1;

	__atomic_store_n(&p->state, REC_COMMITTED, __ATOMIC_RELEASE);
}

int ring_peek(struct ring *r, const void **payload, size_t *len)
{
	for (;;) {
		uint64_t t = r->tail;
		struct rec *p = (struct rec *)(data(r) + (t & (size(r) - 1)));
		uint32_t st = __atomic_load_n(&p->state, __ATOMIC_ACQUIRE);

		if (st == REC_COMMITTED) {
			*payload = p + 1;
			*len = p->len - sizeof(*p);
			return 1;
		}
		if (st != REC_PAD)
			return 0;
		ring_release(r);	/* the end of the data: on to its start */
	}
}

bool ring_release(struct ring *r)
{
	uint64_t t = r->tail;
	struct rec *p = (struct rec *)(data(r) + (t & (size(r) - 1)));
	uint32_t n = p->len;

	memset(p, 0, n);
	__atomic_store_n(&r->tail, t + n, __ATOMIC_RELEASE);
	__atomic_fetch_add(&r->released, 1, __ATOMIC_ACQ_REL);
	return __atomic_load_n(&r->waiters, __ATOMIC_ACQUIRE) != 0;
}

bool ring_skip_abandoned(struct ring *r)
{
	uint64_t t = r->tail, h = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);
	struct rec *p = (struct rec *)(data(r) + (t & (size(r) - 1)));

	if (t == h || p->len < sizeof(*p) || p->len > h - t || p->len % RING_ALIGN)
		return false;
	ring_release(r);
	return true;
}

void ring_close(struct ring *r)
{
	__atomic_store_n(&r->reader, 0, __ATOMIC_RELEASE);
	__atomic_fetch_add(&r->released, 1, __ATOMIC_ACQ_REL);
}
