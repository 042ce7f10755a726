/* tests/unit/test_fetch.c: fetch types and the fetch-program evaluator,
 * against a fake register set and a fake memory. */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "probes/fetch.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* ---- types --------------------------------------------------------------- */

static const struct {
	const char *in;
	struct fetch_type t;
} good_types[] = {
	{ "s8", { FT_SIGNED, 1, 0, 0 } },	{ "s16", { FT_SIGNED, 2, 0, 0 } },
	{ "s32", { FT_SIGNED, 4, 0, 0 } },	{ "s64", { FT_SIGNED, 8, 0, 0 } },
	{ "u8", { FT_UNSIGNED, 1, 0, 0 } },	{ "u16", { FT_UNSIGNED, 2, 0, 0 } },
	{ "u32", { FT_UNSIGNED, 4, 0, 0 } },	{ "u64", { FT_UNSIGNED, 8, 0, 0 } },
	{ "x8", { FT_HEX, 1, 0, 0 } },		{ "x16", { FT_HEX, 2, 0, 0 } },
	{ "x32", { FT_HEX, 4, 0, 0 } },		{ "x64", { FT_HEX, 8, 0, 0 } },
	{ "string", { FT_STRING, 8, 0, 0 } },	{ "ustring", { FT_USTRING, 8, 0, 0 } },
	{ "symbol", { FT_SYMBOL, 8, 0, 0 } },
	{ "b4@3/32", { FT_BITFIELD, 4, 4, 3 } },
	{ "b1@0/8", { FT_BITFIELD, 1, 1, 0 } },
	{ "b8@0/8", { FT_BITFIELD, 1, 8, 0 } },
	{ "b1@63/64", { FT_BITFIELD, 8, 1, 63 } },
	{ "b64@0/64", { FT_BITFIELD, 8, 64, 0 } },
	{ "b12@4/16", { FT_BITFIELD, 2, 12, 4 } },
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
		cr_assert_eq(fetch_type__parse(good_types[i].in, strlen(good_types[i].in), &t), 0,
			     "%s", good_types[i].in);
		cr_expect_eq(t.kind, good_types[i].t.kind, "%s", good_types[i].in);
		cr_expect_eq(t.size, good_types[i].t.size, "%s", good_types[i].in);
		cr_expect_eq(t.bits, good_types[i].t.bits, "%s", good_types[i].in);
		cr_expect_eq(t.bit_off, good_types[i].t.bit_off, "%s", good_types[i].in);
		cr_expect_str_eq(fetch_type__name(&t, name, sizeof(name)), good_types[i].in);
	}
}

Test(fetch_type, rejects_bad_types)
{
	for (size_t i = 0; i < ARRAY_SIZE(bad_types); i++) {
		struct fetch_type t = { 0 };

		cr_expect_eq(fetch_type__parse(bad_types[i], strlen(bad_types[i]), &t), -EINVAL,
			     "'%s'", bad_types[i]);
	}
}

Test(fetch_type, respects_len_and_names_default)
{
	struct fetch_type t;
	char name[16];

	cr_assert_eq(fetch_type__parse("u32:junk", 3, &t), 0);
	cr_expect_eq(t.kind, FT_UNSIGNED);
	cr_expect_eq(t.size, 4);
	cr_expect_eq(fetch_type__parse("string", 3, &t), -EINVAL);
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
};

static struct fake_mem fm;
static uint64_t regs[17];

static ssize_t fake_read(void *priv, uint64_t addr, void *buf, size_t len)
{
	struct fake_mem *m = priv;

	m->nreads++;
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

static int run_row(const struct prog_row *row, struct fetch_val *val, char *sbuf, size_t smax)
{
	struct fetch_prog prog = { .type = row->type };

	for (int i = 0; i < MAX_TEST_OPS && row->ops[i].op; i++)
		cr_assert_eq(fetch_prog__emit(&prog, row->ops[i].op, row->ops[i].size,
					      row->ops[i].reg, row->ops[i].imm), 0);
	return fetch_prog__run(&prog, &ctx, val, sbuf, smax);
}

#define T_U16	{ FT_UNSIGNED, 2, 0, 0 }
#define T_S8	{ FT_SIGNED, 1, 0, 0 }

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
	{ "x32", { OP(IMM, 0, 0, -1) }, { FT_HEX, 4, 0, 0 }, 0, 0, 0xffffffff, 0 },
	{ "bitfield b4@8/32", { OP(REG, 0, 4, 0), OP(DEREF, 4, 0, 0x10) },
	  { FT_BITFIELD, 4, 4, 8 }, 0, 0, 0x2, 0 },
	{ "bitfield b8@24/32", { OP(REG, 0, 4, 0), OP(DEREF, 4, 0, 0x10) },
	  { FT_BITFIELD, 4, 8, 24 }, 0, 0, 0xab, 0 },
	{ "bitfield b3@0/8", { OP(IMM, 0, 0, 0x1fe) }, { FT_BITFIELD, 1, 3, 0 }, 0, 0, 6, 0 },
	{ "bitfield b1@63/64", { OP(IMM, 0, 0, INT64_MIN) }, { FT_BITFIELD, 8, 1, 63 }, 0, 0,
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

Test(fetch, runs_programs, .init = setup)
{
	for (size_t i = 0; i < ARRAY_SIZE(int_rows); i++) {
		const struct prog_row *row = &int_rows[i];
		struct fetch_val val;

		memset(&val, 0xcc, sizeof(val));
		cr_expect_eq(run_row(row, &val, NULL, 0), row->ret, "%s", row->what);
		cr_expect_eq(val.err, row->err, "%s: err %d", row->what, val.err);
		if (!row->err)
			cr_expect_eq(val.u, row->u, "%s: 0x%llx, want 0x%llx", row->what,
				     (unsigned long long)val.u, (unsigned long long)row->u);
		else
			cr_expect_eq(val.addr, row->addr, "%s: addr 0x%llx, want 0x%llx",
				     row->what, (unsigned long long)val.addr,
				     (unsigned long long)row->addr);
		cr_expect_eq(val.str, NULL, "%s", row->what);
		cr_expect_not(val.truncated, "%s", row->what);
	}
}

Test(fetch, short_read_and_any_negative_return_is_a_fault, .init = setup)
{
	static const struct prog_row row = {
		"across the end", { OP(IMM, 0, 0, MEM_BASE + MEM_SIZE - 4), OP(DEREF, 8, 0, 0) },
		{0}, 0, -EFAULT, 0, 0,
	};
	struct fetch_val val;

	fm.short_reads = true;		/* returns 4 of 8 bytes */
	cr_assert_eq(run_row(&row, &val, NULL, 0), 0);
	cr_expect_eq(val.err, -EFAULT);
	cr_expect_eq(val.addr, MEM_BASE + MEM_SIZE - 4);
	fm.short_reads = false;
	fm.fail_ret = -EIO;		/* not -EFAULT: still a fault of the value */
	cr_assert_eq(run_row(&row, &val, NULL, 0), 0);
	cr_expect_eq(val.err, -EFAULT);
	cr_expect_eq(val.addr, MEM_BASE + MEM_SIZE - 4);
}

Test(fetch, emit_is_bounded)
{
	struct fetch_prog prog = { .nops = 0 };

	for (int i = 0; i < FETCH_MAX_OPS; i++)
		cr_assert_eq(fetch_prog__emit(&prog, FETCH_OP_IMM, 0, 0, i), 0);
	cr_expect_eq(fetch_prog__emit(&prog, FETCH_OP_IMM, 0, 0, 99), -E2BIG);
	cr_expect_eq(prog.nops, FETCH_MAX_OPS);
	cr_expect_eq(prog.ops[15].op, FETCH_OP_IMM);
	cr_expect_eq(prog.ops[15].imm, 15);
}

/* ---- strings ------------------------------------------------------------- */

#define T_STR	{ FT_STRING, 8, 0, 0 }

struct str_row {
	const char *what;
	struct fetch_op ops[MAX_TEST_OPS];
	size_t strmax;
	int err;
	const char *str;	/* expected bytes, when err == 0 */
	bool truncated;
	uint64_t addr;
};

static const struct str_row str_rows[] = {
	{ "via pointer", { OP(REG, 0, 4, 0), OP(DEREF, 8, 0, 0x28) }, 64, 0, "SELECT 1", false,
	  MEM_BASE + 0x80 },
	{ "address", { OP(IMM, 0, 0, MEM_BASE + 0xa0) }, 64, 0, "abcdefghij", false,
	  MEM_BASE + 0xa0 },
	{ "truncated at strmax", { OP(IMM, 0, 0, MEM_BASE + 0xa0) }, 4, 0, "abcd", true,
	  MEM_BASE + 0xa0 },
	{ "NUL just past strmax", { OP(IMM, 0, 0, MEM_BASE + 0xa0) }, 10, 0, "abcdefghij", true,
	  MEM_BASE + 0xa0 },
	{ "NUL at strmax", { OP(IMM, 0, 0, MEM_BASE + 0xa0) }, 11, 0, "abcdefghij", false,
	  MEM_BASE + 0xa0 },
	{ "empty", { OP(IMM, 0, 0, MEM_BASE + 0xaa) }, 64, 0, "", false, MEM_BASE + 0xaa },
	{ "across a page", { OP(IMM, 0, 0, MEM_BASE + PAGE - 3) }, 256, 0, "abcdef", false,
	  MEM_BASE + PAGE - 3 },
	{ "before an unmapped page", { OP(IMM, 0, 0, MEM_BASE + MEM_SIZE - 6) }, 256, 0, "hello",
	  false, MEM_BASE + MEM_SIZE - 6 },
	{ "NULL", { OP(REG, 0, 4, 0), OP(DEREF, 8, 0, 0x20) }, 64, -EFAULT, NULL, false, 0 },
	{ "bad pointer", { OP(REG, 0, 4, 0), OP(DEREF, 8, 0, 0x18) }, 64, -EFAULT, NULL, false,
	  0xdead000000ULL },
	{ "fault before the pointer", { OP(IMM, 0, 0, 8), OP(DEREF, 8, 0, 0) }, 64, -EFAULT,
	  NULL, false, 8 },
};

Test(fetch, reads_strings, .init = setup)
{
	for (size_t i = 0; i < ARRAY_SIZE(str_rows); i++) {
		const struct str_row *row = &str_rows[i];
		struct prog_row pr = { .what = row->what, .type = T_STR };
		struct fetch_val val;
		char sbuf[300];

		memcpy(pr.ops, row->ops, sizeof(pr.ops));
		memset(sbuf, '#', sizeof(sbuf));
		fm.crossed_page = false;
		cr_expect_eq(run_row(&pr, &val, sbuf, row->strmax), 0, "%s", row->what);
		cr_expect_eq(val.err, row->err, "%s: err %d", row->what, val.err);
		cr_expect_eq(val.addr, row->addr, "%s: addr 0x%llx", row->what,
			     (unsigned long long)val.addr);
		cr_expect_not(fm.crossed_page, "%s: a read crossed a page", row->what);
		if (row->err)
			continue;
		cr_expect_eq(val.str, sbuf, "%s", row->what);
		cr_expect_eq(val.len, strlen(row->str), "%s: len %zu", row->what, val.len);
		cr_expect_eq(memcmp(val.str, row->str, val.len), 0, "%s: '%.*s'", row->what,
			     (int)val.len, val.str);
		cr_expect_eq(val.truncated, row->truncated, "%s", row->what);
		cr_expect_eq(sbuf[row->strmax], '#', "%s: wrote past strmax", row->what);
	}
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
	cr_assert_eq(run_row(&row, &val, sbuf, sizeof(sbuf)), 0);
	cr_expect_eq(val.err, -EFAULT);
	cr_expect_eq(val.addr, MEM_BASE + MEM_SIZE);	/* the first unreadable byte */
	cr_expect_eq(val.len, 0);
	/* One read up to the page end, one that fails: none crosses a page. */
	cr_expect_eq(fm.nreads, 2);
	cr_expect_not(fm.crossed_page);
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
	cr_assert_eq(run_row(&row, &val, sbuf, sizeof(sbuf)), 0);
	cr_expect_eq(val.err, 0);
	cr_expect_eq(val.len, MEM_SIZE - 0x100 - 1);
	cr_expect_not(val.truncated);
	cr_expect_eq(fm.nreads, 2);
	cr_expect_not(fm.crossed_page);
	cr_expect_eq(sbuf[val.len - 1], 'q');
}

Test(fetch, rejects_nops_beyond_the_array, .init = setup)
{
	struct fetch_prog prog = { .nops = FETCH_MAX_OPS + 1 };
	struct fetch_val val;

	prog.ops[0] = (struct fetch_op){ .op = FETCH_OP_IMM, .imm = 1 };
	cr_expect_eq(fetch_prog__run(&prog, &ctx, &val, NULL, 0), -EINVAL);
	cr_expect_eq(val.err, -EINVAL);
}
