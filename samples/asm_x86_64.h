/* samples/asm_x86_64.h: FUNC(name) ... END(name) around a global function
 * of the samples' assembly (16-byte aligned, typed and sized for the symbol
 * table ptap resolves probes with). */
#ifndef PTAP_SAMPLES_ASM_X86_64_H
#define PTAP_SAMPLES_ASM_X86_64_H

#define FUNC(name)			\
	.globl name;			\
	.type name, @function;		\
	.p2align 4;			\
name:
#define END(name)	.size name, . - name

#endif
