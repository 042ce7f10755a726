/* tracer/engine/inproc.c: in-process probes, ptap's side (inproc.h).
 *
 * A process's region is made through one of its threads, stopped where a
 * system call can be run in it (inject.h): an anonymous executable mapping
 * gets the agent's bytes (written through /proc/PID/mem); memfd_create(2)
 * and mmap(2) in the process make the shared region, which ptap maps too
 * through /proc/PID/fd/N before the process closes that descriptor.  The
 * process is left with two mappings of ours and no descriptor; both
 * mappings are in the address space's scratch list, so that detach unmaps
 * them as it unmaps the trampolines' pages.
 *
 * Everything ptap reads from the region was written by the process, so it
 * is checked before use: a record with a probe, a count or a string out of
 * bounds is counted and dropped, never followed. */
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "agent/agent.h"
#include "agent/agent_blob.h"
#include "arch/arch.h"
#include "probes/array.h"
#include "probes/filter.h"
#include "probes/log.h"
#include "probes/record.h"
#include "probes/ring.h"
#include "tracer/engine/calls.h"
#include "tracer/engine/inject.h"
#include "tracer/engine/inproc.h"
#include "tracer/engine/ptrace.h"
#include "tracer/engine/shadow.h"
#include "tracer/events/hitrec.h"
#include "tracer/host/libctid.h"
#include "tracer/host/procstatus.h"
#include "tracer/host/vdso.h"
#include "tracer/probe.h"
#include "tracer/session.h"
#include "tracer/space/aspace.h"
#include "tracer/space/maptab.h"
#include "tracer/space/mem.h"
#include "tracer/thread.h"

/* The region: the process's struct agent_proc, the sites and their programs, the rings. */
#define PROC_LEN	4096ULL
/* room for the sites of thousands of probes ('*%return' over libc: about 4 MiB), touched
 * only as they are used */
#define SITES_LEN	(8192ULL << 10)
/*
 * A ring: RING_SLOTS slots or so (the bell rings at half: a drain every
 * 2048 records or so; fewer with a cap, below), within RING_MIN and
 * RING_MAX bytes (ring_len()).  A
 * region has one ring per CPU or so (twice as many, a power of two, at most
 * RINGS_MAX): a thread records into the one its tid names (agent.h).  One
 * ring for all would have the threads on every CPU write its queue's words
 * at every record: with 8 threads on 2 CPUs a hit cost 3 times as much (make
 * bench's agent rows).
 */
#define RING_SLOTS	4096u
/*
 * The slots a region's threads take, all rings together, while they write
 * more than one (threads of the process and of its fork children, which
 * share the region): a ring's cap is RING_SLOTS over the rings written in
 * the last CAP_WINDOW_NS (a power of two, CAP_MIN at least;
 * ring_set_cap(), caps_set()), so that what they write is still in the
 * caches when ptap reads it.  8 threads on 4 rings, pinned with ptap to
 * one CPU (best of 5 runs, in turn): 406 ns a hit with every slot, 304
 * with the caps (1024 each).  A ring written alone keeps every slot: at
 * 1024, ptap read it four times as often, and a return probe cost 10%
 * more.  The window is longer than the scheduler's turns, so that threads
 * taking turns on a CPU count as writing.
 */
#define CAP_MIN		512u
#define CAP_WINDOW_NS	100000000ULL
#define RING_MIN	(2048ULL << 10)
#define RING_MAX	(8192ULL << 10)
#define RINGS_MAX	16u
#define SITES_OFF	PROC_LEN
#define RING_OFF	(SITES_OFF + SITES_LEN)
#define AGENT_NAME	"ptap-agent"
#define RETS_ROOM	512	/* at most, in a slot: max_record() */

struct inproc_region {
	int fd;			/* ptap's descriptor of the memfd */
	char *local;		/* the region, as ptap maps it */
	uint64_t base;		/* as the process (and its fork children) map it */
	uint64_t len;		/* of the region: RING_OFF + NRINGS * RING_LEN */
	uint64_t used;		/* bytes of the sites' area handed out */
	uint64_t *progs;	/* per probe: where its programs are in the region, 0: not yet */
	uint64_t *filt;		/* per probe: where its struct agent_filter is, 0: none yet */
	struct ring_shape shape;	/* the rings', as ptap laid them out (the headers' can
					 * be written by the process) */
	uint32_t nrings;	/* a power of two, at most RINGS_MAX */
	uint32_t writing;	/* rings written lately, as their caps were last set */
	uint64_t head_seen[RINGS_MAX];	/* each ring's head at the last drain */
	uint64_t moved_at[RINGS_MAX];	/* when it was seen to move; 0: never */
	uint64_t ring_len;	/* bytes from one ring to the next */
	pid_t pid;		/* the process that made it, for messages */
	uint32_t tid_off;	/* struct agent_proc's, while a vfork child hides it */
	uint32_t vforks;	/* children on a parent's thread pointer (inproc_vfork()) */
	bool tid_tried;		/* libc's struct pthread looked for (once its libc is mapped) */
	bool live;		/* an address space maps it (inproc_note_gone()'s sweep) */
	uint64_t direct_at;	/* when to look again whether its reads may be direct */
	bool direct_said;	/* with -vv, once */
};

/* A thread gone whose records may still be in its region's ring, before HEAD. */
struct inproc_ghost {
	pid_t tid, tgid;
	char comm[17];
	bool quiet;		/* its records are not written (thread.h) */
	const struct inproc_region *rg;
	uint32_t ring;		/* its ring in RG */
	uint64_t head;
};

static struct agent_proc *proc_of(const struct inproc_region *rg)
{
	return (struct agent_proc *)rg->local;
}

/* RG's ring K; the first's bell is the rings' bell (agent.h) */
static struct ring *ring_at(const struct inproc_region *rg, uint32_t k)
{
	return (struct ring *)(rg->local + RING_OFF + k * rg->ring_len);
}

/* The ring thread TID records into */
static uint32_t ring_of_tid(const struct inproc_region *rg, pid_t tid)
{
	return (uint32_t)tid & (rg->nrings - 1);
}

/* The largest record P's hits make, as the agent sizes it. */
static size_t record_len(const struct session *s, const struct probe *p)
{
	size_t len = sizeof(struct agent_rec) + (size_t)p->rp.nargs * sizeof(struct fetch_val);

	for (int i = 0; i < p->rp.nargs; i++)
		len += fetch_prog__buflen(&p->rp.progs[i], s->string_max);
	return len;
}

/* The dynamic loader runs before the thread pointer the agent reads is set up. */
static bool is_loader(const char *path)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	return !strncmp(base, "ld-linux", 8) || !strncmp(base, "ld.so", 5) ||
	       !strncmp(base, "ld-", 3);
}

/* The probe whose programs P's site runs: a return probe's, at one of its exits. */
static const struct probe *prog_owner(const struct session *s, const struct probe *p)
{
	return p->exit_of ? &s->probes[p->exit_of - 1] : p;
}

const char *inproc_why_not(const struct session *s, const struct probe *p)
{
	const struct probe *o = prog_owner(s, p);

	if (!s->inproc_on)
		return "--no-agent";
	if (probe__accounted(o))		/* the thread's counters, read by ptap in /proc */
		return "--account reads the thread's counters at a stop";
	if (s->stack_mode)	/* unwound by ptap, from the stopped thread */
		return "-g records the stack at a stop";
	if (s->mmap_tracking == MMAP_SYSCALL)	/* the agent's own calls would cost more */
		return "--mmap-tracking=syscall stops at every system call";
	if (!p->rp.jump.len)
		return p->rp.nojump ? p->rp.nojump : "no jump fits there";
	if (p->rbrk)
		return "the dynamic loader's breakpoint";
	/* a ret, or a jmp (a jump site: never a jcc): always taken */
	if (p->exit_of && p->exit_kind != ARCH_EXIT_RET && p->exit_kind != ARCH_EXIT_TAIL)
		return "a conditional tail call";
	if (p->rp.fpregs || o->rp.fpregs)
		return "it reads an xmm register";
	if (o->rp.go_stack)	/* the agent's frame may not fit a goroutine's stack */
		return "Go code, whose stack may not hold the agent's frame";
	if (o->rp.nargs > AGENT_PROGS_MAX)
		return "more arguments than the agent takes (64)";
	if (is_loader(p->module))
		return "the dynamic loader";
	/* a ring holds records of up to a quarter of its smallest size */
	if (record_len(s, o) + 64 > RING_MIN / 4)
		return "its record is larger than the ring takes (--string-max)";
	return NULL;
}

bool inproc_probe_ok(const struct session *s, const struct probe *p)
{
	return !inproc_why_not(s, p);
}

bool inproc_owns_pc(const struct aspace *as, uint64_t pc)
{
	return as && pc >= as->agent_lo && pc < as->agent_hi;
}

bool inproc_active(const struct session *s)
{
	return s->ninproc > 0;
}

/*
 * ---- ptap's death ----
 *
 * ptap's tracing thread holds every region's reader word (its first ring's,
 * which the agent reads for all its rings) as a robust futex: its tid in
 * the word, the ring in its robust list.  ptap killed (SIGKILL)
 * cannot close the rings; the kernel, as that thread dies, marks each word
 * FUTEX_OWNER_DIED -- before it lets the tracees go (do_exit(): the robust
 * list in exit_mm(), the ptrace links in exit_notify()), so the agent stops
 * reading memory directly before a fault could reach the program -- and
 * the agent, seeing it, stops recording and stops waiting for room (it
 * waits 50 ms at a time): an attached process runs on.  The robust list
 * replaces glibc's for that thread: ptap has no robust mutex.  A thread
 * of ptap's own, the lease thread, waits on the rings' bells.
 */
static struct robust_list_head lease_head;
static pid_t lease_tid;		/* 0: not set up; -1: none (the words are then 1) */
static bool bells_started, bells_running;
static pthread_t bells_th;
static bool bells_stop;		/* the bells' thread is to end (inproc_fini()) */
static bool no_waitv;		/* futex_waitv(2) is not there (Linux < 5.16, valgrind) */

/*
 * The rings in the lease thread's robust list, as ptap keeps them: the
 * links themselves are in the shared memory, where the processes could
 * change them, so ptap writes them all again from here and never follows
 * them.  The lease thread reads the list (under lease_lock) for the bells.
 * A region's first ring: its reader word is its other rings' too, and its
 * bell theirs (agent.h).  One entry a process: the kernel walks 2048 at most.
 */
static struct ring **leased;
static size_t nleased, leased_cap;
static pthread_mutex_t lease_lock = PTHREAD_MUTEX_INITIALIZER;
static uint32_t lease_gen;	/* bumped, and woken, when the list changes */
static void (*bell_fn)(void);	/* inproc_on_bell()'s */

/*
 * ---- the bells ----
 *
 * ptap's loop waits for its tracees (wait4), not for the rings: between two
 * stops it drains them on a timer, and threads that record faster than that
 * would fill a ring and wait for the timer.  So a writer that finds its ring
 * half full (looking once in 64 records: ring_publish()), or full, rings
 * its process's bell, the first ring's (a futex wake: probes/ring.h), once
 * until ptap reads again whichever ring filled (ring_bell_due() on the first
 * ring); the lease thread waits on every bell at once (futex_waitv(2)) and
 * has the loop drain now (bell_fn: a signal that cancels its wait).
 * Without futex_waitv (Linux < 5.16), the timer alone.
 */
static bool bell_heard;	/* the lease thread's: a bell rang, the drain not asked for yet */

static void bells_wait(void)
{
	struct futex_waitv w[FUTEX_WAITV_MAX];
	size_t n = 0;

	pthread_mutex_lock(&lease_lock);
	w[n++] = (struct futex_waitv){ .val = __atomic_load_n(&lease_gen, __ATOMIC_ACQUIRE),
				       .uaddr = (uint64_t)(uintptr_t)&lease_gen,
				       .flags = FUTEX_32 | FUTEX_PRIVATE_FLAG };
	for (size_t i = 0; i < nleased && n < FUTEX_WAITV_MAX; i++)
		w[n++] = (struct futex_waitv){ .val = __atomic_load_n(&leased[i]->bell,
								      __ATOMIC_ACQUIRE),
					       .uaddr = (uint64_t)(uintptr_t)&leased[i]->bell,
					       .flags = FUTEX_32 };
	pthread_mutex_unlock(&lease_lock);
	/*
	 * The drain a bell asked for, asked only now, after the look above:
	 * it begins after every ring of the bells that look saw, and rearms
	 * them (each rings once until then); a bell rung since the look makes
	 * the wait below return at once.  Asked before the look, a bell rung
	 * between the drain's rearm and the look would be taken for the last
	 * one's, and the writers wait for the timer
	 */
	if (bell_heard) {
		void (*fn)(void) = __atomic_load_n(&bell_fn, __ATOMIC_ACQUIRE);

		bell_heard = false;
		if (fn)
			fn();
	}
	if (no_waitv || (syscall(SYS_futex_waitv, w, n, 0, NULL, 0) < 0 && errno != EAGAIN &&
			 errno != EINTR)) {	/* not there, or refused (a seccomp filter) */
		/* the timer alone drains: wait for the end (a change of the list wakes it too) */
		__atomic_store_n(&no_waitv, true, __ATOMIC_RELAXED);
		syscall(SYS_futex, &lease_gen, FUTEX_WAIT_PRIVATE, w[0].val, NULL, NULL, 0);
		return;
	}
	pthread_mutex_lock(&lease_lock);
	for (size_t i = 1; i < n; i++) {
		/*
		 * The list is as it was unless lease_gen moved: then a drain
		 * anyway (a bell may have rung meanwhile, and rings once a
		 * drain: ring_bell_due()), and a look again
		 */
		if (__atomic_load_n(&lease_gen, __ATOMIC_ACQUIRE) != w[0].val ||
		    __atomic_load_n((uint32_t *)(uintptr_t)w[i].uaddr, __ATOMIC_ACQUIRE) != w[i].val) {
			bell_heard = true;
			break;
		}
	}
	pthread_mutex_unlock(&lease_lock);
}

static void *lease_main(void *arg)
{
	while (!__atomic_load_n(&bells_stop, __ATOMIC_ACQUIRE))
		bells_wait();	/* every signal blocked: ptap's go to its main thread */
	return arg;
}

/* The bells' thread ends: tracing is over. */
static void bells_end(void)
{
	if (!bells_running)
		return;
	__atomic_store_n(&bells_stop, true, __ATOMIC_RELEASE);
	__atomic_fetch_add(&lease_gen, 1, __ATOMIC_RELEASE);
	syscall(SYS_futex, &lease_gen, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
	pthread_join(bells_th, NULL);
	bells_running = false;
}

void inproc_on_bell(void (*fn)(void))
{
	__atomic_store_n(&bell_fn, fn, __ATOMIC_RELEASE);
}

/*
 * Every region's first ring linked (none left out by a failed allocation or
 * a missing robust list), and its bell among those the lease thread waits
 * on: lease_gen takes one of the places.  nleased and ninproc: the loop's
 * thread is the one that changes them, and links a region before it counts it.
 */
bool inproc_bells_reach_all(const struct session *s)
{
	return bells_running && !__atomic_load_n(&no_waitv, __ATOMIC_RELAXED) &&
	       nleased == s->ninproc && nleased < FUTEX_WAITV_MAX;
}

/*
 * The reader word of a new ring: the tracing thread's tid (the caller's:
 * its robust list set up at the first), or 1.  The bells' thread starts
 * with it.
 */
static uint32_t lease_word(void)
{
	sigset_t all, old;

	if (!lease_tid) {
		lease_head.list.next = &lease_head.list;
		lease_head.futex_offset = (long)offsetof(struct ring, reader) -
					  (long)offsetof(struct ring, robust_next);
		lease_tid = syscall(SYS_set_robust_list, &lease_head, sizeof(lease_head)) == 0 ?
			    gettid() : -1;
		if (lease_tid < 0)
			pr_info("no robust futex for the rings: a process ptap leaves by dying "
				"(SIGKILL) may wait for it\n");
	}
	if (!bells_started) {
		bells_started = true;
		/* no futex: EINVAL where futex_waitv(2) is there and allowed */
		if (syscall(SYS_futex_waitv, NULL, 0, 0, NULL, 0) == 0 || errno != EINVAL) {
			no_waitv = true;
			pr_info("no futex_waitv(2) (%s): records made in the processes are taken "
				"every 2 ms\n", strerror(errno));
		}
		sigfillset(&all);
		pthread_sigmask(SIG_BLOCK, &all, &old);	/* the thread starts with them blocked */
		bells_running = pthread_create(&bells_th, NULL, lease_main, NULL) == 0;
		if (!bells_running)
			pr_info("no thread for the rings' bells: records made in the processes "
				"are taken every 2 ms\n");
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	}
	return lease_tid > 0 ? (uint32_t)lease_tid : 1;
}

static void lease_relink(void)
{
	struct robust_list *next = &lease_head.list;

	for (size_t i = nleased; i-- > 0;) {
		leased[i]->robust_next = (uint64_t)(uintptr_t)next;
		next = (struct robust_list *)&leased[i]->robust_next;
	}
	lease_head.list.next = next;
}

/* The list changed: the lease thread waits on its bells again. */
static void lease_changed(void)
{
	__atomic_fetch_add(&lease_gen, 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&lease_lock);
	syscall(SYS_futex, &lease_gen, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static void lease_link(struct ring *r)
{
	pthread_mutex_lock(&lease_lock);
	if (array_grow((void **)&leased, &leased_cap, sizeof(*leased), nleased + 1) < 0) {
		pthread_mutex_unlock(&lease_lock);
		return;		/* then a ptap killed leaves this one's writers waiting */
	}
	leased[nleased++] = r;
	lease_relink();
	lease_changed();
}

/* R leaves the list before its memory goes (the lease thread reads its bell). */
static void lease_unlink(struct ring *r)
{
	size_t j = 0;

	pthread_mutex_lock(&lease_lock);
	for (size_t i = 0; i < nleased; i++)
		if (leased[i] != r)
			leased[j++] = leased[i];
	nleased = j;
	lease_relink();
	lease_changed();
}

/* Run NR(A0..A5) in T: the call's return value, or the failure to run it (-ESRCH: T gone). */
static long run(struct session *s, struct thread *t, long nr, uint64_t a0, uint64_t a1,
		uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5)
{
	uint64_t args[6] = { a0, a1, a2, a3, a4, a5 };
	long ret;
	int r = inject_syscall(s, t, nr, args, &ret);

	return r < 0 ? r : ret;
}

/* Add [START, START+LEN) to AS's table and scratch list: detach unmaps it. */
static int note_mapping(struct aspace *as, uint64_t start, uint64_t len, int prot, int flags,
			const struct stat *sb)
{
	struct map_entry e = { .start = start, .end = start + len, .prot = prot, .flags = flags,
			       .path = "[ptap]" };
	int r = array_grow((void **)&as->scratch, &as->scratch_cap, sizeof(*as->scratch),
			   as->nscratch + 1);

	if (r < 0)
		return r;
	if (sb) {
		e.dev = sb->st_dev;
		e.ino = sb->st_ino;
	}
	/* USED = LEN: no trampoline is placed here */
	as->scratch[as->nscratch++] = (struct scratch){ .start = start, .len = len, .used = len };
	return maptab__insert(as->mt, &e);
}

/* Where glibc keeps a thread's tid, once T's process has mapped its libc: the agent's fast tid. */
static void find_tid_off(struct inproc_region *rg, struct thread *t)
{
	uint32_t off = 0;
	bool libc = false;

	if (rg->tid_tried)
		return;
	for (size_t i = 0; i < maptab__count(t->as->mt) && !libc; i++) {
		const char *path = maptab__at(t->as->mt, i)->path;

		libc = path && strstr(path, "/libc.so");
	}
	if (!libc)
		return;
	rg->tid_tried = true;
	if (libc_tid_offset(t->tgid, &off) < 0) {
		pr_debug("pid %d: no struct pthread in its libc's DWARF: the agent asks the kernel "
			 "for the tid at each hit\n", t->tgid);
		return;
	}
	rg->tid_off = off;
	__atomic_store_n(&proc_of(rg)->tid_off, off, __ATOMIC_RELEASE);
}

/*
 * Is PID in ptap's pid namespace?  The agent names a thread by the tid its
 * own namespace gives it (glibc's, or gettid(2)'s), ptap by its own.
 */
static bool same_pidns(pid_t pid)
{
	struct stat a, b;
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/ns/pid", (int)pid);
	if (stat("/proc/self/ns/pid", &a) < 0 || stat(path, &b) < 0)
		return false;
	return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/*
 * The bytes of a ring's slot: the largest record of a probe recorded in the
 * process, and room after it for the entry records of the return probes, so
 * that an entry probe's record and those of the return probes of the same
 * function share a slot (the agent puts a hit's records in one slot while
 * they fit: agent/agent.h).
 */
static size_t max_record(const struct session *s)
{
	size_t len = 0, rets = 0;

	for (int i = 0; i < s->nprobes; i++) {
		const struct probe *p = &s->probes[i];
		size_t l = AGENT_REC_ALIGN(record_len(s, prog_owner(s, p)));

		if (!p->inproc)
			continue;
		if (l > len)
			len = l;
		if (p->rp.retprobe && !p->exit_of)
			rets += l;
	}
	return len + (rets <= RETS_ROOM ? rets : 0);
}

/*
 * The bytes of a ring for S's records: RING_SLOTS slots, within RING_MIN to
 * RING_MAX (its slots then more or fewer: a power of two, as many as fit,
 * ring_init()), whole pages.  Sized by slots, not bytes: a return probe's
 * records (two slots a call, and slots with room for a hit's chain) would
 * have rung the bell twice as often, each time a drain of ptap's and a
 * switch or three.
 */
static uint64_t ring_len(const struct session *s)
{
	uint64_t ring = ring_len_for(max_record(s), RING_SLOTS);

	ring = ring < RING_MIN ? RING_MIN : ring > RING_MAX ? RING_MAX : ring;
	return (ring + 4095) / 4096 * 4096;
}

/*
 * The rings of a region: twice the CPUs, a power of two, at most RINGS_MAX.
 * Only those its threads' tids name are written (a single-threaded
 * process's one), each in full as its slots go round (2 to 8 MiB of shared
 * memory); the others cost their header and queue, a page or eight.
 */
static uint32_t rings_count(void)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	uint32_t n = 1;

	while (n < RINGS_MAX && (long)n < 2 * (cpus > 0 ? cpus : 1))
		n <<= 1;
	return n;
}

/*
 * ---- reading memory ----
 *
 * The agent reads the process's memory directly, at the cost of a copy: a
 * bad pointer faults, and the thread, traced, stops for the SIGSEGV (SIGBUS:
 * a file mapping past its end) before anything of the program's sees it;
 * inproc_read_fault() sends it on at agent_copy_fault (agent_copy_str_fault,
 * a string's), with the bytes read before the fault, and the signal is
 * gone.  The kernel forces such a signal through: a thread that blocks it
 * has it unblocked, and a handler of it is reset to the default.  So the
 * agent reads directly only in a process that neither handles nor ignores
 * them (there, only the thread's mask can change); elsewhere, and once ptap
 * is gone (no one to catch a fault), through process_vm_readv, which fails
 * instead (about 2 us a read here).
 */
static bool faults_are_ours(pid_t pid)
{
	unsigned long long mask = (1ull << (SIGSEGV - 1)) | (1ull << (SIGBUS - 1));

	return !((procstatus_field(pid, 0, "SigCgt", 16, ~0ull) |
		  procstatus_field(pid, 0, "SigIgn", 16, ~0ull)) & mask);
}

#define DIRECT_EVERY_NS	100000000ull	/* 100 ms */

static uint64_t coarse_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* direct_check()'s look at each thread recording into a region. */
struct direct_look {
	const struct inproc_region *rg;
	bool ok;
	pid_t seen[64];		/* the processes looked at (fork children share the region) */
	size_t nseen;
};

static void direct_look_one(struct session *s, struct thread *t, void *arg)
{
	struct direct_look *d = arg;
	bool seen = false;

	(void)s;
	if (!d->ok || !t->as || t->as->inproc != d->rg)
		return;
	for (size_t i = 0; i < d->nseen; i++)
		seen |= d->seen[i] == t->tgid;
	if (!seen) {
		d->ok = faults_are_ours(t->tgid);
		if (d->nseen < sizeof(d->seen) / sizeof(d->seen[0]))
			d->seen[d->nseen++] = t->tgid;
	}
}

/*
 * May RG's agent read directly now?  Not when a process recording into it
 * (its fork children too) handles or ignores SIGSEGV or SIGBUS.  Looked at
 * again every DIRECT_EVERY_NS (from the drains), longer with many processes:
 * a handler a program installs later (a language runtime's, a crash
 * reporter's) turns the direct reads off within that time -- or at the
 * first fault, which ptap catches either way.  Launched, at once: ptap
 * sees a handler being installed before the kernel does
 * (inproc_sigaction()).
 */
static void direct_check(struct session *s, struct inproc_region *rg)
{
	struct direct_look d = { .rg = rg, .ok = faults_are_ours(rg->pid), .seen = { rg->pid },
				 .nseen = 1 };
	uint64_t now = coarse_ns();
	uint32_t was = proc_of(rg)->direct;

	thread__for_each(s, direct_look_one, &d);
	/* a status file a process: looked at less often with many (fork children) */
	rg->direct_at = now + DIRECT_EVERY_NS * (1 + d.nseen / 16);
	__atomic_store_n(&proc_of(rg)->direct, d.ok, __ATOMIC_RELEASE);
	if (was != d.ok || !rg->direct_said)
		pr_debug("pid %d: the agent reads memory %s\n", rg->pid,
			 d.ok ? "directly" : "through process_vm_readv (a process handles or "
			 "ignores SIGSEGV or SIGBUS)");
	rg->direct_said = true;
}

void inproc_sigaction(struct thread *t, const uint64_t *args)
{
	struct inproc_region *rg = t->as ? t->as->inproc : NULL;

	if (!rg || (args[0] != SIGSEGV && args[0] != SIGBUS) || !args[1])
		return;
	/* looked at again once the call is long done (a look before would see no handler) */
	rg->direct_at = coarse_ns() + DIRECT_EVERY_NS;
	if (__atomic_exchange_n(&proc_of(rg)->direct, 0, __ATOMIC_ACQ_REL))
		pr_debug("pid %d: it installs a %s handler: the agent reads memory through "
			 "process_vm_readv\n", rg->pid, args[0] == SIGSEGV ? "SIGSEGV" : "SIGBUS");
}

bool inproc_read_fault(struct thread *t, int sig)
{
	struct inproc_region *rg = t->as ? t->as->inproc : NULL;
	arch_regs_t regs;
	siginfo_t si;
	uint64_t pc;

	if ((sig != SIGSEGV && sig != SIGBUS) || !rg || !t->as->agent_lo ||
	    pt_getregs(t->tid, &regs) < 0)
		return false;
	pc = arch_regs_pc(&regs) - t->as->agent_lo;
	if ((pc != agent_copy_read_off && pc != agent_copy_str_read_off) ||
	    pt_getsiginfo(t->tid, &si) < 0 || si.si_code <= 0)	/* sent, not a fault */
		return false;
	arch_regs_set_pc(&regs, t->as->agent_lo + (pc == agent_copy_read_off ?
						   agent_copy_fault_off :
						   agent_copy_str_fault_off));
	if (pt_setregs(t->tid, &regs) < 0)
		return false;
	/* a handler installed since the last look: the next fault could reset it */
	if (proc_of(rg)->direct && !faults_are_ours(t->tgid)) {
		__atomic_store_n(&proc_of(rg)->direct, 0, __ATOMIC_RELEASE);
		rg->direct_at = coarse_ns() + DIRECT_EVERY_NS;
		pr_debug("pid %d: now handles or ignores SIGSEGV or SIGBUS: the agent reads "
			 "memory through process_vm_readv\n", t->tgid);
	}
	return true;
}

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23	/* Linux 5.14 */
#endif

/*
 * The pages of the ring thread TID records into, mapped at once in T's
 * process (T stopped; any of its threads: the page tables are the
 * process's).  Faulted in as the agent writes them, a page cost ~10 us in
 * a VM: a 2 MiB ring's first round ~5 ms, 30 ms for 8 threads' 4 rings;
 * madvise(MADV_POPULATE_WRITE) maps them in ~0.3 ms.  Only the rings live
 * threads name (those others never use cost nothing), once a process; not
 * in a fork child (most exec at once).  Done by ptap at a stop, not by the
 * agent at its first record: a thread inside a long system call of the
 * agent's kept detach from unmapping it.  An older kernel refuses it: the
 * pages fault in as before; so they do when no syscall instruction of the
 * process is known yet (attached to threads none of which was in a system
 * call, and no syscall stops): ptap would write one at T's pc, which the
 * process's running threads could reach.  The pages of a ring in use are
 * all committed then, 2 to 8 MiB.  0, or -ESRCH (T is gone).
 */
static int ring_warm(struct session *s, struct thread *t, pid_t tid)
{
	struct inproc_region *rg = t->as->inproc;
	uint32_t k;
	long r;

	/* not through two bytes at T's pc (no syscall instruction known yet):
	 * the other threads run meanwhile, and would run them too */
	if (!rg || t->as->inproc_failed || !t->as->syscall_pc || t->quiet || t->as->unplanted ||
	    s->detaching)
		return 0;
	k = ring_of_tid(rg, tid);
	if (t->as->rings_warm & 1u << k)
		return 0;
	t->as->rings_warm |= 1u << k;
	r = run(s, t, SYS_madvise, rg->base + RING_OFF + k * rg->ring_len, rg->ring_len,
		MADV_POPULATE_WRITE, 0, 0, 0);
	if (r < 0 && r != -ESRCH)
		pr_debug("pid %d: ring %u not mapped in at once: %s\n", t->tgid, k, strerror((int)-r));
	return r == -ESRCH ? -ESRCH : 0;
}

int inproc_thread_new(struct session *s, struct thread *t)
{
	return ring_warm(s, t, t->tid);
}

struct warm_arg {
	struct thread *via;	/* the stopped thread that makes the calls */
	int r;
};

static void warm_one(struct session *s, struct thread *t, void *arg)
{
	struct warm_arg *w = arg;

	if (w->r == 0 && t->as == w->via->as)
		w->r = ring_warm(s, w->via, t->tid);
}

/*
 * Map the agent and a region into T's process.  0, or -errno with nothing
 * of ours left in it (-ESRCH: T is gone, and the process with it).
 */
static int region_map(struct session *s, struct thread *t, struct inproc_region **out)
{
	struct aspace *as = t->as;
	uint64_t code_len = (agent_blob_len + sizeof(AGENT_NAME) + 4095) / 4096 * 4096;
	struct inproc_region *rg = calloc(1, sizeof(*rg));
	uint32_t nrings = rings_count();
	uint64_t ring_bytes = ring_len(s), len = RING_OFF + nrings * ring_bytes;
	size_t rec_max = max_record(s);
	long code = -1, fd = -1, base = -1;
	char path[64];
	struct stat sb;
	int r, lfd = -1;

	if (!rg || !(rg->progs = calloc((size_t)s->nprobes, sizeof(*rg->progs))) ||
	    !(rg->filt = calloc((size_t)s->nprobes, sizeof(*rg->filt))) ||
	    array_grow((void **)&s->inproc, &s->inproc_cap, sizeof(*s->inproc), s->ninproc + 1)) {
		r = -ENOMEM;
		goto fail;
	}
	rg->local = MAP_FAILED;
	code = run(s, t, SYS_mmap, 0, code_len, PROT_READ | PROT_EXEC,
		   MAP_PRIVATE | MAP_ANONYMOUS, (uint64_t)-1, 0);
	if (code < 0) {
		r = (int)code;
		goto fail;
	}
	r = mem_write(as->memfd, (uint64_t)code, agent_blob, agent_blob_len);
	if (r >= 0)
		r = mem_write(as->memfd, (uint64_t)code + agent_blob_len, AGENT_NAME,
			      sizeof(AGENT_NAME));
	if (r < 0)
		goto fail;
	fd = run(s, t, SYS_memfd_create, (uint64_t)code + agent_blob_len, MFD_CLOEXEC, 0, 0, 0, 0);
	if (fd < 0) {
		r = (int)fd;
		goto fail;
	}
	r = (int)run(s, t, SYS_ftruncate, (uint64_t)fd, len, 0, 0, 0, 0);
	if (r < 0)
		goto fail;
	base = run(s, t, SYS_mmap, 0, len, PROT_READ | PROT_WRITE, MAP_SHARED,
		   (uint64_t)fd, 0);
	if (base < 0) {
		r = (int)base;
		goto fail;
	}
	snprintf(path, sizeof(path), "/proc/%d/fd/%ld", (int)t->tid, fd);
	lfd = open(path, O_RDWR | O_CLOEXEC);
	if (lfd < 0 || fstat(lfd, &sb) < 0) {
		r = -errno;
		goto fail;
	}
	rg->local = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, lfd, 0);
	if (rg->local == MAP_FAILED) {
		r = -errno;
		goto fail;
	}
	r = (int)run(s, t, SYS_close, (uint64_t)fd, 0, 0, 0, 0, 0);
	if (r == -ESRCH)
		goto fail;
	fd = -1;
	r = note_mapping(as, (uint64_t)code, code_len, PROT_READ | PROT_EXEC,
			 MAP_PRIVATE | MAP_ANONYMOUS, NULL);
	if (r == 0) {
		code = -1;	/* the scratch list has it now */
		r = note_mapping(as, (uint64_t)base, len, PROT_READ | PROT_WRITE,
				 MAP_SHARED, &sb);
	}
	if (r < 0)
		goto fail;
	base = -1;
	rg->fd = lfd;
	rg->len = len;
	rg->base = as->scratch[as->nscratch - 1].start;
	rg->pid = t->tgid;
	as->agent_lo = as->scratch[as->nscratch - 2].start;
	as->agent_hi = as->agent_lo + agent_blob_len;
	rg->nrings = nrings;
	rg->ring_len = ring_bytes;
	for (uint32_t k = 0; k < nrings; k++)
		if (ring_init(ring_at(rg, k), ring_bytes, rec_max, &rg->shape) < 0) {	/* each the same */
			r = -EMSGSIZE;
			goto fail;
		}
	proc_of(rg)->ring_stride = ring_bytes;
	proc_of(rg)->ring_mask = nrings - 1;
	for (uint32_t k = 0; k < nrings; k++)
		ring_at(rg, k)->reader = lease_word();
	if (lease_tid > 0)
		lease_link(ring_at(rg, 0));	/* the others' reader word too (agent.h) */
	if (vdso_gettime(t->tgid, &proc_of(rg)->gettime) < 0)
		pr_debug("pid %d: no clock_gettime in its vDSO: the agent asks the kernel for the "
			 "time at each hit\n", t->tgid);
	find_tid_off(rg, t);
	/* at once, launched too: the filter stops the calls that install a handler
	 * (inproc_sigaction()) */
	direct_check(s, rg);
	s->inproc[s->ninproc++] = rg;
	*out = rg;
	pr_debug("pid %d: agent at 0x%lx, region at 0x%lx (%llu KiB, %u rings)\n", t->tgid,
		 (unsigned long)as->agent_lo, (unsigned long)rg->base, (unsigned long long)(len >> 10),
		 nrings);
	return 0;
fail:
	if (r == -ESRCH) {	/* the process is gone or replaced: nothing to undo there */
		code = fd = base = -1;
	}
	if (base >= 0)
		run(s, t, SYS_munmap, (uint64_t)base, len, 0, 0, 0, 0);
	if (fd >= 0)
		run(s, t, SYS_close, (uint64_t)fd, 0, 0, 0, 0, 0);
	if (code >= 0)
		run(s, t, SYS_munmap, (uint64_t)code, code_len, 0, 0, 0, 0);
	if (rg && rg->local != MAP_FAILED && rg->local)
		munmap(rg->local, len);
	if (lfd >= 0)
		close(lfd);
	if (rg) {
		free(rg->progs);
		free(rg->filt);
	}
	free(rg);
	return r;
}

/* Room for LEN bytes in RG's sites' area: their offset in the region, or 0. */
static uint64_t sites_alloc(struct inproc_region *rg, size_t len)
{
	uint64_t off = SITES_OFF + rg->used;

	len = (len + 63) & ~(size_t)63;
	if (rg->used + len > SITES_LEN)
		return 0;
	rg->used += len;
	return off;
}

/* Where probe IDX's programs (and a return probe's ra_prog after them) are in RG: 0, none room. */
static uint64_t progs_in(const struct session *s, struct inproc_region *rg, int idx)
{
	const struct probe *p = &s->probes[idx];
	struct fetch_prog *progs;
	uint64_t off;

	if (rg->progs[idx])
		return rg->progs[idx];
	off = sites_alloc(rg, (size_t)(p->rp.nargs + 1) * sizeof(*progs));
	if (!off)
		return 0;
	progs = (struct fetch_prog *)(rg->local + off);
	if (p->rp.nargs)	/* a probe of no argument has no programs (NULL) */
		memcpy(progs, p->rp.progs, (size_t)p->rp.nargs * sizeof(*progs));
	progs[p->rp.nargs] = p->rp.ra_prog;
	for (int i = 0; i <= p->rp.nargs; i++)
		progs[i].type.desc = NULL;	/* ptap's, for formatting only */
	rg->progs[idx] = off;
	return off;
}

/*
 * Where P's --filter is in RG for the agent to match (struct agent_filter):
 * its offset, 0 when the agent does not match it -- none, one naming pid or
 * comm (which the agent does not know), a probe whose hits are --context
 * (a hit left out is still the context of its syscalls: ptap must see it) --
 * or there is no room.  Its hits are then matched by ptap, as it drains.
 */
static uint64_t filter_in(const struct session *s, struct inproc_region *rg, int idx)
{
	const struct probe *p = &s->probes[idx];
	uint64_t off;

	if (!p->filter || p->ctx1 || !filter__agent_ok(p->filter))
		return 0;
	if (rg->filt[idx])
		return rg->filt[idx];
	off = sites_alloc(rg, sizeof(struct agent_filter) + filter__size());
	if (!off)
		return 0;
	memcpy(((struct agent_filter *)(rg->local + off))->filter, p->filter, filter__size());
	rg->filt[idx] = off;
	pr_debug("pid %d: %s's --filter is matched in the process\n", rg->pid, p->event);
	return off;
}

/* The hits left out by the agent's --filter in RG, to their probes' counts (the region goes). */
static void filter_counts(struct session *s, const struct inproc_region *rg)
{
	for (int i = 0; i < s->nprobes; i++)
		if (rg->filt[i])
			s->probes[i].nfiltered += __atomic_load_n(
				&((struct agent_filter *)(rg->local + rg->filt[i]))->left_out,
				__ATOMIC_ACQUIRE);
}

/* P's struct agent_site at ST, in RG: its offset in RG, 0 when there is no room. */
static uint64_t agent_site_new(const struct session *s, struct inproc_region *rg,
			       const struct site *st, const struct probe *p)
{
	const struct probe *o = prog_owner(s, p);
	uint32_t kind = p->exit_of ? AGENT_EXIT : o->rp.retprobe ? AGENT_RET_ENTRY : AGENT_ENTRY;
	uint64_t off, progs = progs_in(s, rg, (int)(o - s->probes)), run = 0, filt = 0;

	if (!progs)
		return 0;
	if (kind == AGENT_ENTRY)	/* a return probe's record is made by ptap: filtered there */
		filt = filter_in(s, rg, (int)(p - s->probes));
	/* a return probe's arguments: each at the entry or at the exit, as at a stop */
	for (int i = 0; i < o->rp.nargs; i++)
		/* a tail call's exit: no $retval yet, nothing fetched at it (calls.c) */
		if (kind == AGENT_ENTRY ||
		    ((kind == AGENT_EXIT) == o->rp.at_return[i] && p->exit_kind != ARCH_EXIT_TAIL))
			run |= 1ull << i;
	off = sites_alloc(rg, sizeof(struct agent_site));
	if (!off)
		return 0;
	*(struct agent_site *)(rg->local + off) = (struct agent_site){
		.progs = rg->base + progs, .ring = rg->base + RING_OFF, .addr = st->addr,
		.bias = st->bias, .proc = rg->base,
		.ra_prog = rg->base + progs + (uint64_t)o->rp.nargs * sizeof(struct fetch_prog),
		.run = run, .kind = kind, .nprogs = (uint32_t)o->rp.nargs,
		.rec_len = (uint32_t)record_len(s, o),
		.probe = (uint32_t)(p - s->probes), .string_max = (uint32_t)s->string_max,
		.clock = s->clock, .filter = filt ? rg->base + filt : 0,
		.hold = kind != AGENT_ENTRY && calls_may_hold(o) ?
			(uint32_t)AGENT_REC_ALIGN(record_len(s, o)) : 0,
		.owner = (uint32_t)(o - s->probes) };
	return off;
}

int inproc_site(struct session *s, struct thread *t, struct site *st, struct probe *p)
{
	struct aspace *as = t->as;
	struct inproc_region *rg = as->inproc;
	uint64_t off;
	int r;

	if (as->inproc_failed || as->no_inject)
		return -ENOTSUP;
	if (!rg && !same_pidns(t->tgid)) {
		as->inproc_failed = true;
		pr_info("pid %d: no in-process probes (another pid namespace, whose thread ids "
			"ptap does not see): its probes stop the thread at each hit\n", t->tgid);
		return -ENOTSUP;
	}
	if (!rg) {
		struct warm_arg w = { .via = t };

		r = region_map(s, t, &rg);
		if (r == -ESRCH)
			return r;
		if (r < 0) {
			as->inproc_failed = true;
			pr_info("pid %d: no in-process probes (%s): its probes stop the thread at "
				"each hit\n", t->tgid, strerror(-r));
			return r;
		}
		as->inproc = rg;
		thread__for_each(s, warm_one, &w);	/* attached: all its threads are known */
		if (w.r < 0)
			return w.r;
	}
	as->inproc = rg;
	off = agent_site_new(s, rg, st, p);
	if (!off)
		return -ENOSPC;
	st->agent = st->agent_last = rg->base + off;
	st->agent_fn = as->agent_lo + agent_entry_off;
	return 0;
}

int inproc_site_add(struct session *s, struct thread *t, struct site *st, struct probe *p)
{
	struct inproc_region *rg = t->as->inproc;
	uint64_t off;

	if (!rg || !st->agent || st->agent_last < rg->base ||
	    st->agent_last + sizeof(struct agent_site) > rg->base + RING_OFF)
		return -ENOTSUP;
	off = agent_site_new(s, rg, st, p);
	if (!off)
		return -ENOSPC;
	/* made whole first, then linked: a thread in the agent now sees all of it or none */
	__atomic_store_n(&((struct agent_site *)(rg->local + (st->agent_last - rg->base)))->next,
			 rg->base + off, __ATOMIC_RELEASE);
	st->agent_last = rg->base + off;
	return 0;
}

void inproc_libs_mapped(struct thread *t)
{
	if (t->as && t->as->inproc)
		find_tid_off(t->as->inproc, t);
}

/* ---- draining ------------------------------------------------------------ */

/* Wake R's writers waiting for room (a shared futex: the process maps the same memfd). */
static void writers_wake(struct ring *r)
{
	syscall(SYS_futex, &r->released, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

/*
 * The slots TID left taken in RG's ring R (a record it was making when it
 * was killed or exec'd, or left by a handler's siglongjmp) freed, and a
 * writer waiting for room woken to take them.
 */
static void slots_free_of(const struct inproc_region *rg, struct ring *r, pid_t tid)
{
	if (ring_slots_free(r, &rg->shape, (uint32_t)tid) && ring_released(r))
		writers_wake(r);
}

void inproc_exec(struct session *s, struct thread *t)
{
	struct inproc_region *rg = t->as ? t->as->inproc : NULL;

	if (!rg)
		return;
	inproc_held_of(s, t);
	slots_free_of(rg, ring_at(rg, ring_of_tid(rg, t->tid)), t->tid);
}

void inproc_thread_gone(struct session *s, const struct thread *t)
{
	const struct inproc_region *rg = t->as ? t->as->inproc : NULL;
	struct inproc_ghost *g;
	struct ring *r;
	uint32_t k;
	uint64_t head;

	if (!rg)
		return;
	k = ring_of_tid(rg, t->tid);
	r = ring_at(rg, k);
	slots_free_of(rg, r, t->tid);
	head = ring_head(r, &rg->shape);
	if (r->tail >= head ||
	    array_grow((void **)&s->ghosts, &s->ghosts_cap, sizeof(*s->ghosts), s->nghosts + 1))
		return;
	g = &s->ghosts[s->nghosts++];
	*g = (struct inproc_ghost){ .tid = t->tid, .tgid = t->tgid, .quiet = t->quiet,
				    .rg = rg, .ring = k, .head = head };
	memcpy(g->comm, t->comm, sizeof(g->comm));
}

/* Ghosts whose records are all written (or whose region is gone: RG) go. */
static void ghosts_trim(struct session *s, const struct inproc_region *gone)
{
	size_t j = 0;

	for (size_t i = 0; i < s->nghosts; i++) {
		const struct inproc_ghost *g = &s->ghosts[i];

		if (g->rg != gone && ring_at(g->rg, g->ring)->tail < g->head)
			s->ghosts[j++] = *g;
	}
	s->nghosts = j;
}

/* Who made a record: a thread ptap traces, or one gone since (into *T, a stand-in). */
static struct thread *record_thread(const struct session *s, pid_t tid,
					  struct thread *ghost)
{
	struct thread *t = thread__find(s, tid);

	if (t && t->as)
		return t;
	for (size_t i = s->nghosts; i-- > 0;)
		if (s->ghosts[i].tid == tid) {
			*ghost = (struct thread){ .tid = tid, .tgid = s->ghosts[i].tgid,
						  .quiet = s->ghosts[i].quiet };
			memcpy(ghost->comm, s->ghosts[i].comm, sizeof(ghost->comm));
			return ghost;
		}
	return NULL;
}

/*
 * The entry of a call made whole in the process (emit_slot()), kept for its
 * exit, the next record: its values (their strings in the ring's slot,
 * read before it is released), its thread.
 */
static struct calls_made joined_in;
static struct fetch_val joined_vals[AGENT_PROGS_MAX];
static struct thread *joined_t;
static struct probe *joined_p;

/* An entry kept whose exit did not follow (it was malformed): pushed alone. */
static void joined_flush(struct session *s)
{
	struct thread *t = joined_t;

	if (!t)
		return;
	joined_t = NULL;
	calls_enter_made(s, t, joined_p, &joined_in);
}

/*
 * One record of RG's ring (LEN bytes at AR): written as a stop's would be,
 * if it is sound; a return probe's entry pushed as HOW says (calls.h).
 */
static void emit(struct session *s, const struct agent_rec *ar, size_t len, int how)
{
	struct agent_rec h;	/* read once: the process may write it meanwhile */
	size_t head = sizeof(h);
	struct fetch_val vals[AGENT_PROGS_MAX];	/* checked, their strings in the ring */
	struct thread *t;
	struct thread ghost;
	struct probe *p, *o;

	if (len < head)
		goto bad;
	memcpy(&h, ar, sizeof(h));
	if (h.probe >= (uint32_t)s->nprobes)
		goto bad;
	p = &s->probes[h.probe];
	o = (struct probe *)prog_owner(s, p);
	if (!p->inproc || o->rp.nargs > AGENT_PROGS_MAX)	/* a probe no agent records */
		goto bad;
	head += (size_t)o->rp.nargs * sizeof(struct fetch_val);
	if (h.nvals != (uint32_t)o->rp.nargs || len < head)
		goto bad;
	t = record_thread(s, (pid_t)h.tid, &ghost);
	if (!t) {
		pr_debug("a record of tid %u, which ptap does not trace (%s)\n", h.tid, p->event);
		s->inproc_unknown++;
		return;
	}
	if (t->quiet)		/* --no-follow: a CLONE_VM child runs its parent's code */
		return;
	if (h.flags & AGENT_REC_LEFT_OUT)	/* the agent's --filter: counted there */
		return;
	for (int i = 0; i < o->rp.nargs; i++) {
		struct fetch_val *v = &vals[i];
		uint64_t off;

		memcpy(v, &ar->vals[i], sizeof(*v));	/* then checked where it is */
		off = (uint64_t)(uintptr_t)v->str;
		if (off && (off < head || off > len || v->len > len - off))
			goto bad;
		v->str = off ? (char *)ar + off : NULL;
	}
	if (p->exit_of || o->rp.retprobe) {
		struct calls_made m = { .ts = h.ts, .addr = h.addr, .bias = h.bias, .slot = h.slot,
				      .ra = h.ra, .ra_ok = h.flags & AGENT_REC_RA, .vals = vals,
				      .how = how };

		if (how == CALLS_JOINED && !p->exit_of && t != &ghost) {	/* kept for its exit */
			joined_in = m;
			joined_p = p;
			joined_in.vals = joined_vals;
			memcpy(joined_vals, vals, (size_t)o->rp.nargs * sizeof(*vals));
			joined_t = t;
			return;
		}
		if (how == CALLS_JOINED && joined_t == t && joined_p == calls_exit_owner(s, p)) {
			joined_t = NULL;
			calls_whole_made(s, t, p, &joined_in, &m);
			return;
		}
		joined_flush(s);
		if (p->exit_of && how != CALLS_JOINED)	/* a call its thread held, first */
			inproc_held_for_exit(s, t, p, h.slot, h.ts);
		if (p->exit_of)
			calls_exit_made(s, t, p, &m);
		else
			calls_enter_made(s, t, p, &m);
		return;
	}
	/*
	 * Every member named, the zeros too: gcc clears a struct named in part
	 * with a rep stos first, a tenth of this function's time
	 */
	hitrec_write(s, t, p, &(struct record){
		.ts = h.ts, .pid = t->tgid, .tid = t->tid, .comm = t->comm, .event = p->event,
		.kind = REC_KIND_ENTRY, .addr = h.addr, .ret_addr = 0, .duration = 0,
		.has_duration = false, .nargs = (unsigned int)p->rp.nargs,
		.names = (const char *const *)p->rp.names, .types = p->types, .vals = vals,
		.nctx = 0, .ctx = NULL, .nframes = 0, .frames = NULL });
	return;
bad:
	s->inproc_bad++;
}

/*
 * The records of one slot (LEN bytes at P): one hit's, of the probes at its
 * site, one after another (struct agent_rec's next).
 */
static void emit_slot(struct session *s, const char *p, size_t len)
{
	size_t off = 0;
	bool exit_next = false, ok = false;	/* the next record: the exit of this one's call */

	for (int i = 0; i < AGENT_CHAIN_MAX; i++) {
		uint32_t next, probe, after = UINT32_MAX;
		int how = CALLS_AT_ENTRY;

		if (len - off < sizeof(struct agent_rec))
			break;
		/* read once: the process may write it meanwhile */
		memcpy(&next, p + off + offsetof(struct agent_rec, next), sizeof(next));
		if (next && (next <= off || next >= len || next % 8))
			break;
		/*
		 * A call's entry and its exit in one slot: made whole in the
		 * process (agent.c's exit_joins()), written as one
		 */
		memcpy(&probe, p + off + offsetof(struct agent_rec, probe), sizeof(probe));
		if (next && len - next >= sizeof(struct agent_rec))
			memcpy(&after, p + next + offsetof(struct agent_rec, probe), sizeof(after));
		if (exit_next) {
			how = CALLS_JOINED;
			exit_next = false;
		} else if (probe < (uint32_t)s->nprobes && after < (uint32_t)s->nprobes &&
			   !s->probes[probe].exit_of && s->probes[probe].rp.retprobe &&
			   s->probes[after].exit_of == (int)probe + 1) {
			how = CALLS_JOINED;
			exit_next = true;
			s->inproc_joined++;
		}
		emit(s, (const struct agent_rec *)(p + off), (next ? next : len) - off, how);
		if (!next) {
			ok = true;
			break;
		}
		off = next;
	}
	joined_flush(s);	/* an entry whose exit was malformed: pushed alone */
	if (!ok)
		s->inproc_bad++;
}

/*
 * The call held in RG's ring K (ring_hold()) taken from the process: the
 * one WORD names (ring_held_peek(); 0: any), its entry's frame pushed as
 * HOW says, the slot freed.
 */
static void held_take(struct session *s, struct inproc_region *rg, uint32_t k, uint64_t word,
		      int how)
{
	struct ring *r = ring_at(rg, k);
	const void *rec;
	size_t len;
	uint32_t id, slot, probe;

	if (!ring_held_take(r, &rg->shape, word, &rec, &len, &id, &slot))
		return;
	s->inproc_held_taken++;
	memcpy(&probe, (const char *)rec + offsetof(struct agent_rec, probe), sizeof(probe));
	if (len >= sizeof(struct agent_rec) && probe < (uint32_t)s->nprobes &&
	    !s->probes[probe].exit_of && s->probes[probe].rp.retprobe)	/* an entry (the process
									 * may write it) */
		emit(s, rec, len, how);
	else
		s->inproc_bad++;
	ring_held_done(r, &rg->shape, slot);
	if (ring_released(r))	/* a writer waiting for room takes it */
		writers_wake(r);
}

void inproc_held_for_exit(struct session *s, struct thread *t, const struct probe *q,
			  uint64_t slot, uint64_t ts)
{
	struct inproc_region *rg = t->as ? t->as->inproc : NULL;

	if (!rg || !calls_may_hold(calls_exit_owner(s, q)))
		return;
	for (uint32_t k = 0; k < rg->nrings; k++) {
		const struct thread *o;
		const void *rec;
		uint64_t word;
		uint32_t id;
		struct agent_rec h;

		if (!ring_held_peek(ring_at(rg, k), &rg->shape, &id, &rec, &word))
			continue;
		memcpy(&h, rec, sizeof(h));	/* read again once taken */
		o = thread__find(s, (pid_t)id);
		if (!o || o->as != t->as || h.ts > ts)	/* a fork child writes its parent's
							 * rings; a later call is not this exit's */
			continue;
		/*
		 * The call of Q's probe at SLOT (a coroutine may have gone to
		 * another thread); or one of T's that this exit passed above, on
		 * the same stack: left (longjmp), its frame dropped as at a stop
		 */
		if ((h.slot == slot && (int)h.probe == q->exit_of - 1) ||
		    (o == t && h.slot < slot &&
		     shadow_same_stack(h.slot, calls_stack_id(t, h.slot), slot,
				       calls_stack_id(t, slot))))
			held_take(s, rg, k, word, CALLS_FOR_EXIT);
	}
}

void inproc_held_of(struct session *s, struct thread *t)
{
	struct inproc_region *rg = t->as ? t->as->inproc : NULL;
	const void *rec;
	uint64_t word;
	uint32_t id, k;

	if (!rg)
		return;
	k = ring_of_tid(rg, t->tid);
	if (ring_held_peek(ring_at(rg, k), &rg->shape, &id, &rec, &word) && id == (uint32_t)t->tid)
		held_take(s, rg, k, word, CALLS_KEPT);
}

/*
 * drain_one() writes RG's records: up to each ring's head as it is now -- what was made
 * before the stop being handled, not what the threads that run go on making
 * meanwhile (a fast writer would keep the loop from the stop for ever) --
 * or, ALL, every one published (the processes are gone: one may have died
 * between publishing and moving the head).  A thread's records are in one
 * ring, in the order it made them; the rings' are merged by time, the
 * earliest first, and, HOLD, up to the time before the heads were read: a
 * record of one thread made after another thread's that it follows (a
 * handoff from thread to thread) is stamped after that one was published,
 * and one published after its ring's head was read waits for the next
 * drain, so the later one waits with it.  Not a record stamped more than
 * HOLD_MAX_NS ahead (a clock set back, or a process's garbage): it never
 * holds its ring up.
 */
#define RELEASED_EVERY	8	/* records */
#define HOLD_MAX_NS	1000000000ull

/* A ring's next record, as a drain holds it. */
struct front {
	const void *rec;
	size_t len;
	uint64_t ts;		/* its hit's (the first record's), or 0 when that is more
				 * than HOLD_MAX_NS after BEFORE: the rings are merged by it */
	bool has;
};

/* Into *F, R's next record to write: one before UPTO, or, ALL, any. */
static void front_peek(struct ring *r, const struct ring_shape *sh, uint64_t upto, bool all,
		       uint64_t before, struct front *f)
{
	f->has = (all || r->tail < upto) && ring_peek(r, sh, &f->rec, &f->len) == 1;
	f->ts = 0;
	if (f->has && f->len >= sizeof(struct agent_rec)) {
		const char *p = f->rec;
		uint32_t next = 0, at = 0;

		/*
		 * The second record's: a call made whole in the process is
		 * published at its exit (the others of a slot share one time)
		 */
		memcpy(&next, p + offsetof(struct agent_rec, next), sizeof(next));
		if (next > at && next % 8 == 0 && next <= f->len - sizeof(struct agent_rec))
			at = next;
		memcpy(&f->ts, p + at + offsetof(struct agent_rec, ts), sizeof(f->ts));
	}
	if (f->ts > before && f->ts - before > HOLD_MAX_NS)
		f->ts = 0;	/* first, and never held */
}

/*
 * RG's rings' caps (RING_SLOTS), by the rings whose heads (HEADS, now at
 * NOW) moved in the last CAP_WINDOW_NS.
 */
static void caps_set(struct inproc_region *rg, const uint64_t *heads, uint64_t now)
{
	uint32_t writing = 0, cap, set = 0;

	for (uint32_t k = 0; k < rg->nrings; k++) {
		if (heads[k] != rg->head_seen[k]) {
			rg->head_seen[k] = heads[k];
			rg->moved_at[k] = now ? now : 1;
		}
		writing += rg->moved_at[k] && now - rg->moved_at[k] < CAP_WINDOW_NS;
	}
	if (writing == rg->writing || !writing)	/* none: the caps wait for the next writes */
		return;
	rg->writing = writing;
	cap = writing > 1 ? RING_SLOTS / writing : UINT32_MAX;
	cap = cap < CAP_MIN ? CAP_MIN : cap;
	for (uint32_t k = 0; k < rg->nrings; k++)
		set = ring_set_cap(ring_at(rg, k), &rg->shape, cap);
	pr_debug("pid %d: %u of its %u rings written lately: its threads take %u of each "
		 "one's %u slots\n", rg->pid, writing, rg->nrings, set, rg->shape.nslots);
}

static size_t drain_one(struct session *s, struct inproc_region *rg, bool all, bool hold)
{
	struct front f[RINGS_MAX];
	uint64_t upto[RINGS_MAX], before = session__now(s);
	size_t n = 0, got[RINGS_MAX] = { 0 };
	bool wake[RINGS_MAX] = { false };


	for (uint32_t k = 0; k < rg->nrings; k++) {
		struct ring *r = ring_at(rg, k);

		ring_rearm(r);	/* read now: a writer that finds it half full rings again */
		upto[k] = ring_head(r, &rg->shape);
		front_peek(r, &rg->shape, upto[k], all, before, &f[k]);
	}
	caps_set(rg, upto, before);
	for (;;) {
		uint32_t b = RINGS_MAX;
		struct ring *r;

		for (uint32_t k = 0; k < rg->nrings; k++)
			if (f[k].has && (b == RINGS_MAX || f[k].ts < f[b].ts))
				b = k;
		if (b == RINGS_MAX || (hold && f[b].ts > before))
			break;
		r = ring_at(rg, b);
		emit_slot(s, f[b].rec, f[b].len);
		ring_release(r, &rg->shape);
		n++;
		/*
		 * A writer waiting for room sees its word move while ptap goes
		 * on, and takes the slots freed without sleeping until the end
		 */
		if (++got[b] % RELEASED_EVERY == 0)
			wake[b] |= ring_released(r);
		front_peek(r, &rg->shape, upto[b], all, before, &f[b]);
	}
	for (uint32_t k = 0; k < rg->nrings; k++) {
		struct ring *r = ring_at(rg, k);

		/* the last records' releases (the loop's look covers a multiple of 8) */
		if ((got[k] % RELEASED_EVERY && ring_released(r)) || wake[k])
			writers_wake(r);
	}
	if (n && s->nghosts)
		ghosts_trim(s, NULL);
	return n;
}

/* Tell RG's writers the reader is gone, and wake those that wait for room. */
static void region_close(struct inproc_region *rg)
{
	for (uint32_t k = 0; k < rg->nrings; k++) {
		ring_close(ring_at(rg, k));
		writers_wake(ring_at(rg, k));
	}
}

static void region_free(struct session *s, size_t i)
{
	struct inproc_region *rg = s->inproc[i];
	uint64_t lost = 0;

	for (uint32_t k = 0; k < rg->nrings; k++)
		lost += ring_at(rg, k)->lost;
	lease_unlink(ring_at(rg, 0));
	if (lost)
		pr_info("pid %d: %lu hits after tracing ended not recorded\n", rg->pid,
			(unsigned long)lost);
	ghosts_trim(s, rg);
	filter_counts(s, rg);
	munmap(rg->local, rg->len);
	close(rg->fd);
	free(rg->progs);
	free(rg->filt);
	free(rg);
	s->inproc[i] = s->inproc[--s->ninproc];
}

static void mark_live(struct session *s, struct thread *t, void *arg)
{
	(void)s;
	(void)arg;
	if (t->as && t->as->inproc)
		t->as->inproc->live = true;
}

/* Regions no process maps: their last records written, and freed. */
static size_t sweep(struct session *s)
{
	size_t n = 0;

	s->inproc_gone = false;
	for (size_t i = 0; i < s->ninproc; i++)
		s->inproc[i]->live = false;
	thread__for_each(s, mark_live, NULL);
	for (size_t i = s->ninproc; i-- > 0;) {
		struct inproc_region *rg = s->inproc[i];

		if (rg->live)
			continue;
		n += drain_one(s, rg, true, false);
		region_close(rg);	/* a process ptap does not trace may map it still */
		region_free(s, i);
	}
	return n;
}

/* HOLD: drain_one()'s */
static size_t drain(struct session *s, bool hold)
{
	size_t n = 0;

	for (size_t i = 0; i < s->ninproc; i++) {
		n += drain_one(s, s->inproc[i], false, hold);
		if (coarse_ns() >= s->inproc[i]->direct_at)
			direct_check(s, s->inproc[i]);
	}
	if (s->inproc_gone)
		n += sweep(s);
	return n;
}

size_t inproc_drain(struct session *s)
{
	return drain(s, true);
}

void inproc_note_gone(struct session *s)
{
	s->inproc_gone = s->ninproc > 0;
}

void inproc_vfork(struct thread *t, bool begin)
{
	struct inproc_region *rg = t->as ? t->as->inproc : NULL;

	if (!rg || (!begin && !rg->vforks))
		return;
	/* the first hides it, the last gone shows it again: two at once, the first's exec
	 * must not show it to the second */
	if (begin ? rg->vforks++ != 0 : --rg->vforks != 0)
		return;
	__atomic_store_n(&proc_of(rg)->tid_off, begin ? 0 : rg->tid_off, __ATOMIC_RELEASE);
	if (rg->tid_off)
		pr_debug("pid %d: %s\n", rg->pid, begin ?
			 "a child runs on its thread pointer (vfork): the agent asks the kernel "
			 "for the tid" : "no child on its thread pointer now: the agent reads "
			 "the tid there again");
}

/*
 * A fork child in a pid namespace of its own: its sites trap again (its
 * trampolines are its own copies), so that its hits carry tids ptap knows.
 */
static void demote(struct thread *c)
{
	struct aspace *as = c->as;
	uint8_t buf[ARCH_SLOT_SIZE];

	for (size_t i = 0; i < as->nsites; i++) {
		struct site *st = &as->sites[i];

		if (!st->agent)
			continue;
		st->agent = st->agent_fn = 0;
		if (arch_jump_tramp_build(&st->jump, st->addr, st->slot, buf, sizeof(buf)) < 0 ||
		    mem_write(as->memfd, st->slot, buf, sizeof(buf)) < 0) {
			pr_warn("pid %d: cannot make the trampoline at 0x%lx trap\n", c->tgid,
				(unsigned long)st->slot);
			continue;
		}
		aspace__set_slot_owner(as, st->slot, st->addr);
	}
	as->inproc = NULL;
	as->inproc_failed = true;
	pr_info("pid %d: in another pid namespace: its probes stop the thread at each hit\n",
		c->tgid);
}

void inproc_fork_fixup(struct thread *c)
{
	struct inproc_region *rg = c->as->inproc;

	if (rg && !maptab__find(c->as->mt, rg->base)) {	/* made after the fork */
		c->as->inproc = NULL;
		c->as->agent_lo = c->as->agent_hi = 0;
	} else if (rg && !same_pidns(c->tgid)) {
		demote(c);
	}
}

void inproc_end(struct session *s)
{
	drain(s, false);	/* the records made so far, all: the end is after them */
	for (size_t i = 0; i < s->ninproc; i++)
		region_close(s->inproc[i]);
}

void inproc_fini(struct session *s)
{
	drain(s, false);
	for (size_t i = 0; i < s->ninproc; i++)
		s->inproc[i]->live = false;
	for (size_t i = s->ninproc; i-- > 0;) {
		struct inproc_region *rg = s->inproc[i];

		drain_one(s, rg, true, false);
		region_close(rg);
		region_free(s, i);
	}
	free(s->inproc);
	s->inproc = NULL;
	s->inproc_cap = 0;
	free(s->ghosts);
	s->ghosts = NULL;
	s->nghosts = s->ghosts_cap = 0;
	bells_end();
	if (s->inproc_joined || s->inproc_held_taken)
		pr_info("%lu calls of return probes recorded whole in the processes (the entry "
			"kept for the exit), %lu taken from them by ptap (an exit elsewhere, a fork, "
			"an exec, a thread ending, a call left)\n",
			(unsigned long)s->inproc_joined, (unsigned long)s->inproc_held_taken);
	if (s->inproc_bad)
		pr_warn("%lu records made in the process were malformed and not written\n",
			(unsigned long)s->inproc_bad);
	if (s->inproc_unknown)
		pr_warn("%lu records made in the process named a thread ptap does not trace and "
			"were not written\n", (unsigned long)s->inproc_unknown);
}
