/* probes/fetch.c: fetch types and the fetch-program evaluator.  Pure: target
 * memory comes through ctx->read_mem; the evaluator never allocates, so it
 * can run on every hit. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "probes/fetch.h"

#define FETCH_STACK_DEPTH	8
#define FETCH_PAGE_SIZE		4096

/* ---- types --------------------------------------------------------------- */

/* Up to 3 decimal digits [S, E), no leading zero; -1 when not that. */
static int parse_small(const char *s, const char *e)
{
	int v = 0;

	if (s == e || e - s > 3 || (*s == '0' && e - s > 1))
		return -1;
	for (; s < e; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		v = v * 10 + (*s - '0');
	}
	return v;
}

/* bBITS@OFF/SIZE: SIZE is the container in bits (8, 16, 32, 64). */
static int parse_bitfield(const char *s, const char *e, struct fetch_type *t)
{
	const char *at = memchr(s, '@', e - s);
	const char *slash = at ? memchr(at, '/', e - at) : NULL;
	int bits, off, size;

	if (!slash)
		return -EINVAL;
	bits = parse_small(s + 1, at);
	off = parse_small(at + 1, slash);
	size = parse_small(slash + 1, e);
	if (size != 8 && size != 16 && size != 32 && size != 64)
		return -EINVAL;
	if (bits < 1 || off < 0 || bits + off > size)
		return -EINVAL;
	*t = (struct fetch_type){ .kind = FT_BITFIELD, .size = size / 8, .bits = bits,
				  .bit_off = off };
	return 0;
}

int fetch_type__parse(const char *s, size_t len, struct fetch_type *t)
{
	static const struct {
		const char *name;
		uint8_t kind;
	} words[] = {
		{ "string", FT_STRING },
		{ "ustring", FT_USTRING },
		{ "symbol", FT_SYMBOL },
	};
	uint8_t kind;
	int bits;

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		if (strlen(words[i].name) == len && !memcmp(s, words[i].name, len)) {
			*t = (struct fetch_type){ .kind = words[i].kind, .size = 8 };
			return 0;
		}
	}
	if (len < 2)
		return -EINVAL;
	switch (s[0]) {
	case 's':
		kind = FT_SIGNED;
		break;
	case 'u':
		kind = FT_UNSIGNED;
		break;
	case 'x':
		kind = FT_HEX;
		break;
	case 'b':
		return parse_bitfield(s, s + len, t);
	default:
		return -EINVAL;
	}
	bits = parse_small(s + 1, s + len);
	if (bits != 8 && bits != 16 && bits != 32 && bits != 64)
		return -EINVAL;
	*t = (struct fetch_type){ .kind = kind, .size = bits / 8 };
	return 0;
}

const char *fetch_type__name(const struct fetch_type *t, char *buf, size_t len)
{
	unsigned int bits = (t->size ? t->size : 8) * 8;

	switch (t->kind) {
	case FT_SIGNED:
		snprintf(buf, len, "s%u", bits);
		break;
	case FT_UNSIGNED:
		snprintf(buf, len, "u%u", bits);
		break;
	case FT_STRING:
		snprintf(buf, len, "string");
		break;
	case FT_USTRING:
		snprintf(buf, len, "ustring");
		break;
	case FT_SYMBOL:
		snprintf(buf, len, "symbol");
		break;
	case FT_BITFIELD:
		snprintf(buf, len, "b%u@%u/%u", t->bits, t->bit_off, bits);
		break;
	default:	/* FT_HEX, FT_DEFAULT */
		snprintf(buf, len, "x%u", bits);
		break;
	}
	return buf;
}

/* ---- programs ------------------------------------------------------------ */

int fetch_prog__emit(struct fetch_prog *prog, uint8_t op, uint8_t size, uint16_t reg,
		     int64_t imm)
{
	if (prog->nops >= FETCH_MAX_OPS)
		return -E2BIG;
	prog->ops[prog->nops++] = (struct fetch_op){ .op = op, .size = size, .reg = reg,
						     .imm = imm };
	return 0;
}

/* The evaluator's state: the value stack. */
struct fetch_stack {
	uint64_t v[FETCH_STACK_DEPTH];
	int sp;
};

static int push(struct fetch_stack *st, uint64_t v)
{
	if (st->sp == FETCH_STACK_DEPTH)
		return -EINVAL;
	st->v[st->sp++] = v;
	return 0;
}

/* Read SIZE bytes at ADDR, zero-extended; -EFAULT on any short read. */
static int load(const struct fetch_ctx *ctx, uint64_t addr, uint8_t size, uint64_t *out)
{
	union {
		uint8_t u8;
		uint16_t u16;
		uint32_t u32;
		uint64_t u64;
	} b;

	if (!ctx->read_mem || ctx->read_mem(ctx->priv, addr, &b, size) != (ssize_t)size)
		return -EFAULT;
	switch (size) {
	case 1:
		*out = b.u8;
		break;
	case 2:
		*out = b.u16;
		break;
	case 4:
		*out = b.u32;
		break;
	default:
		*out = b.u64;
		break;
	}
	return 0;
}

/* One op.  0; -EINVAL for a malformed op; -EFAULT (VAL->addr set) on a bad load. */
static int run_op(const struct fetch_op *op, const struct fetch_ctx *ctx,
		  struct fetch_stack *st, struct fetch_val *val)
{
	uint64_t *top = st->sp ? &st->v[st->sp - 1] : NULL;
	uint64_t addr;

	switch (op->op) {
	case FETCH_OP_REG:
		if (!ctx->regs || op->reg >= ctx->nregs)
			return -EINVAL;
		return push(st, ctx->regs[op->reg]);
	case FETCH_OP_IMM:
		return push(st, (uint64_t)op->imm);
	case FETCH_OP_ADDR:
		return push(st, (uint64_t)op->imm + ctx->bias);
	case FETCH_OP_ADD_IMM:
		if (!top)
			return -EINVAL;
		*top += (uint64_t)op->imm;
		return 0;
	case FETCH_OP_DEREF:
		if (!top || (op->size != 1 && op->size != 2 && op->size != 4 && op->size != 8))
			return -EINVAL;
		addr = *top + (uint64_t)op->imm;
		if (load(ctx, addr, op->size, top)) {
			val->addr = addr;
			return -EFAULT;
		}
		return 0;
	case FETCH_OP_ADD:
		if (st->sp < 2)
			return -EINVAL;
		st->sp--;
		st->v[st->sp - 1] += st->v[st->sp];
		return 0;
	}
	return -EINVAL;
}

/*
 * The C string at ADDR into BUF (at most MAX bytes).  Reads go page by page,
 * so a string that ends just before an unmapped page is still read: one read
 * across the boundary would fail as a whole.
 */
static void fetch_string(const struct fetch_ctx *ctx, uint64_t addr, char *buf, size_t max,
			 struct fetch_val *val)
{
	size_t got = 0;

	val->addr = addr;
	val->str = buf;
	if (!addr || !ctx->read_mem) {
		val->err = -EFAULT;
		return;
	}
	while (got < max) {
		uint64_t cur = addr + got;
		size_t chunk = FETCH_PAGE_SIZE - (cur % FETCH_PAGE_SIZE);
		ssize_t n;
		char *nul;

		if (chunk > max - got)
			chunk = max - got;
		n = ctx->read_mem(ctx->priv, cur, buf + got, chunk);
		nul = n > 0 ? memchr(buf + got, '\0', n) : NULL;
		if (nul) {
			val->len = nul - buf;
			return;
		}
		if (n < (ssize_t)chunk) {
			/* Unreadable before a NUL: report where it stopped. */
			val->err = -EFAULT;
			val->addr = cur + (n > 0 ? n : 0);
			val->len = 0;
			return;
		}
		got += chunk;
	}
	val->len = got;
	val->truncated = true;
}

/* Integers: truncate to the type's size; bitfields: extract their bits. */
static uint64_t fetch_int(const struct fetch_type *t, uint64_t v)
{
	unsigned int size = t->size ? t->size : 8;

	if (size < 8)
		v &= (1ULL << (size * 8)) - 1;
	if (t->kind == FT_BITFIELD) {
		v = t->bit_off < 64 ? v >> t->bit_off : 0;
		if (t->bits < 64)
			v &= (1ULL << t->bits) - 1;
	}
	return v;
}

int fetch_prog__run(const struct fetch_prog *prog, const struct fetch_ctx *ctx,
		    struct fetch_val *val, char *strbuf, size_t strmax)
{
	struct fetch_stack st = { .sp = 0 };
	uint64_t top;
	int ret;

	memset(val, 0, sizeof(*val));
	if (prog->nops > FETCH_MAX_OPS)
		goto bad;
	for (unsigned int i = 0; i < prog->nops; i++) {
		ret = run_op(&prog->ops[i], ctx, &st, val);
		if (ret == -EFAULT) {
			val->err = ret;
			return 0;
		}
		if (ret)
			goto bad;
	}
	if (!st.sp)
		goto bad;
	top = st.v[st.sp - 1];
	if (prog->type.kind == FT_STRING || prog->type.kind == FT_USTRING) {
		if (strmax && !strbuf)
			goto bad;
		fetch_string(ctx, top, strbuf, strmax, val);
		return 0;
	}
	val->u = fetch_int(&prog->type, top);
	return 0;
bad:
	memset(val, 0, sizeof(*val));
	val->err = -EINVAL;
	return -EINVAL;
}
