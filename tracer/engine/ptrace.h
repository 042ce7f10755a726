/* tracer/engine/ptrace.h: thin wrappers over ptrace(2).  ESRCH policy lives here:
 * a thread that vanished is reported as -ESRCH, never printed as an error. */
#ifndef PTAP_TRACER_ENGINE_PTRACE_H
#define PTAP_TRACER_ENGINE_PTRACE_H

#include <linux/ptrace.h>
#include <signal.h>
#include <stdint.h>
#include <sys/types.h>

#include "arch/arch.h"

int pt_seize(pid_t tid, unsigned long options);
int pt_cont(pid_t tid, int sig);
int pt_syscall(pid_t tid, int sig);
/*
 * PTRACE_SINGLESTEP: for detach only (detach.c step_out()), to bring a
 * thread out of ptap's trampolines and agent while every other thread is
 * stopped.  Never at a hit: a hit steps over its probe out of line or by
 * emulation, its int3 left in place, so that no other thread runs past it.
 */
int pt_step(pid_t tid, int sig);
int pt_listen(pid_t tid);
int pt_interrupt(pid_t tid);
/* Detach TID (in a ptrace stop), delivering SIG (0: none). */
int pt_detach(pid_t tid, int sig);
int pt_getregs(pid_t tid, arch_regs_t *regs);
int pt_getfpregs(pid_t tid, arch_fpregs_t *fp);
int pt_setregs(pid_t tid, const arch_regs_t *regs);
int pt_getsiginfo(pid_t tid, siginfo_t *si);
int pt_geteventmsg(pid_t tid, unsigned long *msg);
/* PTRACE_GET_SYSCALL_INFO; returns the size the kernel filled, or -errno. */
int pt_syscall_info(pid_t tid, struct ptrace_syscall_info *info);

#endif
