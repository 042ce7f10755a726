/* tests/bench/floor.c: the floor of ptap's design -- the least a ptrace
 * tracer can do per hit: one stop, GETREGS, one process_vm_readv (the
 * string argument), SETREGS, CONT.  usage: floor [-i] ADDR CMD [ARG...]
 * ADDR is a non-PIE function whose first instruction is a one-byte nop.
 * -i reads no memory (the floor of integer arguments).  Threads are
 * followed (PTRACE_O_TRACECLONE), each hit handled on its own thread, so
 * it is the floor of threaded runs too. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int noread = argc > 1 && strcmp(argv[1], "-i") == 0;
	struct user_regs_struct regs;
	unsigned char int3 = 0xcc;
	int st, fd, status = 1;
	char path[64], buf[256];
	long hits = 0;
	uint64_t addr;
	pid_t pid, tid;

	argv += noread;
	argc -= noread;
	if (argc < 3)
		return 2;
	addr = strtoull(argv[1], NULL, 0);
	pid = fork();
	if (pid == 0) {
		ptrace(PTRACE_TRACEME, 0, 0, 0);
		raise(SIGSTOP);
		execv(argv[2], &argv[2]);
		_exit(127);
	}
	waitpid(pid, &st, 0);
	ptrace(PTRACE_SETOPTIONS, pid, 0,
	       PTRACE_O_EXITKILL | PTRACE_O_TRACEEXEC | PTRACE_O_TRACECLONE);
	ptrace(PTRACE_CONT, pid, 0, 0);
	waitpid(pid, &st, 0);		/* the exec event */
	snprintf(path, sizeof(path), "/proc/%d/mem", pid);
	fd = open(path, O_RDWR);
	if (fd < 0 || pwrite(fd, &int3, 1, (off_t)addr) != 1)
		return perror("plant"), 1;
	ptrace(PTRACE_CONT, pid, 0, 0);
	/* every thread, until none is left */
	while ((tid = waitpid(-1, &st, __WALL)) > 0) {
		int sig;

		if (!WIFSTOPPED(st)) {
			if (tid == pid)
				status = WIFEXITED(st) ? WEXITSTATUS(st) : 1;
			continue;
		}
		sig = WSTOPSIG(st);
		if (st >> 16) {			/* a clone event: nothing to deliver */
			sig = 0;
		} else if (sig == SIGSTOP) {	/* a new thread's first stop */
			sig = 0;
		} else if (sig == SIGTRAP) {
			struct iovec l = { buf, sizeof(buf) }, r;

			ptrace(PTRACE_GETREGS, tid, 0, &regs);
			if (!noread) {
				r.iov_base = (void *)regs.rdi;
				r.iov_len = sizeof(buf);
				process_vm_readv(tid, &l, 1, &r, 1, 0);
			}
			regs.rip = addr + 1;	/* past the int3 that replaced the nop */
			ptrace(PTRACE_SETREGS, tid, 0, &regs);
			hits++;
			sig = 0;
		}
		ptrace(PTRACE_CONT, tid, 0, sig);
	}
	if (errno != ECHILD)
		return perror("waitpid"), 1;
	fprintf(stderr, "floor: %ld hits\n", hits);
	return status;
}
