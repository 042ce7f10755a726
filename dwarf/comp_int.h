/* dwarf/comp_int.h: one DWARF variable being compiled into a fetch program,
 * shared by the steps that compile it: its location (dwarf/locexpr.c), its
 * access chain (dwarf/chain.c), the type it prints as (dwarf/typedesc.c)
 * and its final load (dwarf/value.c), for dwarf/var.c and dwarf/retval.c.
 * Private to dwarf/. */
#ifndef PTAP_DWARF_COMP_INT_H
#define PTAP_DWARF_COMP_INT_H

#include <stdbool.h>
#include <stdint.h>

#include <elfutils/libdw.h>

#include "dwarf/varctx_int.h"
#include "probes/fetch.h"

struct arg_expr;
struct probe_arg;
struct ptap_err;

/* What the program computed so far leaves for the value. */
enum loc_state {
	LOC_NONE,		/* nothing computed yet */
	LOC_MEM,		/* the top of the stack is the address of the value */
	LOC_VALUE,		/* the top of the stack is the value itself */
	LOC_PIECES,		/* the value is assembled in the buffer */
};

/* One variable being compiled: its context, program, error and state. */
struct comp {
	const struct var_ctx *c;
	struct fetch_prog *prog;
	struct ptap_err *err;
	int pos;
	const char *text;	/* the argument as written, for messages */
	enum loc_state state;
	uint32_t pieces_len;
	bool bitfield;		/* the current value is a bitfield member */
	uint8_t bf_bits, bf_off, bf_size;
	Dwarf_Attribute *attr;	/* the location attribute being compiled */
};

/* ---- dwarf/locexpr.c ---------------------------------------------------- */

/* Append an op to K's program (offsets folded).  0, or -E2BIG with K->err. */
int comp_emit(struct comp *k, uint8_t op, uint8_t size, uint16_t reg, int64_t imm);
/* K->err: "cannot fetch 'TEXT' at WHERE: WHY".  Returns -ENOTSUP. */
int comp_cannot(struct comp *k, const char *why);
/* V's location at the site into K (K->state says what it left).  0 or -errno. */
int comp_location(struct comp *k, const struct var_info *v);
/* DW_OP_call_frame_cfa: push the CFA at the site.  0 or -errno. */
int comp_cfa(struct comp *k, int depth);

/* ---- dwarf/chain.c ------------------------------------------------------ */

/* Make the top of the stack the value (load SIZE bytes when it is in memory). */
int comp_to_value(struct comp *k, Dwarf_Word size);
/* A reference (C++ T&, T&&) at *TYPE followed to what it refers to, as
 * often as it takes: *TYPE becomes that.  0 or -errno. */
int comp_follow_refs(struct comp *k, Dwarf_Die *type);
/* Follow E's access chain and dereferences from *TYPE, which becomes the
 * last one's type.  0 or -errno. */
int comp_chain(struct comp *k, Dwarf_Die *type, const struct arg_expr *e);

/* ---- dwarf/typedesc.c --------------------------------------------------- */

/* How a scalar of base/enum/pointer TYPE prints into FT; false for aggregates. */
bool comp_scalar_type(const struct var_ctx *c, Dwarf_Die *type, struct fetch_type *ft);
/* Struct/union T's members, one level deep, as FT (FT_STRUCT).  0 or -ENOMEM. */
int comp_struct_desc(const struct var_ctx *c, Dwarf_Die *t, struct fetch_type *ft);
/* Array T of scalars printed whole.  0, -ENOTSUP (not such an array), -ENOMEM. */
int comp_array_desc(const struct var_ctx *c, Dwarf_Die *t, struct fetch_type *ft);
/* A slice's elements of type ELEM (as many as ptap prints) as FT (FT_SLICE,
 * its words' offsets left to the caller).  0, -ENOTSUP (an element of no
 * size or of more than 255 bytes), -ENOMEM. */
int comp_slice_desc(const struct var_ctx *c, Dwarf_Die *elem, struct fetch_type *ft);

/* ---- dwarf/value.c ------------------------------------------------------ */

/* Load the value of TYPE at the end of the chain and choose how it prints
 * (ARG's :TYPE, else DWARF's).  0 or -errno. */
int comp_finish(struct comp *k, const struct probe_arg *arg, Dwarf_Die *type);

#endif
