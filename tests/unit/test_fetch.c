/* tests/unit/test_fetch.c: fetch types and the fetch-program evaluator,
 * against a fake register set and a fake memory. */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <errno.h>
#include <string.h>

#include "probes/fetch.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define TYP(k, s, b, o)	{ .kind = (k), .size = (s), .bits = (b), .bit_off = (o) }

/* ---- types --------------------------------------------------------------- */

static const struct {
	const char *in;
	struct fetch_type t;
} good_types[] = {
	{ "s8", TYP(FT_SIGNED, 1, 0, 0) },	{ "s16", TYP(FT_SIGNED, 2, 0, 0) },
	{ "s32", TYP(FT_SIGNED, 4, 0, 0) },	{ "s64", TYP(FT_SIGNED, 8, 0, 0) },
	{ "u8", TYP(FT_UNSIGNED, 1, 0, 0) },	{ "u16", TYP(FT_UNSIGNED, 2, 0, 0) },
	{ "u32", TYP(FT_UNSIGNED, 4, 0, 0) },	{ "u64", TYP(FT_UNSIGNED, 8, 0, 0) },
	{ "x8", TYP(FT_HEX, 1, 0, 0) },		{ "x16", TYP(FT_HEX, 2, 0, 0) },
	{ "x32", TYP(FT_HEX, 4, 0, 0) },	{ "x64", TYP(FT_HEX, 8, 0, 0) },
	{ "string", TYP(FT_STRING, 8, 0, 0) },	{ "ustring", TYP(FT_USTRING, 8, 0, 0) },
	{ "symbol", TYP(FT_SYMBOL, 8, 0, 0) },
	{ "b4@3/32", TYP(FT_BITFIELD, 4, 4, 3) },
	{ "b1@0/8", TYP(FT_BITFIELD, 1, 1, 0) },
	{ "b8@0/8", TYP(FT_BITFIELD, 1, 8, 0) },
	{ "b1@63/64", TYP(FT_BITFIELD, 8, 1, 63) },
	{ "b64@0/64", TYP(FT_BITFIELD, 8, 64, 0) },
	{ "b12@4/16", TYP(FT_BITFIELD, 2, 12, 4) },
};

static const char *const bad_types[] = {
	"", "s", "u", "x", "s0", "s7", "s128", "u08", "x 8", "S8", "i32", "u8 ", "strin",
	"string2", "Ustring", "b", "b4", "b4@", "b4@3", "b4@3/", "b4@3/33", "b4@3/24",
	"b0@0/8", "b9@0/8", "b4@5/8", "b4@-1/8", "b@0/8", "b4@0/8x", "b4/8@0",
};

Test(fetch_type, parses_every_type)
{
	for (size_t i = 0; i < ARRAY_SIZE(good_types); i++) {
		struct fetch_type t;
		char name[32];

		memset(&t, 0xee, sizeof(t));
		cr_assert(eq(int, fetch_type__parse(good_types[i].in, strlen(good_types[i].in), &t),
			     0), "%s", good_types[i].in);
		cr_expect(eq(int, t.kind, good_types[i].t.kind), "%s", good_types[i].in);
		cr_expect(eq(int, t.size, good_types[i].t.size), "%s", good_types[i].in);
		cr_expect(eq(int, t.bits, good_types[i].t.bits), "%s", good_types[i].in);
		cr_expect(eq(int, t.bit_off, good_types[i].t.bit_off), "%s", good_types[i].in);
		/* The DWARF-only fields are zero, whatever was there before. */
		cr_expect(eq(int, t.flags, 0), "%s", good_types[i].in);
		cr_expect(eq(u32, t.len, 0), "%s", good_types[i].in);
		cr_expect(eq(ptr, (void *)t.desc, NULL), "%s", good_types[i].in);
		cr_expect_str_eq(fetch_type__name(&t, name, sizeof(name)), good_types[i].in);
	}
}

Test(fetch_type, rejects_bad_types)
{
	for (size_t i = 0; i < ARRAY_SIZE(bad_types); i++) {
		struct fetch_type t = { 0 };

		cr_expect(eq(int, fetch_type__parse(bad_types[i], strlen(bad_types[i]), &t),
			     -EINVAL), "'%s'", bad_types[i]);
	}
}

Test(fetch_type, respects_len_and_names_default)
{
	struct fetch_type t;
	char name[16];

	cr_assert(eq(int, fetch_type__parse("u32:junk", 3, &t), 0));
	cr_expect(eq(int, t.kind, FT_UNSIGNED));
	cr_expect(eq(int, t.size, 4));
	cr_expect(eq(int, fetch_type__parse("string", 3, &t), -EINVAL));
	t = (struct fetch_type){ .kind = FT_DEFAULT };
	cr_expect_str_eq(fetch_type__name(&t, name, sizeof(name)), "x64");
	t = (struct fetch_type){ .kind = FT_DEFAULT, .size = 8 };
	cr_expect_str_eq(fetch_type__name(&t, name, sizeof(name)), "x64");
}

/* ---- the fake target ------------------------------------------------------- */

#define PAGE		4096
#define MEM_BASE	0x7f1234560000ULL	/* page-aligned */
#define MEM_SIZE	(2 * PAGE)		/* then unmapped */
#define BIAS		0x555555554000ULL

struct fake_mem {
	uint8_t bytes[MEM_SIZE];
	bool short_reads;	/* like process_vm_readv: partial count at the end */
	ssize_t fail_ret;	/* returned for an unreadable range */
	bool crossed_page;	/* some read crossed a 4096-byte boundary */
	int nreads;
	size_t first_len;	/* of the first read */
};

static struct fake_mem fm;
static uint64_t regs[17];

static ssize_t fake_read(void *priv, uint64_t addr, void *buf, size_t len)
{
	struct fake_mem *m = priv;

	if (!m->nreads++)
		m->first_len = len;
	if (len && addr / PAGE != (addr + len - 1) / PAGE)
		m->crossed_page = true;
	if (addr < MEM_BASE || addr >= MEM_BASE + MEM_SIZE)
		return m->fail_ret;
	if (addr + len > MEM_BASE + MEM_SIZE) {
		if (!m->short_reads)
			return m->fail_ret;
		len = MEM_BASE + MEM_SIZE - addr;
	}
	memcpy(buf, m->bytes + (addr - MEM_BASE), len);
	return len;
}

/*
 * The agent's way (fetch_ctx's read_str), on the fake memory: a byte at a
 * time up to and with the NUL, stopping at an unreadable one; counted in
 * nstr_reads, not in nreads.
 */
static int nstr_reads;

static ssize_t fake_read_str(void *priv, uint64_t addr, char *buf, size_t len)
{
	struct fake_mem *m = priv;
	size_t i = 0;

	nstr_reads++;
	for (; i < len; i++) {
		if (addr + i < MEM_BASE || addr + i >= MEM_BASE + MEM_SIZE)
			break;
		buf[i] = (char)m->bytes[addr + i - MEM_BASE];
		if (!buf[i])
			return (ssize_t)i + 1;
	}
	return (ssize_t)i;
}

static ssize_t no_read_str(void *priv, uint64_t addr, char *buf, size_t len)
{
	(void)priv, (void)addr, (void)buf, (void)len;
	nstr_reads++;
	return -ENOSYS;
}

static const struct fetch_ctx ctx = {
	.regs = regs, .nregs = 17, .bias = BIAS, .read_mem = fake_read, .priv = &fm,
};

static void put64(uint64_t off, uint64_t v)
{
	memcpy(fm.bytes + off, &v, 8);
}

static void put32(uint64_t off, uint32_t v)
{
	memcpy(fm.bytes + off, &v, 4);
}

static void puts_at(uint64_t off, const char *s, size_t n)
{
	memcpy(fm.bytes + off, s, n);
}

/*
 * base+0x00: base+0x40          base+0x40: base+0x08
 * base+0x08: 0x1122334455667788 base+0x80: "SELECT 1"
 * base+0x10: u32 0xabcd1234     base+0xa0: "abcdefghij"
 * base+0x18: 0xdead000000 (bad) base+PAGE-3: "abcdef" (crosses a page)
 * base+0x20: NULL               base+2*PAGE-6: "hello" (ends the mapping)
 * base+0x28: base+0x80
 */
static void setup(void)
{
	memset(&fm, 0x5a, sizeof(fm.bytes));
	fm.short_reads = false;
	fm.fail_ret = -EFAULT;
	fm.crossed_page = false;
	fm.nreads = 0;
	put64(0x00, MEM_BASE + 0x40);
	put64(0x08, 0x1122334455667788ULL);
	put32(0x10, 0xabcd1234);
	put64(0x18, 0xdead000000ULL);
	put64(0x20, 0);
	put64(0x28, MEM_BASE + 0x80);
	put64(0x40, MEM_BASE + 0x08);
	puts_at(0x80, "SELECT 1", 9);
	puts_at(0xa0, "abcdefghij", 11);
	puts_at(PAGE - 3, "abcdef", 7);
	puts_at(MEM_SIZE - 6, "hello", 6);
	memset(regs, 0, sizeof(regs));
	regs[5] = 42;			/* rdi */
	regs[4] = MEM_BASE;		/* rsi */
	regs[7] = MEM_BASE + 0x100;	/* rsp */
}

#define OP(o, sz, r, i) { .op = FETCH_OP_##o, .size = (sz), .reg = (r), .imm = (i) }
#define MAX_TEST_OPS 10

struct prog_row {
	const char *what;
	struct fetch_op ops[MAX_TEST_OPS];
	struct fetch_type type;
	int ret;		/* of fetch_prog__run() */
	int err;		/* val.err */
	uint64_t u;		/* val.u when err == 0 */
	uint64_t addr;		/* val.addr when err == -EFAULT */
};

/* ROW's program run; STR: strings read by read_str (the agent's way). */
static int run_row_as(const struct prog_row *row, struct fetch_val *val, char *sbuf, size_t smax,
		      bool str)
{
	struct fetch_prog prog = { .type = row->type };
	struct fetch_ctx c = ctx;

	c.read_str = str ? fake_read_str : NULL;
	for (int i = 0; i < MAX_TEST_OPS && row->ops[i].op; i++)
		cr_assert(eq(int, fetch_prog__emit(&prog, row->ops[i].op, row->ops[i].size,
						   row->ops[i].reg, row->ops[i].imm), 0));
	return fetch_prog__run(&prog, &c, val, sbuf, smax);
}

static int run_row(const struct prog_row *row, struct fetch_val *val, char *sbuf, size_t smax)
{
	return run_row_as(row, val, sbuf, smax, false);
}

static int run_row_read_str(const struct prog_row *row, struct fetch_val *val, char *sbuf,
			    size_t smax)
{
	return run_row_as(row, val, sbuf, smax, true);
}

#define T_U16	TYP(FT_UNSIGNED, 2, 0, 0)
#define T_S8	TYP(FT_SIGNED, 1, 0, 0)

static const struct prog_row int_rows[] = {
	{ "register 42", { OP(REG, 0, 5, 0) }, {0}, 0, 0, 42, 0 },
	{ "immediate", { OP(IMM, 0, 0, -2) }, {0}, 0, 0, (uint64_t)-2, 0 },
	{ "addr + bias", { OP(ADDR, 0, 0, 0x4010) }, {0}, 0, 0, BIAS + 0x4010, 0 },
	{ "deref +8", { OP(REG, 0, 4, 0), OP(DEREF, 8, 0, 8) }, {0}, 0, 0,
	  0x1122334455667788ULL, 0 },
	{ "deref chain", { OP(REG, 0, 4, 0), OP(DEREF, 8, 0, 0), OP(DEREF, 8, 0, 0),
			   OP(DEREF, 8, 0, 0) }, {0}, 0, 0, 0x1122334455667788ULL, 0 },
	{ "deref -OFF", { OP(REG, 0, 7, 0), OP(DEREF, 8, 0, -0xf8) }, {0}, 0, 0,
	  0x1122334455667788ULL, 0 },
	{ "deref 1", { OP(REG, 0, 4, 0), OP(DEREF, 1, 0, 8) }, {0}, 0, 0, 0x88, 0 },
	{ "deref 2", { OP(REG, 0, 4, 0), OP(DEREF, 2, 0, 8) }, {0}, 0, 0, 0x7788, 0 },
	{ "deref 4", { OP(REG, 0, 4, 0), OP(DEREF, 4, 0, 8) }, {0}, 0, 0, 0x55667788, 0 },
	{ "add", { OP(REG, 0, 4, 0), OP(IMM, 0, 0, 8), OP(ADD, 0, 0, 0), OP(DEREF, 8, 0, 0) },
	  {0}, 0, 0, 0x1122334455667788ULL, 0 },
	{ "add imm", { OP(REG, 0, 4, 0), OP(ADD_IMM, 0, 0, 8), OP(DEREF, 8, 0, 0) }, {0}, 0, 0,
	  0x1122334455667788ULL, 0 },
	{ "u16 truncates", { OP(REG, 0, 4, 0), OP(DEREF, 8, 0, 8) }, T_U16, 0, 0, 0x7788, 0 },
	{ "s8 of 0x1ff", { OP(IMM, 0, 0, 0x1ff) }, T_S8, 0, 0, 0xff, 0 },
	{ "x32", { OP(IMM, 0, 0, -1) }, TYP(FT_HEX, 4, 0, 0), 0, 0, 0xffffffff, 0 },
	{ "bitfield b4@8/32", { OP(REG, 0, 4, 0), OP(DEREF, 4, 0, 0x10) },
	  TYP(FT_BITFIELD, 4, 4, 8), 0, 0, 0x2, 0 },
	{ "bitfield b8@24/32", { OP(REG, 0, 4, 0), OP(DEREF, 4, 0, 0x10) },
	  TYP(FT_BITFIELD, 4, 8, 24), 0, 0, 0xab, 0 },
	{ "bitfield b3@0/8", { OP(IMM, 0, 0, 0x1fe) }, TYP(FT_BITFIELD, 1, 3, 0), 0, 0, 6, 0 },
	{ "bitfield b1@63/64", { OP(IMM, 0, 0, INT64_MIN) }, TYP(FT_BITFIELD, 8, 1, 63), 0, 0,
	  1, 0 },
	{ "8 values is the limit", { OP(IMM, 0, 0, 1), OP(IMM, 0, 0, 2), OP(IMM, 0, 0, 3),
	  OP(IMM, 0, 0, 4), OP(IMM, 0, 0, 5), OP(IMM, 0, 0, 6), OP(IMM, 0, 0, 7),
	  OP(IMM, 0, 0, 8) }, {0}, 0, 0, 8, 0 },
	/* faults: data, not a failure of the call */
	{ "bad pointer", { OP(REG, 0, 4, 0), OP(DEREF, 8, 0, 0x18), OP(DEREF, 8, 0, 0x10) },
	  {0}, 0, -EFAULT, 0, 0xdead000010ULL },
	{ "NULL pointer", { OP(REG, 0, 4, 0), OP(DEREF, 8, 0, 0x20), OP(DEREF, 4, 0, 4) },
	  {0}, 0, -EFAULT, 0, 4 },
	{ "below the mapping", { OP(IMM, 0, 0, MEM_BASE - 1), OP(DEREF, 2, 0, 0) }, {0}, 0,
	  -EFAULT, 0, MEM_BASE - 1 },
	{ "across the end", { OP(IMM, 0, 0, MEM_BASE + MEM_SIZE - 4), OP(DEREF, 8, 0, 0) }, {0},
	  0, -EFAULT, 0, MEM_BASE + MEM_SIZE - 4 },
	/* malformed programs */
	{ "empty", { { 0 } }, {0}, -EINVAL, -EINVAL, 0, 0 },
	{ "add imm underflow", { OP(ADD_IMM, 0, 0, 1) }, {0}, -EINVAL, -EINVAL, 0, 0 },
	{ "deref underflow", { OP(DEREF, 8, 0, 0) }, {0}, -EINVAL, -EINVAL, 0, 0 },
	{ "add underflow", { OP(IMM, 0, 0, 1), OP(ADD, 0, 0, 0) }, {0}, -EINVAL, -EINVAL, 0, 0 },
	{ "overflow", { OP(IMM, 0, 0, 1), OP(IMM, 0, 0, 2), OP(IMM, 0, 0, 3), OP(IMM, 0, 0, 4),
	  OP(IMM, 0, 0, 5), OP(IMM, 0, 0, 6), OP(IMM, 0, 0, 7), OP(IMM, 0, 0, 8),
	  OP(IMM, 0, 0, 9) }, {0}, -EINVAL, -EINVAL, 0, 0 },
	{ "unknown op", { OP(IMM, 0, 0, 1), { .op = 99 } }, {0}, -EINVAL, -EINVAL, 0, 0 },
	{ "deref size 3", { OP(REG, 0, 4, 0), OP(DEREF, 3, 0, 0) }, {0}, -EINVAL, -EINVAL, 0, 0 },
	{ "deref size 0", { OP(REG, 0, 4, 0), OP(DEREF, 0, 0, 0) }, {0}, -EINVAL, -EINVAL, 0, 0 },
	{ "register 17", { OP(REG, 0, 17, 0) }, {0}, -EINVAL, -EINVAL, 0, 0 },
};

/* Run every row of ROWS and check its return, error and value or fault address. */
static void check_rows(const struct prog_row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct prog_row *row = &rows[i];
		struct fetch_val val;

		memset(&val, 0xcc, sizeof(val));
		cr_expect(eq(int, run_row(row, &val, NULL, 0), row->ret), "%s", row->what);
		cr_expect(eq(int, val.err, row->err), "%s: err %d", row->what, val.err);
		if (!row->err)
			cr_expect(eq(u64, val.u, row->u), "%s: 0x%llx, want 0x%llx", row->what,
				  (unsigned long long)val.u, (unsigned long long)row->u);
		else
			cr_expect(eq(u64, val.addr, row->addr), "%s: addr 0x%llx, want 0x%llx",
				  row->what, (unsigned long long)val.addr,
				  (unsigned long long)row->addr);
		cr_expect(eq(ptr, val.str, NULL), "%s", row->what);
		cr_expect_not(val.truncated, "%s", row->what);
	}
}

Test(fetch, runs_programs, .init = setup)
{
	check_rows(int_rows, ARRAY_SIZE(int_rows));
}

Test(fetch, short_read_and_any_negative_return_is_a_fault, .init = setup)
{
	static const struct prog_row row = {
		"across the end", { OP(IMM, 0, 0, MEM_BASE + MEM_SIZE - 4), OP(DEREF, 8, 0, 0) },
		{0}, 0, -EFAULT, 0, 0,
	};
	struct fetch_val val;

	fm.short_reads = true;		/* returns 4 of 8 bytes */
	cr_assert(eq(int, run_row(&row, &val, NULL, 0), 0));
	cr_expect(eq(int, val.err, -EFAULT));
	cr_expect(eq(u64, val.addr, MEM_BASE + MEM_SIZE - 4));
	fm.short_reads = false;
	fm.fail_ret = -EIO;		/* not -EFAULT: still a fault of the value */
	cr_assert(eq(int, run_row(&row, &val, NULL, 0), 0));
	cr_expect(eq(int, val.err, -EFAULT));
	cr_expect(eq(u64, val.addr, MEM_BASE + MEM_SIZE - 4));
}

Test(fetch, emit_is_bounded)
{
	struct fetch_prog prog = { .nops = 0 };

	for (int i = 0; i < FETCH_MAX_OPS; i++)
		cr_assert(eq(int, fetch_prog__emit(&prog, FETCH_OP_IMM, 0, 0, i), 0));
	cr_expect(eq(int, fetch_prog__emit(&prog, FETCH_OP_IMM, 0, 0, 99), -E2BIG));
	cr_expect(eq(int, prog.nops, FETCH_MAX_OPS));
	cr_expect(eq(int, prog.ops[15].op, FETCH_OP_IMM));
	cr_expect(eq(i64, prog.ops[15].imm, 15));
}

/* ---- strings ------------------------------------------------------------- */

#define T_STR	TYP(FT_STRING, 8, 0, 0)

struct str_row {
	const char *what;
	struct fetch_op ops[MAX_TEST_OPS];
	size_t strmax;
	int err;
	const char *str;	/* expected bytes, when err == 0 */
	bool truncated;
	uint64_t addr;		/* 0 without an error: a NULL pointer, a value (val.null) */
};

static const struct str_row str_rows[] = {
	{ "via pointer", { OP(REG, 0, 4, 0), OP(DEREF, 8, 0, 0x28) }, 64, 0, "SELECT 1", false,
	  MEM_BASE + 0x80 },
	{ "address", { OP(IMM, 0, 0, MEM_BASE + 0xa0) }, 64, 0, "abcdefghij", false,
	  MEM_BASE + 0xa0 },
	{ "truncated at strmax", { OP(IMM, 0, 0, MEM_BASE + 0xa0) }, 4, 0, "abcd", true,
	  MEM_BASE + 0xa0 },
	/* STRMAX bytes then the NUL: the whole string (the scan past the limit finds it) */
	{ "NUL just past strmax", { OP(IMM, 0, 0, MEM_BASE + 0xa0) }, 10, 0, "abcdefghij", false,
	  MEM_BASE + 0xa0 },
	{ "NUL at strmax", { OP(IMM, 0, 0, MEM_BASE + 0xa0) }, 11, 0, "abcdefghij", false,
	  MEM_BASE + 0xa0 },
	{ "empty", { OP(IMM, 0, 0, MEM_BASE + 0xaa) }, 64, 0, "", false, MEM_BASE + 0xaa },
	{ "across a page", { OP(IMM, 0, 0, MEM_BASE + PAGE - 3) }, 256, 0, "abcdef", false,
	  MEM_BASE + PAGE - 3 },
	{ "before an unmapped page", { OP(IMM, 0, 0, MEM_BASE + MEM_SIZE - 6) }, 256, 0, "hello",
	  false, MEM_BASE + MEM_SIZE - 6 },
	{ "NULL", { OP(REG, 0, 4, 0), OP(DEREF, 8, 0, 0x20) }, 64, 0, "", false, 0 },
	{ "NULL in a register", { OP(REG, 0, 3, 0) }, 64, 0, "", false, 0 },
	{ "bad pointer", { OP(REG, 0, 4, 0), OP(DEREF, 8, 0, 0x18) }, 64, -EFAULT, NULL, false,
	  0xdead000000ULL },
	{ "fault before the pointer", { OP(IMM, 0, 0, 8), OP(DEREF, 8, 0, 0) }, 64, -EFAULT,
	  NULL, false, 8 },
};

/* Each row read both ways: through read_mem, and through read_str (the agent's). */
Test(fetch, reads_strings, .init = setup)
{
	for (size_t i = 0; i < 2 * ARRAY_SIZE(str_rows); i++) {
		const struct str_row *row = &str_rows[i % ARRAY_SIZE(str_rows)];
		bool by_str = i >= ARRAY_SIZE(str_rows);
		struct prog_row pr = { .what = row->what, .type = T_STR };
		struct fetch_val val;
		char sbuf[300];

		memcpy(pr.ops, row->ops, sizeof(pr.ops));
		memset(sbuf, '#', sizeof(sbuf));
		fm.crossed_page = false;
		cr_expect(eq(int, by_str ? run_row_read_str(&pr, &val, sbuf, row->strmax) :
				  run_row(&pr, &val, sbuf, row->strmax), 0), "%s", row->what);
		cr_expect(eq(int, val.err, row->err), "%s: err %d", row->what, val.err);
		cr_expect(eq(u64, val.addr, row->addr), "%s: addr 0x%llx", row->what,
			  (unsigned long long)val.addr);
		cr_expect(eq(int, val.null, !row->err && !row->addr), "%s: null", row->what);
		cr_expect_not(fm.crossed_page, "%s: a read crossed a page", row->what);
		if (row->err)
			continue;
		cr_expect(eq(ptr, val.str, sbuf), "%s", row->what);
		cr_expect(eq(sz, val.len, strlen(row->str)), "%s: len %zu", row->what, val.len);
		cr_expect(eq(mem, ((struct cr_mem){ val.str, val.len }),
			     ((struct cr_mem){ row->str, val.len })), "%s: '%.*s'", row->what,
			  (int)val.len, val.str);
		cr_expect(eq(int, val.truncated, row->truncated), "%s", row->what);
		cr_expect(eq(int, sbuf[row->strmax], '#'), "%s: wrote past strmax", row->what);
	}
}

/*
 * read_str, where there is one, reads a string in one call, not through
 * read_mem; one that says -ENOSYS sends it to read_mem, with the same value.
 */
Test(fetch, read_str_reads_a_string_once, .init = setup)
{
	static const struct prog_row row = {
		.what = "hello", .ops = { OP(IMM, 0, 0, MEM_BASE + 0x130) }, .type = T_STR,
	};
	struct fetch_prog prog = { .type = row.type };
	struct fetch_ctx c = ctx;
	struct fetch_val val;
	char sbuf[256];

	cr_assert(eq(int, fetch_prog__emit(&prog, row.ops[0].op, 0, 0, row.ops[0].imm), 0));
	puts_at(0x130, "hello", 6);
	for (int way = 0; way < 2; way++) {
		c.read_str = way ? no_read_str : fake_read_str;
		memset(sbuf, '#', sizeof(sbuf));
		fm.nreads = nstr_reads = 0;
		cr_assert(eq(int, fetch_prog__run(&prog, &c, &val, sbuf, sizeof(sbuf)), 0));
		cr_expect(eq(int, val.err, 0), "way %d", way);
		cr_expect(eq(mem, ((struct cr_mem){ val.str, val.len }),
			     ((struct cr_mem){ "hello", 5 })), "way %d", way);
		cr_expect(eq(int, val.truncated, false), "way %d", way);
		cr_expect(eq(int, nstr_reads, 1), "way %d", way);
		cr_expect(eq(int, fm.nreads, way ? 1 : 0), "way %d", way);
	}
	/* no NUL within the room: truncated, the rest scanned through read_mem */
	memset(fm.bytes + 0x130, 'x', 300);
	fm.bytes[0x130 + 300] = '\0';
	c.read_str = fake_read_str;
	cr_assert(eq(int, fetch_prog__run(&prog, &c, &val, sbuf, 100), 0));
	cr_expect(eq(int, val.err, 0));
	cr_expect(eq(sz, val.len, 100));
	cr_expect(eq(int, val.truncated, true));
	cr_expect(eq(u64, val.full_len, 300));
}

Test(fetch, string_running_into_unmapped_memory_faults, .init = setup)
{
	static const struct prog_row row = {
		.what = "no NUL before the end",
		.ops = { OP(IMM, 0, 0, MEM_BASE + MEM_SIZE - 4) },
		.type = T_STR,
	};
	struct fetch_val val;
	char sbuf[64];

	puts_at(MEM_SIZE - 4, "wxyz", 4);
	cr_assert(eq(int, run_row(&row, &val, sbuf, sizeof(sbuf)), 0));
	cr_expect(eq(int, val.err, -EFAULT));
	cr_expect(eq(u64, val.addr, MEM_BASE + MEM_SIZE));	/* the first unreadable byte */
	cr_expect(eq(sz, val.len, 0));
	/* One read up to the page end, one that fails: none crosses a page. */
	cr_expect(eq(int, fm.nreads, 2));
	cr_expect(eq(int, fm.crossed_page, false));
}

Test(fetch, reads_a_long_string_page_by_page, .init = setup)
{
	static const struct prog_row row = {
		.what = "long", .ops = { OP(IMM, 0, 0, MEM_BASE + 0x100) }, .type = T_STR,
	};
	static char sbuf[2 * PAGE];
	struct fetch_val val;

	memset(fm.bytes + 0x100, 'q', MEM_SIZE - 0x100 - 1);
	fm.bytes[MEM_SIZE - 1] = '\0';
	cr_assert(eq(int, run_row(&row, &val, sbuf, sizeof(sbuf)), 0));
	cr_expect(eq(int, val.err, 0));
	cr_expect(eq(sz, val.len, MEM_SIZE - 0x100 - 1));
	cr_expect(eq(int, val.truncated, false));
	cr_expect(eq(int, fm.nreads, 2));
	cr_expect(eq(int, fm.crossed_page, false));
	cr_expect(eq(int, sbuf[val.len - 1], 'q'));
}

/* ---- the length of a truncated string ---------------------------------------- */

struct len_row {
	const char *what;
	uint64_t off;		/* of the string in the fake memory */
	uint8_t kind;		/* FT_STRING or FT_CHARS */
	uint32_t alen;		/* FT_CHARS: the array's length */
	size_t strmax;
	bool truncated;
	uint64_t full_len;	/* when truncated */
	bool full_len_min;
};

/*
 * The fake memory of setup(), plus: 0x200 "abcdefghijklmnopqrst" (20 bytes),
 * and from MEM_SIZE - 40 to the end of the mapping 40 bytes without a NUL.
 */
static const struct len_row len_rows[] = {
	{ "string, NUL past the limit", 0x200, FT_STRING, 0, 8, true, 20, false },
	{ "string, NUL just past", 0x200, FT_STRING, 0, 19, true, 20, false },
	{ "string, NUL at the limit: whole", 0x200, FT_STRING, 0, 20, false, 0, false },
	{ "string, no NUL before unmapped memory", MEM_SIZE - 40, FT_STRING, 0, 8, true, 40, true },
	{ "string across a page", PAGE - 3, FT_STRING, 0, 2, true, 6, false },
	{ "string, limit 0", 0x200, FT_STRING, 0, 0, true, 20, false },
	{ "array, NUL past the limit", 0x200, FT_CHARS, 64, 8, true, 20, false },
	{ "array without a NUL: its length", 0x200, FT_CHARS, 12, 8, true, 12, false },
	{ "array, NUL at its end", 0x200, FT_CHARS, 21, 8, true, 20, false },
	{ "array within the limit", 0x200, FT_CHARS, 12, 16, false, 0, false },
	{ "array to unmapped memory", MEM_SIZE - 40, FT_CHARS, 100, 8, true, 40, true },
};

Test(fetch, truncated_strings_know_their_length, .init = setup)
{
	puts_at(0x200, "abcdefghijklmnopqrst", 21);
	memset(fm.bytes + MEM_SIZE - 40, 'z', 40);
	for (size_t i = 0; i < ARRAY_SIZE(len_rows); i++) {
		const struct len_row *row = &len_rows[i];
		struct fetch_prog prog = { .type = { .kind = row->kind, .size = 8,
						     .len = row->alen } };
		struct fetch_val val;
		char sbuf[64];

		cr_assert(eq(int, fetch_prog__emit(&prog, FETCH_OP_IMM, 0, 0,
						   (int64_t)(MEM_BASE + row->off)), 0));
		fm.crossed_page = false;
		memset(sbuf, '#', sizeof(sbuf));
		cr_assert(eq(int, fetch_prog__run(&prog, &ctx, &val, sbuf, row->strmax), 0));
		cr_expect(eq(int, val.err, 0), "%s: err %d", row->what, val.err);
		cr_expect(eq(int, val.truncated, row->truncated), "%s", row->what);
		cr_expect(eq(u64, val.full_len, row->full_len), "%s: full_len %llu", row->what,
			  (unsigned long long)val.full_len);
		cr_expect(eq(int, val.full_len_min, row->full_len_min), "%s", row->what);
		cr_expect_not(fm.crossed_page, "%s: a read crossed a page", row->what);
		cr_expect(eq(int, sbuf[row->strmax], '#'), "%s: the scan wrote into the buffer",
			  row->what);
	}
}

/* An endless memory: 'A' everywhere but a NUL at NUL_AT (when not 0); reads counted. */
struct endless {
	uint64_t nul_at;
	int nreads;
	bool crossed_page;
};

static ssize_t endless_read(void *priv, uint64_t addr, void *buf, size_t len)
{
	struct endless *e = priv;

	e->nreads++;
	if (len && addr / PAGE != (addr + len - 1) / PAGE)
		e->crossed_page = true;
	memset(buf, 'A', len);
	if (e->nul_at >= addr && e->nul_at - addr < len)
		((char *)buf)[e->nul_at - addr] = '\0';
	return (ssize_t)len;
}

Test(fetch, the_length_scan_is_bounded)
{
	static const struct {
		const char *what;
		uint64_t nul;		/* offset of the NUL from the string, 0: none */
		uint64_t full_len;
		bool min;
	} rows[] = {
		{ "no NUL at all", 0, 256 + FETCH_STRLEN_SCAN, true },
		{ "the last byte scanned", 256 + FETCH_STRLEN_SCAN - 1, 256 + FETCH_STRLEN_SCAN - 1,
		  false },
		{ "one past the scan", 256 + FETCH_STRLEN_SCAN, 256 + FETCH_STRLEN_SCAN, true },
		{ "in the first page past the limit", 300, 300, false },
	};
	const uint64_t base = 0x10000000000ULL + 100;	/* not page-aligned */

	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		struct endless e = { .nul_at = rows[i].nul ? base + rows[i].nul : 0 };
		struct fetch_ctx ectx = { .read_mem = endless_read, .priv = &e };
		struct fetch_prog prog = { .type = { .kind = FT_STRING, .size = 8 } };
		struct fetch_val val;
		char sbuf[256];

		cr_assert(eq(int, fetch_prog__emit(&prog, FETCH_OP_IMM, 0, 0, (int64_t)base), 0));
		cr_assert(eq(int, fetch_prog__run(&prog, &ectx, &val, sbuf, sizeof(sbuf)), 0));
		cr_expect(val.truncated, "%s", rows[i].what);
		cr_expect(eq(ulong, val.len, sizeof(sbuf)), "%s", rows[i].what);
		cr_expect(eq(u64, val.full_len, rows[i].full_len), "%s: %llu", rows[i].what,
			  (unsigned long long)val.full_len);
		cr_expect(eq(int, val.full_len_min, rows[i].min), "%s", rows[i].what);
		cr_expect_not(e.crossed_page, "%s", rows[i].what);
		/* page by page: the limit's page, then at most 17 more for 64 KiB */
		cr_expect(le(int, e.nreads, 1 + FETCH_STRLEN_SCAN / PAGE + 1), "%s: %d reads",
			  rows[i].what, e.nreads);
	}
}

Test(fetch, rejects_nops_beyond_the_array, .init = setup)
{
	struct fetch_prog prog = { .nops = FETCH_MAX_OPS + 1 };
	struct fetch_val val;

	prog.ops[0] = (struct fetch_op){ .op = FETCH_OP_IMM, .imm = 1 };
	cr_expect(eq(int, fetch_prog__run(&prog, &ctx, &val, NULL, 0), -EINVAL));
	cr_expect(eq(int, val.err, -EINVAL));
}

/* ---- ALU and stack ops ----------------------------------------------------- */

#define ALU(code)	OP(ALU, FETCH_ALU_##code, 0, 0)
#define STK(code)	OP(STACK, FETCH_STACK_##code, 0, 0)
#define IMM(v)		OP(IMM, 0, 0, (v))
#define BIN(a, code, b)	{ IMM(a), IMM(b), ALU(code) }

static const struct prog_row alu_rows[] = {
	{ "sub", BIN(10, SUB, 3), {0}, 0, 0, 7, 0 },
	{ "sub wraps", BIN(3, SUB, 10), {0}, 0, 0, (uint64_t)-7, 0 },
	{ "mul", BIN(6, MUL, -7), {0}, 0, 0, (uint64_t)-42, 0 },
	{ "div is signed", BIN(-7, DIV, 2), {0}, 0, 0, (uint64_t)-3, 0 },
	{ "div", BIN(100, DIV, 7), {0}, 0, 0, 14, 0 },
	{ "div INT64_MIN by -1 wraps", BIN(INT64_MIN, DIV, -1), {0}, 0, 0, 1ULL << 63, 0 },
	{ "mod is unsigned", BIN(-1, MOD, 10), {0}, 0, 0, 5, 0 },
	{ "mod", BIN(100, MOD, 7), {0}, 0, 0, 2, 0 },
	{ "and", BIN(0xff0f, AND, 0x0ff0), {0}, 0, 0, 0x0f00, 0 },
	{ "or", BIN(0xf000, OR, 0x000f), {0}, 0, 0, 0xf00f, 0 },
	{ "xor", BIN(0xff00, XOR, 0x0ff0), {0}, 0, 0, 0xf0f0, 0 },
	{ "shl", BIN(1, SHL, 63), {0}, 0, 0, 1ULL << 63, 0 },
	{ "shl 64", BIN(1, SHL, 64), {0}, 0, 0, 0, 0 },
	{ "shl huge", BIN(-1, SHL, 1000), {0}, 0, 0, 0, 0 },
	{ "shl negative count", BIN(1, SHL, -1), {0}, 0, 0, 0, 0 },
	{ "shr is logical", BIN(-1, SHR, 60), {0}, 0, 0, 0xf, 0 },
	{ "shr 64", BIN(-1, SHR, 64), {0}, 0, 0, 0, 0 },
	{ "shra negative", BIN(INT64_MIN, SHRA, 4), {0}, 0, 0, 0xf800000000000000ULL, 0 },
	{ "shra positive", BIN(0x100, SHRA, 4), {0}, 0, 0, 0x10, 0 },
	{ "shra 63", BIN(-2, SHRA, 63), {0}, 0, 0, ~0ULL, 0 },
	{ "shra 64 negative: the sign", BIN(-16, SHRA, 64), {0}, 0, 0, ~0ULL, 0 },
	{ "shra 200 positive", BIN(16, SHRA, 200), {0}, 0, 0, 0, 0 },
	{ "neg", { IMM(5), ALU(NEG) }, {0}, 0, 0, (uint64_t)-5, 0 },
	{ "neg INT64_MIN", { IMM(INT64_MIN), ALU(NEG) }, {0}, 0, 0, 1ULL << 63, 0 },
	{ "not", { IMM(0x0f), ALU(NOT) }, {0}, 0, 0, ~0x0fULL, 0 },
	{ "unary keeps the rest", { IMM(9), IMM(1), ALU(NEG), ALU(SUB) }, {0}, 0, 0, 10, 0 },
	{ "then truncated to u8", BIN(0x100, SUB, 1), TYP(FT_UNSIGNED, 1, 0, 0), 0, 0, 0xff, 0 },
	/* malformed */
	{ "div by zero", BIN(1, DIV, 0), {0}, -EINVAL, -EINVAL, 0, 0 },
	{ "mod by zero", BIN(1, MOD, 0), {0}, -EINVAL, -EINVAL, 0, 0 },
	{ "binary underflow", { IMM(1), ALU(SUB) }, {0}, -EINVAL, -EINVAL, 0, 0 },
	{ "unary underflow", { ALU(NOT) }, {0}, -EINVAL, -EINVAL, 0, 0 },
	{ "alu 0", { IMM(1), IMM(2), OP(ALU, 0, 0, 0) }, {0}, -EINVAL, -EINVAL, 0, 0 },
	{ "alu 99", { IMM(1), IMM(2), OP(ALU, 99, 0, 0) }, {0}, -EINVAL, -EINVAL, 0, 0 },
};

static const struct prog_row stack_rows[] = {
	{ "dup", { IMM(21), STK(DUP), OP(ADD, 0, 0, 0) }, {0}, 0, 0, 42, 0 },
	{ "drop", { IMM(1), IMM(2), STK(DROP) }, {0}, 0, 0, 1, 0 },
	{ "swap", { IMM(10), IMM(3), STK(SWAP) }, {0}, 0, 0, 10, 0 },
	{ "swap then sub", { IMM(10), IMM(3), STK(SWAP), ALU(SUB) }, {0}, 0, 0, (uint64_t)-7, 0 },
	{ "over", { IMM(10), IMM(3), STK(OVER) }, {0}, 0, 0, 10, 0 },
	/* 10 3 10 -> 10 -7 -> 3: OVER copies the second, leaves both */
	{ "over keeps both", { IMM(10), IMM(3), STK(OVER), ALU(SUB), OP(ADD, 0, 0, 0) }, {0}, 0,
	  0, 3, 0 },
	/* malformed */
	{ "dup empty", { STK(DUP) }, {0}, -EINVAL, -EINVAL, 0, 0 },
	{ "dup overflow", { IMM(1), IMM(2), IMM(3), IMM(4), IMM(5), IMM(6), IMM(7), IMM(8),
	  STK(DUP) }, {0}, -EINVAL, -EINVAL, 0, 0 },
	{ "over overflow", { IMM(1), IMM(2), IMM(3), IMM(4), IMM(5), IMM(6), IMM(7), IMM(8),
	  STK(OVER) }, {0}, -EINVAL, -EINVAL, 0, 0 },
	{ "drop empty", { STK(DROP) }, {0}, -EINVAL, -EINVAL, 0, 0 },
	{ "drop the last: nothing left", { IMM(1), STK(DROP) }, {0}, -EINVAL, -EINVAL, 0, 0 },
	{ "swap one", { IMM(1), STK(SWAP) }, {0}, -EINVAL, -EINVAL, 0, 0 },
	{ "over one", { IMM(1), STK(OVER) }, {0}, -EINVAL, -EINVAL, 0, 0 },
	{ "stack 0", { IMM(1), IMM(2), OP(STACK, 0, 0, 0) }, {0}, -EINVAL, -EINVAL, 0, 0 },
	{ "stack 5", { IMM(1), IMM(2), OP(STACK, 5, 0, 0) }, {0}, -EINVAL, -EINVAL, 0, 0 },
};

Test(fetch, runs_alu_ops, .init = setup)
{
	check_rows(alu_rows, ARRAY_SIZE(alu_rows));
}

Test(fetch, runs_stack_ops, .init = setup)
{
	check_rows(stack_rows, ARRAY_SIZE(stack_rows));
}

/* ---- integer-like DWARF kinds ------------------------------------------------ */

#define TYPF(k, s, b, o, f)	{ .kind = (k), .size = (s), .bits = (b), .bit_off = (o), \
				  .flags = (f) }

static const struct prog_row kind_rows[] = {
	/* 0xabcd1234 at base+0x10 */
	{ "unsigned b4@8/32", { OP(REG, 0, 4, 0), OP(DEREF, 4, 0, 0x10) },
	  TYPF(FT_BITFIELD, 4, 4, 8, 0), 0, 0, 0x2, 0 },
	{ "signed b4@8/32, positive", { OP(REG, 0, 4, 0), OP(DEREF, 4, 0, 0x10) },
	  TYPF(FT_BITFIELD, 4, 4, 8, FTF_SIGNED), 0, 0, 0x2, 0 },
	{ "unsigned b8@24/32", { OP(REG, 0, 4, 0), OP(DEREF, 4, 0, 0x10) },
	  TYPF(FT_BITFIELD, 4, 8, 24, 0), 0, 0, 0xab, 0 },
	{ "signed b8@24/32", { OP(REG, 0, 4, 0), OP(DEREF, 4, 0, 0x10) },
	  TYPF(FT_BITFIELD, 4, 8, 24, FTF_SIGNED), 0, 0, 0xffffffffffffffabULL, 0 },
	{ "signed b3@0/8 of 0x1fe", { IMM(0x1fe) }, TYPF(FT_BITFIELD, 1, 3, 0, FTF_SIGNED), 0, 0,
	  (uint64_t)-2, 0 },
	{ "signed b3@1/8 of 0x06", { IMM(0x06) }, TYPF(FT_BITFIELD, 1, 3, 1, FTF_SIGNED), 0, 0,
	  3, 0 },
	{ "signed b1@63/64", { IMM(INT64_MIN) }, TYPF(FT_BITFIELD, 8, 1, 63, FTF_SIGNED), 0, 0,
	  ~0ULL, 0 },
	{ "signed b64@0/64", { IMM(-5) }, TYPF(FT_BITFIELD, 8, 64, 0, FTF_SIGNED), 0, 0,
	  (uint64_t)-5, 0 },
	{ "unsigned enum u8", { IMM(0x1ff) }, TYPF(FT_ENUM, 1, 0, 0, 0), 0, 0, 0xff, 0 },
	{ "signed enum s8", { IMM(0x1ff) }, TYPF(FT_ENUM, 1, 0, 0, FTF_SIGNED), 0, 0, ~0ULL, 0 },
	{ "signed enum s32, positive", { IMM(0x17fffffff) }, TYPF(FT_ENUM, 4, 0, 0, FTF_SIGNED),
	  0, 0, 0x7fffffff, 0 },
	{ "signed enum s32", { IMM(0xfffffff9) }, TYPF(FT_ENUM, 4, 0, 0, FTF_SIGNED), 0, 0,
	  (uint64_t)-7, 0 },
	{ "FTF_SIGNED leaves sN truncated", { IMM(0x1ff) }, TYPF(FT_SIGNED, 1, 0, 0, FTF_SIGNED),
	  0, 0, 0xff, 0 },
	{ "bool u8 truncates", { IMM(0x100) }, TYP(FT_BOOL, 1, 0, 0), 0, 0, 0, 0 },
	{ "bool", { IMM(0x102) }, TYP(FT_BOOL, 1, 0, 0), 0, 0, 2, 0 },
	{ "float: its 4 bytes", { IMM(0x123456783dcccccdLL) }, TYP(FT_FLOAT, 4, 0, 0), 0, 0,
	  0x3dcccccd, 0 },
	{ "double", { IMM(0x3fb999999999999aLL) }, TYP(FT_FLOAT, 8, 0, 0), 0, 0,
	  0x3fb999999999999aULL, 0 },
};

Test(fetch, integer_like_kinds, .init = setup)
{
	check_rows(kind_rows, ARRAY_SIZE(kind_rows));
}

/* ---- char arrays and structs ------------------------------------------------- */

struct mem_row {
	const char *what;
	uint64_t addr;		/* the address on top */
	uint32_t len;		/* the type's LEN */
	size_t strmax;
	int err;
	const char *bytes;	/* expected, when err == 0 */
	size_t nbytes;
	bool truncated;
	uint64_t fault;		/* val.addr when err */
};

/* base+0xa0: "abcdefghij\0"; base+PAGE-3: "abcdef\0"; base+2*PAGE-4: "wxyz", no NUL */
static const struct mem_row chars_rows[] = {
	{ "full array, no NUL", MEM_BASE + 0xa0, 4, 64, 0, "abcd", 4, false, 0 },
	{ "NUL inside", MEM_BASE + 0xa0, 16, 64, 0, "abcdefghij", 10, false, 0 },
	{ "NUL is the last byte", MEM_BASE + 0xa0, 11, 64, 0, "abcdefghij", 10, false, 0 },
	{ "longer than strmax, no NUL within", MEM_BASE + 0xa0, 16, 4, 0, "abcd", 4, true, 0 },
	{ "longer than strmax, NUL just past it: whole", MEM_BASE + 0xa0, 16, 10, 0, "abcdefghij",
	  10, false, 0 },
	{ "longer than strmax, NUL within", MEM_BASE + 0xa0, 16, 11, 0, "abcdefghij", 10, false,
	  0 },
	{ "as long as strmax, no NUL", MEM_BASE + 0xa0, 4, 4, 0, "abcd", 4, false, 0 },
	{ "empty array", MEM_BASE + 0xa0, 0, 64, 0, "", 0, false, 0 },
	{ "across a page", MEM_BASE + PAGE - 3, 32, 64, 0, "abcdef", 6, false, 0 },
	{ "filled to the end of the mapping", MEM_BASE + MEM_SIZE - 4, 4, 64, 0, "wxyz", 4,
	  false, 0 },
	{ "running into unmapped memory", MEM_BASE + MEM_SIZE - 4, 8, 64, -EFAULT, NULL, 0, false,
	  MEM_BASE + MEM_SIZE },
	{ "NULL", 0, 8, 64, -EFAULT, NULL, 0, false, 0 },
	{ "bad address", 0xdead000000ULL, 8, 64, -EFAULT, NULL, 0, false, 0xdead000000ULL },
};

static const struct mem_row struct_rows[] = {
	{ "12 bytes", MEM_BASE + 0x08, 12, 0, 0, "\x88\x77\x66\x55\x44\x33\x22\x11\x34\x12\xcd\xab",
	  12, false, 0 },
	{ "across a page", MEM_BASE + PAGE - 3, 7, 0, 0, "abcdef", 7, false, 0 },
	{ "to the end of the mapping", MEM_BASE + MEM_SIZE - 6, 6, 0, 0, "hello", 6, false, 0 },
	{ "empty struct", MEM_BASE, 0, 0, 0, "", 0, false, 0 },
	{ "past the mapping", MEM_BASE + MEM_SIZE - 4, 12, 0, -EFAULT, NULL, 0, false,
	  MEM_BASE + MEM_SIZE },
	{ "NULL", 0, 16, 0, -EFAULT, NULL, 0, false, 0 },
	{ "bad address", 0xdead000000ULL, 16, 0, -EFAULT, NULL, 0, false, 0xdead000000ULL },
};

/* Run "IMM addr" typed KIND over ROWS, into a '#'-filled buffer of the program's buflen. */
static void check_mem_rows(uint8_t kind, const struct mem_row *rows, size_t n)
{
	static char sbuf[FETCH_MAX_BLOB + 16];

	for (size_t i = 0; i < n; i++) {
		const struct mem_row *row = &rows[i];
		struct fetch_prog prog = { .type = { .kind = kind, .len = row->len } };
		struct fetch_val val;
		size_t blen;

		cr_assert(eq(int, fetch_prog__emit(&prog, FETCH_OP_IMM, 0, 0, (int64_t)row->addr),
			     0));
		blen = fetch_prog__buflen(&prog, row->strmax);
		memset(sbuf, '#', sizeof(sbuf));
		fm.crossed_page = false;
		cr_expect(eq(int, fetch_prog__run(&prog, &ctx, &val, sbuf, row->strmax), 0), "%s",
			  row->what);
		cr_expect(eq(int, val.err, row->err), "%s: err %d", row->what, val.err);
		cr_expect(eq(u64, val.addr, row->err ? row->fault : row->addr), "%s: addr 0x%llx",
			  row->what, (unsigned long long)val.addr);
		cr_expect_not(fm.crossed_page, "%s: a read crossed a page", row->what);
		cr_expect(eq(int, sbuf[blen], '#'), "%s: wrote past the buffer", row->what);
		if (row->err)
			continue;
		cr_expect(eq(ptr, val.str, sbuf), "%s", row->what);
		cr_expect(eq(sz, val.len, row->nbytes), "%s: len %zu", row->what, val.len);
		cr_expect(eq(mem, ((struct cr_mem){ val.str, row->nbytes }),
			     ((struct cr_mem){ row->bytes, row->nbytes })), "%s", row->what);
		cr_expect(eq(int, val.truncated, row->truncated), "%s", row->what);
	}
}

Test(fetch, reads_char_arrays, .init = setup)
{
	puts_at(MEM_SIZE - 4, "wxyz", 4);
	check_mem_rows(FT_CHARS, chars_rows, ARRAY_SIZE(chars_rows));
}

Test(fetch, reads_structs, .init = setup)
{
	check_mem_rows(FT_STRUCT, struct_rows, ARRAY_SIZE(struct_rows));
}

Test(fetch, reads_at_most_a_blob_of_a_struct, .init = setup)
{
	struct fetch_prog prog = { .type = { .kind = FT_STRUCT, .len = 10000 } };
	static char sbuf[FETCH_MAX_BLOB + 1];
	struct fetch_val val;

	cr_assert(eq(int, fetch_prog__emit(&prog, FETCH_OP_IMM, 0, 0, (int64_t)MEM_BASE), 0));
	cr_expect(eq(sz, fetch_prog__buflen(&prog, 256), FETCH_MAX_BLOB));
	sbuf[FETCH_MAX_BLOB] = '#';
	cr_assert(eq(int, fetch_prog__run(&prog, &ctx, &val, sbuf, 256), 0));
	cr_expect(eq(int, val.err, 0));
	cr_expect(eq(sz, val.len, FETCH_MAX_BLOB));
	cr_expect(eq(mem, ((struct cr_mem){ sbuf, FETCH_MAX_BLOB }),
		     ((struct cr_mem){ fm.bytes, FETCH_MAX_BLOB })));
	cr_expect(eq(int, sbuf[FETCH_MAX_BLOB], '#'));
}

Test(fetch, struct_and_chars_without_a_buffer_are_malformed, .init = setup)
{
	struct fetch_prog prog = { .type = { .kind = FT_STRUCT, .len = 8 } };
	struct fetch_val val;

	cr_assert(eq(int, fetch_prog__emit(&prog, FETCH_OP_IMM, 0, 0, (int64_t)MEM_BASE), 0));
	cr_expect(eq(int, fetch_prog__run(&prog, &ctx, &val, NULL, 64), -EINVAL));
	cr_expect(eq(int, val.err, -EINVAL));
	prog.type.kind = FT_CHARS;
	cr_expect(eq(int, fetch_prog__run(&prog, &ctx, &val, NULL, 64), -EINVAL));
	cr_expect(eq(int, val.err, -EINVAL));
}

/* ---- pieces --------------------------------------------------------------- */

#define PIECE_REG(size, off)	OP(PIECE, (size), 0, (off))
#define PIECE_MEM(size, off)	OP(PIECE, (size), 1, (off))

/* A composite program of OPS typed T. */
static struct fetch_prog composite(const struct fetch_op *ops, size_t n, struct fetch_type t)
{
	struct fetch_prog prog = { .composite = true, .type = t };

	for (size_t i = 0; i < n; i++)
		cr_assert(eq(int, fetch_prog__emit(&prog, ops[i].op, ops[i].size, ops[i].reg,
						   ops[i].imm), 0));
	return prog;
}

Test(fetch, pieces_assemble_a_scalar, .init = setup)
{
	/* rax's low 4 bytes, then the 4 bytes at base+0x10 (0xabcd1234) */
	static const struct fetch_op ops[] = {
		OP(REG, 0, 0, 0), PIECE_REG(4, 0),
		OP(REG, 0, 4, 0), OP(ADD_IMM, 0, 0, 0x10), PIECE_MEM(4, 4),
	};
	struct fetch_prog prog = composite(ops, ARRAY_SIZE(ops),
					   (struct fetch_type){ .kind = FT_UNSIGNED, .size = 8 });
	struct fetch_val val;
	char sbuf[16];

	regs[0] = 0x9999999911223344ULL;
	cr_expect(eq(sz, fetch_prog__buflen(&prog, 256), 8));
	memset(sbuf, '#', sizeof(sbuf));
	cr_assert(eq(int, fetch_prog__run(&prog, &ctx, &val, sbuf, 256), 0));
	cr_expect(eq(int, val.err, 0));
	cr_expect(eq(u64, val.u, 0xabcd123411223344ULL), "0x%llx", (unsigned long long)val.u);
	cr_expect(eq(int, sbuf[8], '#'));

	/* The same bytes as an s16: the little-endian 2 bytes at 0. */
	prog.type = (struct fetch_type){ .kind = FT_SIGNED, .size = 2 };
	cr_assert(eq(int, fetch_prog__run(&prog, &ctx, &val, sbuf, 256), 0));
	cr_expect(eq(u64, val.u, 0x3344));
}

Test(fetch, pieces_assemble_a_struct, .init = setup)
{
	/* struct { long a; int b; }: a in rdi, b in memory at base+0x10 */
	static const struct fetch_op ops[] = {
		OP(REG, 0, 5, 0), PIECE_REG(8, 0),
		OP(REG, 0, 4, 0), OP(ADD_IMM, 0, 0, 0x10), PIECE_MEM(4, 8),
		OP(IMM, 0, 0, 77),	/* left on the stack: ignored */
	};
	static const char want[12] = "\x2a\0\0\0\0\0\0\0\x34\x12\xcd\xab";
	struct fetch_prog prog = composite(ops, ARRAY_SIZE(ops),
					   (struct fetch_type){ .kind = FT_STRUCT, .len = 12 });
	struct fetch_val val;
	char sbuf[32];

	cr_expect(eq(sz, fetch_prog__buflen(&prog, 256), 12));
	memset(sbuf, '#', sizeof(sbuf));
	cr_assert(eq(int, fetch_prog__run(&prog, &ctx, &val, sbuf, 256), 0));
	cr_expect(eq(int, val.err, 0));
	cr_expect(eq(ptr, val.str, sbuf));
	cr_expect(eq(sz, val.len, 12));
	cr_expect(eq(mem, ((struct cr_mem){ sbuf, 12 }), ((struct cr_mem){ want, 12 })));
	cr_expect(eq(int, sbuf[12], '#'));
}

Test(fetch, pieces_leave_gaps_zero_and_bytes_past_them_out, .init = setup)
{
	/* 16-byte struct, pieces at [0,2) and [8,12): [2,8) is zero, [12,16) not fetched */
	static const struct fetch_op ops[] = {
		OP(IMM, 0, 0, 0x7788), PIECE_REG(2, 0),
		OP(IMM, 0, 0, 0x11223344), PIECE_REG(4, 8),
	};
	static const char want[12] = "\x88\x77\0\0\0\0\0\0\x44\x33\x22\x11";
	struct fetch_prog prog = composite(ops, ARRAY_SIZE(ops),
					   (struct fetch_type){ .kind = FT_STRUCT, .len = 16 });
	struct fetch_val val;
	char sbuf[32];

	cr_expect(eq(sz, fetch_prog__buflen(&prog, 256), 16));
	memset(sbuf, '#', sizeof(sbuf));
	cr_assert(eq(int, fetch_prog__run(&prog, &ctx, &val, sbuf, 256), 0));
	cr_expect(eq(int, val.err, 0));
	cr_expect(eq(sz, val.len, 12));
	cr_expect(eq(mem, ((struct cr_mem){ sbuf, 12 }), ((struct cr_mem){ want, 12 })));
}

Test(fetch, pieces_assemble_a_char_array, .init = setup)
{
	static const struct fetch_op ops[] = {
		OP(IMM, 0, 0, 0x64636261), PIECE_REG(4, 0),	/* "abcd" */
		OP(IMM, 0, 0, 0x6665), PIECE_REG(2, 4),		/* "ef" */
	};
	struct fetch_prog prog = composite(ops, ARRAY_SIZE(ops),
					   (struct fetch_type){ .kind = FT_CHARS, .len = 6 });
	struct fetch_val val;
	char sbuf[64];

	cr_expect(eq(sz, fetch_prog__buflen(&prog, 64), 64));
	cr_assert(eq(int, fetch_prog__run(&prog, &ctx, &val, sbuf, 64), 0));
	cr_expect(eq(int, val.err, 0));
	cr_expect(eq(sz, val.len, 6));
	cr_expect(eq(mem, ((struct cr_mem){ val.str, 6 }), ((struct cr_mem){ "abcdef", 6 })));
	cr_expect(eq(int, val.truncated, false));
	/* strmax 3: the first 3, truncated */
	cr_assert(eq(int, fetch_prog__run(&prog, &ctx, &val, sbuf, 3), 0));
	cr_expect(eq(sz, val.len, 3));
	cr_expect(eq(mem, ((struct cr_mem){ val.str, 3 }), ((struct cr_mem){ "abc", 3 })));
	cr_expect(eq(int, val.truncated, true));
	cr_expect(eq(u64, val.full_len, 6),
		  "the whole array: %llu", (unsigned long long)val.full_len);
	cr_expect(eq(int, val.full_len_min, false));
}

Test(fetch, faulting_memory_piece, .init = setup)
{
	static const struct fetch_op ops[] = {
		OP(REG, 0, 5, 0), PIECE_REG(8, 0),
		OP(IMM, 0, 0, 0xdead000000LL), PIECE_MEM(4, 8),
	};
	struct fetch_prog prog = composite(ops, ARRAY_SIZE(ops),
					   (struct fetch_type){ .kind = FT_STRUCT, .len = 12 });
	struct fetch_val val;
	char sbuf[16];

	cr_assert(eq(int, fetch_prog__run(&prog, &ctx, &val, sbuf, 256), 0));
	cr_expect(eq(int, val.err, -EFAULT));
	cr_expect(eq(u64, val.addr, 0xdead000000ULL));
	/* A piece running off the mapping faults at its address too. */
	prog.ops[2].imm = (int64_t)(MEM_BASE + MEM_SIZE - 2);
	fm.short_reads = true;
	cr_assert(eq(int, fetch_prog__run(&prog, &ctx, &val, sbuf, 256), 0));
	cr_expect(eq(int, val.err, -EFAULT));
	cr_expect(eq(u64, val.addr, MEM_BASE + MEM_SIZE - 2));
}

Test(fetch, malformed_pieces, .init = setup)
{
	static const struct {
		const char *what;
		struct fetch_op piece;
		bool composite;
	} rows[] = {
		{ "not composite", PIECE_REG(4, 0), false },
		{ "size 0", PIECE_REG(0, 0), true },
		{ "size 9", PIECE_REG(9, 0), true },
		{ "reg 2", OP(PIECE, 4, 2, 0), true },
		{ "negative offset", PIECE_REG(4, -1), true },
		{ "past the largest value", PIECE_REG(4, FETCH_MAX_BLOB - 3), true },
	};
	char sbuf[FETCH_MAX_BLOB + 8];

	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		struct fetch_prog prog = { .composite = rows[i].composite };
		struct fetch_val val;

		fetch_prog__emit(&prog, FETCH_OP_IMM, 0, 0, 1);
		fetch_prog__emit(&prog, rows[i].piece.op, rows[i].piece.size, rows[i].piece.reg,
				 rows[i].piece.imm);
		fetch_prog__emit(&prog, FETCH_OP_IMM, 0, 0, 1);
		cr_expect(eq(int, fetch_prog__run(&prog, &ctx, &val, sbuf, 64), -EINVAL), "%s",
			  rows[i].what);
		cr_expect(eq(int, val.err, -EINVAL), "%s", rows[i].what);
	}
}

Test(fetch, malformed_composites, .init = setup)
{
	static const struct fetch_op empty[] = { PIECE_REG(4, 0) };
	static const struct fetch_op last_fits[] = {
		OP(IMM, 0, 0, 0x5a), PIECE_REG(4, FETCH_MAX_BLOB - 4),
	};
	struct fetch_prog prog = composite(empty, 1, (struct fetch_type){ .kind = FT_UNSIGNED,
									    .size = 4 });
	static char sbuf[FETCH_MAX_BLOB];
	struct fetch_val val;

	/* PIECE pops: nothing to pop */
	cr_expect(eq(int, fetch_prog__run(&prog, &ctx, &val, sbuf, 64), -EINVAL));
	/* no buffer */
	prog = composite(last_fits, 2, (struct fetch_type){ .kind = FT_UNSIGNED, .size = 4 });
	cr_expect(eq(int, fetch_prog__run(&prog, &ctx, &val, NULL, 64), -EINVAL));
	cr_expect(eq(int, val.err, -EINVAL));
	/* a piece ending at FETCH_MAX_BLOB is fine; the value at 0 is zero */
	cr_expect(eq(sz, fetch_prog__buflen(&prog, 64), FETCH_MAX_BLOB));
	cr_expect(eq(int, fetch_prog__run(&prog, &ctx, &val, sbuf, 64), 0));
	cr_expect(eq(int, val.err, 0));
	cr_expect(eq(u64, val.u, 0));
	cr_expect(eq(int, sbuf[FETCH_MAX_BLOB - 4], 0x5a));
}

Test(fetch, buflen)
{
	struct fetch_prog prog = { .nops = 0 };

	prog.type = (struct fetch_type){ .kind = FT_STRING, .size = 8 };
	cr_expect(eq(sz, fetch_prog__buflen(&prog, 300), 300));
	prog.type = (struct fetch_type){ .kind = FT_CHARS, .len = 4 };
	cr_expect(eq(sz, fetch_prog__buflen(&prog, 300), 300));
	prog.type = (struct fetch_type){ .kind = FT_STRUCT, .len = 24 };
	cr_expect(eq(sz, fetch_prog__buflen(&prog, 300), 24));
	prog.type = (struct fetch_type){ .kind = FT_STRUCT, .len = 100000 };
	cr_expect(eq(sz, fetch_prog__buflen(&prog, 300), FETCH_MAX_BLOB));
	prog.type = (struct fetch_type){ .kind = FT_UNSIGNED, .size = 4 };
	cr_expect(eq(sz, fetch_prog__buflen(&prog, 300), 8));
	/* composites: the pieces' extent (at least what the type needs) */
	prog.composite = true;
	fetch_prog__emit(&prog, FETCH_OP_PIECE, 8, 0, 16);
	fetch_prog__emit(&prog, FETCH_OP_PIECE, 4, 1, 4);
	cr_expect(eq(sz, fetch_prog__buflen(&prog, 300), 24));
	prog.type = (struct fetch_type){ .kind = FT_STRUCT, .len = 32 };
	cr_expect(eq(sz, fetch_prog__buflen(&prog, 300), 32));
	prog.type = (struct fetch_type){ .kind = FT_STRING, .size = 8 };
	cr_expect(eq(sz, fetch_prog__buflen(&prog, 16), 24));
}

Test(fetch_type, names_dwarf_kinds)
{
	static const struct {
		struct fetch_type t;
		const char *name;
	} rows[] = {
		{ { .kind = FT_BOOL, .size = 1 }, "bool" },
		{ { .kind = FT_FLOAT, .size = 4 }, "float" },
		{ { .kind = FT_FLOAT, .size = 8 }, "double" },
		{ { .kind = FT_ENUM, .size = 4 }, "enum" },
		{ { .kind = FT_CHARS, .len = 16 }, "char[16]" },
		{ { .kind = FT_STRUCT, .len = 16 }, "struct" },
		{ { .kind = FT_OPAQUE, .len = 16 }, "opaque" },
		{ { .kind = FT_BITFIELD, .size = 4, .bits = 3, .bit_off = 2, .flags = FTF_SIGNED },
		  "signed b3@2/32" },
	};
	char buf[32];

	for (size_t i = 0; i < ARRAY_SIZE(rows); i++)
		cr_expect_str_eq(fetch_type__name(&rows[i].t, buf, sizeof(buf)), rows[i].name);
}

/* ---- strings of known length (FT_STRN) -------------------------------------- */

/* A struct { uint64_t len; const char *p; } at base+0x300 (pointer second, as a
 * layout may have it): LEN bytes of "abcdefghij" at base+0xa0. */
static void put_strn(uint64_t len, uint64_t p)
{
	put64(0x300, len);
	put64(0x308, p);
}

static const struct fetch_type strn_type = { .kind = FT_STRN, .size = 8, .ptr_off = 8,
					      .len_off = 0 };

static const struct {
	const char *what;
	uint64_t len, p;
	size_t strmax;
	int err;
	const char *want;	/* its bytes */
	bool truncated;
	uint64_t full_len;
	uint64_t addr;		/* val.addr */
} strn_rows[] = {
	{ "within the limit, no NUL looked for", 4, MEM_BASE + 0xa0, 64, 0, "abcd", false, 0,
	  MEM_BASE + 0xa0 },
	{ "NULs are bytes of it", 12, MEM_BASE + 0xa0, 64, 0, "abcdefghij\0Z", false, 0,
	  MEM_BASE + 0xa0 },
	{ "longer than the limit: its length", 10, MEM_BASE + 0xa0, 3, 0, "abc", true, 10,
	  MEM_BASE + 0xa0 },
	{ "empty: nothing read, its pointer may dangle", 0, 0xdead000000ULL, 64, 0, "", false, 0,
	  0xdead000000ULL },
	{ "its bytes unreadable", 4, 0xdead000000ULL, 64, -EFAULT, "", false, 0, 0xdead000000ULL },
	{ "to the end of the mapping", 10, MEM_BASE + MEM_SIZE - 6, 64, -EFAULT, "", false, 0,
	  MEM_BASE + MEM_SIZE },
};

Test(fetch, strn_reads_its_length, .init = setup)
{
	struct fetch_prog prog = { .nops = 1, .ops = { OP(IMM, 0, 0, MEM_BASE + 0x300) },
				   .type = strn_type };

	for (size_t i = 0; i < ARRAY_SIZE(strn_rows); i++) {
		struct fetch_val val;
		char sbuf[64];
		size_t n = strlen(strn_rows[i].want);

		if (i == 1)
			n = 12;
		put_strn(strn_rows[i].len, strn_rows[i].p);
		cr_assert(eq(int, fetch_prog__run(&prog, &ctx, &val, sbuf, strn_rows[i].strmax), 0),
			  "%s", strn_rows[i].what);
		cr_expect(eq(int, val.err, strn_rows[i].err), "%s", strn_rows[i].what);
		cr_expect(eq(u64, val.addr, strn_rows[i].addr), "%s", strn_rows[i].what);
		if (strn_rows[i].err)
			continue;
		cr_expect(eq(sz, val.len, n), "%s", strn_rows[i].what);
		cr_expect(eq(mem, ((struct cr_mem){ val.str, n }),
			     ((struct cr_mem){ strn_rows[i].want, n })), "%s", strn_rows[i].what);
		cr_expect(eq(int, val.truncated, strn_rows[i].truncated), "%s", strn_rows[i].what);
		cr_expect(eq(u64, val.full_len, strn_rows[i].full_len), "%s", strn_rows[i].what);
		cr_expect(eq(int, val.null, false), "%s", strn_rows[i].what);
	}
}

Test(fetch, strn_struct_unreadable, .init = setup)
{
	struct fetch_prog prog = { .nops = 1, .ops = { OP(IMM, 0, 0, 0xdead000000ULL) },
				   .type = strn_type };
	struct fetch_val val;
	char sbuf[64];

	cr_assert(eq(int, fetch_prog__run(&prog, &ctx, &val, sbuf, 64), 0));
	cr_expect(eq(int, val.err, -EFAULT));
	cr_expect(eq(u64, val.addr, 0xdead000000ULL + 8));	/* the pointer, read first */
}

/* Go's and Rust's strings in two registers: the pieces assemble the struct. */
Test(fetch, strn_from_pieces, .init = setup)
{
	const struct fetch_op ops[] = {
		OP(IMM, 0, 0, MEM_BASE + 0x80), PIECE_REG(8, 0),	/* "SELECT 1" */
		OP(IMM, 0, 0, 6), PIECE_REG(8, 8),
	};
	struct fetch_prog prog = composite(ops, ARRAY_SIZE(ops),
					   (struct fetch_type){ .kind = FT_STRN, .size = 8,
								.ptr_off = 0, .len_off = 8 });
	struct fetch_val val;
	char sbuf[64];

	cr_expect(eq(sz, fetch_prog__buflen(&prog, 64), 64));
	cr_assert(eq(int, fetch_prog__run(&prog, &ctx, &val, sbuf, 64), 0));
	cr_expect(eq(int, val.err, 0));
	cr_expect(eq(sz, val.len, 6));
	cr_expect(eq(mem, ((struct cr_mem){ val.str, 6 }), ((struct cr_mem){ "SELECT", 6 })));
	cr_expect(eq(int, val.truncated, false));
	/* a length word outside the pieces: a malformed program */
	prog.type.len_off = 16;
	cr_expect(eq(int, fetch_prog__run(&prog, &ctx, &val, sbuf, 64), -EINVAL));
	cr_expect(eq(int, val.err, -EINVAL));
}

/* A slice { s32 *p; u64 count } at base+0x300, its elements at base+0x400. */
Test(fetch, slice_reads_its_elements, .init = setup)
{
	struct fetch_prog prog = { .nops = 1, .ops = { OP(IMM, 0, 0, MEM_BASE + 0x300) },
				   .type = { .kind = FT_SLICE, .size = 4, .len = 3, .ptr_off = 0,
					     .len_off = 8 } };
	struct fetch_val val;
	char sbuf[64];

	for (uint32_t i = 0; i < 5; i++)
		put32(0x400 + 4 * i, 100 + i);
	put64(0x300, MEM_BASE + 0x400);
	put64(0x308, 2);
	cr_expect(eq(sz, fetch_prog__buflen(&prog, 64), 12));
	cr_assert(eq(int, fetch_prog__run(&prog, &ctx, &val, sbuf, 64), 0));
	cr_expect(eq(int, val.err, 0));
	cr_expect(eq(sz, val.len, 8));
	cr_expect(eq(u32, *(uint32_t *)(sbuf + 4), 101));
	cr_expect(eq(int, val.truncated, false));
	/* five: the first three, and the count */
	put64(0x308, 5);
	cr_assert(eq(int, fetch_prog__run(&prog, &ctx, &val, sbuf, 64), 0));
	cr_expect(eq(sz, val.len, 12));
	cr_expect(eq(int, val.truncated, true));
	cr_expect(eq(u64, val.full_len, 5));
	/* an end pointer (std::vector): four elements */
	prog.type.flags = FTF_END;
	put64(0x308, MEM_BASE + 0x400 + 16);
	cr_assert(eq(int, fetch_prog__run(&prog, &ctx, &val, sbuf, 64), 0));
	cr_expect(eq(sz, val.len, 12));
	cr_expect(eq(u64, val.full_len, 4));
	/* an end before the start: empty */
	put64(0x308, MEM_BASE);
	cr_assert(eq(int, fetch_prog__run(&prog, &ctx, &val, sbuf, 64), 0));
	cr_expect(eq(sz, val.len, 0));
	cr_expect(eq(int, val.truncated, false));
	/* a huge count from garbage: still at most LEN elements */
	prog.type.flags = 0;
	put64(0x308, ~0ULL);
	cr_assert(eq(int, fetch_prog__run(&prog, &ctx, &val, sbuf, 64), 0));
	cr_expect(eq(sz, val.len, 12));
	cr_expect(eq(u64, val.full_len, ~0ULL));
}
