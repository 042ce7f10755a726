/* dwarf/unwind.h: call stacks (record -g).  A thread's return addresses from
 * its registers and stack, by frame pointers or by CFI (libdwfl's unwinder),
 * and what each address is: function+offset, FILE:LINE, the functions
 * inlined there.  Pure: no ptrace; memory comes through a callback, the
 * modules from the text of /proc/PID/maps. */
#ifndef PTAP_DWARF_UNWIND_H
#define PTAP_DWARF_UNWIND_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "probes/record.h"

/* Read LEN bytes at ADDR: the count read (short at unmapped memory), or -errno. */
struct stack_mem {
	ssize_t (*read)(void *priv, uint64_t addr, void *buf, size_t len);
	void *priv;
};

/*
 * Frame pointers: the pc (REGS[16], DWARF numbering), then the return
 * addresses found by following rbp (REGS[6]) up the stack, at most MAX in
 * PCS.  RA_AT_SP >= 0: the pc is where the function has not set its frame
 * up (its first instruction, a ret), and its own return address is at sp +
 * RA_AT_SP; the chain then starts at its caller's frame, which rbp still
 * is.  The walk stops at a frame pointer of 0, one that is not 8-aligned
 * or does not grow, and a read that fails.  Returns the count in PCS.
 */
int stack_unwind_fp(const uint64_t *regs, int ra_at_sp, const struct stack_mem *m,
		    uint64_t *pcs, int max);

struct unwinder;	/* one process: its modules, for CFI and for symbols */

/*
 * For process PID, whose files OPEN_FILE(PRIV, ADDR) opens (the file mapped
 * at ADDR, read-only: an fd the unwinder closes, or -errno).  0 or -errno.
 */
int unwinder__new(pid_t pid, int (*open_file)(void *priv, uint64_t addr), void *priv,
		  struct unwinder **out);
void unwinder__free(struct unwinder *u);		/* NULL is fine */
/* (Re)read the process's modules from MAPS, /proc/PID/maps text.  0 or -errno. */
int unwinder__report(struct unwinder *u, FILE *maps);

/*
 * CFI (.eh_frame, .debug_frame, separate debug info): the pc, then each
 * caller's return address, at most MAX in PCS.  REGS as for
 * stack_unwind_fp(); TID names the thread for libdwfl only.  Returns the
 * count (at least 1), or -errno when nothing could be unwound at all.
 */
int unwinder__unwind(struct unwinder *u, pid_t tid, const uint64_t *regs,
		     const struct stack_mem *m, uint64_t *pcs, int max);

/*
 * What PC is: the functions inlined there, innermost first, then the one
 * whose code it is (the last; FUNC NULL when no symbol covers PC), at most
 * MAX in OUT.  CALL: PC is a return address, looked up at PC - 1 (its
 * call's line).  Each frame's ADDR is PC; FUNC, FILE and MODULE are
 * malloc'd (the caller's, stack_frames_free()).  Returns the count (at
 * least 1, a frame of no function when PC is in no module), or -ENOMEM.
 */
int unwinder__symbolize(struct unwinder *u, uint64_t pc, bool call, struct stack_frame *out,
			int max);
void stack_frames_free(struct stack_frame *f, int n);

#endif
