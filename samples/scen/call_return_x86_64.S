/* samples/scen/call_return_x86_64.S: a probed function whose first
 * instruction is a call to the next one (scenario 5), for
 * call_return.c.  Position independent. */

	.text
	.globl callret_self
	.type callret_self, @function
	.p2align 4
/* void *callret_self(long x): its own address + 5, the return address its call pushed */
callret_self:
	call	1f
1:	pop	%rax
	ret
	.size callret_self, . - callret_self

	.section .note.GNU-stack, "", @progbits
