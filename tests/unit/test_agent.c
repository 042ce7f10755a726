/* tests/unit/test_agent.c: the in-process agent (agent/agent.h) as ptap
 * will carry it -- the blob, mapped at an address of its own and entered
 * through arch_agent_tramp_build()'s trampoline from a probed function in
 * this process -- records what the tracer's evaluator records for the same
 * registers and memory: one evaluator, two hosts.  A bad pointer is an error
 * value, not a fault. */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <ucontext.h>
#include <time.h>
#include <unistd.h>

#include "agent/agent.h"
#include "agent/agent_blob.h"
#include "arch/arch.h"
#include "probes/err.h"
#include "probes/fetch.h"
#include "probes/ring.h"
#include "tracer/host/libctid.h"
#include "tracer/host/vdso.h"

#define SPAN	(64ul << 20)	/* code, agent and trampoline within rel32 reach */
#define RING_LEN	65536

/* The probed function: push %rbp; mov %rsp,%rbp; mov %rdi,%rax; pop %rbp; ret (returns its argument). */
static const uint8_t probed[] = { 0x55, 0x48, 0x89, 0xe5, 0x48, 0x89, 0xf8, 0x5d, 0xc3 };



/*
 * The offset of glibc's struct pthread's tid from the thread pointer, from
 * the DWARF of this process's libc (libc6-dbg, which scripts/deps.sh
 * installs), as ptap will find a target's; checked against gettid(2).
 */
static uint32_t tid_offset(void)
{
	uint32_t off = 0, tid;

	cr_assert(eq(int, libc_tid_offset(getpid(), &off), 0),
		  "no struct pthread's tid in libc's DWARF (libc6-dbg)");
	__asm__ volatile("movl %%fs:(%1), %0" : "=r"(tid) : "r"((uint64_t)off));
	cr_assert(eq(u32, tid, (uint32_t)gettid()), "%%fs:%#x", off);
	return off;
}

/* %di:string and %si:u32, as the resolver would compile them. */
static void programs(struct fetch_prog *p)
{
	memset(p, 0, 2 * sizeof(*p));
	p[0].type = (struct fetch_type){ .kind = FT_STRING, .size = 8 };
	cr_assert(eq(int, fetch_prog__emit(&p[0], FETCH_OP_REG, 0, 5, 0), 0));
	p[1].type = (struct fetch_type){ .kind = FT_UNSIGNED, .size = 4 };
	cr_assert(eq(int, fetch_prog__emit(&p[1], FETCH_OP_REG, 0, 4, 0), 0));
}

/* The tracer's side: the same programs, the same registers, memory read directly. */
static ssize_t direct_read(void *priv, uint64_t addr, void *buf, size_t len)
{
	(void)priv;
	if (addr < 4096)
		return -EFAULT;
	memcpy(buf, (void *)(uintptr_t)addr, len);
	return (ssize_t)len;
}

/* The probed function, the agent and a ring in this process, as ptap sets them up in a target. */
struct rig {
	uint8_t *span, *code;
	struct ring *ring;
	struct ring_shape shape;
	struct fetch_prog progs[2];
	struct agent_proc proc;
};

/* G, with a ring whose slots hold MAX_RECORD bytes. */
static void rig_up(struct rig *g, size_t max_record)
{
	g->span = mmap(NULL, SPAN, PROT_READ | PROT_WRITE | PROT_EXEC,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	g->ring = mmap(NULL, RING_LEN, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	cr_assert(ne(ptr, g->span, MAP_FAILED));
	cr_assert(ne(ptr, g->ring, MAP_FAILED));
	g->code = g->span;
	cr_assert(gt(sz, agent_blob_len, 0));
	cr_assert(lt(sz, agent_entry_off, agent_blob_len));
	memcpy(g->span + 8192, agent_blob, agent_blob_len);
	memcpy(g->code, probed, sizeof(probed));
	cr_assert(eq(int, ring_init(g->ring, RING_LEN, max_record, &g->shape), 0));
	programs(g->progs);
	g->proc = (struct agent_proc){ 0 };
	cr_assert(eq(int, vdso_gettime(getpid(), &g->proc.gettime), 0));
	g->proc.tid_off = tid_offset();
}

/* The site of probe PROBE in G, running the programs in RUN: its record's length set. */
static struct agent_site rig_site(struct rig *g, uint32_t probe, uint64_t run)
{
	return (struct agent_site){ .progs = (uint64_t)(uintptr_t)g->progs,
				    .proc = (uint64_t)(uintptr_t)&g->proc,
				    .ring = (uint64_t)(uintptr_t)g->ring,
				    .addr = (uint64_t)(uintptr_t)g->code, .nprogs = 2,
				    .probe = probe, .string_max = 64, .clock = CLOCK_MONOTONIC,
				    .run = run,
				    .rec_len = (uint32_t)(sizeof(struct agent_rec) +
							  2 * sizeof(struct fetch_val) +
							  fetch_prog__buflen(&g->progs[0], 64) +
							  fetch_prog__buflen(&g->progs[1], 64)) };
}

/* The probed function of G made a jump to SITE's trampoline. */
static void rig_patch(struct rig *g, const struct agent_site *site)
{
	uint8_t *tramp = g->span + 4096;
	struct ptap_err why = { .pos = -1 };
	struct arch_jump j;

	cr_assert(eq(int, arch_jump_analyze(g->code, sizeof(probed), (uint64_t)(uintptr_t)g->code,
					    (uint64_t)(uintptr_t)g->code, &j, &why), 0), "%s", why.msg);
	cr_assert(gt(int, arch_agent_tramp_build(&j, (uint64_t)(uintptr_t)g->code,
						 (uint64_t)(uintptr_t)tramp,
						 (uint64_t)(uintptr_t)(g->span + 8192 + agent_entry_off),
						 (uint64_t)(uintptr_t)site, tramp,
						 ARCH_AGENT_TRAMP_MAX), 0));
	cr_assert(eq(int, arch_jump_patch(&j, (uint64_t)(uintptr_t)g->code,
					  (uint64_t)(uintptr_t)tramp, g->code), 0));
}

static void rig_down(struct rig *g)
{
	munmap(g->ring, RING_LEN);
	munmap(g->span, SPAN);
}

Test(agent, records_what_the_tracer_records)
{
	struct rig g;
	struct fetch_prog *progs = g.progs;
	struct agent_site site;
	static const char *const init[] = { "SELECT 1", "", "a string of some length, to be sure" };
	static char area[3][256];	/* the strings, with room: reads go past their NUL */
	const char *texts[3] = { area[0], area[1], area[2] };
	uint64_t t0, t1;
	struct timespec ts;
	uint8_t *code;
	struct ring *ring;

	for (size_t i = 0; i < 3; i++)
		strcpy(area[i], init[i]);
	rig_up(&g, 4096);
	code = g.code;
	ring = g.ring;
	site = rig_site(&g, 7, 3);
	rig_patch(&g, &site);

	clock_gettime(CLOCK_MONOTONIC, &ts);
	t0 = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	for (size_t i = 0; i < 3; i++)
		cr_assert(eq(long, ((long (*)(const char *, long))(uintptr_t)code)(texts[i], 40 + i),
			     (long)(uintptr_t)texts[i]));
	/* a bad pointer: the agent's read fails, the process does not */
	cr_assert(eq(long, ((long (*)(long, long))(uintptr_t)code)(16, 99), 16));
	clock_gettime(CLOCK_MONOTONIC, &ts);
	t1 = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;

	for (size_t i = 0; i < 4; i++) {
		const struct agent_rec *rec;
		size_t len;
		uint64_t regs[ARCH_DWARF_NREGS] = { 0 };
		struct fetch_ctx ctx = { .regs = regs, .nregs = ARCH_DWARF_NREGS,
					 .read_mem = direct_read };
		struct fetch_val want;
		char buf[64];

		cr_assert(eq(int, ring_peek(ring, &g.shape, (const void **)&rec, &len), 1), "record %zu", i);
		cr_assert(eq(u32, rec->probe, 7));
		cr_assert(eq(u32, rec->nvals, 2));
		cr_assert(eq(u32, rec->tid, (uint32_t)gettid()));
		cr_assert(eq(u64, rec->addr, (uint64_t)(uintptr_t)code));
		cr_assert(ge(u64, rec->ts, t0));
		cr_assert(le(u64, rec->ts, t1));
		/* the tracer's evaluator on the same registers */
		regs[5] = i < 3 ? (uint64_t)(uintptr_t)texts[i] : 16;
		regs[4] = i < 3 ? 40 + i : 99;
		fetch_prog__run(&progs[0], &ctx, &want, buf, 64);
		cr_assert(eq(int, rec->vals[0].err, want.err), "record %zu", i);
		cr_assert(eq(sz, rec->vals[0].len, want.len), "record %zu", i);
		if (!want.err)
			cr_assert(eq(int, memcmp((const char *)rec + (uintptr_t)rec->vals[0].str,
						 want.str, want.len), 0), "record %zu", i);
		else
			cr_assert(eq(u64, rec->vals[0].addr, 16));
		fetch_prog__run(&progs[1], &ctx, &want, buf, 64);
		cr_assert(eq(u64, rec->vals[1].u, want.u));
		cr_assert(eq(u64, rec->vals[1].u, i < 3 ? 40 + i : 99));
		ring_release(ring, &g.shape);
	}
	cr_assert(eq(int, ring_peek(ring, &g.shape, &(const void *){ NULL }, &(size_t){ 0 }), 0));
	rig_down(&g);
}

/*
 * Two probes at one site: their records of a hit share one slot while they
 * fit (struct agent_rec's next), of one time; else one slot each, in turn.
 */
Test(agent, a_hits_records_share_a_slot)
{
	static const char text[] = "shared";
	struct agent_site site, site2;
	const char *p;
	size_t len, reclen;
	struct rig g;

	for (int fits = 1; fits >= 0; fits--) {
		const struct agent_rec *a, *b;

		programs(g.progs);
		reclen = AGENT_REC_ALIGN(rig_site(&g, 7, 3).rec_len);
		rig_up(&g, fits ? 2 * reclen : reclen);
		site = rig_site(&g, 7, 3);
		site2 = rig_site(&g, 8, 2);	/* the second program only */
		site.next = (uint64_t)(uintptr_t)&site2;
		rig_patch(&g, &site);
		cr_assert(eq(long, ((long (*)(const char *, long))(uintptr_t)g.code)(text, 5),
			     (long)(uintptr_t)text));
		cr_assert(eq(int, ring_peek(g.ring, &g.shape, (const void **)&p, &len), 1));
		a = (const struct agent_rec *)p;
		cr_assert(eq(u32, a->probe, 7));
		cr_assert(eq(u64, a->vals[1].u, 5));
		if (fits) {
			cr_assert(eq(sz, len, 2 * reclen));
			cr_assert(eq(u32, a->next, reclen));
			b = (const struct agent_rec *)(p + a->next);
		} else {
			cr_assert(eq(u32, a->next, 0));
			ring_release(g.ring, &g.shape);
			cr_assert(eq(int, ring_peek(g.ring, &g.shape, (const void **)&p, &len), 1));
			b = (const struct agent_rec *)p;
		}
		cr_assert(eq(u32, b->probe, 8), "fits %d", fits);
		cr_assert(eq(u32, b->next, 0));
		cr_assert(eq(u64, b->ts, a->ts));
		cr_assert(eq(u64, b->vals[1].u, 5));
		cr_assert(eq(ptr, b->vals[0].str, NULL));	/* not run there */
		ring_release(g.ring, &g.shape);
		cr_assert(eq(int, ring_peek(g.ring, &g.shape, &(const void *){ NULL },
					    &(size_t){ 0 }), 0));
		rig_down(&g);
	}
}

/* Calls of the probed function by a thread, on its ring (its tid's), as hits of a target's. */
struct caller {
	struct rig *g;
	uint32_t calls;
	pid_t tid;
};

static void *call_probed(void *arg)
{
	struct caller *c = arg;

	c->tid = gettid();
	if (c->tid & 1)		/* a tid that names the second ring of two */
		for (uint32_t i = 0; i < c->calls; i++)
			((long (*)(const char *, long))(uintptr_t)c->g->code)("x", i);
	return NULL;
}

/* N calls from a thread of an odd tid (the second ring's, of two). */
static void calls_on_ring_1(struct rig *g, uint32_t n)
{
	struct caller c = { .g = g, .calls = n };
	pthread_t th;

	for (int tries = 0; tries < 64 && !(c.tid & 1); tries++) {
		cr_assert(eq(int, pthread_create(&th, NULL, call_probed, &c), 0));
		cr_assert(eq(int, pthread_join(th, NULL), 0));
	}
	cr_assert(eq(int, c.tid & 1, 1), "no thread of an odd tid in 64");
}

/*
 * The rings of a process share a bell (the first ring's), rung once until
 * ptap reads: a drain is one wake of ptap's, not one for each ring that
 * filled to half while ptap was coming.
 */
Test(agent, its_rings_ring_one_bell_until_read)
{
	struct ring *first, *second;
	struct agent_site site;
	struct ring_shape sh2;
	struct rig g;
	const size_t len = 4 * RING_LEN;	/* a ring of 256 slots */
	uint32_t half;

	rig_up(&g, 512);
	munmap(g.ring, RING_LEN);
	g.ring = mmap(NULL, 2 * len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	cr_assert(ne(ptr, g.ring, MAP_FAILED));
	first = g.ring;
	second = (struct ring *)((char *)g.ring + len);
	cr_assert(eq(int, ring_init(first, len, 512, &g.shape), 0));
	cr_assert(eq(int, ring_init(second, len, 512, &sh2), 0));
	/* the calls below fill the second ring to its last slot, not past it (a wait for ever) */
	cr_assert(eq(u32, g.shape.nslots, 256));
	half = g.shape.nslots / 2;
	g.proc.ring_mask = 1;
	g.proc.ring_stride = len;
	site = rig_site(&g, 7, 3);
	rig_patch(&g, &site);

	/* the second ring half full: the first's bell rings */
	calls_on_ring_1(&g, half + 64);
	cr_assert(eq(u32, second->bell, 0));
	cr_expect(eq(u32, first->bell, 1));
	/* the first half full too, ptap not come yet: no second wake */
	g.proc.ring_mask = 0;
	for (uint32_t i = 0; i < half + 64; i++)
		((long (*)(const char *, long))(uintptr_t)g.code)("x", i);
	cr_expect(eq(u32, first->bell, 1));
	/* ptap began to read: the next look that finds one half full rings again */
	ring_rearm(first);
	ring_rearm(second);
	g.proc.ring_mask = 1;
	calls_on_ring_1(&g, 64);
	cr_expect(eq(u32, first->bell, 2));
	cr_expect(eq(u32, second->bell, 0));
	munmap(g.ring, 2 * len);
	g.ring = mmap(NULL, RING_LEN, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	rig_down(&g);
}

/* The agent blob's address while a test reads directly: the handler below is ptap's part. */
static uint8_t *fault_blob;
static int nfaults;

/*
 * What ptap does when the agent's direct read faults (inproc_read_fault()):
 * the pc at agent_copy_read or agent_copy_str_read moves to where the copy
 * returns what it copied.  Any other fault is the test's: the default
 * action, at once.
 */
static void agent_fault(int sig, siginfo_t *si, void *uc_)
{
	ucontext_t *uc = uc_;
	uint64_t pc = (uint64_t)uc->uc_mcontext.gregs[REG_RIP] - (uint64_t)(uintptr_t)fault_blob;

	(void)si;
	nfaults++;
	if (fault_blob && pc == agent_copy_read_off)
		pc = agent_copy_fault_off;
	else if (fault_blob && pc == agent_copy_str_read_off)
		pc = agent_copy_str_fault_off;
	else {
		signal(sig, SIG_DFL);
		return;
	}
	uc->uc_mcontext.gregs[REG_RIP] = (greg_t)(uintptr_t)(fault_blob + pc);
}

/* The tracer's side, for memory that may be unreadable: process_vm_readv, which fails. */
static ssize_t vm_read(void *priv, uint64_t addr, void *buf, size_t len)
{
	struct iovec local = { buf, len }, remote = { (void *)(uintptr_t)addr, len };

	(void)priv;
	return process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
}

/*
 * Read directly (as where ptap catches faults), a string is what the
 * tracer reads through process_vm_readv: starting at each place of a word,
 * of every length up to past the string limit, and running into an
 * unreadable page from each place before it -- bytes, length, truncation,
 * the address of a fault -- and the process goes on.
 */
Test(agent, reads_strings_directly_as_the_tracer_does)
{
	struct sigaction sa = { .sa_sigaction = agent_fault, .sa_flags = SA_SIGINFO }, old_segv;
	uint8_t *mem = mmap(NULL, 3 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			    -1, 0);
	uint8_t *end = mem + 2 * 4096;	/* the unreadable page */
	struct agent_site site;
	struct rig g;
	int checked = 0, faulted = 0, cut = 0, ended = 0;
	const void *seen[64];
	size_t nseen = 0;

	cr_assert(ne(ptr, mem, MAP_FAILED));
	cr_assert(eq(int, mprotect(end, 4096, PROT_NONE), 0));
	rig_up(&g, 4096);
	g.proc.direct = 1;
	site = rig_site(&g, 7, 1);
	/* the string alone: its room ends the record */
	site.nprogs = 1;
	site.rec_len = (uint32_t)(sizeof(struct agent_rec) + sizeof(struct fetch_val) +
				  fetch_prog__buflen(&g.progs[0], site.string_max));
	rig_patch(&g, &site);
	fault_blob = g.span + 8192;
	cr_assert(eq(int, sigaction(SIGSEGV, &sa, &old_segv), 0));
	/*
	 * at_end 0: strings of every length from each place of a word; 1: no
	 * NUL before the unreadable page; 2: the NUL the page's last byte.
	 * Always NULs in the bytes just before the string, which share its
	 * first word and are not its own.
	 */
	for (int at_end = 0; at_end < 3; at_end++)
		for (size_t start = 0; start < (at_end ? 80 : 16); start++)
			for (size_t len = 0; len < (at_end ? 1 : 80); len++) {
				uint8_t *p = at_end ? end - 1 - start : mem + 4096 + start;
				uint64_t regs[ARCH_DWARF_NREGS] = { 0 };
				struct fetch_ctx ctx = { .regs = regs, .nregs = ARCH_DWARF_NREGS,
							 .read_mem = vm_read };
				const struct agent_rec *rec;
				const struct fetch_val *v;
				struct fetch_val want;
				char buf[64];
				size_t n;

				memset(mem + 4096, 'a', 4096);
				for (size_t i = 0; i < 4096; i++)
					mem[4096 + i] = (uint8_t)('a' + i % 26);
				if (!at_end)
					p[len] = '\0';
				if (at_end == 2)
					end[-1] = '\0';
				memset(p - 7, 0, 7);
				((long (*)(const void *, long))(uintptr_t)g.code)(p, 1);
				regs[5] = (uint64_t)(uintptr_t)p;
				fetch_prog__run(&g.progs[0], &ctx, &want, buf, 64);
				cr_assert(eq(int, ring_peek(g.ring, &g.shape, (const void **)&rec, &n),
					     1));
				v = &rec->vals[0];
				cr_assert(eq(int, v->err, want.err), "start %zu len %zu at_end %d",
					  start, len, at_end);
				if (want.err) {
					cr_assert(eq(u64, v->addr, want.addr), "start %zu at_end %d",
						  start, at_end);
					cr_assert(eq(ptr, (void *)(uintptr_t)want.addr, end));
					faulted++;
				} else {
					cr_assert(eq(sz, v->len, want.len), "start %zu len %zu", start,
						  len);
					cr_assert(eq(int, memcmp((const char *)rec +
								 (uintptr_t)v->str, want.str,
								 want.len), 0),
						  "start %zu len %zu", start, len);
					cr_assert(eq(int, v->truncated, want.truncated),
						  "start %zu len %zu", start, len);
					cr_assert(eq(u64, v->full_len, want.full_len),
						  "start %zu len %zu", start, len);
					cr_assert(eq(int, v->full_len_min, want.full_len_min),
						  "start %zu len %zu", start, len);
					cut += at_end == 1 && v->truncated && v->full_len_min;
					ended += at_end == 2 && !v->truncated;
				}
				/*
				 * nothing written past the record: its last
				 * bytes, the string's room, end where the
				 * slot's marked bytes begin (marked below once
				 * the slot was seen)
				 */
				for (size_t i = 0; i < nseen; i++)
					if (seen[i] == (const void *)rec)
						for (size_t k = 0; k < 16; k++)
							cr_assert(eq(u8, ((const uint8_t *)rec)[site.rec_len + k],
								     0xab), "start %zu len %zu: byte %zu past the record",
								  start, len, k);
				if (nseen < 64 && n + 16 <= ring_max_record(g.ring)) {
					seen[nseen++] = rec;
					memset((uint8_t *)rec + site.rec_len, 0xab, 16);
				}
				ring_release(g.ring, &g.shape);
				checked++;
			}
	sigaction(SIGSEGV, &old_segv, NULL);
	fault_blob = NULL;
	cr_assert(eq(int, checked, 16 * 80 + 2 * 80));
	/*
	 * the NUL at the page's end found for every string within the limit:
	 * 0 to 64 bytes (64: the limit's bytes, then its NUL scanned)
	 */
	cr_assert(eq(int, ended, site.string_max + 1));
	/*
	 * every string at the end ran into the page: within the limit, a
	 * fault; longer, cut at the limit and the rest scanned up to the page
	 */
	cr_assert(eq(int, faulted + cut, 80));
	cr_assert(gt(int, faulted, 60));
	cr_assert(gt(int, cut, 0));
	cr_assert(ge(int, nfaults, 80));
	rig_down(&g);
	munmap(mem, 3 * 4096);
}

/* The vDSO's clock_gettime, found as ptap finds a target's, tells the time clock_gettime() does. */
Test(agent, the_vdso_clock)
{
	int (*gettime)(clockid_t, struct timespec *);
	struct timespec a, b, c;
	uint64_t addr;

	cr_assert(eq(int, vdso_gettime(getpid(), &addr), 0));
	gettime = (int (*)(clockid_t, struct timespec *))(uintptr_t)addr;
	clock_gettime(CLOCK_MONOTONIC, &a);
	cr_assert(eq(int, gettime(CLOCK_MONOTONIC, &b), 0));
	clock_gettime(CLOCK_MONOTONIC, &c);
	cr_assert(le(i64, a.tv_sec * 1000000000l + a.tv_nsec, b.tv_sec * 1000000000l + b.tv_nsec));
	cr_assert(le(i64, b.tv_sec * 1000000000l + b.tv_nsec, c.tv_sec * 1000000000l + c.tv_nsec));
	cr_assert(eq(int, vdso_gettime(999999999, &addr), -ENOENT));
}

/*
 * A return probe's call made whole (agent.h's hold): the entry's record
 * kept in the ring until the exit at the same sp adds its own and
 * publishes the two as one slot.  An entry again at the same sp (the call
 * left) publishes the one kept first; an exit with another probe at its
 * address publishes it before its own slot; another sp finds none.
 */
Test(agent, a_call_made_whole)
{
	uint64_t stack[4] = { 0, 0x1234, 0, 0 }, regs[ARCH_DWARF_NREGS_ALL] = { 0 };
	void (*hit)(uint64_t *, uint64_t);
	struct agent_site in, out, other;
	struct fetch_prog ra;
	const struct agent_rec *a, *b;
	const char *p;
	size_t len, reclen;
	struct rig g;

	programs(g.progs);
	reclen = AGENT_REC_ALIGN(rig_site(&g, 3, 3).rec_len);
	rig_up(&g, 3 * reclen);
	hit = (void (*)(uint64_t *, uint64_t))(uintptr_t)(g.span + 8192 + agent_entry_off);
	memset(&ra, 0, sizeof(ra));	/* the return address's slot: the sp */
	ra.type = (struct fetch_type){ .kind = FT_HEX, .size = 8 };
	cr_assert(eq(int, fetch_prog__emit(&ra, FETCH_OP_REG, 0, ARCH_DWARF_SP, 0), 0));
	in = rig_site(&g, 3, 3);
	in.kind = AGENT_RET_ENTRY;
	in.ra_prog = (uint64_t)(uintptr_t)&ra;
	in.hold = (uint32_t)reclen;
	out = rig_site(&g, 4, 2);
	out.kind = AGENT_EXIT;
	out.hold = (uint32_t)reclen;
	out.owner = 3;
	other = rig_site(&g, 9, 2);
	regs[5] = (uint64_t)(uintptr_t)"arg";
	regs[4] = 42;
	regs[ARCH_DWARF_SP] = (uint64_t)(uintptr_t)&stack[1];

	hit(regs, (uint64_t)(uintptr_t)&in);
	cr_assert(eq(int, ring_peek(g.ring, &g.shape, (const void **)&p, &len), 0), "published");
	regs[ARCH_DWARF_SP] -= 8;	/* another sp: not its exit */
	hit(regs, (uint64_t)(uintptr_t)&out);
	cr_assert(eq(int, ring_peek(g.ring, &g.shape, (const void **)&p, &len), 1));
	cr_assert(eq(u32, ((const struct agent_rec *)p)->probe, 4));
	cr_assert(eq(u32, ((const struct agent_rec *)p)->next, 0));
	ring_release(g.ring, &g.shape);
	regs[ARCH_DWARF_SP] += 8;
	hit(regs, (uint64_t)(uintptr_t)&out);
	cr_assert(eq(int, ring_peek(g.ring, &g.shape, (const void **)&p, &len), 1));
	a = (const struct agent_rec *)p;
	cr_assert(eq(u32, a->probe, 3));
	cr_assert(eq(u64, a->slot, (uint64_t)(uintptr_t)&stack[1]));
	cr_assert(eq(u64, a->ra, 0x1234));
	cr_assert(eq(u64, a->vals[1].u, 42));
	cr_assert(eq(u32, a->next, reclen));
	cr_assert(eq(sz, len, 2 * reclen));
	b = (const struct agent_rec *)(p + a->next);
	cr_assert(eq(u32, b->probe, 4));
	cr_assert(eq(u64, b->slot, (uint64_t)(uintptr_t)&stack[1]));
	cr_assert(ge(u64, b->ts, a->ts));
	cr_assert(eq(u32, b->next, 0));
	ring_release(g.ring, &g.shape);

	/* entered again at the same sp: the first published alone, the second kept */
	hit(regs, (uint64_t)(uintptr_t)&in);
	regs[4] = 43;
	hit(regs, (uint64_t)(uintptr_t)&in);
	cr_assert(eq(int, ring_peek(g.ring, &g.shape, (const void **)&p, &len), 1));
	a = (const struct agent_rec *)p;
	cr_assert(eq(u32, a->probe, 3));
	cr_assert(eq(u64, a->vals[1].u, 42));
	cr_assert(eq(u32, a->next, 0));
	ring_release(g.ring, &g.shape);
	cr_assert(eq(int, ring_peek(g.ring, &g.shape, (const void **)&p, &len), 0));
	/* its exit among other probes' sites: the entry, then the exit's slot */
	other.next = (uint64_t)(uintptr_t)&out;
	hit(regs, (uint64_t)(uintptr_t)&other);
	cr_assert(eq(int, ring_peek(g.ring, &g.shape, (const void **)&p, &len), 1));
	a = (const struct agent_rec *)p;
	cr_assert(eq(u32, a->probe, 3));
	cr_assert(eq(u64, a->vals[1].u, 43));
	cr_assert(eq(u32, a->next, 0));
	ring_release(g.ring, &g.shape);
	cr_assert(eq(int, ring_peek(g.ring, &g.shape, (const void **)&p, &len), 1));
	cr_assert(eq(u32, ((const struct agent_rec *)p)->probe, 9));
	cr_assert(eq(u32, ((const struct agent_rec *)(p + reclen))->probe, 4));
	ring_release(g.ring, &g.shape);
	cr_assert(eq(int, ring_peek(g.ring, &g.shape, (const void **)&p, &len), 0));
	rig_down(&g);
}
