/* dwarf/debuginfo.h: a module's debug information through libdwfl -- in the
 * file itself, or in a separate file found the way
 * dwfl_standard_find_debuginfo() does (.gnu_debuglink with its CRC,
 * /usr/lib/debug/.build-id/NN/REST.debug, /usr/lib/debug/PATH, debuginfod
 * when DEBUGINFOD_URLS is set), with --debuginfo-dir DIR searched first.
 * Opened once per build-id per run: the run owns a struct dbg_cache that
 * holds them all.  Never calls ptrace. */
#ifndef PTAP_DWARF_DEBUGINFO_H
#define PTAP_DWARF_DEBUGINFO_H

#include <stdbool.h>

struct elfmod;
struct ptap_err;
struct dbg;		/* one module's debug information */
struct dbg_cache;	/* the modules opened in one run, by build-id */

/* An empty cache into *OUT.  0 or -ENOMEM.  Its owner frees it with dbg_cache__free(). */
int dbg_cache__new(struct dbg_cache **out);
/* Close every module DC opened, and free DC.  NULL is fine. */
void dbg_cache__free(struct dbg_cache *dc);

/*
 * The debug information of MOD, from DC when a module of its build-id (or,
 * without one, its path) was opened before; else looked up in
 * DEBUGINFO_DIR (may be NULL) before the standard places, and kept in DC.
 * 0 with *OUT set, also when the module has no DWARF (then
 * dbg__has_dwarf() is false): ELF symbols still work.  -errno with ERR only
 * when libdwfl cannot even open the file.  *OUT stays valid until
 * dbg_cache__free(DC); callers never close it.
 */
int dbg_cache__get(struct dbg_cache *dc, const struct elfmod *mod, const char *debuginfo_dir,
		   struct dbg **out, struct ptap_err *err);

/* Does the module have DWARF (else only its ELF symbols)?  The handles
 * themselves are dwarf/'s (dwarf/debuginfo_int.h). */
bool dbg__has_dwarf(const struct dbg *d);
/* The file the DWARF came from (the module itself or its debug file), or
 * NULL when there is no DWARF. */
const char *dbg__debug_path(const struct dbg *d);
const char *dbg__path(const struct dbg *d);	/* the module's path */

#endif
