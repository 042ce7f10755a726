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

/* long jump_entered(long x): x + 1, like jump_plain; but the next function
 * jumps into it 3 bytes in, into the bytes a jump would replace: a branch
 * from another function, which decoding jump_entered alone cannot see, so
 * this site must stay an int3 too. */
FUNC(jump_entered)
	mov	%rdi, %rax
.Ljump_entered_add:
	add	$1, %rax
	ret
END(jump_entered)

/* long jump_enterer(long x): x + 1, through jump_entered's add */
FUNC(jump_enterer)
	mov	%rdi, %rax
	jmp	.Ljump_entered_add
END(jump_enterer)

	.section .note.GNU-stack, "", @progbits
