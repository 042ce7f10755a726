/* tracer/mem.c: target memory access. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/uio.h>
#include <unistd.h>

#include "tracer/mem.h"

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
