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
	/* Kinds chosen from DWARF types (never written as a perf TYPE): */
	FT_BOOL,		/* SIZE-byte integer: false when 0, else true */
	FT_FLOAT,		/* IEEE binary32 (SIZE 4) or binary64 (SIZE 8) */
	FT_ENUM,		/* SIZE-byte integer named by DESC->enums (FTF_SIGNED: signed) */
	FT_CHARS,		/* char[LEN] stored at the address on top: a string of at most LEN */
	FT_STRUCT,		/* struct or union of LEN bytes at the address on top; DESC->members */
	FT_OPAQUE,		/* only as a struct member (nested struct, array): printed {...} */
	/* Kinds of syscall records (never fetched by a program): */
	FT_SYM,			/* a symbolic value in VAL->str/len ("O_RDONLY|O_CLOEXEC",
				 * "-ENOENT", "AT_FDCWD"): bare in text, a string in JSON */
	FT_FD,			/* a file descriptor VAL->u (signed) and what it refers to in
				 * VAL->str/len ("/tmp/db", "TCP:[127.0.0.1:5432->...]"; len 0:
				 * not known): text 3</tmp/db>, JSON {"fd":3,"path":"/tmp/db"} */
	/* Chosen from DWARF too, added last: */
	FT_STRN,		/* a string of known length (std::string, Rust &str and String,
				 * Go string): the struct at the address on top, or assembled
				 * by pieces, holds its address (8 bytes at PTR_OFF) and its
				 * length in bytes (8 bytes at LEN_OFF); no NUL is looked for */
	FT_SLICE,		/* an array of known length (Go []T, Rust &[T] and Vec<T>,
				 * std::vector<T>): as FT_STRN, its count of elements at
				 * LEN_OFF (with FTF_END: the address past its last one);
				 * at most LEN elements of SIZE bytes are read, printed as
				 * DESC's members say ("[0]", "[1]", ...) */
};

/* fetch_type.flags */
#define FTF_SIGNED	0x01	/* FT_BITFIELD, FT_ENUM: sign-extend from the top bit */
#define FTF_END		0x02	/* FT_SLICE: LEN_OFF holds the end's address, not a count */

struct type_desc;

struct fetch_type {
	uint8_t kind;		/* enum fetch_kind */
	uint8_t size;		/* bytes: 1, 2, 4 or 8 (container size for bitfields) */
	uint8_t bits;		/* FT_BITFIELD: width */
	uint8_t bit_off;	/* FT_BITFIELD: offset from the LSB */
	uint8_t flags;		/* FTF_* */
	uint16_t ptr_off, len_off;	/* FT_STRN: where its address and length are */
	uint32_t len;		/* FT_CHARS: array length; FT_STRUCT: byte size */
	const struct type_desc *desc;	/* FT_ENUM, FT_STRUCT; NULL otherwise */
};

/* What a DWARF type says about how its values print (owned by dwarf/). */
struct type_member {
	const char *name;
	uint32_t off;		/* byte offset in the struct (bitfields: of the container) */
	struct fetch_type type;	/* no FT_STRUCT here: nested aggregates are FT_OPAQUE */
};

struct type_enumerator {
	int64_t value;
	const char *name;
};

struct type_desc {
	const char *name;	/* "struct point", "enum color": for messages */
	unsigned int n;		/* entries in MEMBERS or ENUMS */
	const struct type_member *members;	/* FT_STRUCT (a union: every OFF 0) */
	const struct type_enumerator *enums;	/* FT_ENUM */
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
	FETCH_OP_ALU,		/* SIZE is an enum fetch_alu: binary ones pop b, pop a, push a OP b;
				 * unary ones replace the top */
	FETCH_OP_STACK,		/* SIZE is an enum fetch_stackop: dup, drop, swap, over */
	/*
	 * Pop a value and place SIZE (1..8) bytes of it at byte IMM of the
	 * argument's buffer: with REG 0 the value's low bytes (a register, a
	 * stack value), with REG 1 the SIZE bytes stored at that address (a
	 * read; a fault is -EFAULT at that address).  Used for DW_OP_piece; a
	 * program with PIECE ops has fetch_prog.composite set.
	 */
	FETCH_OP_PIECE,
};

enum fetch_alu {
	FETCH_ALU_SUB = 1,	/* a - b */
	FETCH_ALU_MUL,
	FETCH_ALU_DIV,		/* signed; division by zero is -EINVAL */
	FETCH_ALU_MOD,		/* unsigned; by zero is -EINVAL */
	FETCH_ALU_AND,
	FETCH_ALU_OR,
	FETCH_ALU_XOR,
	FETCH_ALU_SHL,		/* shift counts >= 64 give 0 (SHRA: the sign) */
	FETCH_ALU_SHR,		/* logical */
	FETCH_ALU_SHRA,		/* arithmetic */
	FETCH_ALU_NEG,		/* unary */
	FETCH_ALU_NOT,		/* unary, bitwise */
};

enum fetch_stackop {
	FETCH_STACK_DUP = 1,
	FETCH_STACK_DROP,
	FETCH_STACK_SWAP,
	FETCH_STACK_OVER,
};

#define FETCH_MAX_OPS	32
/* The largest FT_STRUCT / composite value a program fetches, in bytes. */
#define FETCH_MAX_BLOB	4096
/* Reads are split at page boundaries (a string may end just before an unmapped page). */
#define FETCH_PAGE_SIZE	4096

struct fetch_op {
	uint8_t op;		/* enum fetch_opcode */
	uint8_t size;		/* FETCH_OP_DEREF: 1, 2, 4 or 8 */
	uint16_t reg;		/* FETCH_OP_REG */
	int64_t imm;
};

struct fetch_prog {
	struct fetch_op ops[FETCH_MAX_OPS];
	uint8_t nops;
	bool composite;		/* the value is assembled by FETCH_OP_PIECE in the buffer */
	uint16_t blob_off;	/* composite: the value starts at this byte of the assembly
				 * (a member of a struct held in registers) */
	struct fetch_type type;
};

/*
 * The buffer (STRBUF of fetch_prog__run) PROG needs when strings are limited
 * to STRMAX bytes: STRMAX for strings and char arrays, LEN for structs
 * (at most FETCH_MAX_BLOB), the pieces' extent for composites, else 8.
 */
size_t fetch_prog__buflen(const struct fetch_prog *prog, size_t strmax);

/* Append an op; 0, or -E2BIG when the program is full. */
int fetch_prog__emit(struct fetch_prog *prog, uint8_t op, uint8_t size, uint16_t reg,
		     int64_t imm);

struct fetch_ctx {
	/* register values indexed by DWARF register number (x86_64: 0-16 the
	 * general ones and rip, 17-32 the low 8 bytes of xmm0-15) */
	const uint64_t *regs;
	unsigned int nregs;
	uint64_t bias;		/* load bias of the probe's module (FETCH_OP_ADDR) */
	/*
	 * Read LEN bytes at ADDR into BUF.  Returns the number of bytes read
	 * (short when the range runs into unmapped memory), or -errno.
	 */
	ssize_t (*read_mem)(void *priv, uint64_t addr, void *buf, size_t len);
	void *priv;
	/*
	 * Optional, for strings read into a buffer: up to LEN bytes at ADDR
	 * into BUF, stopping after the first NUL.  The bytes copied (the last
	 * a NUL when one was found; fewer than LEN without one: the memory at
	 * ADDR + that is unreadable), or -ENOSYS (read through read_mem
	 * instead).  The agent's (agent_copy_str()): one pass over a short
	 * string, where read_mem would copy a page of it, or the room, then
	 * search the copy.
	 */
	ssize_t (*read_str)(void *priv, uint64_t addr, char *buf, size_t len);
};

/* A return value at a tail call: the callee that makes it has not run yet. */
#define FETCH_ERR_TAIL_CALL	(-4096)
/* A per-thread count of a call that returned on another thread than it began (--account). */
#define FETCH_ERR_MOVED		(-4097)

struct fetch_val {
	int err;		/* 0, or -errno: -EFAULT bad address, -EINVAL bad program;
				 * FETCH_ERR_TAIL_CALL, FETCH_ERR_MOVED */
	bool truncated;		/* strings: longer than the string limit */
	bool null;		/* strings: the pointer is NULL (a value, not an error) */
	bool full_len_min;	/* with FULL_LEN: only a lower bound (below) */
	uint64_t addr;		/* on -EFAULT: the address that failed; strings: their address */
	uint64_t u;		/* integers: the raw value, truncated to the type's size */
	char *str;		/* strings: bytes read (not NUL-terminated), in the caller's buffer */
	size_t len;		/* strings: number of bytes in STR */
	/*
	 * Strings, when TRUNCATED: the whole string's length in bytes (to its
	 * NUL; a char array without one: its LEN), or with FULL_LEN_MIN only a
	 * lower bound (no NUL within FETCH_STRLEN_SCAN bytes past the limit, or
	 * memory unreadable before one).  0 when not known.
	 */
	uint64_t full_len;
};

/* How far past the string limit a truncated string is scanned for its NUL. */
#define FETCH_STRLEN_SCAN	65536

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
 * first NUL; VAL->truncated when the string is longer than STRMAX bytes.  A NULL
 * pointer is VAL->null (no error, nothing read); memory that becomes unreadable
 * before a NUL is -EFAULT (addr: the first unreadable byte).  A truncated string is then scanned for
 * its NUL up to FETCH_STRLEN_SCAN bytes further, page by page through a page
 * on the stack (its bytes are not kept), for VAL->full_len.
 * Integers (and FT_BOOL, FT_FLOAT, FT_ENUM): VAL->u is the top truncated to
 * the type's size (8 bytes for FT_DEFAULT); for FT_BITFIELD, the BITS bits
 * at BIT_OFF of that container (sign-extended to 64 bits with FTF_SIGNED,
 * as FT_ENUM with FTF_SIGNED is).
 * FT_CHARS: the top is the array's address (VAL->addr); at most
 * min(LEN, STRMAX) bytes are read, up to the first NUL, as for strings;
 * VAL->truncated only when LEN > STRMAX and no NUL came by byte STRMAX (an array
 * filled to its end without a NUL is its LEN bytes, not truncated); the scan
 * for VAL->full_len stops at the array's end.
 * FT_STRN: the top is the address of a struct holding the string's address
 * and length (a composite: the struct is assembled at BLOB_OFF); at most
 * STRMAX of its length's bytes are read at its address (VAL->addr), NULs
 * and all; VAL->truncated with VAL->full_len its length when longer.  A
 * length of 0 reads nothing (an empty Rust string's address dangles).
 * FT_SLICE: the same, its count (LEN_OFF's word, or with FTF_END that
 * word less the address, over SIZE) in elements of SIZE bytes: at most LEN
 * of them are read (VAL->len: their bytes); VAL->full_len is the count
 * when it is more.
 * FT_STRUCT: the top is the address (VAL->addr); min(LEN, FETCH_MAX_BLOB)
 * bytes are read into STRBUF (VAL->str, VAL->len); a fault anywhere in them
 * is -EFAULT at the first unreadable byte.
 * Composite programs (PROG->composite): the evaluator zeroes the pieces'
 * extent of STRBUF, the PIECE ops fill it, whatever is left on the stack
 * is ignored, and the result is read from STRBUF: integers as the
 * little-endian SIZE bytes at BLOB_OFF, FT_CHARS / FT_STRUCT as the bytes
 * from BLOB_OFF on.
 * STRBUF holds fetch_prog__buflen(PROG, STRMAX) bytes; STRMAX is the
 * string limit (--string-max).
 *
 * Never allocates.  Returns -EINVAL (and VAL->err = -EINVAL) only for a
 * malformed program: stack underflow or overflow, an unknown op, a bad load
 * size, a register outside CTX->regs.
 */
int fetch_prog__run(const struct fetch_prog *prog, const struct fetch_ctx *ctx,
		    struct fetch_val *val, char *strbuf, size_t strmax);

/*
 * ---- Planned reads: one read of target memory per hit ----
 *
 * A hit's programs read memory one value at a time.  Their first reads
 * depend on registers and immediates only, so they can be found before any
 * program runs, made at once (one process_vm_readv of many ranges), and
 * served to the programs from there; only reads that depend on memory just
 * read (a pointer followed) are left to the programs' own read_mem.
 */

/* A read a program makes through ctx->read_mem. */
struct fetch_read {
	uint64_t addr;
	size_t len;		/* the bytes it asks for */
	size_t want;		/* the bytes worth reading at ADDR, >= LEN: a string's limit or a
				 * struct's size (the evaluator reads those page by page) */
};

/*
 * The first read fetch_prog__run(PROG, CTX, ..., STRBUF, STRMAX) makes,
 * found by running PROG up to it without reading: 1 with *RD set, or 0 when
 * PROG reads nothing (values of registers alone, a NULL string, a malformed
 * program, no CTX->read_mem).  CTX->read_mem is never called.  STRBUF as
 * for fetch_prog__run(): a composite assembles its register pieces there.
 */
int fetch_prog__first_read(const struct fetch_prog *prog, const struct fetch_ctx *ctx,
			   struct fetch_read *rd, char *strbuf, size_t strmax);

/* One range of a batch. */
struct fetch_batch_ent {
	uint64_t addr;
	size_t len;		/* bytes to read */
	char *data;		/* where they go, in the batch's area */
	size_t got;		/* bytes read, a prefix: set by whoever makes the reads */
};

/*
 * The ranges read ahead of a hit's programs, and the bytes read.  ENT (MAX
 * entries) and AREA (SIZE bytes) are the caller's: nothing is allocated.
 * Entries whose range crosses a 4096-byte page are kept last: a batched
 * read stops at the first range that runs into unreadable memory, and those
 * are the ones that may (a string read ahead to its limit).
 */
struct fetch_batch {
	struct fetch_batch_ent *ent;
	unsigned int n, max;
	unsigned int ncross;	/* the last NCROSS entries cross a page */
	char *area;
	size_t size, used;
};

void fetch_batch__init(struct fetch_batch *b, struct fetch_batch_ent *ent, unsigned int max,
		       char *area, size_t size);
/*
 * Add a range for RD: its WANT bytes, or as many as the area has room for
 * when that is at least LEN; nothing when an entry's range holds them
 * already (or RD reads nothing).  0, or -ENOSPC when it does not fit.
 */
int fetch_batch__add(struct fetch_batch *b, const struct fetch_read *rd);
/*
 * fetch_prog__first_read() then fetch_batch__add(): 1 when the read is in
 * B, 0 when PROG reads nothing, -ENOSPC when B is full.
 */
int fetch_batch__plan(struct fetch_batch *b, const struct fetch_prog *prog,
		      const struct fetch_ctx *ctx, char *strbuf, size_t strmax);
/*
 * LEN bytes at ADDR into BUF from the bytes an entry got: LEN, or -ENOENT
 * when no entry got all of them (the caller reads them from the target:
 * a read the batch made short is made again, and fails, or not, as it would
 * have without the batch).
 */
ssize_t fetch_batch__read(const struct fetch_batch *b, uint64_t addr, void *buf, size_t len);

#endif
