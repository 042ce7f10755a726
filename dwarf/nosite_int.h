/* dwarf/nosite_int.h: why a probe point has no site (dwarf/nosite.c): the
 * names near an unknown one, the lines with code near a line without, what
 * a FUNC or a glob found but could not probe.  Private to dwarf/. */
#ifndef PTAP_DWARF_NOSITE_INT_H
#define PTAP_DWARF_NOSITE_INT_H

#include <stdbool.h>
#include <stddef.h>

struct nearlines;
struct pctx;

#define NEAR_MAX	5	/* names suggested for an unknown function */

/* Names close to an unknown one, best (lowest score) first. */
struct near {
	const char *want;
	const char *names[NEAR_MAX];
	int score[NEAR_MAX];
	int n;
};

/* What a FUNC point's instances and symbols gave no site for, to say why. */
struct func_left {
	int dropped;		/* inlined instances --no-inlines (or %return) leaves out */
	int ifunc;		/* IFUNC resolvers, which are never a site */
	int offinl;		/* inlined instances FUNC+OFF cannot take */
	size_t ninsts;		/* instances the walk found */
	int nsyms;		/* symbols of the name */
};

void near_add(struct near *nr, const char *name);	/* NAME, if close to NR->want */
/* "no function 'exec_qurey' in PATH; nearest: exec_query, ..."  -ENOENT. */
int err_no_function(struct pctx *c, const char *name, struct near *nr);
/* "no code at structs.c:40; lines with code near it: ..."  -ENOENT. */
int err_no_code(struct pctx *c, const char *file, int line, struct nearlines *nl,
		const char *func);
/* A glob that matched only what cannot be probed: the first reason. */
int err_glob_nothing(struct pctx *c, const char *glob, bool dropped);
/* A plain FUNC left without a site (LEFT: what it found; NR: names close to it,
 * or NULL when it has symbols): why.  -ENOENT or -EINVAL with C->err. */
int err_no_func_site(struct pctx *c, struct near *nr, const struct func_left *left);
/* Remember LINE if it is among the NEAR_LINES nearest to NL->want. */
void nearlines_add(struct nearlines *nl, int line);
/* The symbol NAME of TYPE is no site (an IFUNC's resolver, or not a function): why.
 * -EINVAL with C->err. */
int refuse_sym(struct pctx *c, const char *name, int type);

#endif
