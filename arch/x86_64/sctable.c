/* arch/x86_64/sctable.c: the x86-64 Linux system call table (numbers from
 * <sys/syscall.h>), strace's classes, how each call's arguments and result
 * are decoded, and the other names of calls.  The lookups and the names of
 * values are shared by every architecture (arch/common/).  Pure: no ptrace,
 * no allocation. */
#include <stdint.h>
#include <sys/syscall.h>

#include "arch/sctable.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/*
 * One table row: SC(NAME, CLASSES, RESULT, NARGS, KIND1, NAME1, ...).  The
 * number is SYS_NAME; KINDn is an enum sc_arg without its SA_ prefix, NAMEn
 * the argument's name in the man page (a bare identifier, stringified).
 * Arguments are in register order (rdi rsi rdx r10 r8 r9), which is the
 * kernel's order, not always the libc wrapper's: see preadv2.
 */
#define SC_ARGS0()	{ 0 }, { 0 }
#define SC_ARGS1(k1, n1)	{ SA_##k1 }, { #n1 }
#define SC_ARGS2(k1, n1, k2, n2)	{ SA_##k1, SA_##k2 }, { #n1, #n2 }
#define SC_ARGS3(k1, n1, k2, n2, k3, n3)	\
	{ SA_##k1, SA_##k2, SA_##k3 }, { #n1, #n2, #n3 }
#define SC_ARGS4(k1, n1, k2, n2, k3, n3, k4, n4)	\
	{ SA_##k1, SA_##k2, SA_##k3, SA_##k4 }, { #n1, #n2, #n3, #n4 }
#define SC_ARGS5(k1, n1, k2, n2, k3, n3, k4, n4, k5, n5)	\
	{ SA_##k1, SA_##k2, SA_##k3, SA_##k4, SA_##k5 }, { #n1, #n2, #n3, #n4, #n5 }
#define SC_ARGS6(k1, n1, k2, n2, k3, n3, k4, n4, k5, n5, k6, n6)	\
	{ SA_##k1, SA_##k2, SA_##k3, SA_##k4, SA_##k5, SA_##k6 },	\
	{ #n1, #n2, #n3, #n4, #n5, #n6 }
#define SC(nm, cls, rk, n, ...)	\
	{ #nm, SYS_##nm, (cls), n, SC_ARGS##n(__VA_ARGS__), SR_##rk }

/* Short class names for the table only. */
#define F	SC_FILE
#define D	SC_DESC
#define N	SC_NET
#define M	SC_MEMORY
#define P	SC_PROCESS
#define S	SC_SIGNAL
#define I	SC_IPC
#define C	SC_CREDS
#define K	SC_CLOCK

static const struct sc_desc x86_64_sc_table[] = {
	SC(read, D, INT, 3, FD, fd, HEX, buf, SIZE, count),
	SC(write, D, INT, 3, FD, fd, HEX, buf, SIZE, count),
	SC(open, F | D, FD, 3, PATH, pathname, OPEN_FLAGS, flags, MODE, mode),
	SC(close, D, INT, 1, FD, fd),
	SC(stat, F, INT, 2, PATH, pathname, HEX, statbuf),
	SC(fstat, D, INT, 2, FD, fd, HEX, statbuf),
	SC(lstat, F, INT, 2, PATH, pathname, HEX, statbuf),
	SC(poll, D, INT, 3, HEX, fds, UINT, nfds, INT, timeout),
	SC(lseek, D, INT, 3, FD, fd, OFF, offset, WHENCE, whence),
	SC(mmap, M | D, HEX, 6, HEX, addr, SIZE, length, PROT, prot, MAP_FLAGS, flags, FD, fd,
	   OFF, offset),
	SC(mprotect, M, INT, 3, HEX, addr, SIZE, len, PROT, prot),
	SC(munmap, M, INT, 2, HEX, addr, SIZE, length),
	SC(brk, M, HEX, 1, HEX, addr),
	SC(rt_sigaction, S, INT, 4, SIGNAL, signum, HEX, act, HEX, oldact, SIZE, sigsetsize),
	SC(rt_sigprocmask, S, INT, 4, INT, how, HEX, set, HEX, oldset, SIZE, sigsetsize),
	SC(rt_sigreturn, S, INT, 0),
	SC(ioctl, D, INT, 3, FD, fd, HEX, request, HEX, arg),
	SC(pread64, D, INT, 4, FD, fd, HEX, buf, SIZE, count, OFF, offset),
	SC(pwrite64, D, INT, 4, FD, fd, HEX, buf, SIZE, count, OFF, offset),
	SC(readv, D, INT, 3, FD, fd, HEX, iov, INT, iovcnt),
	SC(writev, D, INT, 3, FD, fd, HEX, iov, INT, iovcnt),
	SC(access, F, INT, 2, PATH, pathname, INT, mode),
	SC(pipe, D, INT, 1, HEX, pipefd),
	SC(select, D, INT, 5, INT, nfds, HEX, readfds, HEX, writefds, HEX, exceptfds, HEX,
	   timeout),
	SC(sched_yield, 0, INT, 0),
	SC(mremap, M, HEX, 5, HEX, old_address, SIZE, old_size, SIZE, new_size, HEX, flags, HEX,
	   new_address),
	SC(msync, M, INT, 3, HEX, addr, SIZE, length, HEX, flags),
	SC(mincore, M, INT, 3, HEX, addr, SIZE, length, HEX, vec),
	SC(madvise, M, INT, 3, HEX, addr, SIZE, length, INT, advice),
	SC(shmget, I, INT, 3, INT, key, SIZE, size, HEX, shmflg),
	SC(shmat, I | M, HEX, 3, INT, shmid, HEX, shmaddr, HEX, shmflg),
	SC(shmctl, I, INT, 3, INT, shmid, INT, cmd, HEX, buf),
	SC(dup, D, FD, 1, FD, oldfd),
	SC(dup2, D, FD, 2, FD, oldfd, FD, newfd),
	SC(pause, S, INT, 0),
	SC(nanosleep, 0, INT, 2, HEX, req, HEX, rem),
	SC(getitimer, 0, INT, 2, INT, which, HEX, curr_value),
	SC(alarm, 0, INT, 1, UINT, seconds),
	SC(setitimer, 0, INT, 3, INT, which, HEX, new_value, HEX, old_value),
	SC(getpid, 0, INT, 0),
	SC(sendfile, D | N, INT, 4, FD, out_fd, FD, in_fd, HEX, offset, SIZE, count),
	SC(socket, N, FD, 3, SOCK_DOMAIN, domain, SOCK_TYPE, type, INT, protocol),
	SC(connect, N, INT, 3, FD, sockfd, HEX, addr, UINT, addrlen),
	SC(accept, N, FD, 3, FD, sockfd, HEX, addr, HEX, addrlen),
	SC(sendto, N, INT, 6, FD, sockfd, HEX, buf, SIZE, len, HEX, flags, HEX, dest_addr, UINT,
	   addrlen),
	SC(recvfrom, N, INT, 6, FD, sockfd, HEX, buf, SIZE, len, HEX, flags, HEX, src_addr, HEX,
	   addrlen),
	SC(sendmsg, N, INT, 3, FD, sockfd, HEX, msg, HEX, flags),
	SC(recvmsg, N, INT, 3, FD, sockfd, HEX, msg, HEX, flags),
	SC(shutdown, N, INT, 2, FD, sockfd, INT, how),
	SC(bind, N, INT, 3, FD, sockfd, HEX, addr, UINT, addrlen),
	SC(listen, N, INT, 2, FD, sockfd, INT, backlog),
	SC(getsockname, N, INT, 3, FD, sockfd, HEX, addr, HEX, addrlen),
	SC(getpeername, N, INT, 3, FD, sockfd, HEX, addr, HEX, addrlen),
	SC(socketpair, N, INT, 4, SOCK_DOMAIN, domain, SOCK_TYPE, type, INT, protocol, HEX, sv),
	SC(setsockopt, N, INT, 5, FD, sockfd, INT, level, INT, optname, HEX, optval, UINT, optlen),
	SC(getsockopt, N, INT, 5, FD, sockfd, INT, level, INT, optname, HEX, optval, HEX, optlen),
	/* x86-64 is not CLONE_BACKWARDS: tls is last (clone(2), "C library/kernel differences") */
	SC(clone, P, INT, 5, CLONE_FLAGS, flags, HEX, stack, HEX, parent_tid, HEX, child_tid, HEX,
	   tls),
	SC(fork, P, INT, 0),
	SC(vfork, P, INT, 0),
	SC(execve, F | P, NONE, 3, PATH, pathname, HEX, argv, HEX, envp),
	SC(exit, P, NONE, 1, INT, status),
	SC(wait4, P, INT, 4, INT, pid, HEX, wstatus, HEX, options, HEX, rusage),
	SC(kill, P | S, INT, 2, INT, pid, SIGNAL, sig),
	SC(uname, 0, INT, 1, HEX, buf),
	SC(semget, I, INT, 3, INT, key, INT, nsems, HEX, semflg),
	SC(semop, I, INT, 3, INT, semid, HEX, sops, SIZE, nsops),
	SC(semctl, I, INT, 4, INT, semid, INT, semnum, INT, cmd, HEX, arg),
	SC(shmdt, I | M, INT, 1, HEX, shmaddr),
	SC(msgget, I, INT, 2, INT, key, HEX, msgflg),
	SC(msgsnd, I, INT, 4, INT, msqid, HEX, msgp, SIZE, msgsz, HEX, msgflg),
	SC(msgrcv, I, INT, 5, INT, msqid, HEX, msgp, SIZE, msgsz, INT, msgtyp, HEX, msgflg),
	SC(msgctl, I, INT, 3, INT, msqid, INT, cmd, HEX, buf),
	SC(fcntl, D, INT, 3, FD, fd, FCNTL_CMD, cmd, HEX, arg),
	SC(flock, D, INT, 2, FD, fd, INT, operation),
	SC(fsync, D, INT, 1, FD, fd),
	SC(fdatasync, D, INT, 1, FD, fd),
	SC(truncate, F, INT, 2, PATH, path, OFF, length),
	SC(ftruncate, D, INT, 2, FD, fd, OFF, length),
	SC(getdents, D, INT, 3, FD, fd, HEX, dirp, UINT, count),
	SC(getcwd, F, INT, 2, HEX, buf, SIZE, size),
	SC(chdir, F, INT, 1, PATH, path),
	SC(fchdir, D, INT, 1, FD, fd),
	SC(rename, F, INT, 2, PATH, oldpath, PATH, newpath),
	SC(mkdir, F, INT, 2, PATH, pathname, MODE, mode),
	SC(rmdir, F, INT, 1, PATH, pathname),
	SC(creat, F | D, FD, 2, PATH, pathname, MODE, mode),
	SC(link, F, INT, 2, PATH, oldpath, PATH, newpath),
	SC(unlink, F, INT, 1, PATH, pathname),
	SC(symlink, F, INT, 2, PATH, target, PATH, linkpath),
	SC(readlink, F, INT, 3, PATH, pathname, HEX, buf, SIZE, bufsiz),
	SC(chmod, F, INT, 2, PATH, pathname, MODE, mode),
	SC(fchmod, D, INT, 2, FD, fd, MODE, mode),
	SC(chown, F, INT, 3, PATH, pathname, INT, owner, INT, group),
	SC(fchown, D, INT, 3, FD, fd, INT, owner, INT, group),
	SC(lchown, F, INT, 3, PATH, pathname, INT, owner, INT, group),
	SC(umask, 0, INT, 1, MODE, mask),
	SC(gettimeofday, K, INT, 2, HEX, tv, HEX, tz),
	SC(getrlimit, 0, INT, 2, INT, resource, HEX, rlim),
	SC(getrusage, 0, INT, 2, INT, who, HEX, usage),
	SC(sysinfo, 0, INT, 1, HEX, info),
	SC(times, 0, INT, 1, HEX, buf),
	SC(ptrace, 0, INT, 4, INT, request, INT, pid, HEX, addr, HEX, data),
	SC(getuid, C, INT, 0),
	SC(syslog, 0, INT, 3, INT, type, HEX, bufp, INT, len),
	SC(getgid, C, INT, 0),
	SC(setuid, C, INT, 1, INT, uid),
	SC(setgid, C, INT, 1, INT, gid),
	SC(geteuid, C, INT, 0),
	SC(getegid, C, INT, 0),
	SC(setpgid, 0, INT, 2, INT, pid, INT, pgid),
	SC(getppid, 0, INT, 0),
	SC(getpgrp, 0, INT, 0),
	SC(setsid, 0, INT, 0),
	SC(setreuid, C, INT, 2, INT, ruid, INT, euid),
	SC(setregid, C, INT, 2, INT, rgid, INT, egid),
	SC(getgroups, C, INT, 2, INT, size, HEX, list),
	SC(setgroups, C, INT, 2, SIZE, size, HEX, list),
	SC(setresuid, C, INT, 3, INT, ruid, INT, euid, INT, suid),
	SC(getresuid, C, INT, 3, HEX, ruid, HEX, euid, HEX, suid),
	SC(setresgid, C, INT, 3, INT, rgid, INT, egid, INT, sgid),
	SC(getresgid, C, INT, 3, HEX, rgid, HEX, egid, HEX, sgid),
	SC(getpgid, 0, INT, 1, INT, pid),
	SC(setfsuid, C, INT, 1, INT, fsuid),
	SC(setfsgid, C, INT, 1, INT, fsgid),
	SC(getsid, 0, INT, 1, INT, pid),
	SC(capget, C, INT, 2, HEX, hdrp, HEX, datap),
	SC(capset, C, INT, 2, HEX, hdrp, HEX, datap),
	SC(rt_sigpending, S, INT, 2, HEX, set, SIZE, sigsetsize),
	SC(rt_sigtimedwait, S, INT, 4, HEX, set, HEX, info, HEX, timeout, SIZE, sigsetsize),
	SC(rt_sigqueueinfo, P | S, INT, 3, INT, tgid, SIGNAL, sig, HEX, info),
	SC(rt_sigsuspend, S, INT, 2, HEX, mask, SIZE, sigsetsize),
	SC(sigaltstack, S, INT, 2, HEX, ss, HEX, old_ss),
	SC(utime, F, INT, 2, PATH, filename, HEX, times),
	SC(mknod, F, INT, 3, PATH, pathname, MODE, mode, HEX, dev),
	SC(uselib, F, INT, 1, PATH, library),
	SC(personality, 0, HEX, 1, HEX, persona),
	SC(ustat, 0, INT, 2, HEX, dev, HEX, ubuf),
	SC(statfs, F, INT, 2, PATH, path, HEX, buf),
	SC(fstatfs, D, INT, 2, FD, fd, HEX, buf),
	SC(sysfs, 0, INT, 3, INT, option, HEX, arg1, HEX, arg2),
	SC(getpriority, 0, INT, 2, INT, which, INT, who),
	SC(setpriority, 0, INT, 3, INT, which, INT, who, INT, prio),
	SC(sched_setparam, 0, INT, 2, INT, pid, HEX, param),
	SC(sched_getparam, 0, INT, 2, INT, pid, HEX, param),
	SC(sched_setscheduler, 0, INT, 3, INT, pid, INT, policy, HEX, param),
	SC(sched_getscheduler, 0, INT, 1, INT, pid),
	SC(sched_get_priority_max, 0, INT, 1, INT, policy),
	SC(sched_get_priority_min, 0, INT, 1, INT, policy),
	SC(sched_rr_get_interval, 0, INT, 2, INT, pid, HEX, tp),
	SC(mlock, M, INT, 2, HEX, addr, SIZE, len),
	SC(munlock, M, INT, 2, HEX, addr, SIZE, len),
	SC(mlockall, M, INT, 1, HEX, flags),
	SC(munlockall, M, INT, 0),
	SC(vhangup, 0, INT, 0),
	SC(modify_ldt, 0, INT, 3, INT, func, HEX, ptr, SIZE, bytecount),
	SC(pivot_root, F, INT, 2, PATH, new_root, PATH, put_old),
	SC(_sysctl, 0, INT, 1, HEX, args),
	/* strace: %creds, for the capability bounding set and keep-caps options */
	SC(prctl, C, INT, 5, INT, option, HEX, arg2, HEX, arg3, HEX, arg4, HEX, arg5),
	SC(arch_prctl, 0, INT, 2, HEX, code, HEX, addr),
	SC(adjtimex, K, INT, 1, HEX, buf),
	SC(setrlimit, 0, INT, 2, INT, resource, HEX, rlim),
	SC(chroot, F, INT, 1, PATH, path),
	SC(sync, 0, INT, 0),
	SC(acct, F, INT, 1, PATH, filename),
	SC(settimeofday, K, INT, 2, HEX, tv, HEX, tz),
	SC(mount, F, INT, 5, STR, source, PATH, target, STR, filesystemtype, HEX, mountflags, HEX,
	   data),
	SC(umount2, F, INT, 2, PATH, target, HEX, flags),
	SC(swapon, F, INT, 2, PATH, path, HEX, swapflags),
	SC(swapoff, F, INT, 1, PATH, path),
	SC(reboot, 0, INT, 4, HEX, magic, HEX, magic2, HEX, cmd, HEX, arg),
	/* NAME is LEN bytes, not NUL-terminated */
	SC(sethostname, 0, INT, 2, HEX, name, SIZE, len),
	SC(setdomainname, 0, INT, 2, HEX, name, SIZE, len),
	SC(iopl, 0, INT, 1, INT, level),
	SC(ioperm, 0, INT, 3, HEX, from, HEX, num, INT, turn_on),
	/* gone from the kernel (ENOSYS), still numbered */
	SC(create_module, 0, INT, 2, STR, name, SIZE, size),
	SC(init_module, 0, INT, 3, HEX, module_image, SIZE, len, STR, param_values),
	SC(delete_module, 0, INT, 2, STR, name, HEX, flags),
	SC(get_kernel_syms, 0, INT, 1, HEX, table),
	SC(query_module, 0, INT, 5, STR, name, INT, which, HEX, buf, SIZE, bufsize, HEX, ret),
	SC(quotactl, F, INT, 4, HEX, cmd, PATH, special, INT, id, HEX, addr),
	SC(nfsservctl, 0, INT, 3, INT, cmd, HEX, argp, HEX, resp),
	/* never implemented: the registers, generically */
	SC(getpmsg, N, INT, 5, INT, arg1, HEX, arg2, HEX, arg3, HEX, arg4, HEX, arg5),
	SC(putpmsg, N, INT, 5, INT, arg1, HEX, arg2, HEX, arg3, HEX, arg4, HEX, arg5),
	SC(afs_syscall, 0, INT, 5, HEX, arg1, HEX, arg2, HEX, arg3, HEX, arg4, HEX, arg5),
	SC(tuxcall, 0, INT, 3, HEX, arg1, HEX, arg2, HEX, arg3),
	SC(security, 0, INT, 3, HEX, arg1, HEX, arg2, HEX, arg3),
	SC(gettid, 0, INT, 0),
	SC(readahead, D, INT, 3, FD, fd, OFF, offset, SIZE, count),
	SC(setxattr, F, INT, 5, PATH, path, STR, name, HEX, value, SIZE, size, HEX, flags),
	SC(lsetxattr, F, INT, 5, PATH, path, STR, name, HEX, value, SIZE, size, HEX, flags),
	SC(fsetxattr, D, INT, 5, FD, fd, STR, name, HEX, value, SIZE, size, HEX, flags),
	SC(getxattr, F, INT, 4, PATH, path, STR, name, HEX, value, SIZE, size),
	SC(lgetxattr, F, INT, 4, PATH, path, STR, name, HEX, value, SIZE, size),
	SC(fgetxattr, D, INT, 4, FD, fd, STR, name, HEX, value, SIZE, size),
	SC(listxattr, F, INT, 3, PATH, path, HEX, list, SIZE, size),
	SC(llistxattr, F, INT, 3, PATH, path, HEX, list, SIZE, size),
	SC(flistxattr, D, INT, 3, FD, fd, HEX, list, SIZE, size),
	SC(removexattr, F, INT, 2, PATH, path, STR, name),
	SC(lremovexattr, F, INT, 2, PATH, path, STR, name),
	SC(fremovexattr, D, INT, 2, FD, fd, STR, name),
	SC(tkill, P | S, INT, 2, INT, tid, SIGNAL, sig),
	SC(time, K, INT, 1, HEX, tloc),
	SC(futex, 0, INT, 6, HEX, uaddr, INT, futex_op, INT, val, HEX, timeout, HEX, uaddr2, INT,
	   val3),
	SC(sched_setaffinity, 0, INT, 3, INT, pid, SIZE, cpusetsize, HEX, mask),
	SC(sched_getaffinity, 0, INT, 3, INT, pid, SIZE, cpusetsize, HEX, mask),
	SC(set_thread_area, 0, INT, 1, HEX, u_info),
	SC(io_setup, M, INT, 2, UINT, nr_events, HEX, ctx_idp),
	SC(io_destroy, M, INT, 1, HEX, ctx_id),
	SC(io_getevents, 0, INT, 5, HEX, ctx_id, INT, min_nr, INT, nr, HEX, events, HEX, timeout),
	SC(io_submit, 0, INT, 3, HEX, ctx_id, INT, nr, HEX, iocbpp),
	SC(io_cancel, 0, INT, 3, HEX, ctx_id, HEX, iocb, HEX, result),
	SC(get_thread_area, 0, INT, 1, HEX, u_info),
	SC(lookup_dcookie, 0, INT, 3, HEX, cookie, HEX, buffer, SIZE, len),
	SC(epoll_create, D, FD, 1, INT, size),
	/* never implemented on x86-64 (ENOSYS) */
	SC(epoll_ctl_old, 0, INT, 4, FD, epfd, INT, op, FD, fd, HEX, event),
	SC(epoll_wait_old, 0, INT, 4, FD, epfd, HEX, events, INT, maxevents, INT, timeout),
	SC(remap_file_pages, M, INT, 5, HEX, addr, SIZE, size, PROT, prot, SIZE, pgoff, HEX,
	   flags),
	SC(getdents64, D, INT, 3, FD, fd, HEX, dirp, UINT, count),
	SC(set_tid_address, 0, INT, 1, HEX, tidptr),
	SC(restart_syscall, 0, INT, 0),
	SC(semtimedop, I, INT, 4, INT, semid, HEX, sops, SIZE, nsops, HEX, timeout),
	SC(fadvise64, D, INT, 4, FD, fd, OFF, offset, OFF, len, INT, advice),
	SC(timer_create, 0, INT, 3, INT, clockid, HEX, sevp, HEX, timerid),
	SC(timer_settime, 0, INT, 4, INT, timerid, HEX, flags, HEX, new_value, HEX, old_value),
	SC(timer_gettime, 0, INT, 2, INT, timerid, HEX, curr_value),
	SC(timer_getoverrun, 0, INT, 1, INT, timerid),
	SC(timer_delete, 0, INT, 1, INT, timerid),
	SC(clock_settime, K, INT, 2, INT, clockid, HEX, tp),
	SC(clock_gettime, K, INT, 2, INT, clockid, HEX, tp),
	SC(clock_getres, K, INT, 2, INT, clockid, HEX, res),
	SC(clock_nanosleep, 0, INT, 4, INT, clockid, HEX, flags, HEX, request, HEX, remain),
	SC(exit_group, P, NONE, 1, INT, status),
	SC(epoll_wait, D, INT, 4, FD, epfd, HEX, events, INT, maxevents, INT, timeout),
	SC(epoll_ctl, D, INT, 4, FD, epfd, INT, op, FD, fd, HEX, event),
	SC(tgkill, P | S, INT, 3, INT, tgid, INT, tid, SIGNAL, sig),
	SC(utimes, F, INT, 2, PATH, filename, HEX, times),
	SC(vserver, 0, INT, 5, HEX, arg1, HEX, arg2, HEX, arg3, HEX, arg4, HEX, arg5),
	SC(mbind, M, INT, 6, HEX, addr, SIZE, len, INT, mode, HEX, nodemask, UINT, maxnode, HEX,
	   flags),
	SC(set_mempolicy, M, INT, 3, INT, mode, HEX, nodemask, UINT, maxnode),
	SC(get_mempolicy, M, INT, 5, HEX, mode, HEX, nodemask, UINT, maxnode, HEX, addr, HEX,
	   flags),
	SC(mq_open, D, FD, 4, STR, name, OPEN_FLAGS, oflag, MODE, mode, HEX, attr),
	SC(mq_unlink, 0, INT, 1, STR, name),
	SC(mq_timedsend, D, INT, 5, FD, mqdes, HEX, msg_ptr, SIZE, msg_len, UINT, msg_prio, HEX,
	   abs_timeout),
	SC(mq_timedreceive, D, INT, 5, FD, mqdes, HEX, msg_ptr, SIZE, msg_len, HEX, msg_prio, HEX,
	   abs_timeout),
	SC(mq_notify, D, INT, 2, FD, mqdes, HEX, sevp),
	SC(mq_getsetattr, D, INT, 3, FD, mqdes, HEX, newattr, HEX, oldattr),
	SC(kexec_load, 0, INT, 4, HEX, entry, UINT, nr_segments, HEX, segments, HEX, flags),
	SC(waitid, P, INT, 5, INT, idtype, INT, id, HEX, infop, HEX, options, HEX, rusage),
	SC(add_key, 0, INT, 5, STR, type, STR, description, HEX, payload, SIZE, plen, INT,
	   keyring),
	SC(request_key, 0, INT, 4, STR, type, STR, description, STR, callout_info, INT,
	   dest_keyring),
	SC(keyctl, 0, INT, 5, INT, operation, HEX, arg2, HEX, arg3, HEX, arg4, HEX, arg5),
	SC(ioprio_set, 0, INT, 3, INT, which, INT, who, INT, ioprio),
	SC(ioprio_get, 0, INT, 2, INT, which, INT, who),
	SC(inotify_init, D, FD, 0),
	SC(inotify_add_watch, F | D, INT, 3, FD, fd, PATH, pathname, HEX, mask),
	SC(inotify_rm_watch, D, INT, 2, FD, fd, INT, wd),
	SC(migrate_pages, M, INT, 4, INT, pid, UINT, maxnode, HEX, old_nodes, HEX, new_nodes),
	SC(openat, F | D, FD, 4, DIRFD, dirfd, PATH, pathname, OPEN_FLAGS, flags, MODE, mode),
	SC(mkdirat, F | D, INT, 3, DIRFD, dirfd, PATH, pathname, MODE, mode),
	SC(mknodat, F | D, INT, 4, DIRFD, dirfd, PATH, pathname, MODE, mode, HEX, dev),
	SC(fchownat, F | D, INT, 5, DIRFD, dirfd, PATH, pathname, INT, owner, INT, group,
	   AT_FLAGS, flags),
	SC(futimesat, F | D, INT, 3, DIRFD, dirfd, PATH, pathname, HEX, times),
	SC(newfstatat, F | D, INT, 4, DIRFD, dirfd, PATH, pathname, HEX, statbuf, AT_FLAGS, flags),
	SC(unlinkat, F | D, INT, 3, DIRFD, dirfd, PATH, pathname, AT_FLAGS, flags),
	SC(renameat, F | D, INT, 4, DIRFD, olddirfd, PATH, oldpath, DIRFD, newdirfd, PATH,
	   newpath),
	SC(linkat, F | D, INT, 5, DIRFD, olddirfd, PATH, oldpath, DIRFD, newdirfd, PATH, newpath,
	   AT_FLAGS, flags),
	SC(symlinkat, F | D, INT, 3, PATH, target, DIRFD, newdirfd, PATH, linkpath),
	SC(readlinkat, F | D, INT, 4, DIRFD, dirfd, PATH, pathname, HEX, buf, SIZE, bufsiz),
	/* The kernel's fchmodat and faccessat take no flags (the libc wrappers do). */
	SC(fchmodat, F | D, INT, 3, DIRFD, dirfd, PATH, pathname, MODE, mode),
	SC(faccessat, F | D, INT, 3, DIRFD, dirfd, PATH, pathname, INT, mode),
	SC(pselect6, D, INT, 6, INT, nfds, HEX, readfds, HEX, writefds, HEX, exceptfds, HEX,
	   timeout, HEX, sigmask),
	SC(ppoll, D, INT, 5, HEX, fds, UINT, nfds, HEX, tmo_p, HEX, sigmask, SIZE, sigsetsize),
	SC(unshare, 0, INT, 1, CLONE_FLAGS, flags),
	SC(set_robust_list, 0, INT, 2, HEX, head, SIZE, len),
	SC(get_robust_list, 0, INT, 3, INT, pid, HEX, head_ptr, HEX, len_ptr),
	SC(splice, D, INT, 6, FD, fd_in, HEX, off_in, FD, fd_out, HEX, off_out, SIZE, len, HEX,
	   flags),
	SC(tee, D, INT, 4, FD, fd_in, FD, fd_out, SIZE, len, HEX, flags),
	SC(sync_file_range, D, INT, 4, FD, fd, OFF, offset, OFF, nbytes, HEX, flags),
	SC(vmsplice, D, INT, 4, FD, fd, HEX, iov, SIZE, nr_segs, HEX, flags),
	SC(move_pages, M, INT, 6, INT, pid, SIZE, count, HEX, pages, HEX, nodes, HEX, status, HEX,
	   flags),
	SC(utimensat, F | D, INT, 4, DIRFD, dirfd, PATH, pathname, HEX, times, AT_FLAGS, flags),
	SC(epoll_pwait, D, INT, 6, FD, epfd, HEX, events, INT, maxevents, INT, timeout, HEX,
	   sigmask, SIZE, sigsetsize),
	SC(signalfd, D | S, FD, 3, FD, fd, HEX, mask, SIZE, sizemask),
	SC(timerfd_create, D, FD, 2, INT, clockid, HEX, flags),
	SC(eventfd, D, FD, 1, UINT, initval),
	SC(fallocate, D, INT, 4, FD, fd, HEX, mode, OFF, offset, OFF, len),
	SC(timerfd_settime, D, INT, 4, FD, fd, HEX, flags, HEX, new_value, HEX, old_value),
	SC(timerfd_gettime, D, INT, 2, FD, fd, HEX, curr_value),
	/* FLAGS here and below are SOCK_NONBLOCK|SOCK_CLOEXEC or O_CLOEXEC alone: hex */
	SC(accept4, N, FD, 4, FD, sockfd, HEX, addr, HEX, addrlen, HEX, flags),
	SC(signalfd4, D | S, FD, 4, FD, fd, HEX, mask, SIZE, sizemask, HEX, flags),
	SC(eventfd2, D, FD, 2, UINT, initval, HEX, flags),
	SC(epoll_create1, D, FD, 1, HEX, flags),
	SC(dup3, D, FD, 3, FD, oldfd, FD, newfd, HEX, flags),
	SC(pipe2, D, INT, 2, HEX, pipefd, HEX, flags),
	SC(inotify_init1, D, FD, 1, HEX, flags),
	/*
	 * The kernel's preadv family takes the offset in two registers, low
	 * and high (pos_h is unused on 64-bit: the whole offset is in pos_l),
	 * so preadv2's flags are the sixth register, not the fifth.
	 */
	SC(preadv, D, INT, 4, FD, fd, HEX, iov, INT, iovcnt, OFF, offset),
	SC(pwritev, D, INT, 4, FD, fd, HEX, iov, INT, iovcnt, OFF, offset),
	SC(rt_tgsigqueueinfo, P | S, INT, 4, INT, tgid, INT, tid, SIGNAL, sig, HEX, info),
	SC(perf_event_open, D, FD, 5, HEX, attr, INT, pid, INT, cpu, FD, group_fd, HEX, flags),
	SC(recvmmsg, N, INT, 5, FD, sockfd, HEX, msgvec, UINT, vlen, HEX, flags, HEX, timeout),
	SC(fanotify_init, D, FD, 2, HEX, flags, OPEN_FLAGS, event_f_flags),
	SC(fanotify_mark, F | D, INT, 5, FD, fanotify_fd, HEX, flags, HEX, mask, DIRFD, dirfd,
	   PATH, pathname),
	SC(prlimit64, 0, INT, 4, INT, pid, INT, resource, HEX, new_limit, HEX, old_limit),
	SC(name_to_handle_at, F | D, INT, 5, DIRFD, dirfd, PATH, pathname, HEX, handle, HEX,
	   mount_id, AT_FLAGS, flags),
	SC(open_by_handle_at, D, FD, 3, FD, mount_fd, HEX, handle, OPEN_FLAGS, flags),
	SC(clock_adjtime, K, INT, 2, INT, clk_id, HEX, buf),
	SC(syncfs, D, INT, 1, FD, fd),
	SC(sendmmsg, N, INT, 4, FD, sockfd, HEX, msgvec, UINT, vlen, HEX, flags),
	SC(setns, D, INT, 2, FD, fd, CLONE_FLAGS, nstype),
	SC(getcpu, 0, INT, 3, HEX, cpu, HEX, node, HEX, tcache),
	SC(process_vm_readv, 0, INT, 6, INT, pid, HEX, local_iov, UINT, liovcnt, HEX, remote_iov,
	   UINT, riovcnt, HEX, flags),
	SC(process_vm_writev, 0, INT, 6, INT, pid, HEX, local_iov, UINT, liovcnt, HEX, remote_iov,
	   UINT, riovcnt, HEX, flags),
	SC(kcmp, 0, INT, 5, INT, pid1, INT, pid2, INT, type, HEX, idx1, HEX, idx2),
	SC(finit_module, D, INT, 3, FD, fd, STR, param_values, HEX, flags),
	SC(sched_setattr, 0, INT, 3, INT, pid, HEX, attr, HEX, flags),
	SC(sched_getattr, 0, INT, 4, INT, pid, HEX, attr, UINT, size, HEX, flags),
	SC(renameat2, F | D, INT, 5, DIRFD, olddirfd, PATH, oldpath, DIRFD, newdirfd, PATH,
	   newpath, HEX, flags),
	SC(seccomp, 0, INT, 3, UINT, operation, HEX, flags, HEX, args),
	SC(getrandom, 0, INT, 3, HEX, buf, SIZE, buflen, HEX, flags),
	SC(memfd_create, D, FD, 2, STR, name, HEX, flags),
	SC(kexec_file_load, D, INT, 5, FD, kernel_fd, FD, initrd_fd, SIZE, cmdline_len, STR,
	   cmdline, HEX, flags),
	SC(bpf, D, INT, 3, INT, cmd, HEX, attr, UINT, size),
	SC(execveat, F | D | P, NONE, 5, DIRFD, dirfd, PATH, pathname, HEX, argv, HEX, envp,
	   AT_FLAGS, flags),
	SC(userfaultfd, D, FD, 1, HEX, flags),
	SC(membarrier, 0, INT, 3, INT, cmd, HEX, flags, INT, cpu_id),
	SC(mlock2, M, INT, 3, HEX, addr, SIZE, len, HEX, flags),
	SC(copy_file_range, D, INT, 6, FD, fd_in, HEX, off_in, FD, fd_out, HEX, off_out, SIZE, len,
	   HEX, flags),
	SC(preadv2, D, INT, 6, FD, fd, HEX, iov, INT, iovcnt, OFF, offset, HEX, pos_h, HEX, flags),
	SC(pwritev2, D, INT, 6, FD, fd, HEX, iov, INT, iovcnt, OFF, offset, HEX, pos_h, HEX, flags),
	SC(pkey_mprotect, M, INT, 4, HEX, addr, SIZE, len, PROT, prot, INT, pkey),
	SC(pkey_alloc, 0, INT, 2, HEX, flags, HEX, access_rights),
	SC(pkey_free, 0, INT, 1, INT, pkey),
	SC(statx, F | D, INT, 5, DIRFD, dirfd, PATH, pathname, AT_FLAGS, flags, HEX, mask, HEX,
	   statxbuf),
	SC(io_pgetevents, 0, INT, 6, HEX, ctx_id, INT, min_nr, INT, nr, HEX, events, HEX, timeout,
	   HEX, usig),
	SC(rseq, 0, INT, 4, HEX, rseq, UINT, rseq_len, HEX, flags, HEX, sig),
	/* 335..423 are unused on x86-64: the numbers shared by all ABIs start at 424 */
	SC(pidfd_send_signal, D | S | P, INT, 4, FD, pidfd, SIGNAL, sig, HEX, info, HEX, flags),
	SC(io_uring_setup, D, FD, 2, UINT, entries, HEX, p),
	/* strace: io_uring_enter takes a signal mask, io_uring_register pins memory */
	SC(io_uring_enter, D | S, INT, 6, FD, fd, UINT, to_submit, UINT, min_complete, HEX, flags,
	   HEX, sig, SIZE, sz),
	SC(io_uring_register, D | M, INT, 4, FD, fd, UINT, opcode, HEX, arg, UINT, nr_args),
	SC(open_tree, F | D, FD, 3, DIRFD, dirfd, PATH, path, HEX, flags),
	SC(move_mount, F | D, INT, 5, DIRFD, from_dirfd, PATH, from_path, DIRFD, to_dirfd, PATH,
	   to_path, HEX, flags),
	SC(fsopen, D, FD, 2, STR, fsname, HEX, flags),
	SC(fsconfig, F | D, INT, 5, FD, fd, UINT, cmd, STR, key, HEX, value, INT, aux),
	SC(fsmount, D, FD, 3, FD, fd, HEX, flags, HEX, attr_flags),
	SC(fspick, F | D, FD, 3, DIRFD, dirfd, PATH, path, HEX, flags),
	SC(pidfd_open, D, FD, 2, INT, pid, HEX, flags),
	SC(clone3, P, INT, 2, HEX, cl_args, SIZE, size),
	/*
	 * FIRST and LAST bound a range of fds (LAST is often ~0U): numbers.  In
	 * %desc although strace 6.1 leaves it out.
	 */
	SC(close_range, D, INT, 3, UINT, first, UINT, last, HEX, flags),
	SC(openat2, F | D, FD, 4, DIRFD, dirfd, PATH, pathname, HEX, how, SIZE, size),
	SC(pidfd_getfd, D, FD, 3, FD, pidfd, INT, targetfd, HEX, flags),
	/* FLAGS can hold AT_EACCESS, which shares 0x200 with AT_REMOVEDIR: hex */
	SC(faccessat2, F | D, INT, 4, DIRFD, dirfd, PATH, pathname, INT, mode, HEX, flags),
	SC(process_madvise, D, INT, 5, FD, pidfd, HEX, iovec, SIZE, vlen, INT, advice, HEX, flags),
	SC(epoll_pwait2, D, INT, 6, FD, epfd, HEX, events, INT, maxevents, HEX, timeout, HEX,
	   sigmask, SIZE, sigsetsize),
	SC(mount_setattr, F | D, INT, 5, DIRFD, dirfd, PATH, pathname, AT_FLAGS, flags, HEX, attr,
	   SIZE, size),
	SC(quotactl_fd, D, INT, 4, FD, fd, HEX, cmd, INT, id, HEX, addr),
	SC(landlock_create_ruleset, D, FD, 3, HEX, attr, SIZE, size, HEX, flags),
	SC(landlock_add_rule, D, INT, 4, FD, ruleset_fd, INT, rule_type, HEX, rule_attr, HEX,
	   flags),
	SC(landlock_restrict_self, D, INT, 2, FD, ruleset_fd, HEX, flags),
	SC(memfd_secret, D, FD, 1, HEX, flags),
	SC(process_mrelease, D, INT, 2, FD, pidfd, HEX, flags),
	SC(futex_waitv, 0, INT, 5, HEX, waiters, UINT, nr_futexes, HEX, flags, HEX, timeout, INT,
	   clockid),
	SC(set_mempolicy_home_node, M, INT, 4, HEX, start, SIZE, len, INT, home_node, HEX, flags),
	/* Newer than this machine's headers when written: in only where they are known. */
#ifdef SYS_cachestat
	SC(cachestat, D, INT, 4, FD, fd, HEX, cstat_range, HEX, cstat, HEX, flags),
#endif
#ifdef SYS_fchmodat2
	SC(fchmodat2, F | D, INT, 4, DIRFD, dirfd, PATH, pathname, MODE, mode, AT_FLAGS, flags),
#endif
#ifdef SYS_map_shadow_stack
	SC(map_shadow_stack, M, HEX, 3, HEX, addr, SIZE, size, HEX, flags),
#endif
#ifdef SYS_futex_wake
	SC(futex_wake, 0, INT, 4, HEX, uaddr, HEX, mask, INT, nr, HEX, flags),
#endif
#ifdef SYS_futex_wait
	SC(futex_wait, 0, INT, 6, HEX, uaddr, HEX, val, HEX, mask, HEX, flags, HEX, timeout, INT,
	   clockid),
#endif
#ifdef SYS_futex_requeue
	SC(futex_requeue, 0, INT, 4, HEX, waiters, HEX, flags, INT, nr_wake, INT, nr_requeue),
#endif
#ifdef SYS_statmount
	SC(statmount, 0, INT, 4, HEX, req, HEX, buf, SIZE, bufsize, HEX, flags),
#endif
#ifdef SYS_listmount
	SC(listmount, 0, INT, 4, HEX, req, HEX, mnt_ids, SIZE, nr_mnt_ids, HEX, flags),
#endif
#ifdef SYS_lsm_get_self_attr
	SC(lsm_get_self_attr, 0, INT, 4, UINT, attr, HEX, ctx, HEX, size, HEX, flags),
#endif
#ifdef SYS_lsm_set_self_attr
	SC(lsm_set_self_attr, 0, INT, 4, UINT, attr, HEX, ctx, SIZE, size, HEX, flags),
#endif
#ifdef SYS_lsm_list_modules
	SC(lsm_list_modules, 0, INT, 3, HEX, ids, HEX, size, HEX, flags),
#endif
#ifdef SYS_mseal
	SC(mseal, M, INT, 3, HEX, addr, SIZE, len, HEX, flags),
#endif
#ifdef SYS_setxattrat
	SC(setxattrat, F | D, INT, 6, DIRFD, dirfd, PATH, pathname, AT_FLAGS, at_flags, STR, name,
	   HEX, uargs, SIZE, usize),
#endif
#ifdef SYS_getxattrat
	SC(getxattrat, F | D, INT, 6, DIRFD, dirfd, PATH, pathname, AT_FLAGS, at_flags, STR, name,
	   HEX, uargs, SIZE, usize),
#endif
#ifdef SYS_listxattrat
	SC(listxattrat, F | D, INT, 5, DIRFD, dirfd, PATH, pathname, AT_FLAGS, at_flags, HEX, list,
	   SIZE, size),
#endif
#ifdef SYS_removexattrat
	SC(removexattrat, F | D, INT, 4, DIRFD, dirfd, PATH, pathname, AT_FLAGS, at_flags, STR,
	   name),
#endif
#ifdef SYS_open_tree_attr
	SC(open_tree_attr, F | D, FD, 5, DIRFD, dirfd, PATH, path, HEX, flags, HEX, uattr, SIZE,
	   usize),
#endif
#ifdef SYS_file_getattr
	SC(file_getattr, F | D, INT, 5, DIRFD, dirfd, PATH, path, HEX, ufattr, SIZE, usize,
	   AT_FLAGS, at_flags),
#endif
#ifdef SYS_file_setattr
	SC(file_setattr, F | D, INT, 5, DIRFD, dirfd, PATH, path, HEX, ufattr, SIZE, usize,
	   AT_FLAGS, at_flags),
#endif
};

#undef F
#undef D
#undef N
#undef M
#undef P
#undef S
#undef I
#undef C
#undef K

const struct sc_desc *arch_sc_table(size_t *n)
{
	*n = ARRAY_SIZE(x86_64_sc_table);
	return x86_64_sc_table;
}

/*
 * Other names for calls of this ABI, each naming exactly one: the libc
 * names of calls the kernel suffixes or renames ("pread" is pread64, fstatat
 * is newfstatat, umount is umount2 without flags, posix_fadvise and prlimit
 * are the 64-bit calls).  strace 6.1 itself takes none of these; the extra
 * names it takes (stat64, mmap2, _newselect) are calls of its other ABIs,
 * i386 and x32, which are different calls with other numbers: not here.
 */
static const struct sc_alias x86_64_sc_aliases[] = {
	{ "pread", "pread64" },
	{ "pwrite", "pwrite64" },
	{ "fstatat", "newfstatat" },
	{ "posix_fadvise", "fadvise64" },
	{ "prlimit", "prlimit64" },
	{ "umount", "umount2" },
};

const struct sc_alias *arch_sc_aliases(size_t *n)
{
	*n = ARRAY_SIZE(x86_64_sc_aliases);
	return x86_64_sc_aliases;
}

/*
 * The kernel's O_LARGEFILE on x86-64: asm-generic/fcntl.h's (arm64 has its
 * own, 0400000).  glibc defines O_LARGEFILE as 0 on 64-bit ABIs.
 */
const uint32_t arch_o_largefile = 0100000;
