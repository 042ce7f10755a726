/* dwarf/funcsites_int.h: the sites of a FUNC point (dwarf/funcsites.c).
 * Private to dwarf/. */
#ifndef PTAP_DWARF_FUNCSITES_INT_H
#define PTAP_DWARF_FUNCSITES_INT_H

struct fwalk;
struct pctx;

int points_func(struct pctx *c, struct fwalk *w);	/* FUNC (a name or a glob) */
/* FUNC as C++ and Rust write it (ns::f, ns::f(int), 'app::*'): dwarf/qualsites.c */
int points_qualified(struct pctx *c);

#endif
