/* samples/scen/jump_sites_x86_64.S: functions whose first bytes ptap may or
 * may not replace with a jump to a trampoline (arch.h, "jump sites").
 * Position independent. */

	.data
	.balign 8
	.globl jump_total
jump_total:
	.quad	0

	.text

#include "../asm_x86_64.h"

/* long jump_plain(long x): x + 1.  Two whole instructions, 7 bytes: a jump site. */
FUNC(jump_plain)
	mov	%rdi, %rax
	add	$1, %rax
	ret
END(jump_plain)

/* long jump_riprel(long x): jump_total += x, returned.  Its first instruction
 * reads through rip: relocated into the trampoline, it must still reach
 * jump_total. */
FUNC(jump_riprel)
	add	jump_total(%rip), %rdi
	mov	%rdi, jump_total(%rip)
	mov	%rdi, %rax
	ret
END(jump_riprel)

/* long jump_looped(long x, long n): x + n (n >= 1), counted in a loop whose
 * head is 3 bytes in: a branch into the bytes a jump would replace, so
 * this site must stay an int3. */
FUNC(jump_looped)
	mov	%rdi, %rax
1:	add	$1, %rax
	dec	%rsi
	jnz	1b
	ret
END(jump_looped)

	.section .note.GNU-stack, "", @progbits
