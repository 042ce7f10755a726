/* dwarf/site.h: a probe site as plain data (struct point_site), what
 * dwarf/points.h resolves a point to, and the sites a glob leaves out
 * (struct site_skips).  Never calls ptrace. */
#ifndef PTAP_DWARF_SITE_H
#define PTAP_DWARF_SITE_H

#include <stdbool.h>
#include <stdint.h>

struct site_die;

/*
 * The sites a glob leaves out because they cannot be probed (issue 17: one
 * such site must not sink the glob): how many, and the first few with why,
 * for the one message that lists them.
 */
#define SITE_SKIPS_SHOWN	3
struct site_skips {
	int n;				/* sites left out */
	char first[SITE_SKIPS_SHOWN][400];	/* "WHERE: WHY" of the first ones */
};

/* Count a site left out; WHY is its reason, named after WHERE unless it names it. */
void site_skips__add(struct site_skips *sk, const char *where, const char *why);

struct point_site {
	uint64_t vaddr;		/* link-time address of the site in the module */
	char *func;		/* the function probed (for globs: the one matched) */
	char *where;		/* for messages and `ptap vars`: "exec_query",
				 * "exec_query+4", "exec_query:3", "structs.c:42",
				 * "0x1139"; an inlined instance: "helper@main+0x1c" */
	bool has_die;		/* DWARF describes the site: DIE is set */
	struct site_die *die;	/* its compile unit and function (dwarf/site_int.h, private
				 * to dwarf/), or NULL; lives as long as the sites */
	bool inlined;
	bool at_entry;		/* VADDR is its function's entry pc (for an inlined one: the
				 * instance's first instruction, where the caller's
				 * registers are NOT the entry values DW_OP_entry_value
				 * means; dwarf/locexpr.c checks the concrete function) */
	bool after_prologue;	/* FUNC was moved past the prologue (-O0 code) */
	bool sp_at_ra;		/* moved past code that leaves the stack pointer as at the
				 * entry, on the return address (Go's stack check) */
	const char *file;	/* source file of VADDR (borrowed from the Dwarf), or NULL */
	int line;		/* and its line, or 0 */
};

#endif
