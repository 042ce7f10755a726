/* dwarf/lines.c: sites given by place rather than by function: SRC:LINE
 * (every function with a statement row for that line, from the line
 * tables) and 0xADDR (the function holding it). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>
#include <elfutils/libdwfl.h>

#include "dwarf/debuginfo_int.h"
#include "dwarf/die_int.h"
#include "dwarf/elfmod.h"
#include "dwarf/instsite_int.h"
#include "dwarf/lines_int.h"
#include "dwarf/nosite_int.h"
#include "dwarf/pctx_int.h"
#include "probes/err.h"
#include "probes/spec.h"

/*
 * The functions holding DWARF address PC in CU: *FN the innermost
 * (subprogram or inlined instance), *OUTER the out-of-line function (a
 * top-level subprogram with code there).  0, or -ENOENT.
 */
static int funcs_at(Dwarf_Die *cu, Dwarf_Addr pc, Dwarf_Die *fn, Dwarf_Die *outer)
{
	Dwarf_Die *scopes = NULL, child;
	bool have_fn = false, have_outer = false;
	int n = dwarf_getscopes(cu, pc, &scopes);

	for (int i = 0; i < n && !have_fn; i++) {
		int tag = dwarf_tag(&scopes[i]);

		if ((tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine) &&
		    die_has_code(&scopes[i]) && dwarf_haspc(&scopes[i], pc) > 0) {
			*fn = scopes[i];
			have_fn = true;
		}
	}
	free(scopes);
	/* After an inlined instance, dwarf_getscopes may go on with its origin's scopes. */
	if (have_fn && dwarf_child(cu, &child) == 0) {
		do {
			if (dwarf_tag(&child) == DW_TAG_subprogram && die_has_code(&child) &&
			    dwarf_haspc(&child, pc) > 0) {
				*outer = child;
				have_outer = true;
			}
		} while (!have_outer && dwarf_siblingof(&child, &child) == 0);
	}
	if (have_fn && !have_outer && dwarf_tag(fn) == DW_TAG_subprogram) {
		*outer = *fn;
		have_outer = true;
	}
	return have_fn && have_outer ? 0 : -ENOENT;
}

/* A site at DWARF address PC of CU, in whatever function holds it. */
static int add_pc_site(struct pctx *c, Dwarf_Die *cu, Dwarf_Addr pc, Dwarf_Die *fn,
		       Dwarf_Die *outer, const char *where, bool exact)
{
	bool inlined = dwarf_tag(fn) == DW_TAG_inlined_subroutine, moved = false;
	Dwarf_Addr entry = 0, rstart, rend;
	const char *name = die_name(fn);

	die_func_entry(fn, inlined, &entry);
	/* A line that is a function's first (its opening line at -O0): past the
	 * prologue, as gdb's `break FILE:LINE` does; an 0xADDR stays put. */
	if (!exact && !inlined && pc == entry && !c->at_entry && params_in_frame(fn, entry) &&
	    skip_prologue(cu, fn, entry, &pc) == 0)
		moved = true;
	if (die_range_holding(outer, pc, &rstart, &rend) < 0)
		rstart = pc;
	return add_site(c, pc + c->bias, rstart + c->bias, name ? name : "?", where, cu, fn,
			inlined, pc == entry, moved);
}

/* Does CU's line table name a file SRC matches? */
static bool cu_has_src(Dwarf_Die *cu, const char *src)
{
	Dwarf_Files *files;
	size_t nf;

	if (dwarf_getsrcfiles(cu, &files, &nf) != 0)
		return false;
	for (size_t i = 0; i < nf; i++)
		if (src_match(dwarf_filesrc(files, i, NULL, NULL), src))
			return true;
	return false;
}

/*
 * SRC:LINE in CU: for each function (or inlined instance) with a statement
 * row for the line, the lowest such address.
 */
static int srcline_cu(struct pctx *c, Dwarf_Die *cu, struct nearlines *nl, int *dropped)
{
	const char *last = NULL, *src = c->pp->src;
	Dwarf_Off *seen = NULL;
	size_t nl_rows, nseen = 0, cap = 0;
	Dwarf_Lines *lines;
	char where[192];
	bool match = false;
	int r = 0;

	if (dwarf_getsrclines(cu, &lines, &nl_rows) != 0)
		return 0;
	snprintf(where, sizeof(where), "%s:%d", src, c->pp->line);
	for (size_t i = 0; i < nl_rows && r == 0; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		bool stmt = false, endseq = false, dup = false;
		Dwarf_Die fn, outer;
		const char *lf;
		Dwarf_Addr a;
		int ln;

		if (!l || dwarf_lineaddr(l, &a) != 0 || dwarf_lineno(l, &ln) != 0)
			continue;
		lf = dwarf_linesrc(l, NULL, NULL);
		if (lf != last) {
			last = lf;
			match = src_match(lf, src);
		}
		dwarf_linebeginstatement(l, &stmt);
		dwarf_lineendsequence(l, &endseq);
		if (!match || endseq)
			continue;
		if (ln != c->pp->line) {
			nearlines_add(nl, ln);
			continue;
		}
		if (!stmt || funcs_at(cu, a, &fn, &outer) < 0)
			continue;
		for (size_t k = 0; k < nseen && !dup; k++)
			dup = seen[k] == dwarf_dieoffset(&fn);
		if (dup)
			continue;
		r = points_grow((void **)&seen, &cap, sizeof(*seen), nseen + 1);
		if (r < 0)
			break;
		seen[nseen++] = dwarf_dieoffset(&fn);
		if (c->no_inlines && dwarf_tag(&fn) == DW_TAG_inlined_subroutine) {
			(*dropped)++;
			continue;
		}
		r = add_pc_site(c, cu, a, &fn, &outer, where, false);
		if (r == 0)
			set_last_line(c, lf, ln);
	}
	free(seen);
	return r;
}

/* SRC:LINE: every CU whose line table has a file SRC matches. */
int points_srcline(struct pctx *c)
{
	struct nearlines nl = { .want = c->pp->line };
	Dwarf_Off off = 0, next;
	bool file_found = false;
	int dropped = 0, r;
	size_t hsize;

	while (dwarf_nextcu(c->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;

		if (dwarf_offdie(c->dw, off + hsize, &cu) && cu_has_src(&cu, c->pp->src)) {
			file_found = true;
			r = srcline_cu(c, &cu, &nl, &dropped);
			if (r < 0)
				return r;
		}
		off = next;
	}
	if (!file_found)
		return ptap_err_set(c->err, -1, -ENOENT, "no source file '%s' in the DWARF of %s",
				    c->pp->src, elfmod__path(c->mod));
	if (c->n == 0 && dropped)
		return ptap_err_set(c->err, -1, -ENOENT,
				    "%s:%d has code only in inlined instances (%d) and "
				    "--no-inlines leaves no site", c->pp->src, c->pp->line,
				    dropped);
	if (c->n == 0)
		return err_no_code(c, c->pp->src, c->pp->line, &nl, NULL);
	return 0;
}

/* 0xADDR: the function holding it (DWARF, else the ELF symbol). */
int points_addr(struct pctx *c)
{
	uint64_t a = c->pp->addr;
	struct elfmod_sym sym;
	char where[32];

	snprintf(where, sizeof(where), "0x%lx", (unsigned long)a);
	if (c->dw) {
		Dwarf_Addr bias;
		Dwarf_Die *cu = dwfl_module_addrdie(dbg__module(c->dbg), a, &bias);
		Dwarf_Die cuc, fn, outer;

		if (cu) {
			cuc = *cu;
			if (funcs_at(&cuc, a - c->bias, &fn, &outer) == 0)
				return add_pc_site(c, &cuc, a - c->bias, &fn, &outer, where, true);
		}
	}
	/* An int3 inside an instruction would corrupt it: the address must start one. */
	if (elfmod__sym_at(c->mod, a, &sym) < 0)
		return ptap_err_set(c->err, -1, -EINVAL,
				    "0x%lx is not inside a function of %s; give FUNC+OFF or the "
				    "address of an instruction in a function", (unsigned long)a,
				    elfmod__path(c->mod));
	return add_site(c, a, sym.vaddr, sym.name, where, NULL, NULL, false, a == sym.vaddr,
			false);
}
