/* tracer/host/procstatus.h: one field of a traced task's /proc status file
 * (proc(5), /proc/pid/status): Seccomp, SigPnd, Tgid, PPid ... */
#ifndef PTAP_TRACER_HOST_PROCSTATUS_H
#define PTAP_TRACER_HOST_PROCSTATUS_H

#include <sys/types.h>

/*
 * The value of the line "KEY:\tVALUE" in /proc/PID/status (TID 0), or in
 * /proc/PID/task/TID/status, read in BASE (10, or 16 for the signal masks).
 * DFLT when the file or the line is missing (the task is gone).
 */
unsigned long long procstatus_field(pid_t pid, pid_t tid, const char *key, int base,
				    unsigned long long dflt);

#endif
