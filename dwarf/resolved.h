/* dwarf/resolved.h: one site of a probe spec resolved (struct
 * resolved_probe), as dwarf/resolve.h hands it out and dwarf/args.c fills
 * its arguments in.  Type only. */
#ifndef PTAP_DWARF_RESOLVED_H
#define PTAP_DWARF_RESOLVED_H

#include <stdbool.h>
#include <stdint.h>

#include "arch/arch.h"
#include "dwarf/tpool.h"
#include "probes/fetch.h"

/*
 * One exit of a return probe's function: a ret, or a jump out of it (a tail
 * call); or RESOLVED_CALL, the function's entry when the probe's site is
 * further in (past the prologue): there every call is a new one.
 */
struct resolved_exit {
	uint64_t vaddr, file_off;
	struct arch_insn insn;	/* the instruction the breakpoint displaces */
	int kind;		/* enum arch_exit_kind, or RESOLVED_CALL */
	struct arch_jump jump;	/* a ret that may be a jump site (arch_exit_jump()), else len 0 */
	char *nojump;		/* why it may not (NULL: it may, or it was never asked) */
};

#define RESOLVED_CALL	100

struct resolved_probe {
	uint64_t vaddr;		/* link-time address of the site */
	uint64_t file_off;	/* its file offset (from the PT_LOAD holding it) */
	char *where;		/* "exec_query" or "exec_query+4": for messages */
	char *func;		/* the function probed: the default event name */
	bool fpregs;		/* a program run at the hit reads xmm registers (DWARF 17-32) */
	/* FUNC%return: the record is made when the function returns */
	bool retprobe;
	bool noreturn;		/* the function is declared noreturn: it never returns */
	bool fpregs_ret;	/* a program run at the return reads xmm registers */
	struct fetch_prog ra_prog;	/* the address of the return address at the site */
	struct resolved_exit *exits;	/* where the function leaves (each is planted) */
	int nexits;
	bool go_stack;		/* a Go function: its stack is its goroutine's, which moves
				 * and may have little room below the site */
	bool ret_past_entry;	/* the site is past the prologue: a loop may pass it again */
	bool *at_return;	/* NARGS: run at the return ($retval), else at the hit */
	struct tpool pool;	/* type descriptors of the programs */
	struct arch_insn insn;	/* the instruction the breakpoint displaces */
	struct arch_jump jump;	/* may the site be a jump site (len 0: no; see arch.h) */
	char *nojump;		/* why it may not (NULL: it may, or it was never asked) */
	int nargs;
	struct fetch_prog *progs;	/* NARGS programs */
	char **names;		/* NARGS record names ("arg1" for unnamed) */
};

#endif
