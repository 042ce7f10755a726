/* samples/scen/zoo_unsafe_x86_64.S: functions whose first instruction a
 * tracer cannot simply run out of line (scenario 3), for
 * zoo_unsafe.c.  Position independent. */

	.data
	.balign 8
	.globl unsafe_counter
unsafe_counter:
	.long 0
	.long 0

	.text

#include "../asm_x86_64.h"

/* long unsafe_int3(long x): x + 1, after the SIGTRAP its int3 raises was handled */
FUNC(unsafe_int3)
	int3
	lea	1(%rdi), %rax
	ret
END(unsafe_int3)

/* long unsafe_ud2(long x): x + 2, once the SIGILL handler moved rip past the ud2 */
FUNC(unsafe_ud2)
	ud2
	lea	2(%rdi), %rax
	ret
END(unsafe_ud2)

/* void unsafe_lock(long x): one atomic increment of unsafe_counter */
FUNC(unsafe_lock)
	lock incl	unsafe_counter(%rip)
	ret
END(unsafe_lock)

/* unsigned long unsafe_pushf(long x): the flags register at entry */
FUNC(unsafe_pushf)
	pushf
	pop	%rax
	ret
END(unsafe_pushf)

	.section .note.GNU-stack, "", @progbits
