/* dwarf/elfimage.c: an ELF file's type, build-id and PT_LOADs, from a file
 * or from its first mapped page, and mapping -> segment attribution. */
#include <elf.h>
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>

#include "dwarf/elfimage.h"

/* Fill IMG from an open ELF handle. */
static int image_read(Elf *elf, struct elfimage *img)
{
	GElf_Ehdr eh;
	const void *id;
	size_t n, i;
	ssize_t idlen;

	memset(img, 0, sizeof(*img));
	if (elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh))
		return -ENOEXEC;
	img->type = eh.e_type;
	img->machine = eh.e_machine;
	if (elf_getphdrnum(elf, &n) < 0)
		return -ENOEXEC;
	for (i = 0; i < n && img->nload < ELFIMAGE_MAX_LOADS; i++) {
		GElf_Phdr ph;
		struct elfimage_load *l;

		if (!gelf_getphdr(elf, (int)i, &ph))
			return -ENOEXEC;
		if (ph.p_type != PT_LOAD)
			continue;
		l = &img->load[img->nload++];
		l->vaddr = ph.p_vaddr;
		l->memsz = ph.p_memsz;
		l->offset = ph.p_offset;
		l->filesz = ph.p_filesz;
		l->flags = ph.p_flags;
	}
	idlen = dwelf_elf_gnu_build_id(elf, &id);
	if (idlen > 0 && idlen <= ELFIMAGE_MAX_BUILD_ID) {
		memcpy(img->build_id, id, (size_t)idlen);
		img->build_id_len = (size_t)idlen;
	}
	return 0;
}

int elfimage__from_fd(int fd, struct elfimage *img)
{
	Elf *elf;
	int r;

	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf)
		return elf_errno() ? -ENOEXEC : -EIO;
	r = image_read(elf, img);
	elf_end(elf);
	return r;
}

/*
 * A first page holds the ELF header and (nearly always) the program headers
 * and notes, but not the section headers at the end of the file: forget
 * them, or libelf refuses an image they do not fit in.
 */
static void drop_section_headers(unsigned char *p, size_t len)
{
	if (p[EI_CLASS] == ELFCLASS64 && len >= sizeof(Elf64_Ehdr)) {
		Elf64_Ehdr *eh = (Elf64_Ehdr *)p;

		eh->e_shoff = 0;
		eh->e_shnum = 0;
		eh->e_shstrndx = SHN_UNDEF;
	} else if (p[EI_CLASS] == ELFCLASS32 && len >= sizeof(Elf32_Ehdr)) {
		Elf32_Ehdr *eh = (Elf32_Ehdr *)p;

		eh->e_shoff = 0;
		eh->e_shnum = 0;
		eh->e_shstrndx = SHN_UNDEF;
	}
}

int elfimage__from_mem(const void *buf, size_t len, struct elfimage *img)
{
	unsigned char *copy;
	Elf *elf;
	int r;

	if (len < EI_NIDENT || memcmp(buf, ELFMAG, SELFMAG))
		return -ENOEXEC;
	copy = malloc(len);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, buf, len);
	drop_section_headers(copy, len);
	elf_version(EV_CURRENT);
	elf = elf_memory((char *)copy, len);
	r = elf ? image_read(elf, img) : -ENOEXEC;
	elf_end(elf);
	free(copy);
	return r;
}

/* The dynamic symbol NAME of ELF (a function with a value): its st_value. */
static int find_dynsym(Elf *elf, const char *name, uint64_t *value)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM || !sh.sh_entsize ||
		    !(d = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *n;

			if (!gelf_getsym(d, (int)i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
			    !sym.st_value)
				continue;
			n = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (n && !strcmp(n, name)) {
				*value = sym.st_value;
				return 0;
			}
		}
	}
	return -ENOENT;
}

int elfimage__dynsym(const void *buf, size_t len, const char *name, uint64_t *off)
{
	void *copy = malloc(len);
	struct elfimage img;
	uint64_t value;
	Elf *elf;
	int r;

	if (!copy)
		return -ENOMEM;
	memcpy(copy, buf, len);
	elf_version(EV_CURRENT);
	elf = elf_memory((char *)copy, len);
	r = elf ? image_read(elf, &img) : -ENOEXEC;
	if (r == 0 && img.nload == 0)
		r = -ENOEXEC;
	if (r == 0)
		r = find_dynsym(elf, name, &value);
	if (r == 0)
		*off = value - img.load[0].vaddr;
	elf_end(elf);
	free(copy);
	return r;
}

static uint64_t page_down(uint64_t v, uint64_t page)
{
	return v & ~(page - 1);
}

int elfimage__segment(const struct elfimage *img, uint64_t start, uint64_t pgoff, bool exec,
		      uint64_t page, bool have_hint, uint64_t hint, uint64_t *bias)
{
	int first = -1, by_exec = -1, k;
	uint64_t b[ELFIMAGE_MAX_LOADS];

	for (k = 0; k < img->nload; k++) {
		const struct elfimage_load *l = &img->load[k];
		uint64_t lo = page_down(l->offset, page);

		if (!l->filesz || pgoff < lo || pgoff >= l->offset + l->filesz)
			continue;
		b[k] = start - (page_down(l->vaddr, page) + (pgoff - lo));
		if (have_hint && b[k] == hint) {
			*bias = b[k];
			return k;
		}
		if (first < 0)
			first = k;
		if (by_exec < 0 && exec == !!(l->flags & PF_X))
			by_exec = k;
	}
	k = by_exec >= 0 ? by_exec : first;
	if (k >= 0)
		*bias = b[k];
	return k;
}

int elfimage__bss_segment(const struct elfimage *img, uint64_t start, uint64_t bias)
{
	for (int k = 0; k < img->nload; k++) {
		const struct elfimage_load *l = &img->load[k];

		if (l->memsz > l->filesz && start >= bias + l->vaddr + l->filesz &&
		    start < bias + l->vaddr + l->memsz)
			return k;
	}
	return -1;
}

void elfimage__hex(const uint8_t *id, size_t len, char *out)
{
	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < len; i++) {
		*out++ = digits[id[i] >> 4];
		*out++ = digits[id[i] & 15];
	}
	*out = '\0';
}
