/* samples/scen/fault_first_x86_64.S: a function whose first instruction
 * faults when given NULL, for fault_first.c. */

	.text
	.globl	fault_load
	.type	fault_load, @function
	.p2align 4
/* long fault_load(const long *p): *p; the load is the first instruction */
fault_load:
	mov	(%rdi), %rax
	ret
	.size	fault_load, . - fault_load

	.section .note.GNU-stack, "", @progbits
