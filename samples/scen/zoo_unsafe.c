/* samples/scen/zoo_unsafe.c: scenario 3, zoo-unsafe-first-insn.  THREADS
 * threads (4) each call the four unsafe_* functions of zoo_unsafe_x86_64.S
 * ITER times (2000), with x = i, and check what a correct tracer must leave as
 * it is: int3's SIGTRAP reaches the handler exactly once per call with rip
 * just past the int3; ud2's SIGILL reaches the handler with rip and si_addr at
 * the function; the lock-incremented counter ends at ITER x THREADS; the flags
 * pushf saves have TF clear.  On fd 3, if open: "NAME CALLS" per function.
 * Exit 0 when every check passed, 1 otherwise. */
#define _GNU_SOURCE		/* REG_RIP */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <ucontext.h>
#include <unistd.h>

#include "../selfcheck.h"
#define SCEN_OWN_PROBE_ME	/* none here: each zoo function is probed */
#include "scen.h"

long unsafe_int3(long x);
long unsafe_ud2(long x);
void unsafe_lock(long x);
unsigned long unsafe_pushf(long x);
extern int unsafe_counter;

#define MAX_THREADS	64
#define X86_TF		0x100UL

/* Handler runs of this thread, and how many of them saw something wrong. */
static __thread unsigned long traps, ills, trap_bad, ill_bad;
static atomic_ulong calls[4], bad;
static unsigned long iterations = 2000;

static void on_trap(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;

	(void)sig;
	traps++;
	/* int3 is a trap: rip is past it; the kernel sends it as SI_KERNEL */
	if (uc->uc_mcontext.gregs[REG_RIP] != (greg_t)(uintptr_t)unsafe_int3 + 1 ||
	    si->si_code != SI_KERNEL)
		trap_bad++;
}

static void on_ill(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;
	const greg_t fn = (greg_t)(uintptr_t)unsafe_ud2;

	(void)sig;
	ills++;
	if (uc->uc_mcontext.gregs[REG_RIP] != fn || si->si_addr != (void *)unsafe_ud2)
		ill_bad++;
	if (uc->uc_mcontext.gregs[REG_RIP] == fn)
		uc->uc_mcontext.gregs[REG_RIP] += 2;	/* past the ud2 */
	else
		_exit(4);	/* rip elsewhere: returning would fault again forever */
}

static void wrong(int t, unsigned long i, const char *what, unsigned long got, unsigned long want)
{
	if (atomic_fetch_add(&bad, 1) < 20)
		printf("zoo_unsafe: thread %d call %lu: %s %#lx, expected %#lx\n", t, i, what, got,
		       want);
}

static void *work(void *arg)
{
	const int t = (int)(intptr_t)arg;

	for (unsigned long i = 0; i < iterations; i++) {
		const long x = (long)i;
		unsigned long before = traps, flags;
		long r = unsafe_int3(x);

		if (r != x + 1)
			wrong(t, i, "unsafe_int3 returned", (unsigned long)r, x + 1);
		if (traps != before + 1)
			wrong(t, i, "SIGTRAP handler runs", traps - before, 1);
		atomic_fetch_add(&calls[0], 1);
		before = ills;
		r = unsafe_ud2(x);
		if (r != x + 2)
			wrong(t, i, "unsafe_ud2 returned", (unsigned long)r, x + 2);
		if (ills != before + 1)
			wrong(t, i, "SIGILL handler runs", ills - before, 1);
		atomic_fetch_add(&calls[1], 1);
		unsafe_lock(x);
		atomic_fetch_add(&calls[2], 1);
		flags = unsafe_pushf(x);
		if (flags & X86_TF)
			wrong(t, i, "unsafe_pushf flags", flags, flags & ~X86_TF);
		atomic_fetch_add(&calls[3], 1);
	}
	if (trap_bad)
		wrong(t, iterations, "SIGTRAP handler runs with wrong rip or si_code", trap_bad, 0);
	if (ill_bad)
		wrong(t, iterations, "SIGILL handler runs with a wrong rip or si_addr", ill_bad, 0);
	return NULL;
}

int main(int argc, char **argv)
{
	static const char *const names[4] = {
		"unsafe_int3", "unsafe_ud2", "unsafe_lock", "unsafe_pushf"
	};
	pthread_t th[MAX_THREADS];
	unsigned long nthreads = 4;
	struct sigaction sa = { .sa_flags = SA_SIGINFO };

	SELFCHECK_SAVE(unsafe_int3);
	SELFCHECK_SAVE(unsafe_ud2);
	SELFCHECK_SAVE(unsafe_lock);
	SELFCHECK_SAVE(unsafe_pushf);
	if (argc > 3 || (argc > 1 && parse_count(argv[1], 1UL << 30, &iterations)) ||
	    (argc > 2 && parse_count(argv[2], MAX_THREADS, &nthreads))) {
		fprintf(stderr, "usage: zoo_unsafe [ITER [THREADS]]  (2000 4)\n");
		return 2;
	}
	sa.sa_sigaction = on_trap;
	sigaction(SIGTRAP, &sa, NULL);
	sa.sa_sigaction = on_ill;
	sigaction(SIGILL, &sa, NULL);
	for (unsigned long t = 0; t < nthreads; t++)
		if (pthread_create(&th[t], NULL, work, (void *)(intptr_t)t)) {
			fprintf(stderr, "zoo_unsafe: pthread_create failed\n");
			return 2;
		}
	for (unsigned long t = 0; t < nthreads; t++)
		pthread_join(th[t], NULL);
	if ((unsigned long)unsafe_counter != iterations * nthreads)
		wrong(-1, 0, "unsafe_counter", (unsigned int)unsafe_counter, iterations * nthreads);
	if (fcntl(3, F_GETFD) != -1)
		for (int f = 0; f < 4; f++)
			dprintf(3, "%s %lu\n", names[f], (unsigned long)calls[f]);
	if (bad)
		printf("zoo_unsafe: %lu checks failed\n", (unsigned long)bad);
	else
		printf("zoo_unsafe: all checks passed\n");
	if (!selfcheck_verify())
		atomic_fetch_add(&bad, 1);
	printf("EXIT-SUCCESS\n");
	return bad ? 1 : 0;
}
