/* tracer/space/aspace.c: address spaces and their probe-site tables. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dwarf/unwind.h"
#include "probes/array.h"
#include "tracer/space/aspace.h"
#include "tracer/space/maptab.h"
#include "tracer/space/mem.h"

int aspace__new(pid_t pid, struct aspace **out)
{
	struct aspace *as = calloc(1, sizeof(*as));

	*out = NULL;
	if (!as)
		return -ENOMEM;
	as->refs = 1;
	as->pid = pid;
	as->memfd = mem_open(pid);
	as->mt = maptab__new();
	if (as->memfd < 0 || !as->mt) {
		int r = as->memfd < 0 ? as->memfd : -ENOMEM;

		aspace__put(as);
		return r;
	}
	*out = as;
	return 0;
}

static int copy_array(void **dst, const void *src, size_t n, size_t size)
{
	*dst = NULL;
	if (!n)
		return 0;
	*dst = malloc(n * size);
	if (!*dst)
		return -ENOMEM;
	memcpy(*dst, src, n * size);
	return 0;
}

int aspace__clone(const struct aspace *as, pid_t child, struct aspace **out)
{
	struct aspace *c;
	int r = aspace__new(child, &c);

	if (r < 0)
		return r;
	maptab__free(c->mt);
	c->mt = maptab__clone(as->mt);
	c->syscall_pc = as->syscall_pc;
	c->unplanted = as->unplanted;
	c->no_inject = as->no_inject;
	c->inproc = as->inproc;		/* shared memory: the child's records go to the same ring */
	c->agent_lo = as->agent_lo;
	c->agent_hi = as->agent_hi;
	c->inproc_failed = as->inproc_failed;
	r = c->mt ? 0 : -ENOMEM;
	if (!r)
		r = copy_array((void **)&c->sites, as->sites, as->nsites, sizeof(*as->sites));
	if (!r && as->ndead)
		r = copy_array((void **)&c->dead, as->dead, ASPACE_MAX_DEAD, sizeof(*as->dead));
	c->ndead = as->ndead;
	c->dead_next = as->dead_next;
	if (!r)
		r = copy_array((void **)&c->scratch, as->scratch, as->nscratch,
			       sizeof(*as->scratch));
	if (r < 0) {
		aspace__put(c);
		return r;
	}
	c->nsites = c->sites_cap = as->nsites;
	c->nscratch = c->scratch_cap = as->nscratch;
	*out = c;
	return 0;
}

struct aspace *aspace__get(struct aspace *as)
{
	as->refs++;
	return as;
}

static void aspace__clear(struct aspace *as)
{
	free(as->sites);
	free(as->scratch);
	free(as->dead);
	as->dead = NULL;
	as->ndead = as->dead_next = 0;
	as->sites = NULL;
	as->scratch = NULL;
	as->nsites = as->sites_cap = as->nscratch = as->scratch_cap = 0;
	as->syscall_pc = 0;
	as->inproc = NULL;
	as->agent_lo = as->agent_hi = 0;
	as->inproc_failed = false;
	as->rings_warm = 0;
	unwinder__free(as->unw);	/* record -g: the modules of the image gone */
	as->unw = NULL;
	as->unw_gen = 0;
	if (as->mt)
		maptab__clear(as->mt);
	if (as->memfd >= 0)
		close(as->memfd);
	as->memfd = -1;
}

void aspace__put(struct aspace *as)
{
	if (!as || --as->refs > 0)
		return;
	aspace__clear(as);
	maptab__free(as->mt);
	free(as);
}

int aspace__reset(struct aspace *as, pid_t pid)
{
	aspace__clear(as);
	as->pid = pid;
	as->memfd = mem_open(pid);
	return as->memfd < 0 ? as->memfd : 0;
}

/* Index of the first site at or above ADDR. */
static size_t site_lower_bound(const struct aspace *as, uint64_t addr)
{
	size_t lo = 0, hi = as->nsites;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (as->sites[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

struct site *aspace__find_site(const struct aspace *as, uint64_t addr)
{
	size_t i = site_lower_bound(as, addr);

	return i < as->nsites && as->sites[i].addr == addr ? &as->sites[i] : NULL;
}

int aspace__add_site(struct aspace *as, const struct site *site)
{
	size_t i = site_lower_bound(as, site->addr);

	if (array_grow((void **)&as->sites, &as->sites_cap, sizeof(*as->sites), as->nsites + 1))
		return -ENOMEM;
	memmove(&as->sites[i + 1], &as->sites[i], (as->nsites - i) * sizeof(*as->sites));
	as->sites[i] = *site;
	as->nsites++;
	return 0;
}

void aspace__remove_site(struct aspace *as, uint64_t addr)
{
	size_t i = site_lower_bound(as, addr);

	if (i == as->nsites || as->sites[i].addr != addr)
		return;
	memmove(&as->sites[i], &as->sites[i + 1], (as->nsites - i - 1) * sizeof(*as->sites));
	as->nsites--;
}

void aspace__kill_site(struct aspace *as, size_t i)
{
	if (!as->dead)
		as->dead = calloc(ASPACE_MAX_DEAD, sizeof(*as->dead));
	if (as->dead) {
		as->dead[as->dead_next] = as->sites[i];
		as->dead_next = (as->dead_next + 1) % ASPACE_MAX_DEAD;
		as->ndead += as->ndead < ASPACE_MAX_DEAD;
	}
	memmove(&as->sites[i], &as->sites[i + 1], (as->nsites - i - 1) * sizeof(*as->sites));
	as->nsites--;
}

const struct site *aspace__find_dead(const struct aspace *as, uint64_t addr)
{
	for (size_t i = 0; i < as->ndead; i++)
		if (as->dead[i].addr == addr)
			return &as->dead[i];
	return NULL;
}

int aspace__drop_stale_sites(struct aspace *as, uint64_t lo, uint64_t hi)
{
	size_t i = site_lower_bound(as, lo);
	int dropped = 0;

	while (i < as->nsites && as->sites[i].addr < hi) {
		const struct map_entry *e = maptab__find(as->mt, as->sites[i].addr);

		if (!e || e->gen != as->sites[i].map_gen) {
			aspace__kill_site(as, i);
			dropped++;
		} else {
			i++;
		}
	}
	return dropped;
}

static struct scratch *scratch_of(const struct aspace *as, uint64_t addr)
{
	for (size_t i = 0; i < as->nscratch; i++)
		if (addr - as->scratch[i].start < as->scratch[i].len)
			return &as->scratch[i];
	return NULL;
}

void aspace__set_slot_owner(struct aspace *as, uint64_t slot, uint64_t addr)
{
	struct scratch *sc = scratch_of(as, slot);

	if (sc && (slot - sc->start) / ARCH_SLOT_SIZE < SCRATCH_SLOTS)
		sc->owner[(slot - sc->start) / ARCH_SLOT_SIZE] = addr;
}

/*
 * The site address the trampoline holding TRAP in its first slot served,
 * or 0 (not one).  Its int3 is the slot's first byte, or J->at's after it
 * (an exit's jump with the instructions before it: arch.h).
 */
static uint64_t tramp_owner(const struct aspace *as, uint64_t trap)
{
	const struct scratch *sc = scratch_of(as, trap);
	uint64_t k = sc ? (trap - sc->start) / ARCH_SLOT_SIZE : SCRATCH_SLOTS;

	return k < SCRATCH_SLOTS ? sc->owner[k] : 0;
}

struct site *aspace__find_jump(const struct aspace *as, uint64_t tramp)
{
	uint64_t addr = tramp_owner(as, tramp);
	struct site *st = addr ? aspace__find_site(as, addr) : NULL;

	/* the owner may have been dropped, or re-planted elsewhere since: check */
	return st && st->jump.len && st->slot + st->jump.at == tramp ? st : NULL;
}

bool aspace__is_tramp(const struct aspace *as, uint64_t tramp)
{
	return tramp_owner(as, tramp) != 0;
}

const struct site *aspace__site_by_slot(const struct aspace *as, uint64_t pc)
{
	for (size_t i = 0; i < as->nsites; i++) {
		const struct site *st = &as->sites[i];

		if (st->slot && pc >= st->slot && pc < st->slot + ARCH_SLOT_SIZE)
			return st;
	}
	return NULL;
}

static int site_cmp(const void *a, const void *b)
{
	const struct site *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/*
 * The moved code holds our int3s at new addresses: relative branch targets
 * and each out-of-line copy's jump back move with it.  A copy that can no
 * longer reach the code gives its site up: the original byte goes back.
 */
static void site_moved(struct aspace *as, struct site *st, uint64_t delta)
{
	uint8_t slot[ARCH_SLOT_SIZE];
	const struct map_entry *e;

	st->addr += delta;
	st->bias += delta;
	st->insn.pc = st->addr + st->jump.at;	/* an exit's jump may begin before it */
	if (st->insn.step != ARCH_STEP_OOL && st->insn.step != ARCH_STEP_RET)
		st->insn.target += delta;
	e = maptab__find(as->mt, st->addr);
	st->map_gen = e ? e->gen : 0;
	if (st->jump.len) {	/* the jump moved with the code: aim it again, and the way back */
		uint8_t patch[ARCH_JUMP_MAX];

		if (arch_jump_tramp_build(&st->jump, st->addr, st->slot, slot, sizeof(slot)) < 0 ||
		    arch_jump_patch(&st->jump, st->addr, st->slot, patch) < 0 ||
		    mem_write(as->memfd, st->slot, slot, sizeof(slot)) < 0 ||
		    mem_write(as->memfd, st->addr, patch, st->jump.len) < 0) {
			mem_write(as->memfd, st->addr, st->jump.bytes, st->jump.len);
			st->map_gen = 0;	/* dropped below as stale */
		} else {
			aspace__set_slot_owner(as, st->slot, st->addr);
		}
		return;
	}
	if (st->slot && (arch_ool_build(&st->insn, st->slot, slot, sizeof(slot)) < 0 ||
			 mem_write(as->memfd, st->slot, slot, sizeof(slot)) < 0)) {
		mem_write(as->memfd, st->addr, st->insn.bytes, ARCH_BP_LEN);
		st->map_gen = 0;	/* dropped below as stale */
	}
}

void aspace__move_sites(struct aspace *as, uint64_t old, uint64_t len, uint64_t new_)
{
	for (size_t i = 0; i < as->nsites; i++)
		if (as->sites[i].addr >= old && as->sites[i].addr < old + len)
			site_moved(as, &as->sites[i], new_ - old);
	qsort(as->sites, as->nsites, sizeof(*as->sites), site_cmp);
	aspace__drop_stale_sites(as, new_, new_ + len);
}
