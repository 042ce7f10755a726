/* tests/bench/seccomp_floor.c: the floor of `ptap record --syscalls fsync`
 * on the calls it does not list -- a seccomp filter of the same shape
 * (the arch, then the number: RET_TRACE for fsync, ALLOW for the rest,
 * installed with SECCOMP_FILTER_FLAG_SPEC_ALLOW as ptap does) and no tracer.
 * usage: seccomp_floor CMD [ARG...]
 * Untraced, the fsyncs fail with ENOSYS: sys_target makes only a few. */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_fsync, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRACE),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(f) / sizeof(f[0]), f };

	if (argc < 2)
		return fprintf(stderr, "usage: seccomp_floor CMD [ARG...]\n"), 2;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_SPEC_ALLOW, &prog) &&
	     (errno != EINVAL || syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog))))
		return perror("seccomp_floor: seccomp"), 1;
	execv(argv[1], &argv[1]);
	perror(argv[1]);
	return 127;
}
