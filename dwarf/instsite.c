/* dwarf/instsite.c: the site of FUNC, FUNC+OFF or FUNC:RELLINE in one
 * function instance a CU walk found: an out-of-line copy at its entry or
 * past its prologue (perf's skip-prologue, also SRC:LINE's), an inlined
 * instance at its own entry. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <dwarf.h>

#include "arch/arch.h"
#include "dwarf/die_int.h"
#include "dwarf/fwalk_int.h"
#include "dwarf/instsite_int.h"
#include "dwarf/nosite_int.h"
#include "dwarf/pctx_int.h"
#include "probes/err.h"
#include "probes/spec.h"

/*
 * Does parameter PARAM of FN live in FN's own frame at PC (the entry), so
 * that it is not written yet?  -O0 code spills parameters below the CFA
 * (DW_OP_fbreg -N with a DW_OP_call_frame_cfa frame base) or relative to
 * %rbp / %rsp.  A stack-passed argument at or above the CFA (fbreg >= 0 at
 * -O2) is already there at the entry, as are registers, pieces of
 * registers, entry values and constants.
 */
static bool param_in_frame(Dwarf_Die *fn, Dwarf_Die *param, Dwarf_Addr pc)
{
	int fp = arch_reg_by_name("bp");
	Dwarf_Attribute attr;
	Dwarf_Op *ops;
	size_t nops;

	if (!dwarf_attr(param, DW_AT_location, &attr) ||
	    dwarf_getlocation_addr(&attr, pc, &ops, &nops, 1) <= 0)
		return false;
	for (size_t i = 0; i < nops; i++) {
		Dwarf_Sword off;
		int reg;

		switch (ops[i].atom) {
		case DW_OP_fbreg: {
			Dwarf_Attribute fa;
			Dwarf_Op *fops;
			size_t nf;

			/* A CFA frame base is right at the entry: only below it is the frame. */
			if (dwarf_attr(fn, DW_AT_frame_base, &fa) &&
			    dwarf_getlocation_addr(&fa, pc, &fops, &nf, 1) > 0 && nf == 1 &&
			    fops[0].atom == DW_OP_call_frame_cfa)
				return (Dwarf_Sword)ops[i].number < 0;
			return true;
		}
		case DW_OP_breg0 ... DW_OP_breg31:
			reg = ops[i].atom - DW_OP_breg0;
			off = ops[i].number;
			break;
		case DW_OP_bregx:
			reg = ops[i].number;
			off = ops[i].number2;
			break;
		default:
			continue;
		}
		/* At the entry the frame pointer is the caller's; below %rsp is nothing yet. */
		if (reg == fp || (reg == ARCH_DWARF_SP && off < 0))
			return true;
	}
	return false;
}

bool params_in_frame(Dwarf_Die *fn, Dwarf_Addr entry)
{
	Dwarf_Die child;

	if (dwarf_child(fn, &child) != 0)
		return false;
	do {
		if (dwarf_tag(&child) == DW_TAG_formal_parameter &&
		    param_in_frame(fn, &child, entry))
			return true;
	} while (dwarf_siblingof(&child, &child) == 0);
	return false;
}

/*
 * The end of FN's prologue (perf's skip-prologue): the first line-table row
 * after ENTRY inside FN whose line differs from the entry row's; failing
 * that, the next row after the entry.  0, or -ENOENT.
 */
int skip_prologue(Dwarf_Die *cu, Dwarf_Die *fn, Dwarf_Addr entry, Dwarf_Addr *out)
{
	Dwarf_Addr next_row = 0;
	Dwarf_Lines *lines;
	bool have_l0 = false;
	size_t nl;
	int l0 = 0;

	if (dwarf_getsrclines(cu, &lines, &nl) != 0)
		return -ENOENT;
	/* Rows are sorted by address: the entry's rows come first. */
	for (size_t i = 0; i < nl; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		bool stmt = false, endseq = false;
		Dwarf_Addr a;
		int ln;

		if (!l || dwarf_lineaddr(l, &a) != 0 || a < entry || dwarf_lineno(l, &ln) != 0)
			continue;
		dwarf_linebeginstatement(l, &stmt);
		dwarf_lineendsequence(l, &endseq);
		if (endseq || dwarf_haspc(fn, a) <= 0)
			continue;
		if (a == entry) {
			if (!have_l0)
				l0 = ln;
			have_l0 = true;
			continue;
		}
		if (!stmt || !have_l0)
			continue;
		if (!next_row)
			next_row = a;
		if (ln != l0 && ln != 0) {
			*out = a;
			return 0;
		}
	}
	if (!next_row)
		return -ENOENT;
	*out = next_row;
	return 0;
}

/* The out-of-line copy FI of NAME: its entry, or past the prologue at -O0. */
int add_outofline(struct pctx *c, struct finst *fi, const char *name, const char *where)
{
	Dwarf_Addr entry, site;
	bool moved = false;

	if (die_func_entry(&fi->fn, false, &entry) < 0)
		return 0;
	site = entry;
	if (!c->at_entry && params_in_frame(&fi->fn, entry) && skip_prologue(&fi->cu, &fi->fn, entry, &site) == 0)
		moved = true;
	return add_site(c, site + c->bias, entry + c->bias, name, where, &fi->cu, &fi->fn, false,
			!moved, moved);
}

/* An inlined instance FI of NAME: its entry, named "NAME@CALLER+0xOFF". */
int add_inlined(struct pctx *c, struct finst *fi, const char *name)
{
	Dwarf_Addr entry, oentry, rstart, rend;
	const char *caller = die_name(&fi->outer);
	char where[256];

	if (die_func_entry(&fi->fn, true, &entry) < 0 || die_func_entry(&fi->outer, false, &oentry) < 0)
		return 0;
	/* The boundary check decodes from the start of the caller's range holding it. */
	if (die_range_holding(&fi->outer, entry, &rstart, &rend) < 0)
		rstart = entry;
	if (entry >= oentry)
		snprintf(where, sizeof(where), "%s@%s+0x%lx", name, caller ? caller : "?",
			 (unsigned long)(entry - oentry));
	else
		snprintf(where, sizeof(where), "%s@%s-0x%lx", name, caller ? caller : "?",
			 (unsigned long)(oentry - entry));
	return add_site(c, entry + c->bias, rstart + c->bias, name, where, &fi->cu, &fi->fn, true,
			true, false);
}

/* FUNC+OFF in the out-of-line copy FI: OFF bytes from its entry, not moved. */
int add_offset(struct pctx *c, struct finst *fi, const char *name)
{
	long off = c->pp->offset;
	Dwarf_Addr entry, rstart, rend;
	char where[192];

	if (die_func_entry(&fi->fn, false, &entry) < 0)
		return 0;
	if (die_range_holding(&fi->fn, entry, &rstart, &rend) < 0)
		rend = entry + 1;
	/* Past the entry's range is another part of the function (.cold): not OFF bytes on. */
	if (off < 0 || entry + off >= rend)
		return ptap_err_set(c->err, -1, -EINVAL, "offset %ld is outside %s (size %lu)", off,
				    name, (unsigned long)(rend - entry));
	snprintf(where, sizeof(where), "%s+%ld", name, off);
	return add_site(c, entry + off + c->bias, entry + c->bias, name, where, &fi->cu, &fi->fn,
			false, off == 0, false);
}

/*
 * FUNC:RELLINE in the instance FI: the lowest address of a statement row
 * for line DW_AT_decl_line + RELLINE of FUNC's file inside FI.  None: the
 * lines FI has code for go to C->nolines for the message.
 */
int add_relline(struct pctx *c, struct finst *fi, const char *name)
{
	const char *file = dwarf_decl_file(&fi->fn);
	Dwarf_Addr best = 0, entry = 0, rstart, rend;
	bool have = false;
	Dwarf_Lines *lines;
	int decl, target, r;
	char where[256];
	size_t nl;

	if (!file || dwarf_decl_line(&fi->fn, &decl) != 0 ||
	    dwarf_getsrclines(&fi->cu, &lines, &nl) != 0)
		return 0;
	target = decl + c->pp->line;
	/* The message names the lines of one function: the last one tried. */
	if (c->nolines.file != file || c->nolines.base != decl)
		c->nolines.n = 0;
	c->nolines.want = target;
	c->nolines.base = decl;
	c->nolines.file = file;
	for (size_t i = 0; i < nl; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		bool stmt = false, endseq = false;
		const char *lf;
		Dwarf_Addr a;
		int ln;

		if (!l || dwarf_lineaddr(l, &a) != 0 || dwarf_lineno(l, &ln) != 0)
			continue;
		dwarf_linebeginstatement(l, &stmt);
		dwarf_lineendsequence(l, &endseq);
		lf = dwarf_linesrc(l, NULL, NULL);
		if (!stmt || endseq || !lf || (lf != file && strcmp(lf, file)) ||
		    dwarf_haspc(&fi->fn, a) <= 0)
			continue;
		if (ln != target) {
			nearlines_add(&c->nolines, ln);
			continue;
		}
		if (!have || a < best)
			best = a;
		have = true;
	}
	if (!have)
		return 0;
	die_func_entry(&fi->fn, fi->inlined, &entry);
	if (die_range_holding(&fi->outer, best, &rstart, &rend) < 0)
		rstart = best;
	if (fi->inlined) {
		Dwarf_Addr oentry = best;
		const char *caller = die_name(&fi->outer);

		die_func_entry(&fi->outer, false, &oentry);
		snprintf(where, sizeof(where), "%s:%d@%s+0x%lx", name, c->pp->line,
			 caller ? caller : "?", (unsigned long)(best - oentry));
	} else {
		snprintf(where, sizeof(where), "%s:%d", name, c->pp->line);
	}
	bool moved = false;

	/* FUNC:0 or a RELLINE on the opening line at -O0: past the prologue */
	if (!fi->inlined && best == entry && !c->at_entry && params_in_frame(&fi->fn, entry) &&
	    skip_prologue(&fi->cu, &fi->fn, entry, &best) == 0)
		moved = true;
	r = add_site(c, best + c->bias, rstart + c->bias, name, where, &fi->cu, &fi->fn,
		     fi->inlined, best == entry, moved);
	if (r == 0)
		set_last_line(c, file, target);
	return r;
}
