/* dwarf/core.c: a core dump's ranges (PT_LOAD split at NT_FILE entries), its
 * process notes, and reads of the memory it holds.  libelf for the headers and
 * notes; every note field is bounds-checked, the file is read with pread. */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/procfs.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dwarf/core.h"
#include "probes/array.h"
#include "probes/err.h"

/* PT_LOADs at or above this are the kernel's (the x86-64 vsyscall page). */
#define CORE_USER_END	0x7ffffffff000ull
/* A PT_NOTE larger than this is taken for corruption, not read into memory. */
#define CORE_MAX_NOTES	(256u << 20)

/* The machine and byte order whose prpsinfo_t/prstatus_t <sys/procfs.h> describes. */
#if defined(__x86_64__)
#define CORE_NATIVE_EM	EM_X86_64
#elif defined(__aarch64__)
#define CORE_NATIVE_EM	EM_AARCH64
#else
#define CORE_NATIVE_EM	EM_NONE
#endif
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define CORE_NATIVE_DATA	ELFDATA2LSB
#else
#define CORE_NATIVE_DATA	ELFDATA2MSB
#endif

struct core_piece {
	struct core_map m;	/* first: core__map() hands out &m */
	uint64_t offset;	/* file offset of M.START's bytes (when M.HELD) */
};

struct core {
	int fd;
	struct core_info info;
	struct core_piece *maps;	/* sorted by start, disjoint */
	size_t nmaps, cap;
	char *names;		/* NT_FILE's names (the paths point here) */
};

/* A PT_LOAD, clipped to user space and to the loads before it. */
struct core_load {
	uint64_t start, end;
	uint64_t offset, held;	/* p_offset; p_filesz cut to the range */
	int prot;
};

/* An NT_FILE entry. */
struct core_file {
	uint64_t start, end;
	uint64_t pgoff;		/* bytes */
	const char *path;	/* into core->names */
};

/* State while opening. */
struct core_parse {
	struct core *c;
	const char *path;
	struct ptap_err *err;
	Elf *elf;
	size_t word;		/* 4 or 8: ELFCLASS32 or 64 */
	bool swap;		/* the file's byte order is not ours */
	bool native;		/* <sys/procfs.h>'s layouts apply */
	bool have_file, have_psinfo, have_status, have_siginfo, have_auxv;
	uint64_t file_page;	/* NT_FILE's page size (gdb writes 1: offsets in bytes) */
	uint64_t at_pagesz;	/* AT_PAGESZ */
	struct core_load *loads;
	size_t nloads, cap_loads;
	struct core_file *files;
	size_t nfiles;
};

/* A word of the core's class and byte order at P. */
static uint64_t get_word(const struct core_parse *ps, const unsigned char *p)
{
	uint32_t w;
	uint64_t v;

	if (ps->word == 8) {
		memcpy(&v, p, 8);
		return ps->swap ? __builtin_bswap64(v) : v;
	}
	memcpy(&w, p, 4);
	return ps->swap ? __builtin_bswap32(w) : w;
}

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

static int corrupt(struct core_parse *ps, const char *what)
{
	return ptap_err_set(ps->err, -1, -EIO, "%s: corrupt core dump: %s", ps->path, what);
}

/*
 * NT_FILE: count and page size, COUNT x (start, end, file offset in pages),
 * then COUNT NUL-terminated names.  The names are copied to C->NAMES.
 */
static int parse_file_note(struct core_parse *ps, const unsigned char *d, size_t len)
{
	size_t w = ps->word, i, nlen;
	uint64_t count, page;
	const char *n;

	if (len < 2 * w)
		return corrupt(ps, "NT_FILE note shorter than its header");
	count = get_word(ps, d);
	page = get_word(ps, d + w);
	if (count > (len - 2 * w) / (3 * w))
		return corrupt(ps, "NT_FILE note lists more entries than it holds");
	if (!page || (page & (page - 1)) || page > (1u << 30))
		return corrupt(ps, "NT_FILE note has a bad page size");
	nlen = len - 2 * w - (size_t)count * 3 * w;
	ps->c->names = malloc(nlen + 1);
	ps->files = calloc(count ? count : 1, sizeof(*ps->files));
	if (!ps->c->names || !ps->files)
		return ptap_err_set(ps->err, -1, -ENOMEM, "%s: out of memory", ps->path);
	memcpy(ps->c->names, d + 2 * w + count * 3 * w, nlen);
	ps->c->names[nlen] = '\0';
	n = ps->c->names;
	for (i = 0; i < count; i++) {
		const unsigned char *e = d + 2 * w + i * 3 * w;
		const char *nul = memchr(n, '\0', nlen - (size_t)(n - ps->c->names));
		struct core_file *f = &ps->files[ps->nfiles];
		uint64_t pg = get_word(ps, e + 2 * w);

		if (!nul)
			return corrupt(ps, "NT_FILE note's names run past its end");
		f->start = get_word(ps, e);
		f->end = get_word(ps, e + w);
		f->path = n;
		n = nul + 1;
		if (__builtin_mul_overflow(pg, page, &f->pgoff))
			return corrupt(ps, "NT_FILE note has a file offset past 2^64");
		if (f->start < f->end)
			ps->nfiles++;	/* an empty or inverted range describes nothing */
	}
	ps->file_page = page;
	return 0;
}

/* NT_AUXV: (type, value) words up to AT_NULL. */
static void parse_auxv(struct core_parse *ps, const unsigned char *d, size_t len)
{
	struct core_info *in = &ps->c->info;
	size_t i;

	for (i = 0; i + 2 * ps->word <= len; i += 2 * ps->word) {
		uint64_t type = get_word(ps, d + i), val = get_word(ps, d + i + ps->word);

		if (type == AT_NULL)
			break;
		if (type == AT_SYSINFO_EHDR)
			in->at_sysinfo_ehdr = val;
		else if (type == AT_EXECFN)
			in->at_execfn = val;
		else if (type == AT_PHDR)
			in->at_phdr = val;
		else if (type == AT_ENTRY)
			in->at_entry = val;
		else if (type == AT_PAGESZ)
			ps->at_pagesz = val;
	}
}

/* One note named "CORE"; the first of each type counts. */
static int parse_note(struct core_parse *ps, uint32_t type, const unsigned char *d, size_t len)
{
	struct core_info *in = &ps->c->info;

	switch (type) {
	case NT_FILE:
		if (ps->have_file)
			return 0;
		ps->have_file = true;
		return parse_file_note(ps, d, len);
	case NT_PRPSINFO: {
		prpsinfo_t p;

		if (ps->have_psinfo || !ps->native ||
		    len < offsetof(prpsinfo_t, pr_psargs) + sizeof(p.pr_psargs))
			return 0;
		ps->have_psinfo = true;
		memcpy(&p, d, min_u64(len, sizeof(p)));
		if (p.pr_pid > 0)
			in->pid = p.pr_pid;
		memcpy(in->comm, p.pr_fname, sizeof(p.pr_fname));
		in->comm[sizeof(p.pr_fname)] = '\0';
		memcpy(in->psargs, p.pr_psargs, sizeof(p.pr_psargs));
		in->psargs[sizeof(p.pr_psargs)] = '\0';
		return 0;
	}
	case NT_PRSTATUS: {
		prstatus_t s;

		if (ps->have_status || !ps->native ||
		    len < offsetof(prstatus_t, pr_pid) + sizeof(s.pr_pid))
			return 0;
		ps->have_status = true;
		memcpy(&s, d, min_u64(len, sizeof(s)));
		if (!ps->have_psinfo && s.pr_pid > 0)
			in->pid = s.pr_pid;
		if (!ps->have_siginfo)
			in->signal = s.pr_cursig;
		return 0;
	}
	case NT_SIGINFO: {
		uint32_t signo;

		if (ps->have_siginfo || len < sizeof(signo))
			return 0;
		ps->have_siginfo = true;
		memcpy(&signo, d, sizeof(signo));	/* si_signo leads in every ABI */
		in->signal = (int)(ps->swap ? __builtin_bswap32(signo) : signo);
		return 0;
	}
	case NT_AUXV:
		if (ps->have_auxv)
			return 0;
		ps->have_auxv = true;
		parse_auxv(ps, d, len);
		return 0;
	}
	return 0;
}

/* The notes of one PT_NOTE (already known to lie within the file). */
static int parse_notes(struct core_parse *ps, const GElf_Phdr *ph)
{
	Elf_Data *data;
	size_t off = 0, next, name_off, desc_off;
	GElf_Nhdr nh;
	int r;

	if (!ph->p_filesz)
		return 0;
	data = elf_getdata_rawchunk(ps->elf, (int64_t)ph->p_offset, ph->p_filesz,
				    ph->p_align == 8 ? ELF_T_NHDR8 : ELF_T_NHDR);
	if (!data)
		return ptap_err_set(ps->err, -1, -EIO, "%s: cannot read the notes at 0x%llx: %s",
				    ps->path, (unsigned long long)ph->p_offset, elf_errmsg(-1));
	while ((next = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
		const unsigned char *base = data->d_buf;

		off = next;
		if (name_off > data->d_size || data->d_size - name_off < nh.n_namesz ||
		    desc_off > data->d_size || data->d_size - desc_off < nh.n_descsz)
			break;	/* gelf_getnote checks this; so do we */
		if (nh.n_namesz != sizeof("CORE") || memcmp(base + name_off, "CORE", 5))
			continue;
		r = parse_note(ps, nh.n_type, base + desc_off, nh.n_descsz);
		if (r < 0)
			return r;
	}
	return 0;
}

static int prot_of(uint32_t flags)
{
	return (flags & PF_R ? PROT_READ : 0) | (flags & PF_W ? PROT_WRITE : 0) |
	       (flags & PF_X ? PROT_EXEC : 0);
}

/* A PT_LOAD, clipped to user space; none for the vsyscall page or an empty one. */
static int add_load(struct core_parse *ps, const GElf_Phdr *ph)
{
	struct core_load *l;
	uint64_t end;

	if (ph->p_vaddr >= CORE_USER_END || !ph->p_memsz)
		return 0;
	if (__builtin_add_overflow(ph->p_vaddr, ph->p_memsz, &end) || end > CORE_USER_END)
		end = CORE_USER_END;
	if (array_grow((void **)&ps->loads, &ps->cap_loads, sizeof(*l), ps->nloads + 1))
		return ptap_err_set(ps->err, -1, -ENOMEM, "%s: out of memory", ps->path);
	l = &ps->loads[ps->nloads++];
	l->start = ph->p_vaddr;
	l->end = end;
	l->offset = ph->p_offset;
	l->held = min_u64(ph->p_filesz, end - l->start);
	l->prot = prot_of(ph->p_flags);
	return 0;
}

static int cmp_load(const void *a, const void *b)
{
	const struct core_load *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static int cmp_file(const void *a, const void *b)
{
	const struct core_file *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static int cmp_piece(const void *a, const void *b)
{
	const struct core_piece *x = a, *y = b;

	return x->m.start < y->m.start ? -1 : x->m.start > y->m.start;
}

/*
 * Sort LOADS and FILES and cut each one's overlap with the one before it
 * (never in a core the kernel or gdb wrote), so that both are disjoint.
 */
static void make_disjoint(struct core_parse *ps)
{
	size_t i, n;

	if (ps->nloads)
		qsort(ps->loads, ps->nloads, sizeof(*ps->loads), cmp_load);
	for (i = n = 0; i < ps->nloads; i++) {
		struct core_load l = ps->loads[i];

		if (n && l.start < ps->loads[n - 1].end) {
			uint64_t cut = ps->loads[n - 1].end - l.start;

			if (cut >= l.end - l.start)
				continue;
			l.start += cut;
			l.offset += cut;
			l.held = l.held > cut ? l.held - cut : 0;
		}
		ps->loads[n++] = l;
	}
	ps->nloads = n;

	if (ps->nfiles)
		qsort(ps->files, ps->nfiles, sizeof(*ps->files), cmp_file);
	for (i = n = 0; i < ps->nfiles; i++) {
		struct core_file f = ps->files[i];

		if (n && f.start < ps->files[n - 1].end) {
			uint64_t cut = ps->files[n - 1].end - f.start;

			if (cut >= f.end - f.start)
				continue;
			f.start += cut;
			f.pgoff += cut;
		}
		ps->files[n++] = f;
	}
	ps->nfiles = n;
}

/* The piece [S, E) of load L (or of no load) and file entry F (or none). */
static int add_piece(struct core_parse *ps, uint64_t s, uint64_t e, const struct core_load *l,
		     const struct core_file *f)
{
	struct core *c = ps->c;
	struct core_piece *p;

	if (array_grow((void **)&c->maps, &c->cap, sizeof(*p), c->nmaps + 1))
		return ptap_err_set(ps->err, -1, -ENOMEM, "%s: out of memory", ps->path);
	p = &c->maps[c->nmaps++];
	memset(p, 0, sizeof(*p));
	p->m.start = s;
	p->m.end = e;
	p->m.prot = -1;
	if (l) {
		uint64_t d = s - l->start;

		p->m.prot = l->prot;
		if (l->held > d && !__builtin_add_overflow(l->offset, d, &p->offset)) {
			p->m.held = min_u64(l->held - d, e - s);
			if (p->offset < c->info.file_size)
				p->m.present = min_u64(p->m.held, c->info.file_size - p->offset);
			c->info.missing += p->m.held - p->m.present;
		}
	}
	if (f) {
		p->m.path = f->path;
		p->m.pgoff = f->pgoff + (s - f->start);
	}
	return 0;
}

/* Load L split where the file entries from *J on begin and end. */
static int split_load(struct core_parse *ps, const struct core_load *l, size_t *j)
{
	uint64_t pos = l->start;
	size_t k;
	int r;

	while (*j < ps->nfiles && ps->files[*j].end <= l->start)
		(*j)++;
	for (k = *j; k < ps->nfiles && ps->files[k].start < l->end; k++) {
		const struct core_file *f = &ps->files[k];
		uint64_t lo = f->start > pos ? f->start : pos, hi = min_u64(f->end, l->end);

		if (lo > pos && (r = add_piece(ps, pos, lo, l, NULL)) < 0)
			return r;
		if ((r = add_piece(ps, lo, hi, l, f)) < 0)
			return r;
		pos = hi;
	}
	return pos < l->end ? add_piece(ps, pos, l->end, l, NULL) : 0;
}

/* The parts of file entry F that no load from *J on covers. */
static int file_gaps(struct core_parse *ps, const struct core_file *f, size_t *j)
{
	uint64_t pos = f->start;
	size_t k;
	int r;

	while (*j < ps->nloads && ps->loads[*j].end <= f->start)
		(*j)++;
	for (k = *j; k < ps->nloads && ps->loads[k].start < f->end; k++) {
		const struct core_load *l = &ps->loads[k];

		if (l->start > pos && (r = add_piece(ps, pos, l->start, NULL, f)) < 0)
			return r;
		if (l->end > pos)
			pos = min_u64(l->end, f->end);
	}
	return pos < f->end ? add_piece(ps, pos, f->end, NULL, f) : 0;
}

/* The process's page size: AT_PAGESZ, else NT_FILE's unit when a page (not gdb's 1). */
static void set_page_size(struct core_parse *ps)
{
	uint64_t p = ps->at_pagesz;

	if (!p || (p & (p - 1)) || p < 1024 || p > (1u << 30))
		p = ps->file_page >= 1024 ? ps->file_page : 0;
	if (p)
		ps->c->info.page_size = p;
}

static int build_maps(struct core_parse *ps)
{
	size_t i, j;
	int r;

	set_page_size(ps);
	make_disjoint(ps);
	for (i = j = 0; i < ps->nloads; i++)
		if ((r = split_load(ps, &ps->loads[i], &j)) < 0)
			return r;
	for (i = j = 0; i < ps->nfiles; i++)
		if ((r = file_gaps(ps, &ps->files[i], &j)) < 0)
			return r;
	if (ps->c->nmaps)
		qsort(ps->c->maps, ps->c->nmaps, sizeof(*ps->c->maps), cmp_piece);
	return 0;
}

static const char *type_name(unsigned int type)
{
	switch (type) {
	case ET_NONE:
		return "an ELF file of no type (ET_NONE)";
	case ET_REL:
		return "an ELF relocatable object (ET_REL)";
	case ET_EXEC:
		return "an ELF executable (ET_EXEC)";
	case ET_DYN:
		return "an ELF shared object (ET_DYN)";
	}
	return NULL;
}

/* Check the ELF header and that the program headers and notes lie within the file. */
static int check_headers(struct core_parse *ps, size_t *nph)
{
	uint64_t size = ps->c->info.file_size, end, notes_end = 0;
	GElf_Ehdr eh;
	size_t i;

	if (!gelf_getehdr(ps->elf, &eh))
		return ptap_err_set(ps->err, -1, -ENOEXEC, "%s: not an ELF file (%s)", ps->path,
				    elf_errmsg(-1));
	if (eh.e_type != ET_CORE) {
		const char *t = type_name(eh.e_type);

		if (t)
			return ptap_err_set(ps->err, -1, -ENOEXEC, "%s: %s, not a core dump",
					    ps->path, t);
		return ptap_err_set(ps->err, -1, -ENOEXEC,
				    "%s: an ELF file of type 0x%x, not a core dump", ps->path,
				    eh.e_type);
	}
	ps->c->info.machine = eh.e_machine;
	ps->word = gelf_getclass(ps->elf) == ELFCLASS32 ? 4 : 8;
	ps->swap = eh.e_ident[EI_DATA] != CORE_NATIVE_DATA;
	ps->native = ps->word == 8 && !ps->swap && eh.e_machine == CORE_NATIVE_EM;
	if (eh.e_phnum != PN_XNUM) {
		*nph = eh.e_phnum;
	} else if (eh.e_shoff > size || size - eh.e_shoff < eh.e_shentsize || !eh.e_shentsize) {
		/* More than 0xfffe headers: section header 0 counts them. */
		return ptap_err_set(ps->err, -1, -EIO,
				    "%s: truncated: %llu bytes, its header count (section header "
				    "0) ends at %llu", ps->path, (unsigned long long)size,
				    (unsigned long long)eh.e_shoff + eh.e_shentsize);
	} else if (elf_getphdrnum(ps->elf, nph) < 0) {
		return corrupt(ps, "cannot count its program headers");
	}
	if (!*nph)
		return 0;
	if (eh.e_phentsize != gelf_fsize(ps->elf, ELF_T_PHDR, 1, EV_CURRENT))
		return corrupt(ps, "program headers of an unexpected size");
	if (__builtin_mul_overflow((uint64_t)*nph, eh.e_phentsize, &end) ||
	    __builtin_add_overflow(end, eh.e_phoff, &end))
		return corrupt(ps, "program headers past 2^64");
	if (end > size)
		return ptap_err_set(ps->err, -1, -EIO,
				    "%s: truncated: %llu bytes, its program headers end at %llu",
				    ps->path, (unsigned long long)size, (unsigned long long)end);
	for (i = 0; i < *nph; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(ps->elf, (int)i, &ph))
			return corrupt(ps, "unreadable program header");
		if (ph.p_type != PT_NOTE)
			continue;
		if (__builtin_add_overflow(ph.p_offset, ph.p_filesz, &end))
			return corrupt(ps, "notes past 2^64");
		if (end > notes_end)
			notes_end = end;
		if (ph.p_filesz > CORE_MAX_NOTES)
			return corrupt(ps, "a PT_NOTE segment of more than 256 MiB");
	}
	if (notes_end > size)
		return ptap_err_set(ps->err, -1, -EIO,
				    "%s: truncated: %llu bytes, its notes end at %llu", ps->path,
				    (unsigned long long)size, (unsigned long long)notes_end);
	return 0;
}

/* Open the file and check it starts like an ELF file. */
static int open_file(struct core_parse *ps)
{
	unsigned char ident[EI_NIDENT];
	struct stat st;
	ssize_t n;
	int e;

	ps->c->fd = open(ps->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (ps->c->fd < 0 || fstat(ps->c->fd, &st) < 0) {
		e = errno;
		if (e == ENOENT)
			return ptap_err_set(ps->err, -1, -e, "%s: no such file", ps->path);
		if (e == EACCES)
			return ptap_err_set(ps->err, -1, -e, "%s: not readable (permission denied)",
					    ps->path);
		return ptap_err_set(ps->err, -1, -e, "%s: %s", ps->path, strerror(e));
	}
	if (S_ISDIR(st.st_mode))
		return ptap_err_set(ps->err, -1, -EISDIR, "%s: a directory, not a core dump",
				    ps->path);
	if (!S_ISREG(st.st_mode))
		return ptap_err_set(ps->err, -1, -ENOEXEC, "%s: not a regular file", ps->path);
	ps->c->info.file_size = (uint64_t)st.st_size;
	memset(ident, 0, sizeof(ident));
	n = pread(ps->c->fd, ident, sizeof(ident), 0);
	if (n < 0) {
		e = errno;
		return ptap_err_set(ps->err, -1, -e, "%s: %s", ps->path, strerror(e));
	}
	if (n < SELFMAG || memcmp(ident, ELFMAG, SELFMAG))
		return ptap_err_set(ps->err, -1, -ENOEXEC, "%s: not an ELF file", ps->path);
	if (n < EI_NIDENT)
		goto short_header;
	if ((ident[EI_CLASS] != ELFCLASS32 && ident[EI_CLASS] != ELFCLASS64) ||
	    (ident[EI_DATA] != ELFDATA2LSB && ident[EI_DATA] != ELFDATA2MSB))
		return ptap_err_set(ps->err, -1, -ENOEXEC,
				    "%s: not an ELF file (unknown class or byte order)", ps->path);
	if (st.st_size < (ident[EI_CLASS] == ELFCLASS64 ? (off_t)sizeof(Elf64_Ehdr)
							: (off_t)sizeof(Elf32_Ehdr)))
		goto short_header;
	return 0;

short_header:
	return ptap_err_set(ps->err, -1, -EIO,
			    "%s: truncated: %llu bytes, its ELF header ends at %zu", ps->path,
			    (unsigned long long)st.st_size, ident[EI_CLASS] == ELFCLASS32 ?
			    sizeof(Elf32_Ehdr) : sizeof(Elf64_Ehdr));
}

int core__open(const char *path, struct core **out, struct ptap_err *err)
{
	struct core_parse ps = { .path = path, .err = err };
	size_t nph = 0, i;
	int r;

	*out = NULL;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return ptap_err_set(err, -1, -ENOSYS, "libelf: %s", elf_errmsg(-1));
	ps.c = calloc(1, sizeof(*ps.c));
	if (!ps.c)
		return ptap_err_set(err, -1, -ENOMEM, "%s: out of memory", path);
	ps.c->fd = -1;
	ps.c->info.page_size = 4096;
	r = open_file(&ps);
	if (r < 0)
		goto fail;
	ps.elf = elf_begin(ps.c->fd, ELF_C_READ, NULL);
	if (!ps.elf || elf_kind(ps.elf) != ELF_K_ELF) {
		r = ptap_err_set(err, -1, -ENOEXEC, "%s: not an ELF file", path);
		goto fail;
	}
	r = check_headers(&ps, &nph);
	for (i = 0; r == 0 && i < nph; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(ps.elf, (int)i, &ph))
			r = corrupt(&ps, "unreadable program header");
		else if (ph.p_type == PT_NOTE)
			r = parse_notes(&ps, &ph);
		else if (ph.p_type == PT_LOAD)
			r = add_load(&ps, &ph);
	}
	if (r == 0)
		r = build_maps(&ps);
	if (r < 0)
		goto fail;
	elf_end(ps.elf);
	free(ps.loads);
	free(ps.files);
	*out = ps.c;
	return 0;

fail:
	elf_end(ps.elf);
	free(ps.loads);
	free(ps.files);
	core__close(ps.c);
	return r;
}

void core__close(struct core *c)
{
	if (!c)
		return;
	if (c->fd >= 0)
		close(c->fd);
	free(c->maps);
	free(c->names);
	free(c);
}

const struct core_info *core__info(const struct core *c)
{
	return &c->info;
}

size_t core__count(const struct core *c)
{
	return c->nmaps;
}

const struct core_map *core__map(const struct core *c, size_t i)
{
	return i < c->nmaps ? &c->maps[i].m : NULL;
}

/* The piece holding VADDR, or NULL. */
static const struct core_piece *find_piece(const struct core *c, uint64_t vaddr)
{
	size_t lo = 0, hi = c->nmaps;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->maps[mid].m.end <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < c->nmaps && c->maps[lo].m.start <= vaddr)
		return &c->maps[lo];
	return NULL;
}

size_t core__read(const struct core *c, uint64_t vaddr, void *buf, size_t len)
{
	const struct core_piece *p = find_piece(c, vaddr);
	uint64_t d;
	size_t n, got = 0;

	if (!p)
		return 0;
	d = vaddr - p->m.start;
	if (d >= p->m.present)
		return 0;
	n = (size_t)min_u64(len, p->m.present - d);
	while (got < n) {
		ssize_t k = pread(c->fd, (char *)buf + got, n - got, (off_t)(p->offset + d + got));

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;	/* the file shrank since it was opened */
		got += (size_t)k;
	}
	return got;
}

int core__read_str(const struct core *c, uint64_t vaddr, char *buf, size_t len)
{
	size_t got = 0;

	if (!len)
		return -ERANGE;
	while (got < len) {
		size_t n = core__read(c, vaddr + got, buf + got, len - got);

		if (!n) {
			buf[0] = '\0';
			return -ENOENT;
		}
		if (memchr(buf + got, '\0', n))
			return 0;
		got += n;
	}
	buf[len - 1] = '\0';
	return -ERANGE;
}
