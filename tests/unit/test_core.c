/* tests/unit/test_core.c: dwarf/core.c on synthetic core dumps written by
 * hand (ELF header, program headers, "CORE" notes, PT_LOAD bytes of a known
 * pattern), whole, truncated, corrupted, and not cores at all. */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/procfs.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "dwarf/core.h"
#include "probes/err.h"
#include "tracer/space/mapview.h"

#if defined(__x86_64__)
#define TC_EM	EM_X86_64
#elif defined(__aarch64__)
#define TC_EM	EM_AARCH64
#endif

/* ---- a core dump builder -------------------------------------------------- */

#define TC_DATA	0x1000		/* file offset of the first PT_LOAD's bytes */

struct tc_load {
	uint64_t vaddr, memsz, filesz;
	uint32_t flags;
	uint64_t offset;	/* set by tc_write() */
};

struct tc_poke {
	uint64_t vaddr;
	char bytes[64];
	size_t len;
};

/* A synthetic core: notes and PT_LOADs, written by tc_write(). */
struct tc {
	uint16_t type;			/* e_type (ET_CORE unless a test says) */
	unsigned char notes[3000];	/* must fit below TC_DATA with the headers */
	size_t nlen;
	struct tc_load load[16];
	int nload;
	struct tc_poke poke[4];		/* bytes replacing the pattern at VADDR */
	int npoke;
	uint64_t notes_off, notes_end;	/* set by tc_write() */
};

struct tc_file {
	uint64_t start, end, pgoff;	/* pgoff in NT_FILE's page units */
	const char *name;
};

static char dir[64];
static char core_path[128];

static void tc_init(void)
{
	snprintf(dir, sizeof(dir), "/tmp/ptap-core.XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
	snprintf(core_path, sizeof(core_path), "%s/core", dir);
}

static void tc_fini(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (dir[0] && system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", dir);
}

TestSuite(core, .init = tc_init, .fini = tc_fini);

/* The byte a PT_LOAD holds at VADDR (unless poked). */
static uint8_t pat(uint64_t v)
{
	return (uint8_t)(v ^ (v >> 8) ^ (v >> 16) ^ 0x5a);
}

static void tc_raw_note(struct tc *tc, const char *name, uint32_t type, const void *desc,
			size_t len)
{
	Elf64_Nhdr nh = { .n_namesz = strlen(name) + 1, .n_descsz = len, .n_type = type };
	size_t nlen = (nh.n_namesz + 3) & ~3u, dlen = (len + 3) & ~3u;

	cr_assert(le(ulong, tc->nlen + sizeof(nh) + nlen + dlen, sizeof(tc->notes)));
	memcpy(tc->notes + tc->nlen, &nh, sizeof(nh));
	tc->nlen += sizeof(nh);
	memset(tc->notes + tc->nlen, 0, nlen + dlen);
	memcpy(tc->notes + tc->nlen, name, nh.n_namesz);
	tc->nlen += nlen;
	memcpy(tc->notes + tc->nlen, desc, len);
	tc->nlen += dlen;
}

static void tc_note(struct tc *tc, uint32_t type, const void *desc, size_t len)
{
	tc_raw_note(tc, "CORE", type, desc, len);
}

/* NT_FILE with N entries of F and page size PAGE. */
static void tc_file_note(struct tc *tc, uint64_t page, int n, const struct tc_file *f)
{
	unsigned char buf[2048];
	uint64_t w[2 + 3 * 16];
	size_t len, i;

	cr_assert(le(int, n, 16));
	w[0] = (uint64_t)n;
	w[1] = page;
	for (i = 0; i < (size_t)n; i++) {
		w[2 + 3 * i] = f[i].start;
		w[3 + 3 * i] = f[i].end;
		w[4 + 3 * i] = f[i].pgoff;
	}
	len = (2 + 3 * (size_t)n) * 8;
	memcpy(buf, w, len);
	for (i = 0; i < (size_t)n; i++) {
		size_t k = strlen(f[i].name) + 1;

		cr_assert(le(ulong, len + k, sizeof(buf)));
		memcpy(buf + len, f[i].name, k);
		len += k;
	}
	tc_note(tc, NT_FILE, buf, len);
}

static void tc_load(struct tc *tc, uint64_t vaddr, uint64_t memsz, uint64_t filesz,
		    uint32_t flags)
{
	cr_assert(lt(int, tc->nload, 16));
	tc->load[tc->nload++] = (struct tc_load){ vaddr, memsz, filesz, flags, 0 };
}

static void tc_poke(struct tc *tc, uint64_t vaddr, const void *bytes, size_t len)
{
	cr_assert(lt(int, tc->npoke, 4));
	cr_assert(le(ulong, len, sizeof(tc->poke[0].bytes)));
	tc->poke[tc->npoke].vaddr = vaddr;
	memcpy(tc->poke[tc->npoke].bytes, bytes, len);
	tc->poke[tc->npoke++].len = len;
}

/*
 * Write TC to PATH: ELF header, one PT_NOTE then the PT_LOADs, the notes,
 * and from TC_DATA each load's FILESZ bytes, page-aligned, in order.
 */
static void tc_write(struct tc *tc, const char *path)
{
	Elf64_Ehdr eh = { 0 };
	Elf64_Phdr ph = { 0 };
	uint64_t off = TC_DATA;
	FILE *f = fopen(path, "w");
	int k, i;

	cr_assert_not_null(f);
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_type = tc->type ? tc->type : ET_CORE;
	eh.e_machine = TC_EM;
	eh.e_version = EV_CURRENT;
	eh.e_phoff = sizeof(eh);
	eh.e_ehsize = sizeof(eh);
	eh.e_phentsize = sizeof(ph);
	eh.e_phnum = (uint16_t)(1 + tc->nload);
	fwrite(&eh, sizeof(eh), 1, f);

	tc->notes_off = sizeof(eh) + (1 + (uint64_t)tc->nload) * sizeof(ph);
	tc->notes_end = tc->notes_off + tc->nlen;
	cr_assert(le(u64, tc->notes_end, TC_DATA));
	ph.p_type = PT_NOTE;
	ph.p_offset = tc->notes_off;
	ph.p_filesz = tc->nlen;
	ph.p_align = 4;
	fwrite(&ph, sizeof(ph), 1, f);
	for (k = 0; k < tc->nload; k++) {
		struct tc_load *l = &tc->load[k];

		l->offset = off;
		ph = (Elf64_Phdr){ .p_type = PT_LOAD, .p_flags = l->flags, .p_offset = off,
				   .p_vaddr = l->vaddr, .p_filesz = l->filesz,
				   .p_memsz = l->memsz, .p_align = 0x1000 };
		fwrite(&ph, sizeof(ph), 1, f);
		off += (l->filesz + 0xfff) & ~0xfffull;
	}
	fwrite(tc->notes, 1, tc->nlen, f);
	for (k = 0; k < tc->nload; k++) {
		const struct tc_load *l = &tc->load[k];
		uint64_t v;

		cr_assert(eq(int, fseek(f, (long)l->offset, SEEK_SET), 0));
		for (v = l->vaddr; v < l->vaddr + l->filesz; v++) {
			int c = pat(v);

			for (i = 0; i < tc->npoke; i++) {
				const struct tc_poke *p = &tc->poke[i];

				if (v >= p->vaddr && v < p->vaddr + p->len)
					c = (uint8_t)p->bytes[v - p->vaddr];
			}
			fputc(c, f);
		}
	}
	cr_assert(eq(int, fclose(f), 0));
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f);
	fputs(text, f);
	cr_assert(eq(int, fclose(f), 0));
}

static struct core *open_ok(const char *path)
{
	struct ptap_err err = { .pos = -1 };
	struct core *c = NULL;
	int r = core__open(path, &c, &err);

	cr_assert(eq(int, r, 0), "open %s: %d %s", path, r, err.msg);
	cr_assert_not_null(c);
	return c;
}

/* core__open(PATH) fails with CODE and a message containing WANT. */
static void open_fails(const char *path, int code, const char *want)
{
	struct ptap_err err = { .pos = -1 };
	struct core *c = (struct core *)&err;	/* must be reset to NULL */
	int r = core__open(path, &c, &err);

	cr_assert(eq(int, r, code), "open %s: %d (%s), want %d", path, r, err.msg, code);
	cr_assert_null(c);
	cr_assert_not_null(strstr(err.msg, want), "message '%s' lacks '%s'", err.msg, want);
}

struct want_map {
	uint64_t start, end;
	int prot;
	uint64_t held, present;
	const char *path;
	uint64_t pgoff;
};

static void expect_maps(const struct core *c, const struct want_map *w, size_t n)
{
	size_t i;

	cr_assert(eq(sz, core__count(c), n), "%zu ranges, want %zu", core__count(c), n);
	for (i = 0; i < n; i++) {
		const struct core_map *m = core__map(c, i);

		cr_expect(eq(u64, m->start, w[i].start), "[%zu] start %#lx want %#lx", i, m->start,
			  w[i].start);
		cr_expect(eq(u64, m->end, w[i].end),
			  "[%zu] end %#lx want %#lx", i, m->end, w[i].end);
		cr_expect(eq(int, m->prot, w[i].prot),
			  "[%zu] prot %d want %d", i, m->prot, w[i].prot);
		cr_expect(eq(u64, m->held, w[i].held), "[%zu] held %#lx want %#lx", i, m->held,
			  w[i].held);
		cr_expect(eq(u64, m->present, w[i].present), "[%zu] present %#lx want %#lx", i,
			  m->present, w[i].present);
		if (w[i].path) {
			cr_expect(m->path && !strcmp(m->path, w[i].path), "[%zu] path %s want %s",
				  i, m->path ? m->path : "(null)", w[i].path);
			cr_expect(eq(u64, m->pgoff, w[i].pgoff), "[%zu] pgoff %#lx want %#lx", i,
				  m->pgoff, w[i].pgoff);
		} else {
			cr_expect_null(m->path, "[%zu] path %s want none", i, m->path);
		}
	}
	cr_expect_null(core__map(c, n));
}

/* ---- the standard layout ---------------------------------------------------- */

#define R	PROT_READ
#define RW	(PROT_READ | PROT_WRITE)
#define RX	(PROT_READ | PROT_EXEC)
#define MEMFD	"/memfd:buf (deleted)"
#define STACK	0x7ffc00000000ull
#define EXECFN	(STACK + 0xff0)

/*
 * Five PT_LOADs (one the vsyscall page) and four NT_FILE entries: one load
 * cut by two files, one file across two loads, a file no load covers, and a
 * load partly covered by a file that runs past it.
 */
static void std_core(struct tc *tc)
{
	static const struct tc_file files[] = {
		{ 0x400000, 0x402000, 0, "/bin/x" },
		{ 0x402000, 0x404000, 3, "/lib/y.so" },
		{ 0x500000, 0x502000, 1, "/lib/z.so" },
		{ 0x7ff000001000, 0x7ff000003000, 2, MEMFD },
	};

	tc_file_note(tc, 0x1000, 4, files);
	tc_load(tc, 0x400000, 0x3000, 0x2800, PF_R | PF_X);
	tc_load(tc, 0x403000, 0x2000, 0x2000, PF_R | PF_W);
	tc_load(tc, 0x600000, 0x1000, 0x1000, PF_R | PF_W);
	tc_load(tc, 0x7ff000000000, 0x2000, 0, PF_R);
	tc_load(tc, STACK, 0x1000, 0x1000, PF_R | PF_W);
	tc_load(tc, 0xffffffffff600000, 0x1000, 0x1000, PF_X);
	tc_poke(tc, EXECFN, "/usr/bin/x", 11);
}

static const struct want_map std_maps[] = {
	{ 0x400000, 0x402000, RX, 0x2000, 0x2000, "/bin/x", 0 },
	{ 0x402000, 0x403000, RX, 0x800, 0x800, "/lib/y.so", 0x3000 },
	{ 0x403000, 0x404000, RW, 0x1000, 0x1000, "/lib/y.so", 0x4000 },
	{ 0x404000, 0x405000, RW, 0x1000, 0x1000, NULL, 0 },
	{ 0x500000, 0x502000, -1, 0, 0, "/lib/z.so", 0x1000 },
	{ 0x600000, 0x601000, RW, 0x1000, 0x1000, NULL, 0 },
	{ 0x7ff000000000, 0x7ff000001000, R, 0, 0, NULL, 0 },
	{ 0x7ff000001000, 0x7ff000002000, R, 0, 0, MEMFD, 0x2000 },
	{ 0x7ff000002000, 0x7ff000003000, -1, 0, 0, MEMFD, 0x3000 },
	{ STACK, STACK + 0x1000, RW, 0x1000, 0x1000, NULL, 0 },
};
#define NSTD	(sizeof(std_maps) / sizeof(std_maps[0]))

Test(core, maps_split_at_nt_file)
{
	struct tc tc = { 0 };
	struct core *c;

	std_core(&tc);
	tc_write(&tc, core_path);
	c = open_ok(core_path);
	expect_maps(c, std_maps, NSTD);
	cr_expect(eq(u64, core__info(c)->missing, 0));
	cr_expect(eq(u64, core__info(c)->page_size, 0x1000));
	core__close(c);
}

/* Expect LEN bytes at V in BUF to be the pattern. */
static void expect_pattern(const uint8_t *buf, uint64_t v, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		cr_assert(eq(int, buf[i], pat(v + i)), "byte %#lx: %#x want %#x", v + i, buf[i],
			  pat(v + i));
}

Test(core, read_stops_at_held_and_range_ends)
{
	struct tc tc = { 0 };
	uint8_t buf[0x40];
	struct core *c;

	std_core(&tc);
	tc_write(&tc, core_path);
	c = open_ok(core_path);
	/* across the NT_FILE split inside the held bytes: stops at the range end */
	memset(buf, 0, sizeof(buf));
	cr_expect(eq(sz, core__read(c, 0x401ff0, buf, 0x20), 0x10));
	expect_pattern(buf, 0x401ff0, 0x10);
	cr_expect(eq(sz, core__read(c, 0x402000, buf, 0x20), 0x20));
	expect_pattern(buf, 0x402000, 0x20);
	/* where the held bytes end (filesz 0x2800 of a 0x3000 load) */
	cr_expect(eq(sz, core__read(c, 0x4027f0, buf, 0x40), 0x10));
	expect_pattern(buf, 0x4027f0, 0x10);
	cr_expect(eq(sz, core__read(c, 0x402800, buf, 0x40), 0));
	cr_expect(eq(sz, core__read(c, 0x402fff, buf, 1), 0));
	/* the second load's bytes at their own file offset */
	cr_expect(eq(sz, core__read(c, 0x404ff8, buf, 0x40), 8));
	expect_pattern(buf, 0x404ff8, 8);
	/* not held: NT_FILE only, filesz 0, a hole, the vsyscall page */
	cr_expect(eq(sz, core__read(c, 0x500000, buf, 0x10), 0));
	cr_expect(eq(sz, core__read(c, 0x7ff000000000, buf, 0x10), 0));
	cr_expect(eq(sz, core__read(c, 0x405000, buf, 0x10), 0));
	cr_expect(eq(sz, core__read(c, 0x3fffff, buf, 0x10), 0));
	cr_expect(eq(sz, core__read(c, 0xffffffffff600000, buf, 0x10), 0));
	cr_expect(eq(sz, core__read(c, 0x600000, buf, 0), 0));
	core__close(c);
}

Test(core, read_str)
{
	struct tc tc = { 0 };
	char buf[64], small[5];
	struct core *c;

	std_core(&tc);
	tc_poke(&tc, STACK + 0xffb, "abcde", 5);	/* no NUL before the load ends */
	tc_write(&tc, core_path);
	c = open_ok(core_path);
	cr_expect(eq(int, core__read_str(c, EXECFN, buf, sizeof(buf)), 0));
	cr_expect_str_eq(buf, "/usr/bin/x");
	cr_expect(eq(int, core__read_str(c, EXECFN + 9, buf, sizeof(buf)), 0));
	cr_expect_str_eq(buf, "x");
	cr_expect(eq(int, core__read_str(c, EXECFN, small, sizeof(small)), -ERANGE));
	cr_expect_str_eq(small, "/usr");
	cr_expect(eq(int, core__read_str(c, STACK + 0xffb, buf, sizeof(buf)), -ENOENT));
	cr_expect(eq(int, core__read_str(c, 0x402ff0, buf, sizeof(buf)), -ENOENT));
	cr_expect(eq(int, core__read_str(c, 0x500000, buf, sizeof(buf)), -ENOENT));
	core__close(c);
}

/* ---- notes ---------------------------------------------------------------- */

static void add_psinfo(struct tc *tc, int pid, const char *fname, const char *args)
{
	prpsinfo_t p;

	memset(&p, 0, sizeof(p));
	p.pr_pid = pid;
	/* the kernel fills all 16 bytes of a long name, with no NUL */
	memcpy(p.pr_fname, fname, strnlen(fname, sizeof(p.pr_fname)));
	memcpy(p.pr_psargs, args, strnlen(args, sizeof(p.pr_psargs)));
	tc_note(tc, NT_PRPSINFO, &p, sizeof(p));
}

static void add_status(struct tc *tc, int pid, int cursig)
{
	prstatus_t s;

	memset(&s, 0, sizeof(s));
	s.pr_pid = pid;
	s.pr_cursig = (short)cursig;
	tc_note(tc, NT_PRSTATUS, &s, sizeof(s));
}

static void add_siginfo(struct tc *tc, int signo)
{
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	si.si_signo = signo;
	tc_note(tc, NT_SIGINFO, &si, sizeof(si));
}

static void add_auxv(struct tc *tc, uint64_t pagesz)
{
	Elf64_auxv_t a[] = {
		{ AT_SYSINFO_EHDR, { 0x7fff00001000 } }, { AT_PHDR, { 0x400040 } },
		{ AT_PAGESZ, { pagesz } },		 { AT_ENTRY, { 0x401230 } },
		{ AT_EXECFN, { EXECFN } },		 { AT_NULL, { 0 } },
		{ AT_ENTRY, { 0xbad } },	/* after AT_NULL: ignored */
	};

	tc_note(tc, NT_AUXV, a, sizeof(a));
}

Test(core, info_from_notes)
{
	struct tc tc = { 0 };
	const struct core_info *in;
	char exe[64];
	struct core *c;

	add_status(&tc, 4321, SIGABRT);	/* the dumping thread: the kernel writes it first */
	add_psinfo(&tc, 1234, "a-sixteen-char-name", "./x --flag arg ");
	add_siginfo(&tc, SIGSEGV);
	add_status(&tc, 4322, SIGILL);	/* another thread: ignored */
	add_siginfo(&tc, SIGBUS);
	add_auxv(&tc, 0x1000);
	tc_raw_note(&tc, "LINUX", NT_PRPSINFO, "junk", 4);	/* not "CORE": ignored */
	std_core(&tc);
	tc_write(&tc, core_path);
	c = open_ok(core_path);
	in = core__info(c);
	cr_expect(eq(int, in->pid, 1234));
	cr_expect_str_eq(in->comm, "a-sixteen-char-n");	/* pr_fname has 16 bytes, no NUL */
	cr_expect_str_eq(in->psargs, "./x --flag arg ");
	cr_expect(eq(int, in->signal, SIGSEGV));
	cr_expect(eq(uint, in->machine, TC_EM));
	cr_expect(eq(u64, in->page_size, 0x1000));
	cr_expect(eq(ulong, in->at_sysinfo_ehdr, 0x7fff00001000));
	cr_expect(eq(u64, in->at_execfn, EXECFN));
	cr_expect(eq(u64, in->at_phdr, 0x400040));
	cr_expect(eq(u64, in->at_entry, 0x401230));
	cr_expect(eq(u64, in->missing, 0));
	cr_expect(eq(u64, in->file_size, tc.load[5].offset + 0x1000));	/* vsyscall's page last */
	cr_expect(eq(int, core__read_str(c, in->at_execfn, exe, sizeof(exe)), 0));
	cr_expect_str_eq(exe, "/usr/bin/x");
	core__close(c);
}

Test(core, info_fallbacks)
{
	struct tc tc = { 0 };
	const struct core_info *in;
	struct core *c;

	add_status(&tc, 4321, SIGABRT);
	add_status(&tc, 4322, SIGILL);
	tc_load(&tc, 0x600000, 0x1000, 0x1000, PF_R | PF_W);
	tc_write(&tc, core_path);
	c = open_ok(core_path);
	in = core__info(c);
	cr_expect(eq(int, in->pid, 4321));
	cr_expect(eq(int, in->signal, SIGABRT));
	cr_expect_str_eq(in->comm, "");
	cr_expect_str_eq(in->psargs, "");
	cr_expect(eq(u64, in->page_size, 4096));
	cr_expect(eq(u64, in->at_execfn, 0));
	cr_expect(eq(u64, in->at_sysinfo_ehdr, 0));
	expect_maps(c, (struct want_map[]){ { 0x600000, 0x601000, RW, 0x1000, 0x1000, NULL, 0 } },
		    1);
	core__close(c);

	/* no notes at all */
	memset(&tc, 0, sizeof(tc));
	tc_write(&tc, core_path);
	c = open_ok(core_path);
	in = core__info(c);
	cr_expect(eq(int, in->pid, 0));
	cr_expect(eq(int, in->signal, 0));
	cr_expect(eq(sz, core__count(c), 0));
	core__close(c);
}

/* gdb's gcore: NT_FILE page size 1 (offsets in bytes); the page size comes from AT_PAGESZ. */
Test(core, gdb_nt_file_in_bytes)
{
	static const struct tc_file files[] = { { 0x400000, 0x404000, 0x1234000, "/bin/g" } };
	struct tc tc = { 0 };
	struct core *c;

	tc_file_note(&tc, 1, 1, files);
	add_auxv(&tc, 0x4000);
	tc_load(&tc, 0x402000, 0x1000, 0x1000, PF_R);
	tc_write(&tc, core_path);
	c = open_ok(core_path);
	cr_expect(eq(u64, core__info(c)->page_size, 0x4000));
	expect_maps(c,
		    (struct want_map[]){
			    { 0x400000, 0x402000, -1, 0, 0, "/bin/g", 0x1234000 },
			    { 0x402000, 0x403000, R, 0x1000, 0x1000, "/bin/g", 0x1236000 },
			    { 0x403000, 0x404000, -1, 0, 0, "/bin/g", 0x1237000 },
		    },
		    3);
	core__close(c);

	/* without AT_PAGESZ, a kernel NT_FILE's 16K page */
	memset(&tc, 0, sizeof(tc));
	tc_file_note(&tc, 0x4000, 1, (struct tc_file[]){ { 0x400000, 0x408000, 2, "/bin/k" } });
	tc_write(&tc, core_path);
	c = open_ok(core_path);
	cr_expect(eq(u64, core__info(c)->page_size, 0x4000));
	expect_maps(c, (struct want_map[]){ { 0x400000, 0x408000, -1, 0, 0, "/bin/k", 0x8000 } },
		    1);
	core__close(c);
}

/* Loads and NT_FILE entries that overlap (no real core has them) come out disjoint. */
Test(core, hostile_overlaps_made_disjoint)
{
	static const struct tc_file files[] = {
		{ 0x402000, 0x406000, 0, "/b" },
		{ 0x400000, 0x403000, 0, "/a" },	/* out of order, overlaps /b */
		{ 0x405000, 0x405000, 0, "/empty" },	/* empty: ignored */
	};
	struct tc tc = { 0 };
	struct core *c;

	tc_file_note(&tc, 0x1000, 3, files);
	tc_load(&tc, 0x401000, 0x2000, 0x2000, PF_R | PF_W);
	tc_load(&tc, 0x400000, 0x2000, 0x2000, PF_R);	/* overlaps the first */
	tc_load(&tc, 0x7fffffffe000, 0x3000, 0x3000, PF_R);	/* crosses user-space end */
	tc_write(&tc, core_path);
	c = open_ok(core_path);
	expect_maps(c,
		    (struct want_map[]){
			    { 0x400000, 0x402000, R, 0x2000, 0x2000, "/a", 0 },
			    { 0x402000, 0x403000, RW, 0x1000, 0x1000, "/a", 0x2000 },
			    { 0x403000, 0x406000, -1, 0, 0, "/b", 0x1000 },
			    { 0x7fffffffe000, 0x7ffffffff000, R, 0x1000, 0x1000, NULL, 0 },
		    },
		    4);
	core__close(c);
}

/* ---- truncation and bad input --------------------------------------------- */

Test(core, truncated_data_opens_with_missing)
{
	struct tc tc = { 0 };
	const struct core_info *in;
	uint8_t buf[0x100];
	struct core *c;
	uint64_t cut;

	std_core(&tc);
	tc_write(&tc, core_path);
	cut = tc.load[2].offset + 0x234;	/* inside the anonymous page at 0x600000 */
	cr_assert(eq(int, truncate(core_path, (off_t)cut), 0));
	c = open_ok(core_path);
	in = core__info(c);
	cr_expect(eq(u64, in->file_size, cut));
	/* 0x600000's page less 0x234 bytes, and all the stack's */
	cr_expect(eq(u64, in->missing, (0x1000 - 0x234) + 0x1000));
	cr_expect(eq(u64, core__map(c, 5)->start, 0x600000));
	cr_expect(eq(u64, core__map(c, 5)->held, 0x1000));
	cr_expect(eq(u64, core__map(c, 5)->present, 0x234));
	cr_expect(eq(u64, core__map(c, 9)->held, 0x1000));
	cr_expect(eq(u64, core__map(c, 9)->present, 0));
	cr_expect(eq(u64, core__map(c, 3)->present, 0x1000));	/* before the cut: whole */
	cr_expect(eq(sz, core__read(c, 0x600200, buf, sizeof(buf)), 0x34));
	expect_pattern(buf, 0x600200, 0x34);
	cr_expect(eq(sz, core__read(c, 0x600234, buf, sizeof(buf)), 0));
	cr_expect(eq(sz, core__read(c, STACK, buf, sizeof(buf)), 0));
	core__close(c);
}

Test(core, truncated_headers_and_notes)
{
	struct tc tc = { 0 };
	char want[128];

	add_psinfo(&tc, 1, "x", "x");
	std_core(&tc);
	tc_write(&tc, core_path);
	cr_assert(eq(int, truncate(core_path, (off_t)tc.notes_end - 1), 0));
	snprintf(want, sizeof(want), "truncated: %lu bytes, its notes end at %lu",
		 tc.notes_end - 1, tc.notes_end);
	open_fails(core_path, -EIO, want);

	cr_assert(eq(int, truncate(core_path, 100), 0));	/* in the program headers */
	snprintf(want, sizeof(want), "truncated: 100 bytes, its program headers end at %lu",
		 tc.notes_off);
	open_fails(core_path, -EIO, want);

	cr_assert(eq(int, truncate(core_path, 40), 0));
	open_fails(core_path, -EIO, "truncated: 40 bytes, its ELF header ends at 64");
}

/* A malformed NT_FILE note: an error, never a read past the note. */
Test(core, corrupt_nt_file)
{
	struct {
		uint64_t count, page, e[3];
		char names[8];
	} n = { 2, 0x1000, { 0x400000, 0x401000, 0 }, "/a" };
	struct tc tc = { 0 };

	tc_note(&tc, NT_FILE, &n, sizeof(n));	/* 2 entries, room for 1 */
	tc_write(&tc, core_path);
	open_fails(core_path, -EIO, "NT_FILE note lists more entries than it holds");

	memset(&tc, 0, sizeof(tc));
	n.count = 1;
	memcpy(n.names, "/abcdefg", 8);		/* no NUL */
	tc_note(&tc, NT_FILE, &n, sizeof(n));
	tc_write(&tc, core_path);
	open_fails(core_path, -EIO, "names run past its end");

	memset(&tc, 0, sizeof(tc));
	n.names[2] = '\0';
	n.page = 3000;
	tc_note(&tc, NT_FILE, &n, sizeof(n));
	tc_write(&tc, core_path);
	open_fails(core_path, -EIO, "bad page size");

	memset(&tc, 0, sizeof(tc));
	n.page = 0x1000;
	n.e[2] = 1ull << 60;				/* pgoff * page past 2^64 */
	tc_note(&tc, NT_FILE, &n, sizeof(n));
	tc_write(&tc, core_path);
	open_fails(core_path, -EIO, "past 2^64");
}

/* Notes shorter than their structs are skipped, not read past. */
Test(core, short_notes_ignored)
{
	struct tc tc = { 0 };
	const struct core_info *in;
	struct core *c;
	uint64_t auxv[3] = { AT_ENTRY, 0x401000, AT_EXECFN };	/* a half entry at the end */

	tc_note(&tc, NT_PRPSINFO, "\1\2\3\4", 4);
	tc_note(&tc, NT_PRSTATUS, "\1\2\3\4", 4);
	tc_note(&tc, NT_SIGINFO, "\1", 1);
	tc_note(&tc, NT_AUXV, auxv, sizeof(auxv));
	tc_write(&tc, core_path);
	c = open_ok(core_path);
	in = core__info(c);
	cr_expect(eq(int, in->pid, 0));
	cr_expect(eq(int, in->signal, 0));
	cr_expect_str_eq(in->comm, "");
	cr_expect(eq(u64, in->at_entry, 0x401000));
	cr_expect(eq(u64, in->at_execfn, 0));
	core__close(c);
}

/*
 * An NT_FILE entry with an empty name over the executable's program headers
 * (AT_PHDR): `ptap maps --core` shows an anonymous row and no executable
 * (it dereferenced the missing name; found by tests/fuzz/fuzz_core.c).
 */
Test(core, mapview_empty_nt_file_name)
{
	struct tc_file f[] = { { 0x400000, 0x401000, 0, "" } };
	struct ptap_err err = { .pos = -1 };
	struct mapview *v = NULL;
	struct tc tc = { 0 };

	add_auxv(&tc, 0x1000);		/* AT_PHDR 0x400040 */
	tc_file_note(&tc, 0x1000, 1, f);
	tc_load(&tc, 0x400000, 0x1000, 0x1000, PF_R | PF_X);
	tc_write(&tc, core_path);
	cr_assert(eq(int, mapview__core(core_path, &v, &err), 0), "%s", err.msg);
	cr_expect(eq(sz, v->nrows, 1));
	cr_expect(eq(u64, v->rows[0].start, 0x400000));
	cr_expect_null(v->rows[0].path);
	cr_expect_null(v->exe);		/* AT_EXECFN is not in the core either */
	mapview__free(v);
}

Test(core, not_a_core)
{
	struct tc tc = { 0 };
	char path[160];

	tc.type = ET_DYN;
	tc_write(&tc, core_path);
	open_fails(core_path, -ENOEXEC, "an ELF shared object (ET_DYN), not a core dump");
	tc.type = ET_EXEC;
	tc_write(&tc, core_path);
	open_fails(core_path, -ENOEXEC, "an ELF executable (ET_EXEC), not a core dump");
	tc.type = ET_REL;
	tc_write(&tc, core_path);
	open_fails(core_path, -ENOEXEC, "an ELF relocatable object (ET_REL), not a core dump");

	snprintf(path, sizeof(path), "%s/text", dir);
	write_text(path, "this is not a core dump, just some text\n");
	open_fails(path, -ENOEXEC, "text: not an ELF file");
	write_text(path, "");
	open_fails(path, -ENOEXEC, "not an ELF file");
	write_text(path, "\177ELF");
	open_fails(path, -EIO, "truncated: 4 bytes, its ELF header ends at");

	snprintf(path, sizeof(path), "%s/no-such-core", dir);
	open_fails(path, -ENOENT, "no-such-core: no such file");
	open_fails(dir, -EISDIR, "a directory, not a core dump");
	open_fails("/dev/null", -ENOEXEC, "not a regular file");
}

/* A core its reader may not read: -EACCES (as root, from a child that drops to nobody). */
Test(core, not_readable)
{
	struct tc tc = { 0 };
	int status;
	pid_t pid;

	tc_write(&tc, core_path);
	cr_assert(eq(int, chmod(core_path, 0), 0));
	cr_assert(eq(int, chmod(dir, 0755), 0));
	pid = fork();
	cr_assert(ge(int, pid, 0));
	if (pid == 0) {
		struct ptap_err err = { .pos = -1 };
		struct core *c;
		int r;

		if (geteuid() == 0 && (setgid(65534) || setuid(65534)))
			_exit(100);
		r = core__open(core_path, &c, &err);
		_exit(r == -EACCES && strstr(err.msg, "not readable (permission denied)") ? 0 : 1);
	}
	cr_assert(eq(int, waitpid(pid, &status, 0), pid));
	cr_expect(eq(int, status, 0), "status %#x", status);	/* exited 0 */
}

/* The bytes TC's user-space PT_LOADs claim beyond CUT. */
static uint64_t claimed_past(const struct tc *tc, uint64_t cut)
{
	uint64_t sum = 0;
	int k;

	for (k = 0; k < tc->nload; k++) {
		const struct tc_load *l = &tc->load[k];
		uint64_t end = l->offset + l->filesz;

		if (l->vaddr < 0x7ffffffff000ull && end > cut)
			sum += end - (l->offset > cut ? l->offset : cut);
	}
	return sum;
}

/* Every truncation of a small core either opens (missing counted) or fails cleanly. */
Test(core, every_truncation)
{
	struct tc tc = { 0 };
	uint64_t size, cut;

	add_psinfo(&tc, 1, "x", "x");
	add_auxv(&tc, 0x1000);
	std_core(&tc);
	tc_write(&tc, core_path);
	size = tc.load[5].offset + 0x1000;
	for (cut = size; cut > 0;) {	/* downwards: truncate() would extend with zeroes */
		struct ptap_err err = { .pos = -1 };
		struct core *c = NULL;
		int r;

		cut -= cut > tc.notes_end + 8 ? 0x111 : 1;
		cr_assert(eq(int, truncate(core_path, (off_t)cut), 0));
		r = core__open(core_path, &c, &err);
		if (cut < SELFMAG)
			cr_assert(eq(int, r, -ENOEXEC), "cut %lu: %d %s", cut, r, err.msg);
		else if (cut < tc.notes_end)
			cr_assert(eq(int, r, -EIO), "cut %lu: %d %s", cut, r, err.msg);
		else
			cr_assert(eq(int, r, 0), "cut %lu: %d %s", cut, r, err.msg);
		if (r == 0) {
			cr_assert(eq(ulong, core__count(c), NSTD));
			cr_assert(eq(u64, core__info(c)->missing, claimed_past(&tc, cut)),
				  "cut %lu", cut);
		}
		core__close(c);
	}
}
