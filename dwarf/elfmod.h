/* dwarf/elfmod.h: one ELF file (executable or shared library): its symbols,
 * PT_LOAD segments and build-id.  libelf stays inside dwarf/: callers hold
 * an opaque handle and get plain data back.  Never calls ptrace. */
#ifndef PTAP_DWARF_ELFMOD_H
#define PTAP_DWARF_ELFMOD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ptap_err;
struct elfmod;

struct elfmod_sym {
	const char *name;	/* borrowed: valid until elfmod__close() */
	uint64_t vaddr;		/* st_value (link-time virtual address) */
	uint64_t size;
	int type;		/* STT_FUNC, STT_OBJECT, STT_GNU_IFUNC, ... */
};

/*
 * Open PATH.  0, or -ENOENT (no such file; ERR says so), -ENOEXEC (not an ELF
 * file, or not for this machine), -errno.  The caller closes with elfmod__close().
 */
int elfmod__open(const char *path, struct elfmod **out, struct ptap_err *err);
/* The same for an ELF of MACHINE (EM_*); elfmod__open() checks for EM_X86_64. */
int elfmod__open_machine(const char *path, unsigned int machine, struct elfmod **out,
			 struct ptap_err *err);
void elfmod__close(struct elfmod *mod);		/* NULL is fine */

const char *elfmod__path(const struct elfmod *mod);
bool elfmod__is_dyn(const struct elfmod *mod);	/* ET_DYN (PIE or shared library) */
bool elfmod__stripped(const struct elfmod *mod);	/* no .symtab: the exported names alone */
/* What a name not found in a stripped binary without debug info is told with (then how else) */
#define ELFMOD_STRIPPED_SAID	"it is stripped (no symbol table, no debug info found): install " \
				"its debug package (Debian: its -dbgsym)"
uint64_t elfmod__dev(const struct elfmod *mod);	/* st_dev / st_ino of the opened file */
uint64_t elfmod__ino(const struct elfmod *mod);

/*
 * Find function or object NAME: .symtab first, then .dynsym (a versioned
 * dynamic name "puts@@GLIBC_2.2.5" matches "puts").  Symbols with value 0
 * (undefined) are skipped.  0, or -ENOENT.
 * A query "f@VER" or "f@@VER" first matches a .symtab name spelled so, then
 * the .dynsym "f" of version VER (from .gnu.version_d), else any "f".  A
 * plain "f" prefers the default version (f@@VER).  Of two symbols with one
 * name in one table (static functions of two files), the first in table
 * order wins; that is logged at debug level.
 */
int elfmod__find_sym(const struct elfmod *mod, const char *name, struct elfmod_sym *sym);

/*
 * The function symbol (of non-zero size) containing VADDR, or -ENOENT.  Of
 * aliases, a .symtab global, then weak, then local one.
 */
int elfmod__sym_at(const struct elfmod *mod, uint64_t vaddr, struct elfmod_sym *sym);

/* The module's functions with a size, by address: how many, and the Ith. */
size_t elfmod__nfuncs(const struct elfmod *mod);
void elfmod__func(const struct elfmod *mod, size_t i, struct elfmod_sym *sym);
/*
 * Up to MAX function names nearest to NAME (without any "@VER"), best
 * first, into NAMES (borrowed), ranked as probes/nearest.h says: edit
 * distance, then prefix and substring matches; names whose length differs
 * by more than 3 are only considered when NAME is a substring.  Returns the
 * count, or -ENOMEM.
 */
int elfmod__nearest_funcs(const struct elfmod *mod, const char *name, const char **names,
			  int max);

/*
 * File offset of link-time VADDR, from the PT_LOAD that holds it:
 *   offset = vaddr - p_vaddr + p_offset.
 * The runtime address of VADDR in a mapping M of this file is then
 *   M.start + (offset - M.pgoff).  0, or -ENOENT (no PT_LOAD holds VADDR).
 */
int elfmod__vaddr_to_offset(const struct elfmod *mod, uint64_t vaddr, uint64_t *off);
/* The inverse, for a file offset inside a PT_LOAD.  0, or -ENOENT. */
int elfmod__offset_to_vaddr(const struct elfmod *mod, uint64_t off, uint64_t *vaddr);

/* Is VADDR in the file data of an executable PT_LOAD segment (code)? */
bool elfmod__is_code(const struct elfmod *mod, uint64_t vaddr);

/*
 * Copy LEN bytes of the file's image at VADDR (from the PT_LOAD file data;
 * the range must lie within one segment's p_filesz).  0 or -ENOENT.
 */
int elfmod__read(const struct elfmod *mod, uint64_t vaddr, void *buf, size_t len);

/* The GNU build-id note: 0 with *ID borrowed, or -ENOENT. */
int elfmod__build_id(const struct elfmod *mod, const uint8_t **id, size_t *len);

/*
 * Does MOD (an executable) carry a copy relocation for data symbol NAME?
 * Then the live object is MOD's copy, not the library's that defines it.
 */
bool elfmod__copy_reloc(const struct elfmod *mod, const char *name);
/* The libraries MOD names to be loaded with it (DT_NEEDED, in order), at most
 * MAX into NAMES (MOD's strings): how many. */
int elfmod__needed(const struct elfmod *mod, const char **names, int max);

/*
 * The language runtime MOD holds, told from the file alone, for functions
 * DWARF does not describe (dwarf/resolve.c: return probes are refused on Go
 * and Rust code).  Reads the section headers, .comment and every symbol name:
 * call it once per probe, not per site.
 */
enum elfmod_runtime {
	ELFMOD_RT_NONE,		/* none of the markers below: C, C++, ... */
	ELFMOD_RT_GO,
	ELFMOD_RT_RUST,
};
enum elfmod_runtime elfmod__runtime(const struct elfmod *mod);

/* Lowest p_vaddr of the PT_LOAD segments (rounded down to a page). */
uint64_t elfmod__base_vaddr(const struct elfmod *mod);

#endif
