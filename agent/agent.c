/* agent/agent.c: the in-process agent (agent.h).  Freestanding: no C
 * library, no TLS, no allocation, no global state -- everything it uses is
 * in the site and the ring ptap shares with it -- so it is reentrant across
 * threads and signal handlers.  System calls are made directly (x86-64). */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "agent/agent.h"
#include "arch/arch.h"
#include "probes/fetch.h"
#include "probes/filter.h"
#include "probes/ring.h"

#define SYS_GETTID		186
#define SYS_FUTEX		202
#define SYS_CLOCK_GETTIME	228
#define SYS_PROCESS_VM_READV	310
#define FUTEX_WAIT		0
#define FUTEX_WAKE		1

static long sys6(long nr, long a, long b, long c, long d, long e, long f)
{
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
}

/*
 * The C library's four the compiler may call: the agent brings its own, a
 * word at a time (a record is mostly these: a value zeroed, a string
 * scanned for its NUL).  Words go through __builtin_memcpy of 8 bytes, one
 * unaligned load or store.
 */
#define ONES	0x0101010101010101ull
#define HIGHS	0x8080808080808080ull

static uint64_t load8(const void *p)
{
	uint64_t w;

	__builtin_memcpy(&w, p, 8);
	return w;
}

void *memcpy(void *dst, const void *src, size_t n)
{
	char *d = dst;
	const char *s = src;

	for (; n >= 8; n -= 8, d += 8, s += 8)
		__builtin_memcpy(d, s, 8);
	while (n--)
		*d++ = *s++;
	return dst;
}

void *memmove(void *dst, const void *src, size_t n)
{
	char *d = dst;
	const char *s = src;

	if (d < s)
		return memcpy(dst, src, n);
	while (n--)
		d[n] = s[n];
	return dst;
}

void *memset(void *dst, int c, size_t n)
{
	unsigned char *d = dst;
	uint64_t w = ONES * (unsigned char)c;

	for (; n >= 8; n -= 8, d += 8)
		__builtin_memcpy(d, &w, 8);
	while (n--)
		*d++ = (unsigned char)c;
	return dst;
}

void *memchr(const void *s, int c, size_t n)
{
	const unsigned char *p = s;
	uint64_t rep = ONES * (unsigned char)c;

	/* a word with a byte equal to C: that byte of W ^ REP is 0 */
	for (; n >= 8; n -= 8, p += 8) {
		uint64_t w = load8(p) ^ rep;

		if ((w - ONES) & ~w & HIGHS)
			break;
	}
	for (; n; n--, p++)
		if (*p == (unsigned char)c)
			return (void *)p;
	return NULL;
}

struct iov {
	uint64_t base, len;
};

/*
 * agent_copy(dst, src, n): N bytes from SRC to DST, the number copied
 * returned.  Its one instruction that reads the process's memory,
 * agent_copy_read, may fault: the thread, traced, stops for the SIGSEGV
 * (or SIGBUS) before any handler of the program sees it, and ptap moves its
 * pc to agent_copy_fault, which returns the bytes copied before the fault
 * (inproc_read_fault()).  Those two labels are the blob's to export
 * (scripts/agent-blob.sh).
 */
size_t agent_copy(void *dst, uint64_t src, size_t n);
__asm__(".text\n"
	".type agent_copy, @function\n"
	"agent_copy:\n"
	"	mov %rdx, %rcx\n"
	"agent_copy_read:\n"
	"	rep movsb\n"
	"	mov %rdx, %rax\n"
	"	ret\n"
	"agent_copy_fault:\n"
	"	mov %rdx, %rax\n"
	"	sub %rcx, %rax\n"
	"	ret\n"
	".size agent_copy, . - agent_copy\n");

/*
 * agent_copy_str(dst, src, n): the bytes at SRC, up to and with the first
 * NUL, at most N, into DST; the number copied returned (the last a NUL when
 * one was found).  One pass over SRC, a naturally aligned 8-byte word at a
 * time -- a word never spans two pages -- by one instruction,
 * agent_copy_str_read: a fault there (ptap moves the pc to
 * agent_copy_str_fault, as for agent_copy) returns the bytes copied before
 * that word, which are those before the first unreadable byte (the first
 * word holds SRC; a later one begins a page).  A word's bytes before SRC
 * count as not NUL; DST takes whole words where 8 bytes of its N are left
 * (bytes past the NUL among them), else byte by byte.  Against agent_copy
 * and a search of the copy, a short string is read once, not twice, and
 * the search does not wait on the copy's stores.
 */
size_t agent_copy_str(char *dst, uint64_t src, size_t n);
__asm__(".text\n"
	".type agent_copy_str, @function\n"
	"agent_copy_str:\n"
	"	xor %eax, %eax\n"
	"	test %rdx, %rdx\n"
	"	jz 9f\n"
	"	push %rbx\n"
	"	mov %rdi, %r8\n"		/* DST */
	"	lea (%rdi,%rdx), %r9\n"		/* its end */
	"	mov %esi, %ecx\n"
	"	and $7, %ecx\n"
	"	shl $3, %ecx\n"			/* the first word's bits before SRC */
	"	and $-8, %rsi\n"
	"	movabs $0x0101010101010101, %r10\n"
	"	movabs $0x8080808080808080, %r11\n"
	"1:\n"
	"agent_copy_str_read:\n"
	"	mov (%rsi), %rax\n"
	"	add $8, %rsi\n"
	"	mov $1, %edx\n"
	"	shl %cl, %rdx\n"
	"	dec %rdx\n"
	"	or %rax, %rdx\n"		/* the bytes before SRC not NUL */
	"	mov %rdx, %rbx\n"
	"	sub %r10, %rbx\n"
	"	not %rdx\n"
	"	and %rdx, %rbx\n"
	"	and %r11, %rbx\n"		/* the lowest bit set: the first NUL's */
	"	shr %cl, %rax\n"		/* the bytes from SRC on */
	"	mov %ecx, %edx\n"
	"	shr $3, %edx\n"
	"	neg %rdx\n"
	"	add $8, %rdx\n"			/* this word's bytes from SRC on */
	"	test %rbx, %rbx\n"
	"	jz 2f\n"
	"	bsf %rbx, %rbx\n"
	"	shr $3, %ebx\n"			/* the NUL's byte in the word */
	"	lea -7(%rbx,%rdx), %rdx\n"	/* the bytes up to it, with it */
	"2:\n"
	"	mov %r9, %rbx\n"
	"	sub %rdi, %rbx\n"		/* room left */
	"	cmp %rbx, %rdx\n"
	"	cmova %rbx, %rdx\n"
	"	cmp $8, %rbx\n"
	"	jb 4f\n"
	"	mov %rax, (%rdi)\n"
	"	add %rdx, %rdi\n"
	"	jmp 5f\n"
	"4:\n"
	"	mov %al, (%rdi)\n"
	"	inc %rdi\n"
	"	shr $8, %rax\n"
	"	dec %rdx\n"
	"	jnz 4b\n"
	"5:\n"
	"	cmp %r9, %rdi\n"
	"	jae agent_copy_str_fault\n"
	"	cmpb $0, -1(%rdi)\n"
	"	je agent_copy_str_fault\n"
	"	xor %ecx, %ecx\n"
	"	jmp 1b\n"
	"agent_copy_str_fault:\n"
	"	mov %rdi, %rax\n"
	"	sub %r8, %rax\n"
	"	pop %rbx\n"
	"9:\n"
	"	ret\n"
	".size agent_copy_str, . - agent_copy_str\n");

/* How a hit reads memory: its thread, and whether directly (struct agent_proc's direct). */
struct reader {
	long tid;
	const struct ring *ring;
	bool direct;
};

/*
 * The programs' reads.  Directly while ptap reads the ring (so that it is
 * there to catch a fault); else process_vm_readv on the process itself
 * (named by the thread's tid, right in a fork child too), which fails, not
 * faults.
 */
static ssize_t agent_read(void *priv, uint64_t addr, void *buf, size_t len)
{
	const struct reader *rd = priv;
	struct iov local = { (uint64_t)(uintptr_t)buf, len }, remote = { addr, len };

	if (rd->direct && ring_reader_alive(rd->ring))
		return (ssize_t)agent_copy(buf, addr, len);
	return sys6(SYS_PROCESS_VM_READV, rd->tid, (long)&local, 1, (long)&remote, 1, 0);
}

/* A string's bytes (fetch_ctx's read_str): in one pass, while reading directly. */
static ssize_t agent_read_str(void *priv, uint64_t addr, char *buf, size_t len)
{
	const struct reader *rd = priv;

	if (rd->direct && ring_reader_alive(rd->ring))
		return (ssize_t)agent_copy_str(buf, addr, len);
	return -ENOSYS;
}

/*
 * Wake the reader, if it waits on R's bell (ptap's bell thread:
 * tracer/engine/inproc.c), once until it reads again.
 */
static void bell(struct ring *r)
{
	if (!ring_bell_due(r))
		return;		/* rung already since ptap last read: a wake a drain */
	ring_bell(r);
	sys6(SYS_FUTEX, (long)&r->bell, FUTEX_WAKE, 1, 0, 0, 0);
}

/* The 32 bits at the thread pointer + OFF (x86-64: %fs). */
static uint32_t tp_u32(uint32_t off)
{
	uint32_t v;

	__asm__ volatile("movl %%fs:(%1), %0" : "=r"(v) : "r"((uint64_t)off));
	return v;
}

struct ts {
	int64_t sec, nsec;
};

/* The time of a hit, on SITE's clock. */
static uint64_t now_ns(const struct agent_site *site)
{
	const struct agent_proc *proc = (const struct agent_proc *)(uintptr_t)site->proc;
	struct ts now = { 0, 0 };

	if (proc->gettime)
		((int (*)(long, struct ts *))(uintptr_t)proc->gettime)(site->clock, &now);
	else
		sys6(SYS_CLOCK_GETTIME, site->clock, (long)&now, 0, 0, 0, 0);
	return (uint64_t)now.sec * 1000000000u + (uint64_t)now.nsec;
}

/*
 * The record of a hit at REGS at time TS, into REC.  False when SITE's
 * --filter leaves it out (counted there; REC is then marked so).
 */
static bool make(struct agent_rec *rec, const struct agent_site *site, uint64_t *regs, long tid,
		 uint64_t ts)
{
	const struct fetch_prog *progs = (const struct fetch_prog *)(uintptr_t)site->progs;
	const struct agent_proc *proc = (const struct agent_proc *)(uintptr_t)site->proc;
	struct reader rd = { .tid = tid, .ring = (const struct ring *)(uintptr_t)site->ring,
			     .direct = __atomic_load_n(&proc->direct, __ATOMIC_RELAXED) != 0 };
	struct fetch_ctx ctx = { .regs = regs, .nregs = ARCH_DWARF_NREGS, .bias = site->bias,
				 .read_mem = agent_read, .priv = &rd,
				 .read_str = rd.direct ? agent_read_str : NULL };
	char *bytes;

	rec->ts = ts;
	rec->addr = site->addr;
	rec->bias = site->bias;
	rec->slot = rec->ra = 0;
	rec->tid = (uint32_t)tid;
	rec->probe = site->probe;
	rec->nvals = site->nprogs;
	rec->flags = rec->next = rec->pad = 0;
	if (site->kind == AGENT_RET_ENTRY) {
		struct fetch_val slot;
		char buf[8];

		fetch_prog__run((const struct fetch_prog *)(uintptr_t)site->ra_prog, &ctx, &slot,
				buf, sizeof(buf));
		rec->slot = slot.u;
		if (!slot.err && agent_read(&rd, slot.u, &rec->ra, 8) == 8)
			rec->flags |= AGENT_REC_RA;
	} else if (site->kind == AGENT_EXIT) {
		rec->slot = regs[ARCH_DWARF_SP];
	}
	/* read once: the region is the process's to write too */
	struct agent_filter *af = (struct agent_filter *)(uintptr_t)
		__atomic_load_n(&site->filter, __ATOMIC_RELAXED);

	bytes = (char *)&rec->vals[site->nprogs];
	for (uint32_t i = 0; i < site->nprogs; i++) {
		struct fetch_val *v = &rec->vals[i];

		if (i < AGENT_PROGS_MAX && (site->run >> i & 1))
			fetch_prog__run(&progs[i], &ctx, v, bytes, site->string_max);
		else
			memset(v, 0, sizeof(*v));
		bytes += fetch_prog__buflen(&progs[i], site->string_max);
		if (!af)	/* its string's place in the record: ptap maps it elsewhere */
			v->str = v->str ? (char *)(uintptr_t)(v->str - (char *)rec) : NULL;
	}
	if (!af)
		return true;
	/* matched as ptap would at a stop, on the values as fetched; then their strings' places */
	const struct filter_in in = { .vals = rec->vals, .nvals = site->nprogs, .tid = tid };

	if (!filter__eval((const struct filter *)af->filter, &in)) {
		__atomic_fetch_add(&af->left_out, 1, __ATOMIC_RELAXED);
		rec->flags |= AGENT_REC_LEFT_OUT;
	}
	for (uint32_t i = 0; i < site->nprogs; i++) {
		struct fetch_val *v = &rec->vals[i];

		v->str = v->str ? (char *)(uintptr_t)(v->str - (char *)rec) : NULL;
	}
	return !(rec->flags & AGENT_REC_LEFT_OUT);
}

/* The site after SITE in its chain. */
static const struct agent_site *next_site(const struct agent_site *site)
{
	return (const struct agent_site *)(uintptr_t)__atomic_load_n(&site->next,
								     __ATOMIC_ACQUIRE);
}

/*
 * The records of SITE and the sites after it in its chain (at most LEFT)
 * for a hit at REGS, as many as fit one slot of RING together (at least
 * SITE's): made there, one after another, and published as one (probes/ring.h:
 * a signal handler that jumps away from here leaves at worst a slot, which
 * never stops ptap from reading the others).  With every slot taken, the
 * thread waits for ptap to read some.  Returns the sites recorded; *AFTER:
 * the site after them.
 */
static int record_some(uint64_t *regs, const struct agent_site *site, struct ring *ring, long tid,
		       uint64_t ts, int left, const struct agent_site **after)
{
	struct ring *first = (struct ring *)(uintptr_t)site->ring;	/* its bell, its reader word */
	size_t max = ring_max_record(ring), len = 0, off = 0;
	const struct agent_site *s = site;
	struct ts wait_max = { 0, 50000000 };
	uint32_t slot, seen;
	int n = 0, err = 0, kept = 0;
	bool alive;
	char *rec;

	/* ptap's sizes (rec_len: what make() writes, at most); ptap sizes the slots to fit one */
	for (; s && n < left && s->ring == site->ring; s = next_site(s), n++) {
		size_t l = AGENT_REC_ALIGN(s->rec_len);

		if (n && len + l > max)
			break;
		len += l;
	}
	*after = s;
	if (len > max) {	/* never */
		__atomic_fetch_add(&ring->lost, 1, __ATOMIC_RELAXED);
		return n;
	}
	/*
	 * The first ring's reader word is every ring's: the kernel marks it
	 * alone when ptap dies (agent.h), and the others' would say alive
	 */
	while ((alive = ring_reader_alive(first)) &&
	       (err = ring_slot_take(ring, (uint32_t)tid, regs[ARCH_DWARF_SP], (void **)&rec,
				     &slot, &seen)) == -EAGAIN) {
		__atomic_fetch_add(&ring->waiters, 1, __ATOMIC_SEQ_CST);
		err = ring_slot_take(ring, (uint32_t)tid, regs[ARCH_DWARF_SP], (void **)&rec,
				     &slot, &seen);
		if (err == -EAGAIN) {	/* a while at most: a reader killed wakes no one */
			bell(first);
			sys6(SYS_FUTEX, (long)&ring->released, FUTEX_WAIT, seen, (long)&wait_max,
			     0, 0);
		}
		__atomic_fetch_sub(&ring->waiters, 1, __ATOMIC_ACQ_REL);
		if (err != -EAGAIN)
			break;
	}
	if (!alive) {
		__atomic_fetch_add(&ring->lost, 1, __ATOMIC_RELAXED);
		return n;	/* the reader is gone */
	}
	if (err)
		return n;	/* the reader is gone (counted) */
	s = site;
	for (int i = 0; i < n; i++, s = next_site(s)) {
		struct agent_rec *r = (struct agent_rec *)(rec + off);

		kept += make(r, s, regs, tid, ts);
		off += AGENT_REC_ALIGN(s->rec_len);
		r->next = i + 1 < n ? (uint32_t)off : 0;
	}
	if (!kept) {		/* --filter left every one out: nothing to write */
		ring_slot_drop(ring, slot);
		if (ring_released(ring))	/* a thread waits for a slot: this one */
			sys6(SYS_FUTEX, (long)&ring->released, FUTEX_WAKE, 1, 0, 0, 0);
	} else if (n == 1 && !*after && site->kind == AGENT_RET_ENTRY && site->hold &&
		   len + site->hold <= max && ring_hold(ring, slot, (uint32_t)len)) {
		/* the call's entry, kept for its exit (exit_joins()) */
	} else if (ring_publish(ring, slot, (uint32_t)len)) {
		bell(first);
	}
	return n;
}

/*
 * A hit of SITE at REGS, a return probe's entry or exit: the call this
 * thread holds in RING at this sp (ring_hold()), if any, taken.  An exit of
 * the same probe, alone at its address (JOIN), adds its record to the
 * entry's and publishes the two as one slot: true, the hit recorded.  Else
 * the entry is published alone, as made, before the hit's records (a call
 * left, entered again at the same sp; an exit of another probe, or with
 * other probes at its address): ptap pairs them as ever.
 */
static bool exit_joins(uint64_t *regs, const struct agent_site *site, struct ring *ring,
		       long tid, uint64_t ts, bool join)
{
	struct ring *first = (struct ring *)(uintptr_t)site->ring;
	struct agent_rec *ent;
	uint32_t slot, len;
	size_t off;

	if (ring_held_claim(ring, (uint32_t)tid, regs[ARCH_DWARF_SP], (void **)&ent, &slot,
			    &len))
		return false;
	off = AGENT_REC_ALIGN(len);
	if (join && site->kind == AGENT_EXIT && len >= sizeof(*ent) && ent->probe == site->owner &&
	    !ent->next && off + site->rec_len <= ring_max_record(ring)) {
		make((struct agent_rec *)((char *)ent + off), site, regs, tid, ts);
		ent->next = (uint32_t)off;
		len = (uint32_t)(off + site->rec_len);
	} else {
		site = NULL;
	}
	if (ring_publish(ring, slot, len))
		bell(first);
	return site != NULL;
}

/*
 * A hit: a record for each probe at the site, in the order of their sites,
 * all of one time (as at a stop: a return probe's entry keeps the frames of
 * the same hit, tracer/engine/shadow.h).
 */
void agent_hit(uint64_t *regs, uint64_t site_addr)
{
	const struct agent_site *site = (const struct agent_site *)(uintptr_t)site_addr;
	const struct agent_proc *proc = (const struct agent_proc *)(uintptr_t)site->proc;
	uint32_t tid_off = __atomic_load_n(&proc->tid_off, __ATOMIC_RELAXED);
	long tid = tid_off ? (long)tp_u32(tid_off) : 0;
	uint64_t ts = now_ns(site);
	struct ring *ring;

	if (tid <= 0)
		tid = sys6(SYS_GETTID, 0, 0, 0, 0, 0, 0);
	/* the thread's ring: always the same one, so its records stay in the order it made them */
	ring = (struct ring *)(uintptr_t)(site->ring +
					  ((uint64_t)tid & __atomic_load_n(&proc->ring_mask,
									   __ATOMIC_RELAXED)) *
					  __atomic_load_n(&proc->ring_stride, __ATOMIC_RELAXED));
	const struct agent_site *next = next_site(site);

	if (site->hold && !next) {
		if (exit_joins(regs, site, ring, tid, ts, true))
			return;
	} else if (next) {	/* a return probe's site among others: never joined */
		const struct agent_site *s = site;

		for (int n = 0; s && n < AGENT_CHAIN_MAX; s = next_site(s), n++)
			if (s->hold) {
				exit_joins(regs, s, ring, tid, ts, false);
				break;
			}
	}
	for (int n = 0; site && n < AGENT_CHAIN_MAX;)
		n += record_some(regs, site, ring, tid, ts, AGENT_CHAIN_MAX - n, &site);
}
