/* arch/common/scvalues.c: the names of the values system calls take, as
 * `ptap record --syscalls` prints them (O_*, PROT_*, MAP_*, AT_*, signals,
 * CLONE_*, AF_*, SOCK_*, F_*, SEEK_*) and of errno values.  The same on
 * every Linux architecture: the values come from the build machine's
 * headers, which are the native ABI's; what libc does not give is the
 * asm-generic value (x86-64 and arm64 alike), or per architecture
 * (arch_o_largefile).  Pure: no ptrace, no allocation. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>

#include "arch/sctable.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* ---- symbolic arguments -------------------------------------------------- */

/*
 * Values the kernel ABI has and this libc's headers may lack: asm-generic's
 * (include/uapi/asm-generic/mman-common.h, hugetlb_encode.h, linux/fcntl.h),
 * which x86-64 and arm64 share; not every architecture does (mips, sparc,
 * alpha, parisc have other MAP_* values), where the headers' own would be
 * needed.  O_LARGEFILE differs even between x86-64 and arm64, and libc
 * defines it as 0 on 64-bit: each architecture gives it (arch_o_largefile).
 */
#ifndef PROT_SEM
#define PROT_SEM		0x8
#endif
#ifndef MAP_UNINITIALIZED
#define MAP_UNINITIALIZED	0x4000000
#endif
#ifndef MAP_HUGE_SHIFT
#define MAP_HUGE_SHIFT		26
#endif
#ifndef MAP_HUGE_MASK
#define MAP_HUGE_MASK		0x3f
#endif
#ifndef F_GETOWNER_UIDS
#define F_GETOWNER_UIDS		17
#endif
#ifndef AT_RECURSIVE
#define AT_RECURSIVE		0x8000
#endif

/* Where sc_format() writes: FULL once something did not fit. */
struct sc_out {
	char *buf;
	size_t len, pos;
	int full;
};

static void __attribute__((format(printf, 2, 3))) out_fmt(struct sc_out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (o->full)
		return;
	va_start(ap, fmt);
	n = vsnprintf(o->buf + o->pos, o->len - o->pos, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= o->len - o->pos)
		o->full = 1;
	else
		o->pos += n;
}

/* A '|' before every name but the first. */
static void out_name(struct sc_out *o, const char *name)
{
	out_fmt(o, "%s%s", o->pos ? "|" : "", name);
}

/* Bits no name covered, in hex ("O_RDONLY|0x40000000", or "0x40000000" alone). */
static void out_rest(struct sc_out *o, uint64_t rest)
{
	if (rest)
		out_fmt(o, "%s%#llx", o->pos ? "|" : "", (unsigned long long)rest);
}

struct sc_flag {
	uint64_t mask;
	const char *name;
};

#define FLAG(x)	{ (x), #x }

/*
 * The names of FLAGS (N <= 64 entries, printed in table order) set in V;
 * returns the bits none covered.  A name of several bits matches only when
 * all are set, and is tried before the single bits, so that O_SYNC takes
 * O_DSYNC's bit along with its own and O_TMPFILE takes O_DIRECTORY's.
 */
static uint64_t out_flags(struct sc_out *o, const struct sc_flag *flags, size_t n, uint64_t v)
{
	uint64_t hit = 0;
	int multi;
	size_t i;

	for (multi = 1; multi >= 0; multi--) {
		for (i = 0; i < n; i++) {
			uint64_t m = flags[i].mask;

			if ((__builtin_popcountll(m) > 1) == multi && m && (v & m) == m) {
				hit |= 1ULL << i;
				v &= ~m;
			}
		}
	}
	for (i = 0; i < n; i++)
		if (hit & (1ULL << i))
			out_name(o, flags[i].name);
	return v;
}

/*
 * O_ACCMODE itself (3) is "no read, no write, ioctl only" to the kernel.
 * The flags are printed in this order (x86-64's bit order); on the stack,
 * since arch_o_largefile is no constant.
 */
static void fmt_open_flags(struct sc_out *o, uint32_t v)
{
	static const char *const acc[] = { "O_RDONLY", "O_WRONLY", "O_RDWR", "O_ACCMODE" };
	const struct sc_flag open_flags[] = {
		FLAG(O_CREAT), FLAG(O_EXCL), FLAG(O_NOCTTY), FLAG(O_TRUNC), FLAG(O_APPEND),
		FLAG(O_NONBLOCK), FLAG(O_DSYNC), FLAG(O_ASYNC), FLAG(O_DIRECT),
		{ arch_o_largefile, "O_LARGEFILE" }, FLAG(O_DIRECTORY), FLAG(O_NOFOLLOW),
		FLAG(O_NOATIME), FLAG(O_CLOEXEC), FLAG(O_SYNC), FLAG(O_PATH), FLAG(O_TMPFILE),
	};

	out_name(o, acc[v & O_ACCMODE]);
	out_rest(o, out_flags(o, open_flags, ARRAY_SIZE(open_flags), v & ~(uint32_t)O_ACCMODE));
}

static const struct sc_flag prot_flags[] = {
	FLAG(PROT_READ), FLAG(PROT_WRITE), FLAG(PROT_EXEC), FLAG(PROT_SEM),
	FLAG(PROT_GROWSDOWN), FLAG(PROT_GROWSUP),
};

static const struct sc_flag map_flags[] = {
	FLAG(MAP_FIXED), FLAG(MAP_ANONYMOUS),
#ifdef MAP_32BIT
	FLAG(MAP_32BIT),	/* x86-64 only */
#endif
	FLAG(MAP_GROWSDOWN),
	FLAG(MAP_DENYWRITE), FLAG(MAP_EXECUTABLE), FLAG(MAP_LOCKED), FLAG(MAP_NORESERVE),
	FLAG(MAP_POPULATE), FLAG(MAP_NONBLOCK), FLAG(MAP_STACK), FLAG(MAP_HUGETLB),
	FLAG(MAP_SYNC), FLAG(MAP_FIXED_NOREPLACE),
};

/*
 * The mapping type (the low 4 bits, one value), then the flags.  With
 * MAP_HUGETLB, bits 26..31 are log2 of the huge page size (mmap(2)), shown
 * as "21<<MAP_HUGE_SHIFT"; without, bit 26 is MAP_UNINITIALIZED.
 */
static void fmt_map_flags(struct sc_out *o, uint64_t v)
{
	static const char *const type[] = { NULL, "MAP_SHARED", "MAP_PRIVATE",
					    "MAP_SHARED_VALIDATE" };
	uint64_t t = v & 0xf, huge = 0;

	if (t < ARRAY_SIZE(type) && type[t]) {
		out_name(o, type[t]);
		v &= ~t;
	}
	if (v & MAP_HUGETLB) {
		huge = (v >> MAP_HUGE_SHIFT) & MAP_HUGE_MASK;
		v &= ~((uint64_t)MAP_HUGE_MASK << MAP_HUGE_SHIFT);
	} else if (v & MAP_UNINITIALIZED) {
		v &= ~(uint64_t)MAP_UNINITIALIZED;
		v = out_flags(o, map_flags, ARRAY_SIZE(map_flags), v);
		out_name(o, "MAP_UNINITIALIZED");
		out_rest(o, v);
		return;
	}
	v = out_flags(o, map_flags, ARRAY_SIZE(map_flags), v);
	if (huge)
		out_fmt(o, "|%llu<<MAP_HUGE_SHIFT", (unsigned long long)huge);
	out_rest(o, v);
}

static const struct sc_flag at_flags[] = {
	FLAG(AT_SYMLINK_NOFOLLOW), FLAG(AT_REMOVEDIR), FLAG(AT_SYMLINK_FOLLOW),
	FLAG(AT_NO_AUTOMOUNT), FLAG(AT_EMPTY_PATH), FLAG(AT_STATX_FORCE_SYNC),
	FLAG(AT_STATX_DONT_SYNC), FLAG(AT_RECURSIVE),
};

/*
 * Signal names by number, 1..31 (the real-time ones are computed); the
 * numbers are the headers' (mips, sparc, alpha and parisc number them
 * differently from x86-64 and arm64, and have no SIGSTKFLT).
 */
#define SIG(x)	[x] = #x
static const char *const signal_names[] = {
	SIG(SIGHUP), SIG(SIGINT), SIG(SIGQUIT), SIG(SIGILL), SIG(SIGTRAP), SIG(SIGABRT),
	SIG(SIGBUS), SIG(SIGFPE), SIG(SIGKILL), SIG(SIGUSR1), SIG(SIGSEGV), SIG(SIGUSR2),
	SIG(SIGPIPE), SIG(SIGALRM), SIG(SIGTERM), SIG(SIGCHLD), SIG(SIGCONT), SIG(SIGSTOP),
	SIG(SIGTSTP), SIG(SIGTTIN), SIG(SIGTTOU), SIG(SIGURG), SIG(SIGXCPU), SIG(SIGXFSZ),
	SIG(SIGVTALRM), SIG(SIGPROF), SIG(SIGWINCH), SIG(SIGIO), SIG(SIGPWR), SIG(SIGSYS),
#ifdef SIGSTKFLT
	SIG(SIGSTKFLT),
#endif
};

/*
 * The kernel's real-time signals are 32..64 (glibc keeps 32 and 33 for
 * itself) on x86-64, arm64 and the other asm-generic ABIs; mips has 128
 * signals (_NSIG), where the upper bound would be per architecture.
 */
#define SC_SIGRTMIN	32
#define SC_SIGRTMAX	64

/*
 * SIG's name: "SIGTERM"; a real-time one relative to the kernel's first,
 * "SIGRTMIN" (32) and "SIGRTMIN+3" (35; glibc's SIGRTMIN is 34).  0 when
 * SIG has none (0 included: kill(pid, 0) is a probe, not a signal).
 */
static int fmt_signal(struct sc_out *o, int sig)
{
	if (sig > 0 && (size_t)sig < ARRAY_SIZE(signal_names) && signal_names[sig])
		out_name(o, signal_names[sig]);
	else if (sig == SC_SIGRTMIN)
		out_name(o, "SIGRTMIN");
	else if (sig > SC_SIGRTMIN && sig <= SC_SIGRTMAX)
		out_fmt(o, "%sSIGRTMIN+%d", o->pos ? "|" : "", sig - SC_SIGRTMIN);
	else
		return 0;
	return 1;
}

static const struct sc_flag clone_flags[] = {
	FLAG(CLONE_VM), FLAG(CLONE_FS), FLAG(CLONE_FILES), FLAG(CLONE_SIGHAND),
	FLAG(CLONE_PIDFD), FLAG(CLONE_PTRACE), FLAG(CLONE_VFORK), FLAG(CLONE_PARENT),
	FLAG(CLONE_THREAD), FLAG(CLONE_NEWNS), FLAG(CLONE_SYSVSEM), FLAG(CLONE_SETTLS),
	FLAG(CLONE_PARENT_SETTID), FLAG(CLONE_CHILD_CLEARTID), FLAG(CLONE_DETACHED),
	FLAG(CLONE_UNTRACED), FLAG(CLONE_CHILD_SETTID), FLAG(CLONE_NEWCGROUP),
	FLAG(CLONE_NEWUTS), FLAG(CLONE_NEWIPC), FLAG(CLONE_NEWUSER), FLAG(CLONE_NEWPID),
	FLAG(CLONE_NEWNET), FLAG(CLONE_IO),
};

/*
 * clone(2)'s flags, then the signal sent to the parent at the child's exit,
 * which is the low byte (CSIGNAL): "CLONE_VM|CLONE_VFORK|SIGCHLD".  A low
 * byte that is no signal stays in the hex rest (unshare's CLONE_NEWTIME,
 * 0x80, lives there too).
 */
static void fmt_clone_flags(struct sc_out *o, uint64_t v)
{
	int sig = v & CSIGNAL;

	v = out_flags(o, clone_flags, ARRAY_SIZE(clone_flags), v & ~(uint64_t)CSIGNAL);
	if (sig && !fmt_signal(o, sig))
		v |= sig;
	out_rest(o, v);
}

#define AF(x)	[x] = #x
static const char *const af_names[] = {
	AF(AF_UNSPEC), AF(AF_UNIX), AF(AF_INET), AF(AF_AX25), AF(AF_IPX), AF(AF_APPLETALK),
	AF(AF_NETROM), AF(AF_BRIDGE), AF(AF_ATMPVC), AF(AF_X25), AF(AF_INET6), AF(AF_ROSE),
	AF(AF_DECnet), AF(AF_NETBEUI), AF(AF_SECURITY), AF(AF_KEY), AF(AF_NETLINK),
	AF(AF_PACKET), AF(AF_ASH), AF(AF_ECONET), AF(AF_ATMSVC), AF(AF_RDS), AF(AF_SNA),
	AF(AF_IRDA), AF(AF_PPPOX), AF(AF_WANPIPE), AF(AF_LLC), AF(AF_IB), AF(AF_MPLS),
	AF(AF_CAN), AF(AF_TIPC), AF(AF_BLUETOOTH), AF(AF_IUCV), AF(AF_RXRPC), AF(AF_ISDN),
	AF(AF_PHONET), AF(AF_IEEE802154), AF(AF_CAIF), AF(AF_ALG), AF(AF_NFC), AF(AF_VSOCK),
	AF(AF_KCM), AF(AF_QIPCRTR), AF(AF_SMC), AF(AF_XDP),
#ifdef AF_MCTP
	AF(AF_MCTP),
#endif
};

/* socket(2)'s type: one of the types (the low 4 bits), then SOCK_NONBLOCK, SOCK_CLOEXEC. */
static void fmt_sock_type(struct sc_out *o, uint32_t v)
{
	static const char *const type[] = {
		[SOCK_STREAM] = "SOCK_STREAM", [SOCK_DGRAM] = "SOCK_DGRAM",
		[SOCK_RAW] = "SOCK_RAW", [SOCK_RDM] = "SOCK_RDM",
		[SOCK_SEQPACKET] = "SOCK_SEQPACKET", [SOCK_DCCP] = "SOCK_DCCP",
		[SOCK_PACKET] = "SOCK_PACKET",
	};
	static const struct sc_flag flags[] = { FLAG(SOCK_NONBLOCK), FLAG(SOCK_CLOEXEC) };
	uint32_t t = v & 0xf;

	if (t < ARRAY_SIZE(type) && type[t]) {
		out_name(o, type[t]);
		v &= ~t;
	}
	out_rest(o, out_flags(o, flags, ARRAY_SIZE(flags), v));
}

static const struct {
	unsigned int cmd;
	const char *name;
} fcntl_cmds[] = {
	FLAG(F_DUPFD), FLAG(F_GETFD), FLAG(F_SETFD), FLAG(F_GETFL), FLAG(F_SETFL),
	FLAG(F_GETLK), FLAG(F_SETLK), FLAG(F_SETLKW), FLAG(F_SETOWN), FLAG(F_GETOWN),
	FLAG(F_SETSIG), FLAG(F_GETSIG), FLAG(F_SETOWN_EX), FLAG(F_GETOWN_EX),
	FLAG(F_GETOWNER_UIDS), FLAG(F_OFD_GETLK), FLAG(F_OFD_SETLK), FLAG(F_OFD_SETLKW),
	FLAG(F_SETLEASE), FLAG(F_GETLEASE), FLAG(F_NOTIFY), FLAG(F_DUPFD_CLOEXEC),
	FLAG(F_SETPIPE_SZ), FLAG(F_GETPIPE_SZ), FLAG(F_ADD_SEALS), FLAG(F_GET_SEALS),
	FLAG(F_GET_RW_HINT), FLAG(F_SET_RW_HINT), FLAG(F_GET_FILE_RW_HINT),
	FLAG(F_SET_FILE_RW_HINT),
};

/*
 * One value's name out of a table (SEEK_*, F_*, AF_*), or 0.  The kernel
 * reads these as int or unsigned int: the upper half of the register is not
 * looked at.
 */
static int fmt_enum(struct sc_out *o, unsigned int kind, uint32_t v)
{
	static const char *const whence[] = { "SEEK_SET", "SEEK_CUR", "SEEK_END", "SEEK_DATA",
					      "SEEK_HOLE" };
	size_t i;

	switch (kind) {
	case SA_WHENCE:
		if (v >= ARRAY_SIZE(whence))
			return 0;
		out_name(o, whence[v]);
		return 1;
	case SA_SOCK_DOMAIN:
		if (v >= ARRAY_SIZE(af_names) || !af_names[v])
			return 0;
		out_name(o, af_names[v]);
		return 1;
	case SA_FCNTL_CMD:
		for (i = 0; i < ARRAY_SIZE(fcntl_cmds); i++) {
			if (fcntl_cmds[i].cmd == v) {
				out_name(o, fcntl_cmds[i].name);
				return 1;
			}
		}
		return 0;
	case SA_SIGNAL:
		return fmt_signal(o, (int)v);
	case SA_DIRFD:
		if ((int)v != AT_FDCWD)
			return 0;
		out_name(o, "AT_FDCWD");
		return 1;
	}
	return 0;
}

size_t sc_format(unsigned int kind, uint64_t v, char *buf, size_t len)
{
	struct sc_out o = { .buf = buf, .len = len };

	if (!len)
		return 0;
	switch (kind) {
	case SA_OPEN_FLAGS:
		fmt_open_flags(&o, (uint32_t)v);
		break;
	case SA_MODE:
		/* "0644"; "000" for 0 (the '#' flag makes the leading 0 part of the digits) */
		out_fmt(&o, "%#03o", (unsigned int)(uint32_t)v);
		break;
	case SA_PROT:
		if (!v)
			out_name(&o, "PROT_NONE");
		out_rest(&o, out_flags(&o, prot_flags, ARRAY_SIZE(prot_flags), v));
		break;
	case SA_MAP_FLAGS:
		fmt_map_flags(&o, v);
		break;
	case SA_AT_FLAGS:
		out_rest(&o, out_flags(&o, at_flags, ARRAY_SIZE(at_flags), (uint32_t)v));
		break;
	case SA_CLONE_FLAGS:
		fmt_clone_flags(&o, v);
		break;
	case SA_SOCK_TYPE:
		fmt_sock_type(&o, (uint32_t)v);
		break;
	default:
		if (!fmt_enum(&o, kind, (uint32_t)v))
			return 0;
		break;
	}
	if (!o.pos && !o.full)	/* flags all clear (the other kinds always say something) */
		out_name(&o, "0");
	if (o.full) {
		buf[0] = '\0';
		return 0;
	}
	return o.pos;
}

/* ---- errno --------------------------------------------------------------- */

/*
 * <errno.h>, by value: of two names for one value, the one strace prints.
 * The values are the headers' (mips, sparc, alpha and parisc have their own).
 */
#define ERR(x)	[x] = #x
static const char *const errno_names[] = {
	ERR(EPERM), ERR(ENOENT), ERR(ESRCH), ERR(EINTR), ERR(EIO), ERR(ENXIO), ERR(E2BIG),
	ERR(ENOEXEC), ERR(EBADF), ERR(ECHILD), ERR(EAGAIN), ERR(ENOMEM), ERR(EACCES),
	ERR(EFAULT), ERR(ENOTBLK), ERR(EBUSY), ERR(EEXIST), ERR(EXDEV), ERR(ENODEV),
	ERR(ENOTDIR), ERR(EISDIR), ERR(EINVAL), ERR(ENFILE), ERR(EMFILE), ERR(ENOTTY),
	ERR(ETXTBSY), ERR(EFBIG), ERR(ENOSPC), ERR(ESPIPE), ERR(EROFS), ERR(EMLINK),
	ERR(EPIPE), ERR(EDOM), ERR(ERANGE), ERR(EDEADLK), ERR(ENAMETOOLONG), ERR(ENOLCK),
	ERR(ENOSYS), ERR(ENOTEMPTY), ERR(ELOOP), ERR(ENOMSG), ERR(EIDRM), ERR(ECHRNG),
	ERR(EL2NSYNC), ERR(EL3HLT), ERR(EL3RST), ERR(ELNRNG), ERR(EUNATCH), ERR(ENOCSI),
	ERR(EL2HLT), ERR(EBADE), ERR(EBADR), ERR(EXFULL), ERR(ENOANO), ERR(EBADRQC),
	ERR(EBADSLT), ERR(EBFONT), ERR(ENOSTR), ERR(ENODATA), ERR(ETIME), ERR(ENOSR),
	ERR(ENONET), ERR(ENOPKG), ERR(EREMOTE), ERR(ENOLINK), ERR(EADV), ERR(ESRMNT),
	ERR(ECOMM), ERR(EPROTO), ERR(EMULTIHOP), ERR(EDOTDOT), ERR(EBADMSG), ERR(EOVERFLOW),
	ERR(ENOTUNIQ), ERR(EBADFD), ERR(EREMCHG), ERR(ELIBACC), ERR(ELIBBAD), ERR(ELIBSCN),
	ERR(ELIBMAX), ERR(ELIBEXEC), ERR(EILSEQ), ERR(ERESTART), ERR(ESTRPIPE), ERR(EUSERS),
	ERR(ENOTSOCK), ERR(EDESTADDRREQ), ERR(EMSGSIZE), ERR(EPROTOTYPE), ERR(ENOPROTOOPT),
	ERR(EPROTONOSUPPORT), ERR(ESOCKTNOSUPPORT), ERR(EOPNOTSUPP), ERR(EPFNOSUPPORT),
	ERR(EAFNOSUPPORT), ERR(EADDRINUSE), ERR(EADDRNOTAVAIL), ERR(ENETDOWN),
	ERR(ENETUNREACH), ERR(ENETRESET), ERR(ECONNABORTED), ERR(ECONNRESET), ERR(ENOBUFS),
	ERR(EISCONN), ERR(ENOTCONN), ERR(ESHUTDOWN), ERR(ETOOMANYREFS), ERR(ETIMEDOUT),
	ERR(ECONNREFUSED), ERR(EHOSTDOWN), ERR(EHOSTUNREACH), ERR(EALREADY), ERR(EINPROGRESS),
	ERR(ESTALE), ERR(EUCLEAN), ERR(ENOTNAM), ERR(ENAVAIL), ERR(EISNAM), ERR(EREMOTEIO),
	ERR(EDQUOT), ERR(ENOMEDIUM), ERR(EMEDIUMTYPE), ERR(ECANCELED), ERR(ENOKEY),
	ERR(EKEYEXPIRED), ERR(EKEYREVOKED), ERR(EKEYREJECTED), ERR(EOWNERDEAD),
	ERR(ENOTRECOVERABLE), ERR(ERFKILL), ERR(EHWPOISON),
};

/*
 * The kernel's own codes from 512 (include/linux/errno.h), not in <errno.h>.
 * A tracer sees the restart ones at syscall exit when a signal interrupted
 * the call; the others should not reach user space but sometimes do.
 */
static const char *const kernel_errno_names[] = {
	"ERESTARTSYS",		/* 512 */
	"ERESTARTNOINTR",	/* 513 */
	"ERESTARTNOHAND",	/* 514 */
	"ENOIOCTLCMD",		/* 515 */
	"ERESTART_RESTARTBLOCK",	/* 516 */
	"EPROBE_DEFER",		/* 517 */
	"EOPENSTALE",		/* 518 */
	"ENOPARAM",		/* 519 */
	NULL,			/* 520 */
	"EBADHANDLE",		/* 521: 521..531 are NFS's */
	"ENOTSYNC",		/* 522 */
	"EBADCOOKIE",		/* 523 */
	"ENOTSUPP",		/* 524 */
	"ETOOSMALL",		/* 525 */
	"ESERVERFAULT",		/* 526 */
	"EBADTYPE",		/* 527 */
	"EJUKEBOX",		/* 528 */
	"EIOCBQUEUED",		/* 529 */
	"ERECALLCONFLICT",	/* 530 */
	"ENOGRACE",		/* 531 */
};
#define SC_KERNEL_ERRNO_BASE	512

const char *sc_errno_name(int e)
{
	if (e > 0 && (size_t)e < ARRAY_SIZE(errno_names))
		return errno_names[e];
	if (e >= SC_KERNEL_ERRNO_BASE &&
	    (size_t)(e - SC_KERNEL_ERRNO_BASE) < ARRAY_SIZE(kernel_errno_names))
		return kernel_errno_names[e - SC_KERNEL_ERRNO_BASE];
	return NULL;
}
