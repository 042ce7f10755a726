/* samples/scen/fault_first.c: scenario 12, fault-in-first-insn: a probed
 * function whose first instruction faults.
 * usage: fault_first [N]  (default 1000)
 * fault_load's first instruction is `mov (%rdi),%rax` (fault_first_x86_64.S).
 * It is called N times with NULL under a SIGSEGV handler that checks that
 * si_addr is 0 and that the saved rip is fault_load's address (not a
 * tracer's scratch copy), then siglongjmps out: the call is never restarted.
 * A tracer probing fault_load must record each call once: N records with
 * %di = 0 (a tracer that re-runs the faulting instruction through its
 * breakpoint records a call twice).  Says on fd 3, if open, "calls N" and
 * "faults_ok N"; exits 0 when all checks passed, 1 if not. */
#define _GNU_SOURCE	/* REG_RIP */
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <ucontext.h>

#include "../selfcheck.h"

long fault_load(const long *p);

static sigjmp_buf env;
static volatile sig_atomic_t faults_ok, faults_bad;
/* kept across siglongjmp: not in registers */
static volatile long calls, returned;

static void on_segv(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;

	(void)sig;
	if (si->si_addr == NULL && uc->uc_mcontext.gregs[REG_RIP] == (greg_t)fault_load)
		faults_ok++;
	else
		faults_bad++;
	siglongjmp(env, 1);
}

int main(int argc, char **argv)
{
	const long n = argc > 1 ? atol(argv[1]) : 1000;
	struct sigaction sa = { .sa_sigaction = on_segv, .sa_flags = SA_SIGINFO | SA_NODEFER };

	SELFCHECK_SAVE(fault_load);
	sigemptyset(&sa.sa_mask);
	sigaction(SIGSEGV, &sa, NULL);
	for (long i = 0; i < n; i++) {
		if (sigsetjmp(env, 1) == 0) {
			calls++;
			fault_load(NULL);
			returned++;	/* it did not fault */
		}
	}
	if (fcntl(3, F_GETFD) != -1)
		dprintf(3, "calls %ld\nfaults_ok %ld\n", (long)calls, (long)faults_ok);
	printf("fault_first: %ld calls, %ld faults checked ok, %ld bad, %ld returned\n",
	       calls, (long)faults_ok, (long)faults_bad, returned);
	selfcheck_verify();
	printf("EXIT-SUCCESS\n");
	return faults_ok == n && !faults_bad && !returned ? 0 : 1;
}
