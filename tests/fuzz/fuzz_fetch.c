/* tests/fuzz/fuzz_fetch.c: the fetch evaluator (probes/fetch.h) running
 * programs made of the input's bytes against a fake memory and register set;
 * and the same program served through a planned batch of reads (as the tracer
 * runs it at a hit), and with strings read as the agent reads them
 * (read_str), which must give the same value.
 *
 * Input: a 12-byte header (type kind, size, bits (FT_STRN, FT_SLICE: its
 * pointer's offset), bit_off (its length's), flags, len (2),
 * composite, blob_off (2), strmax (2)), a count of ops, that many 11-byte ops
 * (op, size, reg, imm (8)); the bytes left fill the fake memory, repeated. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "probes/fetch.h"
#include "tests/fuzz/fuzz.h"

/* Two readable pages with an unreadable one between them. */
#define MEM_BASE	0x10000u
#define MEM_PAGES	3
#define MEM_HOLE	1	/* page index that faults */
#define NREGS		33

static uint8_t mem[MEM_PAGES * 4096];

static ssize_t fake_read(void *priv, uint64_t addr, void *buf, size_t len)
{
	size_t n = 0;

	(void)priv;
	while (n < len) {
		uint64_t a = addr + n;
		uint64_t page = (a - MEM_BASE) / 4096;

		if (a < MEM_BASE || a < addr || page >= MEM_PAGES || page == MEM_HOLE)
			break;
		((uint8_t *)buf)[n++] = mem[a - MEM_BASE];
	}
	return n ? (ssize_t)n : -EFAULT;
}

/* The same reads, served from the batch when it holds them. */
static ssize_t batch_read(void *priv, uint64_t addr, void *buf, size_t len)
{
	ssize_t r = fetch_batch__read(priv, addr, buf, len);

	return r >= 0 ? r : fake_read(NULL, addr, buf, len);
}

/* The agent's way (fetch_ctx's read_str): up to and with the NUL, stopping at a fault. */
static ssize_t str_read(void *priv, uint64_t addr, char *buf, size_t len)
{
	size_t n = 0;

	(void)priv;
	while (n < len && fake_read(NULL, addr + n, buf + n, 1) == 1)
		if (!buf[n++])
			break;
	return (ssize_t)n;
}

static const struct type_enumerator enums[] = { { 0, "ZERO" }, { -1, "NEG" }, { 7, "SEVEN" } };
static const struct type_member members[] = {
	{ "a", 0, { .kind = FT_SIGNED, .size = 4 } },
	{ "b", 4, { .kind = FT_BITFIELD, .size = 4, .bits = 3, .bit_off = 2 } },
	{ "s", 8, { .kind = FT_CHARS, .size = 1, .len = 8 } },
};
static const struct type_desc enum_desc = { "enum e", 3, NULL, enums };
static const struct type_desc struct_desc = { "struct s", 3, members, NULL };

static uint16_t le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static bool same_val(const struct fetch_val *a, const struct fetch_val *b)
{
	if (a->err != b->err || a->addr != b->addr)
		return false;
	if (a->err)
		return true;
	return a->u == b->u && a->len == b->len && a->truncated == b->truncated &&
	       a->null == b->null &&
	       (!a->len || memcmp(a->str, b->str, a->len) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fetch_prog prog = { 0 };
	struct fetch_val val = { 0 }, val2 = { 0 };
	struct fetch_batch_ent ent[4];
	struct fetch_batch batch;
	struct fetch_read rd;
	char area[8192];
	uint64_t regs[NREGS];
	size_t strmax, buflen, nops, i;
	char *buf, *buf2;
	int r, r2;

	if (size < 13)
		return 0;
	prog.type.kind = data[0] % (FT_OPAQUE + 3);	/* past it: FT_STRN, FT_SLICE */
	if (prog.type.kind > FT_OPAQUE)
		prog.type.kind = prog.type.kind == FT_OPAQUE + 1 ? FT_STRN : FT_SLICE;
	prog.type.size = data[1];
	prog.type.bits = data[2];
	prog.type.bit_off = data[3];
	prog.type.ptr_off = data[2] % 64;	/* FT_STRN: its words' offsets */
	prog.type.len_off = data[3] % 64;
	prog.type.flags = data[4];
	prog.type.len = le16(data + 5);
	if (prog.type.kind == FT_ENUM)
		prog.type.desc = &enum_desc;
	if (prog.type.kind == FT_STRUCT)
		prog.type.desc = &struct_desc;
	prog.composite = data[7] & 1;
	prog.blob_off = le16(data + 8);
	strmax = le16(data + 10) % 1024;
	nops = data[12] % (FETCH_MAX_OPS + 1);
	data += 13;
	size -= 13;
	for (i = 0; i < nops && size >= 11; i++, data += 11, size -= 11) {
		int64_t imm;

		memcpy(&imm, data + 3, sizeof(imm));
		fetch_prog__emit(&prog, data[0] % 12, data[1], data[2], imm);
	}
	for (i = 0; i < sizeof(mem); i++)
		mem[i] = size ? data[i % size] : 0;
	/* Registers point here and there in the fake memory, near page ends too. */
	for (i = 0; i < NREGS; i++)
		regs[i] = MEM_BASE + i * 0x17f + (i & 1 ? 0xff8 : 0);

	struct fetch_ctx ctx = { .regs = regs, .nregs = NREGS, .bias = MEM_BASE,
				 .read_mem = fake_read };
	buflen = fetch_prog__buflen(&prog, strmax);
	if (buflen > 1 << 20)
		abort();	/* the buffer a program needs stays bounded */
	/* Exactly BUFLEN bytes, on the heap: ASan sees a write past them. */
	buf = malloc(buflen ? buflen : 1);
	buf2 = malloc(buflen ? buflen : 1);
	if (!buf || !buf2)
		abort();
	r = fetch_prog__run(&prog, &ctx, &val, buf, strmax);
	if (r == 0 && !val.err && val.len > buflen)
		abort();

	/* Planned: the first read made ahead, the program served from it. */
	fetch_batch__init(&batch, ent, 4, area, sizeof(area));
	if (fetch_prog__first_read(&prog, &ctx, &rd, buf2, strmax) == 1 && rd.len > rd.want)
		abort();
	if (fetch_batch__plan(&batch, &prog, &ctx, buf2, strmax) >= 0) {
		for (i = 0; i < batch.n; i++) {
			ssize_t got = fake_read(NULL, ent[i].addr, ent[i].data, ent[i].len);

			ent[i].got = got > 0 ? (size_t)got : 0;
		}
		ctx.read_mem = batch_read;
		ctx.priv = &batch;
		r2 = fetch_prog__run(&prog, &ctx, &val2, buf2, strmax);
		if (r2 != r || !same_val(&val, &val2))
			abort();
	}
	/* Strings read as the agent reads them: the same value */
	ctx.read_mem = fake_read;
	ctx.priv = NULL;
	ctx.read_str = str_read;
	r2 = fetch_prog__run(&prog, &ctx, &val2, buf2, strmax);
	if (r2 != r || !same_val(&val, &val2))
		abort();
	free(buf);
	free(buf2);
	return 0;
}
