/* samples/scen/attach_load_x86_64.S: a function where no jump fits, for
 * attach_load.c's sighold tick: its loop starts at its third byte, so a
 * probe on it is an int3. */

	.text
	.globl	held_tick
	.type	held_tick, @function
	.p2align 4
/* long held_tick(long n): 0x11 * n (n > 0) */
held_tick:
	xor	%eax, %eax
1:	add	$0x11, %eax
	dec	%edi
	jg	1b
	ret
	.size	held_tick, . - held_tick

	.section .note.GNU-stack, "", @progbits
