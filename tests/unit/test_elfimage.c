/* tests/unit/test_elfimage.c: dwarf/elfimage.c on the system's libc (from the
 * file and from its first page, whole and cut), checked against libelf via
 * elfmod and against the loader's own program headers (dl_iterate_phdr); and
 * segment attribution on layouts where two segments share a file page. */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "dwarf/elfimage.h"
#include "dwarf/elfmod.h"
#include "probes/err.h"

#define LIBC	"/lib/x86_64-linux-gnu/libc.so.6"

/* libc's build-id as elfmod (section headers, libelf) reads it. */
static size_t libc_build_id(uint8_t *id)
{
	struct ptap_err err;
	struct elfmod *mod;
	const uint8_t *p;
	size_t len;

	cr_assert(eq(int, elfmod__open(LIBC, &mod, &err), 0), "%s", err.msg);
	cr_assert(eq(int, elfmod__build_id(mod, &p, &len), 0));
	memcpy(id, p, len);
	elfmod__close(mod);
	return len;
}

struct phdrs {
	const ElfW(Phdr) *ph;
	int n;
};

/* The loader's program headers of this process's libc. */
static int find_libc(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct phdrs *out = arg;

	(void)size;
	if (!strstr(info->dlpi_name, "libc.so.6"))
		return 0;
	out->ph = info->dlpi_phdr;
	out->n = info->dlpi_phnum;
	return 1;
}

static void check_loads_match(const struct elfimage *img)
{
	struct phdrs ph = { 0 };
	int k = 0;

	cr_assert(eq(int, dl_iterate_phdr(find_libc, &ph), 1), "libc is loaded");
	for (int i = 0; i < ph.n; i++) {
		if (ph.ph[i].p_type != PT_LOAD)
			continue;
		cr_assert(lt(int, k, img->nload));
		cr_expect(eq(ulong, img->load[k].vaddr, ph.ph[i].p_vaddr), "load %d vaddr", k);
		cr_expect(eq(ulong, img->load[k].offset, ph.ph[i].p_offset), "load %d offset", k);
		cr_expect(eq(ulong, img->load[k].filesz, ph.ph[i].p_filesz), "load %d filesz", k);
		cr_expect(eq(ulong, img->load[k].memsz, ph.ph[i].p_memsz), "load %d memsz", k);
		cr_expect(eq(uint, img->load[k].flags, ph.ph[i].p_flags), "load %d flags", k);
		k++;
	}
	cr_expect(eq(int, img->nload, k));
	cr_expect(ge(int, k, 2));
}

Test(elfimage, libc_from_file_matches_libelf_and_the_loader)
{
	uint8_t want[64];
	size_t len = libc_build_id(want);
	struct elfimage img;
	int fd = open(LIBC, O_RDONLY);

	cr_assert(ge(int, fd, 0));
	cr_assert(eq(int, elfimage__from_fd(fd, &img), 0));
	close(fd);
	cr_expect(eq(uint, img.type, ET_DYN));
	cr_expect(eq(uint, img.machine, EM_X86_64));
	cr_assert(eq(sz, img.build_id_len, len));
	cr_expect(eq(mem, ((struct cr_mem){ img.build_id, len }), ((struct cr_mem){ want, len })));
	check_loads_match(&img);
}

/* The first LEN bytes of libc. */
static size_t libc_head(unsigned char *buf, size_t len)
{
	int fd = open(LIBC, O_RDONLY);
	ssize_t n;

	cr_assert(ge(int, fd, 0));
	n = pread(fd, buf, len, 0);
	close(fd);
	cr_assert(eq(long, n, (ssize_t)len));
	return len;
}

Test(elfimage, libc_first_page_gives_the_same)
{
	unsigned char page[4096];
	uint8_t want[64];
	size_t len = libc_build_id(want);
	struct elfimage img;

	libc_head(page, sizeof(page));
	cr_assert(eq(int, elfimage__from_mem(page, sizeof(page), &img), 0));
	cr_assert(eq(sz, img.build_id_len, len));
	cr_expect(eq(mem, ((struct cr_mem){ img.build_id, len }), ((struct cr_mem){ want, len })));
	check_loads_match(&img);
	/* The section headers lie far beyond the page; the buffer is left as it was. */
	cr_expect(ne(u64, ((Elf64_Ehdr *)page)->e_shoff, 0));
}

Test(elfimage, cut_images)
{
	unsigned char page[4096];
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)page;
	size_t phend;
	struct elfimage img;

	libc_head(page, sizeof(page));
	phend = eh->e_phoff + (size_t)eh->e_phnum * eh->e_phentsize;
	/* Program headers whole, notes (which follow them in libc) cut off. */
	cr_assert(eq(int, elfimage__from_mem(page, phend, &img), 0));
	cr_expect(eq(sz, img.build_id_len, 0));
	check_loads_match(&img);
	/* Program headers cut: not usable. */
	cr_expect(eq(int, elfimage__from_mem(page, phend - 1, &img), -ENOEXEC));
	cr_expect(eq(int, elfimage__from_mem(page, 10, &img), -ENOEXEC));
	cr_expect(eq(int, elfimage__from_mem("#!/bin/sh\nexit 0\n", 17, &img), -ENOEXEC));
}

Test(elfimage, not_elf_file)
{
	struct elfimage img;
	int fd = open("/proc/self/status", O_RDONLY);

	cr_assert(ge(int, fd, 0));
	cr_expect(eq(int, elfimage__from_fd(fd, &img), -ENOEXEC));
	close(fd);
}

/*
 * An old layout (no -z separate-code): the data segment's first page is the
 * text's last one, so a mapping at file page 0x1000 may show either.
 */
static const struct elfimage shared_page = {
	.nload = 2,
	.load = {
		{ .vaddr = 0x0, .memsz = 0x1800, .offset = 0x0, .filesz = 0x1800,
		  .flags = PF_R | PF_X },
		{ .vaddr = 0x2e00, .memsz = 0x3000, .offset = 0x1e00, .filesz = 0x300,
		  .flags = PF_R | PF_W },
	},
};

Test(elfimage, segment_of_a_shared_page)
{
	const uint64_t base = 0x7f0000000000ULL, page = 0x1000;
	uint64_t bias = 1;

	/* The text: file pages 0-1 at BASE. */
	cr_assert(eq(int, elfimage__segment(&shared_page, base, 0, true, page, false, 0, &bias),
		     0));
	cr_expect(eq(u64, bias, base));
	/* The data: file page 1 mapped again at BASE+0x2000 (vaddr 0x2e00's page). */
	bias = 1;
	cr_assert(eq(int, elfimage__segment(&shared_page, base + 0x2000, 0x1000, false, page, true,
					    base, &bias), 1));
	cr_expect(eq(u64, bias, base));
	/* Without a hint, a writable mapping is the segment without PF_X. */
	bias = 1;
	cr_assert(eq(int, elfimage__segment(&shared_page, base + 0x2000, 0x1000, false, page, false,
					    0, &bias), 1));
	cr_expect(eq(u64, bias, base));
	/* An executable one at file page 1 is the text. */
	cr_assert(eq(int, elfimage__segment(&shared_page, base + 0x1000, 0x1000, true, page, false,
					    0, &bias), 0));
	cr_expect(eq(u64, bias, base));
	/* Past every segment's file bytes: none, BIAS untouched. */
	bias = 7;
	cr_expect(eq(int, elfimage__segment(&shared_page, base, 0x5000, false, page, false, 0,
					    &bias), -1));
	cr_expect(eq(u64, bias, 7));
}

Test(elfimage, bss_tail)
{
	const uint64_t base = 0x7f0000000000ULL;

	/* Data file bytes end at 0x3100; the zero fill runs to 0x5e00. */
	cr_expect(eq(int, elfimage__bss_segment(&shared_page, base + 0x4000, base), 1));
	cr_expect(eq(int, elfimage__bss_segment(&shared_page, base + 0x5000, base), 1));
	cr_expect(eq(int, elfimage__bss_segment(&shared_page, base + 0x6000, base), -1));
	cr_expect(eq(int, elfimage__bss_segment(&shared_page, base + 0x1000, base), -1));
}

Test(elfimage, hex)
{
	static const uint8_t id[] = { 0x00, 0x9f, 0xa0, 0x0b };
	char out[9];

	elfimage__hex(id, sizeof(id), out);
	cr_expect_str_eq(out, "009fa00b");
	elfimage__hex(id, 0, out);
	cr_expect_str_eq(out, "");
}
