/* dwarf/resolve.h: a probe spec resolved against one ELF module: the
 * link-time site address, its decoded first instruction, and one fetch
 * program per argument (struct resolved_probe, dwarf/resolved.h).  Never
 * calls ptrace. */
#ifndef PTAP_DWARF_RESOLVE_H
#define PTAP_DWARF_RESOLVE_H

#include <stdbool.h>
#include <stdint.h>

#include "dwarf/resolved.h"

struct dbg_cache;
struct elfmod;
struct probe_spec;
struct ptap_err;
struct site_skips;

struct resolve_opts {
	const char *debuginfo_dir;	/* --debuginfo-dir, searched first; or NULL */
	/* The run's debug information, each module's opened once (dwarf/debuginfo.h;
	 * the caller's).  NULL: opened for this call alone, and closed after it. */
	struct dbg_cache *dbgs;
	int max_probes;			/* --max-probes */
	bool no_inlines;		/* --no-inlines */
	const struct elfmod *exe;	/* the command's executable (copy relocations) */
	/* A glob (FUNC with * ? [): its sites that cannot be probed are left out
	 * and counted here (dwarf/site.h; may be NULL); it fails only when
	 * none is left. */
	struct site_skips *skips;
};

/*
 * Resolve SPEC in MOD: one resolved probe per site (a glob, an inlined
 * function, a source line may have many).  0 with *OUT (free with
 * resolved_probes_free()) and *N >= 1; -ENOENT when the function, file,
 * line or a variable does not exist (ERR names the nearest ones or those in
 * scope); -EINVAL for an argument that cannot be compiled (ERR has its
 * column); -E2BIG for more sites than O->max_probes; -ENOTSUP when a site's
 * instruction can be neither run out of line nor emulated, or a value
 * cannot be fetched exactly (ERR says why).  For a glob, such a site is
 * left out (counted in O->skips) and those errors come only when no site of
 * the glob is left.
 */
int resolve_probes(struct elfmod *mod, const struct probe_spec *spec,
		   const struct resolve_opts *o, struct resolved_probe **out, int *n,
		   struct ptap_err *err);
void resolved_probes_free(struct resolved_probe *rps, int n);
/* Release what one resolved probe owns (not RP itself). */
void resolved_probe__exit(struct resolved_probe *rp);

#endif
