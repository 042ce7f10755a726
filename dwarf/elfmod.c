/* dwarf/elfmod.c: one ELF file opened with libelf.  Owns the Elf handle (the
 * file stays mmapped until elfmod__close()), the PT_LOAD table, and symbol
 * indexes built once at open: by name (lookup) and by address (sym_at). */
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dwarf/elfmod.h"
#include "probes/err.h"
#include "probes/log.h"
#include "probes/nearest.h"

/*
 * ptap is built for x86-64 only (arch/ has x86_64 alone); the tracer can pass
 * arch_e_machine to elfmod__open_machine() once there is a second arch.
 */
#define ELFMOD_NATIVE_MACHINE	EM_X86_64

#define ELFMOD_PAGE_MASK	4095ULL

/* Version index flag: the symbol is name@VER, not the default name@@VER. */
#define ELFMOD_VERSYM_HIDDEN	0x8000
#define ELFMOD_VERSYM_MASK	0x7fff

enum { SRC_SYMTAB, SRC_DYNSYM };

struct elfmod_symrec {
	const char *name;	/* in libelf's string table data */
	const char *ver;	/* .dynsym: its version name ("GLIBC_2.2.5"), or NULL */
	uint64_t vaddr, size;
	uint32_t idx;		/* index in its symbol table */
	uint8_t type, bind;
	uint8_t src;		/* SRC_SYMTAB or SRC_DYNSYM */
	uint8_t hidden;		/* .dynsym: a non-default version (name@VER) */
};

struct elfmod_load {
	uint64_t vaddr, memsz, offset, filesz;
	bool exec;		/* PF_X */
};

#define ELFMOD_R_COPY	5	/* R_X86_64_COPY (R_386_COPY, R_AARCH64_COPY: 5, 1024) */

struct elfmod {
	char *path;
	int fd;
	Elf *elf;
	const uint8_t *image;	/* the whole file, from elf_rawfile() */
	size_t image_size;
	bool is_dyn;
	uint64_t dev, ino;
	struct elfmod_load *loads;
	size_t nloads;
	uint64_t base_vaddr;
	/* Sorted by name, then .symtab before .dynsym, default versions first. */
	struct elfmod_symrec *syms;
	size_t nsyms;
	/* Functions with a size, by address: indexes into SYMS. */
	uint32_t *by_addr;
	size_t nfuncs;
	const uint8_t *build_id;
	size_t build_id_len;
	bool stripped;		/* no .symtab */
};

static const char *machine_name(unsigned int machine)
{
	switch (machine) {
	case EM_X86_64:
		return "x86-64";
	case EM_AARCH64:
		return "aarch64";
	case EM_386:
		return "i386";
	default:
		return "this machine";
	}
}

static bool is_wanted_type(int type)
{
	return type == STT_FUNC || type == STT_GNU_IFUNC || type == STT_OBJECT;
}

static bool is_func_type(int type)
{
	return type == STT_FUNC || type == STT_GNU_IFUNC;
}

/* ---- open ---------------------------------------------------------------- */

static int load_phdrs(struct elfmod *mod)
{
	size_t n, i;

	if (elf_getphdrnum(mod->elf, &n) < 0)
		return -ENOEXEC;
	mod->loads = calloc(n ? n : 1, sizeof(*mod->loads));
	if (!mod->loads)
		return -ENOMEM;
	mod->base_vaddr = UINT64_MAX;
	for (i = 0; i < n; i++) {
		GElf_Phdr ph;
		struct elfmod_load *l;

		if (!gelf_getphdr(mod->elf, i, &ph) || ph.p_type != PT_LOAD)
			continue;
		l = &mod->loads[mod->nloads++];
		l->vaddr = ph.p_vaddr;
		l->memsz = ph.p_memsz;
		l->offset = ph.p_offset;
		l->filesz = ph.p_filesz;
		l->exec = ph.p_flags & PF_X;
		if ((ph.p_vaddr & ~ELFMOD_PAGE_MASK) < mod->base_vaddr)
			mod->base_vaddr = ph.p_vaddr & ~ELFMOD_PAGE_MASK;
	}
	if (!mod->nloads)
		return -ENOEXEC;
	return 0;
}

/* The GNU build-id note (libdw's dwelf: note sections, else PT_NOTE segments). */
static void load_build_id(struct elfmod *mod)
{
	const void *id;
	ssize_t len = dwelf_elf_gnu_build_id(mod->elf, &id);

	if (len > 0) {
		mod->build_id = id;
		mod->build_id_len = (size_t)len;
	}
}

struct symtabs {
	Elf_Scn *symtab, *dynsym, *versym, *verdef;
	size_t dynsym_ndx;
	const char **vernames;	/* by version index, from .gnu.version_d */
	size_t nvernames;
};

/* Names of the versions this file defines, indexed by vd_ndx. */
static int load_verdefs(struct elfmod *mod, struct symtabs *st)
{
	GElf_Shdr sh;
	Elf_Data *data;
	size_t off = 0, i;

	if (!st->verdef || !gelf_getshdr(st->verdef, &sh))
		return 0;
	data = elf_getdata(st->verdef, NULL);
	if (!data)
		return 0;
	for (i = 0; i < sh.sh_info; i++) {
		GElf_Verdef vd;
		GElf_Verdaux va;
		size_t ndx;

		if (!gelf_getverdef(data, off, &vd))
			break;
		ndx = vd.vd_ndx & ELFMOD_VERSYM_MASK;
		if (ndx >= st->nvernames) {
			size_t n = ndx + 8;
			const char **v = realloc(st->vernames, n * sizeof(*v));

			if (!v)
				return -ENOMEM;
			memset(v + st->nvernames, 0, (n - st->nvernames) * sizeof(*v));
			st->vernames = v;
			st->nvernames = n;
		}
		if (gelf_getverdaux(data, off + vd.vd_aux, &va))
			st->vernames[ndx] = elf_strptr(mod->elf, sh.sh_link, va.vda_name);
		if (!vd.vd_next)
			break;
		off += vd.vd_next;
	}
	return 0;
}

static void load_syms(struct elfmod *mod, Elf_Scn *scn, int src, const struct symtabs *st)
{
	Elf_Data *data, *versym = NULL;
	GElf_Shdr sh;
	size_t n, i;

	if (!scn || !gelf_getshdr(scn, &sh) || !sh.sh_entsize)
		return;
	data = elf_getdata(scn, NULL);
	if (!data)
		return;
	if (src == SRC_DYNSYM && st->versym)
		versym = elf_getdata(st->versym, NULL);
	n = sh.sh_size / sh.sh_entsize;
	for (i = 1; i < n; i++) {
		struct elfmod_symrec *r;
		const char *name;
		GElf_Versym vs;
		GElf_Sym sym;

		if (!gelf_getsym(data, i, &sym))
			break;
		if (!is_wanted_type(GELF_ST_TYPE(sym.st_info)) || sym.st_shndx == SHN_UNDEF ||
		    sym.st_value == 0)
			continue;
		name = elf_strptr(mod->elf, sh.sh_link, sym.st_name);
		if (!name || !*name)
			continue;
		r = &mod->syms[mod->nsyms++];
		memset(r, 0, sizeof(*r));
		r->name = name;
		r->vaddr = sym.st_value;
		r->size = sym.st_size;
		r->idx = i;
		r->type = GELF_ST_TYPE(sym.st_info);
		r->bind = GELF_ST_BIND(sym.st_info);
		r->src = src;
		if (versym && gelf_getversym(versym, i, &vs)) {
			size_t ndx = vs & ELFMOD_VERSYM_MASK;

			r->hidden = !!(vs & ELFMOD_VERSYM_HIDDEN);
			/* 0 and 1 are "local" and "global, unversioned". */
			if (ndx > 1 && ndx < st->nvernames)
				r->ver = st->vernames[ndx];
		}
	}
}

static int cmp_by_name(const void *pa, const void *pb)
{
	const struct elfmod_symrec *a = pa, *b = pb;
	int c = strcmp(a->name, b->name);

	if (c)
		return c;
	if (a->src != b->src)
		return a->src - b->src;
	if (a->hidden != b->hidden)
		return a->hidden - b->hidden;
	return a->idx < b->idx ? -1 : a->idx > b->idx;
}

/* For the address index: globals, then weak, then locals; symtab first. */
static int bind_rank(int bind)
{
	return bind == STB_GLOBAL ? 0 : bind == STB_WEAK ? 1 : 2;
}

static int cmp_by_addr(const void *pa, const void *pb, void *syms)
{
	const struct elfmod_symrec *a = (const struct elfmod_symrec *)syms + *(const uint32_t *)pa;
	const struct elfmod_symrec *b = (const struct elfmod_symrec *)syms + *(const uint32_t *)pb;

	if (a->vaddr != b->vaddr)
		return a->vaddr < b->vaddr ? -1 : 1;
	if (a->src != b->src)
		return a->src - b->src;
	if (bind_rank(a->bind) != bind_rank(b->bind))
		return bind_rank(a->bind) - bind_rank(b->bind);
	return a->idx < b->idx ? -1 : a->idx > b->idx;
}

static int load_symbols(struct elfmod *mod)
{
	struct symtabs st = { 0 };
	Elf_Scn *scn = NULL;
	size_t total = 0, i;
	int ret;

	while ((scn = elf_nextscn(mod->elf, scn))) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh))
			continue;
		switch (sh.sh_type) {
		case SHT_SYMTAB:
			st.symtab = scn;
			break;
		case SHT_DYNSYM:
			st.dynsym = scn;
			break;
		case SHT_GNU_versym:
			st.versym = scn;
			break;
		case SHT_GNU_verdef:
			st.verdef = scn;
			break;
		default:
			continue;
		}
		/* Counted from the data libelf read, not from sh_size, which a
		 * corrupt file may make anything. */
		if (sh.sh_type == SHT_SYMTAB || sh.sh_type == SHT_DYNSYM) {
			Elf_Data *d = elf_getdata(scn, NULL);
			size_t esz = gelf_fsize(mod->elf, ELF_T_SYM, 1, EV_CURRENT);

			total += d && esz ? d->d_size / esz : 0;
		}
	}
	ret = load_verdefs(mod, &st);
	if (ret < 0)
		goto out;
	mod->syms = calloc(total ? total : 1, sizeof(*mod->syms));
	if (!mod->syms) {
		ret = -ENOMEM;
		goto out;
	}
	mod->stripped = !st.symtab;
	load_syms(mod, st.symtab, SRC_SYMTAB, &st);
	load_syms(mod, st.dynsym, SRC_DYNSYM, &st);
	if (mod->nsyms)
		qsort(mod->syms, mod->nsyms, sizeof(*mod->syms), cmp_by_name);

	mod->by_addr = malloc((mod->nsyms ? mod->nsyms : 1) * sizeof(*mod->by_addr));
	if (!mod->by_addr) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < mod->nsyms; i++)
		if (is_func_type(mod->syms[i].type) && mod->syms[i].size)
			mod->by_addr[mod->nfuncs++] = i;
	qsort_r(mod->by_addr, mod->nfuncs, sizeof(*mod->by_addr), cmp_by_addr, mod->syms);
	ret = 0;
out:
	free(st.vernames);
	return ret;
}

int elfmod__open_machine(const char *path, unsigned int machine, struct elfmod **out,
			 struct ptap_err *err)
{
	struct elfmod *mod;
	GElf_Ehdr eh;
	struct stat st;
	int ret;

	*out = NULL;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return ptap_err_set(err, -1, -ENOSYS, "libelf: %s", elf_errmsg(-1));
	mod = calloc(1, sizeof(*mod));
	if (!mod)
		return ptap_err_set(err, -1, -ENOMEM, "%s: %s", path, strerror(ENOMEM));
	mod->fd = -1;
	mod->path = strdup(path);
	if (!mod->path) {
		ret = ptap_err_set(err, -1, -ENOMEM, "%s: %s", path, strerror(ENOMEM));
		goto fail;
	}
	mod->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (mod->fd < 0 || fstat(mod->fd, &st) < 0) {
		int e = errno;

		ret = ptap_err_set(err, -1, -e, "%s: %s", path, strerror(e));
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		ret = ptap_err_set(err, -1, -ENOEXEC, "%s: not an ELF file (not a regular file)",
				   path);
		goto fail;
	}
	mod->dev = st.st_dev;
	mod->ino = st.st_ino;
	mod->elf = elf_begin(mod->fd, ELF_C_READ_MMAP, NULL);
	if (!mod->elf || elf_kind(mod->elf) != ELF_K_ELF || !gelf_getehdr(mod->elf, &eh)) {
		ret = ptap_err_set(err, -1, -ENOEXEC, "%s: not an ELF file", path);
		goto fail;
	}
	if (eh.e_machine != machine) {
		ret = ptap_err_set(err, -1, -ENOEXEC, "%s: ELF for machine %u, not %s", path,
				   eh.e_machine, machine_name(machine));
		goto fail;
	}
	if (gelf_getclass(mod->elf) != ELFCLASS64) {
		ret = ptap_err_set(err, -1, -ENOEXEC, "%s: 32-bit ELF, not %s", path,
				   machine_name(machine));
		goto fail;
	}
	if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN) {
		ret = ptap_err_set(err, -1, -ENOEXEC,
				   "%s: ELF type %u is not an executable or shared library", path,
				   eh.e_type);
		goto fail;
	}
	mod->is_dyn = eh.e_type == ET_DYN;
	mod->image = (const uint8_t *)elf_rawfile(mod->elf, &mod->image_size);
	ret = load_phdrs(mod);
	if (ret == -ENOEXEC)
		ret = ptap_err_set(err, -1, ret, "%s: no PT_LOAD segment", path);
	if (ret == 0)
		ret = load_symbols(mod);
	if (ret == -ENOMEM)
		ret = ptap_err_set(err, -1, ret, "%s: %s", path, strerror(ENOMEM));
	if (ret < 0)
		goto fail;
	load_build_id(mod);
	pr_debug2("%s: %zu symbols, %zu functions by address, %zu PT_LOAD\n", path, mod->nsyms,
		  mod->nfuncs, mod->nloads);
	*out = mod;
	return 0;
fail:
	elfmod__close(mod);
	return ret;
}

int elfmod__open(const char *path, struct elfmod **out, struct ptap_err *err)
{
	return elfmod__open_machine(path, ELFMOD_NATIVE_MACHINE, out, err);
}

void elfmod__close(struct elfmod *mod)
{
	if (!mod)
		return;
	if (mod->elf)
		elf_end(mod->elf);
	if (mod->fd >= 0)
		close(mod->fd);
	free(mod->by_addr);
	free(mod->syms);
	free(mod->loads);
	free(mod->path);
	free(mod);
}

const char *elfmod__path(const struct elfmod *mod)
{
	return mod->path;
}

bool elfmod__stripped(const struct elfmod *mod)
{
	return mod->stripped;
}

bool elfmod__is_dyn(const struct elfmod *mod)
{
	return mod->is_dyn;
}

uint64_t elfmod__dev(const struct elfmod *mod)
{
	return mod->dev;
}

uint64_t elfmod__ino(const struct elfmod *mod)
{
	return mod->ino;
}

uint64_t elfmod__base_vaddr(const struct elfmod *mod)
{
	return mod->base_vaddr;
}

/* ---- symbols ------------------------------------------------------------- */

static void sym_fill(const struct elfmod_symrec *r, struct elfmod_sym *sym)
{
	sym->name = r->name;
	sym->vaddr = r->vaddr;
	sym->size = r->size;
	sym->type = r->type;
}

/* NAME compared with the first LEN bytes of KEY taken as a whole string. */
static int cmp_name_key(const char *name, const char *key, size_t len)
{
	int c = strncmp(name, key, len);

	if (c)
		return c;
	return name[len] != '\0';
}

/* [*LO, *HI): the entries named KEY[0, LEN); returns whether there are any. */
static bool name_range(const struct elfmod *mod, const char *key, size_t len, size_t *lo,
		       size_t *hi)
{
	size_t a = 0, b = mod->nsyms;

	while (a < b) {
		size_t mid = a + (b - a) / 2;

		if (cmp_name_key(mod->syms[mid].name, key, len) < 0)
			a = mid + 1;
		else
			b = mid;
	}
	*lo = a;
	for (b = a; b < mod->nsyms && !cmp_name_key(mod->syms[b].name, key, len); b++)
		;
	*hi = b;
	return a < b;
}

int elfmod__find_sym(const struct elfmod *mod, const char *name, struct elfmod_sym *sym)
{
	const struct elfmod_symrec *r;
	const char *at = strchr(name, '@'), *ver = NULL;
	size_t lo, hi, i, dups = 0;

	/* .symtab may hold "f@VER" literally (from .symver): try the whole name first. */
	if (at && name_range(mod, name, strlen(name), &lo, &hi)) {
		sym_fill(&mod->syms[lo], sym);
		return 0;
	}
	if (at) {
		ver = at + 1;
		if (*ver == '@')
			ver++;
	}
	if (!name_range(mod, name, at ? (size_t)(at - name) : strlen(name), &lo, &hi))
		return -ENOENT;
	r = &mod->syms[lo];
	/* "puts@@GLIBC_2.2.5": prefer the .dynsym entry of that version. */
	for (i = lo; ver && i < hi; i++) {
		if (mod->syms[i].ver && !strcmp(mod->syms[i].ver, ver)) {
			r = &mod->syms[i];
			break;
		}
	}
	for (i = lo; i < hi; i++)
		if (mod->syms[i].src == r->src && mod->syms[i].ver == r->ver &&
		    mod->syms[i].vaddr != r->vaddr)
			dups++;
	if (dups)
		pr_debug("%s: %zu symbols named '%s' in %s; using the first, at %#lx\n", mod->path,
			 dups + 1, r->name, r->src == SRC_SYMTAB ? ".symtab" : ".dynsym",
			 (unsigned long)r->vaddr);
	sym_fill(r, sym);
	return 0;
}

int elfmod__sym_at(const struct elfmod *mod, uint64_t vaddr, struct elfmod_sym *sym)
{
	size_t a = 0, b = mod->nfuncs, groups;

	/* A: the number of functions starting at or below VADDR. */
	while (a < b) {
		size_t mid = a + (b - a) / 2;

		if (mod->syms[mod->by_addr[mid]].vaddr <= vaddr)
			a = mid + 1;
		else
			b = mid;
	}
	/*
	 * Walk back over a few start addresses: a small symbol nested in a
	 * function (a local label with a size) must not hide the function.
	 */
	for (groups = 0; a > 0 && groups < 16; groups++) {
		uint64_t start = mod->syms[mod->by_addr[a - 1]].vaddr;
		size_t g = a - 1, k;

		while (g > 0 && mod->syms[mod->by_addr[g - 1]].vaddr == start)
			g--;
		for (k = g; k < a; k++) {
			const struct elfmod_symrec *r = &mod->syms[mod->by_addr[k]];

			if (vaddr - r->vaddr < r->size) {
				sym_fill(r, sym);
				return 0;
			}
		}
		a = g;
	}
	return -ENOENT;
}

/* The ranking is probes/nearest.c's; only function names, each once, count. */
size_t elfmod__nfuncs(const struct elfmod *mod)
{
	return mod->nfuncs;
}

void elfmod__func(const struct elfmod *mod, size_t i, struct elfmod_sym *sym)
{
	sym_fill(&mod->syms[mod->by_addr[i]], sym);
}

int elfmod__nearest_funcs(const struct elfmod *mod, const char *name, const char **names,
			  int max)
{
	const char *at = strchr(name, '@');
	struct nearest nr;
	size_t i;
	int n = nearest__init(&nr, name, at ? (size_t)(at - name) : strlen(name), max);

	if (n)
		return n;
	for (i = 0; i < mod->nsyms; i++) {
		const struct elfmod_symrec *r = &mod->syms[i];

		if (is_func_type(r->type) && (i == 0 || strcmp(mod->syms[i - 1].name, r->name)))
			nearest__add(&nr, r->name);
	}
	n = nearest__names(&nr, names);
	nearest__exit(&nr);
	return n;
}

/* ---- addresses ----------------------------------------------------------- */

/*
 * A PT_LOAD maps file bytes [p_offset, p_offset + p_filesz) at link-time
 * [p_vaddr, p_vaddr + p_filesz) (the rest of p_memsz is zero-filled), so
 *   offset = vaddr - p_vaddr + p_offset.
 * The loader mmaps that segment at some runtime address with pgoff equal to
 * p_offset rounded down to a page, so for a mapping M of the file holding the
 * offset, the runtime address is M.start + (offset - M.pgoff).  VADDR in the
 * zero-filled tail gets the same arithmetic, which is right for the runtime
 * address even though no file byte backs it.
 */
int elfmod__vaddr_to_offset(const struct elfmod *mod, uint64_t vaddr, uint64_t *off)
{
	size_t i;

	for (i = 0; i < mod->nloads; i++) {
		const struct elfmod_load *l = &mod->loads[i];

		if (vaddr >= l->vaddr && vaddr - l->vaddr < l->memsz) {
			*off = vaddr - l->vaddr + l->offset;
			return 0;
		}
	}
	return -ENOENT;
}

int elfmod__offset_to_vaddr(const struct elfmod *mod, uint64_t off, uint64_t *vaddr)
{
	size_t i;

	for (i = 0; i < mod->nloads; i++) {
		const struct elfmod_load *l = &mod->loads[i];

		if (off >= l->offset && off - l->offset < l->filesz) {
			*vaddr = off - l->offset + l->vaddr;
			return 0;
		}
	}
	return -ENOENT;
}

bool elfmod__is_code(const struct elfmod *mod, uint64_t vaddr)
{
	for (size_t i = 0; i < mod->nloads; i++) {
		const struct elfmod_load *l = &mod->loads[i];

		if (vaddr >= l->vaddr && vaddr - l->vaddr < l->filesz)
			return l->exec;
	}
	return false;
}

int elfmod__read(const struct elfmod *mod, uint64_t vaddr, void *buf, size_t len)
{
	size_t i;

	for (i = 0; i < mod->nloads; i++) {
		const struct elfmod_load *l = &mod->loads[i];
		uint64_t off;

		if (vaddr < l->vaddr || vaddr - l->vaddr >= l->filesz)
			continue;
		if (len > l->filesz - (vaddr - l->vaddr))
			return -ENOENT;
		off = vaddr - l->vaddr + l->offset;
		if (!mod->image || off > mod->image_size || len > mod->image_size - off)
			return -ENOENT;
		memcpy(buf, mod->image + off, len);
		return 0;
	}
	return -ENOENT;
}

int elfmod__build_id(const struct elfmod *mod, const uint8_t **id, size_t *len)
{
	if (!mod->build_id)
		return -ENOENT;
	*id = mod->build_id;
	*len = mod->build_id_len;
	return 0;
}

/* ---- language runtimes --------------------------------------------------- */

static bool has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !memcmp(s + n - m, suffix, m);
}

/*
 * Go's markers, each written by the gc toolchain into every binary it links
 * (executables, PIE, c-shared):
 *   .note.go.buildid  the go tool's build ID note;
 *   .go.buildinfo     the version and module data `go version FILE` reads;
 *   *.gopclntab       the runtime's pc -> function table, which the stack
 *                     copier reads ("…data.rel.ro.gopclntab" in PIE);
 * and, in the symbol table, runtime.morestack (".abi0" since Go 1.17), which
 * every Go function's prologue calls to grow its stack.
 * Rust's: the symbols of std's panic entry points, rust_begin_unwind and
 * __rust_start_panic (plain names up to rustc 1.8x, v0-mangled since, as
 * "_RNvCs…7___rustc17rust_begin_unwind": matched as suffixes), in every
 * binary linking std; or a .comment saying "rustc version" (newer rustc
 * write one; it survives `strip`).  A Rust function's own mangled name is
 * checked by the caller.
 */
static bool is_go_section(const char *name)
{
	return !strcmp(name, ".note.go.buildid") || !strcmp(name, ".go.buildinfo") ||
	       has_suffix(name, ".gopclntab");
}

static bool comment_says_rustc(Elf_Scn *scn)
{
	static const char mark[] = "rustc version ";
	Elf_Data *d = elf_getdata(scn, NULL);

	return d && d->d_buf && memmem(d->d_buf, d->d_size, mark, sizeof(mark) - 1);
}

enum elfmod_runtime elfmod__runtime(const struct elfmod *mod)
{
	struct elfmod_sym sym;
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(mod->elf, &shstrndx) == 0) {
		while ((scn = elf_nextscn(mod->elf, scn))) {
			GElf_Shdr sh;
			const char *name;

			if (!gelf_getshdr(scn, &sh) ||
			    !(name = elf_strptr(mod->elf, shstrndx, sh.sh_name)))
				continue;
			if (is_go_section(name))
				return ELFMOD_RT_GO;
			if (!strcmp(name, ".comment") && comment_says_rustc(scn))
				return ELFMOD_RT_RUST;
		}
	}
	if (elfmod__find_sym(mod, "runtime.morestack.abi0", &sym) == 0 ||
	    elfmod__find_sym(mod, "runtime.morestack", &sym) == 0)
		return ELFMOD_RT_GO;
	for (size_t i = 0; i < mod->nsyms; i++)
		if (is_func_type(mod->syms[i].type) &&
		    (has_suffix(mod->syms[i].name, "rust_begin_unwind") ||
		     has_suffix(mod->syms[i].name, "__rust_start_panic")))
			return ELFMOD_RT_RUST;
	return ELFMOD_RT_NONE;
}

bool elfmod__copy_reloc(const struct elfmod *mod, const char *name)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(mod->elf, scn))) {
		Elf_Scn *symscn;
		GElf_Shdr symsh;
		Elf_Data *rel, *syms;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA || !sh.sh_entsize)
			continue;
		symscn = elf_getscn(mod->elf, sh.sh_link);
		rel = elf_getdata(scn, NULL);
		if (!symscn || !gelf_getshdr(symscn, &symsh) || !rel ||
		    !(syms = elf_getdata(symscn, NULL)))
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Rela r;
			GElf_Sym s;
			const char *n;

			if (!gelf_getrela(rel, (int)i, &r) || GELF_R_TYPE(r.r_info) != ELFMOD_R_COPY ||
			    !gelf_getsym(syms, (int)GELF_R_SYM(r.r_info), &s))
				continue;
			n = elf_strptr(mod->elf, symsh.sh_link, s.st_name);
			if (n && !strcmp(n, name))
				return true;
		}
	}
	return false;
}

int elfmod__needed(const struct elfmod *mod, const char **names, int max)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	int n = 0;

	while ((scn = elf_nextscn(mod->elf, scn))) {
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC || !sh.sh_entsize ||
		    !(d = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize && n < max; i++) {
			GElf_Dyn dyn;
			const char *s;

			if (!gelf_getdyn(d, (int)i, &dyn) || dyn.d_tag == DT_NULL)
				break;
			if (dyn.d_tag == DT_NEEDED &&
			    (s = elf_strptr(mod->elf, sh.sh_link, dyn.d_un.d_val)))
				names[n++] = s;
		}
	}
	return n;
}
