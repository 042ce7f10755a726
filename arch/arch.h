/* arch/arch.h: the first of the two interfaces to machine-specific code:
 * registers, instructions and breakpoints, the system call ABI (making a
 * thread run a call, reading one it is in) and a cancellable wait, for
 * tracer/ and dwarf/.  The second, arch/sctable.h, is the system call table
 * (names, numbers, argument decoding) that `ptap record --syscalls`
 * prints with, for tracer/events/ alone.  Exactly one arch/<name>/
 * directory is linked (ARCH in the Makefile); every directory implements
 * both with the same file names (regs.c, insn.c, syscall.c, wait.c,
 * sctable.c), and arch/common/ holds what they share.  Depends on nothing
 * of ours but struct ptap_err (probes/err.h), which carries the reasons. */
#ifndef PTAP_ARCH_ARCH_H
#define PTAP_ARCH_ARCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/user.h>

struct ptap_err;		/* probes/err.h: a message (pos -1 here) */

typedef struct user_regs_struct arch_regs_t;	/* what PTRACE_GETREGS fills */
typedef struct user_fpregs_struct arch_fpregs_t;	/* what PTRACE_GETFPREGS fills */

extern const char arch_name[];			/* "x86_64" */
extern const unsigned int arch_e_machine;	/* EM_X86_64: checked against each ELF */

/* ---- registers (arch/<name>/regs.c) ----------------------------------- */

/* Number of DWARF registers arch_regs_to_dwarf() fills (x86-64: 17, 0..16 = rip). */
#define ARCH_DWARF_NREGS	17

/* REGS in DWARF register order (x86-64 psABI: rax rdx rcx rbx rsi rdi rbp rsp r8..r15 rip). */
void arch_regs_to_dwarf(const arch_regs_t *regs, uint64_t out[ARCH_DWARF_NREGS]);
/* All DWARF registers a fetch program may read: the general ones, then
 * (x86-64: 17..32) the low 8 bytes of xmm0-15, from PTRACE_GETFPREGS. */
#define ARCH_DWARF_NREGS_ALL	33
void arch_fpregs_to_dwarf(const arch_fpregs_t *fp, uint64_t out[ARCH_DWARF_NREGS_ALL]);

/*
 * DWARF register number of NAME, given without '%': perf's names ("di",
 * "ax", "sp", "ip", "r8") and the full ones ("rdi", "rax", "rip", "r8").
 * Sub-registers are refused.  Returns the number, or -ENOENT.
 */
int arch_reg_by_name(const char *name);
const char *arch_reg_name(unsigned int regno);	/* perf's name ("%di"), or NULL */

/*
 * Where integer argument N (1-based) of the C calling convention lives at
 * function entry: returns its DWARF register number, or -ERANGE when it is on
 * the stack, with *STACK_OFF its offset from the stack pointer.
 */
int arch_arg_location(unsigned int n, long *stack_off);

#define ARCH_DWARF_SP	7
#define ARCH_DWARF_PC	16
/* Go's register ABI: the running goroutine's g, in Go code (x86-64: r14) */
#define ARCH_DWARF_G_REG	14
/* Where a function's return value is (SysV x86-64: rax, rdx; xmm0, xmm1). */
#define ARCH_DWARF_RET_INT0	0
#define ARCH_DWARF_RET_INT1	1
#define ARCH_DWARF_RET_SSE0	17
#define ARCH_DWARF_RET_SSE1	18
/* The return address is stored at CFA + this (a call pushes it just below the CFA). */
#define ARCH_RA_CFA_OFF		(-8)

uint64_t arch_regs_pc(const arch_regs_t *regs);
void arch_regs_set_pc(arch_regs_t *regs, uint64_t pc);
uint64_t arch_regs_sp(const arch_regs_t *regs);
uint64_t arch_regs_flags(const arch_regs_t *regs);
void arch_regs_set_flags(arch_regs_t *regs, uint64_t flags);
/* The thread pointer (x86-64: fs_base), where the thread's TLS block is. */
uint64_t arch_regs_tls(const arch_regs_t *regs);
uint64_t arch_regs_retval(const arch_regs_t *regs);

/* ---- breakpoints and instructions (arch/<name>/insn.c) ------------------- */

#define ARCH_BP_LEN		1
extern const uint8_t arch_bp_insn[ARCH_BP_LEN];	/* int3 */
/* Is a SIGTRAP with this si_code a software breakpoint (x86-64: SI_KERNEL for int3)? */
bool arch_is_bp_trap(int si_code);
/* The probe address a breakpoint trap with PC (after the trap) belongs to. */
uint64_t arch_bp_addr(uint64_t pc_after_trap);

#define ARCH_MAX_INSN		15
#define ARCH_SLOT_SIZE		32	/* bytes of scratch page per out-of-line site */
#define ARCH_OOL_REACH		0x7fff0000ULL	/* a slot must lie within this of the code */

enum arch_step {
	ARCH_STEP_OOL,		/* run the relocated copy in a scratch slot */
	ARCH_STEP_JMP,		/* emulate: rip = target */
	ARCH_STEP_JCC,		/* emulate: rip = cond ? target : pc + len */
	ARCH_STEP_CALL,		/* emulate: push pc + len; rip = target */
	ARCH_STEP_RET,		/* emulate: rip = pop; rsp += pop_extra */
};

struct arch_insn {
	uint64_t pc;		/* where the instruction is in the target */
	uint8_t len;
	uint8_t bytes[ARCH_MAX_INSN];	/* the original bytes */
	enum arch_step step;
	uint64_t target;	/* JMP, JCC, CALL */
	uint8_t cond;		/* JCC: condition code, the low nibble of the opcode (0x70+cc) */
	uint16_t pop_extra;	/* RET imm16 */
	bool riprel;		/* OOL: has a rip-relative operand to fix up */
	uint8_t disp_off;	/* OOL riprel: offset of the disp32 in BYTES */
	char text[48];		/* "push rbp": for messages */
};

/*
 * Decode the instruction at PC from CODE[0..LEN) (LEN may exceed the
 * instruction) and decide how a probe there is stepped over without removing
 * the breakpoint.  0, or -ENOTSUP with WHY holding the reason (an instruction
 * that cannot run out of line and is not emulated: syscall, int3, ud2, a
 * lock prefix, ...), or -EINVAL when CODE does not decode.  On failure INSN
 * holds pc and, if the instruction decoded, len, bytes and text (step OOL,
 * no target): enough for a message, not for stepping.  WHY may be NULL; its
 * message is emptied first.
 */
int arch_insn_analyze(const uint8_t *code, size_t len, uint64_t pc, struct arch_insn *insn,
		      struct ptap_err *why);

/*
 * Write the out-of-line copy of INSN for a slot at SLOT into BUF
 * (ARCH_SLOT_SIZE bytes): the instruction, rip-relative displacement
 * re-based for SLOT, followed by a jump back to pc + len.  Returns the number
 * of bytes used, or -ERANGE when SLOT is too far from the code.
 */
int arch_ool_build(const struct arch_insn *insn, uint64_t slot, uint8_t *buf, size_t len);

/*
 * A jump site: the first instructions at a probe address replaced by a
 * "jmp rel32" to a trampoline in a scratch page that holds the int3, the
 * relocated instructions and a jump back.  The trap stops with the pc in the
 * trampoline, past the int3, where the thread simply goes on: no register
 * write on the hit.  Allowed only under kprobes' rules: the replaced bytes
 * are whole instructions that run anywhere (ARCH_STEP_OOL), and no branch in
 * the function lands inside them (after the first byte).
 */
#define ARCH_JUMP_MAX		20	/* bytes a jump site may replace */
#define ARCH_JUMP_TRAMP		(ARCH_BP_LEN + ARCH_JUMP_MAX + 5)	/* <= ARCH_SLOT_SIZE */

struct arch_jump {
	uint8_t len;			/* bytes replaced (>= 5), 0: the site takes an int3 */
	/*
	 * Where in them the site is: 0, its first byte; else an exit's, with
	 * the instructions before it (arch_exit_jump_before()): the trampoline
	 * runs those, then traps or calls the agent, then runs the exit.
	 */
	uint8_t at;
	uint8_t bytes[ARCH_JUMP_MAX];	/* their original bytes */
};

/*
 * May the probe at PC be a jump site?  FN[0..FNLEN) is the code of the
 * function holding PC, at FN_PC.  0 with J filled, or -ENOTSUP with WHY
 * (J->len 0): an instruction in the way cannot be relocated, the function
 * does not decode to its end, has an indirect jump (a jump table whose
 * targets cannot be checked), or a branch into the replaced bytes.
 */
int arch_jump_analyze(const uint8_t *fn, size_t fnlen, uint64_t fn_pc, uint64_t pc,
		      struct arch_jump *j, struct ptap_err *why);
/*
 * May the exit at PC, a ret or an unconditional direct jump (a tail call),
 * be a jump site?  Only when it is as long as the jump (a jmp rel32) or
 * padding follows it (nops, int3s: the alignment of a branch target or of
 * the next function, which no fall-through reaches) up to where the jump
 * ends: the jump replaces the exit and that padding, and the trampoline
 * runs the exit (the tail call's jump re-aimed from there).
 * CODE[0..LEN) holds the bytes from PC (16 are plenty).  0 with J filled, or
 * -ENOTSUP with WHY.  The caller checks that no branch of the function
 * lands in the padding (arch_jump_check_part()) and no symbol lies in it.
 */
/*
 * May exit EX, a ret with no padding after it, be a jump site that begins
 * with the instructions before it (an epilogue: pops, add to the sp)?
 * FN is the code of the part of the function holding it, BR its branches
 * (arch_branches_of(), its bounds too; EX as arch_func_exits() found it
 * there, with the lengths of the instructions before it): the fewest whole
 * instructions before it that make the jump's five bytes with the ret,
 * none a branch, none a branch target but the first.
 * 0 with J filled, its AT the ret's offset, or -ENOTSUP with WHY.
 */
struct arch_exit;
struct arch_branches;
int arch_exit_jump_before(const uint8_t *fn, const struct arch_branches *br,
			  const struct arch_exit *ex, struct arch_jump *j, struct ptap_err *why);
int arch_exit_jump(const uint8_t *code, size_t len, uint64_t pc, struct arch_jump *j,
		   struct ptap_err *why);
/*
 * The branches of a function (or one part of it), decoded once for the
 * checks of any number of jumps in it: arch_branches_of() fills it from
 * the code FN[0..FNLEN) at FN_PC (0, or -ENOMEM); arch_branches_check()
 * says whether a jump may replace (PC, PC + LEN) there -- the code decodes
 * whole, no jump is indirect, no direct branch or call lands in that range,
 * and, with HOLDS_PC, PC is an instruction's start -- 0 or -ENOTSUP with
 * WHY (FN the same code, for the message).
 */
struct arch_branch {
	uint64_t from, to;
};
struct arch_branches {
	uint64_t lo, hi;		/* the code's bounds */
	struct arch_branch *b;		/* the direct branches and calls, by target */
	size_t n;
	uint8_t *starts;		/* bit I: an instruction starts at LO + I */
	uint64_t indirect;		/* the first indirect jump, 0: none */
	char indirect_text[48];
	uint64_t bad;			/* where the code stops decoding, 0: it decodes whole */
};
int arch_branches_of(const uint8_t *fn, size_t fnlen, uint64_t fn_pc, struct arch_branches *out);
int arch_branches_check(const uint8_t *fn, const struct arch_branches *b, uint64_t pc,
			unsigned int len, bool holds_pc, struct ptap_err *why);
void arch_branches_free(struct arch_branches *b);
/*
 * The same check of the branches in another part of the function (gcc's
 * "f.cold", which jumps back into f): 0 or -ENOTSUP with WHY.
 */
int arch_jump_check_part(const uint8_t *fn, size_t fnlen, uint64_t fn_pc, uint64_t pc,
			 const struct arch_jump *j, struct ptap_err *why);
/*
 * Write the trampoline of J (for a site at PC) that lives at TRAMP into BUF
 * (ARCH_SLOT_SIZE bytes): int3, the instructions (rip-relative operands
 * re-based), a jump back to PC + J->len; the rest int3.  With J->at, the
 * int3 comes after the instructions before it, at TRAMP + J->at.  Bytes
 * used, or -ERANGE (too far), -EINVAL.
 */
int arch_jump_tramp_build(const struct arch_jump *j, uint64_t pc, uint64_t tramp, uint8_t *buf,
			  size_t len);
/*
 * In-process probes (issue 20): a trampoline that, instead of trapping,
 * calls FN(REGS, COOKIE) on the thread itself -- REGS the site's registers
 * as ARCH_DWARF_NREGS 64-bit words in DWARF order (the stack pointer and pc
 * as they are at the site), COOKIE a word of the caller's -- then runs the
 * relocated instructions of J and jumps back to PC + J->len, every register
 * and flag as it was.  FN is called as the C ABI wants it: stack aligned,
 * direction flag clear, below the site's red zone.  It must not touch the
 * vector registers (a -mgeneral-regs-only build): they are not saved.
 * Into BUF (LEN bytes, ARCH_AGENT_TRAMP_MAX is enough), for the trampoline
 * at TRAMP: bytes used, or -ERANGE (too far), -EINVAL, -ENOSPC.
 */
#define ARCH_AGENT_TRAMP_MAX	384
/*
 * The trampoline starts with a jump over its relocated instructions to the
 * call (jmp rel8): the byte at TRAMP + J->at + ARCH_AGENT_TRAMP_ARM written
 * 0, it jumps to them straight, and FN is called no more.  One byte: a
 * thread running the trampoline meanwhile takes one way or the other,
 * whole.  (With J->at, the instructions before the exit come first.)
 */
#define ARCH_AGENT_TRAMP_ARM	1
/*
 * The frame the kernel builds on the stack to run a signal handler
 * (rt_sigframe), in 64-bit words from its start, where the handler's return
 * address is: the sa_restorer (code that runs rt_sigreturn), then the
 * ucontext -- uc_flags, uc_link (always 0), the stack_t -- and the
 * sigcontext, which holds the interrupted thread's stack pointer, pc,
 * flags and code segment.  Detach looks for one whose saved pc is in code of ours.
 */
#define ARCH_SIGFRAME_RESTORER	0
#define ARCH_SIGFRAME_UC_LINK	2
#define ARCH_SIGFRAME_SP	21
#define ARCH_SIGFRAME_PC	22
#define ARCH_SIGFRAME_FLAGS	23
#define ARCH_SIGFRAME_CS	24	/* its low 16 bits: the code segment, a 64-bit user one */
#define ARCH_SIGFRAME_WORDS	25
#define ARCH_CS_USER64		0x33
#define ARCH_FLAGS_ONE		0x2	/* reserved: always set */
#define ARCH_FLAGS_IF		0x200	/* interrupts on: always, in user mode */
/* pushfq, and the trap flag it pushes while the thread is single-stepped (detach) */
#define ARCH_PUSHF_OP		0x9c
#define ARCH_FLAGS_TF		0x100
int arch_agent_tramp_build(const struct arch_jump *j, uint64_t pc, uint64_t tramp, uint64_t fn,
			   uint64_t cookie, uint8_t *buf, size_t len);
/*
 * How the trampoline gives the flags back: by sahf and an add (the default,
 * where the CPU has sahf in 64-bit mode: CPUID 0x80000001 ECX bit 0, which
 * the first x86-64 CPUs lack), or, USE false, by popfq (a dozen times as
 * slow).  For tests, to build both.
 */
void arch_agent_tramp_use_sahf(bool use);
/* The J->len bytes that replace the code at PC: the jump to TRAMP, then int3s.  0 or -ERANGE. */
int arch_jump_patch(const struct arch_jump *j, uint64_t pc, uint64_t tramp, uint8_t *buf);

/*
 * The exits of a function: where a return probe placed at them, rather than
 * on the stack, records the return (DTrace's pid provider).  An exit is a
 * return instruction, or a direct jump (conditional or not) that lands
 * outside every part of the function: a tail call, whose callee returns
 * for it.
 */
enum arch_exit_kind {
	ARCH_EXIT_RET,		/* ret: the caller's return address is at the sp */
	ARCH_EXIT_TAIL,		/* a jump to .to, which returns to the caller */
};

#define ARCH_EXIT_BEFORE	4

struct arch_exit {
	uint64_t pc;		/* the exit instruction */
	uint64_t to;		/* ARCH_EXIT_TAIL: where it jumps */
	uint8_t len;		/* its length */
	uint8_t kind;		/* enum arch_exit_kind */
	/* the lengths of the instructions before it, the nearest first (0: no more) */
	uint8_t before[ARCH_EXIT_BEFORE];
};

/* One contiguous part of a function: [lo, hi) ("f", and gcc's "f.cold"). */
struct arch_range {
	uint64_t lo, hi;
};

/*
 * The exits in FN[0..FNLEN), the code of one part of a function at FN_PC,
 * whose parts are PARTS[0..NPARTS) (this one among them): decoded whole,
 * from its start.  Up to MAX of them in OUT.  Their number, or -ENOTSUP
 * with WHY when they cannot all be known: the code does not decode to its
 * end, or an indirect jump could leave the function (a jump table or an
 * indirect tail call: their targets are not in the code); -ENOSPC when there
 * are more than MAX.
 */
int arch_func_exits(const uint8_t *fn, size_t fnlen, uint64_t fn_pc,
		    const struct arch_range *parts, int nparts, struct arch_exit *out, int max,
		    struct ptap_err *why);

/*
 * The addresses an IFUNC resolver can return (the implementations the
 * dynamic loader may bind the symbol to).  FN[0..FNLEN) is the resolver's
 * code at FN_PC.  Its branches are followed inside it (every path, both
 * ways at each conditional jump), tracking which registers hold addresses
 * it put there itself (a rip-relative lea, a move of an immediate, moves
 * and conditional moves between registers); a call leaves the
 * caller-saved registers unknown.  At each return the return register
 * must hold only such addresses.  Fills OUT with them (sorted, distinct;
 * the caller checks they are code) and returns how many, or -ENOTSUP with
 * WHY: the code does not decode, jumps out of the resolver or through a
 * register, returns a value it computed or loaded (a call's result, a
 * vDSO function), never returns; -E2BIG when there are more than MAX.
 */
#define ARCH_IFUNC_FN_MAX	4096	/* longer resolvers are not decoded */
int arch_ifunc_targets(const uint8_t *fn, size_t fnlen, uint64_t fn_pc, uint64_t *out, int max,
		       struct ptap_err *why);

/*
 * Emulate INSN (step != ARCH_STEP_OOL) on REGS, whose pc is INSN->pc.  CALL
 * writes the return address below the stack pointer through WRITE_MEM; RET
 * reads it through READ_MEM.  Both return 0 or -errno.  0 or -errno.
 */
/*
 * Frame pointers at INSN, a probe's instruction not run yet: where the
 * function's return address is relative to the stack pointer when the
 * function has not set its frame up there (0: at its first instruction, a
 * push of the frame pointer or an endbr, and at a ret; 8: just after the
 * push), or -1: the frame is set up (the return address is next to the
 * saved frame pointer).
 */
int arch_insn_ra_at_sp(const struct arch_insn *insn);
/* Does INSN, at REGS, go to its target?  A conditional jump by the flags; anything else: true. */
bool arch_branch_taken(const struct arch_insn *insn, const arch_regs_t *regs);
int arch_emulate(const struct arch_insn *insn, arch_regs_t *regs,
		 int (*read_mem)(void *priv, uint64_t addr, void *buf, size_t len),
		 int (*write_mem)(void *priv, uint64_t addr, const void *buf, size_t len),
		 void *priv);

/*
 * Go's stack-bound check at the entry of a Go function (CODE[0..LEN), the
 * function's first bytes, at PC): the length of the check, up to and
 * including its conditional jump to the call of runtime.morestack; 0 when
 * CODE does not start with one.  Once morestack has grown the stack (or
 * preempted the goroutine) Go restarts the function from its entry, so a
 * probe there would see one call twice; past the check it sees it once, the
 * argument registers still as at the entry.
 */
size_t arch_go_stack_check_len(const uint8_t *code, size_t len, uint64_t pc);

/*
 * Go's register of the running goroutine (its g) in Go's internal ABI, as a
 * DWARF register number, and where in a g the top of its stack is
 * (g.stack.hi): a goroutine's stack moves when Go grows it, its depth
 * below the top stays.
 */
#define ARCH_GO_G_DWARF		14	/* r14 */
#define ARCH_GO_STACK_HI	8

/* ---- system calls (arch/<name>/syscall.c) ----------------------------- */

/* Registers that make the thread run system call NR(ARGS) from PC (a syscall instruction). */
void arch_syscall_setup(arch_regs_t *regs, uint64_t pc, long nr, const uint64_t args[6]);
/* The return value of a finished system call (negative errno on failure). */
long arch_syscall_result(const arch_regs_t *regs);
/* Argument I (0-based) and number (-1: none) of the syscall a thread is stopped in. */
uint64_t arch_syscall_arg(const arch_regs_t *regs, int i);
long arch_syscall_nr(const arch_regs_t *regs);
/* The number of the system call a thread stopped on its syscall instruction is about to make. */
long arch_syscall_next_nr(const arch_regs_t *regs);
/* Set argument I (0-based) of the syscall a thread is stopped in (seccomp or entry stop). */
void arch_syscall_set_arg(arch_regs_t *regs, int i, uint64_t val);
/*
 * REGS were saved while the thread was inside a system call that the kernel
 * is to restart on the way back to user space (interrupted by a ptrace stop:
 * -ERESTARTSYS and kin in the return register).  Restarting happens only on
 * the signal path, which an injected system call bypasses: rewrite REGS so
 * the thread re-executes the call itself (pc back onto the syscall
 * instruction, the number back in place; restart_syscall for a restart
 * block), and mark them as no longer in a call.  Returns true when it did.
 */
bool arch_syscall_restart(arch_regs_t *regs);
/* Are REGS those of a thread stopped inside a system call (the pc follows its syscall insn)? */
bool arch_regs_in_syscall(const arch_regs_t *regs);
/* The seccomp_data.arch value (AUDIT_ARCH_*) of the native syscall ABI. */
extern const uint32_t arch_audit_arch;

#define ARCH_SYSCALL_INSN_LEN	2
extern const uint8_t arch_syscall_insn[ARCH_SYSCALL_INSN_LEN];	/* 0f 05 */

/* ---- a cancellable wait (arch/<name>/wait.c) ------------------------------ */

/*
 * wait4(PID, STATUS, OPTIONS, NULL) that ptap's signal handlers can cancel:
 * returns what wait4 returns, the pid or -errno, and -EINTR without waiting
 * when one of the flags FLAGS points to (up to a NULL) is set, or when a
 * handler calling arch_wait4_cancel() ran before the wait ended.  The
 * handlers run with SA_RESTART, so no other system call of ptap's sees
 * EINTR.
 */
long arch_wait4_cancellable(int pid, int *status, int options,
			    const volatile int *const flags[]);
/* From a signal handler, with its ucontext: cancel a wait as above. */
void arch_wait4_cancel(void *ucontext);

#endif
