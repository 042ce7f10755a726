/* probes/ring.c: the shared ring of records (ring.h).  After the header: the
 * queue, NSLOTS 64-bit words, then the slots.  The word for place P (at
 * index P mod NSLOTS) reads EMPTY(P) until a writer publishes slot K there
 * by compare-and-swap, FULL(P, K); the reader, done with it, makes it
 * EMPTY(P + NSLOTS).  A place's number is in its word, so that a writer
 * with a stale head cannot publish at a place that came round again. */
#include <errno.h>

#include "probes/ring.h"

#define EMPTY(p)	((uint64_t)(p) << 24)
#define FULL(p, k)	(((uint64_t)(p) << 24) | ((uint64_t)(k) << 1) | 1)
#define IS_FULL(e)	((e) & 1)
#define POS(e)		((e) >> 24)
#define SLOT(e)		((uint32_t)((e) >> 1) & 0x7fffff)
#define SLOTS_MAX	0x7fffff
#define SPINS_MAX	(1u << 24)	/* a reader stopped between two stores: gone */
#define BELL_EVERY	64		/* records: how often a writer looks at the fill */
/*
 * A slot's owner word: the writer's id; PUB, its record is (being)
 * published; TAKING, being taken; HELD, a call's entry kept for its exit;
 * above, a count bumped at each take, so
 * that a writer's compare-and-swap of a snapshot taken before (its own
 * slot, to take back) fails once the slot was freed and taken anew (ABA).
 */
#define PUB		(1ull << 32)
#define TAKING		(1ull << 33)	/* taken, its sp not there yet */
#define HELD		(1ull << 34)	/* a call's entry, kept for its exit (ring_hold()) */
#define ID_MASK		0xffffffffull
#define ID(o)		((uint32_t)(o))
#define GEN_SHIFT	35
#define GEN1		(1ull << GEN_SHIFT)
/*
 * The ring's held word for slot K held under OWNER: K + 1 in the low 24
 * bits, the slot's count of takes above -- a slot freed and held anew (by
 * another) is another word, so that a compare-and-swap of the old fails.
 */
#define HELD_WORD(k, owner)	(((owner) >> GEN_SHIFT << 24) | ((uint64_t)(k) + 1))
#define HELD_SLOT(w)		((uint32_t)((w) & 0xffffff) - 1)
/* A slot taken: an id or a flag (a slot freed keeps its count of takes) */
#define TAKEN(o)		((o) & (GEN1 - 1))

/* Free slot S (its owner word OWNER, read by the one freeing it), its count of takes kept. */
static void slot_free(struct ring_slot *s, uint64_t owner)
{
	__atomic_store_n(&s->owner, owner & ~(GEN1 - 1), __ATOMIC_RELEASE);
}

/* R's held word, if it names slot K under OWNER (a call left there by its writer), cleared. */
static void held_unname(struct ring *r, uint32_t k, uint64_t owner)
{
	uint64_t w = HELD_WORD(k, owner);

	__atomic_compare_exchange_n(&r->held, &w, 0, false, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
}

#define QUEUE_OFF	((sizeof(struct ring) + 63) & ~(size_t)63)

static uint64_t *queue(const struct ring *r)
{
	return (uint64_t *)((char *)r + QUEUE_OFF);
}

static size_t slots_off(uint32_t nslots)
{
	return (QUEUE_OFF + nslots * sizeof(uint64_t) + 63) & ~(size_t)63;
}

/* Slot K of a ring of SHAPE (the writers' own view: the header's). */
static struct ring_slot *slot_in(const struct ring *r, const struct ring_shape *sh, uint32_t k)
{
	return (struct ring_slot *)((char *)r + slots_off(sh->nslots) + (size_t)k * sh->slot_len);
}

static struct ring_slot *slot_at(const struct ring *r, uint32_t k)
{
	const struct ring_shape sh = { r->nslots, r->slot_len };

	return slot_in(r, &sh, k);
}

static size_t slot_len_for(size_t max_record)
{
	return (sizeof(struct ring_slot) + max_record + 63) & ~(size_t)63;
}

size_t ring_len_for(size_t max_record, uint32_t nslots)
{
	/* ring_init() keeps 64 bytes spare */
	return slots_off(nslots) + (size_t)nslots * slot_len_for(max_record) + 64;
}

int ring_init(void *mem, size_t len, size_t max_record, struct ring_shape *shape)
{
	struct ring *r = mem;
	size_t slot_len = slot_len_for(max_record);
	size_t n = 0;

	/* as many as fit with their word of the queue */
	if (len > QUEUE_OFF + 64)
		n = (len - QUEUE_OFF - 64) / (slot_len + sizeof(uint64_t));
	if (n > SLOTS_MAX)
		n = SLOTS_MAX;
	if (!n || slot_len > UINT32_MAX)
		return -EINVAL;
	while (n & (n - 1))	/* a power of two: a place's index is a mask, not a division */
		n &= n - 1;
	r->nslots = shape->nslots = (uint32_t)n;
	r->slot_len = shape->slot_len = (uint32_t)slot_len;
	r->cap = (uint32_t)n;
	for (size_t i = 0; i < n; i++)
		queue(r)[i] = EMPTY(i);
	r->reader = 1;
	__atomic_store_n(&r->magic, RING_MAGIC, __ATOMIC_RELEASE);
	return 0;
}

uint32_t ring_set_cap(struct ring *r, const struct ring_shape *sh, uint32_t cap)
{
	cap = cap < 1 ? 1 : cap > sh->nslots ? sh->nslots : cap;
	while (cap & (cap - 1))
		cap &= cap - 1;
	__atomic_store_n(&r->cap, cap, __ATOMIC_RELAXED);
	return cap;
}

/* The slots writers take (the header's, as the writers see it; a bad one: all). */
static uint32_t cap_of(const struct ring *r, uint32_t nslots)
{
	uint32_t cap = __atomic_load_n(&r->cap, __ATOMIC_RELAXED);

	return cap && cap <= nslots && !(cap & (cap - 1)) ? cap : nslots;
}

size_t ring_max_record(const struct ring *r)
{
	return r->slot_len - sizeof(struct ring_slot);
}

/* Is slot K, held by its owner, published and not read yet? */
static bool published(const struct ring *r, const struct ring_shape *sh, uint32_t k)
{
	uint64_t pos = slot_in(r, sh, k)->pos;

	return __atomic_load_n(&queue(r)[pos & (sh->nslots - 1)], __ATOMIC_ACQUIRE) == FULL(pos, k);
}

/*
 * As many records in the queue, not read yet, as writers take slots (CAP):
 * taken as no slot free (the reader is woken; past a cap lowered, some
 * records in the queue may be of slots past it).  Not when the reader is
 * past the head (its move lags: ring_publish()).
 */
static bool ring_full(struct ring *r, uint32_t cap)
{
	uint64_t t = __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE);
	uint64_t h = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);

	return h >= t && h - t >= cap;
}

int ring_slot_take(struct ring *r, uint32_t id, uint64_t sp, void **payload, uint32_t *slot,
		   uint32_t *seen)
{
	const struct ring_shape sh = { r->nslots, r->slot_len };
	uint32_t cap = cap_of(r, sh.nslots);
	uint64_t start;

	if (!ring_reader_alive(r)) {
		__atomic_fetch_add(&r->lost, 1, __ATOMIC_RELAXED);
		return -EPIPE;
	}
	/* the word to wait on before the slots it guards: a release between them is seen */
	*seen = __atomic_load_n(&r->released, __ATOMIC_ACQUIRE);
	/*
	 * A hint, moved by a plain store, not a locked add: two writers that
	 * read the same one look at the same slot first, and the
	 * compare-and-swap below gives it to one of them
	 */
	start = __atomic_load_n(&r->hint, __ATOMIC_RELAXED);
	__atomic_store_n(&r->hint, start + 1, __ATOMIC_RELAXED);
	for (uint32_t i = 0; i < cap; i++) {
		uint32_t k = (uint32_t)((start + i) & (cap - 1));
		struct ring_slot *s = slot_in(r, &sh, k);
		uint64_t owner = __atomic_load_n(&s->owner, __ATOMIC_ACQUIRE);

		/*
		 * Taken in two steps, TAKING until its sp is there: a signal
		 * handler of the same thread that comes in between must not
		 * take it back on a stale sp.  Taken back: its own, not being
		 * taken, from a record never published and made at the very
		 * same sp -- the same call again, after a handler jumped out of
		 * the first (siglongjmp).  Not from any other sp: a handler on
		 * an alternate stack above the one it interrupted would take
		 * the slot of a record still being made.  Never a call held
		 * (ring_hold()): a site further in at the same sp is in it.
		 * A slot is free when nothing but its count of takes is set.
		 */
		if (!(ID(owner) == id && !(owner & (TAKING | HELD)) && s->sp == sp &&
		      !published(r, &sh, k)) && TAKEN(owner)) {
			/*
			 * The first taken: with as many records in the queue
			 * as the cap, the ring is taken as full (none free
			 * below the cap, or the reader has records past it to
			 * read: it is woken either way), and the look at each
			 * slot (and at its place, when it is this writer's) is
			 * spared.  The
			 * waiter's word is read before: a release after it is
			 * seen (ring.h)
			 */
			if (!i && ring_full(r, cap))
				return -EAGAIN;
			continue;
		}
		if (!__atomic_compare_exchange_n(&s->owner, &owner,
						 ((owner & ~(PUB | HELD | ID_MASK)) + GEN1) |
							 TAKING | id,
						 false, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
			continue;
		if (TAKEN(owner))	/* taken back: a call it was to hold, named still, is not */
			held_unname(r, k, owner);
		s->sp = sp;
		__atomic_store_n(&s->owner, s->owner & ~TAKING, __ATOMIC_RELEASE);
		*payload = s + 1;
		*slot = k;
		return 0;
	}
	return -EAGAIN;
}

void ring_rearm(struct ring *r)
{
	if (__atomic_load_n(&r->rung, __ATOMIC_RELAXED))
		__atomic_store_n(&r->rung, 0, __ATOMIC_RELEASE);
}

/* Rung once until the reader reads again: a futex wake a time is enough. */
bool ring_bell_due(struct ring *r)
{
	return !__atomic_load_n(&r->rung, __ATOMIC_RELAXED) &&
	       !__atomic_exchange_n(&r->rung, 1, __ATOMIC_ACQ_REL);
}

void ring_bell(struct ring *r)
{
	__atomic_fetch_add(&r->bell, 1, __ATOMIC_RELEASE);
}

/*
 * How often a writer looks at the fill, less one: every BELL_EVERY records,
 * a quarter of a small ring.  A power of two (NSLOTS is): a mask, not a
 * division at every record.
 */
static uint32_t bell_mask(uint32_t nslots)
{
	uint32_t q = nslots / 4;

	return (q < 1 ? 1 : q < BELL_EVERY ? q : BELL_EVERY) - 1;
}

bool ring_publish(struct ring *r, uint32_t k, uint32_t len)
{
	struct ring_slot *s = slot_at(r, k);
	uint32_t spins = 0, cap = cap_of(r, r->nslots);

	s->len = len;
	/*
	 * Marked first: the reader frees only what is marked, a reclaim takes
	 * it by CAS.  A store: no one else writes the word of a slot being
	 * made (the reader frees only a gone writer's unmarked slots; this
	 * thread's handlers, deeper on its stack, take none of its slots back).
	 */
	__atomic_store_n(&s->owner, (s->owner & ~HELD) | PUB, __ATOMIC_RELEASE);
	for (;;) {
		uint64_t h = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);
		uint64_t *w = &queue(r)[h & (r->nslots - 1)];
		uint64_t e = __atomic_load_n(w, __ATOMIC_ACQUIRE);

		if (e == EMPTY(h)) {
			s->pos = h;
			if (__atomic_compare_exchange_n(w, &e, FULL(h, k), false, __ATOMIC_ACQ_REL,
							__ATOMIC_RELAXED)) {
				__atomic_compare_exchange_n(&r->head, &h, h + 1, false,
							    __ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
				/*
				 * Half full or more: looked at once every BELL_EVERY
				 * records (bell_mask()), not at each (the reader writes the tail at
				 * each release: a cache line the two would pass back
				 * and forth at every record).  The reader may be
				 * ahead: a difference that wrapped is no bell
				 */
				return ((h + 1) & bell_mask(cap)) == 0 &&
				       h + 1 - __atomic_load_n(&r->tail, __ATOMIC_RELAXED) -
				       cap / 2 <= r->nslots - cap / 2;
			}
		} else if (IS_FULL(e) && POS(e) == h) {	/* published, head not moved yet: help */
			__atomic_compare_exchange_n(&r->head, &h, h + 1, false, __ATOMIC_ACQ_REL,
						    __ATOMIC_RELAXED);
		} else if (POS(e) < h && (++spins > SPINS_MAX || !ring_reader_alive(r))) {
			/* the reader, between freeing a slot and emptying its place, went */
			__atomic_fetch_add(&r->lost, 1, __ATOMIC_RELAXED);
			slot_free(s, s->owner);
			return false;
		}
	}
}

void ring_slot_drop(struct ring *r, uint32_t k)
{
	struct ring_slot *s = slot_at(r, k);

	/* ours, not published: no one else writes its owner word (ring_publish()) */
	slot_free(s, s->owner);
}

/*
 * A call held: its slot's owner word says HELD and the ring's held word
 * names it (HELD_WORD(): the slot, its count of takes).  The owner word
 * decides who takes it, its writer at the exit or the reader, by
 * compare-and-swap; the held word is only its name, set before HELD and
 * cleared after.  A writer cut short between the two (a handler's
 * siglongjmp) leaves a slot taken and not held, which it takes back at
 * the same sp as any other (ring_slot_take(), clearing the name then), or
 * which is freed with it.
 */
bool ring_hold(struct ring *r, uint32_t k, uint32_t len)
{
	struct ring_slot *s = slot_at(r, k);
	uint64_t owner = s->owner, none = 0;

	s->len = len;
	for (int tries = 0; tries < 2; tries++) {
		uint32_t n;

		if (__atomic_compare_exchange_n(&r->held, &none, HELD_WORD(k, owner), false,
						__ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
			__atomic_store_n(&s->owner, owner | HELD, __ATOMIC_RELEASE);
			return true;
		}
		/*
		 * Another call's name; or a stale one, of a take of its slot
		 * since gone (a writer cut short, then its slot taken back
		 * and the name left): cleared, once.  A name is cleared
		 * before its slot is freed, so a live one names the slot's
		 * take as it is now
		 */
		n = HELD_SLOT(none);
		if (n >= r->nslots ||
		    __atomic_load_n(&slot_at(r, n)->owner, __ATOMIC_ACQUIRE) >> GEN_SHIFT ==
			    none >> 24 ||
		    !__atomic_compare_exchange_n(&r->held, &none, 0, false, __ATOMIC_ACQ_REL,
						 __ATOMIC_RELAXED))
			return false;
		none = 0;
	}
	return false;
}

/*
 * Slot K of the held word W, under the SHAPE of the one who asks: its owner
 * word, when it is the call W names (held, not taken by the reader, of the
 * take W names); 0 otherwise.
 */
static uint64_t held_owner(const struct ring *r, const struct ring_shape *sh, uint64_t w,
			   struct ring_slot **slot)
{
	uint32_t k = HELD_SLOT(w);
	uint64_t owner;

	if (!w || k >= sh->nslots)
		return 0;
	*slot = slot_in(r, sh, k);
	owner = __atomic_load_n(&(*slot)->owner, __ATOMIC_ACQUIRE);
	if ((owner & (PUB | TAKING | HELD)) != HELD || HELD_WORD(k, owner) != w)
		return 0;
	return owner;
}

int ring_held_claim(struct ring *r, uint32_t id, uint64_t sp, void **payload, uint32_t *slot,
		    uint32_t *len)
{
	const struct ring_shape sh = { r->nslots, r->slot_len };
	uint64_t w = __atomic_load_n(&r->held, __ATOMIC_ACQUIRE);
	struct ring_slot *s;
	uint64_t owner = held_owner(r, &sh, w, &s);

	if (!owner || ID(owner) != id || s->sp != sp ||
	    !__atomic_compare_exchange_n(&s->owner, &owner, owner & ~HELD, false,
					 __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
		return -ENOENT;
	/*
	 * This writer's again, taken and not published; then its name goes, by
	 * a store: a word that names a call changes only once the call is taken
	 * (a free or a take back clear only a name of theirs: held_unname())
	 */
	__atomic_store_n(&r->held, 0, __ATOMIC_RELEASE);
	*payload = s + 1;
	*slot = HELD_SLOT(w);
	*len = s->len;
	return 0;
}

int ring_held_peek(const struct ring *r, const struct ring_shape *sh, uint32_t *id,
		   const void **payload, uint64_t *word)
{
	uint64_t w = __atomic_load_n(&r->held, __ATOMIC_ACQUIRE);
	struct ring_slot *s;
	uint64_t owner = held_owner(r, sh, w, &s);

	if (!owner)
		return 0;
	*id = ID(owner);
	*payload = s + 1;
	*word = w;
	return 1;
}

int ring_held_take(struct ring *r, const struct ring_shape *sh, uint64_t word,
		   const void **payload, size_t *len, uint32_t *id, uint32_t *slot)
{
	uint64_t w = __atomic_load_n(&r->held, __ATOMIC_ACQUIRE);
	struct ring_slot *s;
	uint64_t owner = held_owner(r, sh, w, &s);
	uint32_t n, max = sh->slot_len - (uint32_t)sizeof(*s);

	/* the reader's now (TAKING): its writer neither claims it nor takes it back */
	if (!owner || (word && w != word) ||
	    !__atomic_compare_exchange_n(&s->owner, &owner, owner | TAKING, false,
					 __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
		return 0;
	__atomic_compare_exchange_n(&r->held, &w, 0, false, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
	n = __atomic_load_n(&s->len, __ATOMIC_RELAXED);	/* once: the process may write it */
	*payload = s + 1;
	*len = n < max ? n : max;
	*id = ID(owner);
	*slot = HELD_SLOT(w);
	return 1;
}

void ring_held_done(struct ring *r, const struct ring_shape *sh, uint32_t k)
{
	struct ring_slot *s = slot_in(r, sh, k);

	(void)r;
	slot_free(s, __atomic_load_n(&s->owner, __ATOMIC_ACQUIRE));
}

uint64_t ring_head(struct ring *r, const struct ring_shape *sh)
{
	uint64_t h = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);

	for (uint32_t i = 0; i < sh->nslots; i++) {
		uint64_t e = __atomic_load_n(&queue(r)[h & (sh->nslots - 1)], __ATOMIC_ACQUIRE);

		if (!IS_FULL(e) || POS(e) != h)
			break;
		/* failed: someone else moved it, from there on */
		__atomic_compare_exchange_n(&r->head, &h, h + 1, false, __ATOMIC_ACQ_REL,
					    __ATOMIC_ACQUIRE);
		h = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);
	}
	return h;
}

int ring_peek(struct ring *r, const struct ring_shape *sh, const void **payload, size_t *len)
{
	uint64_t t = __atomic_load_n(&r->tail, __ATOMIC_RELAXED);
	uint64_t e = __atomic_load_n(&queue(r)[t & (sh->nslots - 1)], __ATOMIC_ACQUIRE);
	const struct ring_slot *s;
	uint32_t n;

	if (e != FULL(t, SLOT(e)) || SLOT(e) >= sh->nslots)
		return 0;
	s = slot_in(r, sh, SLOT(e));
	n = __atomic_load_n(&s->len, __ATOMIC_RELAXED);
	*payload = s + 1;
	*len = n <= sh->slot_len - sizeof(*s) ? n : sh->slot_len - sizeof(*s);
	return 1;
}

void ring_release(struct ring *r, const struct ring_shape *sh)
{
	uint64_t t = __atomic_load_n(&r->tail, __ATOMIC_RELAXED);
	uint64_t *w = &queue(r)[t & (sh->nslots - 1)];
	uint64_t e = __atomic_load_n(w, __ATOMIC_ACQUIRE);
	struct ring_slot *s;

	/*
	 * The slot freed while its place still says published, then the place
	 * emptied: a plain store, not a compare-and-swap (a locked
	 * instruction at every record).  While the place says published no
	 * writer touches the owner word: others see it taken, and its own
	 * writer takes back only a slot that is not published (ring_slot_take()).
	 * Freed first, a writer may take it anew and publish it at another
	 * place before this one is emptied; emptied first, its own writer could
	 * take it back and this store would free the record being made.
	 */
	if (e == FULL(t, SLOT(e)) && SLOT(e) < sh->nslots) {
		uint64_t owner;

		s = slot_in(r, sh, SLOT(e));
		owner = __atomic_load_n(&s->owner, __ATOMIC_ACQUIRE);
		if (owner & PUB)
			slot_free(s, owner);
	}
	__atomic_store_n(w, EMPTY(t + sh->nslots), __ATOMIC_RELEASE);
	__atomic_store_n(&r->tail, t + 1, __ATOMIC_RELEASE);
}

bool ring_released(struct ring *r)
{
	/* the slots are free before waiters is read; a writer raises waiters, then looks again */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (!__atomic_load_n(&r->waiters, __ATOMIC_RELAXED))
		return false;
	__atomic_fetch_add(&r->released, 1, __ATOMIC_ACQ_REL);
	return true;
}

uint32_t ring_slots_free(struct ring *r, const struct ring_shape *sh, uint32_t id)
{
	uint32_t n = 0;

	for (uint32_t k = 0; k < sh->nslots; k++) {
		struct ring_slot *s = slot_in(r, sh, k);
		uint64_t owner = __atomic_load_n(&s->owner, __ATOMIC_ACQUIRE);

		if (ID(owner) == id && !published(r, sh, k)) {
			/* a call it held, or was to (taken by the caller first, if it wanted it) */
			held_unname(r, k, owner);
			slot_free(s, owner);
			n++;
		}
	}
	return n;
}

bool ring_reader_alive(const struct ring *r)
{
	uint32_t v = __atomic_load_n(&r->reader, __ATOMIC_ACQUIRE);

	return v && !(v & RING_READER_DIED);
}

void ring_close(struct ring *r)
{
	__atomic_store_n(&r->reader, 0, __ATOMIC_RELEASE);
	__atomic_fetch_add(&r->released, 1, __ATOMIC_ACQ_REL);
}
