/* tests/unit/test_fetch_batch.c: planned reads (probes/fetch.c: the first
 * read of a program, batches served back to the programs) against a fake
 * memory with an unmapped page, a DWARF program from build/samples, and
 * tracer/space/mem.c's mem_readv() on this process's own memory. */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dwarf/elfmod.h"
#include "dwarf/resolve.h"
#include "probes/err.h"
#include "probes/fetch.h"
#include "probes/spec.h"
#include "tests/unit/unit_paths.h"
#include "tracer/space/mem.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* ---- the fake target: pages 0, 2 and 4 mapped; 1, 3 and from 5 on not -------- */

#define PAGE		4096
#define BASE		0x7f1234560000ULL
#define NPAGES		5
#define HOLE		(BASE + PAGE)			/* unmapped pages */
#define P2		(BASE + 2 * PAGE)
#define HOLE2		(BASE + 3 * PAGE)
#define END		(BASE + NPAGES * PAGE)		/* unmapped from here */
#define BIAS		0x555555554000ULL

static uint8_t mem[NPAGES * PAGE];
static uint64_t regs[17];
static int nreads;		/* reads that reached the fake memory */

static bool mapped(uint64_t addr)
{
	return addr >= BASE && addr < END && (addr - BASE) / PAGE % 2 == 0;
}

/* As process_vm_readv: the bytes up to the first unmapped one; none is -EFAULT. */
static size_t readable(uint64_t addr, size_t len)
{
	size_t n = 0;

	while (n < len && mapped(addr + n))
		n++;
	return n;
}

static ssize_t fake_read(void *priv, uint64_t addr, void *buf, size_t len)
{
	size_t n = readable(addr, len);

	(void)priv;
	nreads++;
	if (!n && len)
		return -EFAULT;
	memcpy(buf, mem + (addr - BASE), n);
	return (ssize_t)n;
}

static const struct fetch_ctx fake_ctx = {
	.regs = regs, .nregs = 17, .bias = BIAS, .read_mem = fake_read,
};

/*
 * One process_vm_readv of the batch's ranges, as the kernel makes it: the
 * ranges in order, stopping in the first that runs into unmapped memory
 * (GOT: its readable prefix; the ranges after it: 0).  AGAIN: go on past it
 * in a further call, as mem_readv() does.  The number of calls.
 */
static int fake_readv(struct fetch_batch *b, bool again)
{
	int calls = b->n ? 1 : 0;
	bool stopped = false;

	for (unsigned int i = 0; i < b->n; i++) {
		struct fetch_batch_ent *e = &b->ent[i];

		if (stopped && !again) {
			e->got = 0;
			continue;
		}
		if (stopped)
			calls++;
		e->got = readable(e->addr, e->len);
		memcpy(e->data, mem + (e->addr - BASE), e->got);
		stopped = e->got < e->len;
	}
	return calls;
}

/* The programs' read_mem with a batch: served from it, else from the fake memory. */
static ssize_t served_read(void *priv, uint64_t addr, void *buf, size_t len)
{
	ssize_t n = fetch_batch__read(priv, addr, buf, len);

	return n >= 0 ? n : fake_read(NULL, addr, buf, len);
}

static void put64(uint64_t addr, uint64_t v)
{
	memcpy(mem + (addr - BASE), &v, 8);
}

static void put_str(uint64_t addr, const char *s, size_t n)
{
	memcpy(mem + (addr - BASE), s, n);
}

/*
 * BASE+0x00: BASE+0x80 (-> "SELECT 1")    BASE+0x08: 0x1122334455667788
 * BASE+0x10: NULL                         BASE+0x18: HOLE+8 (a pointer into a hole)
 * BASE+0x20: BASE+PAGE-4 (-> "abc")       BASE+0x40: BASE+0x48, which holds 0xfeedface
 * BASE+0x80: "SELECT 1"                   BASE+PAGE-4: "abc", its NUL the byte before HOLE
 * P2+0x100: "third page"                  HOLE2-16: 16 bytes without a NUL, then HOLE2
 * END-16: "end", then 12 bytes without a NUL up to END
 * rdi: BASE+0x80  rsi: BASE  rdx: HOLE2-16  rcx: END-16  rbx: 0  rbp: P2+0x100
 */
static void setup(void)
{
	memset(mem, 0x5a, sizeof(mem));
	memset(mem + PAGE, 0xee, PAGE);		/* never read: holes */
	memset(mem + 3 * PAGE, 0xee, PAGE);
	put64(BASE + 0x00, BASE + 0x80);
	put64(BASE + 0x08, 0x1122334455667788ULL);
	put64(BASE + 0x10, 0);
	put64(BASE + 0x18, HOLE + 8);
	put64(BASE + 0x20, BASE + PAGE - 4);
	put64(BASE + 0x40, BASE + 0x48);
	put64(BASE + 0x48, 0xfeedface);
	put_str(BASE + 0x80, "SELECT 1", 9);
	put_str(BASE + PAGE - 4, "abc", 4);
	put_str(P2 + 0x100, "third page", 11);
	put_str(HOLE2 - 16, "0123456789abcdef", 16);
	put_str(END - 16, "end\0xyzxyzxyzxyz", 16);
	memset(regs, 0, sizeof(regs));
	regs[5] = BASE + 0x80;		/* rdi */
	regs[4] = BASE;			/* rsi */
	regs[1] = HOLE2 - 16;		/* rdx */
	regs[2] = END - 16;		/* rcx */
	regs[3] = 0;			/* rbx */
	regs[6] = P2 + 0x100;		/* rbp */
	nreads = 0;
}

#define OP(o, sz, r, i) { .op = FETCH_OP_##o, .size = (sz), .reg = (r), .imm = (i) }
#define TYP(k, s, l)	{ .kind = (k), .size = (s), .len = (l) }
#define T_STR		TYP(FT_STRING, 8, 0)
#define T_U64		TYP(FT_UNSIGNED, 8, 0)
#define T_S32		TYP(FT_SIGNED, 4, 0)
#define MAX_OPS		8

struct row {
	const char *what;
	struct fetch_op ops[MAX_OPS];
	struct fetch_type type;
	bool composite;
	uint16_t blob_off;
	/* fetch_prog__first_read() with STRMAX 64 */
	int planned;
	uint64_t addr;
	size_t len, want;
};

static const struct row rows[] = {
	{ "a register", { OP(REG, 0, 5, 0) }, T_U64, .planned = 0 },
	{ "register string", { OP(REG, 0, 5, 0) }, T_STR, .planned = 1, .addr = BASE + 0x80,
	  .len = 64, .want = 64 },
	{ "register + offset", { OP(REG, 0, 4, 0), OP(DEREF, 8, 0, 8) }, T_U64, .planned = 1,
	  .addr = BASE + 8, .len = 8, .want = 8 },
	{ "s32 at a bias-relative address", { OP(ADDR, 0, 0, (int64_t)(BASE - BIAS + 8)),
	  OP(DEREF, 4, 0, 0) }, T_S32, .planned = 1, .addr = BASE + 8, .len = 4, .want = 4 },
	{ "string through a pointer", { OP(REG, 0, 4, 0), OP(DEREF, 8, 0, 0) }, T_STR,
	  .planned = 1, .addr = BASE, .len = 8, .want = 8 },
	{ "double deref", { OP(REG, 0, 4, 0), OP(DEREF, 8, 0, 0x40), OP(DEREF, 8, 0, 0) },
	  T_U64, .planned = 1, .addr = BASE + 0x40, .len = 8, .want = 8 },
	{ "string running into a hole", { OP(REG, 0, 1, 0) }, T_STR, .planned = 1,
	  .addr = HOLE2 - 16, .len = 16, .want = 64 },
	{ "string ending the page", { OP(REG, 0, 4, 0), OP(DEREF, 8, 0, 0x20) }, T_STR,
	  .planned = 1, .addr = BASE + 0x20, .len = 8, .want = 8 },
	{ "string near the end", { OP(REG, 0, 2, 0) }, T_STR, .planned = 1,
	  .addr = END - 16, .len = 16, .want = 64 },
	{ "string past the end", { OP(REG, 0, 2, 0), OP(ADD_IMM, 0, 0, 4) }, T_STR,
	  .planned = 1, .addr = END - 12, .len = 12, .want = 64 },
	{ "NULL string", { OP(REG, 0, 3, 0) }, T_STR, .planned = 0 },
	{ "NULL through a pointer", { OP(REG, 0, 4, 0), OP(DEREF, 8, 0, 0x10) }, T_STR,
	  .planned = 1, .addr = BASE + 0x10, .len = 8, .want = 8 },
	{ "pointer into the hole", { OP(REG, 0, 4, 0), OP(DEREF, 8, 0, 0x18), OP(DEREF, 8, 0, 0) },
	  T_U64, .planned = 1, .addr = BASE + 0x18, .len = 8, .want = 8 },
	{ "in the hole", { OP(IMM, 0, 0, (int64_t)HOLE + 16), OP(DEREF, 2, 0, 0) },
	  TYP(FT_UNSIGNED, 2, 0), .planned = 1, .addr = HOLE + 16, .len = 2, .want = 2 },
	{ "third page string", { OP(REG, 0, 6, 0) }, T_STR, .planned = 1,
	  .addr = P2 + 0x100, .len = 64, .want = 64 },
	{ "struct", { OP(REG, 0, 4, 0) }, TYP(FT_STRUCT, 0, 24), .planned = 1, .addr = BASE,
	  .len = 24, .want = 24 },
	{ "struct into a hole", { OP(REG, 0, 1, 0) }, TYP(FT_STRUCT, 0, 40), .planned = 1,
	  .addr = HOLE2 - 16, .len = 16, .want = 40 },
	{ "char[4]", { OP(REG, 0, 5, 0) }, TYP(FT_CHARS, 0, 4), .planned = 1,
	  .addr = BASE + 0x80, .len = 4, .want = 4 },
	{ "char[100] into a hole", { OP(REG, 0, 1, 0) }, TYP(FT_CHARS, 0, 100), .planned = 1,
	  .addr = HOLE2 - 16, .len = 16, .want = 64 },
	{ "register pieces", { OP(REG, 0, 4, 0), OP(PIECE, 4, 0, 0), OP(IMM, 0, 0, 7),
	  OP(PIECE, 4, 0, 4) }, T_U64, .composite = true, .planned = 0 },
	{ "a memory piece after a register one", { OP(REG, 0, 5, 0), OP(PIECE, 4, 0, 0),
	  OP(REG, 0, 4, 0), OP(ADD_IMM, 0, 0, 8), OP(PIECE, 4, 1, 4) }, T_U64,
	  .composite = true, .planned = 1, .addr = BASE + 8, .len = 4, .want = 4 },
	{ "a string assembled from a register", { OP(REG, 0, 5, 0), OP(PIECE, 8, 0, 0) }, T_STR,
	  .composite = true, .planned = 1, .addr = BASE + 0x80, .len = 64, .want = 64 },
	{ "malformed", { OP(DEREF, 8, 0, 0) }, T_U64, .planned = 0 },
	{ "division by zero before a read", { OP(IMM, 0, 0, 1), OP(IMM, 0, 0, 0),
	  OP(ALU, FETCH_ALU_DIV, 0, 0), OP(DEREF, 8, 0, 0) }, T_U64, .planned = 0 },
};

static struct fetch_prog prog_of(const struct row *r)
{
	struct fetch_prog p = { .type = r->type, .composite = r->composite,
				.blob_off = r->blob_off };

	for (int i = 0; i < MAX_OPS && r->ops[i].op; i++)
		cr_assert(eq(int, fetch_prog__emit(&p, r->ops[i].op, r->ops[i].size, r->ops[i].reg,
						   r->ops[i].imm), 0));
	return p;
}

/* ---- the planner ----------------------------------------------------------- */

/* A read_mem that notes every read, to compare the planner's with the run's first. */
struct trace {
	uint64_t addr[8];
	size_t len[8];
	int n;
};

static ssize_t traced_read(void *priv, uint64_t addr, void *buf, size_t len)
{
	struct trace *tr = priv;

	if (tr->n < 8) {
		tr->addr[tr->n] = addr;
		tr->len[tr->n] = len;
	}
	tr->n++;
	return fake_read(NULL, addr, buf, len);
}

Test(fetch_plan, finds_the_first_read, .init = setup)
{
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		const struct row *r = &rows[i];
		struct fetch_prog p = prog_of(r);
		struct fetch_read rd = { 0 };
		struct trace tr = { .n = 0 };
		struct fetch_ctx tctx = fake_ctx;
		struct fetch_val val;
		char buf[128];
		int got;

		nreads = 0;
		got = fetch_prog__first_read(&p, &fake_ctx, &rd, buf, 64);
		cr_expect(eq(int, nreads, 0), "%s: the planner read memory", r->what);
		cr_expect(eq(int, got, r->planned), "%s: %d", r->what, got);
		if (got != 1 || r->planned != 1)
			continue;
		cr_expect(eq(u64, rd.addr, r->addr), "%s: addr 0x%llx", r->what,
			  (unsigned long long)rd.addr);
		cr_expect(eq(sz, rd.len, r->len), "%s: len %zu", r->what, rd.len);
		cr_expect(eq(sz, rd.want, r->want), "%s: want %zu", r->what, rd.want);
		/* the run's own first read is that one */
		tctx.read_mem = traced_read;
		tctx.priv = &tr;
		fetch_prog__run(&p, &tctx, &val, buf, 64);
		cr_expect(ge(int, tr.n, 1), "%s", r->what);
		cr_expect(eq(u64, tr.addr[0], rd.addr), "%s", r->what);
		cr_expect(eq(sz, tr.len[0], rd.len), "%s", r->what);
	}
}

Test(fetch_plan, nothing_without_read_mem, .init = setup)
{
	struct fetch_prog p = prog_of(&rows[1]);
	struct fetch_ctx c = fake_ctx;
	struct fetch_read rd;
	char buf[64];

	c.read_mem = NULL;
	cr_expect(eq(int, fetch_prog__first_read(&p, &c, &rd, buf, sizeof(buf)), 0));
}

/* ---- planned runs equal unplanned ones, byte for byte ------------------------ */

#define STRMAX_BIG	64

struct outcome {
	struct fetch_val val;
	char buf[FETCH_MAX_BLOB];
};

static void run_unplanned(const struct fetch_prog *p, size_t n, size_t strmax,
			  struct outcome *out)
{
	for (size_t i = 0; i < n; i++) {
		memset(out[i].buf, '#', sizeof(out[i].buf));
		fetch_prog__run(&p[i], &fake_ctx, &out[i].val, out[i].buf, strmax);
	}
}

/*
 * Plan all of P in a batch of MAX entries over an AREA of SIZE bytes, read
 * it (AGAIN: as mem_readv() does), run P from it.  *CALLS: the batch's
 * reads; the return value: the reads the programs made themselves.
 */
static int run_planned(const struct fetch_prog *p, size_t n, size_t strmax, struct outcome *out,
		       unsigned int max, size_t size, bool again, int *calls)
{
	static char area[16384];
	struct fetch_batch_ent ent[64];
	struct fetch_batch b;
	struct fetch_ctx c = fake_ctx;
	int before;

	cr_assert(le(ulong, max, ARRAY_SIZE(ent)));
	cr_assert(le(ulong, size, sizeof(area)));
	memset(area, 0xcc, sizeof(area));
	fetch_batch__init(&b, ent, max, area, size);
	c.read_mem = served_read;
	c.priv = &b;
	for (size_t i = 0; i < n; i++) {
		memset(out[i].buf, '#', sizeof(out[i].buf));
		fetch_batch__plan(&b, &p[i], &c, out[i].buf, strmax);
	}
	cr_expect(eq(int, nreads, 0), "planning read memory");
	*calls = fake_readv(&b, again);
	before = nreads;
	for (size_t i = 0; i < n; i++) {
		memset(out[i].buf, '#', sizeof(out[i].buf));
		fetch_prog__run(&p[i], &c, &out[i].val, out[i].buf, strmax);
	}
	return nreads - before;
}

static void expect_same(const struct outcome *a, const struct outcome *b, size_t n,
			const char *how)
{
	for (size_t i = 0; i < n; i++) {
		const struct fetch_val *x = &a[i].val, *y = &b[i].val;
		const char *what = rows[i].what;

		cr_expect(eq(int, x->err, y->err),
			  "%s (%s): err %d, %d", what, how, x->err, y->err);
		cr_expect(eq(u64, x->addr, y->addr), "%s (%s): addr", what, how);
		cr_expect(eq(u64, x->u, y->u), "%s (%s): u", what, how);
		cr_expect(eq(sz, x->len, y->len),
			  "%s (%s): len %zu, %zu", what, how, x->len, y->len);
		cr_expect(eq(int, x->truncated, y->truncated), "%s (%s): truncated", what, how);
		cr_expect(eq(int, x->null, y->null), "%s (%s): null", what, how);
		cr_expect(eq(long, x->str ? x->str - a[i].buf : -1,
			     y->str ? y->str - b[i].buf : -1), "%s (%s): str", what, how);
		/* the whole buffer: what the value shows and what the reads left past it */
		cr_expect(eq(mem, ((struct cr_mem){ a[i].buf, sizeof(a[i].buf) }),
			     ((struct cr_mem){ b[i].buf, sizeof(a[i].buf) })), "%s (%s): bytes",
			  what, how);
	}
}

Test(fetch_batch, planned_runs_equal_unplanned_ones, .init = setup)
{
	static struct outcome plain[ARRAY_SIZE(rows)], planned[ARRAY_SIZE(rows)];
	struct fetch_prog p[ARRAY_SIZE(rows)];
	size_t n = ARRAY_SIZE(rows);
	static const struct {
		const char *how;
		size_t strmax;
		unsigned int max;
		size_t size;
		bool again;
	} ways[] = {
		{ "one call", STRMAX_BIG, 64, 16384, false },
		{ "calls past faults", STRMAX_BIG, 64, 16384, true },
		{ "strmax 3", 3, 64, 16384, false },
		{ "strmax 4096", 4096, 64, 16384, true },
		{ "a small area", STRMAX_BIG, 64, 100, false },
		{ "few entries", STRMAX_BIG, 3, 16384, false },
		{ "no room at all", STRMAX_BIG, 0, 0, false },
	};
	int calls;

	for (size_t i = 0; i < n; i++)
		p[i] = prog_of(&rows[i]);
	for (size_t w = 0; w < ARRAY_SIZE(ways); w++) {
		run_unplanned(p, n, ways[w].strmax, plain);
		nreads = 0;
		run_planned(p, n, ways[w].strmax, planned, ways[w].max, ways[w].size,
			    ways[w].again, &calls);
		expect_same(plain, planned, n, ways[w].how);
		nreads = 0;
	}
}

/* What is left to the programs: the dependent reads and those past a fault. */
Test(fetch_batch, only_dependent_reads_are_left, .init = setup)
{
	static const struct row dep[] = {
		{ .what = "register string", .ops = { OP(REG, 0, 5, 0) }, .type = T_STR },
		{ .what = "register + offset", .ops = { OP(REG, 0, 4, 0), OP(DEREF, 8, 0, 8) },
		  .type = T_U64 },
		{ .what = "double deref",
		  .ops = { OP(REG, 0, 4, 0), OP(DEREF, 8, 0, 0x40), OP(DEREF, 8, 0, 0) },
		  .type = T_U64 },
		{ .what = "third page string", .ops = { OP(REG, 0, 6, 0) }, .type = T_STR },
	};
	struct outcome out[ARRAY_SIZE(dep)];
	struct fetch_prog p[ARRAY_SIZE(dep)];
	int calls, left;

	for (size_t i = 0; i < ARRAY_SIZE(dep); i++)
		p[i] = prog_of(&dep[i]);
	left = run_planned(p, ARRAY_SIZE(dep), 64, out, 64, 16384, false, &calls);
	cr_expect(eq(int, calls, 1));
	cr_expect(eq(int, left, 1), "only the double deref's second load: %d", left);
	cr_expect(eq(sz, out[0].val.len, 8));
	cr_expect(eq(mem, ((struct cr_mem){ out[0].val.str, 8 }),
		     ((struct cr_mem){ "SELECT 1", 8 })));
	cr_expect(eq(u64, out[1].val.u, 0x1122334455667788ULL));
	cr_expect(eq(u64, out[2].val.u, 0xfeedface));
	cr_expect(eq(sz, out[3].val.len, 10));
	cr_expect(eq(mem, ((struct cr_mem){ out[3].val.str, 10 }),
		     ((struct cr_mem){ "third page", 10 })));
}

/* A string read ahead into the hole: the part before it serves the string, no read left. */
Test(fetch_batch, a_string_before_the_hole_is_served, .init = setup)
{
	static const struct row r[] = {
		{ .what = "abc", .ops = { OP(IMM, 0, 0, (int64_t)(BASE + PAGE - 4)) },
		  .type = T_STR },
		{ .what = "u64 after it", .ops = { OP(REG, 0, 4, 0), OP(DEREF, 8, 0, 8) },
		  .type = T_U64 },
		{ .what = "no NUL before the hole", .ops = { OP(REG, 0, 1, 0) }, .type = T_STR },
	};
	struct outcome out[ARRAY_SIZE(r)];
	struct fetch_prog p[ARRAY_SIZE(r)];
	int calls, left;

	for (size_t i = 0; i < ARRAY_SIZE(r); i++)
		p[i] = prog_of(&r[i]);
	left = run_planned(p, ARRAY_SIZE(r), 64, out, 64, 16384, true, &calls);
	cr_expect(eq(int, calls, 2),
		  "the first crossing range faults, the second is read after it");
	cr_expect(eq(int, out[0].val.err, 0));
	cr_expect(eq(sz, out[0].val.len, 3));
	cr_expect(eq(u64, out[1].val.u, 0x1122334455667788ULL));
	/* the third: its first chunk served, the next (in the hole) read and faulted */
	cr_expect(eq(int, left, 1));
	cr_expect(eq(int, out[2].val.err, -EFAULT));
	cr_expect(eq(u64, out[2].val.addr, HOLE2));
}

/* ---- the batch itself -------------------------------------------------------- */

Test(fetch_batch, adds_covers_orders_and_bounds)
{
	struct fetch_batch_ent ent[4];
	char area[100];
	struct fetch_batch b;

	fetch_batch__init(&b, ent, 4, area, sizeof(area));
	/* crosses a page: kept last */
	cr_expect(eq(int, fetch_batch__add(&b, &(struct fetch_read){ BASE + PAGE - 4, 4, 40 }), 0));
	cr_expect(eq(int, fetch_batch__add(&b, &(struct fetch_read){ BASE + 0x10, 8, 8 }), 0));
	cr_assert(eq(uint, b.n, 2));
	cr_expect(eq(uint, b.ncross, 1));
	cr_expect(eq(u64, ent[0].addr, BASE + 0x10));
	cr_expect(eq(sz, ent[0].len, 8));
	cr_expect(eq(u64, ent[1].addr, BASE + PAGE - 4));
	cr_expect(eq(sz, ent[1].len, 40));
	cr_expect(eq(ptr, ent[1].data, area));
	cr_expect(eq(ptr, ent[0].data, area + 40));
	/* inside an entry: not added */
	cr_expect(eq(int, fetch_batch__add(&b, &(struct fetch_read){ BASE + PAGE, 8, 8 }), 0));
	cr_expect(eq(int, fetch_batch__add(&b, &(struct fetch_read){ BASE + 0x14, 4, 4 }), 0));
	cr_expect(eq(uint, b.n, 2));
	/* more than the room left (52): cut to it, as long as LEN fits */
	cr_expect(eq(int, fetch_batch__add(&b, &(struct fetch_read){ BASE + 0x100, 16, 64 }), 0));
	cr_assert(eq(uint, b.n, 3));
	cr_expect(eq(u64, ent[1].addr, BASE + 0x100));
	cr_expect(eq(sz, ent[1].len, 52));
	cr_expect(eq(u64, ent[2].addr, BASE + PAGE - 4), "the crossing one moved to the end");
	cr_expect(eq(sz, b.used, 100));
	cr_expect(eq(int, fetch_batch__add(&b, &(struct fetch_read){ BASE + 0x200, 1, 1 }),
		     -ENOSPC));
	/* nothing to read, or past the end of the address space: nothing added */
	cr_expect(eq(int, fetch_batch__add(&b, &(struct fetch_read){ BASE + 0x200, 0, 0 }), 0));
	cr_expect(eq(int, fetch_batch__add(&b, &(struct fetch_read){ UINT64_MAX - 3, 8, 8 }), 0));
	cr_expect(eq(uint, b.n, 3));
}

Test(fetch_batch, serves_only_what_was_read)
{
	struct fetch_batch_ent ent[2];
	char area[32], out[16];
	struct fetch_batch b;

	fetch_batch__init(&b, ent, 2, area, sizeof(area));
	cr_assert(eq(int, fetch_batch__add(&b, &(struct fetch_read){ 0x1000, 16, 16 }), 0));
	cr_assert(eq(int, fetch_batch__add(&b, &(struct fetch_read){ 0x3000, 16, 16 }), 0));
	memcpy(ent[0].data, "0123456789abcdef", 16);
	ent[0].got = 10;	/* it ran into unmapped memory */
	ent[1].got = 0;		/* not read */
	cr_expect(eq(long, fetch_batch__read(&b, 0x1002, out, 8), 8));
	cr_expect(eq(mem, ((struct cr_mem){ out, 8 }), ((struct cr_mem){ "23456789", 8 })));
	cr_expect(eq(long, fetch_batch__read(&b, 0x1000, out, 10), 10));
	cr_expect(eq(long, fetch_batch__read(&b, 0x1004, out, 7), -ENOENT), "past what was read");
	cr_expect(eq(long, fetch_batch__read(&b, 0x0fff, out, 2), -ENOENT), "before it");
	cr_expect(eq(long, fetch_batch__read(&b, 0x3000, out, 1), -ENOENT), "not read");
	cr_expect(eq(long, fetch_batch__read(&b, UINT64_MAX, out, 2), -ENOENT));
}

/* ---- a program from DWARF (build/samples/query_server-O0) -------------------- */

/*
 * At -O0 desc lives in a stack slot: desc->source_text:string is a load of
 * the slot (from a register: planned), a load of the member (dependent) and
 * the string (dependent).  Every 8-byte word of the fake stack (page 0)
 * holds desc.
 */
Test(fetch_plan, dwarf_member_of_a_stack_slot, .init = setup)
{
	const uint64_t desc = P2 + 0x200, text = P2 + 0x100;
	struct resolve_opts o = { .max_probes = 16 };
	struct resolved_probe *rps;
	struct probe_spec *spec;
	struct ptap_err err = { .pos = -1 };
	struct elfmod *mod;
	struct outcome plain[3], planned[3];
	struct fetch_read rd;
	struct trace tr = { .n = 0 };
	struct fetch_ctx tctx = fake_ctx;
	int n, calls, left;
	char buf[64];

	cr_assert(eq(int, elfmod__open(unit_path("samples/query_server-O0"), &mod, &err), 0),
		  "%s", err.msg);
	cr_assert(eq(int, probe_spec__parse("exec_query desc->source_text:string desc->nrows len",
					    &spec, &err), 0), "%s", err.msg);
	cr_assert(eq(int, resolve_probes(mod, spec, &o, &rps, &n, &err), 0), "%s", err.msg);
	cr_assert(eq(int, n, 1));
	cr_assert(eq(int, rps[0].nargs, 3));
	for (uint64_t a = BASE; a < BASE + PAGE; a += 8)
		put64(a, desc);
	put64(desc, text);
	put64(desc + 8, 42);
	/* rbp and rsp such that the slot (rbp or rsp - the frame's size) is in page 0 */
	regs[6] = regs[7] = BASE + PAGE / 2;
	cr_assert(eq(int, fetch_prog__first_read(&rps[0].progs[0], &fake_ctx, &rd, buf, 64), 1));
	regs[6] = regs[7] = BASE + PAGE / 2 + (BASE + PAGE / 2 - rd.addr);
	cr_assert(eq(int, fetch_prog__first_read(&rps[0].progs[0], &fake_ctx, &rd, buf, 64), 1));
	cr_expect(eq(sz, rd.len, 8));
	cr_expect(eq(sz, rd.want, 8));
	/* a stack slot */
	cr_expect(ge(u64, rd.addr, BASE));
	cr_expect(lt(u64, rd.addr, BASE + PAGE));
	tctx.read_mem = traced_read;
	tctx.priv = &tr;
	fetch_prog__run(&rps[0].progs[0], &tctx, &plain[0].val, buf, 64);
	cr_assert(eq(int, tr.n, 3), "slot, member, string: %d", tr.n);
	cr_expect(eq(u64, tr.addr[0], rd.addr));
	cr_expect(eq(u64, tr.addr[1], desc));
	cr_expect(eq(u64, tr.addr[2], text));

	nreads = 0;
	run_unplanned(rps[0].progs, 3, 64, plain);
	cr_expect(eq(int, plain[0].val.err, 0));
	cr_expect(eq(sz, plain[0].val.len, 10));
	cr_expect(eq(mem, ((struct cr_mem){ plain[0].val.str, 10 }),
		     ((struct cr_mem){ "third page", 10 })));
	cr_expect(eq(u64, plain[1].val.u, 42));
	nreads = 0;
	left = run_planned(rps[0].progs, 3, 64, planned, 64, 16384, false, &calls);
	cr_expect(eq(int, calls, 1));
	/* the member and the string of arg 1, the member of arg 2 (the slots are batched) */
	cr_expect(eq(int, left, 3), "%d", left);
	for (int i = 0; i < 3; i++) {
		cr_expect(eq(int, plain[i].val.err, planned[i].val.err));
		cr_expect(eq(u64, plain[i].val.u, planned[i].val.u));
		cr_expect(eq(sz, plain[i].val.len, planned[i].val.len));
		cr_expect(eq(mem, ((struct cr_mem){ plain[i].buf, sizeof(plain[i].buf) }),
			     ((struct cr_mem){ planned[i].buf, sizeof(plain[i].buf) })));
	}
	resolved_probes_free(rps, n);
	probe_spec__free(spec);
	elfmod__close(mod);
}

/* ---- mem_readv() on this process's own memory -------------------------------- */

Test(mem_readv, reads_ranges_in_one_call_and_goes_on_past_a_fault)
{
	char *m = mmap(NULL, 3 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char a[16], b[300], c[16], d[8];
	struct iovec local[4] = { { a, 16 }, { b, 300 }, { c, 16 }, { d, 8 } };
	struct iovec remote[4];
	size_t got[4];

	cr_assert(ne(ptr, m, MAP_FAILED));
	cr_assert(eq(int, munmap(m + PAGE, PAGE), 0));
	memset(m, 'a', PAGE);
	memset(m + 2 * PAGE, 'c', PAGE);
	memcpy(m + 2 * PAGE, "third", 5);
	remote[0] = (struct iovec){ m + 2 * PAGE, 16 };
	remote[1] = (struct iovec){ m + PAGE - 100, 300 };	/* into the hole */
	remote[2] = (struct iovec){ m, 16 };
	remote[3] = (struct iovec){ m + PAGE, 8 };		/* in the hole */
	cr_expect(eq(int, mem_readv(getpid(), local, remote, 3, got), 2),
		  "one call, one past the fault");
	cr_expect(eq(sz, got[0], 16));
	cr_expect(eq(sz, got[1], 100));
	cr_expect(eq(sz, got[2], 16));
	cr_expect(eq(mem, ((struct cr_mem){ a, 8 }), ((struct cr_mem){ "thirdccc", 8 })));
	cr_expect(eq(int, b[99], 'a'));
	cr_expect(eq(int, c[15], 'a'));
	/* a range that faults at once (the call fails), then one read */
	memmove(&remote[0], &remote[3], sizeof(remote[0]));
	remote[1] = (struct iovec){ m + 2 * PAGE, 16 };
	local[1] = (struct iovec){ c, 16 };
	local[0] = (struct iovec){ d, 8 };
	cr_expect(eq(int, mem_readv(getpid(), local, remote, 2, got), 2));
	cr_expect(eq(sz, got[0], 0));
	cr_expect(eq(sz, got[1], 16));
	cr_expect(eq(int, mem_readv(getpid(), local, remote, 0, got), 0),
		  "nothing to read: no call");
	munmap(m, 3 * PAGE);
}

Test(mem_readv, a_gone_process_reads_nothing)
{
	char a[8] = "", b[8];
	struct iovec local[2] = { { b, 8 }, { b, 8 } }, remote[2] = { { a, 8 }, { a, 8 } };
	size_t got[2] = { 99, 99 };
	pid_t pid = fork();

	cr_assert(ge(int, pid, 0));
	if (!pid)
		_exit(0);
	cr_assert(eq(int, waitpid(pid, NULL, 0), pid));
	cr_expect(eq(int, mem_readv(pid, local, remote, 2, got), -ESRCH));
	cr_expect(eq(sz, got[0], 0));
	cr_expect(eq(sz, got[1], 0));
}
