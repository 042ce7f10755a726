/* arch/sctable.h: the system call table of the native ABI, for `ptap record
 * --syscalls`: every call's name and number, the classes strace groups it
 * in, how its arguments and its result are decoded, and the names of the
 * values they take.  The second interface to machine-specific code, beside
 * arch/arch.h.  Each architecture provides only its table (arch_sc_*, in
 * arch/<name>/sctable.c); the lookups over it and the names of flags,
 * signals and errno values (sc_*) are the same on every Linux architecture
 * and live in arch/common/.  Pure: no ptrace, no allocation; depends on
 * nothing of ours. */
#ifndef PTAP_ARCH_SCTABLE_H
#define PTAP_ARCH_SCTABLE_H

#include <stddef.h>
#include <stdint.h>

/* The classes, as strace names them (`strace -e trace=%file`). */
enum sc_class {
	SC_FILE = 1u << 0,	/* %file: takes a file name */
	SC_DESC = 1u << 1,	/* %desc: takes or returns a file descriptor */
	SC_NET = 1u << 2,	/* %net (%network): sockets */
	SC_MEMORY = 1u << 3,	/* %memory: maps memory */
	SC_PROCESS = 1u << 4,	/* %process: process life cycle (fork, exec, exit, wait, kill) */
	SC_SIGNAL = 1u << 5,	/* %signal */
	SC_IPC = 1u << 6,	/* %ipc: SysV IPC */
	SC_CREDS = 1u << 7,	/* %creds: user and group ids, capabilities */
	SC_CLOCK = 1u << 8,	/* %clock: read or set clocks */
};

/* How one argument is decoded (the tracer reads what memory it needs). */
enum sc_arg {
	SA_NONE = 0,
	SA_INT,		/* signed decimal (int-sized ones are sign-extended from 32 bits) */
	SA_UINT,	/* unsigned decimal */
	SA_HEX,		/* a pointer or an address, in hex */
	SA_SIZE,	/* a byte count (unsigned decimal): what a read/write asks for */
	SA_OFF,		/* a file offset (signed decimal) */
	SA_FD,		/* a file descriptor: the tracer adds what it refers to */
	SA_DIRFD,	/* a directory fd or AT_FDCWD (symbolic), as for SA_FD otherwise */
	SA_PATH,	/* a NUL-terminated file name in the target's memory */
	SA_STR,		/* another NUL-terminated string in the target's memory */
	/* symbolic, formatted by sc_format() */
	SA_OPEN_FLAGS,	/* O_WRONLY|O_CREAT|O_CLOEXEC */
	SA_MODE,	/* 0644 (octal, with a leading 0) */
	SA_PROT,	/* PROT_READ|PROT_EXEC, PROT_NONE */
	SA_MAP_FLAGS,	/* MAP_PRIVATE|MAP_ANONYMOUS */
	SA_AT_FLAGS,	/* AT_SYMLINK_NOFOLLOW|AT_EMPTY_PATH, 0 */
	SA_SIGNAL,	/* SIGTERM (a number when unknown) */
	SA_WHENCE,	/* SEEK_SET ... */
	SA_CLONE_FLAGS,	/* CLONE_VM|CLONE_FS|...|SIGCHLD */
	SA_SOCK_DOMAIN,	/* AF_INET ... */
	SA_SOCK_TYPE,	/* SOCK_STREAM|SOCK_CLOEXEC ... */
	SA_FCNTL_CMD,	/* F_GETFL ... */
};

/* How the result is decoded: a negative value from -4095 to -1 is always -errno. */
enum sc_ret {
	SR_INT = 0,	/* signed decimal */
	SR_FD,		/* a new file descriptor: the tracer adds what it refers to */
	SR_HEX,		/* an address (mmap, brk) */
	SR_NONE,	/* does not return (exit, exit_group; execve when it works) */
};

struct sc_desc {
	const char *name;	/* "pread64" */
	long nr;		/* SYS_pread64 on this architecture */
	unsigned int classes;	/* enum sc_class bits */
	uint8_t nargs;		/* 0..6 */
	uint8_t args[6];	/* enum sc_arg */
	const char *argnames[6];	/* as the man page names them: "fd", "buf", "count", "offset" */
	uint8_t ret;		/* enum sc_ret */
};

/* ---- each architecture: arch/<name>/sctable.c --------------------------- */

/* The whole table, in number order (*N entries).  Every syscall the kernel
 * headers of the build machine know for this ABI is in it. */
const struct sc_desc *arch_sc_table(size_t *n);

/* Another name for a call of this ABI: the libc name of a call the kernel renames. */
struct sc_alias {
	const char *alias;	/* "pread" */
	const char *name;	/* "pread64": an entry of arch_sc_table() */
};
/* The aliases sc_by_name() accepts (*N entries), each naming exactly one call. */
const struct sc_alias *arch_sc_aliases(size_t *n);

/* The kernel's O_LARGEFILE on this ABI, which libc defines as 0 on 64-bit ones. */
extern const uint32_t arch_o_largefile;

/* ---- every architecture: arch/common/sclookup.c ---------------------------- */

/* The entry of NR, or NULL (an unknown number: the tracer prints it raw). */
const struct sc_desc *sc_by_nr(long nr);
/*
 * How many of D's arguments the call uses with the values ARGS, as strace
 * shows them: D->nargs, but open() and openat() (a mode last, after open
 * flags) read their mode only with O_CREAT or O_TMPFILE in the flags;
 * otherwise its register holds whatever the caller left there (0 from
 * glibc), and the mode is left out.
 */
unsigned int sc_nargs(const struct sc_desc *d, const uint64_t args[6]);
/* The entry named NAME, or NULL.  The names of arch_sc_aliases() are
 * accepted too ("pread" for pread64 ...). */
const struct sc_desc *sc_by_name(const char *name);
/* The classes named by CLASS ("%file", "%desc", "%net" or "%network",
 * "%memory", "%process", "%signal", "%ipc", "%creds", "%clock"), or 0 when
 * CLASS is none of them. */
unsigned int sc_class(const char *cls);

/* ---- every architecture: arch/common/scvalues.c ---------------------------- */

/*
 * Format V as argument kind KIND (one of the symbolic ones, SA_DIRFD when V
 * is AT_FDCWD, SA_MODE) into BUF (LEN bytes, NUL-terminated), e.g.
 * "O_WRONLY|O_CREAT|O_TRUNC", "0644", "AT_FDCWD"; bits no name covers are
 * appended in hex ("O_RDONLY|0x40000000").  Returns the length, or 0 when
 * KIND is not symbolic for V (SA_DIRFD with a real fd, SA_INT ...) or LEN is
 * too small: the caller prints the number.
 */
size_t sc_format(unsigned int kind, uint64_t v, char *buf, size_t len);
/* "ENOENT" for 2, "ERESTARTSYS" for 512 ...; NULL when E has no name. */
const char *sc_errno_name(int e);

#endif
