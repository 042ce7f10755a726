/* tracer/host/libctid.h: where glibc keeps each thread's tid in a process,
 * so that code ptap runs in the process (the agent, agent/agent.h) can name
 * the thread that made a record without a system call. */
#ifndef PTAP_TRACER_HOST_LIBCTID_H
#define PTAP_TRACER_HOST_LIBCTID_H

#include <stdint.h>
#include <sys/types.h>

/*
 * The offset of a thread's tid from its thread pointer in process PID: the
 * tid member of glibc's struct pthread (which the thread pointer points at),
 * from the DWARF of the libc.so.6 PID has mapped (its separate debug file:
 * libc6-dbg).  0 with *OFF, -ENOENT (no glibc, no DWARF for it), or -errno.
 */
int libc_tid_offset(pid_t pid, uint32_t *off);

#endif
