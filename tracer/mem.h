/* tracer/mem.h: reading and writing target memory.  Reads use
 * process_vm_readv (one syscall, no stop needed); writes go through
 * /proc/PID/mem, which works on running threads and on read-only text
 * (the kernel's FOLL_FORCE makes a private copy of the page). */
#ifndef PTAP_TRACER_MEM_H
#define PTAP_TRACER_MEM_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Bytes read at ADDR of PID (short at an unmapped page), or -errno. */
ssize_t mem_read(pid_t pid, uint64_t addr, void *buf, size_t len);
/* Write all of BUF at ADDR through the /proc/PID/mem descriptor MEMFD.  0 or -errno. */
int mem_write(int memfd, uint64_t addr, const void *buf, size_t len);
/* Open /proc/PID/mem for reading and writing (O_CLOEXEC).  fd or -errno. */
int mem_open(pid_t pid);

#endif
