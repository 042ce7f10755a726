/* tests/bench/sys_target.c: a syscall-heavy loop whose fsyncs are rare, for
 * the cost of `ptap record --syscalls fsync` on the calls it does not list.
 * usage: sys_target N FSYNCS FILE
 * Makes N getppid() calls with FSYNCS fsync(FILE) spread evenly among them
 * and prints the nanoseconds the loop took.  FILE is written and fsynced
 * once before the loop, so the fsyncs in it have nothing to flush (their
 * results are not checked: see seccomp_floor.c). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

volatile long sink;

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000, k = argc > 2 ? atol(argv[2]) : 10;
	long every = k > 0 ? n / k : n + 1;
	struct timespec a, b;
	int fd;

	if (argc < 4)
		return fprintf(stderr, "usage: sys_target N FSYNCS FILE\n"), 2;
	fd = open(argv[3], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, "x", 1) != 1)
		return perror(argv[3]), 1;
	sink += fsync(fd);	/* -1 (ENOSYS) under seccomp_floor: no tracer */
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (long i = 1; i <= n; i++) {
		sink += getppid();
		if (every > 0 && i % every == 0)
			sink += fsync(fd);
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	close(fd);
	printf("%lld\n", (long long)(b.tv_sec - a.tv_sec) * 1000000000LL + (b.tv_nsec - a.tv_nsec));
	return 0;
}
