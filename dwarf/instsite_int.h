/* dwarf/instsite_int.h: the site of FUNC, FUNC+OFF or FUNC:RELLINE in one
 * function instance (dwarf/instsite.c).  Private to dwarf/. */
#ifndef PTAP_DWARF_INSTSITE_INT_H
#define PTAP_DWARF_INSTSITE_INT_H

#include <stdbool.h>

#include <elfutils/libdw.h>

struct finst;
struct pctx;

/* Does a parameter of FN live in FN's own frame at its ENTRY (not written yet)? */
bool params_in_frame(Dwarf_Die *fn, Dwarf_Addr entry);
/* The end of FN's prologue (perf's skip-prologue) into *OUT.  0, or -ENOENT. */
int skip_prologue(Dwarf_Die *cu, Dwarf_Die *fn, Dwarf_Addr entry, Dwarf_Addr *out);
/* The out-of-line copy FI of NAME: its entry, or past the prologue at -O0. */
int add_outofline(struct pctx *c, struct finst *fi, const char *name, const char *where);
/* An inlined instance FI of NAME: its entry, named "NAME@CALLER+0xOFF". */
int add_inlined(struct pctx *c, struct finst *fi, const char *name);
/* FUNC+OFF in the out-of-line copy FI: OFF bytes from its entry, not moved. */
int add_offset(struct pctx *c, struct finst *fi, const char *name);
/* FUNC:RELLINE in the instance FI (none: C->nolines gets the lines it has). */
int add_relline(struct pctx *c, struct finst *fi, const char *name);

#endif
