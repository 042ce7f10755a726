/* arch/x86_64/syscall.c: the x86-64 Linux system call ABI, for making a
 * stopped thread run a system call the tracer chose (mmap of the scratch
 * page, munmap at detach).  Pure: fills registers, never calls ptrace. */
#include <linux/audit.h>
#include <sys/syscall.h>

#include "arch/arch.h"

const uint32_t arch_audit_arch = AUDIT_ARCH_X86_64;

const uint8_t arch_syscall_insn[ARCH_SYSCALL_INSN_LEN] = { 0x0f, 0x05 };	/* syscall */

/*
 * Linux x86-64 passes the number in rax and the arguments in rdi rsi rdx r10
 * r8 r9 (r10, not rcx: the syscall instruction overwrites rcx with the
 * return address and r11 with rflags).
 *
 * orig_rax = -1: orig_rax is where the kernel keeps the number of the system
 * call a thread is inside.  If the thread was stopped in (or at the exit of)
 * a system call that is to be restarted - rax holding -ERESTARTSYS,
 * -ERESTARTNOINTR, ... - then on the way back to user space the kernel's
 * signal code (arch/x86/kernel/signal.c, arch_do_signal_or_restart()) sees
 * orig_rax >= 0, puts orig_rax back into rax and moves rip back 2 bytes to
 * re-execute the syscall instruction.  That would corrupt the injected call:
 * rax would become the old syscall number and rip would point 2 bytes before
 * PC.  -1 means "not in a system call", so the kernel leaves rip and rax
 * alone and the thread starts cleanly at PC.  (Do not set up an injection at
 * a syscall-entry stop: there orig_rax is the call about to run, and -1
 * would cancel it.)
 */
void arch_syscall_setup(arch_regs_t *regs, uint64_t pc, long nr, const uint64_t args[6])
{
	regs->rip = pc;
	regs->rax = (uint64_t)nr;
	regs->orig_rax = (uint64_t)-1;
	regs->rdi = args[0];
	regs->rsi = args[1];
	regs->rdx = args[2];
	regs->r10 = args[3];
	regs->r8 = args[4];
	regs->r9 = args[5];
}

long arch_syscall_result(const arch_regs_t *regs)
{
	return (long)regs->rax;
}

void arch_syscall_set_arg(arch_regs_t *regs, int i, uint64_t val)
{
	unsigned long long *reg[6] = { &regs->rdi, &regs->rsi, &regs->rdx,
				       &regs->r10, &regs->r8, &regs->r9 };

	if (i >= 0 && i < 6)
		*reg[i] = val;
}

uint64_t arch_syscall_arg(const arch_regs_t *regs, int i)
{
	const unsigned long long reg[6] = { regs->rdi, regs->rsi, regs->rdx,
					    regs->r10, regs->r8, regs->r9 };

	return i >= 0 && i < 6 ? reg[i] : 0;
}

long arch_syscall_nr(const arch_regs_t *regs)
{
	return (long)regs->orig_rax;
}

long arch_syscall_next_nr(const arch_regs_t *regs)
{
	return (long)regs->rax;
}

/* The kernel-internal restart codes (include/linux/errno.h), never seen by programs. */
#define ERESTARTSYS		512
#define ERESTARTNOINTR		513
#define ERESTARTNOHAND		514
#define ERESTART_RESTARTBLOCK	516

bool arch_regs_in_syscall(const arch_regs_t *regs)
{
	return (int64_t)regs->orig_rax >= 0;
}

/*
 * What arch_do_signal_or_restart() does when no handler runs: every restart
 * code restarts (a handler would turn some into EINTR; none runs here).
 */
bool arch_syscall_restart(arch_regs_t *regs)
{
	int64_t rax = (int64_t)regs->rax;

	if ((int64_t)regs->orig_rax < 0)
		return false;
	if (rax != -ERESTARTSYS && rax != -ERESTARTNOINTR && rax != -ERESTARTNOHAND &&
	    rax != -ERESTART_RESTARTBLOCK)
		return false;
	regs->rax = rax == -ERESTART_RESTARTBLOCK ? SYS_restart_syscall : regs->orig_rax;
	regs->rip -= ARCH_SYSCALL_INSN_LEN;
	regs->orig_rax = (uint64_t)-1;
	return true;
}
