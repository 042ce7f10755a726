/* dwarf/lines_int.h: the sites of SRC:LINE and 0xADDR (dwarf/lines.c).
 * Private to dwarf/. */
#ifndef PTAP_DWARF_LINES_INT_H
#define PTAP_DWARF_LINES_INT_H

struct pctx;

int points_srcline(struct pctx *c);	/* SRC:LINE */
int points_addr(struct pctx *c);	/* 0xADDR */

#endif
