/* arch/x86_64/wait.c: a wait4 that ptap's signal handlers can cancel without
 * ptap blocking and unblocking its signals around every wait (two system
 * calls a hit).  The flags are tested, and the call made, inside a range of
 * code the handler recognises by the interrupted pc: a signal that lands
 * there, before the wait began or while it sleeps (SA_RESTART has the kernel
 * put the pc back on the syscall instruction), moves the pc to a return of
 * -EINTR; a signal anywhere else finds its flag tested on the way in. */
#include <signal.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <ucontext.h>

#include "arch/arch.h"

#define CW_STR_(x)	#x
#define CW_STR(x)	CW_STR_(x)

extern const char arch_cw_begin[], arch_cw_syscall[], arch_cw_bail[];

/* rdi pid, rsi status, rdx options, rcx flags (NULL-terminated); wait4's 4th argument (r10) NULL */
__asm__(".text\n"
	".globl arch_wait4_cancellable\n"
	".type arch_wait4_cancellable, @function\n"
	"arch_wait4_cancellable:\n"
	"arch_cw_begin:\n"
	"	movq %rcx, %r8\n"
	"1:	movq (%r8), %rax\n"
	"	testq %rax, %rax\n"
	"	jz 2f\n"
	"	movl (%rax), %eax\n"
	"	testl %eax, %eax\n"
	"	jnz arch_cw_bail\n"
	"	addq $8, %r8\n"
	"	jmp 1b\n"
	"2:	xorl %r10d, %r10d\n"
	"	movl $" CW_STR(SYS_wait4) ", %eax\n"
	"arch_cw_syscall:\n"
	"	syscall\n"
	"	ret\n"
	"arch_cw_bail:\n"
	"	movq $-4, %rax\n"	/* -EINTR */
	"	ret\n"
	".size arch_wait4_cancellable, .-arch_wait4_cancellable\n");

void arch_wait4_cancel(void *ucontext)
{
	greg_t *pc = &((ucontext_t *)ucontext)->uc_mcontext.gregs[REG_RIP];

	if ((uintptr_t)*pc >= (uintptr_t)arch_cw_begin && (uintptr_t)*pc <= (uintptr_t)arch_cw_syscall)
		*pc = (greg_t)(uintptr_t)arch_cw_bail;
}
