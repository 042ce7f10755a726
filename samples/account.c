/* samples/account.c: calls that each do known work, for record --account
 * (tests/integ/t_account.sh).  In DIR (argv[1], on a disk: not tmpfs):
 *   cold_read(fd, n)    reads N bytes of a file written, fsync'd and dropped
 *                       from the page cache (POSIX_FADV_DONTNEED) before it
 *   warm_read(fd, n)    reads the same N bytes again, from the page cache
 *   write_sync(fd, n)   writes N bytes and fsyncs them
 *   burn(ms)            spins for MS ms of its thread's CPU time
 *   touch_pages(p, n)   reads a byte of each of N pages of a file mapping, its
 *                       pages dropped from the page cache before it
 * and says on stdout what it did. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define N	(1 << 20)
#define PAGES	64

static char buf[N];

__attribute__((noinline)) long cold_read(int fd, long n)
{
	return pread(fd, buf, (size_t)n, 0);
}

__attribute__((noinline)) long warm_read(int fd, long n)
{
	return pread(fd, buf, (size_t)n, 0);
}

__attribute__((noinline)) long write_sync(int fd, long n)
{
	long w = pwrite(fd, buf, (size_t)n, 0);

	return fsync(fd) ? -1 : w;
}

static long cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

__attribute__((noinline)) long burn(long ms)
{
	long end = cpu_ns() + ms * 1000000L, spins = 0;

	while (cpu_ns() < end)
		spins++;
	return spins;
}

__attribute__((noinline)) long touch_pages(const volatile char *p, long n)
{
	long sum = 0;

	for (long i = 0; i < n; i++)
		sum += p[i * 4096];
	return sum;
}

/* A file in DIR of N bytes of 'a', on the disk and out of the page cache. */
static int cold_file(const char *dir, const char *name)
{
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || pwrite(fd, buf, N, 0) != N || fsync(fd) ||
	    posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED)) {
		perror(path);
		exit(1);
	}
	return fd;
}

int main(int argc, char **argv)
{
	int fd, wfd, mfd;
	char *map;

	if (argc < 2) {
		fprintf(stderr, "usage: account DIR\n");
		return 2;
	}
	memset(buf, 'a', sizeof(buf));
	fd = cold_file(argv[1], "cold");
	printf("cold_read %ld\n", cold_read(fd, N));
	printf("warm_read %ld\n", warm_read(fd, N));
	wfd = cold_file(argv[1], "written");
	printf("write_sync %ld\n", write_sync(wfd, N));
	printf("burn %d\n", burn(50) > 0);
	mfd = cold_file(argv[1], "mapped");
	map = mmap(NULL, N, PROT_READ, MAP_SHARED, mfd, 0);
	if (map == MAP_FAILED)
		return perror("mmap"), 1;
	printf("touch_pages %ld\n", touch_pages(map, PAGES) / 'a');
	return 0;
}
