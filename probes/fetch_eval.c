/* probes/fetch_eval.c: the fetch-program evaluator.  Pure: target memory
 * comes through ctx->read_mem; it never allocates, so it can run on every
 * hit.  Freestanding: it uses nothing of the C library but memcpy, memset
 * and memmove (which a compiler may call anyway), so that the code that runs
 * a program in the tracer can run it inside a target too (issue 20: one
 * evaluator, two hosts); `make lint` checks it. */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "probes/fetch.h"

#define FETCH_STACK_DEPTH	8

/* A PIECE op's bytes [IMM, IMM + SIZE) lie in the largest composite value. */
static bool piece_ok(const struct fetch_op *op)
{
	return op->size >= 1 && op->size <= 8 && op->reg <= 1 && op->imm >= 0 &&
	       op->imm <= FETCH_MAX_BLOB - op->size;
}

/* The bytes the PIECE ops of PROG fill: the largest IMM + SIZE (well-formed ones). */
static size_t pieces_extent(const struct fetch_prog *prog)
{
	size_t ext = 0;

	for (unsigned int i = 0; i < prog->nops && i < FETCH_MAX_OPS; i++) {
		const struct fetch_op *op = &prog->ops[i];

		if (op->op == FETCH_OP_PIECE && piece_ok(op) && (size_t)op->imm + op->size > ext)
			ext = (size_t)op->imm + op->size;
	}
	return ext;
}

/* The bytes of N elements of slice type T, at most FETCH_MAX_BLOB (whole elements). */
static size_t slice_bytes(const struct fetch_type *t, uint64_t n)
{
	size_t esize = t->size ? t->size : 1, most = FETCH_MAX_BLOB / esize;

	return (size_t)(n < most ? n : most) * esize;
}

/*
 * Composites take the larger of what the type needs and the pieces' extent:
 * a composite string's address is assembled where its bytes then go, and an
 * integer is loaded as 8 bytes however few the pieces filled.
 */
size_t fetch_prog__buflen(const struct fetch_prog *prog, size_t strmax)
{
	const struct fetch_type *t = &prog->type;
	size_t n, ext;

	switch (t->kind) {
	case FT_STRING:
	case FT_USTRING:
	case FT_CHARS:
	case FT_STRN:
		n = strmax;
		break;
	case FT_STRUCT:
		n = t->len < FETCH_MAX_BLOB ? t->len : FETCH_MAX_BLOB;
		break;
	case FT_SLICE:
		n = slice_bytes(t, t->len);
		break;
	default:
		n = 8;
		break;
	}
	if (!prog->composite)
		return n;
	ext = pieces_extent(prog);
	return ext > n ? ext : n;
}

/* The evaluator's state: the value stack, and the buffer composites fill. */
struct eval {
	const struct fetch_ctx *ctx;
	struct fetch_val *val;
	uint64_t v[FETCH_STACK_DEPTH];
	int sp;
	char *buf;		/* composite programs: STRBUF; else NULL (PIECE is malformed) */
	size_t extent;		/* the pieces' extent of BUF */
};

static int push(struct eval *ev, uint64_t v)
{
	if (ev->sp == FETCH_STACK_DEPTH)
		return -EINVAL;
	ev->v[ev->sp++] = v;
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

/* A binary ALU op: A OP B into *OUT; -EINVAL for division by zero or an unknown op. */
static int alu2(uint8_t code, uint64_t a, uint64_t b, uint64_t *out)
{
	switch (code) {
	case FETCH_ALU_SUB:
		*out = a - b;
		return 0;
	case FETCH_ALU_MUL:
		*out = a * b;
		return 0;
	case FETCH_ALU_DIV:
		if (!b)
			return -EINVAL;
		/* INT64_MIN / -1 overflows in C; two's complement wraps to INT64_MIN. */
		if (a == (1ULL << 63) && b == ~0ULL)
			*out = a;
		else
			*out = (uint64_t)((int64_t)a / (int64_t)b);
		return 0;
	case FETCH_ALU_MOD:
		if (!b)
			return -EINVAL;
		*out = a % b;
		return 0;
	case FETCH_ALU_AND:
		*out = a & b;
		return 0;
	case FETCH_ALU_OR:
		*out = a | b;
		return 0;
	case FETCH_ALU_XOR:
		*out = a ^ b;
		return 0;
	case FETCH_ALU_SHL:
		*out = b >= 64 ? 0 : a << b;
		return 0;
	case FETCH_ALU_SHR:
		*out = b >= 64 ? 0 : a >> b;
		return 0;
	case FETCH_ALU_SHRA:
		/* Spelled out: >> of a negative signed value is implementation-defined. */
		if (a >> 63)
			*out = b >= 64 ? ~0ULL : ~(~a >> b);
		else
			*out = b >= 64 ? 0 : a >> b;
		return 0;
	}
	return -EINVAL;
}

static int run_alu(struct eval *ev, uint8_t code)
{
	uint64_t *top = ev->sp ? &ev->v[ev->sp - 1] : NULL;

	if (code == FETCH_ALU_NEG || code == FETCH_ALU_NOT) {
		if (!top)
			return -EINVAL;
		*top = code == FETCH_ALU_NEG ? 0 - *top : ~*top;
		return 0;
	}
	if (ev->sp < 2)
		return -EINVAL;
	ev->sp--;
	return alu2(code, ev->v[ev->sp - 1], ev->v[ev->sp], &ev->v[ev->sp - 1]);
}

static int run_stack(struct eval *ev, uint8_t code)
{
	switch (code) {
	case FETCH_STACK_DUP:
		return ev->sp < 1 ? -EINVAL : push(ev, ev->v[ev->sp - 1]);
	case FETCH_STACK_DROP:
		if (ev->sp < 1)
			return -EINVAL;
		ev->sp--;
		return 0;
	case FETCH_STACK_SWAP: {
		uint64_t t;

		if (ev->sp < 2)
			return -EINVAL;
		t = ev->v[ev->sp - 1];
		ev->v[ev->sp - 1] = ev->v[ev->sp - 2];
		ev->v[ev->sp - 2] = t;
		return 0;
	}
	case FETCH_STACK_OVER:
		return ev->sp < 2 ? -EINVAL : push(ev, ev->v[ev->sp - 2]);
	}
	return -EINVAL;
}

/* DW_OP_piece: pop a value; its low bytes (REG 0) or the bytes at it (REG 1) go to the buffer. */
static int run_piece(struct eval *ev, const struct fetch_op *op)
{
	char *dst;
	uint64_t v;

	if (!ev->buf || !ev->sp || !piece_ok(op) || (size_t)op->imm + op->size > ev->extent)
		return -EINVAL;
	v = ev->v[--ev->sp];
	dst = ev->buf + op->imm;
	if (op->reg == 0) {
		for (unsigned int i = 0; i < op->size; i++)
			dst[i] = (char)(v >> (8 * i));
		return 0;
	}
	if (!ev->ctx->read_mem ||
	    ev->ctx->read_mem(ev->ctx->priv, v, dst, op->size) != (ssize_t)op->size) {
		ev->val->addr = v;
		return -EFAULT;
	}
	return 0;
}

/* One op.  0; -EINVAL for a malformed op; -EFAULT (VAL->addr set) on a bad load. */
static int run_op(const struct fetch_op *op, struct eval *ev)
{
	const struct fetch_ctx *ctx = ev->ctx;
	uint64_t *top = ev->sp ? &ev->v[ev->sp - 1] : NULL;
	uint64_t addr;

	switch (op->op) {
	case FETCH_OP_REG:
		if (!ctx->regs || op->reg >= ctx->nregs)
			return -EINVAL;
		return push(ev, ctx->regs[op->reg]);
	case FETCH_OP_IMM:
		return push(ev, (uint64_t)op->imm);
	case FETCH_OP_ADDR:
		return push(ev, (uint64_t)op->imm + ctx->bias);
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
			ev->val->addr = addr;
			return -EFAULT;
		}
		return 0;
	case FETCH_OP_ADD:
		if (ev->sp < 2)
			return -EINVAL;
		ev->sp--;
		ev->v[ev->sp - 1] += ev->v[ev->sp];
		return 0;
	case FETCH_OP_ALU:
		return run_alu(ev, op->size);
	case FETCH_OP_STACK:
		return run_stack(ev, op->size);
	case FETCH_OP_PIECE:
		return run_piece(ev, op);
	}
	return -EINVAL;
}

/*
 * Read up to LIMIT bytes at ADDR, page by page (one read across a page
 * boundary into unmapped memory would fail as a whole) or all at once
 * through read_str when there is one, into BUF, or into a
 * page of scratch when BUF is NULL (only the length is wanted), until the
 * first NUL.  *GOT: the bytes before the NUL, or those read before LIMIT or
 * a fault.  1 with a NUL found, 0 with LIMIT bytes and no NUL, -EFAULT when
 * the memory at ADDR + *GOT is unreadable.
 */
static int scan_nul(const struct fetch_ctx *ctx, uint64_t addr, char *buf, size_t limit,
		    size_t *got)
{
	char page[FETCH_PAGE_SIZE];

	*got = 0;
	if (buf && limit && ctx->read_str) {
		ssize_t n = ctx->read_str(ctx->priv, addr, buf, limit);

		if (n != -ENOSYS) {
			*got = n > 0 ? (size_t)n : 0;
			if (*got > limit)
				*got = limit;
			if (*got && !buf[*got - 1]) {
				--*got;
				return 1;
			}
			return *got < limit ? -EFAULT : 0;
		}
	}
	while (*got < limit) {
		uint64_t cur = addr + *got;
		size_t chunk = FETCH_PAGE_SIZE - (cur % FETCH_PAGE_SIZE);
		char *dst = buf ? buf + *got : page;
		ssize_t n;
		char *nul;

		if (chunk > limit - *got)
			chunk = limit - *got;
		n = cur < addr ? -EFAULT : ctx->read_mem(ctx->priv, cur, dst, chunk);
		nul = n > 0 ? memchr(dst, '\0', (size_t)n) : NULL;
		if (nul) {
			*got += (size_t)(nul - dst);
			return 1;
		}
		if (n < (ssize_t)chunk) {
			*got += n > 0 ? (size_t)n : 0;
			return -EFAULT;
		}
		*got += chunk;
	}
	return 0;
}

/*
 * Up to MAX bytes at ADDR into BUF, stopping at the first NUL.  Reads go
 * page by page, so bytes that end just before an unmapped page are still
 * read: one read across the boundary would fail as a whole.  1 with a NUL
 * found (VAL->len: the bytes before it), 0 with MAX bytes and no NUL, or
 * -EFAULT with VAL->err and VAL->addr (0, or the first unreadable byte).
 */
static int read_cstr(const struct fetch_ctx *ctx, uint64_t addr, char *buf, size_t max,
		     struct fetch_val *val)
{
	size_t got;
	int r;

	val->addr = addr;
	val->str = buf;
	if (!addr || !ctx->read_mem) {
		val->err = -EFAULT;
		return -EFAULT;
	}
	r = scan_nul(ctx, addr, buf, max, &got);
	if (r < 0) {
		/* Unreadable before a NUL: report where it stopped. */
		val->err = -EFAULT;
		val->addr = addr + got;
		val->len = 0;
		return -EFAULT;
	}
	val->len = got;
	return r;
}

/*
 * The length of a string cut at its first MAX bytes (at ADDR - MAX): the
 * next MORE bytes at ADDR are scanned for its NUL through a page of scratch.
 * VAL->full_len is MAX plus the bytes before the NUL; with
 * VAL->full_len_min, MAX plus the bytes scanned when no NUL came within MORE
 * bytes or the memory became unreadable first -- unless WHOLE: MORE bytes
 * without a NUL are all there is (a char array's end).
 */
static void scan_len(const struct fetch_ctx *ctx, uint64_t addr, size_t max, size_t more,
		     bool whole, struct fetch_val *val)
{
	size_t got;
	int r = scan_nul(ctx, addr, NULL, more, &got);

	val->full_len = max + got;
	val->full_len_min = r < 0 || (r == 0 && !whole);
}

/* VAL, scanned, is truncated unless its NUL came right after its bytes. */
static void untruncated(struct fetch_val *val)
{
	val->truncated = val->full_len_min || val->full_len > val->len;
	if (!val->truncated)
		val->full_len = 0;
}

/* N bytes at ADDR into BUF, page by page; a fault is -EFAULT at the first unreadable byte. */
static void read_blob(const struct fetch_ctx *ctx, uint64_t addr, char *buf, size_t n,
		      struct fetch_val *val)
{
	size_t got = 0;

	val->addr = addr;
	val->str = buf;
	if (n && (!addr || !ctx->read_mem)) {
		val->err = -EFAULT;
		return;
	}
	while (got < n) {
		uint64_t cur = addr + got;
		size_t chunk = FETCH_PAGE_SIZE - (cur % FETCH_PAGE_SIZE);
		ssize_t r;

		if (chunk > n - got)
			chunk = n - got;
		r = ctx->read_mem(ctx->priv, cur, buf + got, chunk);
		if (r < (ssize_t)chunk) {
			val->err = -EFAULT;
			val->addr = cur + (r > 0 ? r : 0);
			return;
		}
		got += chunk;
	}
	val->len = n;
}

/* A composite FT_CHARS: the bytes the pieces assembled, read like an array in memory. */
static void chars_from_buf(const struct fetch_type *t, char *buf, size_t extent, size_t strmax,
			   struct fetch_val *val)
{
	size_t n = t->len < strmax ? t->len : strmax;
	char *nul;

	if (n > extent)
		n = extent;
	nul = memchr(buf, '\0', n);
	val->str = buf;
	val->len = nul ? (size_t)(nul - buf) : n;
	val->truncated = !nul && n < t->len;
	if (val->truncated) {	/* its length from the rest of the pieces' bytes */
		size_t end = t->len < extent ? t->len : extent;

		nul = memchr(buf + n, '\0', end - n);
		val->full_len = nul ? (size_t)(nul - buf) : end;
		val->full_len_min = !nul && end < t->len;
	}
}

/*
 * A string of LEN bytes at ADDR (FT_STRN): at most STRMAX of them into BUF,
 * NULs and all; longer, VAL->truncated with its whole length.
 */
static void strn_read(const struct fetch_ctx *ctx, uint64_t addr, uint64_t len, char *buf,
		      size_t strmax, struct fetch_val *val)
{
	size_t n = len < strmax ? (size_t)len : strmax;

	read_blob(ctx, addr, buf, n, val);	/* VAL->addr: ADDR, or where it failed */
	if (val->err)
		return;
	val->len = n;
	val->truncated = len > n;
	val->full_len = val->truncated ? len : 0;
}

/*
 * The elements of a slice of type T at ADDR whose count word (LEN_OFF's)
 * is WORD: as many as T's LEN and FETCH_MAX_BLOB allow, into BUF; more,
 * VAL->truncated with the count.
 */
static void slice_read(const struct fetch_type *t, const struct fetch_ctx *ctx, uint64_t addr,
		       uint64_t word, char *buf, struct fetch_val *val)
{
	uint64_t esize = t->size ? t->size : 1, count = word;
	size_t n;

	if (t->flags & FTF_END)
		count = word >= addr ? (word - addr) / esize : 0;
	n = slice_bytes(t, count < t->len ? count : t->len);
	read_blob(ctx, addr, buf, n, val);	/* VAL->addr: ADDR, or where it failed */
	if (val->err)
		return;
	val->truncated = count > n / esize;
	val->full_len = val->truncated ? count : 0;
}

/* Integers: truncate to the type's size; bitfields: extract their bits; FTF_SIGNED: extend. */
static uint64_t fetch_int(const struct fetch_type *t, uint64_t v)
{
	unsigned int size = t->size ? t->size : 8;
	unsigned int width = 64;

	if (size < 8) {
		v &= (1ULL << (size * 8)) - 1;
		width = size * 8;
	}
	if (t->kind == FT_BITFIELD) {
		v = t->bit_off < 64 ? v >> t->bit_off : 0;
		if (t->bits < 64)
			v &= (1ULL << t->bits) - 1;
		width = t->bits < 64 ? t->bits : 64;
	}
	if ((t->kind == FT_BITFIELD || t->kind == FT_ENUM) && (t->flags & FTF_SIGNED) &&
	    width && width < 64 && (v >> (width - 1)) & 1)
		v |= ~0ULL << width;
	return v;
}

/* The little-endian value of BUF[0..N), N <= 8. */
static uint64_t le_bytes(const char *buf, size_t n)
{
	uint64_t v = 0;

	for (size_t i = 0; i < n && i < 8; i++)
		v |= (uint64_t)(uint8_t)buf[i] << (8 * i);
	return v;
}

/*
 * The planner's state (fetch_prog__first_read()): the first read seen, and
 * the bytes worth reading ahead at it, which the evaluator's tail sets before
 * it reads a string or a struct page by page.
 */
struct first_read {
	struct fetch_read *rd;
	bool seen;
	size_t want;
};

/* The planner's read_mem: note the first read and fail it, so that the program stops there. */
static ssize_t note_read(void *priv, uint64_t addr, void *buf, size_t len)
{
	struct first_read *fr = priv;

	(void)buf;
	if (!fr->seen) {
		fr->seen = true;
		*fr->rd = (struct fetch_read){ .addr = addr, .len = len,
					       .want = fr->want > len ? fr->want : len };
	}
	return -EFAULT;
}

/* fetch_prog__run(); with FR (planning: CTX reads through note_read()), the tail says what
 * it wants to read ahead. */
/*
 * A composite program's value is in the buffer, from its BLOB_OFF: a
 * struct or a char array is the value itself (1, VAL done); otherwise its
 * first bytes are the scalar *TOP (0).  -EINVAL: the pieces end before it.
 */
static int composite_value(const struct fetch_prog *prog, const struct eval *ev,
			   char *strbuf, size_t buflen, size_t strmax, struct fetch_val *val,
			   uint64_t *top)
{
	const struct fetch_type *t = &prog->type;
	size_t off = prog->blob_off < ev->extent ? prog->blob_off : ev->extent;
	size_t extent = ev->extent - off, rest = buflen - off;

	if (prog->blob_off > ev->extent)
		return -EINVAL;
	if (t->kind == FT_STRUCT) {
		val->str = strbuf + off;
		val->len = t->len < extent ? t->len : extent;
		return 1;
	}
	if (t->kind == FT_CHARS) {
		chars_from_buf(t, strbuf + off, extent, strmax, val);
		return 1;
	}
	if (t->kind == FT_STRN || t->kind == FT_SLICE) {	/* both words here; the bytes over them */
		uint64_t addr, word;

		if ((size_t)t->ptr_off + 8 > extent || (size_t)t->len_off + 8 > extent)
			return -EINVAL;
		addr = le_bytes(strbuf + off + t->ptr_off, 8);
		word = le_bytes(strbuf + off + t->len_off, 8);
		if (t->kind == FT_STRN)
			strn_read(ev->ctx, addr, word, strbuf, strmax, val);
		else
			slice_read(t, ev->ctx, addr, word, strbuf, val);
		return 1;
	}
	*top = le_bytes(strbuf + off, rest < 8 ? rest : 8);
	return 0;
}

/* *W: the 8 bytes at ADDR.  0, or -EFAULT with VAL->err and VAL->addr. */
static int word_at(const struct fetch_ctx *ctx, uint64_t addr, uint64_t *w, struct fetch_val *val)
{
	if (ctx->read_mem && ctx->read_mem(ctx->priv, addr, w, 8) == 8)
		return 0;
	val->err = -EFAULT;
	val->addr = addr;
	return -EFAULT;
}

/* The words at T's PTR_OFF and LEN_OFF of the struct at TOP: one read when they are near
 * (a hit's batch then holds both).  0, or -EFAULT with VAL->err and VAL->addr. */
static int words_at(const struct fetch_ctx *ctx, uint64_t top, const struct fetch_type *t,
		    uint64_t *addr, uint64_t *word, struct fetch_val *val)
{
	unsigned int lo = t->ptr_off < t->len_off ? t->ptr_off : t->len_off;
	unsigned int span = (t->ptr_off < t->len_off ? t->len_off : t->ptr_off) - lo + 8;
	char both[64];

	if (span > sizeof(both) || !ctx->read_mem ||
	    ctx->read_mem(ctx->priv, top + lo, both, span) != (ssize_t)span)
		return word_at(ctx, top + t->ptr_off, addr, val) < 0 ? -EFAULT :
		       word_at(ctx, top + t->len_off, word, val);
	memcpy(addr, both + (t->ptr_off - lo), 8);
	memcpy(word, both + (t->len_off - lo), 8);
	return 0;
}

/*
 * VAL from the program's result TOP, as its type T says: the string or
 * bytes TOP points to (into STRBUF, STRMAX at most), or TOP as an integer.
 * 0, or -EINVAL when a string type has no buffer.
 */
static int typed_value(const struct fetch_type *t, const struct fetch_ctx *ctx, uint64_t top,
		       char *strbuf, size_t strmax, struct fetch_val *val, struct first_read *fr)
{
	size_t n;

	switch (t->kind) {
	case FT_STRING:
	case FT_USTRING:
		if (strmax && !strbuf)
			return -EINVAL;
		if (!top) {	/* a NULL char *: printed as NULL, as the program means it */
			val->null = true;
			val->str = strbuf;
			return 0;
		}
		if (fr)
			fr->want = strmax;
		if (read_cstr(ctx, top, strbuf, strmax, val) == 0) {
			scan_len(ctx, top + strmax, strmax, FETCH_STRLEN_SCAN, false, val);
			untruncated(val);
		}
		return 0;
	case FT_CHARS:
		n = t->len < strmax ? t->len : strmax;
		if (n && !strbuf)
			return -EINVAL;
		if (fr)
			fr->want = n;
		if (read_cstr(ctx, top, strbuf, n, val) == 0 && t->len > strmax) {
			size_t more = t->len - n, scan = more < FETCH_STRLEN_SCAN ? more :
							  FETCH_STRLEN_SCAN;

			scan_len(ctx, top + n, n, scan, more <= FETCH_STRLEN_SCAN, val);
			untruncated(val);
		}
		return 0;
	case FT_STRUCT:
		n = t->len < FETCH_MAX_BLOB ? t->len : FETCH_MAX_BLOB;
		if (n && !strbuf)
			return -EINVAL;
		if (fr)
			fr->want = n;
		read_blob(ctx, top, strbuf, n, val);
		return 0;
	case FT_STRN:
	case FT_SLICE: {
		uint64_t addr, word;

		if ((t->kind == FT_STRN ? strmax : slice_bytes(t, t->len)) && !strbuf)
			return -EINVAL;
		if (words_at(ctx, top, t, &addr, &word, val) < 0)
			return 0;
		if (t->kind == FT_SLICE) {
			slice_read(t, ctx, addr, word, strbuf, val);
			return 0;
		}
		if (fr)
			fr->want = word < strmax ? word : strmax;
		strn_read(ctx, addr, word, strbuf, strmax, val);
		return 0;
	}
	}
	val->u = fetch_int(t, top);
	return 0;
}

static int run_prog(const struct fetch_prog *prog, const struct fetch_ctx *ctx,
		    struct fetch_val *val, char *strbuf, size_t strmax, struct first_read *fr)
{
	struct eval ev;		/* its stack, v, is read only below sp: not zeroed */
	size_t buflen = 0;
	uint64_t top = 0;
	int ret;

	ev.ctx = ctx;
	ev.val = val;
	ev.sp = 0;
	ev.buf = NULL;
	ev.extent = 0;
	memset(val, 0, sizeof(*val));
	if (prog->nops > FETCH_MAX_OPS)
		goto bad;
	if (prog->composite) {
		buflen = fetch_prog__buflen(prog, strmax);
		if (!strbuf)
			goto bad;
		ev.buf = strbuf;
		ev.extent = pieces_extent(prog);
		memset(strbuf, 0, buflen);
	}
	for (unsigned int i = 0; i < prog->nops; i++) {
		ret = run_op(&prog->ops[i], &ev);
		if (ret == -EFAULT) {
			val->err = ret;
			return 0;
		}
		if (ret)
			goto bad;
	}
	if (prog->composite) {	/* the stack is left as is */
		ret = composite_value(prog, &ev, strbuf, buflen, strmax, val, &top);
		if (ret < 0)
			goto bad;
		if (ret > 0)
			return 0;
	} else if (ev.sp) {
		top = ev.v[ev.sp - 1];
	} else {
		goto bad;
	}
	if (typed_value(&prog->type, ctx, top, strbuf, strmax, val, fr) == 0)
		return 0;
bad:
	memset(val, 0, sizeof(*val));
	val->err = -EINVAL;
	return -EINVAL;
}

int fetch_prog__run(const struct fetch_prog *prog, const struct fetch_ctx *ctx,
		    struct fetch_val *val, char *strbuf, size_t strmax)
{
	return run_prog(prog, ctx, val, strbuf, strmax, NULL);
}

int fetch_prog__first_read(const struct fetch_prog *prog, const struct fetch_ctx *ctx,
			   struct fetch_read *rd, char *strbuf, size_t strmax)
{
	struct first_read fr = { .rd = rd };
	struct fetch_ctx plan = *ctx;
	struct fetch_val val;

	if (!ctx->read_mem)
		return 0;	/* the run reads nothing either: its reads fail */
	plan.read_mem = note_read;
	plan.read_str = NULL;	/* every read through note_read */
	plan.priv = &fr;
	run_prog(prog, &plan, &val, strbuf, strmax, &fr);
	return fr.seen;
}

