/* probes/fetch.c: fetch types, building programs, and the batches of a hit's
 * reads.  The evaluator is probes/fetch_eval.c. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "probes/fetch.h"

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
	case FT_STRN:	/* for messages: one of known length */
		snprintf(buf, len, "string");
		break;
	case FT_USTRING:
		snprintf(buf, len, "ustring");
		break;
	case FT_SYMBOL:
		snprintf(buf, len, "symbol");
		break;
	case FT_BITFIELD:
		snprintf(buf, len, "%sb%u@%u/%u", t->flags & FTF_SIGNED ? "signed " : "",
			 t->bits, t->bit_off, bits);
		break;
	/* The DWARF kinds: names for messages only, never parsed back. */
	case FT_BOOL:
		snprintf(buf, len, "bool");
		break;
	case FT_FLOAT:
		if (bits == 32 || bits == 64)
			snprintf(buf, len, bits == 32 ? "float" : "double");
		else
			snprintf(buf, len, "float%u", bits);
		break;
	case FT_ENUM:
		snprintf(buf, len, "enum");
		break;
	case FT_CHARS:
		snprintf(buf, len, "char[%u]", (unsigned int)t->len);
		break;
	case FT_STRUCT:
		snprintf(buf, len, "struct");
		break;
	case FT_SLICE:
		snprintf(buf, len, "slice");
		break;
	case FT_OPAQUE:
		snprintf(buf, len, "opaque");
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

/* ---- batches: the reads of a hit, made ahead of its programs --------------- */

void fetch_batch__init(struct fetch_batch *b, struct fetch_batch_ent *ent, unsigned int max,
		       char *area, size_t size)
{
	*b = (struct fetch_batch){ .ent = ent, .max = max, .area = area, .size = size };
}

/* Does [ADDR, ADDR + LEN) lie in the first GOT bytes of E?  (No overflow on the way.) */
static bool ent_holds(const struct fetch_batch_ent *e, size_t got, uint64_t addr, size_t len)
{
	return addr >= e->addr && addr - e->addr <= got && len <= got - (addr - e->addr);
}

int fetch_batch__add(struct fetch_batch *b, const struct fetch_read *rd)
{
	size_t room = b->size - b->used, len = rd->want > rd->len ? rd->want : rd->len;
	struct fetch_batch_ent e;
	bool cross;

	if (!rd->len || rd->len - 1 > UINT64_MAX - rd->addr)
		return 0;	/* nothing, or past the end of the address space */
	if (len - 1 > UINT64_MAX - rd->addr)
		len = UINT64_MAX - rd->addr + 1;
	for (unsigned int i = 0; i < b->n; i++)
		if (ent_holds(&b->ent[i], b->ent[i].len, rd->addr, len))
			return 0;
	if (len > room)
		len = room;
	if (len < rd->len || b->n == b->max)
		return -ENOSPC;
	e = (struct fetch_batch_ent){ .addr = rd->addr, .len = len, .data = b->area + b->used };
	b->used += len;
	cross = rd->addr / FETCH_PAGE_SIZE != (rd->addr + (len - 1)) / FETCH_PAGE_SIZE;
	if (cross) {
		b->ncross++;
	} else if (b->ncross) {
		/* the first entry that crosses moves to the end; this one takes its place */
		b->ent[b->n] = b->ent[b->n - b->ncross];
		b->ent[b->n - b->ncross] = e;
		b->n++;
		return 0;
	}
	b->ent[b->n++] = e;
	return 0;
}

int fetch_batch__plan(struct fetch_batch *b, const struct fetch_prog *prog,
		      const struct fetch_ctx *ctx, char *strbuf, size_t strmax)
{
	struct fetch_read rd;

	if (!fetch_prog__first_read(prog, ctx, &rd, strbuf, strmax))
		return 0;
	return fetch_batch__add(b, &rd) < 0 ? -ENOSPC : 1;
}

ssize_t fetch_batch__read(const struct fetch_batch *b, uint64_t addr, void *buf, size_t len)
{
	for (unsigned int i = 0; i < b->n; i++) {
		const struct fetch_batch_ent *e = &b->ent[i];

		if (ent_holds(e, e->got, addr, len)) {
			memcpy(buf, e->data + (addr - e->addr), len);
			return (ssize_t)len;
		}
	}
	return -ENOENT;
}

