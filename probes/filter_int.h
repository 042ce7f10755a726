/* probes/filter_int.h: a compiled --filter, as filter.c makes it and
 * filter_eval.c matches it.  Flat and position-independent (no pointer: a
 * literal string is an offset into the pool), so that ptap can copy it into
 * a target for the agent to match there (agent/agent.h). */
#ifndef PTAP_PROBES_FILTER_INT_H
#define PTAP_PROBES_FILTER_INT_H

#include <stdint.h>

#define FILTER_NODES	64	/* comparisons and operators in one expression */
#define FILTER_DEPTH	32	/* nested "(" and "!" */
#define FILTER_POOL	2048	/* bytes of the literal strings of one expression */

enum node_kind { N_OR, N_AND, N_NOT, N_CMP };
enum cmp_op { OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE, OP_GLOB };
enum field { F_PID = -1, F_TID = -2, F_COMM = -3 };	/* else an argument's index */
enum vclass { V_INT, V_FLOAT, V_STR };

struct fnode {
	uint8_t kind;			/* enum node_kind */
	/* N_CMP */
	uint8_t op;			/* enum cmp_op */
	uint8_t cls;			/* enum vclass: how the field compares */
	uint8_t tkind, tsize, tflags;	/* the argument's fetch_type: kind, size, flags */
	int16_t a, b;			/* children (N_OR, N_AND: both; N_NOT: a) */
	int32_t field;			/* enum field, or an argument's index */
	uint32_t str, strlen;		/* V_STR's literal: STRLEN bytes at POOL + STR */
	int64_t fkey;			/* V_FLOAT's literal, as filter_fkey() orders it */
	__int128 num;			/* V_INT's literal */
};

struct filter {
	struct fnode node[FILTER_NODES];
	int32_t n, root;
	uint32_t pool_used;
	char pool[FILTER_POOL];
};

/* An IEEE binary64's bits as a signed key in the numbers' order (-0 and +0 alike; not NaN). */
static inline int64_t filter_fkey(uint64_t bits)
{
	return bits >> 63 ? -(int64_t)(bits & ~(1ULL << 63)) : (int64_t)bits;
}

#endif
