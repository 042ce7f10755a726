/* tests/unit/test_arch.c: arch/x86_64 - register numbering, instruction
 * classification, out-of-line relocation (checked arithmetically and by
 * running relocated code in this process), branch emulation, syscall ABI. */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <cpuid.h>
#include <elf.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "arch/arch.h"
#include "dwarf/elfmod.h"
#include "probes/err.h"
#include "tests/unit/unit_paths.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define PC		0x401000ULL	/* where the analyze rows pretend to be */

/* ---- registers ------------------------------------------------------- */

Test(arch_regs, identity)
{
	cr_assert_str_eq(arch_name, "x86_64");
	cr_assert(eq(uint, arch_e_machine, EM_X86_64));
	cr_assert(eq(int, ARCH_DWARF_NREGS, 17));
}

Test(arch_regs, to_dwarf_follows_psabi_order)
{
	arch_regs_t r;
	uint64_t out[ARCH_DWARF_NREGS];

	memset(&r, 0xee, sizeof(r));
	r.rax = 0xa0; r.rdx = 0xd0; r.rcx = 0xc0; r.rbx = 0xb0;
	r.rsi = 0x51; r.rdi = 0xd1; r.rbp = 0xb9; r.rsp = 0x59;
	r.r8 = 0x108; r.r9 = 0x109; r.r10 = 0x110; r.r11 = 0x111;
	r.r12 = 0x112; r.r13 = 0x113; r.r14 = 0x114; r.r15 = 0x115;
	r.rip = 0x1b;
	r.eflags = 0x246; r.orig_rax = 0x3c;	/* not DWARF registers */

	const uint64_t want[ARCH_DWARF_NREGS] = {
		0xa0, 0xd0, 0xc0, 0xb0, 0x51, 0xd1, 0xb9, 0x59,
		0x108, 0x109, 0x110, 0x111, 0x112, 0x113, 0x114, 0x115, 0x1b,
	};
	memset(out, 0, sizeof(out));
	arch_regs_to_dwarf(&r, out);
	for (unsigned int i = 0; i < ARCH_DWARF_NREGS; i++)
		cr_assert(eq(u64, out[i], want[i]), "dwarf reg %u: %#lx != %#lx", i,
			  (unsigned long)out[i], (unsigned long)want[i]);
	cr_assert(eq(u64, out[ARCH_DWARF_SP], r.rsp));
	cr_assert(eq(u64, out[ARCH_DWARF_PC], r.rip));
}

static const struct {
	const char *name;
	int regno;
} reg_names[] = {
	{ "ax", 0 }, { "rax", 0 }, { "dx", 1 }, { "rdx", 1 },
	{ "cx", 2 }, { "rcx", 2 }, { "bx", 3 }, { "rbx", 3 },
	{ "si", 4 }, { "rsi", 4 }, { "di", 5 }, { "rdi", 5 },
	{ "bp", 6 }, { "rbp", 6 }, { "sp", 7 }, { "rsp", 7 },
	{ "r8", 8 }, { "r9", 9 }, { "r10", 10 }, { "r11", 11 },
	{ "r12", 12 }, { "r13", 13 }, { "r14", 14 }, { "r15", 15 },
	{ "ip", 16 }, { "rip", 16 },
	/* sub-registers, other registers, wrong case, perf's '%' form */
	{ "eax", -ENOENT }, { "al", -ENOENT }, { "ah", -ENOENT }, { "r8d", -ENOENT },
	{ "r8w", -ENOENT }, { "r8b", -ENOENT }, { "flags", -ENOENT }, { "eflags", -ENOENT },
	{ "RAX", -ENOENT }, { "Di", -ENOENT }, { "%di", -ENOENT }, { "r16", -ENOENT },
	{ "r", -ENOENT }, { "", -ENOENT }, { "xmm0", -ENOENT }, { "eip", -ENOENT },
	{ "rdi ", -ENOENT }, { "orig_rax", -ENOENT },
};

Test(arch_regs, by_name)
{
	for (size_t i = 0; i < ARRAY_SIZE(reg_names); i++)
		cr_assert(eq(int, arch_reg_by_name(reg_names[i].name), reg_names[i].regno),
			  "'%s': %d", reg_names[i].name, arch_reg_by_name(reg_names[i].name));
	cr_assert(eq(int, arch_reg_by_name(NULL), -ENOENT));
}

Test(arch_regs, names_are_perfs)
{
	static const char *const want[ARCH_DWARF_NREGS] = {
		"%ax", "%dx", "%cx", "%bx", "%si", "%di", "%bp", "%sp",
		"%r8", "%r9", "%r10", "%r11", "%r12", "%r13", "%r14", "%r15", "%ip",
	};

	for (unsigned int i = 0; i < ARCH_DWARF_NREGS; i++) {
		cr_assert_str_eq(arch_reg_name(i), want[i]);
		/* round trip: the name without '%' maps back */
		cr_assert(eq(int, arch_reg_by_name(arch_reg_name(i) + 1), (int)i));
	}
	cr_assert_null(arch_reg_name(ARCH_DWARF_NREGS));
	cr_assert_null(arch_reg_name(49));	/* DWARF rflags: not ours */
	cr_assert_null(arch_reg_name(~0U));
}

Test(arch_regs, arg_locations)
{
	static const int regs[] = { 5, 4, 1, 2, 8, 9 };	/* rdi rsi rdx rcx r8 r9 */
	static const struct { unsigned int n; long off; } stack[] = {
		{ 7, 8 }, { 8, 16 }, { 9, 24 }, { 12, 48 },
	};
	long off;

	for (unsigned int n = 1; n <= 6; n++) {
		off = -1;
		cr_assert(eq(int, arch_arg_location(n, &off), regs[n - 1]), "arg %u", n);
		cr_assert(eq(long, off, -1), "arg %u: stack offset touched", n);
	}
	for (size_t i = 0; i < ARRAY_SIZE(stack); i++) {
		off = -1;
		cr_assert(eq(int, arch_arg_location(stack[i].n, &off), -ERANGE));
		cr_assert(eq(long, off, stack[i].off), "arg %u: %ld", stack[i].n, off);
	}
	cr_assert(eq(int, arch_arg_location(0, &off), -EINVAL));
	cr_assert(eq(int, arch_arg_location(7, NULL), -ERANGE));
	cr_assert_str_eq(arch_reg_name(arch_arg_location(1, NULL)), "%di");
	cr_assert_str_eq(arch_reg_name(arch_arg_location(4, NULL)), "%cx");
}

Test(arch_regs, accessors)
{
	arch_regs_t r;

	memset(&r, 0, sizeof(r));
	r.rip = 0x401234;
	r.rsp = 0x7ffc0000;
	r.rax = (uint64_t)-5;
	cr_assert(eq(u64, arch_regs_pc(&r), 0x401234));
	cr_assert(eq(u64, arch_regs_sp(&r), 0x7ffc0000));
	cr_assert(eq(ulong, arch_regs_retval(&r), (uint64_t)-5));
	arch_regs_set_pc(&r, 0x401000);
	cr_assert(eq(ullong, r.rip, 0x401000));
	cr_assert(eq(u64, arch_regs_pc(&r), 0x401000));
}

/* ---- system calls ------------------------------------------------------ */

Test(arch_syscall, setup_and_result)
{
	const uint64_t args[6] = { 0x11, 0x22, 0x33, 0x44, 0x55, 0x66 };
	arch_regs_t r;

	cr_assert(eq(int, ARCH_SYSCALL_INSN_LEN, 2));
	cr_assert(eq(int, arch_syscall_insn[0], 0x0f));
	cr_assert(eq(int, arch_syscall_insn[1], 0x05));

	memset(&r, 0x77, sizeof(r));
	arch_syscall_setup(&r, 0x7f0000001000, 9 /* mmap */, args);
	cr_assert(eq(ullong, r.rip, 0x7f0000001000));
	cr_assert(eq(ullong, r.rax, 9));
	cr_assert(eq(ullong, r.orig_rax, (uint64_t)-1));
	cr_assert(eq(ullong, r.rdi, 0x11));
	cr_assert(eq(ullong, r.rsi, 0x22));
	cr_assert(eq(ullong, r.rdx, 0x33));
	cr_assert(eq(ullong, r.r10, 0x44));
	cr_assert(eq(ullong, r.r8, 0x55));
	cr_assert(eq(ullong, r.r9, 0x66));
	/* rcx is not an argument register (syscall clobbers it); rsp untouched */
	cr_assert(eq(ullong, r.rcx, 0x7777777777777777ULL));
	cr_assert(eq(ullong, r.rsp, 0x7777777777777777ULL));

	r.rax = (uint64_t)-ENOMEM;
	cr_assert(eq(long, arch_syscall_result(&r), -ENOMEM));
	r.rax = 0x7f1234560000;
	cr_assert(eq(long, arch_syscall_result(&r), 0x7f1234560000L));
}

/* ---- breakpoints ---------------------------------------------------- */

Test(arch_insn, breakpoint)
{
	cr_assert(eq(int, ARCH_BP_LEN, 1));
	cr_assert(eq(int, arch_bp_insn[0], 0xcc));
	cr_assert(eq(u64, arch_bp_addr(0x401001), 0x401000));
}

/* ---- analyze: accepted ------------------------------------------------- */

struct ok_row {
	uint8_t len;			/* bytes in CODE */
	uint8_t code[ARCH_MAX_INSN];
	enum arch_step step;
	uint8_t ilen;			/* decoded length */
	uint64_t target;		/* JMP JCC CALL */
	uint8_t cond;			/* JCC */
	uint16_t pop_extra;		/* RET */
	int8_t disp_off;		/* OOL: -1 = not rip-relative */
	const char *text;		/* NULL: not checked */
};

#define B(...)	sizeof((uint8_t[]){ __VA_ARGS__ }), { __VA_ARGS__ }

static const struct ok_row ok_rows[] = {
	/* jmp .+0x12 */
	{ B(0xeb, 0x10), ARCH_STEP_JMP, 2, PC + 0x12, 0, 0, -1, "jmp 0x401012" },
	/* jmp . */
	{ B(0xeb, 0xfe), ARCH_STEP_JMP, 2, PC, 0, 0, -1, NULL },
	/* jmp .+0x105 (rel32) */
	{ B(0xe9, 0x00, 0x01, 0x00, 0x00), ARCH_STEP_JMP, 5, PC + 0x105, 0, 0, -1, NULL },
	/* jmp . (rel32 -5) */
	{ B(0xe9, 0xfb, 0xff, 0xff, 0xff), ARCH_STEP_JMP, 5, PC, 0, 0, -1, NULL },
	/* bnd jmp .+0x106 */
	{ B(0xf2, 0xe9, 0x00, 0x01, 0x00, 0x00), ARCH_STEP_JMP, 6, PC + 0x106, 0, 0, -1, NULL },
	/* rex.W jmp .+0x12 (REX ignored) */
	{ B(0x48, 0xeb, 0x0f), ARCH_STEP_JMP, 3, PC + 0x12, 0, 0, -1, NULL },
	/* je .+7 */
	{ B(0x74, 0x05), ARCH_STEP_JCC, 2, PC + 7, 0x4, 0, -1, "je 0x401007" },
	/* jg .-14 */
	{ B(0x7f, 0xf0), ARCH_STEP_JCC, 2, PC - 14, 0xf, 0, -1, NULL },
	/* jo .+2 */
	{ B(0x70, 0x00), ARCH_STEP_JCC, 2, PC + 2, 0x0, 0, -1, NULL },
	/* je .+0x16 (rel32) */
	{ B(0x0f, 0x84, 0x10, 0x00, 0x00, 0x00), ARCH_STEP_JCC, 6, PC + 0x16, 0x4, 0, -1, NULL },
	/* jl . (rel32 -6) */
	{ B(0x0f, 0x8c, 0xfa, 0xff, 0xff, 0xff), ARCH_STEP_JCC, 6, PC, 0xc, 0, -1, NULL },
	/* jno .+0x1006 (rel32) */
	{ B(0x0f, 0x81, 0x00, 0x10, 0x00, 0x00), ARCH_STEP_JCC, 6, PC + 0x1006, 0x1, 0, -1, NULL },
	/* je,pt .+8 (3e: branch hint) */
	{ B(0x3e, 0x74, 0x05), ARCH_STEP_JCC, 3, PC + 8, 0x4, 0, -1, NULL },
	/* rex.W je .+0x12 */
	{ B(0x48, 0x74, 0x0f), ARCH_STEP_JCC, 3, PC + 0x12, 0x4, 0, -1, NULL },
	/* call .+5 */
	{ B(0xe8, 0x00, 0x00, 0x00, 0x00), ARCH_STEP_CALL, 5, PC + 5, 0, 0, -1, NULL },
	/* call .-0xb */
	{ B(0xe8, 0xf0, 0xff, 0xff, 0xff), ARCH_STEP_CALL, 5, PC - 0xb, 0, 0, -1, NULL },
	/* ret */
	{ B(0xc3), ARCH_STEP_RET, 1, 0, 0, 0, -1, "ret" },
	/* repz ret */
	{ B(0xf3, 0xc3), ARCH_STEP_RET, 2, 0, 0, 0, -1, NULL },
	/* bnd ret */
	{ B(0xf2, 0xc3), ARCH_STEP_RET, 2, 0, 0, 0, -1, NULL },
	/* ret $0x8 */
	{ B(0xc2, 0x08, 0x00), ARCH_STEP_RET, 3, 0, 0, 8, -1, NULL },
	/* ret $0x110 */
	{ B(0xc2, 0x10, 0x01), ARCH_STEP_RET, 3, 0, 0, 0x110, -1, NULL },
	/* push %rbp */
	{ B(0x55), ARCH_STEP_OOL, 1, 0, 0, 0, -1, "push rbp" },
	/* push %rsp */
	{ B(0x54), ARCH_STEP_OOL, 1, 0, 0, 0, -1, NULL },
	/* endbr64 */
	{ B(0xf3, 0x0f, 0x1e, 0xfa), ARCH_STEP_OOL, 4, 0, 0, 0, -1, "endbr64" },
	/* sub $0x18,%rsp */
	{ B(0x48, 0x83, 0xec, 0x18), ARCH_STEP_OOL, 4, 0, 0, 0, -1, "sub rsp, 0x18" },
	/* mov 0x12345678(%rip),%rax */
	{ B(0x48, 0x8b, 0x05, 0x78, 0x56, 0x34, 0x12), ARCH_STEP_OOL, 7, 0, 0, 0, 3,
	  "mov rax, qword ptr [rip + 0x12345678]" },
	/* mov %rdi,0x100(%rip) */
	{ B(0x48, 0x89, 0x3d, 0x00, 0x01, 0x00, 0x00), ARCH_STEP_OOL, 7, 0, 0, 0, 3, NULL },
	/* lea -0x7(%rip),%rax */
	{ B(0x48, 0x8d, 0x05, 0xf9, 0xff, 0xff, 0xff), ARCH_STEP_OOL, 7, 0, 0, 0, 3, NULL },
	/* add 0x10(%rip),%r8 (REX.WR) */
	{ B(0x4c, 0x03, 0x05, 0x10, 0x00, 0x00, 0x00), ARCH_STEP_OOL, 7, 0, 0, 0, 3,
	  "add r8, qword ptr [rip + 0x10]" },
	/* mov -0x10(%rip),%eax */
	{ B(0x8b, 0x05, 0xf0, 0xff, 0xff, 0xff), ARCH_STEP_OOL, 6, 0, 0, 0, 2, NULL },
	/* movdqu 0x20(%rip),%xmm0 */
	{ B(0xf3, 0x0f, 0x6f, 0x05, 0x20, 0x00, 0x00, 0x00), ARCH_STEP_OOL, 8, 0, 0, 0, 4, NULL },
	/* vmovdqu 0x20(%rip),%xmm1 (VEX) */
	{ B(0xc5, 0xfa, 0x6f, 0x0d, 0x20, 0x00, 0x00, 0x00), ARCH_STEP_OOL, 8, 0, 0, 0, 4, NULL },
	/* vmovdqu64 0x40(%rip),%zmm17 (EVEX) */
	{ B(0x62, 0xe1, 0xfe, 0x48, 0x6f, 0x0d, 0x40, 0x00, 0x00, 0x00), ARCH_STEP_OOL, 10, 0, 0, 0,
	  6, NULL },
	/* cmpl $0x5,0x10(%rip) (imm8 after the disp) */
	{ B(0x83, 0x3d, 0x10, 0x00, 0x00, 0x00, 0x05), ARCH_STEP_OOL, 7, 0, 0, 0, 2, NULL },
	/* movq $0x12345678,0x10(%rip) (imm32 after the disp) */
	{ B(0x48, 0xc7, 0x05, 0x10, 0x00, 0x00, 0x00, 0x78, 0x56, 0x34, 0x12), ARCH_STEP_OOL, 11,
	  0, 0, 0, 3, NULL },
	/* movw $0x1234,0x10(%rip) (capstone 4.0.2 calls the disp 2 bytes: it is 4) */
	{ B(0x66, 0xc7, 0x05, 0x10, 0x00, 0x00, 0x00, 0x34, 0x12), ARCH_STEP_OOL, 9, 0, 0, 0, 3,
	  NULL },
	/* mov %fs:0x28,%rax (absolute, not rip-relative) */
	{ B(0x64, 0x48, 0x8b, 0x04, 0x25, 0x28, 0x00, 0x00, 0x00), ARCH_STEP_OOL, 9, 0, 0, 0, -1,
	  "mov rax, qword ptr fs:[0x28]" },
	/* mov %fs:0x10(%rip),%rax */
	{ B(0x64, 0x48, 0x8b, 0x05, 0x10, 0x00, 0x00, 0x00), ARCH_STEP_OOL, 8, 0, 0, 0, 4, NULL },
	/* jmp *0x10(%rip): does not return, fine out of line */
	{ B(0xff, 0x25, 0x10, 0x00, 0x00, 0x00), ARCH_STEP_OOL, 6, 0, 0, 0, 2, NULL },
	/* jmp *%rax */
	{ B(0xff, 0xe0), ARCH_STEP_OOL, 2, 0, 0, 0, -1, NULL },
	/* notrack jmp *%rax */
	{ B(0x3e, 0xff, 0xe0), ARCH_STEP_OOL, 3, 0, 0, 0, -1, NULL },
	/* xchg %ax,%ax */
	{ B(0x66, 0x90), ARCH_STEP_OOL, 2, 0, 0, 0, -1, NULL },
	/* nop */
	{ B(0x90), ARCH_STEP_OOL, 1, 0, 0, 0, -1, "nop" },
	/* nopl (%rax,%rax,1) */
	{ B(0x0f, 0x1f, 0x04, 0x00), ARCH_STEP_OOL, 4, 0, 0, 0, -1, NULL },
	/* mov (%rsp),%rax */
	{ B(0x48, 0x8b, 0x04, 0x24), ARCH_STEP_OOL, 4, 0, 0, 0, -1, NULL },
	/* lea 0x1000,%rax (SIB, no base: absolute, not rip-relative) */
	{ B(0x48, 0x8d, 0x04, 0x25, 0x00, 0x10, 0x00, 0x00), ARCH_STEP_OOL, 8, 0, 0, 0, -1, NULL },
	/* push %rbp; mov %rsp,%rbp: only the first instruction counts */
	{ B(0x55, 0x48, 0x89, 0xe5), ARCH_STEP_OOL, 1, 0, 0, 0, -1, NULL },
};

Test(arch_insn, analyze_accepts)
{
	for (size_t i = 0; i < ARRAY_SIZE(ok_rows); i++) {
		const struct ok_row *row = &ok_rows[i];
		struct arch_insn insn;
		struct ptap_err why = { .pos = -1, .msg = "untouched" };
		int err;

		err = arch_insn_analyze(row->code, row->len, PC, &insn, &why);
		cr_assert(eq(int, err, 0), "row %zu (%02x..): %d %s", i, row->code[0], err,
			  why.msg);
		cr_assert(eq(u64, insn.pc, PC));
		cr_assert(eq(int, insn.len, row->ilen), "row %zu: len %u", i, insn.len);
		cr_assert(eq(mem, ((struct cr_mem){ insn.bytes, row->ilen }),
			     ((struct cr_mem){ row->code, row->ilen })), "row %zu: bytes", i);
		cr_assert(eq(uint, insn.step, row->step),
			  "row %zu [%s]: step %d", i, insn.text, insn.step);
		if (row->step == ARCH_STEP_JMP || row->step == ARCH_STEP_JCC ||
		    row->step == ARCH_STEP_CALL)
			cr_assert(eq(u64, insn.target, row->target), "row %zu [%s]: target %#lx", i,
				  insn.text, (unsigned long)insn.target);
		if (row->step == ARCH_STEP_JCC)
			cr_assert(eq(int, insn.cond, row->cond), "row %zu: cond %u", i, insn.cond);
		cr_assert(eq(int, insn.pop_extra, row->pop_extra), "row %zu", i);
		cr_assert(eq(int, insn.riprel, row->disp_off >= 0),
			  "row %zu [%s]: riprel", i, insn.text);
		if (row->disp_off >= 0)
			cr_assert(eq(int, insn.disp_off, row->disp_off),
				  "row %zu [%s]: disp_off %u", i, insn.text, insn.disp_off);
		cr_assert(ne(int, insn.text[0], '\0'), "row %zu: no text", i);
		if (row->text)
			cr_assert(eq(str, insn.text, (char *)row->text), "row %zu", i);
	}
}

Test(arch_insn, every_jcc_condition_code)
{
	for (uint8_t cc = 0; cc < 16; cc++) {
		const uint8_t short_form[] = { 0x70 + cc, 0x10 };
		const uint8_t near_form[] = { 0x0f, 0x80 + cc, 0x00, 0x02, 0x00, 0x00 };
		struct arch_insn insn;

		cr_assert(eq(int, arch_insn_analyze(short_form, 2, PC, &insn, NULL), 0));
		cr_assert(eq(uint, insn.step, ARCH_STEP_JCC));
		cr_assert(eq(int, insn.cond, cc));
		cr_assert(eq(u64, insn.target, PC + 2 + 0x10));
		cr_assert(eq(int, arch_insn_analyze(near_form, 6, PC, &insn, NULL), 0));
		cr_assert(eq(uint, insn.step, ARCH_STEP_JCC));
		cr_assert(eq(int, insn.cond, cc));
		cr_assert(eq(u64, insn.target, PC + 6 + 0x200));
	}
}

/* ---- analyze: refused ------------------------------------------------ */

struct bad_row {
	uint8_t len;
	uint8_t code[ARCH_MAX_INSN];
	int err;
	const char *why;	/* substring of the reason */
};

static const struct bad_row bad_rows[] = {
	/* syscall */
	{ B(0x0f, 0x05), -ENOTSUP, "syscall cannot run out of line" },
	/* sysenter */
	{ B(0x0f, 0x34), -ENOTSUP, "sysenter" },
	/* int3 */
	{ B(0xcc), -ENOTSUP, "int3 is the program's own breakpoint" },
	/* int $0x80 */
	{ B(0xcd, 0x80), -ENOTSUP, "int n" },
	/* int1 */
	{ B(0xf1), -ENOTSUP, "int1" },
	/* hlt */
	{ B(0xf4), -ENOTSUP, "hlt" },
	/* in (%dx),%al */
	{ B(0xec), -ENOTSUP, "in/out" },
	/* out %al,$0x80 */
	{ B(0xe6, 0x80), -ENOTSUP, "in/out" },
	/* insb (%dx),%es:(%rdi) */
	{ B(0x6c), -ENOTSUP, "ins/outs" },
	/* outsb %ds:(%rsi),(%dx) */
	{ B(0x6e), -ENOTSUP, "ins/outs" },
	/* cli */
	{ B(0xfa), -ENOTSUP, "cli" },
	/* sti */
	{ B(0xfb), -ENOTSUP, "sti" },
	/* iretq */
	{ B(0x48, 0xcf), -ENOTSUP, "iret" },
	/* lret */
	{ B(0xcb), -ENOTSUP, "far return" },
	/* lretq */
	{ B(0x48, 0xcb), -ENOTSUP, "far return" },
	/* ljmp *0x10(%rip) */
	{ B(0xff, 0x2d, 0x10, 0x00, 0x00, 0x00), -ENOTSUP, "far call/jmp" },
	/* lcall *(%rax) */
	{ B(0xff, 0x18), -ENOTSUP, "far call/jmp" },
	/* ud2 */
	{ B(0x0f, 0x0b), -ENOTSUP, "ud2" },
	/* ud1 %eax,%eax */
	{ B(0x0f, 0xb9, 0xc0), -ENOTSUP, "ud1" },
	/* swapgs */
	{ B(0x0f, 0x01, 0xf8), -ENOTSUP, "0f 01 group" },
	/* xgetbv */
	{ B(0x0f, 0x01, 0xd0), -ENOTSUP, "0f 01 group" },
	/* lock incl 0x10(%rip) */
	{ B(0xf0, 0xff, 0x05, 0x10, 0x00, 0x00, 0x00), -ENOTSUP, "lock prefix" },
	/* lock cmpxchg %rcx,(%rdx) */
	{ B(0xf0, 0x48, 0x0f, 0xb1, 0x0a), -ENOTSUP, "lock prefix" },
	/* loop . */
	{ B(0xe2, 0xfe), -ENOTSUP, "loop" },
	/* loope . */
	{ B(0xe1, 0xfe), -ENOTSUP, "loop" },
	/* loopne . */
	{ B(0xe0, 0xfe), -ENOTSUP, "loop" },
	/* jrcxz . */
	{ B(0xe3, 0xfe), -ENOTSUP, "jrcxz" },
	/* call *%rax */
	{ B(0xff, 0xd0), -ENOTSUP, "indirect call at a probe site" },
	/* call *(%rsp) */
	{ B(0xff, 0x14, 0x24), -ENOTSUP, "indirect call at a probe site" },
	/* call *0x10(%rip) */
	{ B(0xff, 0x15, 0x10, 0x00, 0x00, 0x00), -ENOTSUP, "indirect call at a probe site" },
	/* call *%r11 */
	{ B(0x41, 0xff, 0xd3), -ENOTSUP, "indirect call at a probe site" },
	/* xbegin .+6 */
	{ B(0xc7, 0xf8, 0x00, 0x00, 0x00, 0x00), -ENOTSUP, "xbegin" },
	/* data16 jmp . (rel8) */
	{ B(0x66, 0xeb, 0xfd), -ENOTSUP, "operand-size prefix on a branch" },
	/* jmpw . (rel16) */
	{ B(0x66, 0xe9, 0xfc, 0xff), -ENOTSUP, "operand-size prefix on a branch" },
	/* callw . */
	{ B(0x66, 0xe8, 0xfc, 0xff), -ENOTSUP, "operand-size prefix on a branch" },
	/* data16 je . */
	{ B(0x66, 0x74, 0xfd), -ENOTSUP, "operand-size prefix on a branch" },
	/* data16 ret */
	{ B(0x66, 0xc3), -ENOTSUP, "operand-size prefix on a branch" },
	/* addr32 call . */
	{ B(0x67, 0xe8, 0xfa, 0xff, 0xff, 0xff), -ENOTSUP, "address-size prefix on a branch" },
	/* mov 0x10(%eip),%eax */
	{ B(0x67, 0x8b, 0x05, 0x10, 0x00, 0x00, 0x00), -ENOTSUP, "eip-relative" },
	/* into: does not exist in 64-bit mode */
	{ B(0xce), -EINVAL, "cannot decode" },
	/* push %es: does not exist in 64-bit mode */
	{ B(0x06), -EINVAL, "cannot decode" },
	/* call rel32 cut short */
	{ B(0xe8, 0x00, 0x00), -EINVAL, "cannot decode" },
	/* prefixes only */
	{ B(0x66, 0x66), -EINVAL, "cannot decode" },
};

Test(arch_insn, analyze_refuses)
{
	for (size_t i = 0; i < ARRAY_SIZE(bad_rows); i++) {
		const struct bad_row *row = &bad_rows[i];
		struct arch_insn insn;
		struct ptap_err why = { .pos = -1 };
		int err;

		err = arch_insn_analyze(row->code, row->len, PC, &insn, &why);
		cr_assert(eq(int, err, row->err), "row %zu (%02x %02x): %d [%s] '%s'", i,
			  row->code[0], row->code[1], err, insn.text, why.msg);
		cr_assert_not_null(strstr(why.msg, row->why), "row %zu: '%s' lacks '%s'", i,
				   why.msg, row->why);
		/* a refused instruction is never left looking like a branch */
		cr_assert(eq(uint, insn.step, ARCH_STEP_OOL), "row %zu", i);
		cr_assert(eq(u64, insn.target, 0), "row %zu", i);
	}
}

Test(arch_insn, analyze_odd_inputs)
{
	const uint8_t ret = 0xc3;
	struct arch_insn insn;
	struct ptap_err why = { .pos = -1 };

	cr_assert(eq(int, arch_insn_analyze(&ret, 0, PC, &insn, &why), -EINVAL));
	cr_assert(eq(int, arch_insn_analyze(NULL, 4, PC, &insn, &why), -EINVAL));
	cr_assert(eq(int, arch_insn_analyze(arch_syscall_insn, 2, PC, &insn, &why), -ENOTSUP));
	cr_assert_str_eq(why.msg, "syscall cannot run out of line");
	cr_assert(eq(int, arch_insn_analyze(arch_bp_insn, 1, PC, &insn, NULL), -ENOTSUP));
}

/* ---- out-of-line slots: arithmetic ------------------------------------- */

static int32_t le32(const uint8_t *p)
{
	return (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
			 (uint32_t)p[3] << 24);
}

static void analyze_ok(const uint8_t *code, size_t len, uint64_t pc, struct arch_insn *insn)
{
	struct ptap_err why = { .pos = -1 };
	int err = arch_insn_analyze(code, len, pc, insn, &why);

	cr_assert(eq(int, err, 0), "analyze at %#lx: %d %s", (unsigned long)pc, err, why.msg);
}

Test(arch_ool, rebases_disp_and_jumps_back)
{
	/* mov 0x100(%rip),%rax: reads pc + 7 + 0x100 */
	static const uint8_t code[] = { 0x48, 0x8b, 0x05, 0x00, 0x01, 0x00, 0x00 };
	const uint64_t pc = 0x555555555000ULL;
	const uint64_t slots[] = { pc + 0x10000000, pc - 0x10000000, pc + 0x7fff0000 - 0x200,
				   pc - 0x7fff0000 };
	struct arch_insn insn;
	uint8_t buf[ARCH_SLOT_SIZE];

	analyze_ok(code, sizeof(code), pc, &insn);
	cr_assert(eq(int, insn.riprel, true));
	cr_assert(eq(int, insn.disp_off, 3));

	for (size_t i = 0; i < ARRAY_SIZE(slots); i++) {
		const uint64_t slot = slots[i];

		memset(buf, 0, sizeof(buf));
		cr_assert(eq(int, arch_ool_build(&insn, slot, buf, sizeof(buf)), 12));
		/* opcode bytes unchanged, disp re-based: same absolute address */
		cr_assert(eq(mem, ((struct cr_mem){ buf, 3 }), ((struct cr_mem){ code, 3 })));
		cr_assert(eq(int, le32(buf + 3), (int32_t)(0x100 + (int64_t)(pc - slot))));
		cr_assert(eq(ulong, slot + 7 + (int64_t)le32(buf + 3), pc + 7 + 0x100));
		/* jmp rel32 back to pc + 7, counted from the end of the jmp */
		cr_assert(eq(int, buf[7], 0xe9));
		cr_assert(eq(ulong, slot + 12 + (int64_t)le32(buf + 8), pc + 7));
		for (size_t j = 12; j < sizeof(buf); j++)
			cr_assert(eq(int, buf[j], 0xcc), "padding byte %zu", j);
	}
	/* the first case by hand: slot 0x10000000 above */
	arch_ool_build(&insn, pc + 0x10000000, buf, sizeof(buf));
	cr_assert(eq(int, le32(buf + 3), -0x10000000 + 0x100));		/* 0xf0000100 */
	cr_assert(eq(int, le32(buf + 8), -0x10000000 - 5));			/* 0xeffffffb */
	static const uint8_t want[12] = { 0x48, 0x8b, 0x05, 0x00, 0x01, 0x00, 0xf0,
					  0xe9, 0xfb, 0xff, 0xff, 0xef };
	cr_assert(eq(mem, ((struct cr_mem){ buf, sizeof(want) }),
		     ((struct cr_mem){ want, sizeof(want) })));
}

Test(arch_ool, out_of_reach)
{
	static const uint8_t mov[] = { 0x48, 0x8b, 0x05, 0x00, 0x01, 0x00, 0x00 };
	static const uint8_t push = 0x55;
	const uint64_t pc = 0x555555555000ULL;
	struct arch_insn insn;
	uint8_t buf[ARCH_SLOT_SIZE];

	analyze_ok(mov, sizeof(mov), pc, &insn);
	cr_assert(eq(int, arch_ool_build(&insn, pc + 0x80000000ULL, buf, sizeof(buf)), -ERANGE));
	cr_assert(eq(int, arch_ool_build(&insn, pc - 0x90000000ULL, buf, sizeof(buf)), -ERANGE));
	/* the disp reaches at +0x80000000 - 0x200 (disp 0x100 - 0x7ffffe00 fits) */
	cr_assert(eq(int, arch_ool_build(&insn, pc + 0x7ffffe00ULL, buf, sizeof(buf)), 12));

	/*
	 * push %rbp has no disp; only the jmp back limits it:
	 * rel = (pc + 1) - (slot + 6) must be >= INT32_MIN.
	 */
	analyze_ok(&push, 1, pc, &insn);
	cr_assert(eq(int, arch_ool_build(&insn, pc + 0x7ffffffbULL, buf, sizeof(buf)), 6));
	cr_assert(eq(int, le32(buf + 2), INT32_MIN));
	cr_assert(eq(int, arch_ool_build(&insn, pc + 0x7ffffffcULL, buf, sizeof(buf)), -ERANGE));
	/* and downwards: rel <= INT32_MAX */
	cr_assert(eq(int, arch_ool_build(&insn, pc - 0x80000004ULL, buf, sizeof(buf)), 6));
	cr_assert(eq(int, le32(buf + 2), INT32_MAX));
	cr_assert(eq(int, arch_ool_build(&insn, pc - 0x80000005ULL, buf, sizeof(buf)), -ERANGE));
}

Test(arch_ool, only_for_ool_and_room)
{
	static const uint8_t jmp[] = { 0xeb, 0x10 };
	static const uint8_t push = 0x55;
	struct arch_insn insn;
	uint8_t buf[ARCH_SLOT_SIZE];

	analyze_ok(jmp, sizeof(jmp), PC, &insn);
	cr_assert(eq(int, arch_ool_build(&insn, PC + 0x1000, buf, sizeof(buf)), -EINVAL));
	analyze_ok(&push, 1, PC, &insn);
	cr_assert(eq(int, arch_ool_build(&insn, PC + 0x1000, buf, 5), -ENOSPC));
	cr_assert(eq(int, arch_ool_build(&insn, PC + 0x1000, buf, 6), 6));
	cr_assert(eq(int, buf[0], 0x55));
	cr_assert(eq(int, buf[1], 0xe9));
	cr_assert(eq(int, le32(buf + 2), (int32_t)(PC + 1 - (PC + 0x1000 + 6))));
}

/* ---- out-of-line slots: executed ------------------------------------- */

/*
 * Each function's first instruction is rip-relative.  Its slot is built in a
 * page about 1.5 GiB away and called as if it were the function: the slot
 * runs the relocated instruction, jumps back to the second instruction of the
 * original, and the function returns.  The result must be what calling the
 * original gives.
 */
#define EXEC_SPAN	0x60000000UL	/* reservation: code and slots at its two ends */
#define DATA_ANSWER	0x800		/* in the code page: 8-byte answer */
#define DATA_VEC	0x810		/* 16-byte vector */
#define DATA_CELL	0x820		/* 8-byte store target */

typedef long (*fn5_t)(long, long, long, long, long);

struct exec_fn {
	const char *name;
	uint8_t len;
	uint8_t code[32];
	/* rip-relative disp32s to patch: offset in CODE, insn end, data offset */
	struct { uint8_t at, end; uint16_t data; } fix[2];
	long args[5];
	long want;		/* or WANT_ANSWER_ADDR: the address of the answer */
};

#define WANT_ANSWER_ADDR	(-1L)

static const struct exec_fn exec_fns[] = {
	/* mov answer(%rip),%rax; ret */
	{ "mov load", B(0x48, 0x8b, 0x05, 0, 0, 0, 0, 0xc3),
	  { { 3, 7, DATA_ANSWER } }, { 0 }, 0x1122334455667788L },
	/* mov %rdi,cell(%rip); mov cell(%rip),%rax; ret */
	{ "mov store", B(0x48, 0x89, 0x3d, 0, 0, 0, 0, 0x48, 0x8b, 0x05, 0, 0, 0, 0, 0xc3),
	  { { 3, 7, DATA_CELL }, { 10, 14, DATA_CELL } }, { 0x5eed }, 0x5eed },
	/* lea answer(%rip),%rax; ret */
	{ "lea", B(0x48, 0x8d, 0x05, 0, 0, 0, 0, 0xc3),
	  { { 3, 7, DATA_ANSWER } }, { 0 }, WANT_ANSWER_ADDR },
	/* add answer(%rip),%r8; mov %r8,%rax; ret (r8 = 5th argument) */
	{ "add r8", B(0x4c, 0x03, 0x05, 0, 0, 0, 0, 0x4c, 0x89, 0xc0, 0xc3),
	  { { 3, 7, DATA_ANSWER } }, { 0, 0, 0, 0, 100 }, 0x1122334455667788L + 100 },
	/* movdqu vec(%rip),%xmm0; movq %xmm0,%rax; ret */
	{ "movdqu", B(0xf3, 0x0f, 0x6f, 0x05, 0, 0, 0, 0, 0x66, 0x48, 0x0f, 0x7e, 0xc0, 0xc3),
	  { { 4, 8, DATA_VEC } }, { 0 }, 0x0123456789abcdefL },
	/* movq $0x7abcdef,cell(%rip); mov cell(%rip),%rax; ret (imm after the disp) */
	{ "mov imm store", B(0x48, 0xc7, 0x05, 0, 0, 0, 0, 0xef, 0xcd, 0xab, 0x07,
			     0x48, 0x8b, 0x05, 0, 0, 0, 0, 0xc3),
	  { { 3, 11, DATA_CELL }, { 14, 18, DATA_CELL } }, { 0 }, 0x7abcdef },
};

static void exec_place(uint8_t *page, size_t off, const struct exec_fn *f)
{
	uint8_t *code = page + off;

	memcpy(code, f->code, f->len);
	for (size_t k = 0; k < ARRAY_SIZE(f->fix) && f->fix[k].end; k++) {
		int64_t disp = (int64_t)(page + f->fix[k].data) - (int64_t)(code + f->fix[k].end);
		int32_t d = (int32_t)disp;

		memcpy(code + f->fix[k].at, &d, 4);
	}
}

static long exec_call(uint64_t addr, const long a[5])
{
	fn5_t fn = (fn5_t)(uintptr_t)addr;

	return fn(a[0], a[1], a[2], a[3], a[4]);
}

static void exec_reset_data(uint8_t *page)
{
	static const uint64_t vec[2] = { 0x0123456789abcdefULL, 0xfedcba9876543210ULL };
	const uint64_t answer = 0x1122334455667788ULL, zero = 0;

	memcpy(page + DATA_ANSWER, &answer, 8);
	memcpy(page + DATA_VEC, vec, 16);
	memcpy(page + DATA_CELL, &zero, 8);
}

static void exec_run(uint8_t *code_page, uint8_t *slot_page)
{
	for (size_t i = 0; i < ARRAY_SIZE(exec_fns); i++) {
		const struct exec_fn *f = &exec_fns[i];
		const size_t off = i * 64;
		const uint64_t pc = (uint64_t)(uintptr_t)(code_page + off);
		const uint64_t slot = (uint64_t)(uintptr_t)(slot_page + i * ARCH_SLOT_SIZE);
		long want = f->want == WANT_ANSWER_ADDR ? (long)(uintptr_t)(code_page + DATA_ANSWER)
							: f->want;
		struct arch_insn insn;
		long got;
		int used;

		exec_place(code_page, off, f);
		analyze_ok(code_page + off, f->len, pc, &insn);
		cr_assert(eq(uint, insn.step, ARCH_STEP_OOL), "%s", f->name);
		cr_assert(insn.riprel, "%s: not rip-relative", f->name);

		used = arch_ool_build(&insn, slot, slot_page + i * ARCH_SLOT_SIZE, ARCH_SLOT_SIZE);
		cr_assert(eq(int, used, insn.len + 5), "%s: %d", f->name, used);
		/* the distance is large: the relocated disp really differs */
		cr_assert(ne(mem, ((struct cr_mem){ slot_page + i * ARCH_SLOT_SIZE, insn.len }),
			     ((struct cr_mem){ code_page + off, insn.len })), "%s", f->name);

		exec_reset_data(code_page);
		got = exec_call(pc, f->args);
		cr_assert(eq(long, got, want), "%s original: %#lx != %#lx", f->name, got, want);

		exec_reset_data(code_page);
		got = exec_call(slot, f->args);
		cr_assert(eq(long, got, want), "%s out of line: %#lx != %#lx", f->name, got, want);
		if (f->fix[0].data == DATA_CELL) {
			uint64_t cell;

			memcpy(&cell, code_page + DATA_CELL, 8);
			cr_assert(eq(ulong, cell, (uint64_t)want), "%s: the store missed", f->name);
		}
	}
}

static uint8_t *exec_map(void)
{
	const long page = sysconf(_SC_PAGESIZE);
	void *span = mmap(NULL, EXEC_SPAN, PROT_NONE,
			  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	uint8_t *lo = span, *hi = lo + EXEC_SPAN - page;

	cr_assert(ne(ptr, span, MAP_FAILED), "mmap: %s", strerror(errno));
	cr_assert(eq(int, mprotect(lo, page, PROT_READ | PROT_WRITE | PROT_EXEC), 0));
	cr_assert(eq(int, mprotect(hi, page, PROT_READ | PROT_WRITE | PROT_EXEC), 0));
	memset(lo, 0xcc, page);
	memset(hi, 0xcc, page);
	return lo;
}

Test(arch_ool, executes_slot_above_code)
{
	uint8_t *lo = exec_map();

	exec_run(lo, lo + EXEC_SPAN - sysconf(_SC_PAGESIZE));
	munmap(lo, EXEC_SPAN);
}

Test(arch_ool, executes_slot_below_code)
{
	uint8_t *lo = exec_map();

	exec_run(lo + EXEC_SPAN - sysconf(_SC_PAGESIZE), lo);
	munmap(lo, EXEC_SPAN);
}

/* ---- jump sites ----------------------------------------------------------- */

static int jump_try(const uint8_t *fn, size_t len, uint64_t pc, struct arch_jump *j,
		    struct ptap_err *why)
{
	return arch_jump_analyze(fn, len, PC, pc, j, why);
}

/* bench_fn: nop; movzbl (%rdi),%eax; add %rax,sink(%rip); ret: three whole instructions */
Test(arch_jump, takes_whole_instructions)
{
	static const uint8_t fn[] = { 0x90, 0x0f, 0xb6, 0x07, 0x48, 0x01, 0x05, 0x10, 0x20, 0, 0,
				      0xc3 };
	struct arch_jump j;
	struct ptap_err why = { .pos = -1 };

	cr_assert(eq(int, jump_try(fn, sizeof(fn), PC, &j, &why), 0), "%s", why.msg);
	cr_assert(eq(int, j.len, 11));
	cr_assert(eq(mem, ((struct cr_mem){ j.bytes, 11 }), ((struct cr_mem){ fn, 11 })));
	/* a site at the add: one 7-byte instruction */
	cr_assert(eq(int, jump_try(fn, sizeof(fn), PC + 4, &j, &why), 0), "%s", why.msg);
	cr_assert(eq(int, j.len, 7));
}

Test(arch_jump, refusals)
{
	/* push %rbp; mov %rsp,%rbp; mov %edi,%eax; ... jmp back to the mov (PC + 1) */
	static const uint8_t into[] = { 0x55, 0x48, 0x89, 0xe5, 0x89, 0xf8, 0x90, 0xeb, 0xf8, 0xc3 };
	/* the same, jumping to PC itself: allowed */
	static const uint8_t to_start[] = { 0x55, 0x48, 0x89, 0xe5, 0x89, 0xf8, 0x90, 0xeb, 0xf7,
					    0xc3 };
	/* push %rbp; mov %rsp,%rbp; mov %edi,%eax; jmp *%rax (a jump table) */
	static const uint8_t indirect[] = { 0x55, 0x48, 0x89, 0xe5, 0x89, 0xf8, 0xff, 0xe0 };
	/* call at the site */
	static const uint8_t call[] = { 0xe8, 0, 0, 0, 0, 0xc3 };
	/* push %rbp; syscall */
	static const uint8_t sys[] = { 0x55, 0x0f, 0x05, 0x90, 0x90, 0xc3 };
	/* a direct call into the bytes counts too */
	static const uint8_t callin[] = { 0x55, 0x48, 0x89, 0xe5, 0x89, 0xf8, 0xe8, 0xf6, 0xff, 0xff,
					  0xff, 0xc3 };
	struct arch_jump j;
	struct ptap_err why = { .pos = -1 };

	cr_assert(eq(int, jump_try(into, sizeof(into), PC, &j, &why), -ENOTSUP));
	cr_assert_not_null(strstr(why.msg, "jumps into"), "%s", why.msg);
	cr_assert(eq(int, j.len, 0));
	cr_assert(eq(int, jump_try(to_start, sizeof(to_start), PC, &j, &why), 0), "%s", why.msg);
	cr_assert(eq(int, j.len, 6));
	cr_assert(eq(int, jump_try(indirect, sizeof(indirect), PC, &j, &why), -ENOTSUP));
	cr_assert_not_null(strstr(why.msg, "indirect jump"), "%s", why.msg);
	cr_assert(eq(int, jump_try(call, sizeof(call), PC, &j, &why), -ENOTSUP));
	cr_assert(eq(int, jump_try(sys, sizeof(sys), PC, &j, &why), -ENOTSUP));
	cr_assert_not_null(strstr(why.msg, "syscall"), "%s", why.msg);
	cr_assert(eq(int, jump_try(callin, sizeof(callin), PC, &j, &why), -ENOTSUP));
	cr_assert_not_null(strstr(why.msg, "jumps into"), "%s", why.msg);
	/* the site is not an instruction boundary (inside the mov) */
	cr_assert(eq(int, jump_try(to_start, sizeof(to_start), PC + 2, &j, &why), -ENOTSUP));
	/* too short: the function ends before 5 bytes of instructions */
	cr_assert(eq(int, jump_try(call + 5, 1, PC, &j, &why), -ENOTSUP));
}

Test(arch_jump, patch_and_trampoline_bytes)
{
	static const uint8_t fn[] = { 0x90, 0x0f, 0xb6, 0x07, 0x48, 0x01, 0x05, 0x10, 0x20, 0, 0,
				      0xc3 };
	const uint64_t tramp = PC + 0x10000;
	uint8_t patch[ARCH_JUMP_MAX], t[ARCH_SLOT_SIZE];
	struct arch_jump j;
	struct ptap_err why = { .pos = -1 };

	cr_assert(eq(int, jump_try(fn, sizeof(fn), PC, &j, &why), 0), "%s", why.msg);
	cr_assert(eq(int, arch_jump_patch(&j, PC, tramp, patch), 0));
	cr_assert(eq(int, patch[0], 0xe9));
	cr_assert(eq(int, le32(patch + 1), (int32_t)(tramp - (PC + 5))));
	for (int i = 5; i < 11; i++)
		cr_assert(eq(int, patch[i], 0xcc));
	cr_assert(eq(int, arch_jump_tramp_build(&j, PC, tramp, t, sizeof(t)), 1 + 11 + 5));
	cr_assert(eq(int, t[0], 0xcc));
	/* nop, movzbl: as they were */
	cr_assert(eq(mem, ((struct cr_mem){ t + 1, 7 }), ((struct cr_mem){ fn, 7 })));
	/* add's disp re-based: PC + 11 + 0x2010 == tramp + 12 + disp */
	cr_assert(eq(int, le32(t + 8), (int32_t)(PC + 11 + 0x2010 - (tramp + 12))));
	cr_assert(eq(int, t[12], 0xe9));
	cr_assert(eq(int, le32(t + 13), (int32_t)(PC + 11 - (tramp + 17))));
	cr_assert(eq(int, t[17], 0xcc));
	cr_assert(eq(int, arch_jump_patch(&j, PC, PC + 0x100000000ULL, patch), -ERANGE));
	cr_assert(eq(int, arch_jump_tramp_build(&j, PC, PC + 0x100000000ULL, t, sizeof(t)),
		     -ERANGE));
}

/* What exec_fns' F returns when placed in the page at LO. */
static long exec_want(const struct exec_fn *f, const uint8_t *lo)
{
	return f->want == WANT_ANSWER_ADDR ? (long)(uintptr_t)(lo + DATA_ANSWER) : f->want;
}

/* Place exec_fns[I] at LO + I * 64 and make its entry a jump site, J: its address. */
static uint64_t exec_jump_site(uint8_t *lo, size_t i, struct arch_jump *j)
{
	const struct exec_fn *f = &exec_fns[i];
	const uint64_t pc = (uint64_t)(uintptr_t)(lo + i * 64);
	struct ptap_err why = { .pos = -1 };

	exec_place(lo, i * 64, f);
	cr_assert(eq(int, arch_jump_analyze(lo + i * 64, f->len, pc, pc, j, &why), 0), "%s: %s",
		  f->name, why.msg);
	return pc;
}

static volatile int jump_traps;

static void on_jump_trap(int sig)
{
	(void)sig;
	jump_traps++;
}

/*
 * Executed: each function of exec_fns is patched with the jump to its
 * trampoline in a page 1.5 GiB away; calling it traps once on the
 * trampoline's int3 (a handler counts and returns past it), runs the
 * relocated instructions, jumps back and returns what the original does.
 */
Test(arch_jump, executes_through_the_trampoline)
{
	uint8_t *lo = exec_map(), *hi = lo + EXEC_SPAN - sysconf(_SC_PAGESIZE);
	struct sigaction sa = { .sa_handler = on_jump_trap }, old;

	sigemptyset(&sa.sa_mask);
	cr_assert(eq(int, sigaction(SIGTRAP, &sa, &old), 0));
	for (size_t i = 0; i < ARRAY_SIZE(exec_fns); i++) {
		const struct exec_fn *f = &exec_fns[i];
		uint8_t *code = lo + i * 64, *tramp = hi + i * ARCH_SLOT_SIZE;
		struct arch_jump j;
		const uint64_t pc = exec_jump_site(lo, i, &j);
		long want = exec_want(f, lo), got;

		cr_assert(ge(int, j.len, 5), "%s", f->name);
		cr_assert(gt(int, arch_jump_tramp_build(&j, pc, (uint64_t)(uintptr_t)tramp, tramp,
							ARCH_SLOT_SIZE), 0), "%s", f->name);
		cr_assert(eq(int, arch_jump_patch(&j, pc, (uint64_t)(uintptr_t)tramp, code), 0));
		exec_reset_data(lo);
		jump_traps = 0;
		got = exec_call(pc, f->args);
		cr_assert(eq(long, got, want),
			  "%s through the jump: %#lx != %#lx", f->name, got, want);
		cr_assert(eq(int, jump_traps, 1), "%s: %d traps", f->name, jump_traps);
	}
	sigaction(SIGTRAP, &old, NULL);
	munmap(lo, EXEC_SPAN);
}

/* ---- in-process probes: the agent's trampoline ----------------------------- */

static uint64_t agent_regs[ARCH_DWARF_NREGS];
static uint64_t agent_cookie;
static int agent_calls;

/* What an agent does first: take the registers (this one keeps them). */
static void agent_take(uint64_t *regs, uint64_t cookie)
{
	memcpy(agent_regs, regs, sizeof(agent_regs));
	agent_cookie = cookie;
	agent_calls++;
}

/*
 * Executed: each function of exec_fns is patched with the jump to its agent
 * trampoline 1.5 GiB away; calling it calls the agent once, on the thread,
 * with the registers as they are at the site (the arguments, the stack
 * pointer with the return address on it, the pc) and the cookie; then the
 * relocated instructions run and the function returns what the original
 * does.  No trap.
 */
Test(arch_agent, calls_the_agent_then_runs_on)
{
	const long page = sysconf(_SC_PAGESIZE);
	uint8_t *lo = exec_map(), *hi = lo + EXEC_SPAN - page * 16;

	cr_assert(le(ulong, ARRAY_SIZE(exec_fns) * ARCH_AGENT_TRAMP_MAX, 15ul * page));
	cr_assert(eq(int, mprotect(hi, page * 15, PROT_READ | PROT_WRITE | PROT_EXEC), 0));

	for (size_t i = 0; i < ARRAY_SIZE(exec_fns); i++) {
		const struct exec_fn *f = &exec_fns[i];
		uint8_t *code = lo + i * 64, *tramp = hi + i * ARCH_AGENT_TRAMP_MAX;
		struct arch_jump j;
		const uint64_t pc = exec_jump_site(lo, i, &j);
		long want = exec_want(f, lo), got;
		int n;

		n = arch_agent_tramp_build(&j, pc, (uint64_t)(uintptr_t)tramp,
					   (uint64_t)(uintptr_t)agent_take, 0xc0ffee00 + i, tramp,
					   ARCH_AGENT_TRAMP_MAX);
		cr_assert(gt(int, n, 0), "%s", f->name);
		cr_assert(eq(int, arch_jump_patch(&j, pc, (uint64_t)(uintptr_t)tramp, code), 0));
		exec_reset_data(lo);
		agent_calls = 0;
		got = exec_call(pc, f->args);
		cr_assert(eq(long, got, want), "%s through the agent: %#lx != %#lx", f->name, got,
			  want);
		cr_assert(eq(int, agent_calls, 1), "%s: %d calls", f->name, agent_calls);
		cr_assert(eq(u64, agent_cookie, 0xc0ffee00 + i));
		cr_assert(eq(u64, agent_regs[16], pc), "%s: pc", f->name);
		cr_assert(eq(u64, agent_regs[5], (uint64_t)f->args[0]), "%s: rdi", f->name);
		cr_assert(eq(u64, agent_regs[4], (uint64_t)f->args[1]), "%s: rsi", f->name);
		cr_assert(eq(u64, agent_regs[1], (uint64_t)f->args[2]), "%s: rdx", f->name);
		/* called: the return address on top, the stack 16-byte aligned before the call */
		cr_assert(eq(u64, (agent_regs[7] + 8) % 16, 0), "%s: rsp %#lx", f->name,
			  (unsigned long)agent_regs[7]);
		cr_assert(ne(u64, *(uint64_t *)(uintptr_t)agent_regs[7], 0));
	}
	cr_assert(eq(int, arch_agent_tramp_build(&(struct arch_jump){ 0 }, 0, 0, 0, 0,
						 (uint8_t[16]){ 0 }, 16), -EINVAL));
	munmap(lo, EXEC_SPAN);
}

/*
 * tramp_harness(in, out, site): the 16 registers (hardware order: rax rcx
 * rdx rbx rsp rbp rsi rdi r8-r15) and the flags (in[16]) loaded from IN,
 * SITE called, and what the registers and flags are after it stored into
 * OUT (rsp not loaded, not stored).  DF cleared before returning to C.
 */
void tramp_harness(const uint64_t *in, uint64_t *out, uint64_t site);
__asm__(".text\n"
	".type tramp_harness, @function\n"
	"tramp_harness:\n"
	"	push %rbx; push %rbp; push %r12; push %r13; push %r14; push %r15\n"
	"	push %rsi\n"
	"	push %rdx\n"
	"	push 128(%rdi)\n"
	"	popfq\n"
	"	mov 0(%rdi),%rax; mov 8(%rdi),%rcx; mov 16(%rdi),%rdx; mov 24(%rdi),%rbx\n"
	"	mov 40(%rdi),%rbp; mov 48(%rdi),%rsi; mov 64(%rdi),%r8; mov 72(%rdi),%r9\n"
	"	mov 80(%rdi),%r10; mov 88(%rdi),%r11; mov 96(%rdi),%r12; mov 104(%rdi),%r13\n"
	"	mov 112(%rdi),%r14; mov 120(%rdi),%r15; mov 56(%rdi),%rdi\n"
	"	call *(%rsp)\n"
	"	pushfq\n"
	"	cld\n"
	"	push %rdi\n"
	"	mov 24(%rsp),%rdi\n"
	"	mov %rax,0(%rdi); mov %rcx,8(%rdi); mov %rdx,16(%rdi); mov %rbx,24(%rdi)\n"
	"	mov %rbp,40(%rdi); mov %rsi,48(%rdi); mov %r8,64(%rdi); mov %r9,72(%rdi)\n"
	"	mov %r10,80(%rdi); mov %r11,88(%rdi); mov %r12,96(%rdi); mov %r13,104(%rdi)\n"
	"	mov %r14,112(%rdi); mov %r15,120(%rdi)\n"
	"	pop %rax; mov %rax,56(%rdi)\n"
	"	pop %rax; mov %rax,128(%rdi)\n"
	"	add $16,%rsp\n"
	"	pop %r15; pop %r14; pop %r13; pop %r12; pop %rbp; pop %rbx\n"
	"	ret\n"
	".size tramp_harness, . - tramp_harness\n");

/* An agent that changes every register a call may, and the flags the other way. */
static void agent_clobber(uint64_t *regs, uint64_t cookie)
{
	(void)regs;
	agent_calls++;
	__asm__ volatile("mov %0,%%rax; mov %0,%%rcx; mov %0,%%rdx; mov %0,%%rsi; mov %0,%%rdi\n"
			 "mov %0,%%r8; mov %0,%%r9; mov %0,%%r10; mov %0,%%r11\n"
			 "cmp %0,%%rax\n"
			 : : "r"(cookie)
			 : "rax", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11", "cc");
}

#define F_SAVED	0xcd5UL		/* CF PF AF ZF SF DF OF: what code may depend on */

static const uint8_t site_code[] = { 0x48, 0x8d, 0x40, 0x00, 0x48, 0x8d, 0x40, 0x00, 0xc3 };
enum how { AS_BUILT, BY_POPFQ };

/*
 * The site, its trampoline built as ptap builds it on this CPU (AS_BUILT)
 * or with popfq (BY_POPFQ), entered with every combination; its length.
 */
static int keeps_registers_and_flags(enum how how)
{
	static const uint64_t bits[] = { 0x1, 0x4, 0x10, 0x40, 0x80, 0x400, 0x800 };
	const long page = sysconf(_SC_PAGESIZE);
	uint8_t *lo = exec_map(), *hi = lo + EXEC_SPAN - page;
	const uint64_t pc = (uint64_t)(uintptr_t)lo;
	struct ptap_err why = { .pos = -1 };
	struct arch_jump j;
	int n;

	memcpy(lo, site_code, sizeof(site_code));
	cr_assert(eq(int, arch_jump_analyze(lo, sizeof(site_code), pc, pc, &j, &why), 0), "%s",
		  why.msg);
	if (how == BY_POPFQ)
		arch_agent_tramp_use_sahf(false);
	n = arch_agent_tramp_build(&j, pc, (uint64_t)(uintptr_t)hi,
				   (uint64_t)(uintptr_t)agent_clobber, 0x5a5a5a5a5a5a5a5aULL, hi,
				   ARCH_AGENT_TRAMP_MAX);
	cr_assert(gt(int, n, 0));
	cr_assert(eq(int, arch_jump_patch(&j, pc, (uint64_t)(uintptr_t)hi, lo), 0));
	for (unsigned int m = 0; m < 1u << ARRAY_SIZE(bits); m++) {
		uint64_t in[17], out[17];

		for (int r = 0; r < 16; r++)
			in[r] = 0x1111111111111111ULL * (uint64_t)(r + 1) + m;
		in[16] = 0x202;		/* the bit always set, IF */
		for (size_t b = 0; b < ARRAY_SIZE(bits); b++)
			if (m >> b & 1)
				in[16] |= bits[b];
		memset(out, 0, sizeof(out));
		agent_calls = 0;
		tramp_harness(in, out, pc);
		cr_assert(eq(int, agent_calls, 1), "flags %#lx", (unsigned long)in[16]);
		for (int r = 0; r < 16; r++)
			if (r != 4)	/* rsp */
				cr_expect(eq(u64, out[r], in[r]), "register %d, flags %#lx", r,
					  (unsigned long)in[16]);
		cr_expect(eq(u64, out[16] & F_SAVED, in[16] & F_SAVED), "flags, how %d", how);
	}
	munmap(lo, EXEC_SPAN);
	return n;
}

/* The length of the site's trampoline with sahf or not (SAHF), built, not run. */
static int built_len(bool sahf)
{
	uint8_t buf[ARCH_AGENT_TRAMP_MAX];
	struct ptap_err why = { .pos = -1 };
	struct arch_jump j;

	cr_assert(eq(int, arch_jump_analyze(site_code, sizeof(site_code), 0x1000, 0x1000, &j, &why),
		     0), "%s", why.msg);
	arch_agent_tramp_use_sahf(sahf);
	return arch_agent_tramp_build(&j, 0x1000, 0x2000, 0x3000, 0, buf, sizeof(buf));
}

/*
 * Executed: a site (two lea that change nothing, then ret) patched with the
 * jump to its agent trampoline, entered with each combination of the
 * arithmetic flags and DF, every register set: after the agent, which
 * changes them, the site runs on with the registers and flags it came with.
 * The trampoline as ptap builds it here: with sahf where the CPU has it in
 * 64-bit mode (CPUID 0x80000001 ECX bit 0), else with popfq.
 */
Test(arch_agent, keeps_registers_and_flags)
{
	unsigned int a, b, c, d;
	bool sahf = __get_cpuid(0x80000001, &a, &b, &c, &d) && (c & 1);
	int n = keeps_registers_and_flags(AS_BUILT);

	cr_expect(eq(int, n, built_len(sahf)), "not the %s trampoline, on a CPU %s sahf",
		  sahf ? "sahf" : "popfq", sahf ? "with" : "without");
}

/* The popfq trampoline, as on a CPU without sahf: the same, and not the sahf one. */
Test(arch_agent, keeps_registers_and_flags_popfq)
{
	cr_expect(lt(int, keeps_registers_and_flags(BY_POPFQ), built_len(true)),
		  "the popfq trampoline is not the other one");
}

/* ---- emulation ---------------------------------------------------------- */

#define F_CF	0x001UL
#define F_PF	0x004UL
#define F_ZF	0x040UL
#define F_SF	0x080UL
#define F_OF	0x800UL

/* The five flags the condition codes read, as the i-th combination. */
static unsigned long flag_combo(unsigned int i)
{
	static const unsigned long bit[5] = { F_CF, F_PF, F_ZF, F_SF, F_OF };
	unsigned long f = 0x202;	/* reserved bit 1, IF */

	for (unsigned int b = 0; b < 5; b++)
		if (i & (1U << b))
			f |= bit[b];
	return f;
}

static bool jcc_taken(uint8_t cc, unsigned long flags)
{
	const uint8_t code[] = { 0x70 + cc, 0x20 };	/* jcc .+0x22 */
	struct arch_insn insn;
	arch_regs_t r;
	bool taken;

	analyze_ok(code, sizeof(code), PC, &insn);
	memset(&r, 0, sizeof(r));
	r.rip = PC;
	r.rsp = 0x7ffc1000;
	r.eflags = flags;
	cr_assert(eq(int, arch_emulate(&insn, &r, NULL, NULL, NULL), 0));
	cr_assert(eq(ullong, r.rsp, 0x7ffc1000));
	taken = r.rip == PC + 0x22;
	/* taken: the target; not: the next instruction */
	cr_assert(eq(ullong, r.rip, taken ? PC + 0x22 : PC + 2), "cc %x", cc);
	return taken;
}

/* Hand-written rows: Intel SDM "Jcc - Jump if Condition Is Met". */
static const struct {
	uint8_t cc;
	unsigned long flags;
	bool taken;
} jcc_rows[] = {
	{ 0x0, F_OF, true },		/* jo */
	{ 0x0, 0, false },
	{ 0x1, 0, true },		/* jno */
	{ 0x2, F_CF, true },		/* jb */
	{ 0x3, F_CF, false },		/* jae */
	{ 0x4, F_ZF, true },		/* je */
	{ 0x5, F_ZF, false },		/* jne */
	{ 0x6, F_ZF, true },		/* jbe */
	{ 0x6, F_CF, true },
	{ 0x6, F_SF | F_OF, false },
	{ 0x7, 0, true },		/* ja */
	{ 0x7, F_CF, false },
	{ 0x8, F_SF, true },		/* js */
	{ 0x9, F_SF, false },		/* jns */
	{ 0xa, F_PF, true },		/* jp */
	{ 0xb, F_PF, false },		/* jnp */
	{ 0xc, F_SF, true },		/* jl: SF != OF */
	{ 0xc, F_SF | F_OF, false },
	{ 0xc, F_OF, true },
	{ 0xd, F_SF | F_OF, true },	/* jge */
	{ 0xd, F_OF, false },
	{ 0xe, F_ZF | F_SF | F_OF, true },	/* jle: ZF or SF != OF */
	{ 0xe, F_SF | F_OF, false },
	{ 0xe, F_SF, true },
	{ 0xf, F_SF | F_OF, true },	/* jg */
	{ 0xf, F_ZF, false },
	{ 0xf, F_OF, false },
};

Test(arch_emulate, jcc_rows)
{
	for (size_t i = 0; i < ARRAY_SIZE(jcc_rows); i++)
		cr_assert(eq(int, jcc_taken(jcc_rows[i].cc, jcc_rows[i].flags | 0x202),
			     jcc_rows[i].taken), "row %zu: cc %x flags %#lx", i, jcc_rows[i].cc,
			  jcc_rows[i].flags);
}

/*
 * The CPU as the oracle: "push %rdi; popfq; setCC %al; movzbl %al,%eax; ret"
 * runs each condition code (setcc uses the same tttn encoding as jcc) against
 * all 32 combinations of CF PF ZF SF OF.
 */
Test(arch_emulate, jcc_matches_the_cpu)
{
	const long page = sysconf(_SC_PAGESIZE);
	uint8_t *code = mmap(NULL, page, PROT_READ | PROT_WRITE | PROT_EXEC,
			     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	cr_assert(ne(ptr, code, MAP_FAILED));
	for (uint8_t cc = 0; cc < 16; cc++) {
		uint8_t *fn = code + cc * 16;
		const uint8_t setcc[] = { 0x57, 0x9d, 0x0f, 0x90 + cc, 0xc0,
					  0x0f, 0xb6, 0xc0, 0xc3 };

		memcpy(fn, setcc, sizeof(setcc));
		for (unsigned int i = 0; i < 32; i++) {
			fn5_t run = (fn5_t)(uintptr_t)fn;
			unsigned long flags = flag_combo(i);
			bool cpu = run((long)flags, 0, 0, 0, 0) != 0;

			cr_assert(eq(int, jcc_taken(cc, flags), cpu),
				  "cc %x flags %#lx: cpu says %d", cc, flags, cpu);
		}
	}
	munmap(code, page);
}

/* A fake stack: 64 bytes at FAKE_BASE; anything else faults. */
#define FAKE_BASE	0x7ffc0000ULL

struct fake_mem {
	uint8_t bytes[64];
	int reads, writes;
};

static int fake_read(void *priv, uint64_t addr, void *buf, size_t len)
{
	struct fake_mem *m = priv;

	m->reads++;
	if (addr < FAKE_BASE || addr + len > FAKE_BASE + sizeof(m->bytes))
		return -EFAULT;
	memcpy(buf, m->bytes + (addr - FAKE_BASE), len);
	return 0;
}

static int fake_write(void *priv, uint64_t addr, const void *buf, size_t len)
{
	struct fake_mem *m = priv;

	m->writes++;
	if (addr < FAKE_BASE || addr + len > FAKE_BASE + sizeof(m->bytes))
		return -EFAULT;
	memcpy(m->bytes + (addr - FAKE_BASE), buf, len);
	return 0;
}

Test(arch_emulate, call_pushes_return_address)
{
	/* call .+0x105 */
	static const uint8_t code[] = { 0xe8, 0x00, 0x01, 0x00, 0x00 };
	static const uint8_t ra[8] = { 0x05, 0x10, 0x40, 0, 0, 0, 0, 0 };	/* PC + 5 */
	struct fake_mem m = { .reads = 0 };
	struct arch_insn insn;
	arch_regs_t r, before;

	analyze_ok(code, sizeof(code), PC, &insn);
	memset(&r, 0, sizeof(r));
	r.rip = PC;
	r.rsp = FAKE_BASE + 0x20;
	r.rax = 0x1234;
	cr_assert(eq(int, arch_emulate(&insn, &r, fake_read, fake_write, &m), 0));
	cr_assert(eq(ullong, r.rip, PC + 0x105));
	cr_assert(eq(ullong, r.rsp, FAKE_BASE + 0x18));
	cr_assert(eq(mem, ((struct cr_mem){ m.bytes + 0x18, 8 }), ((struct cr_mem){ ra, 8 })));
	cr_assert(eq(int, m.writes, 1));
	cr_assert(eq(int, m.reads, 0));
	cr_assert(eq(ullong, r.rax, 0x1234));

	/* the push faults: nothing changes */
	r.rip = PC;
	r.rsp = FAKE_BASE + 4;
	before = r;
	cr_assert(eq(int, arch_emulate(&insn, &r, fake_read, fake_write, &m), -EFAULT));
	cr_assert(eq(mem, ((struct cr_mem){ &r, sizeof(r) }),
		     ((struct cr_mem){ &before, sizeof(r) })));
}

Test(arch_emulate, ret_pops)
{
	static const uint8_t ret[] = { 0xc3 };
	static const uint8_t ret16[] = { 0xc2, 0x10, 0x00 };	/* ret $0x10 */
	static const uint8_t bnd_ret[] = { 0xf2, 0xc3 };
	static const uint8_t ra[8] = { 0x34, 0x12, 0x40, 0, 0, 0, 0, 0 };
	struct fake_mem m = { .reads = 0 };
	struct arch_insn insn;
	arch_regs_t r, before;

	memcpy(m.bytes + 0x10, ra, 8);
	memset(&r, 0, sizeof(r));

	analyze_ok(ret, sizeof(ret), PC, &insn);
	r.rip = PC;
	r.rsp = FAKE_BASE + 0x10;
	cr_assert(eq(int, arch_emulate(&insn, &r, fake_read, fake_write, &m), 0));
	cr_assert(eq(ullong, r.rip, 0x401234));
	cr_assert(eq(ullong, r.rsp, FAKE_BASE + 0x18));
	cr_assert(eq(int, m.writes, 0));

	analyze_ok(ret16, sizeof(ret16), PC, &insn);
	r.rip = PC;
	r.rsp = FAKE_BASE + 0x10;
	cr_assert(eq(int, arch_emulate(&insn, &r, fake_read, fake_write, &m), 0));
	cr_assert(eq(ullong, r.rip, 0x401234));
	cr_assert(eq(ullong, r.rsp, FAKE_BASE + 0x28));

	analyze_ok(bnd_ret, sizeof(bnd_ret), PC, &insn);
	r.rip = PC;
	r.rsp = FAKE_BASE + 0x10;
	cr_assert(eq(int, arch_emulate(&insn, &r, fake_read, fake_write, &m), 0));
	cr_assert(eq(ullong, r.rip, 0x401234));
	cr_assert(eq(ullong, r.rsp, FAKE_BASE + 0x18));

	/* the pop faults: nothing changes */
	r.rip = PC;
	r.rsp = FAKE_BASE - 8;
	before = r;
	cr_assert(eq(int, arch_emulate(&insn, &r, fake_read, fake_write, &m), -EFAULT));
	cr_assert(eq(mem, ((struct cr_mem){ &r, sizeof(r) }),
		     ((struct cr_mem){ &before, sizeof(r) })));
}

Test(arch_emulate, jmp_and_ool)
{
	static const uint8_t jmp[] = { 0xe9, 0x00, 0xf0, 0xff, 0xff };	/* jmp .-0xffb */
	static const uint8_t push = 0x55;
	struct arch_insn insn;
	arch_regs_t r;

	analyze_ok(jmp, sizeof(jmp), PC, &insn);
	memset(&r, 0, sizeof(r));
	r.rip = PC;
	r.rsp = 0x7ffc1000;
	cr_assert(eq(int, arch_emulate(&insn, &r, NULL, NULL, NULL), 0));
	cr_assert(eq(ullong, r.rip, PC + 5 - 0x1000));
	cr_assert(eq(ullong, r.rsp, 0x7ffc1000));

	analyze_ok(&push, 1, PC, &insn);
	r.rip = PC;
	cr_assert(eq(int, arch_emulate(&insn, &r, NULL, NULL, NULL), -EINVAL));
	cr_assert(eq(ullong, r.rip, PC));
}

/* ---- IFUNC resolvers ------------------------------------------------- */


/* arch_ifunc_targets() on CODE at PC: the count or error; OUT, WHY filled. */
static int ifunc_targets(const uint8_t *code, size_t len, uint64_t *out, int max,
			 struct ptap_err *why)
{
	memset(why, 0, sizeof(*why));
	return arch_ifunc_targets(code, len, PC, out, max, why);
}

/*
 * glibc's shape (strlen's resolver): the default implementation in %rdx,
 * others chosen by branches and a cmov, returned through "mov %rdx,%rax".
 * The load from the GOT (cpu_features) is no candidate.
 */
Test(arch_ifunc, glibc_shape)
{
	static const uint8_t code[] = {
		0x48, 0x8b, 0x05, 0x00, 0x10, 0x00, 0x00,	/* 0: mov 0x1000(%rip),%rax */
		0x48, 0x8d, 0x15, 0x00, 0x01, 0x00, 0x00,	/* 7: lea 0x100(%rip),%rdx: 0x10e */
		0xf6, 0x00, 0x01,				/* e: testb $1,(%rax) */
		0x74, 0x04,					/* 11: je 0x17 */
		0x48, 0x89, 0xd0,				/* 13: mov %rdx,%rax */
		0xc3,						/* 16: ret */
		0x48, 0x8d, 0x15, 0x00, 0x02, 0x00, 0x00,	/* 17: lea 0x200(%rip),%rdx: 0x21e */
		0x48, 0x8d, 0x05, 0x00, 0x03, 0x00, 0x00,	/* 1e: lea 0x300(%rip),%rax: 0x325 */
		0xf6, 0x00, 0x02,				/* 25: testb $2,(%rax) */
		0x48, 0x0f, 0x44, 0xd0,				/* 28: cmove %rax,%rdx */
		0xeb, 0xe5,					/* 2c: jmp 0x13 */
		0xcc, 0xcc,					/* padding: never reached */
	};
	uint64_t out[8];
	struct ptap_err why = { .pos = -1 };

	cr_assert(eq(int, ifunc_targets(code, sizeof(code), out, 8, &why), 3), "%s", why.msg);
	cr_assert(eq(u64, out[0], PC + 0x10e));
	cr_assert(eq(u64, out[1], PC + 0x21e));
	cr_assert(eq(u64, out[2], PC + 0x325));
	/* more than MAX: refused, not cut */
	cr_assert(eq(int, ifunc_targets(code, sizeof(code), out, 2, &why), -E2BIG));
	cr_assert(eq(str, why.msg, "more than 2 addresses"));
}

/* gcc's __builtin_cpu_init(): a call first; an address tested, then overwritten. */
Test(arch_ifunc, call_then_choice)
{
	static const uint8_t code[] = {
		0x48, 0x83, 0xec, 0x08,				/* 0: sub $8,%rsp */
		0xe8, 0xfb, 0x04, 0x00, 0x00,			/* 4: call .+0x500 */
		0x48, 0x8d, 0x05, 0x40, 0x00, 0x00, 0x00,	/* 9: lea 0x40(%rip),%rax: data */
		0xf6, 0x00, 0x01,				/* 10: testb $1,(%rax) */
		0x48, 0x8d, 0x05, 0x80, 0x00, 0x00, 0x00,	/* 13: lea 0x80(%rip),%rax: 0x9a */
		0x75, 0x07,					/* 1a: jne 0x23 */
		0x48, 0x8d, 0x05, 0x20, 0x00, 0x00, 0x00,	/* 1c: lea 0x20(%rip),%rax: 0x43 */
		0x48, 0x83, 0xc4, 0x08,				/* 23: add $8,%rsp */
		0xc3,						/* 27: ret */
	};
	uint64_t out[8];
	struct ptap_err why = { .pos = -1 };

	cr_assert(eq(int, ifunc_targets(code, sizeof(code), out, 8, &why), 2), "%s", why.msg);
	cr_assert(eq(u64, out[0], PC + 0x43));
	cr_assert(eq(u64, out[1], PC + 0x9a));
}

/* What cannot be told: each refused with the reason. */
Test(arch_ifunc, refusals)
{
	static const struct {
		uint8_t code[16];
		size_t len;
		const char *why;
	} rows[] = {
		/* mov 0x1000(%rip),%rax; ret: a loaded value (a vDSO function, say) */
		{ { 0x48, 0x8b, 0x05, 0x00, 0x10, 0x00, 0x00, 0xc3 }, 8,
		  "the value it returns at 0x401007 is computed or loaded, not an address it sets" },
		/* lea x(%rip),%rax; call .+0x500; ret: the call's result */
		{ { 0x48, 0x8d, 0x05, 0x40, 0x00, 0x00, 0x00, 0xe8, 0xfb, 0x04, 0x00, 0x00, 0xc3 },
		  13, "the value it returns at 0x40100c is computed or loaded, not an address it "
		  "sets" },
		/* lea x(%rip),%rax; jmp .+0x1000: a tail call */
		{ { 0x48, 0x8d, 0x05, 0x40, 0x00, 0x00, 0x00, 0xe9, 0xfb, 0x0f, 0x00, 0x00 }, 12,
		  "'jmp 0x402007' at 0x401007 leaves the resolver" },
		/* lea x(%rip),%rax; jmp *%rax */
		{ { 0x48, 0x8d, 0x05, 0x40, 0x00, 0x00, 0x00, 0xff, 0xe0 }, 9,
		  "'jmp rax' at 0x401007 jumps through a register or memory" },
		/* lea x(%rip),%rax, then the end */
		{ { 0x48, 0x8d, 0x05, 0x40, 0x00, 0x00, 0x00 }, 7,
		  "it runs past its end at 0x401007" },
		/* ud2 */
		{ { 0x0f, 0x0b }, 2, "it never returns" },
		/* xor %eax,%eax; ret: not an address */
		{ { 0x31, 0xc0, 0xc3 }, 3,
		  "the value it returns at 0x401002 is computed or loaded, not an address it sets" },
		/* bad code */
		{ { 0x06 }, 1, "it does not decode at 0x401000" },
	};
	uint64_t out[8];
	struct ptap_err why = { .pos = -1 };

	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		cr_assert(eq(int, ifunc_targets(rows[i].code, rows[i].len, out, 8, &why),
			     -ENOTSUP), "row %zu: %s", i, why.msg);
		cr_assert(eq(str, why.msg, (char *)rows[i].why), "row %zu", i);
	}
	cr_assert(eq(int, ifunc_targets(NULL, 0, out, 8, &why), -ENOTSUP));
	cr_assert(eq(str, why.msg, "no code (a symbol without a size)"));
}

/* ---- function exits ------------------------------------------------------ */

static int exits_of(const uint8_t *fn, size_t len, struct arch_exit *out, int max,
		    struct ptap_err *why)
{
	const struct arch_range part = { PC, PC + len };

	return arch_func_exits(fn, len, PC, &part, 1, out, max, why);
}

/* push %rbp; mov %rsp,%rbp; pop %rbp; ret: one exit, the ret */
Test(arch_exits, one_ret)
{
	static const uint8_t fn[] = { 0x55, 0x48, 0x89, 0xe5, 0x5d, 0xc3 };
	struct ptap_err why = { .pos = -1 };
	struct arch_exit e[4];

	cr_assert(eq(int, exits_of(fn, sizeof(fn), e, 4, &why), 1), "%s", why.msg);
	cr_assert(eq(u64, e[0].pc, PC + 5));
	cr_assert(eq(int, e[0].len, 1));
	cr_assert(eq(int, e[0].kind, ARCH_EXIT_RET));
}

/*
 * AVX-512 and its mask instructions, which capstone 4 does not decode, are
 * stepped over by their length (glibc's __strlen_evex): vpcmpeqb (%rdi),
 * %ymm16,%k0; kmovd %k0,%eax; vpcmpeqb 0x20(%rdi,%rax,1),%ymm16,%k1;
 * vpternlogd $0xff,%zmm0,%zmm0,%zmm0; vmovdqu64 0x40(%rip),%zmm1; tzcnt
 * %eax,%eax; ret.  The sizes are objdump's.
 */
Test(arch_exits, avx512_is_stepped_over)
{
	static const uint8_t fn[] = {
		0x62, 0xf3, 0x7d, 0x20, 0x3f, 0x07, 0x00,
		0xc5, 0xfb, 0x93, 0xc0,
		0x62, 0xf3, 0x7d, 0x20, 0x3f, 0x4c, 0x07, 0x01, 0x00,
		0x62, 0xf3, 0x7d, 0x48, 0x25, 0xc0, 0xff,
		0x62, 0xf1, 0xfe, 0x48, 0x6f, 0x0d, 0x40, 0x00, 0x00, 0x00,
		0xf3, 0x0f, 0xbc, 0xc0,
		0xc3 };
	struct ptap_err why = { .pos = -1 };
	struct arch_exit e[4];

	cr_assert(eq(int, exits_of(fn, sizeof(fn), e, 4, &why), 1), "%s", why.msg);
	cr_assert(eq(u64, e[0].pc, PC + sizeof(fn) - 1));
	cr_assert(eq(int, e[0].kind, ARCH_EXIT_RET));
}

/* test %edi,%edi; je 7; xor %eax,%eax; ret; 7: mov $1,%eax; ret $8: two returns, the je stays inside */
Test(arch_exits, two_returns_and_an_inner_branch)
{
	static const uint8_t fn[] = { 0x85, 0xff, 0x74, 0x03, 0x31, 0xc0, 0xc3,
				      0xb8, 0x01, 0x00, 0x00, 0x00, 0xc2, 0x08, 0x00 };
	struct ptap_err why = { .pos = -1 };
	struct arch_exit e[4];

	cr_assert(eq(int, exits_of(fn, sizeof(fn), e, 4, &why), 2), "%s", why.msg);
	cr_assert(eq(u64, e[0].pc, PC + 6));
	cr_assert(eq(int, e[0].kind, ARCH_EXIT_RET));
	cr_assert(eq(u64, e[1].pc, PC + 12));
	cr_assert(eq(int, e[1].len, 3));
	cr_assert(eq(int, e[1].kind, ARCH_EXIT_RET));
}

/*
 * test %edi,%edi; jne PC+0x1000; call PC+0x3000; jmp PC+0x2000: two tail
 * calls (conditional and not), and a call, which is no exit
 */
Test(arch_exits, tail_calls)
{
	static const uint8_t fn[] = { 0x85, 0xff,
				      0x0f, 0x85, 0xf8, 0x0f, 0x00, 0x00,	/* 2: jne */
				      0xe8, 0xf3, 0x2f, 0x00, 0x00,		/* 8: call */
				      0xe9, 0xee, 0x1f, 0x00, 0x00 };		/* 13: jmp */
	struct ptap_err why = { .pos = -1 };
	struct arch_exit e[4];

	cr_assert(eq(int, exits_of(fn, sizeof(fn), e, 4, &why), 2), "%s", why.msg);
	cr_assert(eq(u64, e[0].pc, PC + 2));
	cr_assert(eq(int, e[0].len, 6));
	cr_assert(eq(int, e[0].kind, ARCH_EXIT_TAIL));
	cr_assert(eq(u64, e[0].to, PC + 0x1000));
	cr_assert(eq(u64, e[1].pc, PC + 13));
	cr_assert(eq(int, e[1].kind, ARCH_EXIT_TAIL));
	cr_assert(eq(u64, e[1].to, PC + 0x2000));
}

/* A jump to the function's other part (gcc's f.cold) is no exit; the cold part's ret is one. */
Test(arch_exits, cold_part)
{
	static const uint8_t hot[] = { 0x85, 0xff, 0x0f, 0x85, 0xf8, 0x0f, 0x00, 0x00, 0xc3 };
	static const uint8_t cold[] = { 0x31, 0xc0, 0xe9, 0x00, 0x00, 0x00, 0x00, 0xc3 };
	const struct arch_range parts[2] = { { PC, PC + sizeof(hot) },
					     { PC + 0x1000, PC + 0x1000 + sizeof(cold) } };
	struct ptap_err why = { .pos = -1 };
	struct arch_exit e[4];

	cr_assert(eq(int, arch_func_exits(hot, sizeof(hot), PC, parts, 2, e, 4, &why), 1),
		  "%s", why.msg);
	cr_assert(eq(u64, e[0].pc, PC + 8));
	/* cold: xor; jmp to the next instruction (inside); ret */
	cr_assert(eq(int, arch_func_exits(cold, sizeof(cold), PC + 0x1000, parts, 2, e, 4, &why),
		     1), "%s", why.msg);
	cr_assert(eq(u64, e[0].pc, PC + 0x1000 + 7));
	cr_assert(eq(int, e[0].kind, ARCH_EXIT_RET));
}

Test(arch_exits, refusals)
{
	static const uint8_t indirect[] = { 0x31, 0xc0, 0xff, 0xe0 };	/* jmp *%rax */
	static const uint8_t bad[] = { 0x90, 0x06 };			/* push %es: not x86-64 */
	static const uint8_t rets[] = { 0xc3, 0xc3, 0xc3 };
	struct ptap_err why = { .pos = -1 };
	struct arch_exit e[2];

	cr_assert(eq(int, exits_of(indirect, sizeof(indirect), e, 2, &why), -ENOTSUP));
	cr_assert(eq(str, why.msg, "an indirect jump at 0x401002 ('jmp rax') may leave the "
		     "function: its exits cannot all be known"));
	cr_assert(eq(int, exits_of(bad, sizeof(bad), e, 2, &why), -ENOTSUP));
	cr_assert(eq(str, why.msg, "the function does not decode at 0x401001"));
	cr_assert(eq(int, exits_of(rets, sizeof(rets), e, 2, &why), -ENOSPC));
	cr_assert(eq(str, why.msg, "more than 2 exits"));
}

/* ---- function exits against objdump ---------------------------------------- */

struct fsym {
	uint64_t lo, hi;
	char name[128];
};

/* The functions of PATH with a size, from nm -S: their count (at most MAX). */
static int nm_funcs(const char *path, struct fsym *f, int max)
{
	char cmd[4200], line[512], type, name[128];
	unsigned long long addr, size;
	int n = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "nm -S --defined-only '%s'", path);
	p = popen(cmd, "r");
	cr_assert(ne(ptr, p, NULL));
	while (n < max && fgets(line, sizeof(line), p))
		if (sscanf(line, "%llx %llx %c %127s", &addr, &size, &type, name) == 4 &&
		    (type == 't' || type == 'T') && size) {
			f[n].lo = addr;
			f[n].hi = addr + size;
			snprintf(f[n].name, sizeof(f[n].name), "%s", name);
			n++;
		}
	pclose(p);
	return n;
}

static bool is_prefix_word(const char *w)
{
	static const char *const words[] = { "rep", "repz", "repe", "repnz", "repne", "bnd",
					     "notrack", "ds", "cs", "data16", "lock" };

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (!strcmp(w, words[i]))
			return true;
	return false;
}

/*
 * F's exits as objdump disassembles them (PARTS: F and its .cold part):
 * each ret, each direct jump out of PARTS.  Their count, or -1 when objdump
 * shows an indirect jump or code it cannot decode.
 */
static int objdump_exits(const char *path, const struct fsym *f, const struct arch_range *parts,
			 int nparts, uint64_t *pcs, int max)
{
	char cmd[4400], line[512];
	int n = 0, bad = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "objdump -d --no-show-raw-insn --start-address=0x%llx "
		 "--stop-address=0x%llx '%s'", (unsigned long long)f->lo,
		 (unsigned long long)f->hi, path);
	p = popen(cmd, "r");
	cr_assert(ne(ptr, p, NULL));
	while (fgets(line, sizeof(line), p)) {
		unsigned long long pc;
		char text[400], *tok, *save = NULL;
		bool exit = false;

		if (sscanf(line, " %llx:\t%399[^\n]", &pc, text) != 2)
			continue;
		if (strstr(text, "(bad)"))
			bad = 1;
		for (tok = strtok_r(text, " \t", &save); tok && is_prefix_word(tok);
		     tok = strtok_r(NULL, " \t", &save))
			;
		if (!tok)
			continue;
		if (!strncmp(tok, "ret", 3)) {
			exit = true;
		} else if (tok[0] == 'j') {
			char *op = strtok_r(NULL, " \t", &save);

			if (!op || op[0] == '*') {
				bad = 1;
			} else {
				uint64_t to = strtoull(op, NULL, 16);

				exit = true;
				for (int i = 0; i < nparts; i++)
					if (to >= parts[i].lo && to < parts[i].hi)
						exit = false;
			}
		}
		if (exit && n < max)
			pcs[n++] = pc;
	}
	pclose(p);
	return bad ? -1 : n;
}

/* The functions of sample REL whose exits were compared. */
static int exits_match_objdump(const char *rel)
{
	static struct fsym f[2048];
	const char *path = unit_path(rel);
	struct ptap_err err = { .pos = -1 };
	struct elfmod *mod;
	int nf = nm_funcs(path, f, 2048), checked = 0;

	cr_assert(gt(int, nf, 0), "%s: functions from nm", path);
	cr_assert(eq(int, elfmod__open(path, &mod, &err), 0), "%s: %s", path, err.msg);
	for (int i = 0; i < nf; i++) {
		struct arch_range parts[2] = { { f[i].lo, f[i].hi } };
		struct arch_exit e[64];
		uint64_t want[64];
		uint8_t code[16384];
		size_t len = f[i].hi - f[i].lo;
		char cold[160];
		int nparts = 1, got, n;

		if (len > sizeof(code) || elfmod__read(mod, f[i].lo, code, len) < 0)
			continue;
		snprintf(cold, sizeof(cold), "%s.cold", f[i].name);
		for (int k = 0; k < nf; k++)
			if (!strcmp(f[k].name, cold))
				parts[nparts++] = (struct arch_range){ f[k].lo, f[k].hi };
		got = arch_func_exits(code, len, f[i].lo, parts, nparts, e, 64, &err);
		n = objdump_exits(path, &f[i], parts, nparts, want, 64);
		if (n < 0) {
			cr_assert(eq(int, got, -ENOTSUP), "%s: objdump shows an indirect jump or "
				  "bad code, ptap found %d exits", f[i].name, got);
			continue;
		}
		cr_assert(eq(int, got, n), "%s %s: %d exits, objdump %d (%s)", rel, f[i].name,
			  got, n, got < 0 ? err.msg : "");
		for (int k = 0; k < n; k++)
			cr_assert(eq(u64, e[k].pc, want[k]), "%s: exit %d", f[i].name, k);
		checked++;
	}
	elfmod__close(mod);
	return checked;
}

Test(arch_exits, agree_with_objdump)
{
	int checked = exits_match_objdump("samples/retprobe") +
		      exits_match_objdump("samples/query_server-O2") +
		      exits_match_objdump("samples/structs-O2") +
		      exits_match_objdump("samples/ifunc-O2") +
		      exits_match_objdump("samples/libplugin.so");

	cr_assert(gt(int, checked, 40), "functions whose exits were compared");
}

/* ---- exits as jump sites ------------------------------------------------- */

/* ret, then alignment padding: the ret and 4 bytes of it are the jump's */
Test(arch_exit_jump, ret_then_padding)
{
	static const uint8_t code[] = { 0xc3, 0x66, 0x2e, 0x0f, 0x1f, 0x84, 0, 0, 0, 0, 0 };
	static const uint8_t int3s[] = { 0xc3, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc };
	struct arch_jump j;
	struct ptap_err why = { .pos = -1 };
	uint8_t buf[ARCH_SLOT_SIZE];
	int n;

	cr_assert(eq(int, arch_exit_jump(code, sizeof(code), PC, &j, &why), 0), "%s",
		  why.msg);
	cr_expect(eq(int, j.len, 5));
	cr_expect(eq(mem, ((struct cr_mem){ j.bytes, 5 }), ((struct cr_mem){ code, 5 })));
	cr_assert(eq(int, arch_exit_jump(int3s, sizeof(int3s), PC, &j, &why), 0), "%s",
		  why.msg);
	/* its trampoline: the int3, then the ret, which ends it */
	n = arch_jump_tramp_build(&j, PC, PC + 0x1000, buf, sizeof(buf));
	cr_assert(gt(int, n, 0));
	cr_expect(eq(u8, buf[0], 0xcc));
	cr_expect(eq(u8, buf[1], 0xc3));
}

Test(arch_exit_jump, refusals)
{
	static const uint8_t next_fn[] = { 0xc3, 0x55, 0x48, 0x89, 0xe5 };	/* push %rbp ... */
	static const uint8_t not_ret[] = { 0x5d, 0x90, 0x90, 0x90, 0x90, 0x90 };
	struct arch_jump j;
	struct ptap_err why = { .pos = -1 };

	cr_expect(eq(int, arch_exit_jump(next_fn, sizeof(next_fn), PC, &j, &why), -ENOTSUP));
	cr_expect(eq(int, j.len, 0));
	cr_expect(eq(int, arch_exit_jump(not_ret, sizeof(not_ret), PC, &j, &why), -ENOTSUP));
	/* padding too short before the end of what could be read */
	cr_expect(eq(int, arch_exit_jump(next_fn, 3, PC, &j, &why), -ENOTSUP));
}

/*
 * A tail call's jmp: a jmp rel32 is a jump site as it is, a jmp rel8 with
 * padding after it; its trampoline jumps on to the call's target from
 * where it lies.  A conditional one (jcc) is not: it may fall through.
 */
Test(arch_exit_jump, tail_call_jmp)
{
	static const uint8_t rel32[] = { 0xe9, 0x00, 0x01, 0x00, 0x00, 0x55 };	/* jmp PC+0x105 */
	static const uint8_t rel8[] = { 0xeb, 0x10, 0x0f, 0x1f, 0x00, 0x55 };	/* jmp PC+0x12; nopl */
	static const uint8_t jcc[] = { 0x0f, 0x84, 0x00, 0x01, 0x00, 0x00, 0x90, 0x90 };	/* je */
	static const struct { const uint8_t *code; uint64_t target; } ok[] = {
		{ rel32, PC + 0x105 }, { rel8, PC + 0x12 },
	};
	struct arch_jump j;
	struct ptap_err why = { .pos = -1 };
	uint8_t buf[ARCH_SLOT_SIZE];
	uint64_t tramp = PC + 0x100000;

	for (size_t i = 0; i < 2; i++) {
		cr_assert(eq(int, arch_exit_jump(ok[i].code, 6, PC, &j, &why), 0), "%zu: %s", i,
			  why.msg);
		cr_expect(eq(int, j.len, 5), "%zu", i);
		/* its trampoline: the int3, then jmp rel32 to the target */
		cr_assert(gt(int, arch_jump_tramp_build(&j, PC, tramp, buf, sizeof(buf)), 0));
		cr_expect(eq(u8, buf[0], 0xcc));
		cr_expect(eq(u8, buf[1], 0xe9), "%zu", i);
		cr_expect(eq(u64, tramp + 1 + 5 + (uint64_t)(int64_t)(int32_t)(buf[2] | buf[3] << 8 |
					buf[4] << 16 | (uint32_t)buf[5] << 24), ok[i].target), "%zu", i);
	}
	cr_expect(eq(int, arch_exit_jump(jcc, sizeof(jcc), PC, &j, &why), -ENOTSUP));
	/* no padding after a jmp rel8 */
	cr_expect(eq(int, arch_exit_jump(rel8, 2, PC, &j, &why), -ENOTSUP));
}

/* inproc_storm's two_exits (samples/scen/inproc_storm_x86_64.S): rets with no padding after them */
static const uint8_t two_exits[] = {
	0x53,				/* 0: push %rbx */
	0x48, 0x89, 0xfb,		/* 1: mov %rdi,%rbx */
	0x40, 0xf6, 0xc7, 0x01,		/* 4: test $1,%dil */
	0x74, 0x06,			/* 8: je 16 */
	0x48, 0x8d, 0x04, 0x5b,		/* 10: lea (%rbx,%rbx,2),%rax */
	0x5b,				/* 14: pop %rbx */
	0xc3,				/* 15: ret */
	0x48, 0x89, 0xd8,		/* 16: mov %rbx,%rax */
	0x48, 0xf7, 0xd8,		/* 19: neg %rax */
	0x5b,				/* 22: pop %rbx */
	0xc3,				/* 23: ret */
};

/*
 * A ret with no padding: its jump takes the fewest instructions before it
 * that make five bytes (lea and pop: AT 5), none a branch target but the
 * first -- the second ret's may not begin at mov, the je's target, and
 * needs neg and pop only.  Its trampolines run them first: the int3 (or
 * the switch to the agent) at TRAMP + AT, then the ret.
 */
Test(arch_exit_jump, before_the_ret)
{
	static const struct { uint64_t ret; uint8_t len, at; } want[] = {
		{ PC + 15, 6, 5 }, { PC + 23, 5, 4 },
	};
	struct ptap_err why = { .pos = -1 };
	uint8_t buf[ARCH_AGENT_TRAMP_MAX];
	uint64_t tramp = PC + 0x100000;
	struct arch_jump j;

	struct arch_range whole = { PC, PC + sizeof(two_exits) };
	struct arch_branches br;
	struct arch_exit ex[4];

	/* the exits as ptap finds them, with the instructions before them */
	cr_assert(eq(int, arch_func_exits(two_exits, sizeof(two_exits), PC, &whole, 1, ex, 4, &why),
		     2), "%s", why.msg);
	cr_expect(eq(u8, ex[0].before[0], 1));	/* pop */
	cr_expect(eq(u8, ex[0].before[1], 4));	/* lea */
	cr_expect(eq(u8, ex[1].before[2], 3));	/* mov */
	cr_assert(eq(int, arch_branches_of(two_exits, sizeof(two_exits), PC, &br), 0));
	for (size_t i = 0; i < 2; i++) {
		cr_assert(eq(u64, ex[i].pc, want[i].ret));
		cr_assert(eq(int, arch_exit_jump_before(two_exits, &br, &ex[i], &j, &why), 0),
			  "%zu: %s", i, why.msg);
		cr_expect(eq(u8, j.len, want[i].len), "%zu", i);
		cr_expect(eq(u8, j.at, want[i].at), "%zu", i);
		cr_expect(eq(mem, ((struct cr_mem){ j.bytes, j.len }),
			     ((struct cr_mem){ two_exits + (want[i].ret - want[i].at - PC), j.len })));
		cr_assert(gt(int, arch_jump_tramp_build(&j, want[i].ret - j.at, tramp, buf,
							ARCH_SLOT_SIZE), 0));
		cr_expect(eq(mem, ((struct cr_mem){ buf, j.at }), ((struct cr_mem){ j.bytes, j.at })));
		cr_expect(eq(u8, buf[j.at], 0xcc), "%zu", i);
		cr_expect(eq(u8, buf[j.at + 1], 0xc3), "%zu", i);
		cr_assert(gt(int, arch_agent_tramp_build(&j, want[i].ret - j.at, tramp, PC + 0x200000,
							 0x1234, buf, sizeof(buf)), 0));
		cr_expect(eq(mem, ((struct cr_mem){ buf, j.at }), ((struct cr_mem){ j.bytes, j.at })));
		cr_expect(eq(u8, buf[j.at], 0xeb), "%zu: the switch after them", i);
		/* over the ret and the jump back after it (which never runs) */
		cr_expect(eq(u8, buf[j.at + ARCH_AGENT_TRAMP_ARM], j.len - j.at + 5), "%zu", i);
		cr_expect(eq(u8, buf[j.at + 2], 0xc3), "%zu", i);
	}
	/* not a ret; a ret with too little before it */
	ex[2] = ex[0];
	ex[2].pc = PC + 14;
	cr_expect(eq(int, arch_exit_jump_before(two_exits, &br, &ex[2], &j, &why), -ENOTSUP));
	ex[2] = ex[0];
	ex[2].before[1] = 0;	/* the pop alone */
	cr_expect(eq(int, arch_exit_jump_before(two_exits, &br, &ex[2], &j, &why), -ENOTSUP));
	cr_expect(eq(u8, j.len, 0));
	arch_branches_free(&br);
}

/*
 * A function's branches, decoded once, against the bytes of jumps: a
 * target at the jump's first byte or past its end is no matter, one
 * inside it is; an indirect jump, code that does not decode and (for a
 * site) a pc inside an instruction are refused.  AVX-512 instructions,
 * which capstone 4 does not decode, are stepped over (never a branch).
 */
Test(arch_branches, targets_against_a_jump)
{
	/* eight nops, then "jmp rel8" to TO[i]; the jump checked: (PC + 2, PC + 7) */
	static const struct { uint8_t rel; int want; } to[] = {
		{ 0xf8, 0 }, { 0xf9, -ENOTSUP }, { 0xfc, -ENOTSUP }, { 0xfd, 0 },
	};
	struct ptap_err why = { .pos = -1 };
	uint8_t code[10];
	struct arch_branches br;

	for (size_t i = 0; i < ARRAY_SIZE(to); i++) {
		memset(code, 0x90, 8);
		code[8] = 0xeb;
		code[9] = to[i].rel;
		cr_assert(eq(int, arch_branches_of(code, sizeof(code), PC, &br), 0));
		cr_assert(eq(sz, br.n, 1));
		cr_expect(eq(int, arch_branches_check(code, &br, PC + 2, 5, true, &why), to[i].want),
			  "jmp to 0x%llx: %s", (unsigned long long)br.b[0].to, why.msg);
		if (to[i].want) {	/* the branch named, as capstone shows it */
			cr_expect(eq(int, strncmp(why.msg, "'jmp 0x", 7), 0), "%s", why.msg);
			cr_expect(not(eq(ptr, strstr(why.msg, "' at 0x401008 jumps into the bytes "
						     "a jump would replace"), NULL)), "%s", why.msg);
		}
		arch_branches_free(&br);
	}
	/* jmp rax; a byte that does not decode; a pc inside an instruction */
	memcpy(code, "\x90\xff\xe0\x90\x90\x90\x90\x90\x90\xc3", 10);
	cr_assert(eq(int, arch_branches_of(code, sizeof(code), PC, &br), 0));
	cr_expect(eq(int, arch_branches_check(code, &br, PC + 3, 5, true, &why), -ENOTSUP));
	cr_expect(eq(str, why.msg, "an indirect jump at 0x401001 ('jmp rax')"));
	arch_branches_free(&br);
	memcpy(code, "\x90\x90\x06\x90\x90\x90\x90\x90\x90\xc3", 10);
	cr_assert(eq(int, arch_branches_of(code, sizeof(code), PC, &br), 0));
	cr_expect(eq(int, arch_branches_check(code, &br, PC, 5, true, &why), -ENOTSUP));
	cr_expect(eq(str, why.msg, "the function does not decode at 0x401002"));
	arch_branches_free(&br);
	/* vmovdqa32 zmm0, [rsi] (AVX-512: capstone 4 does not decode it), then jmp back to it */
	memcpy(code, "\x62\xf1\x7d\x48\x6f\x06\x90\x90\xeb\xf6", 10);
	cr_assert(eq(int, arch_branches_of(code, sizeof(code), PC, &br), 0));
	cr_expect(eq(u64, br.bad, 0));
	cr_assert(eq(sz, br.n, 1));
	cr_expect(eq(u64, br.b[0].to, PC));
	cr_expect(eq(int, arch_branches_check(code, &br, PC + 6, 2, true, &why), 0), "%s", why.msg);
	cr_expect(eq(int, arch_branches_check(code, &br, PC + 2, 4, false, &why), 0), "%s",
		  why.msg);	/* the jmp lands on PC, the first byte */
	cr_expect(eq(int, arch_branches_check(code, &br, PC + 2, 4, true, &why), -ENOTSUP));
	arch_branches_free(&br);
	memcpy(code, "\x48\x89\xe5\x90\x90\x90\x90\x90\x90\xc3", 10);	/* mov rbp, rsp */
	cr_assert(eq(int, arch_branches_of(code, sizeof(code), PC, &br), 0));
	cr_expect(eq(int, arch_branches_check(code, &br, PC + 1, 5, true, &why), -ENOTSUP));
	cr_expect(eq(str, why.msg, "0x401001 is not an instruction boundary of the function"));
	cr_expect(eq(int, arch_branches_check(code, &br, PC + 3, 5, true, &why), 0), "%s",
		  why.msg);
	arch_branches_free(&br);
}
