/* probes/filter_eval.c: a compiled --filter matched against a hit's values
 * (filter.h).  Freestanding, integers only (no floating-point register:
 * floats compare by their bits), so that the agent matches in a target
 * what ptap matches at a stop: one evaluator for both (as fetch_eval.c). */
#include "probes/fetch.h"
#include "probes/filter.h"
#include "probes/filter_int.h"
#include "probes/record.h"

/*
 * The class at PAT[P] ('['), PLEN: its closing ']' (the first byte after
 * "[" or "[!" may be a ']' of the class), or 0 when it has none (then '['
 * is a plain byte).  *HIT: whether C is in it.
 */
static size_t glob_class(const char *pat, size_t p, size_t plen, unsigned char c, bool *hit)
{
	size_t q = p + 1, close;
	bool neg = q < plen && (pat[q] == '!' || pat[q] == '^'), in = false;

	q += neg;
	for (close = q + 1; close < plen && pat[close] != ']'; close++)
		;
	if (close >= plen)
		return 0;
	for (; q < close; q++) {
		unsigned char lo = (unsigned char)pat[q], hi = lo;

		if (q + 2 < close && pat[q + 1] == '-') {
			hi = (unsigned char)pat[q + 2];
			q += 2;
		}
		in |= c >= lo && c <= hi;
	}
	*hit = in != neg;
	return close;
}

bool filter__glob(const char *pat, size_t plen, const char *s, size_t len)
{
	size_t p = 0, i = 0, star_p = (size_t)-1, star_i = 0;

	while (i < len) {
		size_t close = 0;
		bool hit = false;

		if (p < plen && pat[p] == '*') {
			star_p = ++p;
			star_i = i;
			continue;
		}
		if (p < plen && pat[p] == '[')
			close = glob_class(pat, p, plen, (unsigned char)s[i], &hit);
		if (close ? hit : p < plen && (pat[p] == '?' || pat[p] == s[i])) {
			p = close ? close + 1 : p + 1;
			i++;
			continue;
		}
		if (star_p == (size_t)-1)
			return false;
		p = star_p;
		i = ++star_i;
	}
	while (p < plen && pat[p] == '*')
		p++;
	return p == plen;
}

/* The value of an integer argument, signed where its type (ND's) is. */
static __int128 int_value(const struct fetch_val *v, const struct fnode *nd)
{
	unsigned int bits = nd->tsize && nd->tsize < 8 ? nd->tsize * 8u : 64;
	bool sign = nd->tkind == FT_SIGNED || (nd->tkind == FT_ENUM && (nd->tflags & FTF_SIGNED));
	uint64_t u = v->u;

	if (nd->tkind == FT_BITFIELD)
		return (nd->tflags & FTF_SIGNED) ? (__int128)(int64_t)u : (__int128)u;
	if (bits < 64)
		u &= (1ULL << bits) - 1;
	if (sign && bits < 64 && (u >> (bits - 1)) & 1)
		return (__int128)(int64_t)(u | ~((1ULL << bits) - 1));
	if (sign)
		return (__int128)(int64_t)u;
	return (__int128)u;
}

/* A binary32's bits as the binary64 of the same value (exact). */
static uint64_t f32_bits_to_f64(uint32_t w)
{
	uint64_t sign = (uint64_t)(w >> 31) << 63;
	uint32_t exp = (w >> 23) & 0xff, man = w & 0x7fffff;
	int e = (int)exp - 127;

	if (exp == 0xff)		/* inf, NaN */
		return sign | 0x7ff0000000000000ULL | (uint64_t)man << 29;
	if (!exp) {
		if (!man)
			return sign;
		for (e = -126; !(man & 0x800000); e--)	/* subnormal: made normal */
			man <<= 1;
		man &= 0x7fffff;
	}
	return sign | (uint64_t)(e + 1023) << 52 | (uint64_t)man << 29;
}

/* <0, 0, >0 as in memcmp, for byte strings of their lengths. */
static int bytes_cmp(const char *a, size_t alen, const char *b, size_t blen)
{
	size_t n = alen < blen ? alen : blen;

	for (size_t i = 0; i < n; i++)
		if (a[i] != b[i])
			return (unsigned char)a[i] < (unsigned char)b[i] ? -1 : 1;
	return (alen > blen) - (alen < blen);
}

static bool ordered(enum cmp_op op, int c)
{
	switch (op) {
	case OP_EQ:
		return c == 0;
	case OP_NE:
		return c != 0;
	case OP_LT:
		return c < 0;
	case OP_LE:
		return c <= 0;
	case OP_GT:
		return c > 0;
	case OP_GE:
		return c >= 0;
	default:
		return false;
	}
}

static bool cmp_match(const struct filter *f, const struct fnode *nd, const struct filter_in *in)
{
	const struct fetch_val *v = NULL;
	enum cmp_op op = (enum cmp_op)nd->op;

	if (nd->field >= 0) {
		if ((unsigned int)nd->field >= in->nvals)
			return false;
		v = &in->vals[nd->field];
		if (v->err)
			return false;
	} else if (!(nd->field == F_COMM && nd->cls == V_STR) &&
		   !((nd->field == F_PID || nd->field == F_TID) && nd->cls == V_INT)) {
		return false;	/* no such field: a filter written over */
	}
	if (nd->cls == V_STR) {
		const char *s = nd->field == F_COMM ? in->comm : v->str;
		size_t len = 0;

		if (nd->field == F_COMM)
			while (s && s[len])
				len++;
		else
			len = v->len;
		if (!s || (v && v->null))	/* a NULL is no string: != holds */
			return op == OP_NE;
		if (op == OP_GLOB)
			return filter__glob(f->pool + nd->str, nd->strlen, s, len);
		return ordered(op, bytes_cmp(s, len, f->pool + nd->str, nd->strlen));
	}
	if (nd->cls == V_FLOAT) {
		uint64_t b = nd->tsize == 4 ? f32_bits_to_f64((uint32_t)v->u) : v->u;
		int64_t k;

		if ((b & 0x7ff0000000000000ULL) == 0x7ff0000000000000ULL &&
		    (b & 0xfffffffffffffULL))	/* NaN: unordered, equal to nothing */
			return op == OP_NE;
		k = filter_fkey(b);
		return ordered(op, (k > nd->fkey) - (k < nd->fkey));
	}
	__int128 x = nd->field == F_PID ? in->pid : nd->field == F_TID ? in->tid :
		     int_value(v, nd);

	return ordered(op, (x > nd->num) - (x < nd->num));
}

/*
 * Node I.  A node's operands come before it (the parser makes them first):
 * a filter the target wrote over (the agent's copy is in its memory) that
 * says otherwise, or a string past the pool, matches nothing rather than
 * loop or read astray.
 */
static bool eval(const struct filter *f, int i, const struct filter_in *in)
{
	const struct fnode *nd = &f->node[i];

	if ((nd->kind != N_CMP && (nd->a < 0 || nd->a >= i)) ||
	    ((nd->kind == N_OR || nd->kind == N_AND) && (nd->b < 0 || nd->b >= i)) ||
	    (nd->kind == N_CMP && nd->cls == V_STR &&
	     (nd->str > FILTER_POOL || nd->strlen > FILTER_POOL - nd->str)))
		return false;
	switch (nd->kind) {
	case N_OR:
		return eval(f, nd->a, in) || eval(f, nd->b, in);
	case N_AND:
		return eval(f, nd->a, in) && eval(f, nd->b, in);
	case N_NOT:
		return !eval(f, nd->a, in);
	default:
		return cmp_match(f, nd, in);
	}
}

bool filter__eval(const struct filter *f, const struct filter_in *in)
{
	return f->root >= 0 && f->root < FILTER_NODES && eval(f, f->root, in);
}

bool filter__match(const struct filter *f, const struct record *rec)
{
	const struct filter_in in = { .vals = rec->vals, .nvals = rec->nargs, .pid = rec->pid,
				      .tid = rec->tid, .comm = rec->comm };

	return filter__eval(f, &in);
}
