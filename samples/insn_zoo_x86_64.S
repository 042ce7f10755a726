/* samples/insn_zoo_x86_64.S: one function per class of first instruction a
 * probe can land on (out of line, emulated, refused), for insn_zoo.c.  Every
 * function computes a value the C side checks; position independent. */

	.section .rodata
	.balign 16
	.globl zoo_answer
zoo_answer:
	.quad 42
	.quad 0
	.globl zoo_vec
zoo_vec:
	.quad 0x0123456789abcdef, 0x7766554433221100

	.data
	.balign 8
	.globl zoo_cell
zoo_cell:
	.quad 0

	.text

#include "asm_x86_64.h"

/* long zoo_push(long x): x * 2 + 1, in a frame */
FUNC(zoo_push)
	push	%rbp
	mov	%rsp, %rbp
	lea	1(%rdi, %rdi), %rax
	pop	%rbp
	ret
END(zoo_push)

/* long zoo_endbr(long x): x + 2 */
FUNC(zoo_endbr)
	endbr64
	lea	2(%rdi), %rax
	ret
END(zoo_endbr)

/* long zoo_sub(long x): x + 3, through a stack slot */
FUNC(zoo_sub)
	sub	$0x18, %rsp
	mov	%rdi, 8(%rsp)
	mov	8(%rsp), %rax
	add	$3, %rax
	add	$0x18, %rsp
	ret
END(zoo_sub)

/* long zoo_movload(void): zoo_answer (42) */
FUNC(zoo_movload)
	mov	zoo_answer(%rip), %rax
	ret
END(zoo_movload)

/* long zoo_movstore(long x): stores x in zoo_cell and returns zoo_cell */
FUNC(zoo_movstore)
	mov	%rdi, zoo_cell(%rip)
	mov	zoo_cell(%rip), %rax
	ret
END(zoo_movstore)

/* const long *zoo_lea(void): &zoo_answer */
FUNC(zoo_lea)
	lea	zoo_answer(%rip), %rax
	ret
END(zoo_lea)

/* long zoo_addr8(long, long, long, long, long e): e + zoo_answer (e is in r8) */
FUNC(zoo_addr8)
	add	zoo_answer(%rip), %r8
	mov	%r8, %rax
	ret
END(zoo_addr8)

/* long zoo_movdqu(void): the low quadword of zoo_vec */
FUNC(zoo_movdqu)
	movdqu	zoo_vec(%rip), %xmm0
	movq	%xmm0, %rax
	ret
END(zoo_movdqu)

/* unsigned long zoo_fs(void): this thread's stack protector canary */
FUNC(zoo_fs)
	mov	%fs:0x28, %rax
	ret
END(zoo_fs)

/* long zoo_xchg(long x): x + 5, after a 2-byte nop (66 90) */
FUNC(zoo_xchg)
	xchg	%ax, %ax
	lea	5(%rdi), %rax
	ret
END(zoo_xchg)

/*
 * void *zoo_call(void): the return address the call pushed, which is
 * zoo_call_ret.  e8 rel32 written by hand so it stays a call rel32.
 */
FUNC(zoo_call)
	.byte	0xe8
	.long	.Lzoo_call_helper - . - 4
	.globl	zoo_call_ret
zoo_call_ret:
	ret
.Lzoo_call_helper:
	mov	(%rsp), %rax
	ret
END(zoo_call)

/* long zoo_jmp(long x): x + 1, by a jmp rel32 tail call (e9 by hand) */
FUNC(zoo_jmp)
	.byte	0xe9
	.long	.Lzoo_jmp_helper - . - 4
	ud2
.Lzoo_jmp_helper:
	lea	1(%rdi), %rax
	ret
END(zoo_jmp)

/*
 * long zoo_jcc(long x): x + 7 whichever way the first instruction (jne rel8)
 * goes; ZF is whatever the caller left.
 */
FUNC(zoo_jcc)
	jne	1f
	lea	7(%rdi), %rax
	ret
1:	mov	%rdi, %rax
	add	$7, %rax
	ret
END(zoo_jcc)

/* void zoo_ret(void) */
FUNC(zoo_ret)
	ret
END(zoo_ret)

/*
 * zoo_syscall: runs the system call whose number the caller put in rax
 * (the C side calls it from inline asm); returns its result.  Clobbers rcx
 * and r11 as syscall does.
 */
FUNC(zoo_syscall)
	syscall
	ret
END(zoo_syscall)

	.section .note.GNU-stack, "", @progbits
