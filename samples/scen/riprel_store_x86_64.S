/* samples/scen/riprel_store_x86_64.S: a probed function whose first
 * instruction stores through rip (scenario 4), the guarded slot it
 * stores to, and a caller that checks every register around the call.
 * Position independent. */

#define CANARY_WORDS	16

	.data
	.balign 64
	.globl riprel_canary_lo, riprel_slot, riprel_canary_hi
riprel_canary_lo:
	.fill	CANARY_WORDS, 4, 0xa5a5a5a5
riprel_slot:
	.long	0
riprel_canary_hi:
	.fill	CANARY_WORDS, 4, 0x5a5a5a5a

	.text

#include "../asm_x86_64.h"

/* void riprel_store(int x): riprel_slot = x; touches nothing else */
FUNC(riprel_store)
	mov	%edi, riprel_slot(%rip)
	ret
END(riprel_store)

/*
 * void riprel_call(long x, unsigned long out[16]): calls riprel_store(x)
 * with every general register but rsp set to a known value (rdi = x), then
 * stores what they hold after the call in OUT: rax, rbx, rcx, rdx, rsi, rdi,
 * rbp, r8 .. r15, and the flags in out[15] (before the call: those of
 * cmp %rax, %rax).
 */
FUNC(riprel_call)
	push	%rbx
	push	%rbp
	push	%r12
	push	%r13
	push	%r14
	push	%r15
	sub	$8, %rsp		/* OUT; the call is 16-byte aligned */
	mov	%rsi, (%rsp)
	movabs	$0x1111111111111111, %rax
	movabs	$0x2222222222222222, %rbx
	movabs	$0x3333333333333333, %rcx
	movabs	$0x4444444444444444, %rdx
	movabs	$0x5555555555555555, %rsi
	movabs	$0x7777777777777777, %rbp
	movabs	$0x8888888888888888, %r8
	movabs	$0x9999999999999999, %r9
	movabs	$0xaaaaaaaaaaaaaaaa, %r10
	movabs	$0xbbbbbbbbbbbbbbbb, %r11
	movabs	$0xcccccccccccccccc, %r12
	movabs	$0xdddddddddddddddd, %r13
	movabs	$0xeeeeeeeeeeeeeeee, %r14
	movabs	$0xffffffffffffffff, %r15
	cmp	%rax, %rax
	call	riprel_store
	pushf
	push	%rax
	mov	16(%rsp), %rax		/* OUT */
	popq	(%rax)
	mov	%rbx, 8(%rax)
	mov	%rcx, 16(%rax)
	mov	%rdx, 24(%rax)
	mov	%rsi, 32(%rax)
	mov	%rdi, 40(%rax)
	mov	%rbp, 48(%rax)
	mov	%r8, 56(%rax)
	mov	%r9, 64(%rax)
	mov	%r10, 72(%rax)
	mov	%r11, 80(%rax)
	mov	%r12, 88(%rax)
	mov	%r13, 96(%rax)
	mov	%r14, 104(%rax)
	mov	%r15, 112(%rax)
	popq	120(%rax)
	add	$8, %rsp
	pop	%r15
	pop	%r14
	pop	%r13
	pop	%r12
	pop	%rbp
	pop	%rbx
	ret
END(riprel_call)

	.section .note.GNU-stack, "", @progbits
