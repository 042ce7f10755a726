/* probes/spec.h: a probe as the user wrote it (perf probe's syntax), before
 * it is resolved against any binary.  Pure: parse and synthesize only. */
#ifndef PTAP_PROBES_SPEC_H
#define PTAP_PROBES_SPEC_H

#include <stdbool.h>
#include <stdint.h>

#include "probes/fetch.h"

struct ptap_err;

enum probe_point_kind {
	PP_FUNC,		/* FUNC[@SRC][+OFF|%return|:RELLINE]; FUNC may be a glob */
	PP_SRCLINE,		/* SRC:LINE */
	PP_ADDR,		/* 0xADDR (module-relative virtual address) */
};

struct probe_point {
	enum probe_point_kind kind;
	char *func;		/* PP_FUNC */
	char *src;		/* @SRC, or the SRC of SRC:LINE; NULL if not given */
	long offset;		/* +OFF */
	int line;		/* :RELLINE (PP_FUNC) or LINE (PP_SRCLINE); 0 if not given */
	uint64_t addr;		/* PP_ADDR */
	bool retprobe;		/* %return */
};

enum arg_kind {
	ARG_REG,		/* %REG: NAME is the register name without '%' ("di", "rdi") */
	ARG_ARGN,		/* $argN: N is 1-based */
	ARG_DEREF,		/* +OFF(INNER) / -OFF(INNER): OFF in OFF */
	ARG_SYMBOL,		/* @SYMBOL[+OFF]: NAME, OFF */
	ARG_VAR,		/* a DWARF variable NAME with an access CHAIN */
	ARG_RETVAL,		/* $retval; Go's ~rN (NAME "~rN", N its index) */
	ARG_PARAMS,		/* $params */
	ARG_VARS,		/* $vars */
	ARG_IMM,		/* a number */
};

enum arg_access_kind {
	ACC_ARROW,		/* ->MEMBER */
	ACC_DOT,		/* .MEMBER */
	ACC_INDEX,		/* [INDEX] */
};

struct arg_access {
	enum arg_access_kind kind;
	char *member;		/* ACC_ARROW, ACC_DOT */
	long index;		/* ACC_INDEX */
};

struct arg_expr {
	enum arg_kind kind;
	int pos;		/* byte offset of the expression in the probe text */
	char *name;		/* ARG_REG, ARG_SYMBOL, ARG_VAR */
	long n;			/* ARG_ARGN; ARG_IMM value; ARG_RETVAL: a Go result's index */
	long off;		/* ARG_DEREF, ARG_SYMBOL */
	struct arg_expr *inner;	/* ARG_DEREF */
	char *file;		/* ARG_VAR: VAR@FILE, the source file of a file-scope variable */
	int nderef;		/* ARG_VAR: leading '*' count, applied after CHAIN (*a->b) */
	struct arg_access *chain;	/* ARG_VAR */
	int nchain;
};

struct probe_arg {
	char *name;		/* NAME= given by the user, else NULL */
	char *text;		/* the EXPR as written, without NAME= and :TYPE */
	struct arg_expr *expr;
	struct fetch_type type;	/* FT_DEFAULT when no :TYPE */
	bool has_type;
	int pos;		/* byte offset of this argument in the probe text */
};

struct probe_spec {
	char *text;		/* the whole probe as written */
	char *event;		/* EVENT= given by the user, else NULL (GROUP: is dropped) */
	struct probe_point point;
	struct probe_arg *args;
	int nargs;
};

/*
 * Parse TEXT ("[[GROUP:]EVENT=]POINT [ARG ...]", grammar in spec.c) into
 * *OUT.  0; -EINVAL with ERR (may be NULL) holding the byte column of the
 * offending token and the reason; -ENOMEM.  On error *OUT is NULL.  Every
 * string in *OUT is owned by it; the caller frees *OUT with
 * probe_spec__free().  Register names, variables and symbols are not checked
 * here (arch/ and dwarf/ do that when the probe is resolved).
 */
int probe_spec__parse(const char *text, struct probe_spec **out, struct ptap_err *err);
void probe_spec__free(struct probe_spec *spec);	/* NULL is fine */

/*
 * Write SPEC back in canonical syntax into BUF (LEN bytes, NUL-terminated and
 * cut when short, as snprintf); returns the length it needed.  Canonical:
 * numbers in decimal except 0xADDR, suffixes as FUNC@SRC+OFF|:LINE|%return,
 * single spaces, no GROUP:.  parse(synthesize(spec)) gives the same fields.
 */
int probe_spec__synthesize(const struct probe_spec *spec, char *buf, size_t len);

/* The name an argument is recorded under: NAME=, else "argN" (1-based I+1). */
const char *probe_arg__name(const struct probe_arg *arg, int i, char *buf, size_t len);

#endif
