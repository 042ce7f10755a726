/* dwarf/debuginfo.c: one libdwfl session per module, found by build-id
 * (or by path when the file has none) in the cache of the run that owns it
 * (struct dbg_cache). */
#include <errno.h>
#include <fcntl.h>
#include <dwarf.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dwarf/debuginfo_int.h"
#include "probes/array.h"
#include "dwarf/die_int.h"
#include "dwarf/elfmod.h"
#include "probes/err.h"
#include "probes/log.h"

struct dbg {
	char *path;
	uint8_t *build_id;
	size_t build_id_len;
	char *dipath;		/* the debuginfo_path the Dwfl_Callbacks point at */
	Dwfl_Callbacks cb;
	Dwfl *dwfl;
	Dwfl_Module *mod;
	Dwarf *dw;
	Dwarf_Addr bias;
	Dwarf_CFI *cfi;		/* .debug_frame, else .eh_frame */
	Dwarf_Addr cfi_bias;
	Dwarf_CFI *eh_cfi;	/* .eh_frame too, when CFI is .debug_frame's */
	Dwarf_Addr eh_bias;
	const char *debug_path;
	struct dbg_func *funcs;	/* dbg__func_at()'s, by address; NULL: not read yet */
	size_t nfuncs;
	bool funcs_read;
	struct dbg_targets targets;	/* dbg__targets() */
	bool goid_read;		/* dbg__go_goid(): looked for */
	int64_t goid_off;	/* -1: none */
	struct dbg *next;
};

struct dbg_cache {
	struct dbg *head;	/* every module opened, newest first */
};

/* ---- the decompressed-debuginfo cache -----------------------------------
 *
 * Distributions compress debug sections (SHF_COMPRESSED, zlib); libdw
 * inflates all of them when it opens the file, which for libc's debug file
 * costs most of a `ptap vars`.  The first run writes an uncompressed copy,
 * named by build-id, to $PTAP_CACHE_DIR (default $XDG_CACHE_HOME/ptap, else
 * ~/.cache/ptap) under debuginfo/.build-id/NN/REST.debug; later runs find it
 * there first, as libdwfl finds any build-id tree.  Build-ids name contents,
 * so a copy never goes stale.  Any failure just leaves the cache out.
 */

static int cache_root(char *buf, size_t len)
{
	const char *d = getenv("PTAP_CACHE_DIR");
	const char *x = getenv("XDG_CACHE_HOME");
	const char *h = getenv("HOME");
	int n;

	if (d && *d)
		n = snprintf(buf, len, "%s/debuginfo", d);
	else if (x && *x)
		n = snprintf(buf, len, "%s/ptap/debuginfo", x);
	else if (h && *h)
		n = snprintf(buf, len, "%s/.cache/ptap/debuginfo", h);
	else
		return -ENOENT;
	return n > 0 && (size_t)n < len ? 0 : -ENAMETOOLONG;
}

static int mkdirs(char *path)
{
	for (char *p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(path, 0755) < 0 && errno != EEXIST) {
			*p = '/';
			return -errno;
		}
		*p = '/';
	}
	return 0;
}

static bool has_compressed(Elf *e)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(e, scn)))
		if (gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_COMPRESSED))
			return true;
	return false;
}

/* Copy IN to the ELF being written OUT with every section inflated. */
static int copy_inflated(Elf *in, Elf *out)
{
	GElf_Ehdr eh;
	size_t nph, shstrndx;
	Elf_Scn *scn = NULL;

	if (!gelf_getehdr(in, &eh) || elf_getphdrnum(in, &nph) < 0 ||
	    elf_getshdrstrndx(in, &shstrndx) < 0 || !gelf_newehdr(out, gelf_getclass(in)))
		return -EINVAL;
	if (nph && !gelf_newphdr(out, nph))
		return -EINVAL;
	while ((scn = elf_nextscn(in, scn))) {
		Elf_Scn *oscn = elf_newscn(out);
		Elf_Data *d = elf_rawdata(scn, NULL), *od;
		GElf_Shdr sh;

		if (!oscn || !gelf_getshdr(scn, &sh) || !(od = elf_newdata(oscn)))
			return -EINVAL;
		if (d)
			*od = *d;
		if (!gelf_update_shdr(oscn, &sh))
			return -EINVAL;
		if ((sh.sh_flags & SHF_COMPRESSED) && elf_compress(oscn, 0, 0) < 0)
			return -EINVAL;
	}
	eh.e_shstrndx = (Elf64_Half)shstrndx;
	if (!gelf_update_ehdr(out, &eh) || elf_update(out, ELF_C_NULL) < 0)
		return -EINVAL;
	/* Program headers keep their addresses; their offsets follow the sections. */
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;
		Elf_Scn *o = NULL;

		if (!gelf_getphdr(in, (int)i, &ph))
			return -EINVAL;
		while ((o = elf_nextscn(out, o))) {
			GElf_Shdr sh;

			if (gelf_getshdr(o, &sh) && (sh.sh_flags & SHF_ALLOC) &&
			    sh.sh_addr == ph.p_vaddr) {
				ph.p_offset = sh.sh_offset;
				break;
			}
		}
		if (!gelf_update_phdr(out, (int)i, &ph))
			return -EINVAL;
	}
	return elf_update(out, ELF_C_WRITE) < 0 ? -EIO : 0;
}

/* The cache's file for build-id ID (IDLEN bytes) ending in SUFFIX, into PATH: 0 or -errno. */
static int cache_path(const uint8_t *id, size_t idlen, const char *suffix, char *path,
		      size_t len)
{
	size_t n;

	if (!idlen || cache_root(path, len) < 0)
		return -ENOENT;
	n = strlen(path);
	n += (size_t)snprintf(path + n, len - n, "/.build-id/%02x/", id[0]);
	for (size_t i = 1; i < idlen && n + 3 < len; i++)
		n += (size_t)snprintf(path + n, len - n, "%02x", id[i]);
	if (n + strlen(suffix) + 1 > len)
		return -ENAMETOOLONG;
	strcpy(path + n, suffix);
	return 0;
}

static void cache_store(const char *debugfile, const uint8_t *id, size_t idlen)
{
	char path[4096], tmp[4200];
	int in, out, r = -EINVAL;
	Elf *ein, *eout;

	if (cache_path(id, idlen, ".debug", path, sizeof(path)) < 0 || access(path, F_OK) == 0)
		return;
	in = open(debugfile, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return;
	/* Nothing is created unless there is something to inflate. */
	ein = elf_begin(in, ELF_C_READ_MMAP, NULL);
	if (!ein || !has_compressed(ein) || mkdirs(path) < 0) {
		elf_end(ein);
		close(in);
		return;
	}
	snprintf(tmp, sizeof(tmp), "%s.%d.tmp", path, (int)getpid());
	out = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	eout = out >= 0 ? elf_begin(out, ELF_C_WRITE, NULL) : NULL;
	if (eout)
		r = copy_inflated(ein, eout);
	elf_end(eout);
	elf_end(ein);
	close(in);
	if (out >= 0) {
		close(out);
		if (r == 0 && rename(tmp, path) == 0)
			pr_debug("cached %s inflated as %s\n", debugfile, path);
		else
			unlink(tmp);
	}
}

static bool same_module(const struct dbg *d, const struct elfmod *mod, const uint8_t *id,
			size_t idlen)
{
	if (id && d->build_id)
		return idlen == d->build_id_len && !memcmp(id, d->build_id, idlen);
	return !id && !d->build_id && !strcmp(d->path, elfmod__path(mod));
}

/*
 * libdwfl's search path: "+" checks .gnu_debuglink CRCs; the empty entry is
 * the module's own directory, ".debug" a subdirectory of it; absolute
 * entries are searched for .build-id/NN/REST.debug and for the module's path
 * under them.  DIR goes first.
 */
static char *search_path(const char *dir)
{
	char croot[4096], abs[4096];
	char *p;
	bool c = cache_root(croot, sizeof(croot)) == 0;

	/* libdwfl takes a relative entry as relative to the module's directory */
	if (dir && realpath(dir, abs))
		dir = abs;

	if (asprintf(&p, "+:%s%s%s%s:.debug:/usr/lib/debug", dir ? dir : "", dir ? ":" : "",
		     c ? croot : "", c ? ":" : "") < 0)
		return NULL;
	return p;
}

static void dbg_free(struct dbg *d)
{
	free(d->funcs);
	free(d->targets.to);
	if (d->dwfl)
		dwfl_end(d->dwfl);
	free(d->path);
	free(d->build_id);
	free(d->dipath);
	free(d);
}

static int dbg_open(struct dbg *d, const struct elfmod *mod, const char *dir,
		    struct ptap_err *err)
{
	const char *mainfile = NULL, *debugfile = NULL;

	d->dipath = search_path(dir);
	d->path = strdup(elfmod__path(mod));
	if (!d->dipath || !d->path)
		return -ENOMEM;
	d->cb.find_elf = dwfl_build_id_find_elf;
	d->cb.find_debuginfo = dwfl_standard_find_debuginfo;
	d->cb.section_address = dwfl_offline_section_address;
	d->cb.debuginfo_path = &d->dipath;
	d->dwfl = dwfl_begin(&d->cb);
	if (!d->dwfl)
		return ptap_err_set(err, -1, -ENOMEM, "libdwfl: %s", dwfl_errmsg(-1));
	dwfl_report_begin(d->dwfl);
	/* Base 0 added to p_vaddr: module addresses are link-time addresses. */
	d->mod = dwfl_report_elf(d->dwfl, d->path, d->path, -1, 0, true);
	if (!d->mod || dwfl_report_end(d->dwfl, NULL, NULL) != 0)
		return ptap_err_set(err, -1, -ENOEXEC, "libdwfl cannot open %s: %s", d->path,
				    dwfl_errmsg(-1));
	d->dw = dwfl_module_getdwarf(d->mod, &d->bias);
	d->cfi = dwfl_module_dwarf_cfi(d->mod, &d->cfi_bias);
	if (!d->cfi)
		d->cfi = dwfl_module_eh_cfi(d->mod, &d->cfi_bias);
	else
		d->eh_cfi = dwfl_module_eh_cfi(d->mod, &d->eh_bias);
	dwfl_module_info(d->mod, NULL, NULL, NULL, NULL, NULL, &mainfile, &debugfile);
	if (d->dw)
		d->debug_path = debugfile ? debugfile : mainfile ? mainfile : d->path;
	/* A compressed debug file: inflate a copy for the next run. */
	if (d->dw && d->build_id && d->debug_path)
		cache_store(d->debug_path, d->build_id, d->build_id_len);
	pr_debug("%s: DWARF %s (bias 0x%lx)\n", d->path,
		 d->debug_path ? d->debug_path : "none", (unsigned long)d->bias);
	return 0;
}

/*
 * ---- the module's branch targets, cached ----
 *
 * Decoding every function of a module for them (dwarf/resolve.c's
 * module_targets()) takes about 130 ms for libc: the next run reads them
 * from the cache, under the module's build-id, with the counts of the
 * functions they came from (a debug file installed since names more, and
 * they are made again).  The file: struct targets_head, then N targets,
 * sorted.  One that does not say so whole is not used.
 */
#define TARGETS_MAGIC	"ptapbr01"

struct targets_head {
	char magic[8];
	uint64_t nmod, ndbg;	/* the functions of the module's table, of the debug file's */
	uint64_t n;
};

int dbg__targets_load(struct dbg *d, uint64_t nmod, uint64_t ndbg)
{
	struct targets_head h;
	char path[4096];
	uint64_t *to = NULL;
	struct stat st;
	FILE *f;
	int r = -EINVAL;

	if (cache_path(d->build_id, d->build_id ? d->build_id_len : 0, ".branches", path,
		       sizeof(path)) < 0 || !(f = fopen(path, "rbe")))
		return -ENOENT;
	if (fstat(fileno(f), &st) == 0 && fread(&h, sizeof(h), 1, f) == 1 &&
	    !memcmp(h.magic, TARGETS_MAGIC, sizeof(h.magic)) && h.nmod == nmod &&
	    h.ndbg == ndbg && h.n <= ((uint64_t)st.st_size - sizeof(h)) / sizeof(*to) &&
	    sizeof(h) + h.n * sizeof(*to) == (uint64_t)st.st_size &&
	    (to = malloc(h.n ? h.n * sizeof(*to) : 1)) && fread(to, sizeof(*to), h.n, f) == h.n) {
		r = 0;
		for (uint64_t i = 1; i < h.n && !r; i++)
			if (to[i] <= to[i - 1])
				r = -EINVAL;	/* sorted, each once: as made */
	}
	fclose(f);
	if (r < 0) {
		free(to);
		pr_debug("%s: %s is not a branch table of this module's: not used\n", d->path, path);
		return r;
	}
	free(d->targets.to);
	d->targets.to = to;
	d->targets.n = h.n;
	pr_debug("%s: its %lu branch targets from %s\n", d->path, (unsigned long)h.n, path);
	return 0;
}

void dbg__targets_store(const struct dbg *d, uint64_t nmod, uint64_t ndbg)
{
	struct targets_head h = { .nmod = nmod, .ndbg = ndbg, .n = d->targets.n };
	char path[4096], tmp[4200];
	bool ok;
	FILE *f;

	if (cache_path(d->build_id, d->build_id ? d->build_id_len : 0, ".branches", path,
		       sizeof(path)) < 0 || mkdirs(path) < 0)
		return;
	memcpy(h.magic, TARGETS_MAGIC, sizeof(h.magic));
	snprintf(tmp, sizeof(tmp), "%s.%d.tmp", path, (int)getpid());
	f = fopen(tmp, "wxe");
	if (!f)
		return;
	ok = fwrite(&h, sizeof(h), 1, f) == 1 &&	/* no targets: no array (UBSan) */
	     (!h.n || fwrite(d->targets.to, sizeof(*d->targets.to), h.n, f) == h.n);
	ok = fclose(f) == 0 && ok;
	if (ok && rename(tmp, path) == 0)
		pr_debug("%s: its branch targets cached as %s\n", d->path, path);
	else
		unlink(tmp);
}

int dbg_cache__new(struct dbg_cache **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -ENOMEM;
}

void dbg_cache__free(struct dbg_cache *dc)
{
	if (!dc)
		return;
	while (dc->head) {
		struct dbg *d = dc->head;

		dc->head = d->next;
		dbg_free(d);
	}
	free(dc);
}

int dbg_cache__get(struct dbg_cache *dc, const struct elfmod *mod, const char *dir,
		   struct dbg **out, struct ptap_err *err)
{
	const uint8_t *id = NULL;
	size_t idlen = 0;
	struct dbg *d;
	int r;

	if (elfmod__build_id(mod, &id, &idlen) < 0)
		id = NULL;
	for (d = dc->head; d; d = d->next)
		if (same_module(d, mod, id, idlen)) {
			*out = d;
			return 0;
		}
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	if (id) {
		d->build_id = malloc(idlen);
		if (!d->build_id) {
			free(d);
			return -ENOMEM;
		}
		memcpy(d->build_id, id, idlen);
		d->build_id_len = idlen;
	}
	r = dbg_open(d, mod, dir, err);
	if (r < 0) {
		dbg_free(d);
		return r;
	}
	d->next = dc->head;
	dc->head = d;
	*out = d;
	return 0;
}

bool dbg__has_dwarf(const struct dbg *d) { return d->dw != NULL; }
Dwarf *dbg__dwarf(const struct dbg *d) { return d->dw; }
uint64_t dbg__bias(const struct dbg *d) { return d->bias; }

int dbg__cfi_frame(const struct dbg *d, uint64_t vaddr, Dwarf_Frame **frame)
{
	*frame = NULL;
	if (d->cfi && dwarf_cfi_addrframe(d->cfi, vaddr - d->cfi_bias, frame) == 0)
		return 0;
	if (d->eh_cfi && dwarf_cfi_addrframe(d->eh_cfi, vaddr - d->eh_bias, frame) == 0)
		return 0;
	return d->cfi ? -ENOENT : -ENODATA;
}

/* Go's goroutine descriptor in DW's unit CU, when CU is Go's with its register ABI: goid's offset. */
static int64_t goid_in(Dwarf_Die *cu)
{
	Dwarf_Attribute a;
	const char *prod = dwarf_formstring(dwarf_attr(cu, DW_AT_producer, &a));
	Dwarf_Die t, m;
	Dwarf_Word base, off;

	if (dwarf_srclang(cu) != DW_LANG_Go || !prod || !strstr(prod, "regabi") ||
	    dwarf_child(cu, &t) != 0)
		return -1;
	do {
		const char *name = dwarf_diename(&t);

		if (dwarf_tag(&t) == DW_TAG_structure_type && name && !strcmp(name, "runtime.g") &&
		    die_find_member(&t, "goid", &m, &base) == 0 && die_member_offset(&m, &off))
			return (int64_t)(base + off);
	} while (dwarf_siblingof(&t, &t) == 0);
	return -1;
}

int dbg__go_goid(struct dbg *d, uint64_t *off)
{
	Dwarf_Off cu = 0, next;
	size_t hsize;

	if (!d->goid_read) {
		d->goid_read = true;
		d->goid_off = -1;
		while (d->dw && d->goid_off < 0 &&
		       dwarf_nextcu(d->dw, cu, &next, &hsize, NULL, NULL, NULL) == 0) {
			Dwarf_Die die;

			if (dwarf_offdie(d->dw, cu + hsize, &die))
				d->goid_off = goid_in(&die);
			cu = next;
		}
	}
	if (d->goid_off < 0)
		return -ENOENT;
	*off = (uint64_t)d->goid_off;
	return 0;
}
/* ---- the function symbols, by address ------------------------------------ */

/*
 * By address; at one address as libdwfl prefers them: the global names, the
 * weak, the local, each in the order of the symbol table.
 */
static int by_start(const void *a, const void *b)
{
	const struct dbg_func *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* D's function symbols with a size, from libdwfl's table (the debug file's .symtab too). */
static void funcs_read(struct dbg *d)
{
	int ns = d->mod ? dwfl_module_getsymtab(d->mod) : -1;
	size_t cap = 0;

	d->funcs_read = true;
	for (int i = 1; i < ns; i++) {
		GElf_Word shndx;
		GElf_Addr addr;
		GElf_Sym sym;
		const char *nm = dwfl_module_getsym_info(d->mod, i, &sym, &addr, &shndx, NULL,
							 NULL);

		if (!nm || GELF_ST_TYPE(sym.st_info) != STT_FUNC || !sym.st_size ||
		    shndx == SHN_UNDEF)
			continue;
		if (array_grow((void **)&d->funcs, &cap, sizeof(*d->funcs), d->nfuncs + 1) < 0) {
			free(d->funcs);	/* none: callers find no symbol, as without the table */
			d->funcs = NULL;
			d->nfuncs = 0;
			return;
		}
		d->funcs[d->nfuncs++] = (struct dbg_func){
			.name = nm, .start = addr, .size = sym.st_size, .idx = (uint32_t)i,
			.rank = GELF_ST_BIND(sym.st_info) == STB_GLOBAL ? 0 :
				GELF_ST_BIND(sym.st_info) == STB_WEAK ? 1 : 2 };
	}
	if (d->nfuncs > 1)
		qsort(d->funcs, d->nfuncs, sizeof(*d->funcs), by_start);
}

int dbg__func_at(struct dbg *d, uint64_t vaddr, struct dbg_func *out)
{
	size_t a = 0, b;

	if (!d->funcs_read)
		funcs_read(d);
	/* A: the symbols starting at or below VADDR */
	for (b = d->nfuncs; a < b;) {
		size_t mid = a + (b - a) / 2;

		if (d->funcs[mid].start <= vaddr)
			a = mid + 1;
		else
			b = mid;
	}
	/*
	 * The nearest start holding it first, a few starts back at most (a
	 * small symbol nested in a function must not hide it); at one start
	 * the first (by_start())
	 */
	for (size_t i = a, seen = 0; i-- > 0 && seen < 64; seen++) {
		const struct dbg_func *f = &d->funcs[i];

		if (vaddr - f->start < f->size) {
			while (i > 0 && d->funcs[i - 1].start == f->start &&
			       vaddr - d->funcs[i - 1].start < d->funcs[i - 1].size)
				f = &d->funcs[--i];
			*out = *f;
			return 0;
		}
	}
	return -ENOENT;
}

size_t dbg__funcs(struct dbg *d, const struct dbg_func **funcs)
{
	if (!d->funcs_read)
		funcs_read(d);
	*funcs = d->funcs;
	return d->nfuncs;
}

struct dbg_targets *dbg__targets(struct dbg *d) { return &d->targets; }
Dwfl_Module *dbg__module(const struct dbg *d) { return d->mod; }
const char *dbg__debug_path(const struct dbg *d) { return d->debug_path; }
const char *dbg__path(const struct dbg *d) { return d->path; }
