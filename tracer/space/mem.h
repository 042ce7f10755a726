/* tracer/space/mem.h: reading and writing target memory.  Reads use
 * process_vm_readv (one syscall, no stop needed); writes go through
 * /proc/PID/mem, which works on running threads and on read-only text
 * (the kernel's FOLL_FORCE makes a private copy of the page). */
#ifndef PTAP_TRACER_SPACE_MEM_H
#define PTAP_TRACER_SPACE_MEM_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct iovec;

/* Bytes read at ADDR of PID (short at an unmapped page), or -errno. */
ssize_t mem_read(pid_t pid, uint64_t addr, void *buf, size_t len);
/*
 * Read N ranges of PID at once: REMOTE[i] into LOCAL[i] (the same lengths),
 * in one process_vm_readv (up to IOV_MAX ranges a call).  The kernel stops
 * at the first range it cannot read all of; the ranges after it are read
 * in a further call.  GOT[i]: the bytes of range i read, a prefix (short:
 * it ran into unreadable memory).  The number of calls made, or -errno when
 * one failed but for a bad range (ESRCH; ENOSYS, EPERM: then no range
 * after it is read, for mem_read() to try another way).
 */
int mem_readv(pid_t pid, const struct iovec *local, const struct iovec *remote, size_t n,
	      size_t *got);
/* Write all of BUF at ADDR through the /proc/PID/mem descriptor MEMFD.  0 or -errno. */
int mem_write(int memfd, uint64_t addr, const void *buf, size_t len);
/* Open /proc/PID/mem for reading and writing (O_CLOEXEC).  fd or -errno. */
int mem_open(pid_t pid);

#endif
