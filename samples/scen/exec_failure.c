/* samples/scen/exec_failure.c: scenario 9, exec-failure-keeps-probes.  Calls
 * probe_me(i, "before") for i = 0 .. 9, then execve()s that fail: /nonexistent
 * (ENOENT), /dev/null (EACCES) and an executable text file with no #!
 * (ENOEXEC, which gets further into the kernel's exec) from the main thread,
 * /nonexistent from a second thread; then probe_me(i, "after") for i = 10 ..
 * 109.  A failed exec must not drop the probes: 110 records, i in order.  On
 * fd 3, if open: "calls N".  Exit 0 when every check passed, 1 otherwise. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../selfcheck.h"

#define BEFORE	10
#define AFTER	100

static long probe_sum;

/* The probed function: it reads both arguments, so a tracer that changed one shows. */
__attribute__((noinline, noclone)) void probe_me(long a, const char *s)
{
	probe_sum += a + s[1];
	asm volatile("" : : "r"(a), "r"(s) : "memory");
}

static int bad;

/* execve(PATH) must fail with WANT. */
static void exec_fails(const char *path, int want)
{
	char *const argv[] = { (char *)path, NULL };
	char *const envp[] = { NULL };

	execve(path, argv, envp);
	if (errno != want) {
		printf("exec_failure: execve(%s): %s, expected %s\n", path, strerror(errno),
		       strerror(want));
		bad = 1;
	}
}

static void *thread_exec(void *arg)
{
	(void)arg;
	exec_fails("/nonexistent", ENOENT);
	return NULL;
}

int main(void)
{
	char junk[] = "/tmp/exec_failure.XXXXXX";
	long i = 0, want = 0;
	pthread_t th;
	int fd;

	SELFCHECK_SAVE(probe_me);
	for (; i < BEFORE; i++) {
		probe_me(i, "before");
		want += i + 'e';
	}
	exec_fails("/nonexistent", ENOENT);
	exec_fails("/dev/null", EACCES);
	fd = mkstemp(junk);
	if (fd < 0 || write(fd, "not a program\n", 14) != 14 || fchmod(fd, 0700) || close(fd)) {
		fprintf(stderr, "exec_failure: cannot write %s: %s\n", junk, strerror(errno));
		return 2;
	}
	exec_fails(junk, ENOEXEC);
	unlink(junk);
	if (pthread_create(&th, NULL, thread_exec, NULL) || pthread_join(th, NULL)) {
		fprintf(stderr, "exec_failure: pthread_create failed\n");
		return 2;
	}
	for (; i < BEFORE + AFTER; i++) {
		probe_me(i, "after");
		want += i + 'f';
	}
	if (probe_sum != want) {
		printf("exec_failure: probe_me saw sum %ld, expected %ld\n", probe_sum, want);
		bad = 1;
	}
	if (fcntl(3, F_GETFD) != -1)
		dprintf(3, "calls %ld\n", i);
	printf("exec_failure: %ld calls\n", i);
	if (!selfcheck_verify())
		bad = 1;
	printf("EXIT-SUCCESS\n");
	return bad;
}
