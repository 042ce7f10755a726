/* dwarf/core.h: a core dump (the kernel's, or gdb's gcore): the ranges it
 * describes (PT_LOAD headers, split where the NT_FILE note's entries begin and
 * end), what it says of the process (NT_PRPSINFO, NT_PRSTATUS, NT_SIGINFO,
 * NT_AUXV), and reads of the memory it holds.  libelf only; never touches a
 * live process. */
#ifndef PTAP_DWARF_CORE_H
#define PTAP_DWARF_CORE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct ptap_err;
struct core;

struct core_map {
	uint64_t start, end;	/* [start, end) */
	int prot;		/* PROT_* from p_flags; -1 when only NT_FILE lists the range */
	uint64_t held;		/* bytes of the range from START the core holds (p_filesz, cut
				 * to this piece); 0: none (not dumped) */
	uint64_t present;	/* of those, the bytes actually in the file: < HELD when the
				 * core is truncated */
	const char *path;	/* NT_FILE name, as the kernel wrote it (" (deleted)" and
				 * all), or NULL; borrowed */
	uint64_t pgoff;		/* file offset of START in PATH, in bytes (PATH only) */
};

struct core_info {
	pid_t pid;		/* NT_PRPSINFO pr_pid, else the first NT_PRSTATUS; 0: unknown */
	char comm[17];		/* pr_fname */
	char psargs[81];	/* pr_psargs */
	int signal;		/* the signal that dumped it (NT_SIGINFO, else pr_cursig); 0 */
	unsigned int machine;	/* e_machine */
	uint64_t page_size;	/* AT_PAGESZ, else NT_FILE's page size when not gdb's 1,
				 * else 4096 */
	/* From NT_AUXV (0 when absent): */
	uint64_t at_sysinfo_ehdr;	/* the vDSO */
	uint64_t at_execfn;		/* the exec'd file name, on the main stack */
	uint64_t at_phdr;		/* the executable's program headers */
	uint64_t at_entry;
	uint64_t file_size;	/* the core file's size */
	uint64_t missing;	/* bytes of the listed ranges (not the vsyscall page) that the
				 * PT_LOADs claim beyond the end of the file (0: whole) */
};

/*
 * Open PATH as a core dump.  0, or -errno with ERR naming the problem:
 *   -ENOENT  no such file            -EACCES  not readable
 *   -ENOEXEC not ELF ("not an ELF file"), or ELF but not a core ("an ELF
 *            shared object (ET_DYN), not a core dump")
 *   -EIO     truncated before its headers or notes end ("truncated: N
 *            bytes, its notes end at M")
 * A core whose PT_LOAD data is cut short opens; core_info.missing says so.
 */
int core__open(const char *path, struct core **out, struct ptap_err *err);
void core__close(struct core *c);		/* NULL is fine */

const struct core_info *core__info(const struct core *c);
/*
 * The ranges, sorted by START and disjoint: every PT_LOAD (except those at
 * or above 0x7ffffffff000, the vsyscall page), split where an NT_FILE entry
 * begins or ends, each piece with that entry's PATH and PGOFF; plus NT_FILE
 * ranges no PT_LOAD covers (PROT -1).
 */
size_t core__count(const struct core *c);
const struct core_map *core__map(const struct core *c, size_t i);

/*
 * Copy up to LEN bytes at VADDR from the memory the core holds (within one
 * range, stopping where its held and present bytes end).  Returns the bytes
 * copied; 0 when the core does not hold VADDR.
 */
size_t core__read(const struct core *c, uint64_t vaddr, void *buf, size_t len);

/*
 * Read the NUL-terminated string at VADDR (AT_EXECFN) into BUF (LEN bytes).
 * 0, or -ENOENT when the core does not hold it whole.
 */
int core__read_str(const struct core *c, uint64_t vaddr, char *buf, size_t len);

#endif
