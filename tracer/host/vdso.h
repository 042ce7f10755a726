/* tracer/host/vdso.h: where a process's vDSO has clock_gettime, so that code
 * ptap runs in the process (the agent, agent/agent.h) can stamp a record
 * without a system call. */
#ifndef PTAP_TRACER_HOST_VDSO_H
#define PTAP_TRACER_HOST_VDSO_H

#include <stdint.h>
#include <sys/types.h>

/*
 * The address of clock_gettime in the vDSO of process PID (its [vdso] in
 * /proc/PID/maps, read through /proc/PID/mem) into *ADDR.  0, or -errno:
 * -ENOENT when the process has no vDSO or the vDSO no clock_gettime.
 */
int vdso_gettime(pid_t pid, uint64_t *addr);

#endif
