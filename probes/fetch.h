/* probes/fetch.h: fetch programs -- how one probe argument is computed from
 * a register set and target memory -- and their evaluator.  Pure: no ptrace;
 * memory comes through a callback, so tests run against a fake memory. */
#ifndef PTAP_PROBES_FETCH_H
#define PTAP_PROBES_FETCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* How a fetched value is typed and printed (perf probe's TYPE). */
enum fetch_kind {
	FT_DEFAULT = 0,		/* not given: x64 (DWARF may choose later) */
	FT_SIGNED,		/* sN */
	FT_UNSIGNED,		/* uN */
	FT_HEX,			/* xN */
	FT_STRING,		/* string: the value is the address of a C string */
	FT_USTRING,		/* ustring: same, user space string */
	FT_SYMBOL,		/* symbol: an address printed as-is in hex (sym+off later) */
	FT_BITFIELD,		/* bN@O/S: BITS bits at bit offset BIT_OFF of an S-bit container */
};

struct fetch_type {
	uint8_t kind;		/* enum fetch_kind */
	uint8_t size;		/* bytes: 1, 2, 4 or 8 (container size for bitfields) */
	uint8_t bits;		/* FT_BITFIELD: width */
	uint8_t bit_off;	/* FT_BITFIELD: offset from the LSB */
};

/*
 * Parse a perf probe TYPE ("s32", "x8", "string", "b4@3/32", ...) from
 * S[0..LEN).  0 or -EINVAL.
 */
int fetch_type__parse(const char *s, size_t len, struct fetch_type *t);
/* Write the canonical spelling of T ("u32", "string"; FT_DEFAULT is "x64")
 * into BUF; returns BUF. */
const char *fetch_type__name(const struct fetch_type *t, char *buf, size_t len);

/*
 * A fetch program is a small stack machine over 64-bit values.  The value
 * left on top is the argument (for strings: the string's address).
 */
enum fetch_opcode {
	FETCH_OP_REG = 1,	/* push regs[reg] (DWARF register number) */
	FETCH_OP_IMM,		/* push imm */
	FETCH_OP_ADDR,		/* push imm + ctx->bias (a module-relative address) */
	FETCH_OP_ADD_IMM,	/* top += imm */
	FETCH_OP_DEREF,		/* top = SIZE-byte load at top + imm, zero-extended */
	FETCH_OP_ADD,		/* pop b, pop a, push a + b */
};

#define FETCH_MAX_OPS	16

struct fetch_op {
	uint8_t op;		/* enum fetch_opcode */
	uint8_t size;		/* FETCH_OP_DEREF: 1, 2, 4 or 8 */
	uint16_t reg;		/* FETCH_OP_REG */
	int64_t imm;
};

struct fetch_prog {
	struct fetch_op ops[FETCH_MAX_OPS];
	uint8_t nops;
	struct fetch_type type;
};

/* Append an op; 0, or -E2BIG when the program is full. */
int fetch_prog__emit(struct fetch_prog *prog, uint8_t op, uint8_t size, uint16_t reg,
		     int64_t imm);

struct fetch_ctx {
	const uint64_t *regs;	/* register values indexed by DWARF register number */
	unsigned int nregs;
	uint64_t bias;		/* load bias of the probe's module (FETCH_OP_ADDR) */
	/*
	 * Read LEN bytes at ADDR into BUF.  Returns the number of bytes read
	 * (short when the range runs into unmapped memory), or -errno.
	 */
	ssize_t (*read_mem)(void *priv, uint64_t addr, void *buf, size_t len);
	void *priv;
};

struct fetch_val {
	int err;		/* 0, or -errno: -EFAULT bad address, -EINVAL bad program */
	uint64_t addr;		/* on -EFAULT: the address that failed; strings: their address */
	uint64_t u;		/* integers: the raw value, truncated to the type's size */
	char *str;		/* strings: bytes read (not NUL-terminated), in the caller's buffer */
	size_t len;		/* strings: number of bytes in STR */
	bool truncated;		/* strings: no NUL within the string limit */
};

/*
 * Run PROG against CTX and fill VAL.  The stack holds 8 values.
 *
 * A failed read is not an error of the call: a short read or a negative
 * return from read_mem sets VAL->err = -EFAULT and VAL->addr = the address
 * that failed, and the call returns 0.
 *
 * Strings (FT_STRING, FT_USTRING): the top of the stack is the string's
 * address (VAL->addr).  Its bytes are read into STRBUF, at most STRMAX (the
 * --string-max limit), in reads that never cross a 4096-byte page, up to the
 * first NUL; VAL->truncated when there is no NUL within STRMAX bytes.  A NULL
 * pointer, or memory that becomes unreadable before a NUL, is -EFAULT (addr:
 * 0, or the first unreadable byte).
 * Integers: VAL->u is the top truncated to the type's size (8 bytes for
 * FT_DEFAULT); for FT_BITFIELD, the BITS bits at BIT_OFF of that container.
 *
 * Never allocates.  Returns -EINVAL (and VAL->err = -EINVAL) only for a
 * malformed program: stack underflow or overflow, an unknown op, a bad load
 * size, a register outside CTX->regs.
 */
int fetch_prog__run(const struct fetch_prog *prog, const struct fetch_ctx *ctx,
		    struct fetch_val *val, char *strbuf, size_t strmax);

#endif
