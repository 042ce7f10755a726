/* dwarf/nosite.c: why a probe point has no site, said so the user can fix
 * it: the names nearest to an unknown function, the lines with code near a
 * line without, what a glob or a FUNC matched but could not probe. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <elf.h>

#include "dwarf/elfmod.h"
#include "dwarf/nosite_int.h"
#include "dwarf/pctx_int.h"
#include "probes/err.h"
#include "probes/spec.h"

/* Edit distance of A and B, or a large number when it exceeds 3. */
static int edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	int prev[64], cur[64];

	if (la >= 64 || lb >= 64 || (la > lb ? la - lb : lb - la) > 3)
		return 1000;
	for (size_t j = 0; j <= lb; j++)
		prev[j] = j;
	for (size_t i = 1; i <= la; i++) {
		int best;

		cur[0] = best = i;
		for (size_t j = 1; j <= lb; j++) {
			int d = prev[j - 1] + (a[i - 1] != b[j - 1]);

			if (prev[j] + 1 < d)
				d = prev[j] + 1;
			if (cur[j - 1] + 1 < d)
				d = cur[j - 1] + 1;
			cur[j] = d;
			if (d < best)
				best = d;
		}
		if (best > 3)
			return 1000;
		memcpy(prev, cur, (lb + 1) * sizeof(int));
	}
	return prev[lb] <= 3 ? prev[lb] : 1000;
}

/* Lower is closer: an edit distance up to 3, then names containing WANT. */
static int near_score(const char *want, const char *name)
{
	int d = edit_distance(want, name);

	if (d < 1000)
		return d;
	if (strlen(want) >= 3 && strstr(name, want))
		return 4;
	return 1000;
}

void near_add(struct near *nr, const char *name)
{
	int s = near_score(nr->want, name), i;

	if (s >= 1000 || !strcmp(name, nr->want))
		return;
	for (i = 0; i < nr->n; i++)
		if (!strcmp(nr->names[i], name))
			return;
	if (nr->n == NEAR_MAX && s >= nr->score[NEAR_MAX - 1])
		return;
	i = nr->n < NEAR_MAX ? nr->n++ : NEAR_MAX - 1;
	for (; i > 0 && nr->score[i - 1] > s; i--) {
		nr->names[i] = nr->names[i - 1];
		nr->score[i] = nr->score[i - 1];
	}
	nr->names[i] = name;
	nr->score[i] = s;
}

/* A binary with neither a symbol table nor debug info names only what it exports: say so. */
static const char *stripped_hint(const struct pctx *c)
{
	return elfmod__stripped(c->mod) && !c->dw ?
	       "; " ELFMOD_STRIPPED_SAID ", give --debuginfo-dir, or probe an address (0xADDR)" :
	       "";
}

/* "no function 'exec_qurey' in PATH; nearest: exec_query, ..." */
int err_no_function(struct pctx *c, const char *name, struct near *nr)
{
	const char *elfnear[NEAR_MAX];
	struct near all = { .want = name };
	char list[160] = "";
	int n = elfmod__nearest_funcs(c->mod, name, elfnear, NEAR_MAX);

	/* elfmod's order first (it also ranks prefixes), DWARF-only names after. */
	for (int i = 0; i < n && all.n < NEAR_MAX; i++) {
		all.names[all.n] = elfnear[i];
		all.score[all.n++] = i;
	}
	for (int i = 0; nr && i < nr->n && all.n < NEAR_MAX; i++) {
		bool dup = false;

		for (int j = 0; j < all.n; j++)
			dup |= !strcmp(all.names[j], nr->names[i]);
		if (!dup)
			all.names[all.n++] = nr->names[i];
	}
	for (int i = 0; i < all.n; i++) {
		size_t used = strlen(list);

		snprintf(list + used, sizeof(list) - used, "%s%s", i ? ", " : "", all.names[i]);
	}
	if (all.n > 0)
		return ptap_err_set(c->err, -1, -ENOENT, "no function '%s' in %s; nearest: %s%s",
				    name, elfmod__path(c->mod), list, stripped_hint(c));
	return ptap_err_set(c->err, -1, -ENOENT, "no function '%s' in %s (and no similar names)%s",
			    name, elfmod__path(c->mod), stripped_hint(c));
}

/* Is line A nearer to NL->want than line B (of two as near, the lower)? */
static bool nearer(const struct nearlines *nl, int a, int b)
{
	int da = abs(a - nl->want), db = abs(b - nl->want);

	return da < db || (da == db && a < b);
}

/* Remember LINE if it is among the NEAR_LINES nearest to NL->want. */
void nearlines_add(struct nearlines *nl, int line)
{
	int worst = 0;

	if (line <= 0)
		return;
	for (int i = 0; i < nl->n; i++)
		if (nl->lines[i] == line)
			return;
	if (nl->n < NEAR_LINES) {
		nl->lines[nl->n++] = line;
		return;
	}
	for (int i = 1; i < nl->n; i++)
		if (nearer(nl, nl->lines[worst], nl->lines[i]))
			worst = i;
	if (nearer(nl, line, nl->lines[worst]))
		nl->lines[worst] = line;
}

/* NAME, a symbol of TYPE, is no site: an IFUNC's resolver, or not a function. */
int refuse_sym(struct pctx *c, const char *name, int type)
{
	if (type == STT_GNU_IFUNC)
		return ptap_err_set(c->err, -1, -EINVAL,
				    "'%s' in %s is an IFUNC's resolver: it runs once, when the "
				    "dynamic loader binds the IFUNC; probe the IFUNC by its own name "
				    "(its implementations: ptap list -x %s)", name,
				    elfmod__path(c->mod), elfmod__path(c->mod));
	return ptap_err_set(c->err, -1, -EINVAL, "'%s' in %s is not a function", name,
			    elfmod__path(c->mod));
}

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/*
 * "no code at structs.c:40; lines with code near it: 38, 42, 43", or for
 * FUNC:RELLINE (FUNC set) "no code at f:4 (FILE:29); lines of f with code
 * near it: f:2, f:5".
 */
int err_no_code(struct pctx *c, const char *file, int line, struct nearlines *nl,
		const char *func)
{
	char list[160] = "";

	if (nl->n)
		qsort(nl->lines, nl->n, sizeof(int), cmp_int);
	for (int i = 0; i < nl->n; i++) {
		size_t used = strlen(list);

		if (func)
			snprintf(list + used, sizeof(list) - used, "%s%s:%d", i ? ", " : "", func,
				 nl->lines[i] - nl->base);
		else
			snprintf(list + used, sizeof(list) - used, "%s%d", i ? ", " : "",
				 nl->lines[i]);
	}
	if (func)
		return ptap_err_set(c->err, -1, -ENOENT,
				    "no code at %s:%d (%s:%d); lines of %s with code near it: %s",
				    func, line - nl->base, file, line, func, nl->n ? list : "none");
	if (!nl->n)
		return ptap_err_set(c->err, -1, -ENOENT, "no code at %s:%d in %s", file, line,
				    elfmod__path(c->mod));
	return ptap_err_set(c->err, -1, -ENOENT, "no code at %s:%d; lines with code near it: %s",
			    file, line, list);
}

/* A glob that matched only what cannot be probed: the first reason. */
int err_glob_nothing(struct pctx *c, const char *glob, bool dropped)
{
	if (c->skips->n)
		return ptap_err_set(c->err, -1, -ENOTSUP, "no site of '%s' can be probed (%d "
				    "site%s); %s%s", glob, c->skips->n, c->skips->n == 1 ? "" : "s",
				    c->skips->n > 1 ? "the first: " : "", c->skips->first[0]);
	return ptap_err_set(c->err, -1, -ENOENT, "no function matches '%s' in %s%s", glob,
			    elfmod__path(c->mod), dropped ? " but inlined ones (--no-inlines)" : "");
}

int err_no_func_site(struct pctx *c, struct near *nr, const struct func_left *left)
{
	const struct probe_point *pp = c->pp;
	const char *path = elfmod__path(c->mod);
	int dropped = left->dropped;

	if (left->ifunc)
		return refuse_sym(c, pp->func, STT_GNU_IFUNC);
	if (left->offinl)
		return ptap_err_set(c->err, -1, -EINVAL,
				    "'%s' has no out-of-line copy in %s (only %d inlined "
				    "instance%s); FUNC+OFF needs one: give a line (FUNC:RELLINE) "
				    "instead", pp->func, path, left->offinl,
				    left->offinl == 1 ? "" : "s");
	if (pp->line && c->nolines.n)
		return err_no_code(c, c->nolines.file, pp->line + c->nolines.base,
				   &c->nolines, pp->func);
	if (pp->line && (left->ninsts || left->nsyms))
		return ptap_err_set(c->err, -1, -ENOENT, "no line-table rows for '%s' in %s",
				    pp->func, path);
	if (dropped && pp->retprobe)
		return ptap_err_set(c->err, -1, -ENOENT,
				    "'%s' exists only inlined in %s (%d instance%s): an inlined copy "
				    "is not called, so it has no return to probe; probe the lines "
				    "after it (FILE:LINE) or its caller", pp->func, path, dropped,
				    dropped == 1 ? "" : "s");
	if (dropped)
		return ptap_err_set(c->err, -1, -ENOENT,
				    "'%s' exists only inlined in %s (%d instance%s) and "
				    "--no-inlines leaves no site", pp->func, path, dropped,
				    dropped == 1 ? "" : "s");
	if (pp->src)
		return ptap_err_set(c->err, -1, -ENOENT, "no function '%s' in %s in %s", pp->func,
				    pp->src, path);
	return err_no_function(c, pp->func, nr);
}
