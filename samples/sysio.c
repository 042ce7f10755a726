/* samples/sysio.c: system calls made inside probed functions, for `ptap
 * record --syscalls ... --context EVENT` (issue 6).
 * usage: sysio nest [DEPTH [FILE]]	|	sysio loop FILE SECONDS
 *
 *   nest: nest(0, DEPTH) (DEPTH defaults to 3) recurses down to
 *	nest(DEPTH, DEPTH); each level writes its digit to FILE (default
 *	/dev/null) with one pwrite64 before the inner call and one after it
 *	returned, and main() writes '[' before the outermost call and ']' after
 *	it: FILE holds "[0123...DD...3210]", one byte per call, at offsets 0, 1,
 *	...  When fd 3 is open it states there what this records:
 *	  -e 'nest depth' --context nest --syscalls pwrite64
 *	in ptap's normalized text form, one line per probe hit or syscall in
 *	the order they happen: a level's two writes carry {nest: depth=D}, the
 *	one after the inner call too (the inner call's context has ended);
 *	main()'s two carry none.  Its own writes to fd 3 are `write`, not
 *	pwrite64, and buffered until the end.
 *
 *   loop: for attach tests.  Lets any tracer of its user attach, prints
 *	"READY PID", then for SECONDS seconds calls tick(fd, i), i = 0, 1, ...,
 *	sleeping 1 ms after each; tick writes the line "tick I\n" to FILE with
 *	one write (and nothing else writes meanwhile).  Then it reads FILE back
 *	and prints "ticks N", FILE-OK when FILE holds exactly the N lines (else
 *	FILE-BAD), BYTES-OK when tick's code is intact (selfcheck.h) and, when
 *	both were right, EXIT-SUCCESS; exits 0 then, 1 otherwise.
 *
 *   opens DIR: raw open and openat calls with and without O_CREAT (and
 *	O_TMPFILE), those without it passing a junk mode that the kernel
 *	ignores, as a caller may: what strace shows of each call is what
 *	`ptap record --syscalls open,openat` records.  Makes DIR/a and DIR/b.
 */
#define _GNU_SOURCE		/* O_TMPFILE */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "expect.h"
#include "selfcheck.h"

static int out_fd;
static off_t out_off;		/* the bytes written to FILE so far */
static FILE *expect;		/* fd 3, or NULL */

/* Write the byte *C at the end of FILE with pwrite64, and state it (DEPTH < 0: outside nest). */
static void put_byte(const char *c, int depth)
{
	ssize_t r = pwrite(out_fd, c, 1, out_off);

	if (expect) {
		fputs("pwrite64: fd=", expect);
		ex_fd(expect, out_fd);
		fprintf(expect, " buf=0x%lx count=1 offset=%lld ret=%zd", (unsigned long)c,
			(long long)out_off, r);
		if (depth >= 0)
			fprintf(expect, " {nest: depth=%d}", depth);
		fputc('\n', expect);
	}
	out_off++;
}

/* One level of the recursion: a write, the next level, a write again.  Not a
 * tail call: the second write needs this frame.  Returns the levels below + 1. */
__attribute__((noinline, noclone)) int nest(int depth, int max)
{
	char c = (char)('0' + depth % 10);
	int below = 0;

	if (expect)
		fprintf(expect, "nest: depth=%d\n", depth);
	put_byte(&c, depth);
	if (depth < max)
		below = nest(depth + 1, max);
	put_byte(&c, depth);
	return below + 1;
}

static int run_nest(int depth, const char *file)
{
	static const char open_b = '[', close_b = ']';
	int levels;

	out_fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (out_fd < 0) {
		perror(file);
		return 2;
	}
	put_byte(&open_b, -1);
	levels = nest(0, depth);
	put_byte(&close_b, -1);
	close(out_fd);
	printf("sysio: nest %d levels\n", levels);
	return levels == depth + 1 ? 0 : 1;
}

/* One loop step: the line "tick I\n" to FD with one write. */
__attribute__((noinline, noclone)) long tick(int fd, long i)
{
	char line[32];
	int n = snprintf(line, sizeof(line), "tick %ld\n", i);

	return write(fd, line, (size_t)n) == n;
}

/* Is FILE exactly "tick 0\n" ... "tick N-1\n"? */
static int ticks_intact(const char *file, long n)
{
	FILE *f = fopen(file, "r");
	char line[64], want[64];
	long i = 0;
	int ok = f != NULL;

	while (ok && fgets(line, sizeof(line), f)) {
		snprintf(want, sizeof(want), "tick %ld\n", i++);
		ok = strcmp(line, want) == 0;
	}
	if (f)
		fclose(f);
	return ok && i == n;
}

static int run_loop(const char *file, int secs)
{
	struct timespec ms = { 0, 1000000 }, now, end;
	long n = 0, short_writes = 0;
	int fd, ok;

	selfcheck_allow_tracers();
	SELFCHECK_SAVE(tick);
	fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		perror(file);
		return 2;
	}
	printf("READY %d\n", (int)getpid());
	fflush(stdout);
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += secs;
	do {
		short_writes += !tick(fd, n++);
		nanosleep(&ms, NULL);
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while (now.tv_sec < end.tv_sec ||
		 (now.tv_sec == end.tv_sec && now.tv_nsec < end.tv_nsec));
	close(fd);
	printf("ticks %ld\n", n);
	ok = !short_writes && ticks_intact(file, n);
	puts(ok ? "FILE-OK" : "FILE-BAD");
	ok = selfcheck_verify() && ok;
	if (ok)
		puts("EXIT-SUCCESS");
	return ok ? 0 : 1;
}

/* open(2)'s mode with and without the flags that use it. */
static int run_opens(const char *dir)
{
	static const long junk_mode = 0777;
	char a[PATH_MAX], b[PATH_MAX];
	long fds[8];
	int n = 0, bad = 0;

	snprintf(a, sizeof(a), "%s/a", dir);
	snprintf(b, sizeof(b), "%s/b", dir);
	fds[n++] = syscall(SYS_openat, AT_FDCWD, a, O_WRONLY | O_CREAT | O_TRUNC, 0640);
	fds[n++] = syscall(SYS_openat, AT_FDCWD, a, O_RDONLY, junk_mode);
	fds[n++] = syscall(SYS_open, a, O_RDONLY | O_CLOEXEC, 0123);
	fds[n++] = syscall(SYS_open, b, O_RDWR | O_CREAT | O_EXCL, 0600);
	fds[n++] = syscall(SYS_openat, AT_FDCWD, dir, O_RDWR | O_TMPFILE, 0600);
	fds[n++] = syscall(SYS_openat, AT_FDCWD, dir, O_RDONLY | O_DIRECTORY, junk_mode);
	for (int i = 0; i < n; i++) {
		if (fds[i] < 0) {
			fprintf(stderr, "sysio: opens: call %d failed: %s\n", i + 1, strerror(errno));
			bad = 1;
		} else {
			close((int)fds[i]);
		}
	}
	printf("sysio: opens %d calls\n", n);
	return bad;
}

int main(int argc, char **argv)
{
	int rc;

	if (argc > 1 && strcmp(argv[1], "nest") == 0) {
		expect = ex_open();
		rc = run_nest(argc > 2 ? atoi(argv[2]) : 3, argc > 3 ? argv[3] : "/dev/null");
		if (expect)
			fclose(expect);
		return rc;
	}
	if (argc > 3 && strcmp(argv[1], "loop") == 0)
		return run_loop(argv[2], atoi(argv[3]));
	if (argc > 2 && strcmp(argv[1], "opens") == 0)
		return run_opens(argv[2]);
	fprintf(stderr,
		"usage: sysio nest [DEPTH [FILE]] | sysio loop FILE SECONDS | sysio opens DIR\n");
	return 2;
}
