/* tests/unit/test_sctable.c: arch/sctable.h - the x86-64 system call table
 * (arch/x86_64/sctable.c) checked against the kernel headers (numbers,
 * order, every call present), the decoding of the common calls, strace's
 * classes (arch/common/sclookup.c), symbolic formatting and errno names
 * (arch/common/scvalues.c). */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>

#include "arch/sctable.h"
#include "probes/nearest.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static const struct sc_desc *get(const char *name)
{
	const struct sc_desc *d = sc_by_name(name);

	cr_assert_not_null(d, "no entry for %s", name);
	return d;
}

/* ---- the table against the headers ---------------------------------------- */

Test(sctable, sorted_unique_and_well_formed)
{
	size_t n, i, j;
	const struct sc_desc *t = arch_sc_table(&n);

	cr_assert(ge(sz, n, 360), "%zu entries", n);
	for (i = 0; i < n; i++) {
		const struct sc_desc *d = &t[i];

		cr_assert_not_null(d->name);
		if (i > 0)
			cr_assert(lt(long, t[i - 1].nr, d->nr), "%s (%ld) after %s (%ld)", d->name,
				  d->nr, t[i - 1].name, t[i - 1].nr);
		for (j = 0; j < i; j++)
			cr_assert_str_neq(t[j].name, d->name);
		cr_assert(le(int, d->nargs, 6), "%s", d->name);
		cr_assert(le(int, d->ret, SR_NONE), "%s", d->name);
		cr_assert(eq(uint, d->classes & ~0x1ffu, 0), "%s", d->name);
		for (j = 0; j < 6; j++) {
			if (j >= d->nargs) {
				cr_assert(eq(int, d->args[j], SA_NONE), "%s arg %zu", d->name, j);
				cr_assert_null(d->argnames[j], "%s arg %zu", d->name, j);
				continue;
			}
			cr_assert(ne(int, d->args[j], SA_NONE), "%s arg %zu", d->name, j);
			cr_assert(le(int, d->args[j], SA_FCNTL_CMD), "%s arg %zu", d->name, j);
			/* a bare identifier: no macro got expanded into it */
			cr_assert_not_null(d->argnames[j]);
			for (const char *c = d->argnames[j]; *c; c++) {
				bool ident = islower((unsigned char)*c) || *c == '_' ||
					     (c > d->argnames[j] && isdigit((unsigned char)*c));

				cr_assert(ident, "%s: arg name '%s'", d->name, d->argnames[j]);
			}
			for (size_t k = 0; k < j; k++)
				cr_assert(ne(str, (char *)d->argnames[k], (char *)d->argnames[j]),
					  "%s", d->name);
		}
	}
}

/* The numbers from the macros, spelled here independently of the table. */
Test(sctable, numbers_are_the_headers)
{
	static const struct {
		const char *name;
		long nr;
	} want[] = {
		{ "read", SYS_read }, { "write", SYS_write }, { "open", SYS_open },
		{ "mmap", SYS_mmap }, { "pread64", SYS_pread64 }, { "clone", SYS_clone },
		{ "execve", SYS_execve }, { "exit_group", SYS_exit_group },
		{ "openat", SYS_openat }, { "_sysctl", SYS__sysctl }, { "rseq", SYS_rseq },
		{ "pidfd_send_signal", SYS_pidfd_send_signal }, { "clone3", SYS_clone3 },
		{ "openat2", SYS_openat2 }, { "futex_waitv", SYS_futex_waitv },
		{ "set_mempolicy_home_node", SYS_set_mempolicy_home_node },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(want); i++)
		cr_assert(eq(long, get(want[i].name)->nr, want[i].nr), "%s", want[i].name);
	/* x86-64 facts, for a reader without the headers at hand */
	cr_assert(eq(long, get("read")->nr, 0));
	cr_assert(eq(long, get("pread64")->nr, 17));
	cr_assert(eq(long, get("exit_group")->nr, 231));
	cr_assert(eq(long, get("pidfd_send_signal")->nr, 424));
}

/*
 * Every "#define __NR_name N" of the kernel header is in the table with
 * that number, and the table has nothing else: parsed from the file, so a
 * call missing from the table is found.
 */
Test(sctable, every_call_of_the_kernel_header)
{
	static const char *const paths[] = { "/usr/include/x86_64-linux-gnu/asm/unistd_64.h",
					     "/usr/include/asm/unistd_64.h" };
	FILE *f = NULL;
	char line[256], name[128];
	size_t i, n, seen = 0;
	long nr;

	for (i = 0; i < ARRAY_SIZE(paths) && !f; i++)
		f = fopen(paths[i], "r");
	/* the table was built from this header (linux-libc-dev): it must be there */
	cr_assert_not_null(f, "no asm/unistd_64.h in %s or %s", paths[0], paths[1]);
	arch_sc_table(&n);
	while (fgets(line, sizeof(line), f)) {
		const struct sc_desc *d;

		if (sscanf(line, "#define __NR_%127s %ld", name, &nr) != 2)
			continue;
		d = sc_by_name(name);
		cr_assert_not_null(d, "%s (%ld) is not in the table", name, nr);
		cr_assert(eq(str, (char *)d->name, name), "%s came as an alias", name);
		cr_assert(eq(long, d->nr, nr), "%s: %ld, the header says %ld", name, d->nr, nr);
		cr_assert(eq(ptr, (void *)sc_by_nr(nr), (void *)d), "%s", name);
		seen++;
	}
	fclose(f);
	cr_assert(eq(sz, seen, n), "the header has %zu calls, the table %zu", seen, n);
}

Test(sctable, by_name_and_by_nr_round_trip)
{
	size_t n, i;
	const struct sc_desc *t = arch_sc_table(&n);

	for (i = 0; i < n; i++) {
		cr_assert(eq(ptr, (void *)sc_by_nr(t[i].nr), (void *)&t[i]), "%s", t[i].name);
		cr_assert(eq(ptr, (void *)sc_by_name(t[i].name), (void *)&t[i]),
			  "%s", t[i].name);
	}
	cr_assert_null(sc_by_nr(-1));
	cr_assert_null(sc_by_nr(335));	/* the gap before 424 */
	cr_assert_null(sc_by_nr(423));
	cr_assert_null(sc_by_nr(100000));
	cr_assert_null(sc_by_name("nosuchcall"));
	cr_assert_null(sc_by_name(""));
	cr_assert_null(sc_by_name("PREAD64"));
}

Test(sctable, aliases)
{
	static const struct {
		const char *alias, *name;
	} rows[] = {
		{ "pread", "pread64" }, { "pwrite", "pwrite64" }, { "fstatat", "newfstatat" },
		{ "posix_fadvise", "fadvise64" }, { "prlimit", "prlimit64" },
		{ "umount", "umount2" },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(rows); i++) {
		const struct sc_desc *d = sc_by_name(rows[i].alias);

		cr_assert_not_null(d, "%s", rows[i].alias);
		cr_assert_str_eq(d->name, rows[i].name);
	}
	/* names of other ABIs are not aliases of this one's */
	cr_assert_null(sc_by_name("mmap2"));
	cr_assert_null(sc_by_name("stat64"));
}

/* ---- decoding of the common calls ------------------------------------------ */

#define A(...)	{ __VA_ARGS__ }
#define FI	SC_FILE
#define DE	SC_DESC

static const struct {
	const char *name;
	unsigned int classes;
	uint8_t ret;
	uint8_t nargs;
	uint8_t args[6];
	const char *names[6];
} common[] = {
	{ "read", DE, SR_INT, 3, A(SA_FD, SA_HEX, SA_SIZE), A("fd", "buf", "count") },
	{ "write", DE, SR_INT, 3, A(SA_FD, SA_HEX, SA_SIZE), A("fd", "buf", "count") },
	{ "pread64", DE, SR_INT, 4, A(SA_FD, SA_HEX, SA_SIZE, SA_OFF),
	  A("fd", "buf", "count", "offset") },
	{ "pwrite64", DE, SR_INT, 4, A(SA_FD, SA_HEX, SA_SIZE, SA_OFF),
	  A("fd", "buf", "count", "offset") },
	{ "readv", DE, SR_INT, 3, A(SA_FD, SA_HEX, SA_INT), A("fd", "iov", "iovcnt") },
	{ "writev", DE, SR_INT, 3, A(SA_FD, SA_HEX, SA_INT), A("fd", "iov", "iovcnt") },
	{ "preadv", DE, SR_INT, 4, A(SA_FD, SA_HEX, SA_INT, SA_OFF),
	  A("fd", "iov", "iovcnt", "offset") },
	{ "pwritev", DE, SR_INT, 4, A(SA_FD, SA_HEX, SA_INT, SA_OFF),
	  A("fd", "iov", "iovcnt", "offset") },
	/* flags in the 6th register, after the unused high half of the offset */
	{ "preadv2", DE, SR_INT, 6, A(SA_FD, SA_HEX, SA_INT, SA_OFF, SA_HEX, SA_HEX),
	  A("fd", "iov", "iovcnt", "offset", "pos_h", "flags") },
	{ "pwritev2", DE, SR_INT, 6, A(SA_FD, SA_HEX, SA_INT, SA_OFF, SA_HEX, SA_HEX),
	  A("fd", "iov", "iovcnt", "offset", "pos_h", "flags") },
	{ "open", FI | DE, SR_FD, 3, A(SA_PATH, SA_OPEN_FLAGS, SA_MODE),
	  A("pathname", "flags", "mode") },
	{ "openat", FI | DE, SR_FD, 4, A(SA_DIRFD, SA_PATH, SA_OPEN_FLAGS, SA_MODE),
	  A("dirfd", "pathname", "flags", "mode") },
	{ "openat2", FI | DE, SR_FD, 4, A(SA_DIRFD, SA_PATH, SA_HEX, SA_SIZE),
	  A("dirfd", "pathname", "how", "size") },
	{ "close", DE, SR_INT, 1, A(SA_FD), A("fd") },
	{ "close_range", DE, SR_INT, 3, A(SA_UINT, SA_UINT, SA_HEX), A("first", "last", "flags") },
	{ "lseek", DE, SR_INT, 3, A(SA_FD, SA_OFF, SA_WHENCE), A("fd", "offset", "whence") },
	{ "fsync", DE, SR_INT, 1, A(SA_FD), A("fd") },
	{ "fdatasync", DE, SR_INT, 1, A(SA_FD), A("fd") },
	{ "sync_file_range", DE, SR_INT, 4, A(SA_FD, SA_OFF, SA_OFF, SA_HEX),
	  A("fd", "offset", "nbytes", "flags") },
	{ "ftruncate", DE, SR_INT, 2, A(SA_FD, SA_OFF), A("fd", "length") },
	{ "fallocate", DE, SR_INT, 4, A(SA_FD, SA_HEX, SA_OFF, SA_OFF),
	  A("fd", "mode", "offset", "len") },
	{ "sendfile", DE | SC_NET, SR_INT, 4, A(SA_FD, SA_FD, SA_HEX, SA_SIZE),
	  A("out_fd", "in_fd", "offset", "count") },
	{ "copy_file_range", DE, SR_INT, 6, A(SA_FD, SA_HEX, SA_FD, SA_HEX, SA_SIZE, SA_HEX),
	  A("fd_in", "off_in", "fd_out", "off_out", "len", "flags") },
	{ "splice", DE, SR_INT, 6, A(SA_FD, SA_HEX, SA_FD, SA_HEX, SA_SIZE, SA_HEX),
	  A("fd_in", "off_in", "fd_out", "off_out", "len", "flags") },
	{ "dup", DE, SR_FD, 1, A(SA_FD), A("oldfd") },
	{ "dup2", DE, SR_FD, 2, A(SA_FD, SA_FD), A("oldfd", "newfd") },
	{ "dup3", DE, SR_FD, 3, A(SA_FD, SA_FD, SA_HEX), A("oldfd", "newfd", "flags") },
	{ "fcntl", DE, SR_INT, 3, A(SA_FD, SA_FCNTL_CMD, SA_HEX), A("fd", "cmd", "arg") },
	{ "ioctl", DE, SR_INT, 3, A(SA_FD, SA_HEX, SA_HEX), A("fd", "request", "arg") },
	{ "stat", FI, SR_INT, 2, A(SA_PATH, SA_HEX), A("pathname", "statbuf") },
	{ "lstat", FI, SR_INT, 2, A(SA_PATH, SA_HEX), A("pathname", "statbuf") },
	{ "fstat", DE, SR_INT, 2, A(SA_FD, SA_HEX), A("fd", "statbuf") },
	{ "newfstatat", FI | DE, SR_INT, 4, A(SA_DIRFD, SA_PATH, SA_HEX, SA_AT_FLAGS),
	  A("dirfd", "pathname", "statbuf", "flags") },
	{ "statx", FI | DE, SR_INT, 5, A(SA_DIRFD, SA_PATH, SA_AT_FLAGS, SA_HEX, SA_HEX),
	  A("dirfd", "pathname", "flags", "mask", "statxbuf") },
	{ "access", FI, SR_INT, 2, A(SA_PATH, SA_INT), A("pathname", "mode") },
	{ "faccessat", FI | DE, SR_INT, 3, A(SA_DIRFD, SA_PATH, SA_INT),
	  A("dirfd", "pathname", "mode") },
	{ "faccessat2", FI | DE, SR_INT, 4, A(SA_DIRFD, SA_PATH, SA_INT, SA_HEX),
	  A("dirfd", "pathname", "mode", "flags") },
	{ "unlink", FI, SR_INT, 1, A(SA_PATH), A("pathname") },
	{ "unlinkat", FI | DE, SR_INT, 3, A(SA_DIRFD, SA_PATH, SA_AT_FLAGS),
	  A("dirfd", "pathname", "flags") },
	{ "rename", FI, SR_INT, 2, A(SA_PATH, SA_PATH), A("oldpath", "newpath") },
	{ "renameat", FI | DE, SR_INT, 4, A(SA_DIRFD, SA_PATH, SA_DIRFD, SA_PATH),
	  A("olddirfd", "oldpath", "newdirfd", "newpath") },
	{ "renameat2", FI | DE, SR_INT, 5, A(SA_DIRFD, SA_PATH, SA_DIRFD, SA_PATH, SA_HEX),
	  A("olddirfd", "oldpath", "newdirfd", "newpath", "flags") },
	{ "mkdir", FI, SR_INT, 2, A(SA_PATH, SA_MODE), A("pathname", "mode") },
	{ "mkdirat", FI | DE, SR_INT, 3, A(SA_DIRFD, SA_PATH, SA_MODE),
	  A("dirfd", "pathname", "mode") },
	{ "rmdir", FI, SR_INT, 1, A(SA_PATH), A("pathname") },
	{ "getdents64", DE, SR_INT, 3, A(SA_FD, SA_HEX, SA_UINT), A("fd", "dirp", "count") },
	{ "socket", SC_NET, SR_FD, 3, A(SA_SOCK_DOMAIN, SA_SOCK_TYPE, SA_INT),
	  A("domain", "type", "protocol") },
	{ "connect", SC_NET, SR_INT, 3, A(SA_FD, SA_HEX, SA_UINT), A("sockfd", "addr", "addrlen") },
	{ "accept", SC_NET, SR_FD, 3, A(SA_FD, SA_HEX, SA_HEX), A("sockfd", "addr", "addrlen") },
	{ "accept4", SC_NET, SR_FD, 4, A(SA_FD, SA_HEX, SA_HEX, SA_HEX),
	  A("sockfd", "addr", "addrlen", "flags") },
	{ "bind", SC_NET, SR_INT, 3, A(SA_FD, SA_HEX, SA_UINT), A("sockfd", "addr", "addrlen") },
	{ "listen", SC_NET, SR_INT, 2, A(SA_FD, SA_INT), A("sockfd", "backlog") },
	{ "sendto", SC_NET, SR_INT, 6, A(SA_FD, SA_HEX, SA_SIZE, SA_HEX, SA_HEX, SA_UINT),
	  A("sockfd", "buf", "len", "flags", "dest_addr", "addrlen") },
	{ "recvfrom", SC_NET, SR_INT, 6, A(SA_FD, SA_HEX, SA_SIZE, SA_HEX, SA_HEX, SA_HEX),
	  A("sockfd", "buf", "len", "flags", "src_addr", "addrlen") },
	{ "sendmsg", SC_NET, SR_INT, 3, A(SA_FD, SA_HEX, SA_HEX), A("sockfd", "msg", "flags") },
	{ "recvmsg", SC_NET, SR_INT, 3, A(SA_FD, SA_HEX, SA_HEX), A("sockfd", "msg", "flags") },
	{ "shutdown", SC_NET, SR_INT, 2, A(SA_FD, SA_INT), A("sockfd", "how") },
	{ "socketpair", SC_NET, SR_INT, 4, A(SA_SOCK_DOMAIN, SA_SOCK_TYPE, SA_INT, SA_HEX),
	  A("domain", "type", "protocol", "sv") },
	{ "mmap", SC_MEMORY | DE, SR_HEX, 6,
	  A(SA_HEX, SA_SIZE, SA_PROT, SA_MAP_FLAGS, SA_FD, SA_OFF),
	  A("addr", "length", "prot", "flags", "fd", "offset") },
	{ "munmap", SC_MEMORY, SR_INT, 2, A(SA_HEX, SA_SIZE), A("addr", "length") },
	{ "mprotect", SC_MEMORY, SR_INT, 3, A(SA_HEX, SA_SIZE, SA_PROT), A("addr", "len", "prot") },
	{ "mremap", SC_MEMORY, SR_HEX, 5, A(SA_HEX, SA_SIZE, SA_SIZE, SA_HEX, SA_HEX),
	  A("old_address", "old_size", "new_size", "flags", "new_address") },
	{ "brk", SC_MEMORY, SR_HEX, 1, A(SA_HEX), A("addr") },
	{ "madvise", SC_MEMORY, SR_INT, 3, A(SA_HEX, SA_SIZE, SA_INT),
	  A("addr", "length", "advice") },
	{ "msync", SC_MEMORY, SR_INT, 3, A(SA_HEX, SA_SIZE, SA_HEX), A("addr", "length", "flags") },
	{ "clone", SC_PROCESS, SR_INT, 5, A(SA_CLONE_FLAGS, SA_HEX, SA_HEX, SA_HEX, SA_HEX),
	  A("flags", "stack", "parent_tid", "child_tid", "tls") },
	{ "clone3", SC_PROCESS, SR_INT, 2, A(SA_HEX, SA_SIZE), A("cl_args", "size") },
	{ "fork", SC_PROCESS, SR_INT, 0, A(0), A(NULL) },
	{ "vfork", SC_PROCESS, SR_INT, 0, A(0), A(NULL) },
	{ "execve", FI | SC_PROCESS, SR_NONE, 3, A(SA_PATH, SA_HEX, SA_HEX),
	  A("pathname", "argv", "envp") },
	{ "execveat", FI | DE | SC_PROCESS, SR_NONE, 5,
	  A(SA_DIRFD, SA_PATH, SA_HEX, SA_HEX, SA_AT_FLAGS),
	  A("dirfd", "pathname", "argv", "envp", "flags") },
	{ "exit", SC_PROCESS, SR_NONE, 1, A(SA_INT), A("status") },
	{ "exit_group", SC_PROCESS, SR_NONE, 1, A(SA_INT), A("status") },
	{ "wait4", SC_PROCESS, SR_INT, 4, A(SA_INT, SA_HEX, SA_HEX, SA_HEX),
	  A("pid", "wstatus", "options", "rusage") },
	{ "kill", SC_PROCESS | SC_SIGNAL, SR_INT, 2, A(SA_INT, SA_SIGNAL), A("pid", "sig") },
	{ "tgkill", SC_PROCESS | SC_SIGNAL, SR_INT, 3, A(SA_INT, SA_INT, SA_SIGNAL),
	  A("tgid", "tid", "sig") },
	{ "getpid", 0, SR_INT, 0, A(0), A(NULL) },
	{ "nanosleep", 0, SR_INT, 2, A(SA_HEX, SA_HEX), A("req", "rem") },
	{ "clock_gettime", SC_CLOCK, SR_INT, 2, A(SA_INT, SA_HEX), A("clockid", "tp") },
	{ "epoll_wait", DE, SR_INT, 4, A(SA_FD, SA_HEX, SA_INT, SA_INT),
	  A("epfd", "events", "maxevents", "timeout") },
	{ "poll", DE, SR_INT, 3, A(SA_HEX, SA_UINT, SA_INT), A("fds", "nfds", "timeout") },
	{ "select", DE, SR_INT, 5, A(SA_INT, SA_HEX, SA_HEX, SA_HEX, SA_HEX),
	  A("nfds", "readfds", "writefds", "exceptfds", "timeout") },
	{ "pipe", DE, SR_INT, 1, A(SA_HEX), A("pipefd") },
	{ "pipe2", DE, SR_INT, 2, A(SA_HEX, SA_HEX), A("pipefd", "flags") },
};

Test(sctable, common_calls_decode)
{
	size_t i, j;

	for (i = 0; i < ARRAY_SIZE(common); i++) {
		const struct sc_desc *d = get(common[i].name);

		cr_assert(eq(uint, d->classes, common[i].classes),
			  "%s: classes %#x", d->name, d->classes);
		cr_assert(eq(int, d->ret, common[i].ret), "%s: ret %d", d->name, d->ret);
		cr_assert(eq(int, d->nargs, common[i].nargs), "%s: nargs %d", d->name, d->nargs);
		for (j = 0; j < d->nargs; j++) {
			cr_assert(eq(int, d->args[j], common[i].args[j]), "%s arg %zu: %d", d->name,
				  j, d->args[j]);
			cr_assert(eq(str, (char *)d->argnames[j], (char *)common[i].names[j]),
				  "%s arg %zu", d->name, j);
		}
	}
}

Test(sctable, the_examples_of_the_brief)
{
	const struct sc_desc *d = get("pread64");

	cr_assert(eq(uint, d->classes, SC_DESC));
	cr_assert(eq(int, d->nargs, 4));
	cr_assert(eq(mem, ((struct cr_mem){ d->args, 6 }),
		     ((struct cr_mem){ (uint8_t[]){ SA_FD, SA_HEX, SA_SIZE, SA_OFF, 0, 0 }, 6 })));
	d = get("openat");
	cr_assert(eq(uint, d->classes, SC_FILE | SC_DESC));
	cr_assert(eq(int, d->ret, SR_FD));
	d = get("mmap");
	cr_assert(eq(uint, d->classes, SC_MEMORY | SC_DESC));
	cr_assert(eq(int, d->ret, SR_HEX));
	cr_assert(eq(int, get("exit_group")->ret, SR_NONE));
}

/* ---- classes ------------------------------------------------------------- */

static size_t class_count(unsigned int bits)
{
	size_t n, i, c = 0;
	const struct sc_desc *t = arch_sc_table(&n);

	for (i = 0; i < n; i++)
		c += (t[i].classes & bits) != 0;
	return c;
}

/* open's mode is an argument only with O_CREAT or O_TMPFILE (strace shows it then). */
Test(sctable, open_mode_only_when_used)
{
	static const struct {
		const char *name;
		uint64_t flags;
		unsigned int nargs;
	} rows[] = {
		{ "openat", O_RDONLY, 3 },
		{ "openat", O_RDONLY | O_CLOEXEC, 3 },
		{ "openat", O_WRONLY | O_CREAT | O_TRUNC, 4 },
		{ "openat", O_RDWR | O_TMPFILE, 4 },
		{ "openat", O_RDONLY | O_DIRECTORY, 3 },	/* a bit of O_TMPFILE's, not all */
		{ "open", O_RDONLY, 2 },
		{ "open", O_RDWR | O_CREAT | O_EXCL, 3 },
		{ "open", O_WRONLY | O_TMPFILE, 3 },
	};

	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		const struct sc_desc *d = get(rows[i].name);
		uint64_t args[6] = { 0x100, 0x200, 0x300, 0777, 0, 0 };
		unsigned int n;

		args[d->nr == SYS_openat ? 2 : 1] = rows[i].flags;
		n = sc_nargs(d, args);
		cr_expect(eq(uint, n, rows[i].nargs), "%s flags %#llx", rows[i].name,
			  (unsigned long long)rows[i].flags);
	}
	/* others keep every argument, mq_open's mode and attr too */
	cr_expect(eq(uint, sc_nargs(get("mq_open"), (uint64_t[6]){ 0x100, O_RDONLY }), 4));
	cr_expect(eq(uint, sc_nargs(get("mkdirat"), (uint64_t[6]){ 0 }), 3));
	cr_expect(eq(uint, sc_nargs(get("pread64"), (uint64_t[6]){ 0 }), 4));
}

Test(sctable, class_names)
{
	cr_assert(eq(uint, sc_class("%file"), SC_FILE));
	cr_assert(eq(uint, sc_class("%desc"), SC_DESC));
	cr_assert(eq(uint, sc_class("%net"), SC_NET));
	cr_assert(eq(uint, sc_class("%network"), SC_NET));
	cr_assert(eq(uint, sc_class("%memory"), SC_MEMORY));
	cr_assert(eq(uint, sc_class("%process"), SC_PROCESS));
	cr_assert(eq(uint, sc_class("%signal"), SC_SIGNAL));
	cr_assert(eq(uint, sc_class("%ipc"), SC_IPC));
	cr_assert(eq(uint, sc_class("%creds"), SC_CREDS));
	cr_assert(eq(uint, sc_class("%clock"), SC_CLOCK));
	cr_assert(eq(uint, sc_class("file"), 0));
	cr_assert(eq(uint, sc_class("%files"), 0));
	cr_assert(eq(uint, sc_class("%"), 0));
	cr_assert(eq(uint, sc_class(""), 0));
	cr_assert(eq(uint, sc_class("%FILE"), 0));
}

Test(sctable, class_members)
{
	static const struct {
		const char *cls;
		const char *in[8];
		const char *out[4];
		size_t lo, hi;		/* plausible sizes (strace 6.1 has the lower ones) */
	} rows[] = {
		{ "%file", { "open", "openat", "stat", "execve", "unlink", "chdir", "statx" },
		  { "read", "fstat", "close" }, 60, 90 },
		{ "%desc", { "read", "write", "close", "mmap", "openat", "fstat", "dup2" },
		  { "stat", "socket", "getpid" }, 110, 150 },
		{ "%net", { "socket", "connect", "sendto", "recvmsg", "accept4", "sendfile" },
		  { "read", "pipe" }, 18, 30 },
		{ "%memory", { "mmap", "munmap", "brk", "mprotect", "mremap", "shmat" },
		  { "read", "clone" }, 20, 35 },
		{ "%process", { "clone", "clone3", "fork", "execve", "exit_group", "wait4",
				"kill" },
		  { "getpid", "gettid", "setsid" }, 14, 22 },
		{ "%signal", { "kill", "rt_sigaction", "rt_sigprocmask", "signalfd4", "pause" },
		  { "read", "clone" }, 14, 24 },
		{ "%ipc", { "shmget", "semop", "msgsnd", "semtimedop" }, { "mq_open", "pipe" }, 10,
		  14 },
		{ "%creds", { "getuid", "setuid", "setresgid", "capget", "prctl" }, { "getpid" },
		  16, 24 },
		{ "%clock", { "clock_gettime", "gettimeofday", "time", "adjtimex" },
		  { "nanosleep", "clock_nanosleep" }, 7, 10 },
	};
	size_t i, j;

	for (i = 0; i < ARRAY_SIZE(rows); i++) {
		unsigned int bits = sc_class(rows[i].cls);
		size_t c = class_count(bits);

		for (j = 0; j < ARRAY_SIZE(rows[i].in) && rows[i].in[j]; j++)
			cr_assert(ne(uint, get(rows[i].in[j])->classes & bits, 0), "%s not in %s",
				  rows[i].in[j], rows[i].cls);
		for (j = 0; j < ARRAY_SIZE(rows[i].out) && rows[i].out[j]; j++)
			cr_assert_not(get(rows[i].out[j])->classes & bits, "%s in %s",
				      rows[i].out[j], rows[i].cls);
		cr_assert(ge(sz, c, rows[i].lo), "%s", rows[i].cls);
		cr_assert(le(sz, c, rows[i].hi), "%s", rows[i].cls);
	}
}

/* ---- sc_format --------------------------------------------------------------- */

static const struct {
	unsigned int kind;
	uint64_t v;
	const char *want;	/* NULL: not symbolic, returns 0 */
} fmt_rows[] = {
	{ SA_OPEN_FLAGS, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
	  "O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC" },
	{ SA_OPEN_FLAGS, 01 | 0100 | 01000 | 02000000, "O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC" },
	{ SA_OPEN_FLAGS, 0, "O_RDONLY" },
	{ SA_OPEN_FLAGS, O_RDWR, "O_RDWR" },
	{ SA_OPEN_FLAGS, 3, "O_ACCMODE" },
	{ SA_OPEN_FLAGS, O_RDONLY | O_NONBLOCK | O_DIRECTORY | O_CLOEXEC,
	  "O_RDONLY|O_NONBLOCK|O_DIRECTORY|O_CLOEXEC" },
	{ SA_OPEN_FLAGS, O_WRONLY | O_CREAT | O_EXCL | O_NOCTTY | O_APPEND,
	  "O_WRONLY|O_CREAT|O_EXCL|O_NOCTTY|O_APPEND" },
	/* O_SYNC is two bits, one of them O_DSYNC: the full one is named once */
	{ SA_OPEN_FLAGS, O_RDWR | O_SYNC, "O_RDWR|O_SYNC" },
	{ SA_OPEN_FLAGS, O_RDWR | O_DSYNC, "O_RDWR|O_DSYNC" },
	{ SA_OPEN_FLAGS, 04000000, "O_RDONLY|0x100000" },	/* __O_SYNC alone */
	/* O_TMPFILE includes O_DIRECTORY */
	{ SA_OPEN_FLAGS, O_RDWR | O_TMPFILE, "O_RDWR|O_TMPFILE" },
	{ SA_OPEN_FLAGS, O_WRONLY | O_TMPFILE | O_EXCL, "O_WRONLY|O_EXCL|O_TMPFILE" },
	{ SA_OPEN_FLAGS, O_PATH | O_NOFOLLOW, "O_RDONLY|O_NOFOLLOW|O_PATH" },
	{ SA_OPEN_FLAGS, 0100000 | O_NOATIME | O_DIRECT,
	  "O_RDONLY|O_DIRECT|O_LARGEFILE|O_NOATIME" },
	{ SA_OPEN_FLAGS, O_RDONLY | 0x40000000, "O_RDONLY|0x40000000" },
	/* open's flags are an int: the upper half of the register is not looked at */
	{ SA_OPEN_FLAGS, 0xdead000000000001ULL, "O_WRONLY" },
	{ SA_MODE, 0644, "0644" },
	{ SA_MODE, 0755, "0755" },
	{ SA_MODE, 0, "000" },
	{ SA_MODE, 04755, "04755" },
	{ SA_MODE, 0100644, "0100644" },
	{ SA_PROT, PROT_READ | PROT_WRITE, "PROT_READ|PROT_WRITE" },
	{ SA_PROT, PROT_NONE, "PROT_NONE" },
	{ SA_PROT, PROT_READ | PROT_EXEC, "PROT_READ|PROT_EXEC" },
	{ SA_PROT, PROT_READ | PROT_WRITE | PROT_GROWSDOWN, "PROT_READ|PROT_WRITE|PROT_GROWSDOWN" },
	{ SA_PROT, PROT_READ | 0x10, "PROT_READ|0x10" },
	{ SA_PROT, 0x10, "0x10" },
	{ SA_MAP_FLAGS, MAP_PRIVATE | MAP_ANONYMOUS, "MAP_PRIVATE|MAP_ANONYMOUS" },
	{ SA_MAP_FLAGS, 0x22, "MAP_PRIVATE|MAP_ANONYMOUS" },
	{ SA_MAP_FLAGS, MAP_SHARED | MAP_FIXED, "MAP_SHARED|MAP_FIXED" },
	{ SA_MAP_FLAGS, MAP_SHARED_VALIDATE | MAP_SYNC, "MAP_SHARED_VALIDATE|MAP_SYNC" },
	{ SA_MAP_FLAGS, MAP_PRIVATE | MAP_FIXED | MAP_DENYWRITE,
	  "MAP_PRIVATE|MAP_FIXED|MAP_DENYWRITE" },
	{ SA_MAP_FLAGS, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK,
	  "MAP_PRIVATE|MAP_ANONYMOUS|MAP_NORESERVE|MAP_STACK" },
	{ SA_MAP_FLAGS, MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | (21ULL << 26),
	  "MAP_PRIVATE|MAP_ANONYMOUS|MAP_HUGETLB|21<<MAP_HUGE_SHIFT" },
	{ SA_MAP_FLAGS, MAP_PRIVATE | MAP_ANONYMOUS | 0x4000000,
	  "MAP_PRIVATE|MAP_ANONYMOUS|MAP_UNINITIALIZED" },
	{ SA_MAP_FLAGS, MAP_PRIVATE | 0x80000000ULL, "MAP_PRIVATE|0x80000000" },
	{ SA_MAP_FLAGS, 0x7, "0x7" },
	{ SA_MAP_FLAGS, 0, "0" },
	{ SA_AT_FLAGS, 0, "0" },
	{ SA_AT_FLAGS, AT_SYMLINK_NOFOLLOW, "AT_SYMLINK_NOFOLLOW" },
	{ SA_AT_FLAGS, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW, "AT_SYMLINK_NOFOLLOW|AT_EMPTY_PATH" },
	{ SA_AT_FLAGS, AT_REMOVEDIR, "AT_REMOVEDIR" },
	{ SA_AT_FLAGS, AT_STATX_DONT_SYNC | 1, "AT_STATX_DONT_SYNC|0x1" },
	{ SA_DIRFD, (uint64_t)(int64_t)AT_FDCWD, "AT_FDCWD" },
	{ SA_DIRFD, 0xffffff9cULL, "AT_FDCWD" },	/* -100 as an int, upper half zero */
	{ SA_DIRFD, 3, NULL },
	{ SA_DIRFD, 0, NULL },
	{ SA_SIGNAL, SIGKILL, "SIGKILL" },
	{ SA_SIGNAL, SIGTERM, "SIGTERM" },
	{ SA_SIGNAL, SIGCHLD, "SIGCHLD" },
	{ SA_SIGNAL, SIGHUP, "SIGHUP" },
	{ SA_SIGNAL, SIGSYS, "SIGSYS" },
	{ SA_SIGNAL, 32, "SIGRTMIN" },
	{ SA_SIGNAL, 34, "SIGRTMIN+2" },
	{ SA_SIGNAL, 64, "SIGRTMIN+32" },
	{ SA_SIGNAL, 0, NULL },
	{ SA_SIGNAL, 65, NULL },
	{ SA_SIGNAL, (uint64_t)-1, NULL },
	{ SA_WHENCE, SEEK_SET, "SEEK_SET" },
	{ SA_WHENCE, SEEK_END, "SEEK_END" },
	{ SA_WHENCE, SEEK_HOLE, "SEEK_HOLE" },
	{ SA_WHENCE, 5, NULL },
	/* glibc's pthread_create and fork */
	{ SA_CLONE_FLAGS, 0x3d0f00,
	  "CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM|CLONE_SETTLS|"
	  "CLONE_PARENT_SETTID|CLONE_CHILD_CLEARTID" },
	{ SA_CLONE_FLAGS, CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID | SIGCHLD,
	  "CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD" },
	{ SA_CLONE_FLAGS, CLONE_VM | CLONE_VFORK | SIGCHLD, "CLONE_VM|CLONE_VFORK|SIGCHLD" },
	{ SA_CLONE_FLAGS, SIGCHLD, "SIGCHLD" },
	{ SA_CLONE_FLAGS, CLONE_NEWUSER | CLONE_NEWNS, "CLONE_NEWNS|CLONE_NEWUSER" },
	{ SA_CLONE_FLAGS, 0x80, "0x80" },
	{ SA_CLONE_FLAGS, 0x100000000ULL | CLONE_VM, "CLONE_VM|0x100000000" },
	{ SA_CLONE_FLAGS, 0, "0" },
	{ SA_SOCK_DOMAIN, AF_INET, "AF_INET" },
	{ SA_SOCK_DOMAIN, AF_INET6, "AF_INET6" },
	{ SA_SOCK_DOMAIN, AF_UNIX, "AF_UNIX" },
	{ SA_SOCK_DOMAIN, AF_NETLINK, "AF_NETLINK" },
	{ SA_SOCK_DOMAIN, AF_UNSPEC, "AF_UNSPEC" },
	{ SA_SOCK_DOMAIN, 200, NULL },
	{ SA_SOCK_TYPE, SOCK_STREAM, "SOCK_STREAM" },
	{ SA_SOCK_TYPE, SOCK_DGRAM | SOCK_CLOEXEC, "SOCK_DGRAM|SOCK_CLOEXEC" },
	{ SA_SOCK_TYPE, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
	  "SOCK_STREAM|SOCK_NONBLOCK|SOCK_CLOEXEC" },
	{ SA_SOCK_TYPE, 12, "0xc" },
	{ SA_SOCK_TYPE, 0, "0" },
	{ SA_FCNTL_CMD, F_GETFL, "F_GETFL" },
	{ SA_FCNTL_CMD, F_SETFL, "F_SETFL" },
	{ SA_FCNTL_CMD, F_DUPFD, "F_DUPFD" },
	{ SA_FCNTL_CMD, F_DUPFD_CLOEXEC, "F_DUPFD_CLOEXEC" },
	{ SA_FCNTL_CMD, F_SETLKW, "F_SETLKW" },
	{ SA_FCNTL_CMD, F_OFD_SETLK, "F_OFD_SETLK" },
	{ SA_FCNTL_CMD, F_ADD_SEALS, "F_ADD_SEALS" },
	{ SA_FCNTL_CMD, 999, NULL },
	{ SA_INT, 5, NULL },
	{ SA_HEX, 5, NULL },
	{ SA_FD, 3, NULL },
	{ SA_PATH, 0x1000, NULL },
	{ SA_NONE, 0, NULL },
	{ 200, 0, NULL },
};

Test(sctable, format_values)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(fmt_rows); i++) {
		char buf[256];
		size_t n;

		memset(buf, 'x', sizeof(buf));
		n = sc_format(fmt_rows[i].kind, fmt_rows[i].v, buf, sizeof(buf));
		if (!fmt_rows[i].want) {
			cr_assert(eq(sz, n, 0), "row %zu (kind %u, %#llx): '%.*s'", i,
				  fmt_rows[i].kind, (unsigned long long)fmt_rows[i].v, (int)n, buf);
			continue;
		}
		cr_assert(eq(str, buf, (char *)fmt_rows[i].want), "row %zu (kind %u, %#llx)", i,
			  fmt_rows[i].kind, (unsigned long long)fmt_rows[i].v);
		cr_assert(eq(sz, n, strlen(fmt_rows[i].want)), "row %zu", i);
	}
}

/* Too small a buffer: 0 (and an empty string), never a cut name. */
Test(sctable, format_buffer_too_small)
{
	static const struct {
		unsigned int kind;
		uint64_t v;
		const char *want;
	} rows[] = {
		{ SA_OPEN_FLAGS, 0, "O_RDONLY" },
		{ SA_OPEN_FLAGS, O_WRONLY | O_CREAT | O_TRUNC, "O_WRONLY|O_CREAT|O_TRUNC" },
		{ SA_OPEN_FLAGS, 0x40000000, "O_RDONLY|0x40000000" },
		{ SA_MODE, 0644, "0644" },
		{ SA_DIRFD, (uint64_t)(int64_t)AT_FDCWD, "AT_FDCWD" },
		{ SA_SIGNAL, 35, "SIGRTMIN+3" },
		{ SA_MAP_FLAGS, MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | (30ULL << 26),
		  "MAP_PRIVATE|MAP_ANONYMOUS|MAP_HUGETLB|30<<MAP_HUGE_SHIFT" },
		{ SA_AT_FLAGS, 0, "0" },
	};
	size_t i, len;

	for (i = 0; i < ARRAY_SIZE(rows); i++) {
		size_t want = strlen(rows[i].want);

		for (len = 0; len <= want + 1; len++) {
			char buf[128];
			size_t n;

			memset(buf, 'x', sizeof(buf));
			n = sc_format(rows[i].kind, rows[i].v, buf, len);
			if (len <= want) {
				cr_assert(eq(sz, n, 0),
					  "%s in %zu bytes: %zu", rows[i].want, len, n);
				if (len)
					cr_assert(eq(int, buf[0], '\0'),
						  "%s in %zu", rows[i].want, len);
				else
					cr_assert(eq(int, buf[0], 'x'));
			} else {
				cr_assert(eq(sz, n, want), "%s in %zu bytes", rows[i].want, len);
				cr_assert_str_eq(buf, rows[i].want);
			}
		}
	}
}

/* ---- errno names ------------------------------------------------------------- */

Test(sctable, errno_names)
{
	static const struct {
		int e;
		const char *want;
	} rows[] = {
		{ 1, "EPERM" }, { 2, "ENOENT" }, { 4, "EINTR" }, { 9, "EBADF" },
		{ EAGAIN, "EAGAIN" }, { EWOULDBLOCK, "EAGAIN" }, { 35, "EDEADLK" },
		{ EDEADLOCK, "EDEADLK" }, { 95, "EOPNOTSUPP" }, { ENOTSUP, "EOPNOTSUPP" },
		{ 38, "ENOSYS" }, { 110, "ETIMEDOUT" }, { 133, "EHWPOISON" },
		{ 512, "ERESTARTSYS" }, { 513, "ERESTARTNOINTR" }, { 514, "ERESTARTNOHAND" },
		{ 515, "ENOIOCTLCMD" }, { 516, "ERESTART_RESTARTBLOCK" }, { 521, "EBADHANDLE" },
		{ 524, "ENOTSUPP" }, { 530, "ERECALLCONFLICT" },
		{ 0, NULL }, { -2, NULL }, { 41, NULL }, { 58, NULL }, { 134, NULL },
		{ 511, NULL }, { 520, NULL }, { 532, NULL }, { 4095, NULL },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(rows); i++) {
		const char *got = sc_errno_name(rows[i].e);

		if (!rows[i].want)
			cr_assert_null(got, "%d: %s", rows[i].e, got);
		else
			cr_assert(eq(str, (char *)(got ? got : "(null)"), (char *)rows[i].want),
				  "%d", rows[i].e);
	}
}

/* Every name glibc knows, for 1..133 (the same choice among aliases). */
Test(sctable, errno_names_match_libc)
{
	int e, named = 0;

	for (e = 1; e < 512; e++) {
		const char *libc = strerrorname_np(e);
		const char *got = sc_errno_name(e);

		if (e >= 134) {
			cr_assert_null(got, "%d: %s", e, got);
			continue;
		}
		if (!libc) {
			cr_assert_null(got, "%d: %s", e, got);
			continue;
		}
		cr_assert_not_null(got, "%d: libc says %s", e, libc);
		cr_assert(eq(str, (char *)got, (char *)libc), "%d", e);
		named++;
	}
	cr_assert(eq(int, named, 131));	/* 1..133 but for 41 and 58 */
}

/* ---- a typo'd --syscalls name ---------------------------------------------- */

Test(sctable, nearest_syscall_names)
{
	size_t n, i;
	const struct sc_desc *t = arch_sc_table(&n);
	const char *names[512], *out[5];
	int k;

	cr_assert(le(ulong, n, ARRAY_SIZE(names)));
	for (i = 0; i < n; i++)
		names[i] = t[i].name;
	k = nearest_names("preed64", names, n, out, 5);
	cr_assert(ge(int, k, 1));
	cr_assert_str_eq(out[0], "pread64");
	k = nearest_names("opnat", names, n, out, 5);
	cr_assert(ge(int, k, 1));
	cr_assert_str_eq(out[0], "openat");
	k = nearest_names("clock_gettim", names, n, out, 5);
	cr_assert(ge(int, k, 1));
	cr_assert_str_eq(out[0], "clock_gettime");
}
