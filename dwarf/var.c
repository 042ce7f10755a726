/* dwarf/var.c: a DWARF variable at a probe site -> a fetch program.
 *
 * The variables in scope at the site and the lookup of one by name (locals,
 * parameters, the unit's globals, any unit's globals); then its location
 * (dwarf/locexpr.c), its access chain (dwarf/chain.c) and the load and
 * format its last type picks (dwarf/value.c).  Nothing is guessed: a
 * location or type ptap cannot follow exactly is an error at start, naming
 * the variable and the reason. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>
#include <elf.h>

#include "dwarf/comp_int.h"
#include "dwarf/debuginfo_int.h"
#include "dwarf/die_int.h"
#include "dwarf/elfmod.h"
#include "dwarf/points.h"
#include "dwarf/var_int.h"
#include "probes/err.h"
#include "probes/spec.h"

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
	Dwarf_Die cu = c->site->die->cu;
	Dwarf_Die fn = c->site->die->fn;
	Dwarf_Die *scopes = NULL;
	int n = dwarf_getscopes(&cu, var_site_pc(c), &scopes);

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
	Dwarf_Die cu = c->site->die->cu;

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
	Dwarf_Die cu = c->site->die->cu;

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
			    "`ptap vars`)%s", e->name, c->site->where,
			    f.list[0] ? f.list : "none",
			    !strcmp(e->name, "retval") ? "; the return value is $retval, on a "
			    "return probe (FUNC%return)" : "");
global:
	v->name = e->name;
	v->global = true;
	return check_copy_reloc(c, v, e->pos, err);
}

/* Location, chain and final load of V (E: the chain, NULL for a bare variable). */
static int compile_var(struct comp *k, const struct probe_arg *arg, const struct arg_expr *e,
		       const struct var_info *v)
{
	Dwarf_Die type;
	int r;

	if (!die_type((Dwarf_Die *)&v->die, &type))
		return ptap_err_set(k->err, k->pos, -EINVAL, "'%s' has no type in DWARF", k->text);
	r = comp_location(k, v);
	if (r == 0 && e)
		r = comp_chain(k, &type, e);
	else if (r == 0 && k->state != LOC_PIECES)	/* in pieces: its address, as before */
		r = comp_follow_refs(k, &type);
	return r < 0 ? r : comp_finish(k, arg, &type);
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

bool var_is_local(const struct var_ctx *c, const struct arg_expr *e)
{
	struct ptap_err ignored = { .pos = -1 };
	struct var_info v;

	return dbg__dwarf(c->dbg) && c->site->has_die && lookup(c, e, &v, &ignored) == 0 &&
	       !v.param && !v.global;
}

int var_compile_info(const struct var_ctx *c, const struct var_info *v, int pos,
		     struct fetch_prog *prog, struct ptap_err *err)
{
	struct probe_arg arg = { .text = (char *)v->name, .pos = pos };
	struct comp k = { .c = c, .prog = prog, .err = err, .pos = pos, .text = v->name };

	memset(prog, 0, sizeof(*prog));
	return compile_var(&k, &arg, NULL, v);
}
