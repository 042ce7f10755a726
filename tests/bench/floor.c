/* tests/bench/floor.c: the floor of ptap's design -- the least a ptrace
 * tracer can do per hit: one stop, GETREGS, one process_vm_readv (the
 * string argument), SETREGS, CONT.  usage: floor ADDR CMD [ARG...]
 * ADDR is a non-PIE function whose first instruction is a one-byte nop. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	uint64_t addr = strtoull(argv[1], NULL, 0);
	struct user_regs_struct regs;
	char path[64], buf[256];
	unsigned char int3 = 0xcc;
	long hits = 0;
	int st, fd;
	pid_t pid;

	if (argc < 3)
		return 2;
	pid = fork();
	if (pid == 0) {
		ptrace(PTRACE_TRACEME, 0, 0, 0);
		raise(SIGSTOP);
		execv(argv[2], &argv[2]);
		_exit(127);
	}
	waitpid(pid, &st, 0);
	ptrace(PTRACE_SETOPTIONS, pid, 0, PTRACE_O_EXITKILL | PTRACE_O_TRACEEXEC);
	ptrace(PTRACE_CONT, pid, 0, 0);
	waitpid(pid, &st, 0);		/* the exec event */
	snprintf(path, sizeof(path), "/proc/%d/mem", pid);
	fd = open(path, O_RDWR);
	if (fd < 0 || pwrite(fd, &int3, 1, (off_t)addr) != 1)
		return perror("plant"), 1;
	ptrace(PTRACE_CONT, pid, 0, 0);
	while (waitpid(pid, &st, 0) == pid && WIFSTOPPED(st)) {
		int sig = WSTOPSIG(st);

		if (sig == SIGTRAP) {
			struct iovec l = { buf, sizeof(buf) }, r;

			ptrace(PTRACE_GETREGS, pid, 0, &regs);
			r.iov_base = (void *)regs.rdi;
			r.iov_len = sizeof(buf);
			process_vm_readv(pid, &l, 1, &r, 1, 0);
			regs.rip = addr + 1;	/* past the int3 that replaced the nop */
			ptrace(PTRACE_SETREGS, pid, 0, &regs);
			hits++;
			sig = 0;
		}
		ptrace(PTRACE_CONT, pid, 0, sig);
	}
	fprintf(stderr, "floor: %ld hits\n", hits);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}
