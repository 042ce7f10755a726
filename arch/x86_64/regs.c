/* arch/x86_64/regs.c: x86-64 registers as DWARF numbers them (psABI, figure
 * "DWARF Register Number Mapping"), perf's register names, and the SysV
 * integer argument registers.  Pure: no ptrace, no I/O. */
#include <elf.h>
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "arch/arch.h"

const char arch_name[] = "x86_64";
const unsigned int arch_e_machine = EM_X86_64;

/* Indexed by DWARF register number; PERF is what `perf probe` prints ("%di"). */
static const struct {
	const char *perf;
	const char *full;
	size_t off;		/* in struct user_regs_struct */
} x86_64_dwarf_regs[ARCH_DWARF_NREGS] = {
	[0] = { "%ax", "rax", offsetof(arch_regs_t, rax) },
	[1] = { "%dx", "rdx", offsetof(arch_regs_t, rdx) },
	[2] = { "%cx", "rcx", offsetof(arch_regs_t, rcx) },
	[3] = { "%bx", "rbx", offsetof(arch_regs_t, rbx) },
	[4] = { "%si", "rsi", offsetof(arch_regs_t, rsi) },
	[5] = { "%di", "rdi", offsetof(arch_regs_t, rdi) },
	[6] = { "%bp", "rbp", offsetof(arch_regs_t, rbp) },
	[7] = { "%sp", "rsp", offsetof(arch_regs_t, rsp) },
	[8] = { "%r8", "r8", offsetof(arch_regs_t, r8) },
	[9] = { "%r9", "r9", offsetof(arch_regs_t, r9) },
	[10] = { "%r10", "r10", offsetof(arch_regs_t, r10) },
	[11] = { "%r11", "r11", offsetof(arch_regs_t, r11) },
	[12] = { "%r12", "r12", offsetof(arch_regs_t, r12) },
	[13] = { "%r13", "r13", offsetof(arch_regs_t, r13) },
	[14] = { "%r14", "r14", offsetof(arch_regs_t, r14) },
	[15] = { "%r15", "r15", offsetof(arch_regs_t, r15) },
	[16] = { "%ip", "rip", offsetof(arch_regs_t, rip) },
};

/* SysV AMD64 ABI 3.2.3: INTEGER class arguments 1..6, as DWARF numbers. */
static const int x86_64_arg_regs[] = { 5, 4, 1, 2, 8, 9 };	/* rdi rsi rdx rcx r8 r9 */

void arch_regs_to_dwarf(const arch_regs_t *regs, uint64_t out[ARCH_DWARF_NREGS])
{
	const char *base = (const char *)regs;

	for (unsigned int i = 0; i < ARCH_DWARF_NREGS; i++)
		memcpy(&out[i], base + x86_64_dwarf_regs[i].off, sizeof(out[i]));
}

void arch_fpregs_to_dwarf(const arch_fpregs_t *fp, uint64_t out[ARCH_DWARF_NREGS_ALL])
{
	/* xmm_space: 16 registers of four 32-bit words each */
	for (unsigned int i = 0; i < 16; i++)
		memcpy(&out[ARCH_DWARF_NREGS + i], &fp->xmm_space[i * 4], sizeof(uint64_t));
}

int arch_reg_by_name(const char *name)
{
	if (!name)
		return -ENOENT;
	for (int i = 0; i < ARCH_DWARF_NREGS; i++) {
		/* perf's name is the table's without the '%' */
		if (!strcmp(name, x86_64_dwarf_regs[i].perf + 1) ||
		    !strcmp(name, x86_64_dwarf_regs[i].full))
			return i;
	}
	return -ENOENT;
}

const char *arch_reg_name(unsigned int regno)
{
	return regno < ARCH_DWARF_NREGS ? x86_64_dwarf_regs[regno].perf : NULL;
}

int arch_arg_location(unsigned int n, long *stack_off)
{
	const unsigned int nregs = sizeof(x86_64_arg_regs) / sizeof(x86_64_arg_regs[0]);

	if (n == 0)
		return -EINVAL;
	if (n <= nregs)
		return x86_64_arg_regs[n - 1];
	/*
	 * At the first instruction [rsp] is the return address the call
	 * pushed; argument 7 is just above it, each further one 8 bytes up.
	 */
	if (stack_off)
		*stack_off = 8L * (long)(n - nregs);
	return -ERANGE;
}

uint64_t arch_regs_pc(const arch_regs_t *regs)
{
	return regs->rip;
}

uint64_t arch_regs_flags(const arch_regs_t *regs)
{
	return regs->eflags;
}

void arch_regs_set_flags(arch_regs_t *regs, uint64_t flags)
{
	regs->eflags = flags;
}

void arch_regs_set_pc(arch_regs_t *regs, uint64_t pc)
{
	regs->rip = pc;
}

uint64_t arch_regs_sp(const arch_regs_t *regs)
{
	return regs->rsp;
}

uint64_t arch_regs_tls(const arch_regs_t *regs)
{
	return regs->fs_base;
}

uint64_t arch_regs_retval(const arch_regs_t *regs)
{
	return regs->rax;
}
