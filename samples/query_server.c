/* samples/query_server.c: a stand-in for a database server.  It reads
 * queries, one per line, from the file named in argv[1] (stdin when none)
 * and runs each through exec_query(), which ptap probes.  Results go to the
 * file named in argv[2] (default /dev/null): real I/O to correlate with.
 *
 * The I/O of one query, all inside exec_query(): its result line ("LEN\tNROWS\t
 * QUERY\n") is appended to the results file with one pwrite64 at the bytes
 * written so far; a SELECT then reads the same bytes back with one pread64 (at
 * the same offset); a query that changes data (INSERT, UPDATE, DELETE) then
 * fsyncs the results file.  Outside the queries the program opens its two
 * files with openat (the queries O_RDONLY, the results O_RDWR|O_CREAT|O_TRUNC
 * 0644), reads the queries with read and writes its summary to stdout with
 * write.  On /dev/null the pread64 returns 0 and the fsync fails with EINVAL
 * (the statements below say what each call returned).
 *
 * As PostgreSQL does, the caller sets debug_query_string to the query before
 * the call and back to NULL after it, and fills a struct query_desc:
 * source_text is the query, nrows the query's number in the file (1, 2,
 * ...); exec_query() replaces nrows with its row count.
 *
 * When fd 3 is open, the program states there what ptap should capture with
 *   -e 'exec_query query_string=%di:string len=%si:u32'
 * one line per call, in ptap's text form:  exec_query: query_string="..." len=N
 *
 * With QS_EXPECT=dwarf in the environment it states instead, for each call,
 * four lines: what each of these perf recipes captures, in this order:
 *   -e 'exec_query query_string:string'
 *   -e 'exec_query desc->source_text:string desc->nrows'
 *   -e 'exec_query debug_query_string:string'
 *   -e 'exec_query $params'		(desc: the pointer, as 0x%lx)
 *
 * With QS_EXPECT=return it states, for each call, what this return probe
 * records (exec_query returns the row count; query_string is its value at
 * the entry):
 *   -e 'exec_query%return $retval query_string'
 *   exec_query__return: retval=N query_string="..."
 *
 * With QS_EXPECT=syscalls it states what this records, from main()'s first
 * openat on (the dynamic loader's calls before main() are not stated):
 *   -e 'exec_query query_string:string' --context exec_query
 *   --syscalls pread64,pwrite64,fsync,openat
 * in ptap's normalized text form (no duration), one line per probe hit or
 * syscall, in the order they happen:
 *   openat: dirfd=AT_FDCWD pathname="q.txt" flags=O_RDONLY ret=4</abs/q.txt>
 *   openat: dirfd=AT_FDCWD pathname="r" flags=O_RDWR|O_CREAT|O_TRUNC mode=0644 ret=5</abs/r>
 *   exec_query: query_string="SELECT 1"
 *   pwrite64: fd=5</abs/r> buf=0x7ffc... count=13 offset=0 ret=13 {exec_query: query_string=...}
 *   pread64: fd=5</abs/r> buf=0x7ffc... count=13 offset=0 ret=13 {exec_query: query_string=...}
 *   ...
 * The buffer addresses are exact (the program prints its own), the paths are
 * /proc/self/fd's, a failed call has ret=-ENAME (ret=-ENOENT).  When fd 4 is
 * open too, it states there the totals per context, one line per query and
 * a last one for the program's own calls outside any query:
 *   {exec_query: query_string="SELECT 1"} pread64=1/13 pwrite64=1/13 fsync=0/0 openat=0/0
 *   {} pread64=0/0 pwrite64=0/0 fsync=0/0 openat=2/0
 * as SYSCALL=CALLS/BYTES, BYTES the sum of the byte counts returned (0 for
 * fsync and openat).
 *
 * With QS_TABLE=PATH in the environment (record --account's demo), a query
 * naming "FROM big" also reads the table PATH, 1 MiB written, fsync'd and
 * dropped from the page cache (POSIX_FADV_DONTNEED) at the start: the first
 * such query reads it from storage, the next ones from the page cache.
 */
#define _GNU_SOURCE		/* strerrorname_np */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "expect.h"

struct query_desc {
	const char *source_text;
	int nrows;
};

const char *debug_query_string;		/* what the server is running now */
struct query_desc last_desc;
static int results_fd = -1;
static off_t results_off;		/* the bytes of results written so far */
#define TABLE_LEN	(1 << 20)
static int table_fd = -1;		/* QS_TABLE */
static char table_buf[TABLE_LEN];

/* The syscalls of QS_EXPECT=syscalls, in the order of the totals. */
enum io_sys { IO_PREAD64, IO_PWRITE64, IO_FSYNC, IO_OPENAT, IO_NSYS };
static const char *const io_names[IO_NSYS] = { "pread64", "pwrite64", "fsync", "openat" };

/* One syscall exec_query() made, for the statement main() writes after the call. */
struct io_call {
	enum io_sys sys;
	int fd;
	const void *buf;
	size_t count;
	off_t offset;
	long ret;		/* the result, or -errno */
};
static struct io_call io_log[4];
static int io_nlog;

/* Note the call just made: R is what the libc wrapper returned (-1: errno). */
static void io_note(enum io_sys sys, int fd, const void *buf, size_t count, off_t offset, long r)
{
	struct io_call *c = &io_log[io_nlog++];

	*c = (struct io_call){ sys, fd, buf, count, offset, r < 0 ? -errno : r };
}

/* Does QUERY begin with the SQL keyword KW? */
static bool is_kind(const char *query, const char *kw)
{
	return strncmp(query, kw, strlen(kw)) == 0;
}

__attribute__((noinline, noclone)) int exec_query(const char *query_string, unsigned len,
						   struct query_desc *desc)
{
	int nrows = 1;
	char out[4200], back[4200];
	int n;

	for (unsigned i = 0; i < len; i++)
		nrows += query_string[i] == ' ';
	desc->nrows = nrows;
	last_desc = *desc;
	io_nlog = 0;
	n = snprintf(out, sizeof(out), "%u\t%d\t%s\n", len, nrows, desc->source_text);
	io_note(IO_PWRITE64, results_fd, out, (size_t)n, results_off,
		pwrite(results_fd, out, (size_t)n, results_off));
	if (is_kind(query_string, "SELECT"))
		io_note(IO_PREAD64, results_fd, back, (size_t)n, results_off,
			pread(results_fd, back, (size_t)n, results_off));
	else if (is_kind(query_string, "INSERT") || is_kind(query_string, "UPDATE") ||
		 is_kind(query_string, "DELETE"))
		io_note(IO_FSYNC, results_fd, NULL, 0, 0, fsync(results_fd));
	if (table_fd >= 0 && strstr(query_string, "FROM big") &&
	    pread(table_fd, table_buf, TABLE_LEN, 0) != TABLE_LEN)
		nrows = -1;
	results_off += n;
	return nrows;
}

/* Eight integer arguments: the 7th and 8th go on the stack (SysV x86-64).
 * Called once, with 1..8 times the number of queries. */
__attribute__((noinline, noclone)) long query_stats(long a1, long a2, long a3, long a4, long a5,
						    long a6, long a7, long a8)
{
	return a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8;
}


/* QS_EXPECT=dwarf: what the four perf recipes capture for one call. */
static void state_dwarf(FILE *f, const char *line, const struct query_desc *desc)
{
	fputs("exec_query: query_string=", f);
	ex_str(f, line);
	fputs("\nexec_query: desc->source_text=", f);
	ex_str(f, desc->source_text);
	fprintf(f, " desc->nrows=%d\nexec_query: debug_query_string=", desc->nrows);
	ex_str(f, line);
	fputs("\nexec_query: query_string=", f);
	ex_str(f, line);
	fprintf(f, " len=%zu desc=0x%lx\n", strlen(line), (unsigned long)desc);
}

/* ---- QS_EXPECT=syscalls ---------------------------------------------------- */

/* A result: a number, or -ENAME when it is -errno. */
static void put_ret(FILE *f, long ret)
{
	const char *name = ret < 0 ? strerrorname_np((int)-ret) : NULL;

	if (name)
		fprintf(f, "ret=-%s", name);
	else
		fprintf(f, "ret=%ld", ret);
}

/* The context of the calls inside exec_query(), as ptap prints it. */
static void put_ctx(FILE *f, const char *query)
{
	fputs("{exec_query: query_string=", f);
	ex_str(f, query);
	fputc('}', f);
}

/* openat(AT_FDCWD, PATH, FLAGS, MODE) as open() makes it, stated (the mode only with
 * O_CREAT: without it the call does not read it, and strace leaves it out); returns the fd
 * or -1. */
static int open_stated(FILE *f, long totals[][2], const char *path, int flags, const char *fltext,
		       mode_t mode)
{
	int fd = open(path, flags, mode);
	int err = errno;

	if (f) {
		fputs("openat: dirfd=AT_FDCWD pathname=", f);
		ex_str(f, path);
		fprintf(f, " flags=%s ", fltext);
		if (flags & O_CREAT)
			fprintf(f, "mode=%#03o ", (unsigned int)mode);
		if (fd >= 0) {
			fputs("ret=", f);
			ex_fd(f, fd);
		} else {
			put_ret(f, -err);
		}
		fputc('\n', f);
		totals[IO_OPENAT][0]++;
	}
	errno = err;
	return fd;
}

/* The calls exec_query(QUERY) just made (io_log), stated and added to TOTALS. */
static void put_io(FILE *f, long totals[][2], const char *query)
{
	for (int i = 0; i < io_nlog; i++) {
		const struct io_call *c = &io_log[i];

		fprintf(f, "%s: fd=", io_names[c->sys]);
		ex_fd(f, c->fd);
		if (c->sys != IO_FSYNC)
			fprintf(f, " buf=0x%lx count=%zu offset=%lld", (unsigned long)c->buf,
				c->count, (long long)c->offset);
		fputc(' ', f);
		put_ret(f, c->ret);
		fputc(' ', f);
		put_ctx(f, query);
		fputc('\n', f);
		totals[c->sys][0]++;
		if (c->sys != IO_FSYNC && c->ret > 0)
			totals[c->sys][1] += c->ret;
	}
}

/* One line of totals (fd 4): CTX, then SYSCALL=CALLS/BYTES for each; TOTALS zeroed. */
static void put_totals(FILE *f, const char *query, long totals[][2])
{
	if (query)
		put_ctx(f, query);
	else
		fputs("{}", f);
	for (int s = 0; s < IO_NSYS; s++) {
		fprintf(f, " %s=%ld/%ld", io_names[s], totals[s][0], totals[s][1]);
		totals[s][0] = totals[s][1] = 0;
	}
	fputc('\n', f);
}

int main(int argc, char **argv)
{
	FILE *expect = fcntl(3, F_GETFD) != -1 ? fdopen(3, "w") : NULL;
	const char *mode = getenv("QS_EXPECT");
	bool dwarf = mode && strcmp(mode, "dwarf") == 0;
	bool ret = mode && strcmp(mode, "return") == 0;
	bool sys = mode && strcmp(mode, "syscalls") == 0;
	FILE *sx = sys ? expect : NULL;		/* the syscalls statement */
	FILE *tot = sys && fcntl(4, F_GETFD) != -1 ? fdopen(4, "w") : NULL;
	long own[IO_NSYS][2] = { { 0 } }, inq[IO_NSYS][2] = { { 0 } };
	const char *rpath = argc > 2 ? argv[2] : "/dev/null";
	char line[4096];
	int total = 0, n = 0, qfd = 0;
	FILE *in = stdin;

	if (argc > 1) {
		qfd = open_stated(sx, own, argv[1], O_RDONLY, "O_RDONLY", 0);
		in = qfd >= 0 ? fdopen(qfd, "r") : NULL;
		if (!in) {
			perror(argv[1]);
			return 2;
		}
	}
	if (getenv("QS_TABLE")) {	/* on the disk, not in the page cache */
		table_fd = open(getenv("QS_TABLE"), O_RDWR | O_CREAT | O_TRUNC, 0600);
		memset(table_buf, 't', sizeof(table_buf));
		if (table_fd < 0 || pwrite(table_fd, table_buf, TABLE_LEN, 0) != TABLE_LEN ||
		    fsync(table_fd) || posix_fadvise(table_fd, 0, 0, POSIX_FADV_DONTNEED)) {
			perror(getenv("QS_TABLE"));
			return 2;
		}
	}
	results_fd = open_stated(sx, own, rpath, O_RDWR | O_CREAT | O_TRUNC,
				 "O_RDWR|O_CREAT|O_TRUNC", 0644);
	if (results_fd < 0) {
		perror(rpath);
		return 2;
	}
	while (fgets(line, sizeof(line), in)) {
		struct query_desc desc = { .source_text = line, .nrows = n + 1 };
		int rows;

		line[strcspn(line, "\n")] = '\0';
		if (expect && dwarf)
			state_dwarf(expect, line, &desc);
		else if (sx) {
			fputs("exec_query: query_string=", sx);
			ex_str(sx, line);
			fputc('\n', sx);
		} else if (expect && !ret) {
			fputs("exec_query: query_string=", expect);
			ex_str(expect, line);
			fprintf(expect, " len=%zu\n", strlen(line));
		}
		debug_query_string = line;
		rows = exec_query(line, (unsigned)strlen(line), &desc);
		debug_query_string = NULL;
		if (expect && ret) {
			fprintf(expect, "exec_query__return: retval=%d query_string=", rows);
			ex_str(expect, line);
			fputc('\n', expect);
		}
		if (sx)
			put_io(sx, inq, line);
		if (tot)
			put_totals(tot, line, inq);
		total += rows;
		n++;
	}
	if (query_stats(n, 2L * n, 3L * n, 4L * n, 5L * n, 6L * n, 7L * n, -8L * n) != 20L * n)
		return 3;
	printf("query_server: %d queries, %d rows\n", n, total);
	puts("query_server: done");
	if (tot) {
		put_totals(tot, NULL, own);
		fclose(tot);
	}
	if (expect)
		fclose(expect);
	close(results_fd);
	return n > 0 ? 0 : 1;
}
