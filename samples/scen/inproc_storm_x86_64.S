/* samples/scen/inproc_storm_x86_64.S: a function for inproc_storm's "exits"
 * mode whose first exit has no padding after its ret (the next block
 * follows at once, a branch target): its jump takes the instructions
 * before the ret (arch_exit_jump_before()).  Position independent. */

#include "../asm_x86_64.h"

	.text

/* long two_exits(long i): 3 * i for an odd i, through the first exit; else -i. */
FUNC(two_exits)
	push	%rbx
	mov	%rdi, %rbx
	test	$1, %dil
	jz	1f
	lea	(%rbx,%rbx,2), %rax
	pop	%rbx
	ret
1:	mov	%rbx, %rax
	neg	%rax
	pop	%rbx
	ret
END(two_exits)

	.section .note.GNU-stack, "", @progbits
