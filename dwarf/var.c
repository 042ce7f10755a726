/* dwarf/var.c: a DWARF variable at a probe site -> a fetch program.
 *
 * The variable's location expression, evaluated for the site's address
 * (location lists included), is translated op by op into the fetch stack
 * machine; then each step of the access chain (->m .m [i] *) moves along
 * the type; the last type picks how the value is loaded and printed.
 * Nothing is guessed: a location or type ptap cannot follow exactly is an
 * error at start, naming the variable and the reason. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>
#include <elf.h>

#include "arch/arch.h"
#include "dwarf/debuginfo.h"
#include "dwarf/elfmod.h"
#include "dwarf/points.h"
#include "dwarf/var.h"
#include "probes/err.h"
#include "probes/spec.h"

#define ARRAY_MAX_ELEMS		64	/* an array printed whole: at most this many */

/* ---- types -------------------------------------------------------------- */

static bool die_type(Dwarf_Die *die, Dwarf_Die *out)
{
	Dwarf_Attribute a;

	return dwarf_attr_integrate(die, DW_AT_type, &a) && dwarf_formref_die(&a, out);
}

/* TYPE without typedefs and qualifiers; false for void. */
static bool strip_type(Dwarf_Die *type, Dwarf_Die *out)
{
	*out = *type;
	for (int i = 0; i < 64; i++) {
		switch (dwarf_tag(out)) {
		case DW_TAG_typedef:
		case DW_TAG_const_type:
		case DW_TAG_volatile_type:
		case DW_TAG_restrict_type:
		case DW_TAG_atomic_type:
			if (!die_type(out, out))
				return false;
			continue;
		default:
			return true;
		}
	}
	return false;
}

/*
 * A constant attribute's value: DW_FORM_sdata is signed; udata and the
 * fixed-size data forms are zero-extended from their width, and the value
 * then takes the size and signedness of its type when it is printed (as gdb
 * reads them: an int 200 is often a one-byte 0xc8).
 */
static int const_value(Dwarf_Attribute *a, uint64_t *out)
{
	Dwarf_Word w;
	Dwarf_Sword sw;
	unsigned int bits = 64;

	switch (dwarf_whatform(a)) {
	case DW_FORM_sdata:
	case DW_FORM_implicit_const:
		if (dwarf_formsdata(a, &sw) != 0)
			return -EINVAL;
		*out = (uint64_t)sw;
		return 0;
	case DW_FORM_data1: bits = 8; break;
	case DW_FORM_data2: bits = 16; break;
	case DW_FORM_data4: bits = 32; break;
	case DW_FORM_data8: case DW_FORM_udata: break;
	default:
		return -EINVAL;
	}
	if (dwarf_formudata(a, &w) != 0)
		return -EINVAL;
	*out = bits < 64 ? w & ((1ULL << bits) - 1) : w;
	return 0;
}

static Dwarf_Word die_udata(Dwarf_Die *die, unsigned int name, Dwarf_Word def)
{
	Dwarf_Attribute a;
	Dwarf_Word w;

	if (!dwarf_attr_integrate(die, name, &a) || dwarf_formudata(&a, &w) != 0)
		return def;
	return w;
}

/* Is ATTR a constant (not a location or reference, as a VLA bound is)? */
static bool const_form(Dwarf_Attribute *a)
{
	switch (dwarf_whatform(a)) {
	case DW_FORM_data1: case DW_FORM_data2: case DW_FORM_data4: case DW_FORM_data8:
	case DW_FORM_udata: case DW_FORM_sdata: case DW_FORM_implicit_const:
		return true;
	}
	return false;
}

/* Element counts of array T's dimensions into DIMS (-1: not a constant, as in
 * a VLA or a flexible array); returns how many dimensions there are. */
static int array_dims(Dwarf_Die *t, long *dims, int max)
{
	Dwarf_Die sub;
	int n = 0;

	if (dwarf_child(t, &sub) != 0)
		return 0;
	do {
		Dwarf_Attribute a;
		Dwarf_Word w;
		long count = -1;

		if (dwarf_tag(&sub) != DW_TAG_subrange_type)
			continue;
		if (dwarf_attr(&sub, DW_AT_count, &a) && const_form(&a) && dwarf_formudata(&a, &w) == 0)
			count = (long)w;
		else if (dwarf_attr(&sub, DW_AT_upper_bound, &a) && const_form(&a) &&
			 dwarf_formudata(&a, &w) == 0)
			count = (long)w + 1;
		if (n < max)
			dims[n] = count;
		n++;
	} while (dwarf_siblingof(&sub, &sub) == 0);
	return n;
}

#define ARRAY_MAX_DIMS	8

/* Bytes of TYPE, or 0 when unknown (void, an array of unknown length). */
static Dwarf_Word type_size(Dwarf_Die *type)
{
	Dwarf_Die t;

	if (!strip_type(type, &t))
		return 0;
	if (dwarf_tag(&t) == DW_TAG_pointer_type || dwarf_tag(&t) == DW_TAG_reference_type)
		return die_udata(&t, DW_AT_byte_size, 8);
	if (dwarf_tag(&t) == DW_TAG_array_type) {
		long dims[ARRAY_MAX_DIMS];
		int nd = array_dims(&t, dims, ARRAY_MAX_DIMS);
		Dwarf_Word n = 1;
		Dwarf_Die elem;

		if (!die_type(&t, &elem) || nd > ARRAY_MAX_DIMS)
			return 0;
		for (int i = 0; i < nd; i++)
			n *= dims[i] < 0 ? 0 : (Dwarf_Word)dims[i];
		return n * type_size(&elem);
	}
	return die_udata(&t, DW_AT_byte_size, 0);
}

/* Element count of the first dimension of array T, or -1 when unknown. */
static long array_count(Dwarf_Die *t)
{
	long dims[ARRAY_MAX_DIMS];

	return array_dims(t, dims, ARRAY_MAX_DIMS) > 0 ? dims[0] : -1;
}

/* The element type of array T after its first dimension, its size (0 when
 * unknown), and whether more dimensions follow (a 2-D array's row). */
static bool array_elem(Dwarf_Die *t, Dwarf_Die *elem, Dwarf_Word *elem_size, bool *sub_array)
{
	long dims[ARRAY_MAX_DIMS];
	int nd = array_dims(t, dims, ARRAY_MAX_DIMS);
	Dwarf_Word inner = 1;

	if (!die_type(t, elem) || nd > ARRAY_MAX_DIMS)
		return false;
	*sub_array = nd > 1;
	for (int i = 1; i < nd; i++)
		inner *= dims[i] < 0 ? 0 : (Dwarf_Word)dims[i];
	*elem_size = inner * type_size(elem);
	return true;
}

static bool is_char_type(Dwarf_Die *type)
{
	Dwarf_Die t;
	Dwarf_Word enc;

	if (!strip_type(type, &t) || dwarf_tag(&t) != DW_TAG_base_type)
		return false;
	enc = die_udata(&t, DW_AT_encoding, 0);
	return die_udata(&t, DW_AT_byte_size, 0) == 1 &&
	       (enc == DW_ATE_signed_char || enc == DW_ATE_unsigned_char);
}

/* An array whose elements are chars (a string stored in place). */
static bool is_char_type_elem(Dwarf_Die *array)
{
	Dwarf_Die elem;

	return die_type(array, &elem) && is_char_type(&elem);
}

static void bufcat(char *buf, size_t len, const char *s)
{
	size_t used = strnlen(buf, len), n = strlen(s);

	if (used + 1 >= len)
		return;
	if (n > len - used - 1)
		n = len - used - 1;
	memcpy(buf + used, s, n);
	buf[used + n] = 0;
}

static bool is_qualifier(int tag)
{
	return tag == DW_TAG_const_type || tag == DW_TAG_volatile_type ||
	       tag == DW_TAG_restrict_type || tag == DW_TAG_atomic_type;
}

/*
 * Whether qualifier QUAL (a DW_TAG_*_type DIE) is one of an array whose elements
 * carry it too.  C has no qualified arrays: `const char s[]` is an array of
 * const char, and GCC gives both the array and its elements the const; it is
 * said once, on the elements, as gdb does.
 */
static bool qual_of_qualified_elems(Dwarf_Die *qual)
{
	int tag = dwarf_tag(qual);
	Dwarf_Die t;

	if (!die_type(qual, &t))
		return false;
	for (int i = 0; i < 16 && is_qualifier(dwarf_tag(&t)); i++)
		if (!die_type(&t, &t))
			return false;
	if (dwarf_tag(&t) != DW_TAG_array_type)
		return false;
	/* the elements, through arrays of arrays and their other qualifiers */
	for (int i = 0; i < 16 && die_type(&t, &t); i++) {
		if (dwarf_tag(&t) == tag)
			return true;
		if (!is_qualifier(dwarf_tag(&t)) && dwarf_tag(&t) != DW_TAG_array_type)
			return false;
	}
	return false;
}

/* C spelling: PREFIX collects what goes left of the name, SUFFIX right. */
static void type_name_rec(Dwarf_Die *type, char *pre, char *suf, size_t len, int depth)
{
	char tmp[256];
	Dwarf_Die next;
	const char *name = dwarf_diename(type);

	if (depth > 16) {
		bufcat(pre, len, "...");
		return;
	}
	switch (dwarf_tag(type)) {
	case DW_TAG_base_type:
	case DW_TAG_typedef:
	case DW_TAG_unspecified_type:
		bufcat(pre, len, name ? name : "?");
		return;
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
	case DW_TAG_enumeration_type:
	case DW_TAG_class_type:
		snprintf(tmp, sizeof(tmp), "%s %s",
			 dwarf_tag(type) == DW_TAG_structure_type ? "struct" :
			 dwarf_tag(type) == DW_TAG_union_type ? "union" :
			 dwarf_tag(type) == DW_TAG_class_type ? "class" : "enum",
			 name ? name : "{...}");
		bufcat(pre, len, tmp);
		return;
	case DW_TAG_const_type:
	case DW_TAG_volatile_type:
	case DW_TAG_restrict_type:
	case DW_TAG_atomic_type: {
		const char *q = dwarf_tag(type) == DW_TAG_const_type ? "const" :
				dwarf_tag(type) == DW_TAG_volatile_type ? "volatile" :
				dwarf_tag(type) == DW_TAG_restrict_type ? "restrict" : "_Atomic";

		if (!die_type(type, &next)) {
			snprintf(tmp, sizeof(tmp), "%s void", q);
			bufcat(pre, len, tmp);
			return;
		}
		if (qual_of_qualified_elems(type)) {	/* "const char[14]", not "const const" */
			type_name_rec(&next, pre, suf, len, depth + 1);
			return;
		}
		/* "const char", but "char *const" */
		if (dwarf_tag(&next) == DW_TAG_pointer_type) {
			type_name_rec(&next, pre, suf, len, depth + 1);
			snprintf(tmp, sizeof(tmp), "%s", q);
			bufcat(pre, len, tmp);
			return;
		}
		snprintf(tmp, sizeof(tmp), "%s ", q);
		bufcat(pre, len, tmp);
		type_name_rec(&next, pre, suf, len, depth + 1);
		return;
	}
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
		if (!die_type(type, &next)) {
			bufcat(pre, len, "void *");
			return;
		}
		if (dwarf_tag(&next) == DW_TAG_subroutine_type) {
			bufcat(pre, len, "void (*)()");
			return;
		}
		type_name_rec(&next, pre, suf, len, depth + 1);
		if (dwarf_tag(&next) == DW_TAG_array_type) {
			bufcat(pre, len, " (*");
			memmove(suf + 1, suf, strnlen(suf, len - 2) + 1);
			suf[0] = ')';
			return;
		}
		/* PRE is empty when the pointee has no name (corrupt DWARF) */
		bufcat(pre, len, pre[0] && pre[strlen(pre) - 1] == '*' ? "*" : " *");
		return;
	case DW_TAG_array_type: {

		long dims[ARRAY_MAX_DIMS];
		int nd = array_dims(type, dims, ARRAY_MAX_DIMS);

		for (int i = 0; i < nd && i < ARRAY_MAX_DIMS; i++) {
			if (dims[i] >= 0)
				snprintf(tmp, sizeof(tmp), "[%ld]", dims[i]);
			else
				snprintf(tmp, sizeof(tmp), "[]");
			bufcat(suf, len, tmp);
		}
		if (die_type(type, &next))
			type_name_rec(&next, pre, suf, len, depth + 1);
		return;
	}
	case DW_TAG_subroutine_type:
		bufcat(pre, len, "void ()");
		return;
	default:
		bufcat(pre, len, name ? name : "?");
	}
}

const char *var_type_name(Dwarf_Die *type_die, char *buf, size_t len)
{
	char pre[256] = "", suf[128] = "";

	if (!type_die) {
		snprintf(buf, len, "void");
		return buf;
	}
	type_name_rec(type_die, pre, suf, sizeof(pre) < sizeof(suf) ? sizeof(pre) : sizeof(suf),
		      0);
	snprintf(buf, len, "%s%s", pre, suf);
	return buf;
}

/* ---- scopes and lookup -------------------------------------------------- */

static uint64_t site_pc(const struct var_ctx *c)
{
	return c->site->vaddr - dbg__bias(c->dbg);
}

static bool same_die(Dwarf_Die *a, Dwarf_Die *b)
{
	return dwarf_dieoffset(a) == dwarf_dieoffset(b);
}

/*
 * The scopes from the site's function (or inlined instance) down to the
 * innermost one holding the pc: *OUT[0] is the innermost.  Returns the
 * count (>= 1) or -errno.
 */
static int site_scopes(const struct var_ctx *c, Dwarf_Die **out)
{
	Dwarf_Die cu = c->site->cu;
	Dwarf_Die fn = c->site->fn;
	Dwarf_Die *scopes = NULL;
	int n = dwarf_getscopes(&cu, site_pc(c), &scopes);

	for (int i = 0; i < n; i++)
		if (same_die(&scopes[i], &fn)) {
			*out = scopes;
			return i + 1;
		}
	/* The pc is not inside FN's ranges (should not happen): FN alone. */
	free(scopes);
	*out = malloc(sizeof(**out));
	if (!*out)
		return -ENOMEM;
	(*out)[0] = fn;
	return 1;
}

static bool is_var_tag(int tag)
{
	return tag == DW_TAG_variable || tag == DW_TAG_formal_parameter;
}

static const char *var_name(Dwarf_Die *die)
{
	Dwarf_Attribute a;

	return dwarf_attr_integrate(die, DW_AT_name, &a) ? dwarf_formstring(&a) : NULL;
}

int var_walk(const struct var_ctx *c, bool globals,
	     int (*cb)(const struct var_info *v, void *priv), void *priv)
{
	Dwarf_Die *scopes = NULL;
	Dwarf_Die child;
	int n = 0, r = 0;

	if (c->site->has_die)
		n = site_scopes(c, &scopes);
	if (n < 0)
		return n;
	/* Parameters first, then locals from the function's scope inwards. */
	for (int pass = 0; pass < 2 && !r; pass++)
		for (int i = n - 1; i >= 0 && !r; i--) {
			if (dwarf_child(&scopes[i], &child) != 0)
				continue;
			do {
				struct var_info v = { .die = child };
				int tag = dwarf_tag(&child);

				/* a declaration (extern int g;) is not the variable */
				if (!is_var_tag(tag) || !(v.name = var_name(&child)) ||
				    dwarf_hasattr(&child, DW_AT_declaration))
					continue;
				v.param = tag == DW_TAG_formal_parameter;
				if (v.param != (pass == 0))
					continue;
				r = cb(&v, priv);
			} while (!r && dwarf_siblingof(&child, &child) == 0);
		}
	free(scopes);
	if (r || !globals || !c->site->has_die)
		return r;
	Dwarf_Die cu = c->site->cu;

	if (dwarf_child(&cu, &child) != 0)
		return 0;
	do {
		struct var_info v = { .die = child, .global = true };

		if (dwarf_tag(&child) != DW_TAG_variable || !(v.name = var_name(&child)) ||
		    !dwarf_hasattr_integrate(&child, DW_AT_location))
			continue;
		r = cb(&v, priv);
	} while (!r && dwarf_siblingof(&child, &child) == 0);
	return r;
}

struct find {
	const char *name;
	struct var_info found;
	bool ok;
	char list[320];		/* names seen, for the error */
};

static int find_cb(const struct var_info *v, void *priv)
{
	struct find *f = priv;

	if (!strcmp(v->name, f->name)) {
		f->found = *v;
		f->ok = true;
		/* keep looking: an inner scope's variable hides an outer one */
	}
	if (f->list[0])
		bufcat(f->list, sizeof(f->list), ", ");
	bufcat(f->list, sizeof(f->list), v->name);
	return 0;
}

/* A file-scope variable NAME of the compile unit CU: its defining DIE. */
static bool cu_global(Dwarf_Die *cu, const char *name, Dwarf_Die *out)
{
	Dwarf_Die child;

	if (dwarf_child(cu, &child) != 0)
		return false;
	do {
		const char *n;

		if (dwarf_tag(&child) != DW_TAG_variable || !(n = var_name(&child)) ||
		    strcmp(n, name) || !dwarf_hasattr_integrate(&child, DW_AT_location))
			continue;
		*out = child;
		return true;
	} while (dwarf_siblingof(&child, &child) == 0);
	return false;
}

/* Does compile unit CU's name end with FILE at a path component boundary? */
static bool cu_is_file(Dwarf_Die *cu, const char *file)
{
	const char *name = dwarf_diename(cu);
	size_t nl, fl = strlen(file);

	if (!name)
		return false;
	/* an absolute FILE against a unit named relative to its compile directory */
	if (file[0] == '/' && name[0] != '/') {
		Dwarf_Attribute a;
		const char *dir = dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &a));
		size_t dl = dir ? strlen(dir) : 0;

		return dir && !strncmp(file, dir, dl) && file[dl] == '/' &&
		       !strcmp(file + dl + 1, name);
	}
	nl = strlen(name);
	return nl >= fl && !strcmp(name + nl - fl, file) && (nl == fl || name[nl - fl - 1] == '/');
}

/* A global NAME in any compile unit (FILE: only that source file's). */
static bool any_global(const struct var_ctx *c, const char *name, const char *file,
		       Dwarf_Die *out)
{
	Dwarf *dw = dbg__dwarf(c->dbg);
	Dwarf_Off off = 0, next;
	size_t hsize;
	struct elfmod_sym sym;

	/* Fast: the symbol table knows its address, .debug_aranges its unit. */
	if (!file && elfmod__find_sym(c->mod, name, &sym) == 0 && sym.type == STT_OBJECT) {
		Dwarf_Addr bias;
		Dwarf_Die *cu = dwfl_module_addrdie(dbg__module(c->dbg), sym.vaddr, &bias);

		if (cu && cu_global(cu, name, out))
			return true;
	}
	while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;

		if (dwarf_offdie(dw, off + hsize, &cu) &&
		    (!file || cu_is_file(&cu, file)) && cu_global(&cu, name, out))
			return true;
		off = next;
	}
	return false;
}

/*
 * A library's global that the executable references is copied into the
 * executable at link time (a copy relocation): the library's own object,
 * which its DWARF describes, then never changes.  Refused, not misread.
 */
static int check_copy_reloc(const struct var_ctx *c, const struct var_info *v, int pos,
			    struct ptap_err *err)
{
	Dwarf_Attribute a;
	const char *name = v->name;
	Dwarf_Die die = v->die;

	if (!c->exe || c->exe == c->mod || !strcmp(elfmod__path(c->exe), elfmod__path(c->mod)))
		return 0;
	if (dwarf_attr_integrate(&die, DW_AT_linkage_name, &a))
		name = dwarf_formstring(&a);
	if (!name || !elfmod__copy_reloc(c->exe, name))
		return 0;
	return ptap_err_set(err, pos, -ENOTSUP,
			    "cannot fetch '%s': %s uses a copy of it made at link time (a copy "
			    "relocation), and %s's own object, which its DWARF describes, is never "
			    "updated; not supported yet", name, elfmod__path(c->exe),
			    elfmod__path(c->mod));
}

static int lookup(const struct var_ctx *c, const struct arg_expr *e, struct var_info *v,
		  struct ptap_err *err)
{
	struct find f = { .name = e->name };
	Dwarf_Die cu = c->site->cu;

	memset(v, 0, sizeof(*v));
	if (!e->file) {
		int r = var_walk(c, false, find_cb, &f);

		if (r < 0)
			return r;
		if (f.ok) {
			*v = f.found;
			return 0;
		}
		if (cu_global(&cu, e->name, &v->die))
			goto global;
	}
	if (any_global(c, e->name, e->file, &v->die))
		goto global;
	if (e->file)
		return ptap_err_set(err, e->pos, -ENOENT, "no file-scope variable '%s' in %s",
				    e->name, e->file);
	return ptap_err_set(err, e->pos, -ENOENT,
			    "no variable '%s' at %s; in scope there: %s (and globals; see "
			    "`ptap vars`)", e->name, c->site->where,
			    f.list[0] ? f.list : "none");
global:
	v->name = e->name;
	v->global = true;
	return check_copy_reloc(c, v, e->pos, err);
}

/* ---- location expressions ---------------------------------------------- */

enum loc_state {
	LOC_NONE,		/* nothing computed yet */
	LOC_MEM,		/* the top of the stack is the address of the value */
	LOC_VALUE,		/* the top of the stack is the value itself */
	LOC_PIECES,		/* the value is assembled in the buffer */
};

struct comp {
	const struct var_ctx *c;
	struct fetch_prog *prog;
	struct ptap_err *err;
	int pos;
	const char *text;	/* the argument as written, for messages */
	enum loc_state state;
	uint32_t pieces_len;
	bool bitfield;		/* the current value is a bitfield member */
	uint8_t bf_bits, bf_off, bf_size;
	Dwarf_Attribute *attr;	/* the location attribute being compiled */
};

static int emit(struct comp *k, uint8_t op, uint8_t size, uint16_t reg, int64_t imm)
{
	struct fetch_op *last = k->prog->nops ? &k->prog->ops[k->prog->nops - 1] : NULL;

	/* Fold offsets: breg7 8; plus_uconst -56 is one step.  Addresses wrap
	 * (modulo 2^64, as the evaluator adds): no signed overflow. */
	if (op == FETCH_OP_ADD_IMM && last && last->op == FETCH_OP_ADD_IMM) {
		last->imm = (int64_t)((uint64_t)last->imm + (uint64_t)imm);
		return 0;
	}
	if (op == FETCH_OP_ADD_IMM && last && (last->op == FETCH_OP_ADDR || last->op == FETCH_OP_IMM)) {
		last->imm = (int64_t)((uint64_t)last->imm + (uint64_t)imm);
		return 0;
	}
	if (fetch_prog__emit(k->prog, op, size, reg, imm) < 0)
		return ptap_err_set(k->err, k->pos, -E2BIG,
				    "cannot fetch '%s': its location needs more than %d steps",
				    k->text, FETCH_MAX_OPS);
	return 0;
}

static int cannot(struct comp *k, const char *why)
{
	return ptap_err_set(k->err, k->pos, -ENOTSUP, "cannot fetch '%s' at %s: %s", k->text,
			    k->c->site->where, why);
}

static int reg_ok(struct comp *k, Dwarf_Word reg)
{
	char why[96];

	if (reg < ARCH_DWARF_NREGS_ALL)
		return 0;
	snprintf(why, sizeof(why), "it lives in DWARF register %lu, which ptap does not read",
		 (unsigned long)reg);
	return cannot(k, why);
}

static int compile_ops(struct comp *k, const Dwarf_Op *ops, size_t nops, int depth);

/* DW_OP_call_frame_cfa: the CFA at the site, from the call frame information. */
static int compile_cfa(struct comp *k, int depth)
{
	Dwarf_CFI *cfi = dbg__cfi(k->c->dbg);
	Dwarf_Attribute *saved = k->attr;
	Dwarf_Frame *frame = NULL;
	Dwarf_Op *ops = NULL;
	size_t nops = 0;
	int r;

	if (!cfi)
		return cannot(k, "its frame base needs call frame information, and there is none");
	if (dwarf_cfi_addrframe(cfi, k->c->site->vaddr - dbg__cfi_bias(k->c->dbg), &frame) != 0 ||
	    dwarf_frame_cfa(frame, &ops, &nops) != 0 || !ops) {
		free(frame);
		return cannot(k, "no call frame information for the site's address");
	}
	k->attr = NULL;
	r = compile_ops(k, ops, nops, depth + 1);
	k->attr = saved;
	free(frame);
	return r;
}

/* The enclosing out-of-line function's DW_AT_frame_base, evaluated at the site. */
static int compile_fbreg(struct comp *k, int depth)
{
	Dwarf_Die *scopes = NULL;
	Dwarf_Die fn = k->c->site->fn;
	/* The site's function and the DIEs that physically hold it: for an
	 * inlined instance, the out-of-line function it was inlined into
	 * (dwarf_getscopes() would go to the abstract definition instead). */
	int n = dwarf_getscopes_die(&fn, &scopes);
	int r = -ENOENT;

	for (int i = 0; i < n; i++) {
		Dwarf_Attribute a;
		Dwarf_Op *expr;
		size_t len;

		/* the out-of-line function holding the pc: an inlined function's
		 * abstract definition, also among the scopes, has no frame base */
		if (dwarf_tag(&scopes[i]) != DW_TAG_subprogram ||
		    !dwarf_attr(&scopes[i], DW_AT_frame_base, &a))
			continue;
		if (dwarf_getlocation_addr(&a, site_pc(k->c), &expr, &len, 1) != 1)
			break;
		Dwarf_Attribute *saved = k->attr;

		/* the frame base's value is pushed (a DW_OP_regN base: that register's) */
		k->attr = &a;
		r = compile_ops(k, expr, len, depth + 1);
		k->attr = saved;
		break;
	}
	free(scopes);
	if (r == -ENOENT)
		return cannot(k, "the frame base of its function is unknown at this address");
	return r;
}

static const struct { unsigned int op; uint8_t alu; } alu_ops[] = {
	{ DW_OP_minus, FETCH_ALU_SUB }, { DW_OP_mul, FETCH_ALU_MUL },
	{ DW_OP_div, FETCH_ALU_DIV },	{ DW_OP_mod, FETCH_ALU_MOD },
	{ DW_OP_and, FETCH_ALU_AND },	{ DW_OP_or, FETCH_ALU_OR },
	{ DW_OP_xor, FETCH_ALU_XOR },	{ DW_OP_shl, FETCH_ALU_SHL },
	{ DW_OP_shr, FETCH_ALU_SHR },	{ DW_OP_shra, FETCH_ALU_SHRA },
	{ DW_OP_neg, FETCH_ALU_NEG },	{ DW_OP_not, FETCH_ALU_NOT },
};

/*
 * Is the site the entry of the out-of-line function that holds it?  Only
 * there does a register still hold the value it had when that function was
 * called: DW_OP_entry_value means the entry of the concrete function, not
 * of an inlined instance's first instruction.
 */
static bool at_function_entry(const struct var_ctx *c)
{
	Dwarf_Die fn = c->site->fn;
	Dwarf_Die *scopes = NULL;
	Dwarf_Addr entry;
	bool yes = false;
	int n = dwarf_getscopes_die(&fn, &scopes);

	for (int i = 0; i < n; i++) {
		if (dwarf_tag(&scopes[i]) != DW_TAG_subprogram ||
		    (!dwarf_hasattr(&scopes[i], DW_AT_low_pc) &&
		     !dwarf_hasattr(&scopes[i], DW_AT_ranges)))
			continue;
		yes = dwarf_entrypc(&scopes[i], &entry) == 0 && entry == site_pc(c);
		break;
	}
	free(scopes);
	return yes;
}

static int compile_entry_value(struct comp *k, const Dwarf_Op *op)
{
	Dwarf_Attribute a;
	Dwarf_Op *sub;
	size_t nsub;

	/* The sub-expression is carried as a block; libdw decodes it. */
	if (!k->attr || dwarf_getlocation_attr(k->attr, op, &a) != 0)
		return cannot(k, "its entry value cannot be decoded");
	if (dwarf_getlocation(&a, &sub, &nsub) != 0 || nsub != 1 ||
	    !((sub[0].atom >= DW_OP_reg0 && sub[0].atom <= DW_OP_reg31) ||
	      sub[0].atom == DW_OP_regx))
		return cannot(k, "its value is computed from an entry value ptap cannot follow");
	if (!at_function_entry(k->c))
		return cannot(k, "it is only known as the value a register had when the function "
				 "was entered, which is lost here; probe the function's entry");
	Dwarf_Word reg = sub[0].atom == DW_OP_regx ? sub[0].number :
			 (Dwarf_Word)(sub[0].atom - DW_OP_reg0);

	if (reg_ok(k, reg) < 0)
		return -ENOTSUP;
	return emit(k, FETCH_OP_REG, 0, (uint16_t)reg, 0);
}

static int compile_op(struct comp *k, const Dwarf_Op *op, int depth, bool *value)
{
	unsigned int a = op->atom;
	Dwarf_Word reg;

	if (a >= DW_OP_lit0 && a <= DW_OP_lit31)
		return emit(k, FETCH_OP_IMM, 0, 0, a - DW_OP_lit0);
	if ((a >= DW_OP_reg0 && a <= DW_OP_reg31) || a == DW_OP_regx) {
		reg = a == DW_OP_regx ? op->number : a - DW_OP_reg0;
		if (reg_ok(k, reg) < 0)
			return -ENOTSUP;
		*value = true;
		return emit(k, FETCH_OP_REG, 0, (uint16_t)reg, 0);
	}
	if ((a >= DW_OP_breg0 && a <= DW_OP_breg31) || a == DW_OP_bregx) {
		int64_t off = a == DW_OP_bregx ? (int64_t)op->number2 : (int64_t)op->number;

		reg = a == DW_OP_bregx ? op->number : a - DW_OP_breg0;
		if (reg_ok(k, reg) < 0 || emit(k, FETCH_OP_REG, 0, (uint16_t)reg, 0) < 0)
			return -ENOTSUP;
		return off ? emit(k, FETCH_OP_ADD_IMM, 0, 0, off) : 0;
	}
	for (size_t i = 0; i < sizeof(alu_ops) / sizeof(alu_ops[0]); i++)
		if (alu_ops[i].op == a)
			return emit(k, FETCH_OP_ALU, alu_ops[i].alu, 0, 0);
	switch (a) {
	case DW_OP_addr:
		return emit(k, FETCH_OP_ADDR, 0, 0,
			    (int64_t)(op->number + dbg__bias(k->c->dbg)));
	case DW_OP_const1u: case DW_OP_const2u: case DW_OP_const4u: case DW_OP_const8u:
	case DW_OP_constu:
	case DW_OP_const1s: case DW_OP_const2s: case DW_OP_const4s: case DW_OP_const8s:
	case DW_OP_consts:
		return emit(k, FETCH_OP_IMM, 0, 0, (int64_t)op->number);
	case DW_OP_plus_uconst:
		return emit(k, FETCH_OP_ADD_IMM, 0, 0, (int64_t)op->number);
	case DW_OP_plus:
		return emit(k, FETCH_OP_ADD, 0, 0, 0);
	case DW_OP_deref:
		return emit(k, FETCH_OP_DEREF, 8, 0, 0);
	case DW_OP_deref_size:
		if (op->number != 1 && op->number != 2 && op->number != 4 && op->number != 8)
			return cannot(k, "a DW_OP_deref_size of an odd size");
		return emit(k, FETCH_OP_DEREF, (uint8_t)op->number, 0, 0);
	case DW_OP_dup:
		return emit(k, FETCH_OP_STACK, FETCH_STACK_DUP, 0, 0);
	case DW_OP_drop:
		return emit(k, FETCH_OP_STACK, FETCH_STACK_DROP, 0, 0);
	case DW_OP_swap:
		return emit(k, FETCH_OP_STACK, FETCH_STACK_SWAP, 0, 0);
	case DW_OP_over:
		return emit(k, FETCH_OP_STACK, FETCH_STACK_OVER, 0, 0);
	case DW_OP_fbreg:
		if (compile_fbreg(k, depth) < 0)
			return -ENOTSUP;
		return op->number ? emit(k, FETCH_OP_ADD_IMM, 0, 0, (int64_t)op->number) : 0;
	case DW_OP_call_frame_cfa:
		return compile_cfa(k, depth);
	case DW_OP_stack_value:
		*value = true;
		return 0;
	case DW_OP_implicit_value: {
		Dwarf_Block b;
		Dwarf_Attribute at;
		uint64_t v = 0;

		if (op->number > 8)
			return cannot(k, "its value is an implicit constant of more than 8 bytes");
		if (!k->attr || dwarf_getlocation_attr(k->attr, op, &at) != 0 ||
		    dwarf_formblock(&at, &b) != 0)
			return cannot(k, "its implicit value cannot be decoded");
		memcpy(&v, b.data, b.length < 8 ? b.length : 8);
		*value = true;
		return emit(k, FETCH_OP_IMM, 0, 0, (int64_t)v);
	}
	case DW_OP_entry_value:
	case DW_OP_GNU_entry_value:
		return compile_entry_value(k, op);
	case DW_OP_implicit_pointer:
	case DW_OP_GNU_implicit_pointer:
		return cannot(k, "it is an implicit pointer (the object it points to was "
				 "optimized away)");
	case DW_OP_form_tls_address:
	case DW_OP_GNU_push_tls_address:
		return cannot(k, "it is a thread-local variable, which ptap does not read yet");
	case DW_OP_addrx:
	case DW_OP_GNU_addr_index:
	case DW_OP_constx:
	case DW_OP_GNU_const_index: {
		/* DWARF 5 (clang): the address is in .debug_addr */
		Dwarf_Attribute at;
		Dwarf_Addr addr;

		if (!k->attr || dwarf_getlocation_attr(k->attr, op, &at) != 0 ||
		    dwarf_formaddr(&at, &addr) != 0)
			return cannot(k, "its address index cannot be resolved");
		if (a == DW_OP_constx || a == DW_OP_GNU_const_index)
			return emit(k, FETCH_OP_IMM, 0, 0, (int64_t)addr);
		return emit(k, FETCH_OP_ADDR, 0, 0, (int64_t)(addr + dbg__bias(k->c->dbg)));
	}
	case DW_OP_GNU_parameter_ref:
		return cannot(k, "it is a parameter the caller's value of which is not recorded");
	}
	char why[96];

	snprintf(why, sizeof(why), "its location uses DWARF operation 0x%x, which ptap does not "
		 "evaluate", a);
	return cannot(k, why);
}

static int compile_ops(struct comp *k, const Dwarf_Op *ops, size_t nops, int depth)
{
	size_t start = 0;
	bool value = false;
	uint32_t piece_off = 0;

	if (depth > 4)
		return cannot(k, "its location is nested too deeply");
	for (size_t i = 0; i < nops; i++) {
		if (ops[i].atom == DW_OP_piece) {
			if (i == start)
				return cannot(k, "part of it is optimized out at this address");
			if (ops[i].number > 8 || ops[i].number == 0)
				return cannot(k, "it has a piece larger than 8 bytes");
			if (piece_off + ops[i].number > FETCH_MAX_BLOB)
				return cannot(k, "it is too large");
			if (emit(k, FETCH_OP_PIECE, (uint8_t)ops[i].number, value ? 0 : 1,
				 piece_off) < 0)
				return -E2BIG;
			piece_off += (uint32_t)ops[i].number;
			k->prog->composite = true;
			start = i + 1;
			value = false;
			continue;
		}
		if (ops[i].atom == DW_OP_bit_piece)
			return cannot(k, "it is split into bit pieces");
		int r = compile_op(k, &ops[i], depth, &value);

		if (r < 0)
			return r;
	}
	if (k->prog->composite) {
		if (start != nops)
			return cannot(k, "its location mixes pieces and a whole value");
		k->state = LOC_PIECES;
		k->pieces_len = piece_off;
		return 0;
	}
	if (depth == 0)
		k->state = value ? LOC_VALUE : LOC_MEM;
	return 0;
}

/* The variable's location at the site.  0, or -errno (ERR says why). */
static int compile_location(struct comp *k, const struct var_info *cv)
{
	struct var_info vcopy = *cv, *v = &vcopy;
	Dwarf_Attribute a;
	Dwarf_Op *expr;
	size_t len;
	int n;

	if (dwarf_attr_integrate(&v->die, DW_AT_const_value, &a)) {
		uint64_t uv;

		if (const_value(&a, &uv) < 0)
			return cannot(k, "its constant value is a block ptap does not read");
		k->state = LOC_VALUE;
		return emit(k, FETCH_OP_IMM, 0, 0, (int64_t)uv);
	}
	if (!dwarf_attr(&v->die, DW_AT_location, &a) &&
	    !dwarf_attr_integrate(&v->die, DW_AT_location, &a))
		goto optimized;
	n = dwarf_getlocation_addr(&a, site_pc(k->c), &expr, &len, 1);
	if (n < 0)
		return cannot(k, "its location cannot be decoded");
	if (n == 0 || len == 0)
		goto optimized;
	k->attr = &a;
	n = compile_ops(k, expr, len, 0);
	k->attr = NULL;
	return n;
optimized:
	return ptap_err_set(k->err, k->pos, -ENOENT,
			    "cannot fetch '%s' at %s: optimized out at this address (`ptap vars` "
			    "lists what can be fetched there)", k->text, k->c->site->where);
}

/* ---- access chains ------------------------------------------------------ */

/* Make the top of the stack the value (load it when it is in memory). */
static int to_value(struct comp *k, Dwarf_Word size)
{
	if (k->state == LOC_MEM) {
		k->state = LOC_VALUE;
		return emit(k, FETCH_OP_DEREF, (uint8_t)size, 0, 0);
	}
	if (k->state == LOC_PIECES)
		return cannot(k, "it is assembled from register pieces, and a pointer held so "
				 "cannot be followed");
	return 0;
}

/* MEMBER of struct/union T (anonymous members searched too): its DIE and offset. */
/*
 * Byte offset of member M: DW_AT_data_member_location as a constant, or
 * (DWARF 2) as the expression DW_OP_plus_uconst N; absent means 0 (a union
 * member, or a bitfield placed by DW_AT_data_bit_offset).  False for any
 * other expression: the offset is then unknown, never guessed.
 */
static bool member_offset(Dwarf_Die *m, Dwarf_Word *off)
{
	Dwarf_Attribute a;
	Dwarf_Op *ops;
	size_t n;

	*off = 0;
	if (!dwarf_attr(m, DW_AT_data_member_location, &a))
		return true;
	if (const_form(&a))
		return dwarf_formudata(&a, off) == 0;
	if (dwarf_getlocation(&a, &ops, &n) == 0 && n == 1 && ops[0].atom == DW_OP_plus_uconst) {
		*off = ops[0].number;
		return true;
	}
	return false;
}

/*
 * MEMBER of struct/union T, searched through anonymous members too: its DIE,
 * and in *BASE the byte offset of the anonymous struct(s) holding it (0 when
 * it is T's own).  -ENOENT, or -ENOTSUP when an offset on the way is not a
 * constant.
 */
static int find_member(Dwarf_Die *t, const char *member, Dwarf_Die *out, Dwarf_Word *base)
{
	Dwarf_Die m;

	*base = 0;
	if (dwarf_child(t, &m) != 0)
		return -ENOENT;
	do {
		const char *name;
		Dwarf_Die mt, st;
		Dwarf_Word moff;
		int r;

		if (dwarf_tag(&m) != DW_TAG_member)
			continue;
		name = dwarf_diename(&m);
		if (name && !strcmp(name, member)) {
			*out = m;
			return 0;
		}
		if (name || !die_type(&m, &mt) || !strip_type(&mt, &st))
			continue;
		r = find_member(&st, member, out, base);
		if (r == -ENOENT)
			continue;
		if (r == 0 && !member_offset(&m, &moff))
			r = -ENOTSUP;
		if (r == 0)
			*base += moff;
		return r;
	} while (dwarf_siblingof(&m, &m) == 0);
	return -ENOENT;
}

static void list_members(Dwarf_Die *t, char *buf, size_t len)
{
	Dwarf_Die m;

	buf[0] = 0;
	if (dwarf_child(t, &m) != 0)
		return;
	do {
		const char *name = dwarf_diename(&m);

		if (dwarf_tag(&m) != DW_TAG_member || !name)
			continue;
		if (buf[0])
			bufcat(buf, len, ", ");
		bufcat(buf, len, name);
	} while (dwarf_siblingof(&m, &m) == 0);
}

/*
 * Bit position of bitfield member M from the start of its struct (little
 * endian), from DW_AT_data_bit_offset (DWARF 4+) or the older
 * DW_AT_bit_offset counted from the storage unit's most significant bit.
 */
static bool member_bitpos(Dwarf_Die *m, Dwarf_Word *pos, Dwarf_Word *bits)
{
	Dwarf_Word moff;

	*bits = die_udata(m, DW_AT_bit_size, 0);
	if (!*bits)
		return false;
	if (dwarf_hasattr(m, DW_AT_data_bit_offset)) {
		*pos = die_udata(m, DW_AT_data_bit_offset, 0);
		return true;
	}
	Dwarf_Die mt;
	Dwarf_Word unit = die_udata(m, DW_AT_byte_size, 0);

	if (!unit && die_type(m, &mt))
		unit = type_size(&mt);
	if (!member_offset(m, &moff))
		moff = 0;	/* unknown: the caller checks member_offset() too */
	*pos = moff * 8 + unit * 8 - die_udata(m, DW_AT_bit_offset, 0) - *bits;
	return true;
}

/* The smallest load covering BITS bits at bit POS: byte offset, size, shift. */
/*
 * The smallest load covering BITS bits at bit POS: byte offset, size, shift.
 * LIMIT (when not 0) is the struct's size: the load is moved back to end
 * inside it.  False when no 8-byte load holds them all (a packed field
 * spanning 9 bytes).
 */
static bool bitfield_container(Dwarf_Word pos, Dwarf_Word bits, Dwarf_Word limit, uint32_t *off,
			       uint8_t *size, uint8_t *shift)
{
	uint8_t s = 1;
	Dwarf_Word o = pos / 8;

	if (pos % 8 + bits > 64)
		return false;
	while (s < 8 && pos % 8 + bits > (Dwarf_Word)s * 8)
		s *= 2;
	if (limit && o + s > limit && limit >= s && pos - (limit - s) * 8 + bits <= 64)
		o = limit - s;
	*off = (uint32_t)o;
	*size = s;
	*shift = (uint8_t)(pos - o * 8);
	return true;
}

static int step_member(struct comp *k, Dwarf_Die *type, const struct arg_access *acc)
{
	Dwarf_Die t, m;
	Dwarf_Word off, base, pos, bits;
	char members[200], tn[128];
	int r;

	if (!strip_type(type, &t))
		return cannot(k, "void has no members");
	if (acc->kind == ACC_ARROW) {
		if (dwarf_tag(&t) != DW_TAG_pointer_type)
			return ptap_err_set(k->err, k->pos, -EINVAL,
					    "'%s': '->%s' needs a pointer, but it is %s; use '.%s'",
					    k->text, acc->member, var_type_name(type, tn, sizeof(tn)),
					    acc->member);
		if (to_value(k, 8) < 0)
			return -ENOTSUP;
		if (!die_type(&t, type) || !strip_type(type, &t))
			return cannot(k, "it points to void");
		k->state = LOC_MEM;
	} else if (dwarf_tag(&t) == DW_TAG_pointer_type) {
		return ptap_err_set(k->err, k->pos, -EINVAL,
				    "'%s': '.%s' on a pointer (%s); use '->%s'", k->text,
				    acc->member, var_type_name(type, tn, sizeof(tn)), acc->member);
	}
	if (dwarf_tag(&t) != DW_TAG_structure_type && dwarf_tag(&t) != DW_TAG_union_type &&
	    dwarf_tag(&t) != DW_TAG_class_type)
		return ptap_err_set(k->err, k->pos, -EINVAL, "'%s': %s has no member '%s'",
				    k->text, var_type_name(type, tn, sizeof(tn)), acc->member);
	r = find_member(&t, acc->member, &m, &base);
	if (r == -ENOENT) {
		list_members(&t, members, sizeof(members));
		return ptap_err_set(k->err, k->pos, -ENOENT,
				    "'%s': %s has no member '%s'; its members: %s", k->text,
				    var_type_name(type, tn, sizeof(tn)), acc->member, members);
	}
	if (r < 0 || !member_offset(&m, &off))
		return cannot(k, "the member's offset is not a constant");
	if (k->bitfield)
		return cannot(k, "a bitfield has no members");
	off += base;
	if (member_bitpos(&m, &pos, &bits)) {
		uint32_t boff;

		/* POS counts from the start of the struct holding the member (an
		 * anonymous one is BASE bytes in): the container is at POS / 8. */
		if (!bitfield_container(pos + base * 8, bits, 0, &boff, &k->bf_size, &k->bf_off))
			return cannot(k, "the bitfield spans more than 8 bytes");
		off = boff;
		k->bitfield = true;
		k->bf_bits = (uint8_t)bits;
	}
	if (!die_type(&m, type))
		return cannot(k, "its member has no type");
	if (k->state == LOC_MEM)
		return off ? emit(k, FETCH_OP_ADD_IMM, 0, 0, (int64_t)off) : 0;
	if (k->state == LOC_VALUE) {
		/* A small struct held in a register: shift the member down. */
		if (off && (emit(k, FETCH_OP_IMM, 0, 0, (int64_t)off * 8) < 0 ||
			    emit(k, FETCH_OP_ALU, FETCH_ALU_SHR, 0, 0) < 0))
			return -E2BIG;
		return 0;
	}
	/* Held in pieces: the member's bytes are part of the assembly. */
	if (off + type_size(type) > k->pieces_len - k->prog->blob_off && !k->bitfield)
		return cannot(k, "the member lies outside the pieces it is held in");
	k->prog->blob_off += (uint16_t)off;
	return 0;
}

static int step_index(struct comp *k, Dwarf_Die *type, const struct arg_access *acc)
{
	Dwarf_Die t;
	Dwarf_Word esize;
	char tn[128];

	if (!strip_type(type, &t))
		return cannot(k, "void cannot be indexed");
	if (dwarf_tag(&t) == DW_TAG_array_type) {
		long count = array_count(&t);
		bool sub;

		if (count >= 0 && (acc->index < 0 || acc->index >= count))
			return ptap_err_set(k->err, k->pos, -EINVAL,
					    "'%s': index %ld is outside %s", k->text, acc->index,
					    var_type_name(type, tn, sizeof(tn)));
		if (k->state != LOC_MEM && k->state != LOC_PIECES)
			return cannot(k, "the array is not in memory at this address");
		if (!array_elem(&t, type, &esize, &sub))
			return cannot(k, "the array has no element type");
		if (sub) {
			/* a[i] of a 2-D array: the rest of the dimensions, as an array */
			return cannot(k, "index every dimension of a multi-dimensional array");
		}
		if (k->state == LOC_PIECES) {
			if ((acc->index + 1) * (long)esize > (long)(k->pieces_len - k->prog->blob_off))
				return cannot(k, "the element lies outside the pieces it is held in");
			k->prog->blob_off += (uint16_t)(acc->index * (long)esize);
			return 0;
		}
	} else if (dwarf_tag(&t) == DW_TAG_pointer_type) {
		if (to_value(k, 8) < 0)
			return -ENOTSUP;
		if (!die_type(&t, type))
			return cannot(k, "it points to void");
		esize = type_size(type);
		if (!esize && acc->index)
			return cannot(k, "the size of what it points to is unknown");
		k->state = LOC_MEM;
	} else {
		return ptap_err_set(k->err, k->pos, -EINVAL,
				    "'%s': [%ld] needs an array or a pointer, but it is %s", k->text,
				    acc->index, var_type_name(type, tn, sizeof(tn)));
	}
	int64_t off;

	if (__builtin_mul_overflow(acc->index, (int64_t)esize, &off))
		return ptap_err_set(k->err, k->pos, -EINVAL, "'%s': index %ld is too large",
				    k->text, acc->index);
	return off ? emit(k, FETCH_OP_ADD_IMM, 0, 0, off) : 0;
}

/* 2-D arrays: a[i][j] as one step with both indexes. */
static int step_index2(struct comp *k, Dwarf_Die *type, long i, long j)
{
	long dims[ARRAY_MAX_DIMS];
	Dwarf_Die t, elem;
	int nd;

	if (!strip_type(type, &t) || dwarf_tag(&t) != DW_TAG_array_type || !die_type(&t, &elem))
		return 1;
	nd = array_dims(&t, dims, ARRAY_MAX_DIMS);
	if (nd != 2)
		return 1;
	if (dims[1] < 0)
		return cannot(k, "the array's row length is not a constant");
	if (i < 0 || j < 0 || (dims[0] >= 0 && i >= dims[0]) || j >= dims[1])
		return ptap_err_set(k->err, k->pos, -EINVAL, "'%s': index [%ld][%ld] is outside "
				    "[%ld][%ld]", k->text, i, j, dims[0], dims[1]);
	if (k->state != LOC_MEM)
		return cannot(k, "the array is not in memory at this address");
	*type = elem;
	long off = (i * dims[1] + j) * (long)type_size(&elem);

	return off ? emit(k, FETCH_OP_ADD_IMM, 0, 0, off) : 0;
}

static int step_deref(struct comp *k, Dwarf_Die *type)
{
	Dwarf_Die t;
	char tn[128];

	if (!strip_type(type, &t) || dwarf_tag(&t) != DW_TAG_pointer_type)
		return ptap_err_set(k->err, k->pos, -EINVAL, "'%s': '*' needs a pointer, but it "
				    "is %s", k->text, var_type_name(type, tn, sizeof(tn)));
	if (to_value(k, 8) < 0)
		return -ENOTSUP;
	if (!die_type(&t, type))
		return cannot(k, "it points to void");
	k->state = LOC_MEM;
	return 0;
}

/* ---- the value ---------------------------------------------------------- */

/* How many children of DIE have TAG. */
static unsigned int count_children(Dwarf_Die *die, int tag)
{
	Dwarf_Die c;
	unsigned int n = 0;

	if (dwarf_child(die, &c) == 0)
		do
			n += dwarf_tag(&c) == tag;
		while (dwarf_siblingof(&c, &c) == 0);
	return n;
}

/* How a scalar of base/enum/pointer type T prints; false for aggregates. */
static bool scalar_type(const struct var_ctx *c, Dwarf_Die *type, struct fetch_type *ft);

static int enum_desc(const struct var_ctx *c, Dwarf_Die *t, struct fetch_type *ft)
{
	Dwarf_Die e;
	unsigned int n = 0;
	struct type_desc *d = tpool_alloc(c->pool, sizeof(*d));
	struct type_enumerator *en;
	bool neg = false;

	if (!d)
		return -ENOMEM;
	n = count_children(t, DW_TAG_enumerator);
	/* Signed when the underlying type is (DWARF 3+ says which), else when
	 * an enumerator is written as a negative number (DW_FORM_sdata < 0). */
	Dwarf_Die under;

	if (die_type(t, &under) && strip_type(&under, &under)) {
		Dwarf_Word enc = die_udata(&under, DW_AT_encoding, 0);

		neg = enc == DW_ATE_signed || enc == DW_ATE_signed_char;
	}
	en = tpool_alloc(c->pool, (n ? n : 1) * sizeof(*en));
	if (!en)
		return -ENOMEM;
	n = 0;
	if (dwarf_child(t, &e) == 0)
		do {
			Dwarf_Attribute a;
			uint64_t v = 0;

			if (dwarf_tag(&e) != DW_TAG_enumerator)
				continue;
			if (dwarf_attr(&e, DW_AT_const_value, &a) && const_value(&a, &v) == 0 &&
			    dwarf_whatform(&a) == DW_FORM_sdata && (int64_t)v < 0)
				neg = true;
			en[n].value = (int64_t)v;
			en[n].name = tpool_strdup(c->pool, dwarf_diename(&e) ? dwarf_diename(&e) : "?");
			n++;
		} while (dwarf_siblingof(&e, &e) == 0);
	d->name = tpool_strdup(c->pool, dwarf_diename(t) ? dwarf_diename(t) : "enum");
	d->n = n;
	d->enums = en;
	ft->kind = FT_ENUM;
	ft->size = (uint8_t)die_udata(t, DW_AT_byte_size, 4);
	ft->desc = d;
	if (neg)
		ft->flags |= FTF_SIGNED;
	return 0;
}

static bool scalar_type(const struct var_ctx *c, Dwarf_Die *type, struct fetch_type *ft)
{
	Dwarf_Die t;

	memset(ft, 0, sizeof(*ft));
	if (!strip_type(type, &t))
		return false;
	switch (dwarf_tag(&t)) {
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
		ft->kind = FT_HEX;
		ft->size = 8;
		return true;
	case DW_TAG_enumeration_type:
		return enum_desc(c, &t, ft) == 0;
	case DW_TAG_base_type:
		break;
	default:
		return false;
	}
	Dwarf_Word size = die_udata(&t, DW_AT_byte_size, 0);

	if (size != 1 && size != 2 && size != 4 && size != 8)
		return false;
	ft->size = (uint8_t)size;
	switch (die_udata(&t, DW_AT_encoding, 0)) {
	case DW_ATE_boolean:
		ft->kind = FT_BOOL;
		break;
	case DW_ATE_float:
		if (size != 4 && size != 8)
			return false;
		ft->kind = FT_FLOAT;
		break;
	case DW_ATE_signed:
	case DW_ATE_signed_char:
		ft->kind = FT_SIGNED;
		break;
	case DW_ATE_unsigned:
	case DW_ATE_unsigned_char:
	case DW_ATE_UTF:
		ft->kind = FT_UNSIGNED;
		break;
	default:
		return false;	/* complex, decimal float, ...: not printed as an integer */
	}
	return true;
}

/* Describe struct/union T's members, one level deep. */
static int struct_desc(const struct var_ctx *c, Dwarf_Die *t, struct fetch_type *ft)
{
	struct type_desc *d = tpool_alloc(c->pool, sizeof(*d));
	struct type_member *mem;
	Dwarf_Die m;
	unsigned int n = 0;
	Dwarf_Word len = die_udata(t, DW_AT_byte_size, 0);
	char name[160];

	if (!d)
		return -ENOMEM;
	n = count_children(t, DW_TAG_member);
	mem = tpool_alloc(c->pool, (n ? n : 1) * sizeof(*mem));
	if (!mem)
		return -ENOMEM;
	n = 0;
	if (dwarf_child(t, &m) == 0)
		do {
			struct type_member *x = &mem[n];
			Dwarf_Die mt, st;
			Dwarf_Word pos, bits;

			if (dwarf_tag(&m) != DW_TAG_member)
				continue;
			x->name = tpool_strdup(c->pool, dwarf_diename(&m) ? dwarf_diename(&m) : "");
			Dwarf_Word moff;

			if (!member_offset(&m, &moff)) {
				x->type.kind = FT_OPAQUE;	/* offset unknown: never guessed */
				n++;
				continue;
			}
			x->off = (uint32_t)moff;
			if (!die_type(&m, &mt) || !strip_type(&mt, &st)) {
				x->type.kind = FT_OPAQUE;
			} else if (member_bitpos(&m, &pos, &bits)) {
				uint8_t size, shift;
				uint32_t off;
				struct fetch_type s;

				if (!bitfield_container(pos, bits, len, &off, &size, &shift)) {
					x->type.kind = FT_OPAQUE;
					n++;
					continue;
				}
				x->off = off;
				x->type.kind = FT_BITFIELD;
				x->type.size = size;
				x->type.bits = (uint8_t)bits;
				x->type.bit_off = shift;
				if (scalar_type(c, &mt, &s) &&
				    (s.kind == FT_SIGNED || (s.flags & FTF_SIGNED)))
					x->type.flags |= FTF_SIGNED;
			} else if (dwarf_tag(&st) == DW_TAG_array_type && is_char_type_elem(&st) &&
				   array_count(&st) >= 0) {
				x->type.kind = FT_CHARS;
				x->type.len = (uint32_t)type_size(&st);
			} else if (!scalar_type(c, &mt, &x->type)) {
				x->type.kind = FT_OPAQUE;
			}
			n++;
		} while (dwarf_siblingof(&m, &m) == 0);
	snprintf(name, sizeof(name), "%s %s",
		 dwarf_tag(t) == DW_TAG_union_type ? "union" : "struct",
		 dwarf_diename(t) ? dwarf_diename(t) : "{...}");
	d->name = tpool_strdup(c->pool, name);
	d->n = n;
	d->members = mem;
	ft->kind = FT_STRUCT;
	ft->len = (uint32_t)(len < FETCH_MAX_BLOB ? len : FETCH_MAX_BLOB);
	ft->desc = d;
	return 0;
}

/* An array of scalars printed whole: a struct of members "[0]", "[1]", ... */
static int array_desc(const struct var_ctx *c, Dwarf_Die *t, struct fetch_type *ft)
{
	Dwarf_Die elem;
	Dwarf_Word esize;
	long count = array_count(t);
	struct type_desc *d = tpool_alloc(c->pool, sizeof(*d));
	struct type_member *mem;
	struct fetch_type et;
	bool sub;
	char name[32];

	if (!d || !array_elem(t, &elem, &esize, &sub))
		return -ENOMEM;
	if (count < 0 || sub || !esize)
		return -ENOTSUP;
	if (count > ARRAY_MAX_ELEMS)
		count = ARRAY_MAX_ELEMS;
	if (!scalar_type(c, &elem, &et)) {
		Dwarf_Die st;

		if (!strip_type(&elem, &st))
			return -ENOTSUP;
		et.kind = FT_OPAQUE;
	}
	mem = tpool_alloc(c->pool, (count ? count : 1) * sizeof(*mem));
	if (!mem)
		return -ENOMEM;
	for (long i = 0; i < count; i++) {
		snprintf(name, sizeof(name), "[%ld]", i);
		mem[i].name = tpool_strdup(c->pool, name);
		mem[i].off = (uint32_t)(i * esize);
		mem[i].type = et;
	}
	d->name = "array";
	d->n = (unsigned int)count;
	d->members = mem;
	ft->kind = FT_STRUCT;
	ft->len = (uint32_t)(count * esize);
	ft->desc = d;
	return 0;
}

/* Load the value at the end of the chain and choose how it prints. */
static int finish(struct comp *k, const struct probe_arg *arg, Dwarf_Die *type)
{
	struct fetch_type *ft = &k->prog->type;
	const struct fetch_type *ut = arg->has_type ? &arg->type : NULL;
	Dwarf_Die t;
	char tn[128];
	bool string = ut && (ut->kind == FT_STRING || ut->kind == FT_USTRING);

	if (!strip_type(type, &t))
		return ptap_err_set(k->err, k->pos, -EINVAL, "'%s' is void", k->text);
	var_type_name(type, tn, sizeof(tn));
	if (k->bitfield) {
		if (string)
			goto not_string;
		memset(ft, 0, sizeof(*ft));
		ft->kind = FT_BITFIELD;
		ft->size = k->bf_size;
		ft->bits = k->bf_bits;
		ft->bit_off = k->bf_off;
		struct fetch_type s;

		if (scalar_type(k->c, type, &s) && (s.kind == FT_SIGNED || (s.flags & FTF_SIGNED)))
			ft->flags |= FTF_SIGNED;
		if (ut && ut->kind == FT_UNSIGNED)
			ft->flags &= ~FTF_SIGNED;
		if (ut && ut->kind == FT_SIGNED)
			ft->flags |= FTF_SIGNED;
		if (k->state == LOC_MEM)
			return emit(k, FETCH_OP_DEREF, k->bf_size, 0, 0);
		return 0;
	}
	int tag = dwarf_tag(&t);
	bool char_array = tag == DW_TAG_array_type && is_char_type_elem(&t);
	bool char_ptr = false;

	if (tag == DW_TAG_pointer_type) {
		Dwarf_Die pointee;

		char_ptr = die_type(&t, &pointee) && is_char_type(&pointee);
	}
	if (string) {
		/* :string: a pointer's target, a char array in place, an address-sized integer */
		if (char_array) {
			if (k->state != LOC_MEM && k->state != LOC_PIECES)
				return cannot(k, "the array is not in memory");
			*ft = *ut;
			if (k->state == LOC_PIECES) {
				ft->kind = FT_CHARS;
				ft->len = k->pieces_len - k->prog->blob_off;
			}
			return 0;
		}
		if (tag == DW_TAG_pointer_type ||
		    (tag == DW_TAG_base_type && type_size(&t) == 8 &&
		     die_udata(&t, DW_AT_encoding, 0) != DW_ATE_float)) {
			*ft = *ut;
			return to_value(k, 8);
		}
		goto not_string;
	}
	if (ut) {
		/* A perf TYPE on a scalar: load that many bytes. */
		if (tag == DW_TAG_structure_type || tag == DW_TAG_union_type ||
		    tag == DW_TAG_array_type)
			return ptap_err_set(k->err, arg->pos, -EINVAL,
					    "'%s' is %s: a :%s cannot print it; give a member or an "
					    "element", k->text, tn, "TYPE");
		*ft = *ut;
		if (k->state == LOC_PIECES)	/* read from the assembled bytes */
			return 0;
		/* A TYPE wider than the variable: its own bytes, zero-extended,
		 * never the memory after it. */
		Dwarf_Word dsize = type_size(&t), want = ut->size ? ut->size : 8;

		if (dsize && dsize < want && (dsize == 1 || dsize == 2 || dsize == 4)) {
			if (k->state == LOC_MEM)
				return to_value(k, dsize);
			if (emit(k, FETCH_OP_IMM, 0, 0, (int64_t)((1ULL << (dsize * 8)) - 1)) < 0)
				return -E2BIG;
			return emit(k, FETCH_OP_ALU, FETCH_ALU_AND, 0, 0);
		}
		return to_value(k, want);
	}
	/* No TYPE: from DWARF. */
	if (char_ptr) {
		memset(ft, 0, sizeof(*ft));
		ft->kind = FT_STRING;
		return to_value(k, 8);
	}
	if (char_array) {
		memset(ft, 0, sizeof(*ft));
		ft->kind = FT_CHARS;
		/* unknown length (a flexible array member): a C string read in place */
		ft->len = array_count(&t) >= 0 ? (uint32_t)type_size(&t) : UINT32_MAX;
		if (k->state == LOC_PIECES) {
			if (ft->len > k->pieces_len - k->prog->blob_off)
				ft->len = k->pieces_len - k->prog->blob_off;
		} else if (k->state != LOC_MEM) {
			return cannot(k, "the array is not in memory");
		}
		return 0;
	}
	if (tag == DW_TAG_structure_type || tag == DW_TAG_union_type || tag == DW_TAG_class_type ||
	    tag == DW_TAG_array_type) {
		int r = tag == DW_TAG_array_type ? array_desc(k->c, &t, ft) :
						   struct_desc(k->c, &t, ft);

		if (r == -ENOTSUP)
			return cannot(k, "ptap prints arrays of scalars with a known length whole; "
					 "give an element");
		if (r < 0)
			return r;
		if (k->state == LOC_VALUE) {
			/* a small aggregate in a register: its bytes into the buffer */
			if (ft->len > 8)
				return cannot(k, "it is held in a register but larger than one");
			k->prog->composite = true;
			return emit(k, FETCH_OP_PIECE, (uint8_t)ft->len, 0, 0);
		}
		if (k->state == LOC_PIECES && k->pieces_len - k->prog->blob_off < ft->len)
			ft->len = k->pieces_len - k->prog->blob_off;
		return 0;
	}
	if (!scalar_type(k->c, type, ft)) {
		char why[320];

		snprintf(why, sizeof(why), "ptap cannot print its type, %s (long double, complex, "
			 "decimal float, function); a :TYPE reads its bytes as that", tn);
		return cannot(k, why);
	}
	if (k->state == LOC_PIECES)
		return 0;
	return to_value(k, ft->size);
not_string:
	return ptap_err_set(k->err, arg->pos, -EINVAL,
			    "'%s' is %s, not a string or a pointer to one: :string cannot print "
			    "it", k->text, tn);
}

/* Location, chain and final load of V (E: the chain, NULL for a bare variable). */
static int compile_var(struct comp *k, const struct probe_arg *arg, const struct arg_expr *e,
		       const struct var_info *v)
{
	Dwarf_Die type;
	int r;

	if (!die_type((Dwarf_Die *)&v->die, &type))
		return ptap_err_set(k->err, k->pos, -EINVAL, "'%s' has no type in DWARF", k->text);
	r = compile_location(k, v);
	if (r < 0)
		return r;
	for (int i = 0; e && i < e->nchain; i++) {
		const struct arg_access *acc = &e->chain[i];

		if (k->bitfield)
			return cannot(k, "a bitfield has no members or elements");
		if (acc->kind == ACC_INDEX && i + 1 < e->nchain &&
		    e->chain[i + 1].kind == ACC_INDEX) {
			r = step_index2(k, &type, acc->index, e->chain[i + 1].index);
			if (r < 0)
				return r;
			if (r == 0) {
				i++;
				continue;
			}
		}
		r = acc->kind == ACC_INDEX ? step_index(k, &type, acc) : step_member(k, &type, acc);
		if (r < 0)
			return r;
	}
	for (int i = 0; e && i < e->nderef; i++) {
		if (k->bitfield)
			return cannot(k, "a bitfield cannot be dereferenced");
		r = step_deref(k, &type);
		if (r < 0)
			return r;
	}
	return finish(k, arg, &type);
}

int var_no_dwarf(const struct var_ctx *c, const char *text, int pos, struct ptap_err *err)
{
	return ptap_err_set(err, pos, -ENOENT,
			    "'%s' needs DWARF debug info, and %s has none%s; register arguments "
			    "still work: %%REG, $argN, +OFF(EXPR), @SYMBOL", text,
			    elfmod__path(c->mod), dbg__dwarf(c->dbg) ? " for this function" : "");
}

int var_compile(const struct var_ctx *c, const struct probe_arg *arg, const struct arg_expr *e,
		struct fetch_prog *prog, struct ptap_err *err)
{
	struct comp k = { .c = c, .prog = prog, .err = err, .pos = e->pos, .text = arg->text };
	struct var_info v;
	int r;

	if (!dbg__dwarf(c->dbg) || !c->site->has_die)
		return var_no_dwarf(c, arg->text, e->pos, err);
	memset(prog, 0, sizeof(*prog));
	r = lookup(c, e, &v, err);
	if (r < 0)
		return r;
	return compile_var(&k, arg, e, &v);
}

int var_compile_info(const struct var_ctx *c, const struct var_info *v, int pos,
		     struct fetch_prog *prog, struct ptap_err *err)
{
	struct probe_arg arg = { .text = (char *)v->name, .pos = pos };
	struct comp k = { .c = c, .prog = prog, .err = err, .pos = pos, .text = v->name };

	memset(prog, 0, sizeof(*prog));
	return compile_var(&k, &arg, NULL, v);
}

/* ---- return probes ------------------------------------------------------ */

int var_compile_ra_slot(const struct var_ctx *c, struct fetch_prog *prog, struct ptap_err *err)
{
	struct comp k = { .c = c, .prog = prog, .err = err, .pos = -1,
			  .text = "the return address" };

	memset(prog, 0, sizeof(*prog));
	prog->type.size = 8;
	/* At the entry the call has just pushed it: the stack pointer points at it. */
	if (c->site->at_entry && !c->site->after_prologue)
		return emit(&k, FETCH_OP_REG, 0, ARCH_DWARF_SP, 0);
	if (compile_cfa(&k, 0) < 0)
		return -ENOTSUP;
	return emit(&k, FETCH_OP_ADD_IMM, 0, 0, ARCH_RA_CFA_OFF);
}

enum eb_class { EB_NONE, EB_INT, EB_SSE };

/*
 * The SysV x86-64 classes of the eightbytes of an aggregate of type T at
 * byte BASE: a float or double makes its eightbyte SSE unless something else
 * shares it (INTEGER wins).  False when the aggregate goes in memory
 * (long double, an unaligned member, an offset that is not a constant).
 */
static bool classify(Dwarf_Die *type, Dwarf_Word base, uint8_t cls[2], int depth)
{
	Dwarf_Die t, m, mt;
	Dwarf_Word size, off;

	if (depth > 16 || !strip_type(type, &t))
		return false;
	size = type_size(&t);
	switch (dwarf_tag(&t)) {
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
	case DW_TAG_class_type:
		if (dwarf_child(&t, &m) != 0)
			return true;
		do {
			Dwarf_Word pos, bits;

			if (dwarf_tag(&m) != DW_TAG_member || dwarf_hasattr(&m, DW_AT_external))
				continue;
			if (member_bitpos(&m, &pos, &bits)) {	/* a bitfield: integer bits */
				cls[(base * 8 + pos) / 64 > 1 ? 1 : (base * 8 + pos) / 64] = EB_INT;
				continue;
			}
			if (!member_offset(&m, &off) || !die_type(&m, &mt) ||
			    !classify(&mt, base + off, cls, depth + 1))
				return false;
		} while (dwarf_siblingof(&m, &m) == 0);
		return true;
	case DW_TAG_array_type: {
		Dwarf_Die elem;
		Dwarf_Word esize;
		bool sub;
		long n = array_count(&t);

		if (!array_elem(&t, &elem, &esize, &sub) || n < 0 || !esize)
			return n == 0;
		for (long i = 0; i < n; i++)
			if (!classify(&elem, base + i * esize, cls, depth + 1))
				return false;
		return true;
	}
	default:
		break;
	}
	if (size == 0 || base % size || base + size > 16)
		return false;	/* unaligned, or x87 long double (16 bytes) */
	if (dwarf_tag(&t) == DW_TAG_base_type && die_udata(&t, DW_AT_encoding, 0) == DW_ATE_float) {
		if (size > 8)
			return false;
		if (cls[base / 8] == EB_NONE)
			cls[base / 8] = EB_SSE;
		return true;
	}
	cls[base / 8] = EB_INT;
	if (size > 8)
		cls[1] = EB_INT;	/* __int128 */
	return true;
}

/* A struct returned in registers: its eightbytes, each from the next register of its class. */
static int retval_pieces(struct comp *k, Dwarf_Word size, const uint8_t cls[2])
{
	static const uint16_t int_regs[] = { ARCH_DWARF_RET_INT0, ARCH_DWARF_RET_INT1 };
	static const uint16_t sse_regs[] = { ARCH_DWARF_RET_SSE0, ARCH_DWARF_RET_SSE1 };
	int ni = 0, ns = 0;

	k->prog->composite = true;
	for (Dwarf_Word i = 0; i * 8 < size; i++) {
		uint16_t reg;
		Dwarf_Word len = size - i * 8 > 8 ? 8 : size - i * 8;

		if (cls[i] == EB_NONE)
			continue;
		reg = cls[i] == EB_SSE ? sse_regs[ns++] : int_regs[ni++];
		if (emit(k, FETCH_OP_REG, 0, reg, 0) < 0 ||
		    emit(k, FETCH_OP_PIECE, (uint8_t)len, 0, (int64_t)(i * 8)) < 0)
			return -E2BIG;
	}
	k->state = LOC_PIECES;
	k->pieces_len = (uint32_t)size;
	return 0;
}

bool var_retval_untyped(const struct var_ctx *c)
{
	Dwarf_Die fn = c->site->fn, type, t;

	return die_type(&fn, &type) && strip_type(&type, &t) &&
	       dwarf_tag(&t) == DW_TAG_unspecified_type;
}

int var_compile_retval(const struct var_ctx *c, const struct probe_arg *arg,
		       struct fetch_prog *prog, struct ptap_err *err)
{
	struct comp k = { .c = c, .prog = prog, .err = err, .pos = arg->pos, .text = arg->text };
	Dwarf_Die fn = c->site->fn, type, t;
	Dwarf_Word size;
	int tag, r;

	memset(prog, 0, sizeof(*prog));
	if (!die_type(&fn, &type) || !strip_type(&type, &t))
		return ptap_err_set(err, arg->pos, -EINVAL, "%s returns void: there is no $retval",
				    c->site->func);
	tag = dwarf_tag(&t);
	size = type_size(&t);
	if (tag == DW_TAG_structure_type || tag == DW_TAG_union_type || tag == DW_TAG_class_type) {
		uint8_t cls[2] = { EB_NONE, EB_NONE };

		if (size <= 16 && size > 0 && classify(&t, 0, cls, 0)) {
			r = retval_pieces(&k, size, cls);
		} else {
			/* in memory: the caller's buffer, whose address comes back in rax */
			r = emit(&k, FETCH_OP_REG, 0, ARCH_DWARF_RET_INT0, 0);
			k.state = LOC_MEM;
		}
	} else if (tag == DW_TAG_base_type &&
		   die_udata(&t, DW_AT_encoding, 0) == DW_ATE_float && size <= 8) {
		r = emit(&k, FETCH_OP_REG, 0, ARCH_DWARF_RET_SSE0, 0);
		k.state = LOC_VALUE;
	} else if (tag == DW_TAG_base_type && (size > 8 ||
		   die_udata(&t, DW_AT_encoding, 0) == DW_ATE_complex_float)) {
		char tn[128], why[200];

		snprintf(why, sizeof(why), "it is %s, returned in registers ptap does not read "
			 "(x87 or a pair); a :TYPE reads %%ax as that",
			 var_type_name(&type, tn, sizeof(tn)));
		return cannot(&k, why);
	} else {
		r = emit(&k, FETCH_OP_REG, 0, ARCH_DWARF_RET_INT0, 0);
		k.state = LOC_VALUE;
	}
	return r < 0 ? r : finish(&k, arg, &type);
}

/* ---- `ptap vars` -------------------------------------------------------- */

/* The kind of location a compiled program reads, for `ptap vars`. */
static void loc_text(const struct fetch_prog *p, char *loc, size_t len)
{
	const struct fetch_op *o = p->ops;

	if (p->composite) {
		snprintf(loc, len, "pieces");
	} else if (p->nops == 1 && o[0].op == FETCH_OP_REG) {
		const char *rn = arch_reg_name(o[0].reg);

		if (rn)
			snprintf(loc, len, "register %s", rn);
		else
			snprintf(loc, len, "register %%xmm%d", o[0].reg - ARCH_DWARF_NREGS);
	} else if (p->nops >= 1 && o[0].op == FETCH_OP_REG &&
		   (o[0].reg == ARCH_DWARF_SP || (int)o[0].reg == arch_reg_by_name("bp"))) {
		snprintf(loc, len, "frame");	/* relative to the stack or frame pointer */
	} else if (p->nops >= 1 && o[0].op == FETCH_OP_ADDR) {
		snprintf(loc, len, "global");
	} else if (p->nops == 1 && o[0].op == FETCH_OP_IMM) {
		snprintf(loc, len, "const");
	} else {
		snprintf(loc, len, "expr");
	}
}

bool var_describe(const struct var_ctx *c, const struct var_info *v, char *type, size_t tlen,
		  char *loc, size_t llen)
{
	struct fetch_prog prog;
	struct ptap_err err = { .pos = -1 };
	Dwarf_Die t;
	Dwarf_Die die = v->die;

	var_type_name(die_type(&die, &t) ? &t : NULL, type, tlen);
	if (var_compile_info(c, v, -1, &prog, &err) < 0) {
		const char *why = strstr(err.msg, ": ");

		if (strstr(err.msg, "optimized out"))
			snprintf(loc, llen, "optimized out");
		else
			snprintf(loc, llen, "cannot fetch%s", why ? why : "");
		return false;
	}
	loc_text(&prog, loc, llen);
	return true;
}
