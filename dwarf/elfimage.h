/* dwarf/elfimage.h: what a map table needs to know of an ELF file -- its type,
 * build-id and PT_LOAD segments -- read from an open file or from the bytes of
 * its first page as mapped (live memory, or a core's dump of it); and which
 * segment a mapping of the file shows, at what load bias.  libelf/libdw
 * (dwelf) only; plain data out. */
#ifndef PTAP_DWARF_ELFIMAGE_H
#define PTAP_DWARF_ELFIMAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ELFIMAGE_MAX_LOADS	16
#define ELFIMAGE_MAX_BUILD_ID	64

struct elfimage_load {
	uint64_t vaddr, memsz;		/* p_vaddr, p_memsz */
	uint64_t offset, filesz;	/* p_offset, p_filesz */
	uint32_t flags;			/* PF_R | PF_W | PF_X */
};

struct elfimage {
	unsigned int type;		/* ET_EXEC, ET_DYN, ... */
	unsigned int machine;		/* EM_* */
	uint8_t build_id[ELFIMAGE_MAX_BUILD_ID];
	size_t build_id_len;		/* 0: no NT_GNU_BUILD_ID (or not within reach) */
	struct elfimage_load load[ELFIMAGE_MAX_LOADS];	/* in program header order */
	int nload;			/* the first ELFIMAGE_MAX_LOADS of them */
};

/*
 * Read FD (any file offset; it is not moved) as an ELF file.  0, or
 * -ENOEXEC (not ELF), -errno.  A file without program headers has NLOAD 0.
 */
int elfimage__from_fd(int fd, struct elfimage *img);
/*
 * The same from BUF, the first LEN bytes of an ELF file (a mapping of it at
 * file offset 0, read from memory or from a core).  Only what lies within
 * LEN is used: a build-id note beyond it leaves BUILD_ID_LEN 0, program
 * headers beyond it give -ENOEXEC.  BUF is not modified.
 */
int elfimage__from_mem(const void *buf, size_t len, struct elfimage *img);

/*
 * A mapping of the file at [START, ...) with file offset PGOFF: which of
 * IMG's PT_LOAD segments it shows and the load bias (runtime minus link-time
 * address) that places it there:
 *   bias = START - (page_down(p_vaddr) + PGOFF - page_down(p_offset)).
 * Of the segments whose pages hold PGOFF, one that gives HINT (the bias of
 * the same file's mapping just before, when HAVE_HINT) wins, then one whose
 * PF_X matches EXEC, then the first.  PAGE is the page size.  Returns the
 * segment's index into IMG->load, or -1 with *BIAS unchanged.
 */
int elfimage__segment(const struct elfimage *img, uint64_t start, uint64_t pgoff, bool exec,
		      uint64_t page, bool have_hint, uint64_t hint, uint64_t *bias);

/*
 * An anonymous mapping [START, END) placed with BIAS: the zero-fill tail
 * (.bss) of the segment whose p_vaddr + p_memsz runs past the last file
 * page, when START lies in it.  The segment's index, or -1.
 */
int elfimage__bss_segment(const struct elfimage *img, uint64_t start, uint64_t bias);

/*
 * The dynamic symbol NAME of the ELF image BUF[0..LEN) as mapped (the
 * vDSO: its clock_gettime, which in-process probes call): its offset from
 * the image's start (st_value less the first PT_LOAD's p_vaddr) into *OFF.
 * 0, -ENOENT (no such function), -ENOEXEC (not ELF).
 */
int elfimage__dynsym(const void *buf, size_t len, const char *name, uint64_t *off);

/* BUILD_ID as lowercase hex into OUT (2 * LEN + 1 bytes). */
void elfimage__hex(const uint8_t *id, size_t len, char *out);

#endif
