/* tracer/space/mem.c: target memory access. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <sys/uio.h>
#include <unistd.h>

#include "tracer/space/mem.h"

ssize_t mem_read(pid_t pid, uint64_t addr, void *buf, size_t len)
{
	struct iovec local = { .iov_base = buf, .iov_len = len };
	struct iovec remote = { .iov_base = (void *)(uintptr_t)addr, .iov_len = len };
	ssize_t n = process_vm_readv(pid, &local, 1, &remote, 1, 0);
	char path[32];
	int fd;

	if (n >= 0)
		return n;
	if (errno == EFAULT || errno == ESRCH)
		return -errno;
	/* ENOSYS/EPERM (some sandboxes): the slower /proc/PID/mem path. */
	snprintf(path, sizeof(path), "/proc/%d/mem", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = pread(fd, buf, len, (off_t)addr);
	if (n < 0)
		n = -errno;
	close(fd);
	return n;
}

int mem_readv(pid_t pid, const struct iovec *local, const struct iovec *remote, size_t n,
	      size_t *got)
{
	size_t i = 0;
	int calls = 0;

	while (i < n) {
		size_t cnt = n - i < IOV_MAX ? n - i : IOV_MAX, end = i + cnt;
		ssize_t r = process_vm_readv(pid, local + i, cnt, remote + i, cnt, 0);

		calls++;
		if (r < 0 && errno != EFAULT) {
			int err = -errno;

			while (i < n)
				got[i++] = 0;
			return err;
		}
		if (r < 0) {
			got[i++] = 0;	/* nothing read: the first range faulted at once */
			continue;
		}
		/* the bytes went to the ranges in order, up to the one that faulted */
		for (; i < end && (size_t)r >= remote[i].iov_len; i++) {
			got[i] = remote[i].iov_len;
			r -= remote[i].iov_len;
		}
		if (i < end)
			got[i++] = (size_t)r;	/* range i faulted: the next call starts past it */
	}
	return calls;
}

int mem_write(int memfd, uint64_t addr, const void *buf, size_t len)
{
	ssize_t n = pwrite(memfd, buf, len, (off_t)addr);

	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EFAULT;
}

int mem_open(pid_t pid)
{
	char path[32];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/mem", pid);
	fd = open(path, O_RDWR | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}
