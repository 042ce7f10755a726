/* dwarf/pctx.c: the sites of one probe point being collected (struct
 * pctx, dwarf/pctx_int.h), and the helpers every finder shares: a growing
 * array, glob and source-file matching. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dwarf/demangle.h"
#include "dwarf/pctx_int.h"

/* Make *PTR (capacity *CAP elements of SIZE) hold NEED.  0 or -ENOMEM. */
int points_grow(void **ptr, size_t *cap, size_t size, size_t need)
{
	size_t ncap = *cap ? *cap : 16;
	void *p;

	if (need <= *cap)
		return 0;
	while (ncap < need)
		ncap *= 2;
	p = realloc(*ptr, ncap * size);
	if (!p)
		return -ENOMEM;
	*ptr = p;
	*cap = ncap;
	return 0;
}

bool points_is_glob(const char *s)
{
	return name_is_glob(s);
}

/*
 * Does SRC name PATH: the whole path, or its trailing components
 * ("structs.c" and "samples/structs.c" both name ".../samples/structs.c")?
 */
bool src_match(const char *path, const char *src)
{
	size_t pl, sl;

	if (!path || !src)
		return false;
	while (src[0] == '.' && src[1] == '/')
		src += 2;
	pl = strlen(path);
	sl = strlen(src);
	if (sl > pl || strcmp(path + pl - sl, src))
		return false;
	if (sl == pl)
		return true;
	return src[0] != '/' && path[pl - sl - 1] == '/';
}

/*
 * Add a site at link-time VADDR; FROM is an instruction start at or before
 * it in the same contiguous code (checked later).  CU and FN may be NULL
 * (ELF symbols).  FUNC and WHERE are copied.
 */
int add_site(struct pctx *c, uint64_t vaddr, uint64_t from, const char *func,
	     const char *where, Dwarf_Die *cu, Dwarf_Die *fn, bool inlined, bool at_entry,
	     bool after_prologue)
{
	struct site_rec *r;

	if (points_grow((void **)&c->recs, &c->cap, sizeof(*c->recs), c->n + 1) < 0)
		return -ENOMEM;
	r = &c->recs[c->n];
	memset(r, 0, sizeof(*r));
	r->seq = c->n;
	r->from = from;
	r->s.vaddr = vaddr;
	r->s.func = strdup(func);
	r->s.where = strdup(where);
	c->n++;
	if (!r->s.func || !r->s.where)
		return -ENOMEM;
	if (cu && fn) {
		r->s.has_die = true;
		r->die.cu = *cu;
		r->die.fn = *fn;
	}
	r->s.inlined = inlined;
	r->s.at_entry = at_entry;
	r->s.after_prologue = after_prologue;
	return 0;
}

/* The source line of the site just added, when the point named it. */
void set_last_line(struct pctx *c, const char *file, int line)
{
	c->recs[c->n - 1].s.file = file;
	c->recs[c->n - 1].s.line = line;
}
