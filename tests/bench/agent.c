/* tests/bench/agent.c: what a hit costs the thread that makes it when the
 * probe runs in the process (issue 20), with no tracer: bench_fn (a string
 * argument, as `bench_fn %di:string`) patched with a jump to its agent
 * trampoline (arch_agent_tramp_build()), the agent blob (agent_blob[]) run
 * from there, its records drained from the ring by a reader thread; the
 * process's vDSO's clock_gettime and where glibc keeps a thread's
 * tid given to the agent, as ptap will give them, and as many rings as ptap
 * gives a process (twice the CPUs, a power of two, at most 16: a thread
 * writes into the one its tid names).  Per call: untraced, and through the
 * agent, by 1 and 8 threads; best of 3.
 * usage: agent [N [u64|vm|one-ring]]  (default 1000000 calls per thread;
 * u64: the argument as %di:u64, which reads no memory; vm: the string read
 * through process_vm_readv, as in a process that handles SIGSEGV, instead of
 * directly as ptap lets the agent elsewhere; one-ring: every thread writes
 * into one ring)
 * Fails (exit status 1) when a record is missing or wrong. */
#include <errno.h>
#include <stdbool.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "agent/agent.h"
#include "agent/agent_blob.h"
#include "arch/arch.h"
#include "probes/err.h"
#include "probes/fetch.h"
#include "probes/ring.h"
#include "tracer/host/libctid.h"
#include "tracer/host/vdso.h"

#define SPAN		(64ul << 20)
#define RING_LEN	(4u << 20)
/* the largest record: 32 bytes, two values, 256 bytes of string (ptap sizes the slots so) */
#define RECORD_MAX	(sizeof(struct agent_rec) + 2 * sizeof(struct fetch_val) + 256)
#define MAXTHREADS	8
#define RINGS_MAX	16

/* bench_fn as bench_target has it: push %rbp; mov %rsp,%rbp; mov %rdi,%rax; pop %rbp; ret */
static const uint8_t fn_code[] = { 0x55, 0x48, 0x89, 0xe5, 0x48, 0x89, 0xf8, 0x5d, 0xc3 };

static long (*fn)(const char *);
static struct ring *ring;	/* the first of NRINGS */
static int nrings;
static struct ring_shape shape;	/* the reader's copy of its shape */
static long ncalls;
static volatile int draining;
static long drained, bad;
static int strings = 1;	/* %di:string, else %di:u64 (no memory read) */
static int direct = 1;	/* read directly (struct agent_proc's direct), else process_vm_readv */

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void *caller(void *arg)
{
	const char *s = arg;

	for (long i = 0; i < ncalls; i++)
		if (fn(s) != (long)(uintptr_t)s)
			__atomic_fetch_add(&bad, 1, __ATOMIC_RELAXED);
	return NULL;
}

static struct ring *ring_k(int k)
{
	return (struct ring *)((char *)ring + (size_t)k * RING_LEN);
}

static void *reader(void *arg)
{
	(void)arg;
	bool wake[RINGS_MAX] = { false };

	/* as ptap will: what is there, then one wake-up for the writers waiting */
	while (__atomic_load_n(&draining, __ATOMIC_ACQUIRE)) {
		int got = 0;

		for (int k = 0; k < nrings; k++) {
			struct ring *r = ring_k(k);
			const struct agent_rec *rec;
			size_t len;

			while (ring_peek(r, &shape, (const void **)&rec, &len)) {
				if (rec->nvals != 1 || rec->vals[0].err ||
				    (strings && (rec->vals[0].len != 15 ||
				     memcmp((const char *)rec + (uintptr_t)rec->vals[0].str,
					    "SELECT 1 FROM t", 15))))
					bad++;
				drained++;
				got++;
				ring_release(r, &shape);
				wake[k] = true;
			}
			if (wake[k] && ring_released(r))
				syscall(202 /* futex */, &r->released, 1 /* FUTEX_WAKE */,
					MAXTHREADS);
			wake[k] = false;
		}
		if (!got)
			sched_yield();
	}
	return NULL;
}

/* ns per call of NT threads calling fn NCALLS times each (wall time / calls per thread). */
static double run(int nt)
{
	static char str[MAXTHREADS][64];
	pthread_t th[MAXTHREADS];
	uint64_t t0;

	for (int i = 0; i < nt; i++)
		strcpy(str[i], "SELECT 1 FROM t");
	t0 = now_ns();
	for (int i = 0; i < nt; i++)
		pthread_create(&th[i], NULL, caller, str[i]);
	for (int i = 0; i < nt; i++)
		pthread_join(th[i], NULL);
	return (double)(now_ns() - t0) / (double)ncalls;
}

static double best(int nt)
{
	double b = 1e30;

	for (int k = 0; k < 3; k++) {
		double t = run(nt);

		b = t < b ? t : b;
	}
	return b;
}

int main(int argc, char **argv)
{
	uint8_t *span = mmap(NULL, SPAN, PROT_READ | PROT_WRITE | PROT_EXEC,
			     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint8_t *code = span, *tramp = span + 4096, *agent = span + 8192;
	struct fetch_prog prog = { .type = { .kind = FT_STRING, .size = 8 } };
	struct agent_site site;
	struct agent_proc proc = { 0 };
	struct ptap_err why = { .pos = -1 };
	struct arch_jump j;
	pthread_t rd;
	double plain[2], in[2];
	const int nts[2] = { 1, MAXTHREADS };
	long want;

	ncalls = argc > 1 ? atol(argv[1]) : 1000000;
	if (argc > 2 && !strcmp(argv[2], "u64")) {
		strings = 0;
		prog.type = (struct fetch_type){ .kind = FT_UNSIGNED, .size = 8 };
	}
	if (argc > 2 && !strcmp(argv[2], "vm"))
		direct = 0;
	if (argc > 2 && !strcmp(argv[2], "one-ring"))
		nrings = 1;
	else	/* as ptap: tracer/engine/inproc.c's rings_count() */
		for (nrings = 1; nrings < RINGS_MAX && nrings < 2 * sysconf(_SC_NPROCESSORS_ONLN);)
			nrings <<= 1;
	ring = mmap(NULL, RING_LEN * (size_t)nrings, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	/*
	 * Its pages touched first: each run's threads are new, and their tids
	 * name other rings than the last run's, whose first use would be page
	 * faults (ptap's rings are fresh memory too: the first pass is slower)
	 */
	if (ring != MAP_FAILED)
		memset(ring, 0, RING_LEN * (size_t)nrings);
	for (int k = 0; ring != MAP_FAILED && k < nrings; k++)
		if (ring_init(ring_k(k), RING_LEN, RECORD_MAX, &shape) < 0)
			ring = MAP_FAILED;
	proc.ring_mask = (uint32_t)nrings - 1;
	proc.ring_stride = RING_LEN;
	if (span == MAP_FAILED || ring == MAP_FAILED ||
	    fetch_prog__emit(&prog, FETCH_OP_REG, 0, 5, 0) < 0) {
		perror("bench agent: setup");
		return 1;
	}
	memcpy(code, fn_code, sizeof(fn_code));
	memcpy(agent, agent_blob, agent_blob_len);
	fn = (long (*)(const char *))(uintptr_t)code;
	for (int k = 0; k < 2; k++)
		plain[k] = best(nts[k]);
	if (vdso_gettime(getpid(), &proc.gettime) < 0)
		proc.gettime = 0;	/* the system call */
	if (libc_tid_offset(getpid(), &proc.tid_off) < 0)
		proc.tid_off = 0;	/* the system call */
	proc.direct = (uint32_t)direct;
	site = (struct agent_site){ .progs = (uint64_t)(uintptr_t)&prog,
				    .proc = (uint64_t)(uintptr_t)&proc,
				    .ring = (uint64_t)(uintptr_t)ring,
				    .addr = (uint64_t)(uintptr_t)code, .nprogs = 1,
				    .string_max = 256, .clock = CLOCK_MONOTONIC, .run = 1,
				    .rec_len = (uint32_t)(sizeof(struct agent_rec) +
							  sizeof(struct fetch_val) +
							  fetch_prog__buflen(&prog, 256)) };
	if (arch_jump_analyze(code, sizeof(fn_code), (uint64_t)(uintptr_t)code,
			      (uint64_t)(uintptr_t)code, &j, &why) < 0 ||
	    arch_agent_tramp_build(&j, (uint64_t)(uintptr_t)code, (uint64_t)(uintptr_t)tramp,
				   (uint64_t)(uintptr_t)(agent + agent_entry_off),
				   (uint64_t)(uintptr_t)&site, tramp, ARCH_AGENT_TRAMP_MAX) < 0 ||
	    arch_jump_patch(&j, (uint64_t)(uintptr_t)code, (uint64_t)(uintptr_t)tramp, code) < 0) {
		fprintf(stderr, "bench agent: cannot patch: %s\n", why.msg);
		return 1;
	}
	draining = 1;
	pthread_create(&rd, NULL, reader, NULL);
	for (int k = 0; k < 2; k++)
		in[k] = best(nts[k]);
	want = 3 * ncalls * (1 + MAXTHREADS);
	while (__atomic_load_n(&drained, __ATOMIC_ACQUIRE) < want && !bad)
		usleep(1000);
	__atomic_store_n(&draining, 0, __ATOMIC_RELEASE);
	pthread_join(rd, NULL);
	printf("bench agent: 'bench_fn %%di:%s' run in this process by the agent (no tracer), "
	       "%ld calls a thread, best of 3%s, %d ring%s\n", strings ? "string" : "u64", ncalls,
	       strings ? (direct ? ", read directly" : ", read by process_vm_readv") : "", nrings,
	       nrings > 1 ? "s (a thread's: its tid's)" : "");
	for (int k = 0; k < 2; k++)
		printf("  %d thr  untraced %6.1f ns/call | agent %7.1f ns/call | agent - untraced %7.1f ns"
		       " (wall time of each thread's calls)\n", nts[k], plain[k], in[k],
		       in[k] - plain[k]);
	printf("  records %ld of %ld, %ld wrong or lost\n", drained, want, bad + (want - drained));
	return drained == want && !bad ? 0 : 1;
}
